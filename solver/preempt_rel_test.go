package solver

import (
	"testing"

	"github.com/kplace/kplace/index"
)

// Preemption onto nodes that fail only pod-relative filters that
// kube-scheduler treats as resolvable (spread skew, anti-affinity), and the
// nodes it does not try (a missing topology label, required pod affinity).

const hostname = "kubernetes.io/hostname"

// zoned returns node name in zone z.
func zoned(name, z string) *nodeB { return makeNode(name).label(zone, z) }

func TestPreemptSpreadSkew(t *testing.T) {
	t.Parallel()
	// n1 (zone a) holds two web pods, zone b's only node is too small for
	// the pod: with maxSkew 2, n1 fails only the skew (2+1-0 > 2). The dry
	// run removes every lower-priority pod, then reprieves the most
	// important first: w20 comes back (skew 1+1-0 = 2), w10 cannot (it
	// would make the skew 3), and "other" matches no selector and comes
	// back too.
	nodes := []index.Node{zoned("n1", "a").obj(), zoned("n2", "b").alloc("cpu", 100).obj()}
	web := sel("app", "web")
	pods := []index.Pod{
		makePod("w10").label("app", "web").req("cpu", 100).priority(10).on("n1").obj(),
		makePod("w20").label("app", "web").req("cpu", 100).priority(20).on("n1").obj(),
		makePod("other").label("app", "other").req("cpu", 100).priority(5).on("n1").obj(),
		makePod("new").label("app", "web").req("cpu", 500).priority(100).spread(spread(zone, 2, DNS, web)).obj(),
	}
	_, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res, "evict w10@n1<-new", "bind new@n1")
	if res.Preemptions != 1 {
		t.Errorf("preemptions %d, want 1", res.Preemptions)
	}
}

func TestPreemptAntiAffinity(t *testing.T) {
	t.Parallel()
	db := sel("app", "db")
	t.Run("own term", func(t *testing.T) {
		// n1 has room but runs a low-priority db pod the new pod's
		// hostname anti-affinity rejects; n2 is too small.
		nodes := []index.Node{makeNode("n1").obj(), makeNode("n2").alloc("cpu", 100).obj()}
		pods := []index.Pod{
			makePod("db").label("app", "db").req("cpu", 100).priority(10).on("n1").obj(),
			makePod("keep").label("app", "x").req("cpu", 100).priority(5).on("n1").obj(),
			makePod("web").label("app", "web").req("cpu", 500).priority(100).anti(term(hostname, db)).obj(),
		}
		_, c, res := solve(t, nodes, pods)
		checkTrace(t, c, res, "evict db@n1<-web", "bind web@n1")
	})
	t.Run("existing pod's term", func(t *testing.T) {
		nodes := []index.Node{makeNode("n1").obj(), makeNode("n2").alloc("cpu", 100).obj()}
		pods := []index.Pod{
			makePod("guard").label("app", "guard").req("cpu", 100).priority(10).on("n1").anti(term(hostname, sel("app", "web"))).obj(),
			makePod("web").label("app", "web").req("cpu", 500).priority(100).obj(),
		}
		_, c, res := solve(t, nodes, pods)
		checkTrace(t, c, res, "evict guard@n1<-web", "bind web@n1")
	})
	t.Run("zone term", func(t *testing.T) {
		// The matching pod must be on the node itself for kube-scheduler's
		// preemption: on n2, in n1's zone, it blocks n1 for good.
		nodes := []index.Node{zoned("n1", "a").obj(), zoned("n2", "a").obj(), zoned("n3", "b").alloc("cpu", 100).obj()}
		pods := []index.Pod{
			makePod("db").label("app", "db").req("cpu", 100).priority(10).on("n2").obj(),
			makePod("low").label("app", "x").req("cpu", 100).priority(5).on("n1").obj(),
			makePod("web").label("app", "web").req("cpu", 500).priority(100).anti(term(zone, db)).obj(),
		}
		_, c, res := solve(t, nodes, pods)
		// n2 holds the db pod itself: evicting it clears zone a.
		checkTrace(t, c, res, "evict db@n2<-web", "bind web@n2")
	})
}

func TestPreemptReprieveKeepsAntiAffinity(t *testing.T) {
	t.Parallel()
	// Either pod's cpu alone leaves room: resources alone would reprieve db
	// (the more important) and evict other. db's return breaks the new
	// pod's anti-affinity, so db is the victim and other is reprieved.
	nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj()}
	pods := []index.Pod{
		makePod("db").label("app", "db").req("cpu", 400).priority(50).on("n1").obj(),
		makePod("other").label("app", "other").req("cpu", 400).priority(10).on("n1").obj(),
		makePod("web").label("app", "web").req("cpu", 500).priority(100).anti(term(hostname, sel("app", "db"))).obj(),
	}
	_, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res, "evict db@n1<-web", "bind web@n1")
}

func TestPreemptNotHelpfulPodRelative(t *testing.T) {
	t.Parallel()
	web := sel("app", "web")
	t.Run("missing label", func(t *testing.T) {
		// n1 lacks the zone label (unresolvable, although it holds a
		// lower-priority pod and has room); n2's skew still fails once its
		// lower-priority pod is gone (the web pod there outranks the new
		// one); n3 is too small (its request exceeds the allocatable).
		nodes := []index.Node{makeNode("n1").obj(), zoned("n2", "a").obj(), zoned("n3", "b").alloc("cpu", 100).obj()}
		pods := []index.Pod{
			makePod("low1").label("app", "x").req("cpu", 100).priority(5).on("n1").obj(),
			makePod("high").label("app", "web").req("cpu", 100).priority(200).on("n2").obj(),
			makePod("low2").label("app", "x").req("cpu", 100).priority(5).on("n2").obj(),
			makePod("new").label("app", "web").req("cpu", 500).priority(100).spread(spread(zone, 1, DNS, web)).obj(),
		}
		got, c, res := solve(t, nodes, pods)
		checkTrace(t, c, res)
		want := "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints, " +
			"1 node(s) didn't match pod topology spread constraints (missing required label). no new claims to deallocate, " +
			"preemption: 0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 2 Preemption is not helpful for scheduling."
		if got["new"] != want {
			t.Errorf("new: %q\nwant %q", got["new"], want)
		}
	})
	t.Run("required affinity", func(t *testing.T) {
		// No cache pod anywhere and the pod does not match its own term:
		// required affinity fails everywhere, which preemption cannot fix.
		nodes := []index.Node{makeNode("n1").obj()}
		pods := []index.Pod{
			makePod("low").label("app", "x").req("cpu", 100).priority(5).on("n1").obj(),
			makePod("new").label("app", "web").req("cpu", 500).priority(100).affinity(term(hostname, sel("app", "cache"))).obj(),
		}
		got, c, res := solve(t, nodes, pods)
		checkTrace(t, c, res)
		want := "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. no new claims to deallocate, " +
			"preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
		if got["new"] != want {
			t.Errorf("new: %q\nwant %q", got["new"], want)
		}
	})
	t.Run("affinity to a victim", func(t *testing.T) {
		// The node fails on cpu (resolvable); removing the lower-priority
		// pods removes the cache pod the pod's affinity needs, so the dry
		// run fails on pod affinity (the seed page's "inter-pod affinity
		// to lower-priority pods").
		nodes := []index.Node{makeNode("n1").alloc("cpu", 1000).obj()}
		pods := []index.Pod{
			makePod("cache").label("app", "cache").req("cpu", 800).priority(5).on("n1").obj(),
			makePod("new").label("app", "web").req("cpu", 500).priority(100).affinity(term(hostname, sel("app", "cache"))).obj(),
		}
		got, c, res := solve(t, nodes, pods)
		checkTrace(t, c, res)
		want := "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, " +
			"preemption: 0/1 nodes are available: 1 node(s) didn't match pod affinity rules."
		if got["new"] != want {
			t.Errorf("new: %q\nwant %q", got["new"], want)
		}
	})
}

func TestPreemptPodRelativeEqualPriority(t *testing.T) {
	t.Parallel()
	// The blocking pod has the preemptor's priority: never a victim.
	nodes := []index.Node{makeNode("n1").obj(), makeNode("n2").alloc("cpu", 100).obj()}
	pods := []index.Pod{
		makePod("db").label("app", "db").req("cpu", 100).priority(100).on("n1").obj(),
		makePod("web").label("app", "web").req("cpu", 500).priority(100).anti(term(hostname, sel("app", "db"))).obj(),
	}
	got, c, res := solve(t, nodes, pods)
	checkTrace(t, c, res)
	want := "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, " +
		"preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
	if got["web"] != want {
		t.Errorf("web: %q\nwant %q", got["web"], want)
	}
}

func TestPreemptPodRelativePDB(t *testing.T) {
	t.Parallel()
	// Both nodes hold a pod the new pod's anti-affinity rejects; n1's has
	// the lower priority but its budget allows no disruption.
	nodes := []index.Node{makeNode("n1").obj(), makeNode("n2").obj(), makeNode("n3").alloc("cpu", 100).obj()}
	in := &index.Input{Nodes: nodes, Pods: []index.Pod{
		makePod("db1").label("tier", "db").label("app", "db1").req("cpu", 100).priority(10).on("n1").obj(),
		makePod("db2").label("tier", "db").label("app", "db2").req("cpu", 100).priority(20).on("n2").obj(),
		makePod("web").label("app", "web").req("cpu", 500).priority(100).anti(term(hostname, sel("tier", "db"))).obj(),
	}, PDBs: []index.PDB{{Namespace: "default", Name: "db1", Selector: sel("app", "db1"), DisruptionsAllowed: 0}}}
	c, res := solveIn(t, in)
	checkTrace(t, c, res, "evict db2@n2<-web", "bind web@n2")
}
