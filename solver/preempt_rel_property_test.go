package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
)

// randomRelCluster makes a small, full cluster of running pods of low
// priority, some carrying hostname anti-affinity, and pending pods of every
// priority with DoNotSchedule spread constraints and anti-affinity.
func randomRelCluster(r *rand.Rand) ([]index.Node, []index.Pod) {
	zones := []string{"a", "b", "c"}[:2+r.IntN(2)]
	var nodes []index.Node
	for i := range 8 + r.IntN(20) {
		b := makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", int64(1000+r.IntN(3)*500)).alloc("pods", int64(4+r.IntN(6)))
		if r.IntN(10) != 0 {
			b.label(zone, zones[r.IntN(len(zones))])
		}
		nodes = append(nodes, b.obj())
	}
	apps := []string{"web", "api", "db", "cache"}
	var pods []index.Pod
	for i := range 3 * len(nodes) {
		app := apps[r.IntN(len(apps))]
		b := makePod(fmt.Sprintf("run%d", i)).label("app", app).req("cpu", int64(100+100*r.IntN(4))).
			priority(int32(r.IntN(4) * 10)).started(int64(r.IntN(5))).on(nodes[r.IntN(len(nodes))].Name)
		if r.IntN(6) == 0 {
			b.anti(term(hostname, sel("app", apps[r.IntN(len(apps))])))
		}
		pods = append(pods, b.obj())
	}
	for i := range 20 + r.IntN(60) {
		app := apps[r.IntN(len(apps))]
		b := makePod(fmt.Sprintf("p%d", i)).label("app", app).req("cpu", int64(100+100*r.IntN(5))).
			priority(int32(r.IntN(11) * 10)).created(int64(i))
		switch r.IntN(4) {
		case 0:
			b.spread(spread([]string{zone, hostname}[r.IntN(2)], int32(1+r.IntN(2)), DNS, sel("app", app)))
		case 1:
			b.anti(term([]string{zone, hostname}[r.IntN(2)], sel("app", apps[r.IntN(len(apps))])))
		case 2:
			b.spread(spread(zone, 1, DNS, sel("app", app))).anti(term(hostname, sel("app", app)))
		}
		pods = append(pods, b.obj())
	}
	return nodes, pods
}

// replayChecked replays res's commits on a fresh copy of the input and
// fails on any Bind that the naive filters (resources, spread, anti-affinity)
// reject at its moment, any eviction of a pod not bound or not of lower
// priority than its preemptor, and any Bind of an evicted pod unless
// requeue is set. It returns the replayed state.
func replayChecked(t *testing.T, seed uint64, nodes []index.Node, pods []index.Pod, res *Result, requeue bool) *naiveState {
	t.Helper()
	c0 := cluster(t, nodes, pods)
	st := &naiveState{c: c0, on: map[index.PodID]int{}}
	for p := range c0.Pods {
		if n := c0.PodNode[p]; n != index.NoNode {
			st.on[index.PodID(p)] = int(n)
		}
	}
	evicted := map[index.PodID]bool{}
	for _, cm := range res.Commits {
		p := &c0.Pods[cm.Pod]
		if cm.Action == Evict {
			n, ok := st.on[cm.Pod]
			if !ok || n != int(cm.Node) {
				t.Fatalf("seed %d: evicts %s from %s, where it is not bound", seed, p.Name, c0.Nodes[cm.Node].Name)
			}
			if pre := &c0.Pods[cm.Preemptor]; p.Priority >= pre.Priority {
				t.Fatalf("seed %d: %s (priority %d) evicted for %s (priority %d)", seed, p.Name, p.Priority, pre.Name, pre.Priority)
			}
			d := c0.DemandOf(p)
			c0.Unbind(cm.Pod, &d)
			delete(st.on, cm.Pod)
			evicted[cm.Pod] = true
			continue
		}
		n := int(cm.Node)
		if evicted[cm.Pod] && !requeue {
			t.Fatalf("seed %d: evicted %s bound again", seed, p.Name)
		}
		if _, ok := st.on[cm.Pod]; ok {
			t.Fatalf("seed %d: %s bound twice", seed, p.Name)
		}
		if !naiveFits(c0, p, n) || !st.naiveSpreadOK(p, n) || !st.naiveAntiOK(p, n) {
			t.Fatalf("seed %d: %s does not pass the filters on %s", seed, p.Name, c0.Nodes[n].Name)
		}
		d := c0.DemandOf(p)
		c0.Bind(cm.Pod, cm.Node, &d)
		st.on[cm.Pod] = n
	}
	return st
}

func randFor(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 11)) }

// TestPropertyPreemptPodRelative: with preemption onto nodes failing
// spread or anti-affinity, with and without requeue and cross-node
// preemption, every Binding still passes the filters once the evictions
// before it are done, every victim has lower priority than its
// preemptor, an evicted pod is bound again only with requeue, and the
// output is the same run after run.
func TestPropertyPreemptPodRelative(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{{}, {RequeueEvicted: true}, {CrossNodePreemption: true}, {RequeueEvicted: true, CrossNodePreemption: true}} {
		preempted, replaced, cross := 0, 0, 0
		for seed := range uint64(40) {
			nodes, pods := randomRelCluster(randFor(seed))
			c := cluster(t, nodes, pods)
			cfg.Seed = seed
			res := Solve(c, cfg)
			preempted += res.Preemptions
			replaced += res.Replaced
			cross += res.CrossNode
			replayChecked(t, seed, nodes, pods, res, cfg.RequeueEvicted)
			again := Solve(cluster(t, nodes, pods), cfg)
			if fmt.Sprint(trace(c, res), res.Pending) != fmt.Sprint(trace(c, again), again.Pending) {
				t.Fatalf("seed %d: two runs differ", seed)
			}
		}
		switch {
		case preempted == 0:
			t.Fatal("no preemption in any case: the generator no longer exercises it")
		case cfg.RequeueEvicted && replaced == 0:
			t.Fatal("no evicted pod placed again: the generator no longer exercises requeue")
		case cfg.CrossNodePreemption && cross == 0:
			t.Fatal("no cross-node preemption: the generator no longer exercises it")
		}
		t.Logf("requeue %v cross %v: %d preemptions, %d cross-node, %d replaced", cfg.RequeueEvicted, cfg.CrossNodePreemption, preempted, cross, replaced)
	}
}
