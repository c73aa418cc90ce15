package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
)

func (b *podB) never() *podB             { b.p.PreemptionPolicy = index.PreemptNever; return b }
func (b *podB) started(unix int64) *podB { b.p.StartUnix = unix; return b }
func (b *podB) label(k, v string) *podB {
	if b.p.Labels == nil {
		b.p.Labels = map[string]string{}
	}
	b.p.Labels[k] = v
	return b
}

// trace renders commits as "evict pod@node<-preemptor" and "bind pod@node".
func trace(c *index.Cluster, res *Result) []string {
	var out []string
	for _, cm := range res.Commits {
		p, n := c.Pods[cm.Pod].Name, c.Nodes[cm.Node].Name
		if cm.Action == Evict {
			out = append(out, fmt.Sprintf("evict %s@%s<-%s", p, n, c.Pods[cm.Preemptor].Name))
		} else {
			out = append(out, fmt.Sprintf("bind %s@%s", p, n))
		}
	}
	return out
}

func solveIn(t *testing.T, in *index.Input) (*index.Cluster, *Result) {
	t.Helper()
	c, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	return c, Solve(c, Config{Seed: 1})
}

func checkTrace(t *testing.T, c *index.Cluster, res *Result, want ...string) {
	t.Helper()
	if got := trace(c, res); !slices.Equal(got, want) {
		t.Errorf("commits:\n got %q\nwant %q", got, want)
	}
}

func TestPreemptLowPriorityVictim(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("low").req("cpu", 800).priority(10).on("n1").obj(),
		makePod("high").req("cpu", 500).priority(100).obj(),
	}
	got, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res, "evict low@n1<-high", "bind high@n1")
	if got["high"] != "n1" || res.Preemptions != 1 {
		t.Errorf("high: %q, preemptions %d", got["high"], res.Preemptions)
	}
	if c.PodNode[0] != index.NoNode || c.Req[index.ResCPU][0] != 500 {
		t.Errorf("after: low on %d, cpu requested %d; want unbound, 500", c.PodNode[0], c.Req[index.ResCPU][0])
	}
}

func TestPreemptionPolicyNever(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("low").req("cpu", 800).priority(10).on("n1").obj(),
		makePod("high").req("cpu", 500).priority(100).never().obj(),
	}
	got, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res)
	want := "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never."
	if got["high"] != want {
		t.Errorf("high: %q\nwant %q", got["high"], want)
	}
}

func TestEqualPriorityNeverEvicts(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj(), makeNode("n2").alloc("cpu", 100).obj()}
	pods := []index.Pod{
		makePod("peer").req("cpu", 800).priority(100).on("n1").obj(),
		makePod("high").req("cpu", 500).priority(100).obj(),
	}
	got, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res)
	want := "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
	if got["high"] != want {
		t.Errorf("high: %q\nwant %q", got["high"], want)
	}
}

func TestPreemptionNotEnough(t *testing.T) {
	t.Parallel()
	// Removing every lower-priority pod still leaves too little cpu: the
	// dry run reports the filter's reason.
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("mid").req("cpu", 600).priority(200).on("n1").obj(),
		makePod("low").req("cpu", 300).priority(10).on("n1").obj(),
		makePod("high").req("cpu", 500).priority(100).obj(),
	}
	got, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res)
	want := "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Insufficient cpu."
	if got["high"] != want {
		t.Errorf("high: %q\nwant %q", got["high"], want)
	}
}

func TestPreemptMinimalVictims(t *testing.T) {
	t.Parallel()
	// Three lower-priority pods; freeing 1000m needs only one of them. The
	// reprieve adds back the most important first, so the least important
	// (lowest priority, then latest start) is the victim.
	nodes := []index.Node{makeNode("n1").alloc("cpu", 3000).obj()}
	pods := []index.Pod{
		makePod("a").req("cpu", 1000).priority(30).on("n1").started(100).obj(),
		makePod("b").req("cpu", 1000).priority(10).on("n1").started(100).obj(),
		makePod("c").req("cpu", 1000).priority(10).on("n1").started(200).obj(),
		makePod("high").req("cpu", 1000).priority(100).obj(),
	}
	_, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res, "evict c@n1<-high", "bind high@n1")
}

func TestPreemptNodeChoice(t *testing.T) {
	t.Parallel()
	full := func(name string) index.Node { return makeNode(name).alloc("cpu", 1000).obj() }
	cases := []struct {
		name string
		pods []index.Pod
		want string
	}{
		{"lowest highest-victim priority", []index.Pod{
			makePod("v1").req("cpu", 1000).priority(50).on("n1").obj(),
			makePod("v2").req("cpu", 1000).priority(20).on("n2").obj(),
		}, "n2"},
		{"smallest priority sum", []index.Pod{
			makePod("v1").req("cpu", 500).priority(20).on("n1").obj(),
			makePod("v2").req("cpu", 500).priority(20).on("n1").obj(),
			makePod("v3").req("cpu", 500).priority(20).on("n2").obj(),
			makePod("v4").req("cpu", 500).priority(10).on("n2").obj(),
		}, "n2"},
		{"fewest victims", []index.Pod{
			makePod("v1").req("cpu", 500).priority(20).on("n1").obj(),
			makePod("v2").req("cpu", 500).priority(20).on("n1").obj(),
			makePod("v3").req("cpu", 1000).priority(20).on("n2").obj(),
		}, "n2"},
		{"latest start of the highest-priority victims", []index.Pod{
			makePod("v1").req("cpu", 1000).priority(20).on("n1").started(500).obj(),
			makePod("v2").req("cpu", 1000).priority(20).on("n2").started(100).obj(),
		}, "n1"},
		{"no start time counts as now", []index.Pod{
			makePod("v1").req("cpu", 1000).priority(20).on("n1").started(500).obj(),
			makePod("v2").req("cpu", 1000).priority(20).on("n2").obj(),
		}, "n2"},
		{"tie: first node", []index.Pod{
			makePod("v1").req("cpu", 1000).priority(20).on("n2").started(100).obj(),
			makePod("v2").req("cpu", 1000).priority(20).on("n1").started(100).obj(),
		}, "n1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pods := append(slices.Clone(tc.pods), makePod("high").req("cpu", 1000).priority(100).obj())
			got, c, res := solve(t, []index.Node{full("n1"), full("n2")}, pods)
			if got["high"] != tc.want {
				t.Errorf("high on %q, want %q (commits %q)", got["high"], tc.want, trace(c, res))
			}
		})
	}
}

func TestPDBSteersChoice(t *testing.T) {
	t.Parallel()
	// n1's victim has the lower priority but its PDB has no disruption
	// left; n2's slightly higher-priority victim violates nothing.
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj(), makeNode("n2").alloc("cpu", 1000).obj()}
	in := &index.Input{Nodes: nodes, Pods: []index.Pod{
		makePod("guarded").req("cpu", 1000).priority(10).label("app", "db").on("n1").obj(),
		makePod("free").req("cpu", 1000).priority(20).label("app", "web").on("n2").obj(),
		makePod("high").req("cpu", 1000).priority(100).obj(),
	}, PDBs: []index.PDB{{Namespace: "default", Name: "db", Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, DisruptionsAllowed: 0}}}
	c, res := solveIn(t, in)
	checkTrace(t, c, res, "evict free@n2<-high", "bind high@n2")
}

func TestPDBBudgetSpentInBatch(t *testing.T) {
	t.Parallel()
	// One disruption allowed over two guarded pods: the first preemptor
	// spends it; the second then prefers the unguarded victim although its
	// priority is higher.
	nodes := []index.Node{
		makeNode("n1").alloc("cpu", 1000).obj(), makeNode("n2").alloc("cpu", 1000).obj(), makeNode("n3").alloc("cpu", 1000).obj(),
	}
	in := &index.Input{Nodes: nodes, Pods: []index.Pod{
		makePod("g1").req("cpu", 1000).priority(10).label("app", "db").on("n1").obj(),
		makePod("g2").req("cpu", 1000).priority(10).label("app", "db").on("n2").obj(),
		makePod("w").req("cpu", 1000).priority(20).label("app", "web").on("n3").obj(),
		makePod("h1").req("cpu", 1000).priority(100).created(1).obj(),
		makePod("h2").req("cpu", 1000).priority(100).created(2).obj(),
	}, PDBs: []index.PDB{{Namespace: "default", Name: "db", Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, MinAvailable: "1", DisruptionsAllowed: -1}}}
	c, res := solveIn(t, in)
	checkTrace(t, c, res, "evict g1@n1<-h1", "bind h1@n1", "evict w@n3<-h2", "bind h2@n3")
}

func TestPDBReprieveOrder(t *testing.T) {
	t.Parallel()
	// Violating victims are reprieved first: the guarded pod stays although
	// it is less important than the unguarded one.
	nodes := []index.Node{makeNode("n1").alloc("cpu", 2000).obj()}
	in := &index.Input{Nodes: nodes, Pods: []index.Pod{
		makePod("guarded").req("cpu", 1000).priority(10).label("app", "db").on("n1").obj(),
		makePod("plain").req("cpu", 1000).priority(20).on("n1").obj(),
		makePod("high").req("cpu", 1000).priority(100).obj(),
	}, PDBs: []index.PDB{{Namespace: "default", Name: "db", Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, DisruptionsAllowed: 0}}}
	c, res := solveIn(t, in)
	checkTrace(t, c, res, "evict plain@n1<-high", "bind high@n1")
}

func TestSpecAllowed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		min, maxU         string
		healthy, expected int
		want              int32
	}{
		{"1", "", 3, 3, 2},
		{"3", "", 3, 3, 0},
		{"5", "", 3, 3, 0},
		{"50%", "", 3, 4, 1}, // desired ceil(2) = 2
		{"50%", "", 3, 3, 1}, // desired ceil(1.5) = 2
		{"", "1", 4, 4, 1},
		{"", "25%", 8, 10, 1}, // maxUnavailable ceil(2.5) = 3: desired 7
		{"", "", 3, 3, 3},
		{"1", "2", 4, 4, 2}, // maxUnavailable wins
	}
	for _, tc := range cases {
		got := specAllowed(&index.PDB{MinAvailable: tc.min, MaxUnavailable: tc.maxU}, tc.healthy, tc.expected)
		if got != tc.want {
			t.Errorf("min %q max %q healthy %d expected %d: %d, want %d", tc.min, tc.maxU, tc.healthy, tc.expected, got, tc.want)
		}
	}
}

func TestHigherPriorityArrivesLater(t *testing.T) {
	t.Parallel()
	// The low pod comes first in the input and was created first; the high
	// one is queued ahead of it and takes the only room. Nothing is evicted:
	// the low pod is pending, not running, and cannot preempt the high one.
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("low").req("cpu", 1000).priority(10).created(1).obj(),
		makePod("high").req("cpu", 1000).priority(100).created(9).obj(),
	}
	got, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res, "bind high@n1")
	if !strings.Contains(got["low"], "No preemption victims found") {
		t.Errorf("low: %q", got["low"])
	}
}

func TestPreemptForHostPort(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").obj()}
	pods := []index.Pod{
		makePod("holder").hostPort(8080).priority(10).on("n1").obj(),
		makePod("other").priority(10).on("n1").obj(),
		makePod("high").hostPort(8080).priority(100).obj(),
	}
	_, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res, "evict holder@n1<-high", "bind high@n1")
}

func TestPreemptIgnoresUnrequestedResources(t *testing.T) {
	t.Parallel()
	// The node's memory is overcommitted but the preemptor requests none:
	// NodeResourcesFit checks cpu only, so one cpu victim is enough.
	nodes := []index.Node{makeNode("n1").alloc("cpu", 2000).alloc("memory", 1000).obj()}
	pods := []index.Pod{
		makePod("a").req("cpu", 1000).req("memory", 2000).priority(10).on("n1").started(1).obj(),
		makePod("b").req("cpu", 1000).priority(10).on("n1").started(2).obj(),
		makePod("high").req("cpu", 1000).priority(100).obj(),
	}
	_, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res, "evict b@n1<-high", "bind high@n1")
}

func TestNoPreemptionConfig(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("low").req("cpu", 800).priority(10).on("n1").obj(),
		makePod("high").req("cpu", 500).priority(100).obj(),
	}
	c := cluster(t, nodes, pods)
	res := Solve(c, Config{Seed: 1, NoPreemption: true})
	got := outcomes(c, res)
	if want := "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate."; got["high"] != want {
		t.Errorf("high: %q, want %q", got["high"], want)
	}
}

// TestPreemptionProperty replays random batches: every eviction removes a
// running pod of strictly lower priority than its preemptor, on the node the
// preemptor then binds to; every binding fits at its moment; and every
// victim was needed (adding it back alone, with the pods left, would not
// fit).
func TestPreemptionProperty(t *testing.T) {
	t.Parallel()
	evictions, reclaimed := 0, 0
	defer func() {
		if evictions < 20 {
			t.Errorf("only %d evictions over all seeds: the test does not exercise preemption", evictions)
		}
		t.Logf("%d evictions, %d runs of them whose room went first to higher priorities", evictions, reclaimed)
	}()
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		var nodes []index.Node
		for i := range 2 + r.IntN(6) {
			nodes = append(nodes, makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", int64(1000+r.IntN(4)*1000)).alloc("pods", int64(2+r.IntN(6))).obj())
		}
		var pods []index.Pod
		for i := range 30 {
			b := makePod(fmt.Sprintf("p%d", i)).req("cpu", int64(100*(1+r.IntN(15)))).priority(int32(r.IntN(5) * 10)).started(int64(r.IntN(50))).created(int64(r.IntN(50)))
			if r.IntN(2) == 0 {
				b.on(nodes[r.IntN(len(nodes))].Name)
			}
			if r.IntN(8) == 0 {
				b.never()
			}
			pods = append(pods, b.obj())
		}
		c := cluster(t, nodes, pods)
		bound := slices.Clone(c.PodNode)
		res := Solve(c, Config{Seed: seed})
		// Replay on a fresh copy of the initial state.
		alloc, used, count := map[int32]int64{}, map[int32]int64{}, map[int32]int64{}
		for n := range nodes {
			alloc[int32(n)] = c.Alloc[index.ResCPU][n]
		}
		cpu := func(p index.PodID) int64 { v, _ := c.Pods[p].Requests.Get("cpu"); return v }
		for p, n := range bound {
			if n != index.NoNode {
				used[n] += cpu(index.PodID(p))
				count[n]++
			}
		}
		where := slices.Clone(bound)
		for i, cm := range res.Commits {
			n := int32(cm.Node)
			switch cm.Action {
			case Evict:
				evictions++
				pre := &c.Pods[cm.Preemptor]
				if where[cm.Pod] != n || c.Pods[cm.Pod].Priority >= pre.Priority || pre.PreemptionPolicy == index.PreemptNever {
					t.Fatalf("seed %d commit %d: bad eviction of %s (prio %d, on %d, from %d) for %s (prio %d)", seed, i, c.Pods[cm.Pod].Name, c.Pods[cm.Pod].Priority, where[cm.Pod], n, pre.Name, pre.Priority)
				}
				used[n] -= cpu(cm.Pod)
				count[n]--
				where[cm.Pod] = index.NoNode
				// The run of evictions for this preemptor on this node.
				j := i + 1
				for j < len(res.Commits) && res.Commits[j].Action == Evict && res.Commits[j].Preemptor == cm.Preemptor && res.Commits[j].Node == cm.Node {
					j++
				}
				// Then pods of higher priority may take the freed room
				// (reclaim); the preemptor's next commit is its binding or
				// another run of evictions, unless it is left pending.
				k := j
				for k < len(res.Commits) && res.Commits[k].Action == Bind && c.Pods[res.Commits[k].Pod].Priority > pre.Priority {
					k++
				}
				pending := slices.ContainsFunc(res.Pending, func(pd Pending) bool { return pd.Pod == cm.Preemptor })
				if next := k < len(res.Commits) && (res.Commits[k].Pod == cm.Preemptor || res.Commits[k].Preemptor == cm.Preemptor); !next && !pending {
					t.Fatalf("seed %d: after the evictions for %s (commit %d), commit %d: preemptor next %v, pending %v", seed, pre.Name, i, k, next, pending)
				}
				if k > j {
					reclaimed++
				}
				var later int64
				var laterPods int64
				for k := i + 1; k < j; k++ {
					later += cpu(res.Commits[k].Pod)
					laterPods++
				}
				// With this victim kept (and the later victims gone) the preemptor must not fit.
				if used[n]-later+cpu(cm.Pod)+cpu(cm.Preemptor) <= alloc[n] && count[n]-laterPods+2 <= c.Alloc[index.ResPods][n] {
					t.Fatalf("seed %d: victim %s on n%d was not needed", seed, c.Pods[cm.Pod].Name, n)
				}
			case Bind:
				if used[n]+cpu(cm.Pod) > alloc[n] || count[n]+1 > c.Alloc[index.ResPods][n] {
					t.Fatalf("seed %d commit %d: %s does not fit on n%d", seed, i, c.Pods[cm.Pod].Name, n)
				}
				used[n] += cpu(cm.Pod)
				count[n]++
				where[cm.Pod] = n
			}
		}
	}
}

// TestLowerBoundNeverAboveExact checks the O(1) bound against the full
// evaluation on random nodes: on the first four criteria (PDB violations,
// highest victim priority, priority sum, victims) the bound is never worse.
func TestLowerBoundNeverAboveExact(t *testing.T) {
	t.Parallel()
	checked := 0
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 11))
		var nodes []index.Node
		for i := range 6 {
			nodes = append(nodes, makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", int64(1000+r.IntN(6)*500)).alloc("memory", int64(1000+r.IntN(6)*500)).alloc("pods", int64(3+r.IntN(8))).obj())
		}
		var pods []index.Pod
		for i := range 40 {
			b := makePod(fmt.Sprintf("r%d", i)).req("cpu", int64(50*(1+r.IntN(20)))).req("memory", int64(50*(1+r.IntN(20)))).priority(int32(r.IntN(6)*10-20)).started(int64(r.IntN(9))).label("app", fmt.Sprint(r.IntN(3)))
			pods = append(pods, b.on(nodes[r.IntN(len(nodes))].Name).obj())
		}
		for i := range 5 {
			pods = append(pods, makePod(fmt.Sprintf("p%d", i)).req("cpu", int64(100*(1+r.IntN(20)))).req("memory", int64(100*(1+r.IntN(10)))).priority(int32(r.IntN(6)*10)).obj())
		}
		in := &index.Input{Nodes: nodes, Pods: pods, PDBs: []index.PDB{{Namespace: "default", Name: "b", Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": "1"}}, DisruptionsAllowed: int32(r.IntN(3))}}}
		c, err := index.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		s := newSolver(c, Config{Seed: 1})
		queue := Queue(c)
		classOf := s.classify(queue)
		s.awaitGroups()
		for i, pid := range queue {
			cl := s.classes[classOf[i]]
			prio := c.Pods[pid].Priority
			for n := range c.NumNodes() {
				if s.fits(index.NodeID(n), cl) {
					continue
				}
				bound, m1 := s.evalNode(cl, prio, index.NodeID(n), false)
				exact, m2 := s.evalNode(cl, prio, index.NodeID(n), true)
				if m1 != m2 {
					t.Fatalf("seed %d: masks differ: %b %b", seed, m1, m2)
				}
				if m1 != 0 {
					continue
				}
				checked++
				b, e := bound, exact
				b.exact, e.exact, b.Start, e.Start, b.Node, e.Node = true, true, 0, 0, 0, 1
				if betterCand(&e, &b) {
					t.Fatalf("seed %d pod %s node %d: bound %+v above exact %+v", seed, c.Pods[pid].Name, n, bound, exact)
				}
			}
		}
	}
	if checked < 200 {
		t.Errorf("only %d candidate nodes checked", checked)
	}
}

func TestClassesSplitByPriority(t *testing.T) {
	t.Parallel()
	// Equal pods but for priority and preemption policy: each keeps its
	// own preemption outcome.
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("low").req("cpu", 1000).priority(10).on("n1").obj(),
		makePod("mid").req("cpu", 1000).priority(10).created(1).obj(),
		makePod("never").req("cpu", 1000).priority(100).never().created(2).obj(),
		makePod("high").req("cpu", 1000).priority(100).created(3).obj(),
	}
	got, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res, "evict low@n1<-high", "bind high@n1")
	if !strings.HasSuffix(got["never"], "preemption: not eligible due to preemptionPolicy=Never.") {
		t.Errorf("never: %q", got["never"])
	}
	if !strings.HasSuffix(got["mid"], "1 No preemption victims found for incoming pod.") {
		t.Errorf("mid: %q", got["mid"])
	}
}
