package solver

import (
	"slices"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
)

func TestCrossNodeAntiAffinity(t *testing.T) {
	t.Parallel()
	// web's zone anti-affinity rejects zone a for db, which runs on n2,
	// too small for web; zone b's node is too small as well. Only evicting
	// db from n2 lets web onto n1.
	db := sel("app", "db")
	nodes := []index.Node{
		zoned("n1", "a").alloc("cpu", 1000).obj(), zoned("n2", "a").alloc("cpu", 200).obj(),
		zoned("n3", "b").alloc("cpu", 100).obj(),
	}
	in := &index.Input{Nodes: nodes, Pods: []index.Pod{
		makePod("db").label("app", "db").req("cpu", 100).priority(10).on("n2").obj(),
		makePod("x").label("app", "x").req("cpu", 100).priority(5).on("n1").obj(),
		makePod("web").label("app", "web").req("cpu", 500).priority(100).anti(term(zone, db)).obj(),
	}}
	t.Run("off", func(t *testing.T) {
		c, res := solveCfg(t, in, Config{})
		checkTrace(t, c, res)
		want := "0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 Insufficient cpu. no new claims to deallocate, " +
			"preemption: 0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 Preemption is not helpful for scheduling."
		if got := outcomes(c, res)["web"]; got != want {
			t.Errorf("web: %q\nwant %q", got, want)
		}
	})
	t.Run("on", func(t *testing.T) {
		c, res := solveCfg(t, in, Config{CrossNodePreemption: true})
		checkTrace(t, c, res, "evict db@n2<-web", "bind web@n1")
		if res.CrossNode != 1 || res.Preemptions != 1 {
			t.Errorf("cross-node %d, preemptions %d; want 1, 1", res.CrossNode, res.Preemptions)
		}
	})
	t.Run("equal priority", func(t *testing.T) {
		in := cloneInput(in)
		in.Pods[0].Priority = 100
		c, res := solveCfg(t, in, Config{CrossNodePreemption: true})
		checkTrace(t, c, res)
		if got := outcomes(c, res)["web"]; !strings.Contains(got, "preemption: 0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 Preemption is not helpful") {
			t.Errorf("web: %q", got)
		}
	})
}

func TestCrossNodeExistingAntiAffinity(t *testing.T) {
	t.Parallel()
	// guard on n2 repels web from its whole zone.
	nodes := []index.Node{zoned("n1", "a").obj(), zoned("n2", "a").alloc("cpu", 200).obj(), zoned("n3", "b").alloc("cpu", 100).obj()}
	in := &index.Input{Nodes: nodes, Pods: []index.Pod{
		makePod("guard").label("app", "guard").req("cpu", 100).priority(10).on("n2").anti(term(zone, sel("app", "web"))).obj(),
		makePod("web").label("app", "web").req("cpu", 500).priority(100).obj(),
	}}
	c, res := solveCfg(t, in, Config{CrossNodePreemption: true})
	checkTrace(t, c, res, "evict guard@n2<-web", "bind web@n1")
}

func TestCrossNodeSpread(t *testing.T) {
	t.Parallel()
	// Zone a counts two web pods (on n2, too small for the new one), zone
	// b none and its node is too small: n1 fails only the skew (2+1-0 >
	// 2). Evicting one web pod of zone a is enough: the least important.
	web := sel("app", "web")
	nodes := []index.Node{
		zoned("n1", "a").alloc("cpu", 1000).obj(), zoned("n2", "a").alloc("cpu", 300).obj(),
		zoned("n3", "b").alloc("cpu", 100).obj(),
	}
	in := &index.Input{Nodes: nodes, Pods: []index.Pod{
		makePod("w20").label("app", "web").req("cpu", 100).priority(20).on("n2").obj(),
		makePod("w10").label("app", "web").req("cpu", 100).priority(10).on("n2").obj(),
		makePod("new").label("app", "web").req("cpu", 500).priority(100).spread(spread(zone, 2, DNS, web)).obj(),
	}}
	c, res := solveCfg(t, in, Config{})
	checkTrace(t, c, res)
	c, res = solveCfg(t, in, Config{CrossNodePreemption: true})
	checkTrace(t, c, res, "evict w10@n2<-new", "bind new@n1")
}

func TestCrossNodeCheapest(t *testing.T) {
	t.Parallel()
	// Zone a is blocked by a db pod of priority 30 on a small node, zone b
	// by one of priority 20: zone b's is the cheaper victim; with its
	// budget spent, zone a's (no PDB violation beats lower priority).
	db := sel("app", "db")
	nodes := []index.Node{
		zoned("n1", "a").obj(), zoned("n2", "a").alloc("cpu", 200).obj(),
		zoned("n3", "b").obj(), zoned("n4", "b").alloc("cpu", 200).obj(),
	}
	pods := []index.Pod{
		makePod("db30").label("app", "db").label("pdb", "a").req("cpu", 100).priority(30).on("n2").obj(),
		makePod("db20").label("app", "db").label("pdb", "b").req("cpu", 100).priority(20).on("n4").obj(),
		makePod("web").label("app", "web").req("cpu", 500).priority(100).anti(term(zone, db)).obj(),
	}
	// n1 and n3 run a pod of the new one's priority: no node-local victim.
	pods = append(pods, makePod("p1").req("cpu", 100).priority(100).on("n1").obj(), makePod("p3").req("cpu", 100).priority(100).on("n3").obj())
	in := &index.Input{Nodes: nodes, Pods: pods}
	c, res := solveCfg(t, in, Config{CrossNodePreemption: true})
	checkTrace(t, c, res, "evict db20@n4<-web", "bind web@n3")
	in.PDBs = []index.PDB{{Namespace: "default", Name: "b", Selector: sel("pdb", "b"), DisruptionsAllowed: 0}}
	c, res = solveCfg(t, in, Config{CrossNodePreemption: true})
	checkTrace(t, c, res, "evict db30@n2<-web", "bind web@n1")
}

func TestCrossNodeAgainstNodeLocal(t *testing.T) {
	t.Parallel()
	// Zone a: dbA1 on n1 itself and dbA2 on the small n2; zone b: dbB on
	// n3. kube-scheduler's preemption can only use n3 (evict dbB); the
	// cross-node one may clear zone a (evict dbA1 and dbA2) for n1. The
	// cheaper wins; on a tie the node-local one does.
	db := sel("app", "db")
	nodes := []index.Node{
		zoned("n1", "a").alloc("cpu", 1000).obj(), zoned("n2", "a").alloc("cpu", 200).obj(),
		zoned("n3", "b").alloc("cpu", 1000).obj(),
	}
	in := func(prioB int32) *index.Input {
		return &index.Input{Nodes: nodes, Pods: []index.Pod{
			makePod("dbA1").label("app", "db").req("cpu", 100).priority(50).on("n1").obj(),
			makePod("dbA2").label("app", "db").req("cpu", 100).priority(10).on("n2").obj(),
			makePod("dbB").label("app", "db").req("cpu", 100).priority(prioB).on("n3").obj(),
			makePod("web").label("app", "web").req("cpu", 500).priority(100).anti(term(zone, db)).obj(),
		}}
	}
	c, res := solveCfg(t, in(20), Config{CrossNodePreemption: true})
	checkTrace(t, c, res, "evict dbB@n3<-web", "bind web@n3")
	if res.CrossNode != 0 {
		t.Errorf("cross-node %d, want 0", res.CrossNode)
	}
	c, res = solveCfg(t, in(60), Config{CrossNodePreemption: true})
	checkTrace(t, c, res, "evict dbA1@n1<-web", "evict dbA2@n2<-web", "bind web@n1")
	if res.CrossNode != 1 {
		t.Errorf("cross-node %d, want 1", res.CrossNode)
	}
	// Off, the node-local preemption alone.
	c, res = solveCfg(t, in(60), Config{})
	checkTrace(t, c, res, "evict dbB@n3<-web", "bind web@n3")
}

func TestCrossNodeWithRequeue(t *testing.T) {
	t.Parallel()
	// The cross-node victim goes back in the queue and lands in zone b.
	db := sel("app", "db")
	nodes := []index.Node{
		zoned("n1", "a").alloc("cpu", 1000).obj(), zoned("n2", "a").alloc("cpu", 200).obj(),
		zoned("n3", "b").alloc("cpu", 300).obj(),
	}
	in := &index.Input{Nodes: nodes, Pods: []index.Pod{
		makePod("db").label("app", "db").req("cpu", 100).priority(10).on("n2").obj(),
		makePod("web").label("app", "web").req("cpu", 500).priority(100).anti(term(zone, db)).obj(),
		makePod("filler").req("cpu", 150).priority(50).selector(zone, "a").obj(),
	}}
	c, res := solveCfg(t, in, Config{CrossNodePreemption: true, RequeueEvicted: true})
	got := trace(c, res)
	if !slices.Equal(got[:2], []string{"evict db@n2<-web", "bind web@n1"}) || !slices.Contains(got, "bind db@n3") {
		t.Errorf("commits %q: want db evicted for web, then bound on n3", got)
	}
}
