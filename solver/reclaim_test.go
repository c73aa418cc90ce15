package solver

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
	refsolver "github.com/kplace/kplace/solver/reference"
)

// TestFreedRoomGoesToHigherPriority is the scenario in small: a pod
// that may not preempt fails, then a lower-priority preemptor evicts more
// than it needs; the freed room goes to the higher-priority pod first,
// not to the lower-priority pod that comes next in the queue.
func TestFreedRoomGoesToHigherPriority(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("victim").req("cpu", 900).priority(0).on("n1").obj(),
		makePod("never").req("cpu", 500).priority(1000000).never().created(1).obj(),
		makePod("preemptor").req("cpu", 300).priority(100000).created(2).obj(),
		makePod("low").req("cpu", 400).priority(10).created(3).obj(),
	}
	c := cluster(t, nodes, pods)
	res := Solve(c, Config{Seed: 1})
	// kube-scheduler: "never" fails (no room, may not preempt); the
	// preemptor evicts the victim; the deletion requeues "never", which
	// pops first (higher priority) and takes 500m; the preemptor then
	// fits in what is left (300m of 500m); "low" (400m) finds 200m.
	checkTrace(t, c, res, "evict victim@n1<-preemptor", "bind never@n1", "bind preemptor@n1")
	got := outcomes(c, res)
	if want := "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."; got["low"] != want {
		t.Errorf("low: %q, want %q", got["low"], want)
	}
	if res.Reclaimed != 1 || res.Preemptions != 1 {
		t.Errorf("reclaimed %d, preemptions %d; want 1 and 1", res.Reclaimed, res.Preemptions)
	}
}

// TestPreemptorLosesRoomAndPreemptsAgain: the room a preemptor freed goes
// to a pending pod of higher priority; the preemptor then preempts again,
// on another node.
func TestPreemptorLosesRoomAndPreemptsAgain(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj(), makeNode("n2").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("v1").req("cpu", 1000).priority(0).started(5).on("n1").obj(),
		makePod("v2").req("cpu", 1000).priority(1).on("n2").obj(),
		makePod("never").req("cpu", 800).priority(1000).never().created(1).obj(),
		makePod("preemptor").req("cpu", 800).priority(100).created(2).obj(),
	}
	c := cluster(t, nodes, pods)
	res := Solve(c, Config{Seed: 1})
	// The preemptor picks n1 (its victim has the lower priority); "never"
	// takes n1's room; the preemptor evicts v2 from n2.
	checkTrace(t, c, res, "evict v1@n1<-preemptor", "bind never@n1", "evict v2@n2<-preemptor", "bind preemptor@n2")
}

// TestRoomFreedPieceByPiece: room that several preemptions free in turn,
// each too little for the pending pod of higher priority, goes to the
// preemptors, as in kube-scheduler, which never moves a pod it has given
// room to. At the end the pending pod would fit if the two lower-priority
// preemptors were taken away; it stays pending.
func TestRoomFreedPieceByPiece(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("a").req("cpu", 300).priority(0).on("n1").obj(),
		makePod("b").req("cpu", 300).priority(1).on("n1").obj(),
		makePod("c").req("cpu", 300).priority(1000).on("n1").obj(),
		makePod("never").req("cpu", 500).priority(100).never().created(1).obj(),
		makePod("x").req("cpu", 350).priority(50).created(2).obj(),
		makePod("y").req("cpu", 300).priority(40).created(3).obj(),
	}
	c := cluster(t, nodes, pods)
	res := Solve(c, Config{Seed: 1})
	// x frees 300m (400m free, "never" needs 500m) and takes 350m; y
	// frees 300m (350m free) and takes 300m.
	checkTrace(t, c, res, "evict a@n1<-x", "bind x@n1", "evict b@n1<-y", "bind y@n1")
	if got := outcomes(c, res)["never"]; !strings.HasPrefix(got, "0/1 nodes are available: 1 Insufficient cpu.") {
		t.Errorf("never: %q, want pending on Insufficient cpu", got)
	}
}

// TestNoPriorityInversion runs random batches of several priorities, some
// pods unable to preempt, and checks the property the batch keeps: no pod
// is given room while a pod of higher priority that is left unschedulable
// fits there. It replays the commits; before each binding of a pod q on a
// node, no pod of higher priority than q that ends up pending may fit on
// that node (such a pod came before q in the queue, so it had failed by
// then). Without reclaim, most seeds break it.
func TestNoPriorityInversion(t *testing.T) {
	t.Parallel()
	reclaimed, caught := 0, 0
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 18))
		var nodes []index.Node
		for i := range 3 + r.IntN(6) {
			nodes = append(nodes, makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", int64(2000+r.IntN(4)*1000)).alloc("memory", int64(2000+r.IntN(4)*1000)).alloc("pods", int64(4+r.IntN(6))).obj())
		}
		var pods []index.Pod
		for i := range 40 {
			b := makePod(fmt.Sprintf("p%d", i)).req("cpu", int64(100*(1+r.IntN(15)))).req("memory", int64(100*(1+r.IntN(15)))).priority(int32(r.IntN(7)*10 - 10)).started(int64(r.IntN(50))).created(int64(r.IntN(50)))
			if r.IntN(2) == 0 {
				b.on(nodes[r.IntN(len(nodes))].Name)
			} else if r.IntN(3) == 0 {
				b.never()
			}
			pods = append(pods, b.obj())
		}
		res := Solve(cluster(t, nodes, pods), Config{Seed: seed})
		reclaimed += res.Reclaimed
		if err := checkNoInversion(cluster(t, nodes, pods), res); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		// The check catches what reclaim prevents.
		if checkNoInversion(cluster(t, nodes, pods), Solve(cluster(t, nodes, pods), Config{Seed: seed, noReclaim: true})) != nil {
			caught++
		}
	}
	t.Logf("%d pods placed on freed room; without reclaim, %d of 300 batches give room below a pending pod that fits", reclaimed, caught)
	if caught < 20 {
		t.Errorf("without reclaim, only %d of 300 batches give room to a pod below a pending one that fits: the check is weak", caught)
	}
	if reclaimed < 50 {
		t.Errorf("%d pods placed on freed room over all seeds: the test hardly exercises reclaim", reclaimed)
	}
}

// checkNoInversion checks kplace's "no priority inversion" property on
// res, the result of a batch on c (the cluster before it):
// refsolver.FindInversion replays the commits and, before each Binding,
// runs every filter of the higher-priority pods res leaves unschedulable
// on the Binding's node.
func checkNoInversion(c *index.Cluster, res *Result) error {
	commits := make([]refsolver.InversionCommit, len(res.Commits))
	for i, cm := range res.Commits {
		commits[i] = refsolver.InversionCommit{Evict: cm.Action == Evict, Pod: cm.Pod, Node: cm.Node}
	}
	var pending []index.PodID
	for _, pd := range res.Pending {
		if pd.Kind == Unschedulable {
			pending = append(pending, pd.Pod)
		}
	}
	if inv, found := refsolver.FindInversion(c, refsolver.Config{}, commits, pending); found {
		return fmt.Errorf("commit %d binds %s (priority %d) on %s, where %s (priority %d), left pending, fits",
			inv.At, c.Pods[inv.Pod].Name, c.Pods[inv.Pod].Priority, c.Nodes[inv.Node].Name, c.Pods[inv.Pending].Name, c.Pods[inv.Pending].Priority)
	}
	return nil
}

// TestAffinityOpenedByLowerPriority: a pod whose required affinity no pod
// satisfies fails; a lower-priority pod it selects is placed; before the
// next lower-priority pod, which would take the room, the pending pod gets
// its turn (kube-scheduler requeues it on the pod's addition) and goes
// next to the pod it needs.
func TestAffinityOpenedByLowerPriority(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj(), makeNode("n2").alloc("cpu", 500).obj()}
	pods := []index.Pod{
		makePod("needs-db").req("cpu", 400).priority(100).created(1).affinity(term("kubernetes.io/hostname", sel("app", "db"))).obj(),
		makePod("db").req("cpu", 500).priority(10).created(2).label("app", "db").obj(),
		makePod("filler").req("cpu", 500).priority(5).created(3).obj(),
	}
	res := Solve(cluster(t, nodes, pods), Config{Seed: 1})
	c := cluster(t, nodes, pods)
	// db goes to n1 (more room: LeastAllocated); needs-db follows it
	// there before filler, which would take n1 too (half free against
	// none) but now fits on n2 only.
	checkTrace(t, c, res, "bind db@n1", "bind needs-db@n1", "bind filler@n2")
	if res.Reclaimed != 1 {
		t.Errorf("reclaimed %d, want 1", res.Reclaimed)
	}
	if err := checkNoInversion(cluster(t, nodes, pods), res); err != nil {
		t.Error(err)
	}
	// Without the turn, filler takes n1's room and needs-db stays pending:
	// the inversion check catches it.
	off := Solve(cluster(t, nodes, pods), Config{Seed: 1, noReclaim: true})
	if err := checkNoInversion(cluster(t, nodes, pods), off); err == nil {
		t.Errorf("without reclaim: no inversion found in %q", trace(c, off))
	}
}

// TestAntiAffinityLiftedByEviction: a pod that may not preempt fails:
// its node selector leaves it one node, in a zone where a running pod
// repels it. A lower-priority preemptor evicts that pod from another node
// of the zone, a node the waiting pod cannot use; the waiting pod gets its
// turn (kube-scheduler requeues it on the deletion) before a later pod
// takes its node.
func TestAntiAffinityLiftedByEviction(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{
		makeNode("a1").label(zone, "a").alloc("cpu", 1000).obj(),
		makeNode("a2").label(zone, "a").label("disk", "ssd").alloc("cpu", 600).obj(),
	}
	pods := []index.Pod{
		makePod("repeller").req("cpu", 1000).priority(0).label("app", "r").on("a1").anti(term(zone, sel("app", "web"))).obj(),
		makePod("web").req("cpu", 500).priority(1000).never().created(1).label("app", "web").selector("disk", "ssd").obj(),
		makePod("preemptor").req("cpu", 1000).priority(1).created(2).obj(),
		makePod("late").req("cpu", 600).priority(0).created(3).obj(),
	}
	res := Solve(cluster(t, nodes, pods), Config{Seed: 1})
	c := cluster(t, nodes, pods)
	checkTrace(t, c, res, "evict repeller@a1<-preemptor", "bind web@a2", "bind preemptor@a1")
	if got := outcomes(c, res)["late"]; !strings.HasPrefix(got, "0/2 nodes are available: 2 Insufficient cpu.") {
		t.Errorf("late: %q, want pending on Insufficient cpu", got)
	}
	if err := checkNoInversion(cluster(t, nodes, pods), res); err != nil {
		t.Error(err)
	}
	off := Solve(cluster(t, nodes, pods), Config{Seed: 1, noReclaim: true})
	if err := checkNoInversion(cluster(t, nodes, pods), off); err == nil {
		t.Errorf("without reclaim: no inversion found in %q", trace(c, off))
	}
}
