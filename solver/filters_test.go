package solver

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

const (
	NS = index.EffectNoSchedule
	NE = index.EffectNoExecute
	PN = index.EffectPreferNoSchedule
)

func TestToleratesTaint(t *testing.T) {
	t.Parallel()
	taint := index.Taint{Key: "key1", Value: "value1", Effect: NS}
	f := func(tol index.Toleration, taint index.Taint, want bool) {
		t.Helper()
		if got := tol.ToleratesTaint(&taint); got != want {
			t.Errorf("%+v tolerates %+v = %v, want %v", tol, taint, got, want)
		}
	}
	// The seed page's two tolerations that both match key1=value1:NoSchedule.
	f(index.Toleration{Key: "key1", Operator: "Equal", Value: "value1", Effect: NS}, taint, true)
	f(index.Toleration{Key: "key1", Operator: "Exists", Effect: NS}, taint, true)
	// Operator defaults to Equal.
	f(index.Toleration{Key: "key1", Value: "value1", Effect: NS}, taint, true)
	f(index.Toleration{Key: "key1", Value: "other", Effect: NS}, taint, false)
	// Equal with an empty value matches only an empty taint value.
	f(index.Toleration{Key: "key1", Operator: "Equal", Effect: NS}, taint, false)
	f(index.Toleration{Key: "k", Operator: "Equal", Effect: NS}, index.Taint{Key: "k", Effect: NS}, true)
	// Empty effect matches every effect.
	f(index.Toleration{Key: "key1", Operator: "Exists"}, taint, true)
	f(index.Toleration{Key: "key1", Operator: "Exists"}, index.Taint{Key: "key1", Effect: NE}, true)
	// Effect mismatch.
	f(index.Toleration{Key: "key1", Operator: "Exists", Effect: NE}, taint, false)
	f(index.Toleration{Key: "key1", Operator: "Exists", Effect: PN}, taint, false)
	// Exists with an empty key matches every key (and every effect when empty).
	f(index.Toleration{Operator: "Exists"}, taint, true)
	f(index.Toleration{Operator: "Exists"}, index.Taint{Key: "anything", Value: "x", Effect: NE}, true)
	f(index.Toleration{Operator: "Exists", Effect: NE}, taint, false)
	// Key mismatch.
	f(index.Toleration{Key: "key2", Operator: "Exists"}, taint, false)
	// Unknown operators never match.
	f(index.Toleration{Key: "key1", Operator: "Gt", Value: "value1", Effect: NS}, taint, false)
}

// TestSeedThreeTaints is the seed page's example: node1 has key1=value1 with
// NoSchedule and NoExecute and key2=value2:NoSchedule; a pod tolerating only
// the first two cannot land there.
func TestSeedThreeTaints(t *testing.T) {
	t.Parallel()
	tolerations := func(b *podB) *podB {
		return b.tol("key1", "Equal", "value1", NS).tol("key1", "Equal", "value1", NE)
	}
	nodes := []index.Node{
		makeNode("node1").taint("key1", "value1", NS).taint("key1", "value1", NE).taint("key2", "value2", NS).alloc("cpu", 8000).obj(),
		makeNode("node2").alloc("cpu", 1000).obj(),
	}
	pods := []index.Pod{
		tolerations(makePod("tolerates-key1")).req("cpu", 500).obj(),
		tolerations(makePod("pinned-to-node1")).selector("kubernetes.io/hostname", "node1").req("cpu", 100).obj(),
		tolerations(makePod("all-three")).tol("key2", "Exists", "", NS).selector("kubernetes.io/hostname", "node1").obj(),
	}
	got, _, _ := solve(t, nodes, pods)
	want := map[string]string{
		"tolerates-key1":  "node2",
		"pinned-to-node1": "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
		"all-three":       "node1",
	}
	if !maps.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestTaintFilter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		taint index.Taint
		tols  []index.Toleration
		fits  bool
	}{
		{"NoSchedule untolerated", index.Taint{Key: "k", Value: "v", Effect: NS}, nil, false},
		{"NoExecute untolerated", index.Taint{Key: "k", Value: "v", Effect: NE}, nil, false},
		{"PreferNoSchedule is not a filter", index.Taint{Key: "k", Value: "v", Effect: PN}, nil, true},
		{"Exists empty key tolerates all", index.Taint{Key: "k", Value: "v", Effect: NE}, []index.Toleration{{Operator: "Exists"}}, true},
		{"empty effect tolerates NoExecute", index.Taint{Key: "k", Value: "v", Effect: NE}, []index.Toleration{{Key: "k", Operator: "Exists"}}, true},
		{"NoExecute with tolerationSeconds tolerates", index.Taint{Key: "k", Value: "v", Effect: NE},
			[]index.Toleration{{Key: "k", Operator: "Equal", Value: "v", Effect: NE, TolerationSeconds: new(int64(3600))}}, true},
		{"wrong value", index.Taint{Key: "k", Value: "v", Effect: NS}, []index.Toleration{{Key: "k", Value: "w", Effect: NS}}, false},
		{"PreferNoSchedule toleration does not cover NoSchedule", index.Taint{Key: "k", Value: "v", Effect: NS},
			[]index.Toleration{{Key: "k", Operator: "Exists", Effect: PN}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nodes := []index.Node{makeNode("tainted").taint(tc.taint.Key, tc.taint.Value, tc.taint.Effect).obj()}
			p := makePod("p").req("cpu", 100)
			p.p.Tolerations = tc.tols
			got, _, _ := solve(t, nodes, []index.Pod{p.obj()})
			want := "tainted"
			if !tc.fits {
				want = "0/1 nodes are available: 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
			}
			if got["p"] != want {
				t.Errorf("got %q, want %q", got["p"], want)
			}
		})
	}
}

func TestUnschedulableNodes(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{
		makeNode("cordoned").unschedulable().obj(),
		makeNode("tainted").taint("dedicated", "x", NS).obj(),
	}
	pods := []index.Pod{
		makePod("plain").obj(),
		makePod("tolerates-cordon").tol("node.kubernetes.io/unschedulable", "Exists", "", NS).obj(),
		makePod("tolerates-all").tol("", "Exists", "", "").priority(-1).obj(),
		makePod("noexecute-only").tol("node.kubernetes.io/unschedulable", "Exists", "", NE).obj(),
	}
	got, _, _ := solve(t, nodes, pods)
	want := map[string]string{
		"plain":            "0/2 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
		"tolerates-cordon": "cordoned",
		"tolerates-all":    "tainted", // the cordoned node now has one pod more: LeastAllocated prefers the empty one
		"noexecute-only":   "0/2 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
	}
	if !maps.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestPreferNoScheduleSteers(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{
		makeNode("soft-tainted").taint("spot", "true", PN).obj(),
		makeNode("clean").obj(),
	}
	pods := []index.Pod{
		makePod("a").req("cpu", 100).obj(),
		makePod("b").req("cpu", 100).tol("spot", "Equal", "true", PN).obj(),
	}
	got, _, _ := solve(t, nodes, pods)
	if got["a"] != "clean" {
		t.Errorf("a on %q, want clean (PreferNoSchedule avoided)", got["a"])
	}
	if got["b"] != "soft-tainted" {
		t.Errorf("b on %q, want soft-tainted (tolerated, emptier)", got["b"])
	}
	// When the clean node is full, the soft-tainted node is still used.
	nodes[1] = makeNode("clean").alloc("cpu", 100).obj()
	got, _, _ = solve(t, nodes, []index.Pod{makePod("big").req("cpu", 100).obj(), makePod("c").req("cpu", 100).obj()})
	if got["big"] != "clean" || got["c"] != "soft-tainted" {
		t.Errorf("got %v, want big on clean, c on soft-tainted", got)
	}
}

// affinityNodes is a small zoo of labelled nodes for the affinity table.
func affinityNodes() []index.Node {
	return []index.Node{
		makeNode("a1").label("zone", "a").label("gen", "3").label("gpu", "true").obj(),
		makeNode("a2").label("zone", "a").label("gen", "5").obj(),
		makeNode("b1").label("zone", "b").label("gen", "10").obj(),
		makeNode("c1").label("zone", "c").label("gen", "x").obj(),
		makeNode("nolabels").obj(),
	}
}

func TestNodeAffinityFilter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		pod  *podB
		want []string // feasible nodes
	}{
		{"nodeSelector", makePod("p").selector("zone", "a"), []string{"a1", "a2"}},
		{"nodeSelector all pairs", makePod("p").selector("zone", "a").selector("gpu", "true"), []string{"a1"}},
		{"nodeSelector unknown value", makePod("p").selector("zone", "z"), nil},
		{"In", makePod("p").term(req("zone", "In", "a", "c")), []string{"a1", "a2", "c1"}},
		{"NotIn matches nodes without the key", makePod("p").term(req("zone", "NotIn", "a")), []string{"b1", "c1", "nolabels"}},
		{"Exists", makePod("p").term(req("gpu", "Exists")), []string{"a1"}},
		{"DoesNotExist", makePod("p").term(req("gpu", "DoesNotExist")), []string{"a2", "b1", "c1", "nolabels"}},
		{"Gt is numeric", makePod("p").term(req("gen", "Gt", "4")), []string{"a2", "b1"}},
		{"Lt skips non-integers", makePod("p").term(req("gen", "Lt", "10")), []string{"a1", "a2"}},
		{"Gt with a non-integer value matches nothing", makePod("p").term(req("gen", "Gt", "four")), nil},
		{"expressions ANDed", makePod("p").term(req("zone", "In", "a"), req("gen", "Gt", "4")), []string{"a2"}},
		{"terms ORed", makePod("p").term(req("zone", "In", "b")).term(req("gpu", "Exists")), []string{"a1", "b1"}},
		{"empty term matches nothing", makePod("p").term(), nil},
		{"empty term ORed with a real one", makePod("p").term().term(req("zone", "In", "c")), []string{"c1"}},
		{"nodeSelector ANDed with affinity", makePod("p").selector("zone", "a").term(req("gen", "Lt", "4")), []string{"a1"}},
		{"matchFields metadata.name In", makePod("p").fieldTerm(req("metadata.name", "In", "b1")), []string{"b1"}},
		{"matchFields metadata.name NotIn", makePod("p").fieldTerm(req("metadata.name", "NotIn", "b1")), []string{"a1", "a2", "c1", "nolabels"}},
		{"matchFields with expressions", makePod("p").term(req("zone", "In", "a")).fieldTerm(req("metadata.name", "In", "c1")), []string{"a1", "a2", "c1"}},
		{"In without values is invalid", makePod("p").term(req("zone", "In")), nil},
		{"matchFields In with two values is invalid", makePod("p").fieldTerm(req("metadata.name", "In", "a1", "b1")), nil},
		{"matchFields Exists is invalid", makePod("p").fieldTerm(req("metadata.name", "Exists")), nil},
		{"matchFields on another field", makePod("p").fieldTerm(req("spec.unschedulable", "NotIn", "x")), []string{"a1", "a2", "b1", "c1", "nolabels"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := cluster(t, affinityNodes(), nil)
			p := tc.pod.obj()
			g := newGroup(c, &p)
			var got []string
			for _, n := range g.nodes() {
				got = append(got, c.Nodes[n].Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("feasible %v, want %v", got, tc.want)
			}
			if naive := naiveFeasible(c, &p); !slices.Equal(naive, got) {
				t.Errorf("bitmap filter %v differs from naive filter %v", got, naive)
			}
		})
	}
}

// naiveFeasible evaluates the static filters node by node, with no bitmaps:
// the reference the bitmap algebra must equal.
func naiveFeasible(c *index.Cluster, p *index.Pod) []string {
	var out []string
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if rules.UnschedulableFilter(n.Unschedulable, p.Tolerations) != rules.None {
			continue
		}
		ok := rules.TaintFilter(n.Taints, p.Tolerations) == rules.None
		for k, v := range p.NodeSelector {
			if got, has := n.Labels[k]; !has || got != v {
				ok = false
			}
		}
		if p.HasRequired {
			any := false
			for ti := range p.RequiredTerms {
				if naiveTerm(n, &p.RequiredTerms[ti]) {
					any = true
				}
			}
			ok = ok && any
		}
		if ok {
			out = append(out, n.Name)
		}
	}
	return out
}

func naiveTerm(n *index.Node, t *index.NodeSelectorTerm) bool {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return false
	}
	for _, r := range t.MatchExpressions {
		v, has := n.Labels[r.Key]
		switch r.Operator {
		case "In":
			if !has || !slices.Contains(r.Values, v) {
				return false
			}
		case "NotIn":
			if len(r.Values) == 0 || has && slices.Contains(r.Values, v) {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		case "Gt", "Lt":
			if len(r.Values) != 1 {
				return false
			}
			want, ok1 := index.ParseLabelInt(r.Values[0])
			got, ok2 := index.ParseLabelInt(v)
			if !has || !ok1 || !ok2 || (r.Operator == "Gt" && got <= want) || (r.Operator == "Lt" && got >= want) {
				return false
			}
		default:
			return false
		}
		if (r.Operator == "In") && len(r.Values) == 0 {
			return false
		}
	}
	for _, r := range t.MatchFields {
		if len(r.Values) != 1 {
			return false
		}
		field := ""
		if r.Key == "metadata.name" {
			field = n.Name
		}
		in := field == r.Values[0]
		if (r.Operator == "In" && !in) || (r.Operator == "NotIn" && in) || (r.Operator != "In" && r.Operator != "NotIn") {
			return false
		}
	}
	return true
}

func TestPreFilterNodeNames(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").unschedulable().obj(), makeNode("n2").obj(), makeNode("n3").obj()}
	got, _, _ := solve(t, nodes, []index.Pod{
		makePod("to-cordoned").fieldTerm(req("metadata.name", "In", "n1")).obj(),
		makePod("to-ghost").fieldTerm(req("metadata.name", "In", "ghost")).obj(),
		makePod("conflict").fieldTerm(req("metadata.name", "In", "n2"), req("metadata.name", "In", "n3")).obj(),
		makePod("to-n3").fieldTerm(req("metadata.name", "In", "n3")).obj(),
	})
	want := map[string]string{
		"to-cordoned": "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		"to-ghost":    "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		"conflict":    "0/3 nodes are available: pod affinity terms conflict.",
		"to-n3":       "n3",
	}
	if !maps.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestResourceFit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		node *nodeB
		pod  *podB
		want string
	}{
		{"exact fit", makeNode("n").alloc("cpu", 1000), makePod("p").req("cpu", 1000), "n"},
		{"one milli over", makeNode("n").alloc("cpu", 1000), makePod("p").req("cpu", 1001), "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
		{"memory", makeNode("n").alloc("memory", 1<<30), makePod("p").req("memory", 1<<30+1), "0/1 nodes are available: 1 Insufficient memory. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
		{"ephemeral-storage", makeNode("n").alloc("ephemeral-storage", 10), makePod("p").req("ephemeral-storage", 11), "0/1 nodes are available: 1 Insufficient ephemeral-storage. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
		{"extended resource missing on node", makeNode("n"), makePod("p").req("nvidia.com/gpu", 1), "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
		{"extended resource present", makeNode("n").alloc("nvidia.com/gpu", 8), makePod("p").req("nvidia.com/gpu", 8), "n"},
		{"every insufficient resource listed", makeNode("n").alloc("cpu", 100).alloc("memory", 100),
			makePod("p").req("cpu", 200).req("memory", 200), "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
		{"pods count", makeNode("n").alloc("pods", 0), makePod("p"), "0/1 nodes are available: 1 Too many pods. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."},
		{"pods count and cpu", makeNode("n").alloc("pods", 0).alloc("cpu", 10), makePod("p").req("cpu", 20),
			"0/1 nodes are available: 1 Insufficient cpu, 1 Too many pods. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
		{"unchecked resource name ignored", makeNode("n"), makePod("p").req("example", 5), "n"},
		{"best effort needs only a pod slot", makeNode("n").alloc("cpu", 0).alloc("memory", 0), makePod("p"), "n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _, _ := solve(t, []index.Node{tc.node.obj()}, []index.Pod{tc.pod.obj()})
			if got["p"] != tc.want {
				t.Errorf("got %q, want %q", got["p"], tc.want)
			}
		})
	}
}

func TestResourcesConsumedInOrder(t *testing.T) {
	t.Parallel()
	// Two nodes of 1 cpu; three pods of 600m: the third fits nowhere, and
	// the bound pod already on n1 counts.
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj(), makeNode("n2").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("running").req("cpu", 300).on("n1").obj(),
		makePod("p1").req("cpu", 600).obj(),
		makePod("p2").req("cpu", 600).obj(),
		makePod("p3").req("cpu", 600).obj(),
	}
	got, c, _ := solve(t, nodes, pods)
	if got["p1"] != "n2" || got["p2"] != "n1" {
		t.Errorf("got %v, want p1 on n2 (emptier), p2 on n1", got)
	}
	if want := "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."; got["p3"] != want {
		t.Errorf("p3: %q, want %q", got["p3"], want)
	}
	for n := range c.Nodes {
		if c.Req[index.ResCPU][n] > c.Alloc[index.ResCPU][n] {
			t.Errorf("node %s over-committed: %d > %d", c.Nodes[n].Name, c.Req[index.ResCPU][n], c.Alloc[index.ResCPU][n])
		}
	}
}

func TestHostPorts(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").obj(), makeNode("n2").obj()}
	pods := []index.Pod{
		makePod("running").hostPort(8080).on("n1").obj(),
		makePod("p1").hostPort(8080).obj(),
		makePod("p2").hostPort(8080).obj(),
		makePod("other-port").hostPort(9090).obj(),
	}
	got, _, _ := solve(t, nodes, pods)
	if got["p1"] != "n2" {
		t.Errorf("p1 on %q, want n2 (n1's port is taken)", got["p1"])
	}
	if want := "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports. no new claims to deallocate, preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."; got["p2"] != want {
		t.Errorf("p2: %q, want %q", got["p2"], want)
	}
	if got["other-port"] != "n1" && got["other-port"] != "n2" {
		t.Errorf("other-port: %q, want a node", got["other-port"])
	}
}

func TestPortConflictRules(t *testing.T) {
	t.Parallel()
	f := func(a, b index.PortKey, want bool) {
		t.Helper()
		nodes := []index.Node{makeNode("n").obj()}
		running := makePod("running").on("n")
		running.p.HostPorts = []index.HostPort{{HostIP: a.IP, Protocol: a.Proto, Port: a.Port}}
		p := makePod("p")
		p.p.HostPorts = []index.HostPort{{HostIP: b.IP, Protocol: b.Proto, Port: b.Port}}
		got, _, _ := solve(t, nodes, []index.Pod{running.obj(), p.obj()})
		if conflict := got["p"] != "n"; conflict != want {
			t.Errorf("%+v vs %+v: conflict=%v, want %v", a, b, conflict, want)
		}
	}
	f(index.PortKey{Port: 80}, index.PortKey{Port: 80}, true)
	f(index.PortKey{Port: 80, Proto: "TCP"}, index.PortKey{Port: 80, Proto: "UDP"}, false)
	f(index.PortKey{IP: "10.0.0.1", Port: 80}, index.PortKey{IP: "10.0.0.2", Port: 80}, false)
	f(index.PortKey{IP: "10.0.0.1", Port: 80}, index.PortKey{Port: 80}, true)
	f(index.PortKey{Port: 80}, index.PortKey{IP: "10.0.0.2", Port: 80}, true)
	f(index.PortKey{Port: 80}, index.PortKey{Port: 81}, false)
}

func TestPriorityOrder(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("low-old").req("cpu", 1000).priority(10).created(100).obj(),
		makePod("high-new").req("cpu", 1000).priority(1000).created(200).obj(),
	}
	got, _, _ := solve(t, nodes, pods)
	if got["high-new"] != "n" {
		t.Errorf("high-new: %q, want n (higher priority first)", got["high-new"])
	}
	pods = []index.Pod{
		makePod("new").req("cpu", 1000).created(200).obj(),
		makePod("old").req("cpu", 1000).created(100).obj(),
	}
	got, _, _ = solve(t, nodes, pods)
	if got["old"] != "n" {
		t.Errorf("old: %q, want n (older first at equal priority)", got["old"])
	}
}

func TestUnsupportedAndGated(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n").obj()}
	got, _, res := solve(t, nodes, []index.Pod{
		makePod("pvc").unsupported("volumes").obj(),
		makePod("gated").gated("example.com/a", "example.com/b").obj(),
	})
	if got["pvc"] != "unsupported: volumes" {
		t.Errorf("pvc: %q", got["pvc"])
	}
	if got["gated"] != "waiting for scheduling gates: [example.com/a example.com/b]" {
		t.Errorf("gated: %q", got["gated"])
	}
	if len(res.Commits) != 0 {
		t.Errorf("%d commits, want none", len(res.Commits))
	}
}

func TestFitMessageSortsAsStrings(t *testing.T) {
	t.Parallel()
	got := FitMessage(12, map[string]int{"node(s) had untolerated taint(s)": 2, "Insufficient cpu": 10})
	want := "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) had untolerated taint(s)."
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got = FitMessage(12, map[string]int{"node(s) had untolerated taint(s)": 10, "Insufficient cpu": 2})
	want = "0/12 nodes are available: 10 node(s) had untolerated taint(s), 2 Insufficient cpu."
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNoNodes(t *testing.T) {
	t.Parallel()
	got, _, _ := solve(t, nil, []index.Pod{makePod("p").obj()})
	if got["p"] != "no nodes available to schedule pods" {
		t.Errorf("got %q", got["p"])
	}
}

func ExampleFitMessage() {
	fmt.Println(FitMessage(5, map[string]int{"Insufficient cpu": 2, "node(s) had untolerated taint(s)": 3}))
	// Output: 0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s).
}

// TestTermNodesAsRules: index's node set of a term is, for every term
// built from these requirements (one or two expressions, with or without
// a field), the nodes rules.MatchTerm accepts one by one: the set form
// asks the same predicates, per distinct label value or named node, and
// per node once a named node leaves a few.
func TestTermNodesAsRules(t *testing.T) {
	t.Parallel()
	c := cluster(t, affinityNodes(), nil)
	exprs := []index.Requirement{
		req("zone", "In", "a", "c"), req("zone", "NotIn", "a"), req("gpu", "Exists"), req("gpu", "DoesNotExist"),
		req("gen", "Gt", "4"), req("gen", "Lt", "10"), req("gen", "Gt", "four"), req("zone", "In"),
		req("bad key!", "In", "a"), req("zone", "Exists", "a"), req("zone", "Matches", "a"), req("absent", "NotIn", "x"),
	}
	fields := []index.Requirement{
		req("metadata.name", "In", "a1"), req("metadata.name", "NotIn", "a1"), req("metadata.name", "In", "gone"),
		req("spec.unschedulable", "NotIn", "x"), req("spec.unschedulable", "In", ""), req("metadata.name", "In", "a1", "b1"),
	}
	check := func(term index.NodeSelectorTerm) {
		t.Helper()
		var want []uint32
		for i := range c.Nodes {
			if rules.MatchTerm(&term, &c.Nodes[i]) {
				want = append(want, uint32(i))
			}
		}
		if got := c.TermNodes(&term).ToArray(); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("TermNodes(%+v) = %v, rules.MatchTerm gives %v", term, got, want)
		}
	}
	for i := range exprs {
		for j := range exprs {
			check(index.NodeSelectorTerm{MatchExpressions: []index.Requirement{exprs[i], exprs[j]}})
		}
		for k := range fields {
			check(index.NodeSelectorTerm{MatchExpressions: []index.Requirement{exprs[i]}, MatchFields: []index.Requirement{fields[k]}})
		}
	}
	for k := range fields {
		check(index.NodeSelectorTerm{MatchFields: []index.Requirement{fields[k]}})
	}
}

// TestPortMaskKeepsConflicts checks the fit test's host port mask against
// the rule: on random nodes and classes whose ports share numbers modulo
// 64 (so masks collide without a clash), differ in protocol or IP, or
// clash, fits rejects a node exactly when rules.PortsConflict does.
func TestPortMaskKeepsConflicts(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 4))
	numbers := []int32{80, 144, 208, 9100, 9164, 53}
	ips := []string{"0.0.0.0", "10.0.0.1", "10.0.0.2"}
	protos := []string{"TCP", "UDP"}
	port := func() index.PortKey {
		return index.PortKey{IP: ips[r.IntN(len(ips))], Proto: protos[r.IntN(len(protos))], Port: numbers[r.IntN(len(numbers))]}
	}
	const n = 200
	c := blankCluster(t, n)
	for i := range n {
		for range r.IntN(4) {
			c.Ports[i] = append(c.Ports[i], port())
		}
	}
	s := newSolver(c, Config{})
	conflicts, masked, checked := 0, 0, 0
	for range 300 {
		cl := &class{g: &group{}}
		for range 1 + r.IntN(3) {
			cl.demand.Ports = append(cl.demand.Ports, port())
		}
		cl.prepare()
		for node := range index.NodeID(n) {
			checked++
			clash := rules.PortsConflict(c.Ports[node], cl.demand.Ports)
			if s.fits(node, cl) == clash {
				t.Fatalf("node %v class %v: fits %v, conflict %v", c.Ports[node], cl.demand.Ports, !clash, clash)
			}
			if clash {
				conflicts++
			} else if s.portMasks[node]&cl.ports != 0 {
				masked++ // the masks share a bit, the rule finds no clash
			}
		}
	}
	if conflicts < checked/20 || masked < checked/20 {
		t.Fatalf("%d pairs checked, %d clash, %d share a mask bit without a clash", checked, conflicts, masked)
	}
	t.Logf("%d pairs checked, %d clash, %d share a mask bit without a clash", checked, conflicts, masked)
}
