package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// solveCfg builds and solves with cfg (seed 1).
func solveCfg(t *testing.T, in *index.Input, cfg Config) (*index.Cluster, *Result) {
	t.Helper()
	c, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed = 1
	return c, Solve(c, cfg)
}

func pendingNames(c *index.Cluster, res *Result) []string {
	var out []string
	for _, pd := range res.Pending {
		out = append(out, c.Pods[pd.Pod].Name)
	}
	return out
}

func TestRequeueEvicted(t *testing.T) {
	t.Parallel()
	// high evicts low from n1; low fits n3 only. The pending pods of
	// low's priority (bound for n2) go around it by creation time: old
	// (created 0) before it (created 1), young (created 9) after.
	nodes := []index.Node{
		makeNode("n1").alloc("cpu", 1000).obj(), makeNode("n2").alloc("cpu", 1000).label("pool", "side").obj(),
		makeNode("n3").alloc("cpu", 650).obj(),
	}
	in := &index.Input{Nodes: nodes, Pods: []index.Pod{
		makePod("low").req("cpu", 600).priority(10).created(1).on("n1").obj(),
		makePod("mid").req("cpu", 500).priority(50).on("n2").obj(),
		makePod("high").req("cpu", 700).priority(100).obj(),
		makePod("old").req("cpu", 100).priority(10).created(0).selector("pool", "side").obj(),
		makePod("young").req("cpu", 100).priority(10).created(9).selector("pool", "side").obj(),
	}}
	t.Run("off", func(t *testing.T) {
		c, res := solveCfg(t, in, Config{})
		checkTrace(t, c, res, "evict low@n1<-high", "bind high@n1", "bind old@n2", "bind young@n2")
		if len(res.Pending) != 0 || res.Requeued != 0 || res.Replaced != 0 {
			t.Errorf("pending %q, requeued %d, replaced %d; want none", pendingNames(c, res), res.Requeued, res.Replaced)
		}
	})
	t.Run("on", func(t *testing.T) {
		c, res := solveCfg(t, in, Config{RequeueEvicted: true})
		checkTrace(t, c, res, "evict low@n1<-high", "bind high@n1", "bind old@n2", "bind low@n3", "bind young@n2")
		if len(res.Pending) != 0 || res.Requeued != 1 || res.Replaced != 1 {
			t.Errorf("pending %q, requeued %d, replaced %d; want none, 1, 1", pendingNames(c, res), res.Requeued, res.Replaced)
		}
		if c.PodNode[0] != 2 {
			t.Errorf("low bound to %d, want n3", c.PodNode[0])
		}
	})
}

func TestRequeuedPodPreempts(t *testing.T) {
	t.Parallel()
	// high (only on the main pool) evicts low (the later start of two
	// equal victims). low, back in the queue, fits nowhere: it may not
	// evict peer (its own priority) but evicts tiny. tiny can evict
	// nothing and stays pending, with kube-scheduler's reason.
	nodes := []index.Node{
		makeNode("n1").alloc("cpu", 1000).label("pool", "main").obj(),
		makeNode("n2").alloc("cpu", 1000).label("pool", "main").obj(),
		makeNode("n3").alloc("cpu", 1000).obj(),
	}
	in := &index.Input{Nodes: nodes, Pods: []index.Pod{
		makePod("low").req("cpu", 600).priority(10).started(200).on("n1").obj(),
		makePod("peer").req("cpu", 600).priority(10).started(100).on("n2").obj(),
		makePod("tiny").req("cpu", 600).priority(5).on("n3").obj(),
		makePod("high").req("cpu", 700).priority(100).selector("pool", "main").obj(),
	}}
	c, res := solveCfg(t, in, Config{RequeueEvicted: true})
	checkTrace(t, c, res, "evict low@n1<-high", "bind high@n1", "evict tiny@n3<-low", "bind low@n3")
	if got := pendingNames(c, res); !slices.Equal(got, []string{"tiny"}) {
		t.Fatalf("pending %q, want [tiny]", got)
	}
	want := "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
	if r := res.Pending[0].Reason; r != want {
		t.Errorf("tiny: %q\nwant %q", r, want)
	}
	if res.Requeued != 2 || res.Replaced != 1 || res.Preemptions != 2 {
		t.Errorf("requeued %d, replaced %d, preemptions %d; want 2, 1, 2", res.Requeued, res.Replaced, res.Preemptions)
	}
}

func TestRequeueNewClassPodRelative(t *testing.T) {
	t.Parallel()
	// The evicted pod has a spread constraint no pending pod has: its
	// class and counter are made when it comes back, counted from the pods
	// bound then. Zone a holds a web pod, so the victim goes to zone b.
	web := sel("app", "web")
	nodes := []index.Node{
		zoned("n1", "a").alloc("cpu", 1000).obj(), zoned("n2", "a").alloc("cpu", 1000).obj(),
		zoned("n3", "b").alloc("cpu", 1000).obj(),
	}
	in := &index.Input{Nodes: nodes, Pods: []index.Pod{
		makePod("w1").label("app", "web").req("cpu", 100).priority(50).on("n2").obj(),
		makePod("w2").label("app", "web").req("cpu", 500).priority(10).on("n1").spread(spread(zone, 1, DNS, web)).obj(),
		makePod("fill").req("cpu", 500).priority(50).on("n3").obj(),
		makePod("high").req("cpu", 950).priority(100).selector(zone, "a").obj(),
	}}
	c, res := solveCfg(t, in, Config{RequeueEvicted: true})
	// high: n1 (evict w2) or n2 (evict w1, priority 50): n1. w2 back in
	// the queue: zone a has w1 (count 1, min 0 in b) and n3 has room.
	checkTrace(t, c, res, "evict w2@n1<-high", "bind high@n1", "bind w2@n3")
}

func TestRequeueDeterministic(t *testing.T) {
	t.Parallel()
	for seed := range uint64(10) {
		nodes, pods := randomRelCluster(randFor(seed))
		in := &index.Input{Nodes: nodes, Pods: pods}
		cfg := Config{RequeueEvicted: true, CrossNodePreemption: seed%2 == 0}
		c, a := solveCfg(t, in, cfg)
		_, b := solveCfg(t, cloneInput(in), cfg)
		if !slices.Equal(trace(c, a), trace(c, b)) || !slices.Equal(pendingNames(c, a), pendingNames(c, b)) {
			t.Fatalf("seed %d: two runs differ", seed)
		}
	}
}

// TestQueueOrder: a queue long enough to be sorted in halves on two
// processors and merged is the scheduling order itself: priority
// descending, then creation time, then input order (ties are many).
func TestQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	in := &index.Input{Nodes: []index.Node{{Name: "n", Allocatable: index.ResourceList{{Name: "pods", Value: 10}}}}}
	in.Pods = make([]index.Pod, 90000)
	for i := range in.Pods {
		in.Pods[i] = index.Pod{Namespace: "ns", Name: fmt.Sprintf("p%d", i), Priority: int32(r.IntN(5) * 1000), CreationUnix: int64(r.IntN(50))}
		if i%7 == 0 {
			in.Pods[i].NodeName = "n"
		}
	}
	c, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(c.Pending)
	slices.SortStableFunc(want, func(a, b index.PodID) int {
		pa, pb := &c.Pods[a], &c.Pods[b]
		return rules.QueueCompare(pa.Priority, pa.CreationUnix, pb.Priority, pb.CreationUnix)
	})
	if got := Queue(c); !slices.Equal(got, want) {
		t.Fatal("the queue is not in priority, creation, input order")
	}
}
