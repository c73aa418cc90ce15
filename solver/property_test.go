package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// naiveFits checks every filter of pod p on node n from scratch: cordon,
// taints, node selector and affinity, host ports, and every resource.
func naiveFits(c *index.Cluster, p *index.Pod, n int) bool {
	nd := &c.Nodes[n]
	feasible := naiveFeasible(&index.Cluster{Nodes: []index.Node{*nd}}, p)
	if len(feasible) != 1 {
		return false
	}
	d := c.DemandOf(p)
	return fitsNow(c, n, &d)
}

// fitsNow is NodeResourcesFit and NodePorts on node n now: one more pod,
// every requested resource, and no host port conflict.
func fitsNow(c *index.Cluster, n int, d *index.Demand) bool {
	if !rules.PodsFit(c.Req[index.ResPods][n], c.Alloc[index.ResPods][n]) {
		return false
	}
	for _, rv := range d.Req {
		if !rules.Fits(c.Req[rv.Res][n], rv.Val, c.Alloc[rv.Res][n]) {
			return false
		}
	}
	return rules.PortsFilter(c.Ports[n], d.Ports) == rules.None
}

// randomCluster makes a small cluster that exercises every static filter,
// extended resources and host ports, and pending pods of many kinds.
func randomCluster(r *rand.Rand) ([]index.Node, []index.Pod) {
	zones := []string{"a", "b", "c"}
	var nodes []index.Node
	for i := range 20 + r.IntN(60) {
		b := makeNode(fmt.Sprintf("n%d", i)).
			alloc("cpu", int64(1000+r.IntN(8)*500)).alloc("memory", int64(1+r.IntN(8))<<30).alloc("pods", int64(3+r.IntN(8))).
			label("zone", zones[r.IntN(3)]).label("gen", fmt.Sprint(r.IntN(6)))
		if r.IntN(4) == 0 {
			b.taint("dedicated", []string{"x", "y"}[r.IntN(2)], []string{NS, NE}[r.IntN(2)])
		}
		if r.IntN(5) == 0 {
			b.taint("spot", "true", PN)
		}
		if r.IntN(7) == 0 {
			b.taint("noisy", "1", PN)
		}
		if r.IntN(15) == 0 {
			b.unschedulable()
		}
		if r.IntN(5) == 0 {
			b.alloc("example.com/gpu", int64(1+r.IntN(4)))
		}
		if r.IntN(3) == 0 {
			b.label("disk", "ssd")
		}
		nodes = append(nodes, b.obj())
	}
	var pods []index.Pod
	// A few running pods, some holding host ports.
	for i := range len(nodes) / 2 {
		b := makePod(fmt.Sprintf("run%d", i)).req("cpu", int64(100*r.IntN(5))).on(nodes[r.IntN(len(nodes))].Name)
		if r.IntN(4) == 0 {
			b.hostPort(8080)
		}
		pods = append(pods, b.obj())
	}
	// Pending pods in deployments of random specs.
	for d := range 30 + r.IntN(30) {
		spec := makePod("spec").req("cpu", int64(100+r.IntN(20)*100)).req("memory", int64(1+r.IntN(16))<<27).priority(int32(r.IntN(3)))
		switch r.IntN(4) {
		case 0:
			spec.tol("dedicated", "Exists", "", "")
		case 1:
			spec.tol("dedicated", "Equal", "x", NS).tol("spot", "Exists", "", PN)
		case 2:
			spec.tol("", "Exists", "", "")
		}
		switch r.IntN(5) {
		case 0:
			spec.selector("zone", zones[r.IntN(3)])
		case 1:
			spec.term(req("gen", "Gt", fmt.Sprint(r.IntN(5))))
		case 2:
			spec.term(req("zone", "NotIn", "a")).term(req("disk", "Exists"))
		case 3:
			spec.fieldTerm(req("metadata.name", "In", nodes[r.IntN(len(nodes))].Name))
		}
		if r.IntN(3) == 0 {
			spec.preferred(int32(1+r.IntN(100)), req("disk", "In", "ssd"))
		}
		if r.IntN(4) == 0 {
			spec.preferred(int32(1+r.IntN(100)), req("zone", "In", zones[r.IntN(3)]))
		}
		if r.IntN(8) == 0 {
			spec.req("example.com/gpu", 1)
		}
		if r.IntN(10) == 0 {
			spec.hostPort(8080)
		}
		for k := range 1 + r.IntN(12) {
			p := spec.p
			p.Name, p.UID = fmt.Sprintf("d%d-%d", d, k), fmt.Sprintf("u%d-%d", d, k)
			p.CreationUnix = int64(d)
			pods = append(pods, p)
		}
	}
	return nodes, pods
}

// TestPropertyRandomClusters places random clusters and checks, before each
// placement, against a from-scratch reference: the chosen node passes every
// filter and has the best kube-scheduler score over all nodes that do (with
// normalisation over those nodes); a pod left pending fits on no node.
func TestPropertyRandomClusters(t *testing.T) {
	t.Parallel()
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 99))
		nodes, pods := randomCluster(r)
		c := cluster(t, nodes, pods)
		s := newSolver(c, Config{Seed: seed})
		queue := Queue(c)
		classOf := s.classify(queue)
		s.awaitGroups()
		for i, pid := range queue {
			cl := s.classes[classOf[i]]
			p := &c.Pods[pid]
			fitting, ref := reference(c, cl, func(n int) bool {
				if !naiveFits(c, p, n) {
					return false
				}
				if !cl.g.has(n) {
					t.Fatalf("seed %d pod %s: node %s passes the naive filters but not the bitmaps", seed, p.Name, c.Nodes[n].Name)
				}
				return true
			})
			best := int64(-1)
			for _, n := range fitting {
				best = max(best, ref(n))
			}
			n, _, ok := s.place(cl, pid)
			cl.pods--
			if !ok {
				if len(fitting) > 0 {
					t.Fatalf("seed %d: pod %s left pending but %d nodes fit", seed, p.Name, len(fitting))
				}
				continue
			}
			d := c.DemandOf(p)
			c.Unbind(pid, &d)
			fits, got := naiveFits(c, p, int(n)), ref(int(n))
			c.Bind(pid, n, &d)
			if !fits {
				t.Fatalf("seed %d: pod %s placed on %s, which fails a filter", seed, p.Name, c.Nodes[n].Name)
			}
			if got != best {
				t.Fatalf("seed %d: pod %s on %s scores %d, best is %d", seed, p.Name, c.Nodes[n].Name, got, best)
			}
		}

	}
}
