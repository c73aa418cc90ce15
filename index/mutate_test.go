package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMutateMatchesBuild changes a cluster between batches (taints,
// cordons, pods added, bound, unbound, started) and checks after every
// change that its indexes equal those Build makes of the same nodes and
// pods.
func TestMutateMatchesBuild(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	pool := []Taint{{Key: "a", Effect: EffectNoSchedule}, {Key: "b", Value: "x", Effect: EffectNoExecute},
		{Key: "c", Effect: EffectPreferNoSchedule}, {Key: "node.kubernetes.io/unreachable", Effect: EffectNoExecute}}
	prios := []int32{-5, 0, 100, 1000}
	in := &Input{}
	for i := range 12 {
		in.Nodes = append(in.Nodes, Node{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"zone": fmt.Sprint(i % 3)},
			Allocatable: ResourceList{{Name: "cpu", Value: 8000}, {Name: "memory", Value: 32 << 30}, {Name: "pods", Value: 110}}})
	}
	newPod := func(i int, gpu bool) Pod {
		p := Pod{Namespace: "ns", Name: fmt.Sprintf("p%d", i), Priority: prios[r.IntN(len(prios))], PreemptionPolicy: PreemptLowerPriority,
			Requests:  ResourceList{{Name: "cpu", Value: int64(100 + r.IntN(900))}, {Name: "memory", Value: int64(1+r.IntN(4)) << 28}},
			StartUnix: int64(r.IntN(3)) * 1000}
		if gpu {
			p.Requests = append(p.Requests, Quantity{Name: "nvidia.com/gpu", Value: 1})
		}
		p.ScoreCPU, p.ScoreMemory, p.NonZeroCPU, p.NonZeroMemory = p.Requests[0].Value, p.Requests[1].Value, p.Requests[0].Value, p.Requests[1].Value
		return p
	}
	for i := range 40 {
		p := newPod(i, false)
		if i%5 != 4 {
			p.NodeName = in.Nodes[r.IntN(len(in.Nodes))].Name
		}
		in.Pods = append(in.Pods, p)
	}
	model := cloneInput(in)
	c, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	c.EnsureLow()
	for step := range 300 {
		var what string
		switch k := r.IntN(6); k {
		case 0:
			n := r.IntN(len(c.Nodes))
			var ts []Taint
			for _, tt := range pool {
				if r.IntN(2) == 0 {
					ts = append(ts, tt)
				}
			}
			c.SetTaints(NodeID(n), ts)
			model.Nodes[n].Taints = slices.Clone(ts)
			what = "taints"
		case 1:
			n := r.IntN(len(c.Nodes))
			v := r.IntN(2) == 0
			c.SetUnschedulable(NodeID(n), v)
			model.Nodes[n].Unschedulable = v
			what = "cordon"
		case 2:
			p := newPod(len(c.Pods), step == 150) // one pod brings a new resource
			pid := c.AddPod(p)
			model.Pods = append(model.Pods, p)
			if r.IntN(3) > 0 {
				n := r.IntN(len(c.Nodes))
				d := c.DemandOf(&c.Pods[pid])
				c.Bind(pid, NodeID(n), &d)
				model.Pods[pid].NodeName = c.Nodes[n].Name
			}
			what = "add"
		case 3, 4:
			p := PodID(r.IntN(len(c.Pods)))
			if c.PodNode[p] == NoNode {
				n := r.IntN(len(c.Nodes))
				d := c.DemandOf(&c.Pods[p])
				c.Bind(p, NodeID(n), &d)
				model.Pods[p].NodeName = c.Nodes[n].Name
				what = "bind"
			} else {
				d := c.DemandOf(&c.Pods[p])
				c.Unbind(p, &d)
				model.Pods[p].NodeName = ""
				what = "unbind"
			}
		case 5:
			p := PodID(r.IntN(len(c.Pods)))
			s := int64(r.IntN(5000))
			c.SetStart(p, s)
			model.Pods[p].StartUnix = s
			what = "start"
		}
		fresh, err := Build(cloneInput(model))
		if err != nil {
			t.Fatal(err)
		}
		fresh.EnsureLow()
		if msg := sameIndexes(c, fresh); msg != "" {
			t.Fatalf("step %d (%s): %s", step, what, msg)
		}
	}
}

func cloneInput(in *Input) *Input {
	out := &Input{Nodes: slices.Clone(in.Nodes), Pods: slices.Clone(in.Pods)}
	for i := range out.Nodes {
		out.Nodes[i].Taints = slices.Clone(out.Nodes[i].Taints)
	}
	return out
}

// sameIndexes compares what a solve reads; "" when equal.
func sameIndexes(a, b *Cluster) string {
	for n := range a.Nodes {
		id := NodeID(n)
		ta, tb := nodeTaints(a, id), nodeTaints(b, id)
		if !slices.Equal(ta, tb) {
			return fmt.Sprintf("node %d taints %v, want %v", n, ta, tb)
		}
		for ti, tt := range a.Taints {
			j := slices.Index(b.Taints, tt)
			if in, want := a.TaintNodes[ti].Contains(id), j >= 0 && b.TaintNodes[j].Contains(id); in != want {
				return fmt.Sprintf("node %d in the bitmap of %v: %v, want %v", n, tt, in, want)
			}
		}
		if a.Unschedulable.Contains(id) != b.Unschedulable.Contains(id) || a.Nodes[n].Unschedulable != b.Nodes[n].Unschedulable {
			return fmt.Sprintf("node %d unschedulable differs", n)
		}
		for r, name := range b.ResNames {
			if a.Req[a.ResIndex[name]][n] != b.Req[r][n] {
				return fmt.Sprintf("node %d %s requested %d, want %d", n, name, a.Req[a.ResIndex[name]][n], b.Req[r][n])
			}
		}
		pa, pb := slices.Sorted(slices.Values(a.PodsOn[n])), slices.Sorted(slices.Values(b.PodsOn[n]))
		if !slices.Equal(pa, pb) {
			return fmt.Sprintf("node %d pods %v, want %v", n, pa, pb)
		}
		for j, pr := range a.LowPrio {
			k := slices.Index(b.LowPrio, pr)
			if k < 0 {
				continue
			}
			for r, name := range b.ResNames {
				ra := a.ResIndex[name]
				if got, want := a.Low[j*len(a.ResNames)+int(ra)][n], b.Low[k*len(b.ResNames)+r][n]; got != want {
					return fmt.Sprintf("node %d below %d %s: %d, want %d", n, pr, name, got, want)
				}
			}
			if got, want := a.LatestStart(j, id), b.LatestStart(k, id); got != want {
				return fmt.Sprintf("node %d latest start at %d: %d, want %d", n, pr, got, want)
			}
		}
	}
	if a.MinPriority != b.MinPriority || !slices.Equal(a.RelPods, b.RelPods) {
		return "min priority or pod-relative pods differ"
	}
	return ""
}

func nodeTaints(c *Cluster, n NodeID) []Taint {
	var out []Taint
	for _, ti := range c.NodeTaints[n] {
		out = append(out, c.Taints[ti])
	}
	return out
}
