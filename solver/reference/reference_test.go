package reference

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// The reference's own checks, on hand-made clusters whose outcome follows
// from the seed pages and kube-scheduler by hand; the differential tests
// (solver, bench) compare it with the fast solver on many more.

func node(name, zone string, cpu int64, taints ...index.Taint) index.Node {
	return index.Node{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "node": name, "zone": zone}, Taints: taints,
		Allocatable: index.ResourceList{{Name: "cpu", Value: cpu}, {Name: "memory", Value: 16 << 30}, {Name: "pods", Value: 110}}}
}

func pod(name string, cpu int64, prio int32, on string) index.Pod {
	return index.Pod{Namespace: "default", Name: name, Labels: map[string]string{"foo": "bar"}, NodeName: on, Priority: prio,
		Requests: index.ResourceList{{Name: "cpu", Value: cpu}}, ScoreCPU: cpu, NonZeroCPU: cpu, ScoreMemory: 200 << 20, NonZeroMemory: 200 << 20,
		PreemptionPolicy: index.PreemptLowerPriority}
}

func solve(t *testing.T, in *index.Input) (*index.Cluster, *Result) {
	t.Helper()
	c, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	return c, Solve(c, Config{Seed: 1})
}

func outcome(c *index.Cluster, res *Result) []string {
	var out []string
	for _, cm := range res.Commits {
		verb := "bind"
		if cm.Evict {
			verb = "evict"
		}
		out = append(out, fmt.Sprintf("%s %s %s", verb, c.Pods[cm.Pod].Name, c.Nodes[cm.Node].Name))
	}
	for _, pd := range res.Pending {
		out = append(out, fmt.Sprintf("pending %s: %s", c.Pods[pd.Pod].Name, pd.Reason))
	}
	return out
}

// TestSpreadSeed: the topology spread page's four-node example; the pod
// may go to zone B only, and with a per-node constraint too, to node4
// only.
func TestSpreadSeed(t *testing.T) {
	spread := func(key string) index.SpreadConstraint {
		return index.SpreadConstraint{MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: index.DoNotSchedule, MinDomains: 1,
			Selector: &index.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}}, NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore}
	}
	for _, tc := range []struct {
		keys  []string
		nodes []string
	}{{[]string{"zone"}, []string{"node3", "node4"}}, {[]string{"zone", "node"}, []string{"node4"}}} {
		for seed := range uint64(8) { // whatever the tie-break
			in := &index.Input{Nodes: []index.Node{node("node1", "zoneA", 4000), node("node2", "zoneA", 4000), node("node3", "zoneB", 4000), node("node4", "zoneB", 4000)},
				Pods: []index.Pod{pod("a", 100, 0, "node1"), pod("b", 100, 0, "node2"), pod("c", 100, 0, "node3"), pod("mypod", 100, 0, "")}}
			for _, k := range tc.keys {
				in.Pods[3].Spread = append(in.Pods[3].Spread, spread(k))
			}
			c, err := index.Build(in)
			if err != nil {
				t.Fatal(err)
			}
			res := Solve(c, Config{Seed: seed})
			if len(res.Commits) != 1 || !slices.Contains(tc.nodes, c.Nodes[res.Commits[0].Node].Name) {
				t.Errorf("keys %v seed %d: %v, want mypod on one of %v", tc.keys, seed, outcome(c, res), tc.nodes)
			}
		}
	}
}

// TestReasons: a pod that fits nowhere gets every node's first failing
// filter, the counts sorted as strings, and preemption's dry run.
func TestReasons(t *testing.T) {
	taint := index.Taint{Key: "dedicated", Value: "x", Effect: index.EffectNoSchedule}
	in := &index.Input{
		Nodes: []index.Node{node("n1", "a", 1000, taint), node("n2", "a", 1000), node("n3", "b", 1000)},
		Pods:  []index.Pod{pod("big", 900, 5, "n2"), pod("small", 500, 0, "n3"), pod("p", 800, 3, "")},
	}
	c, res := solve(t, in)
	want := []string{"evict small n3", "bind p n3"}
	if got := outcome(c, res); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Now n3 also holds a pod of higher priority: evicting the other one
	// is not enough.
	in.Pods = append(in.Pods, pod("keeper", 400, 10, "n3"))
	c, res = solve(t, in)
	want = []string{"pending p: 0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. " +
		"no new claims to deallocate, preemption: 0/3 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."}
	if got := outcome(c, res); !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// TestPreemptionChoice: the node whose victims have the lowest highest
// priority wins, and the victims are the fewest that make room, reprieved
// most important first.
func TestPreemptionChoice(t *testing.T) {
	in := &index.Input{
		Nodes: []index.Node{node("n1", "a", 3000), node("n2", "a", 3000)},
		Pods: []index.Pod{
			pod("n1-a", 1000, 10, "n1"), pod("n1-b", 1000, 20, "n1"), pod("n1-c", 1000, 30, "n1"),
			pod("n2-a", 1000, 5, "n2"), pod("n2-b", 1000, 50, "n2"), pod("n2-c", 1000, 5, "n2"),
			pod("p", 2000, 100, ""),
		},
	}
	in.Pods[3].StartUnix, in.Pods[5].StartUnix = 100, 200 // n2-a is the more important of the two
	c, res := solve(t, in)
	// n1's highest victim would be 20 (evicting n1-a and n1-b), n2's 5.
	want := []string{"evict n2-a n2", "evict n2-c n2", "bind p n2"}
	if got := outcome(c, res); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
