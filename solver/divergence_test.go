package solver

import (
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
	refsolver "github.com/kplace/kplace/solver/reference"
)

// Minimal reproducers of the fast solver's known differences from
// kube-scheduler, found by the differential test (package differential
// absorbs them so that it can compare past them). Each checks the
// reference solver's answer, which is kube-scheduler's, and then skips
// the fast solver's check, naming the bug; a fix removes the skip (and the
// matching allowance in package differential).

// refTrace is trace for a reference result.
func refTrace(c *index.Cluster, res *refsolver.Result) []string {
	fast := &Result{}
	for _, cm := range res.Commits {
		a := Bind
		if cm.Evict {
			a = Evict
		}
		fast.Commits = append(fast.Commits, Commit{Action: a, Pod: cm.Pod, Node: cm.Node, Preemptor: cm.Preemptor})
	}
	return trace(c, fast)
}

// evictionOrderInput: one node holding two pods the preemptor must evict,
// the lower-priority one under an exhausted budget.
func evictionOrderInput() *index.Input {
	return &index.Input{
		Nodes: []index.Node{makeNode("n1").alloc("cpu", 3000).obj()},
		Pods: []index.Pod{
			makePod("a").req("cpu", 1000).priority(10).label("app", "x").started(100).on("n1").obj(),
			makePod("b").req("cpu", 1000).priority(20).started(100).on("n1").obj(),
			makePod("c").req("cpu", 1000).priority(1000).on("n1").obj(),
			makePod("p").req("cpu", 2000).priority(100).obj(),
		},
		PDBs: []index.PDB{{Namespace: "default", Name: "x", Selector: sel("app", "x"), DisruptionsAllowed: 0}},
	}
}

// TestKnownDivergenceEvictionOrder: kube-scheduler's SelectVictimsOnNode
// returns a preemption's victims most important first (it sorts them again
// when some violate a budget and some do not); the fast solver evicts them
// in reprieve order, the budget-violating ones first.
func TestKnownDivergenceEvictionOrder(t *testing.T) {
	t.Parallel()
	knownDivergence(t, evictionOrderInput, []string{"evict b@n1<-p", "evict a@n1<-p", "bind p@n1"},
		"a preemption's Evictions come in reprieve order (PDB-violating victims first), not kube-scheduler's victim order (most important first)")
}

// knownDivergence checks that the reference places in (made afresh for
// each solver) as want says, then skips the fast solver's check, naming
// the bug.
func knownDivergence(t *testing.T, in func() *index.Input, want []string, bug string) {
	t.Helper()
	c, err := index.Build(in())
	if err != nil {
		t.Fatal(err)
	}
	if got := refTrace(c, refsolver.Solve(c, refsolver.Config{})); !slices.Equal(got, want) {
		t.Fatalf("reference: %v, want %v", got, want)
	}
	t.Skip("known bug (fast solver): " + bug)
	c, _ = index.Build(in())
	if got := trace(c, Solve(c, Config{})); !slices.Equal(got, want) {
		t.Errorf("fast solver: %v, want %v", got, want)
	}
}

// startTieInput: two preemptors of one class; n1's victims leave it with
// the latest start for the second one, after the first changed it.
func startTieInput() *index.Input {
	return &index.Input{
		Nodes: []index.Node{makeNode("n1").alloc("cpu", 3000).obj(), makeNode("n2").alloc("cpu", 2000).obj()},
		Pods: []index.Pod{
			makePod("v1a").req("cpu", 1000).started(100).on("n1").obj(),
			makePod("v1b").req("cpu", 1000).started(400).on("n1").obj(),
			makePod("v1c").req("cpu", 1000).started(300).on("n1").obj(),
			makePod("v2").req("cpu", 1000).started(200).on("n2").obj(),
			makePod("f2").req("cpu", 1000).priority(1000).on("n2").obj(),
			makePod("p1").req("cpu", 1000).priority(100).created(1).obj(),
			makePod("p2").req("cpu", 1000).priority(100).created(2).obj(),
		},
	}
}

// TestKnownDivergencePreemptionStartTie: with at most 100 candidate nodes
// kube-scheduler dry-runs them all and, among those equal on the first four
// criteria, takes the latest start of the highest-priority victims. The
// fast solver compares start times only among the nodes its class sampled
// when it built its candidates, or evaluated since: a node changed since
// (here n1, by the class's first preemption) is bounded again but not
// evaluated, and loses the tie to an evaluated node with an earlier start.
func TestKnownDivergencePreemptionStartTie(t *testing.T) {
	t.Parallel()
	knownDivergence(t, startTieInput, []string{"evict v1b@n1<-p1", "bind p1@n1", "evict v1c@n1<-p2", "bind p2@n1"},
		"the start-time criterion of the preemption node ignores nodes changed since the class built its candidates")
}

// normalisationInput: a pod whose preferred node affinity weighs most a
// node its spread constraint rules out (nA), and a little another (nB).
func normalisationInput() *index.Input {
	return &index.Input{
		Nodes: []index.Node{
			makeNode("nA").label("zone", "a").label("pa", "1").alloc("cpu", 4000).obj(),
			makeNode("nB").label("zone", "b").label("pb", "1").alloc("cpu", 4000).obj(),
			makeNode("nC").label("zone", "c").alloc("cpu", 4000).obj(),
		},
		Pods: []index.Pod{
			makePod("x0").label("app", "x").req("cpu", 100).on("nA").obj(),
			makePod("fill").req("cpu", 300).on("nB").obj(),
			makePod("p").label("app", "x").req("cpu", 500).spread(spread("zone", 1, DNS, sel("app", "x"))).
				preferred(100, req("pa", "In", "1")).preferred(1, req("pb", "In", "1")).obj(),
		},
	}
}

// TestKnownDivergenceNormalisation: kube-scheduler normalises the
// NodeAffinity (and TaintToleration) scores over the nodes that pass every
// filter; the fast solver takes the maxima over the nodes that pass the
// static filters and fit, before the pod-relative filters (spread,
// inter-pod affinity) rule some out. Here nA, ruled out by the spread
// constraint, sets the maximum: nB's preferred weight 1 of 100 counts for
// nothing and nC wins on NodeResourcesFit, where kube-scheduler gives nB
// the whole NodeAffinity score (660 against nC's 463; oracle schedule
// binds p to nB three runs out of three).
func TestKnownDivergenceNormalisation(t *testing.T) {
	t.Parallel()
	knownDivergence(t, normalisationInput, []string{"bind p@nB"},
		"TaintToleration and NodeAffinity scores are normalised over the nodes that fit before the pod-relative filters, not over the nodes that pass every filter")
}
