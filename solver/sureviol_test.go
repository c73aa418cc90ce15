package solver

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestSureViolationRaisesBound: node a holds, below the preemptor, a pod
// whose budget has no disruption left (prio 10, 1000m), a prio-100 pod
// (1000m) and a prio-10 pod (2000m); the preemptor needs 3000m. Letting any
// lower-priority pod go, the two prio-10 pods make room (bound: highest
// victim priority 10), but kube-scheduler reprieves the budgeted pod first
// and evicts the prio-100 and the free prio-10 pod. With the budgeted pod
// counted as kept, the bound says 100, as the dry run does. Node b then
// wins with one prio-50 victim.
func TestSureViolationRaisesBound(t *testing.T) {
	t.Parallel()
	bounds := map[string]candidate{}
	var c *index.Cluster
	checkBound := func(cl *class, b, exact candidate) {
		bounds[c.Nodes[b.Node].Name] = b
		if betterKey(&exact, &b) {
			t.Errorf("node %s: exact %+v beats its bound %+v", c.Nodes[b.Node].Name, exact, b)
		}
	}
	nodes := []index.Node{
		makeNode("a").alloc("cpu", 4000).alloc("memory", 8<<30).alloc("pods", 10).obj(),
		makeNode("b").alloc("cpu", 4000).alloc("memory", 8<<30).alloc("pods", 10).obj(),
	}
	pods := []index.Pod{
		makePod("a-budgeted").req("cpu", 1000).priority(10).label("app", "guarded").on("a").obj(),
		makePod("a-100").req("cpu", 1000).priority(100).on("a").obj(),
		makePod("a-10").req("cpu", 2000).priority(10).on("a").obj(),
		makePod("b-50").req("cpu", 3000).priority(50).on("b").obj(),
		makePod("b-10").req("cpu", 1000).priority(10).on("b").obj(),
		makePod("preemptor").req("cpu", 3000).priority(1000).obj(),
	}
	in := &index.Input{Nodes: nodes, Pods: pods, PDBs: []index.PDB{{Namespace: "default", Name: "guard",
		Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": "guarded"}}, DisruptionsAllowed: 0}}}
	var err error
	if c, err = index.Build(in); err != nil {
		t.Fatal(err)
	}
	res := Solve(c, Config{Seed: 1, sw: switches{checkBound: checkBound}})
	if got := bounds["a"]; got.MaxPrio != 100 || got.Viol != 0 {
		t.Errorf("node a bound: viol %d, highest victim priority %d; want 0 and 100", got.Viol, got.MaxPrio)
	}
	var evicted []string
	for _, cm := range res.Commits {
		if cm.Action == Evict {
			evicted = append(evicted, c.Pods[cm.Pod].Name)
		}
	}
	if out := outcomes(c, res); out["preemptor"] != "b" || !slices.Equal(evicted, []string{"b-50"}) {
		t.Errorf("preemptor on %q evicting %v; want b evicting [b-50]", out["preemptor"], evicted)
	}
}

// betterKey reports whether a beats b on the first four criteria.
func betterKey(a, b *candidate) bool { return keyAbove(b, a) }

// TestBoundsNeverAboveExact checks, on random preemption batches (budgets
// running out as victims are taken), that no node's exact evaluation beats
// its bound on the first four criteria, and that the surely violating pods
// do raise bounds: some bounds certify a violation, some a higher victim
// priority than the lower-priority sums alone give, and exactly.
func TestBoundsNeverAboveExact(t *testing.T) {
	t.Parallel()
	var checked, violBounds, tight int
	for seed := range uint64(40) {
		checkBound := func(cl *class, b, exact candidate) {
			checked++
			if betterKey(&exact, &b) {
				t.Fatalf("seed %d node %d: exact %+v beats its bound %+v", seed, b.Node, exact, b)
			}
			if b.Viol > 0 {
				violBounds++
			}
			if b.Viol == 0 && exact.Viol == 0 && b.MaxPrio == exact.MaxPrio && b.MaxPrio > 0 {
				tight++
			}
		}
		in := preemptionInput(rand.New(rand.NewPCG(seed, 17)))
		c, err := index.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		Solve(c, Config{Seed: seed, sw: switches{checkBound: checkBound}})
	}
	if checked < 5000 || violBounds == 0 || tight == 0 {
		t.Errorf("%d bounds checked, %d certify a violation, %d exact on the highest victim priority: the test does not exercise the bounds", checked, violBounds, tight)
	}
}

// TestSampledNodesEvaluatedLazily places random preemption batches with the
// sampled nodes evaluated when their bound reaches the heap's top and with
// all of them evaluated at each build: the commits and reasons must be the
// same (budgets shrinking meanwhile included: a node whose evaluation they
// may change is evaluated again, see budgetsShrink).
func TestSampledNodesEvaluatedLazily(t *testing.T) {
	t.Parallel()
	lazyMatchesEager(t, 23, func(sw *switches, eager bool) { sw.eagerSample = eager })
}

// TestPreemptionChoiceOptimal checks every node preemption takes, on random
// batches whose budgets run out as victims go, against a dry run of every
// node of the class's feasible set at that moment: none may beat it on the
// first four criteria (fewest violations, lowest highest victim priority,
// smallest priority sum, fewest victims). An evaluation kept from before a
// budget shrank, or a bound above a node's dry run, would show here.
func TestPreemptionChoiceOptimal(t *testing.T) {
	t.Parallel()
	choices, withViol := 0, 0
	for seed := range uint64(40) {
		checkChoice := func(s *Solver, cl *class, prio int32, chosen candidate) {
			choices++
			if chosen.Viol > 0 {
				withViol++
			}
			vs := append([]index.PodID(nil), s.pre.vs...)
			for wi, word := range cl.g.dense {
				for ; word != 0; word &= word - 1 {
					n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
					if cand, mask := s.evalNode(cl, prio, n, true); mask == 0 && betterKey(&cand, &chosen) {
						t.Fatalf("seed %d: took node %d %+v, node %d is better: %+v", seed, chosen.Node, chosen, n, cand)
					}
				}
			}
			s.pre.vs = append(s.pre.vs[:0], vs...)
		}
		in := preemptionInput(rand.New(rand.NewPCG(seed, 29)))
		c, err := index.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		Solve(c, Config{Seed: seed, sw: switches{checkChoice: checkChoice}})
	}
	if choices < 500 || withViol == 0 {
		t.Errorf("%d preemptions, %d violating a budget: the test does not exercise the choice", choices, withViol)
	}
}

// TestBlockKeysMatchNodeBounds checks, at every preemption of random
// batches (budgets running out meanwhile), each block of the class's
// feasible set: blockKeys must hold nodeBound's bound of every node (the
// same as nodeBoundSlow's, from fitsAtNode and finishKey), and
// pop them in keyLess order then by node; columnarBound (a refined block's
// node of a columnar class) and columnarNodeBound (the others) must equal
// evalNode's bound and failure bits.
func TestBlockKeysMatchNodeBounds(t *testing.T) {
	t.Parallel()
	blocks, columnar, sure := 0, 0, 0
	for seed := range uint64(30) {
		checkChoice := func(s *Solver, cl *class, prio int32, _ candidate) {
			j := s.c.LowIndex(prio)
			if j < 0 {
				return
			}
			vs := append([]index.PodID(nil), s.pre.vs...)
			for b, word := range cl.g.dense {
				if word == 0 {
					continue
				}
				blocks++
				// The heap popped to the end: every key, least first.
				h := keyHeap(s.blockKeys(cl, b, word, j, nil))
				var got []nodeKey
				for ; len(h) > 0; h = h[:len(h)-1] {
					got = append(got, h[0])
					h.pop()
				}
				var want []nodeKey
				for w := word; w != 0; w &= w - 1 {
					o := bits.TrailingZeros64(w)
					k := s.nodeBound(cl, index.NodeID(b*64+o), j)
					if slow := s.nodeBoundSlow(cl, index.NodeID(b*64+o), j); slow != k {
						t.Fatalf("seed %d node %d: nodeBound %+v, from fitsAtNode and finishKey %+v", seed, b*64+o, k, slow)
					}
					k.off = int32(o)
					want = append(want, k)
					if sj := s.sureSums(j); sj != nil && sj[index.ResPods][b*64+o] > 0 {
						sure++
					}
				}
				slices.SortStableFunc(want, func(a, b nodeKey) int {
					switch {
					case keyLess(&a, &b):
						return -1
					case keyLess(&b, &a):
						return 1
					}
					return 0
				})
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d block %d: blockKeys\n%+v\nnodeBound\n%+v", seed, b, got, want)
				}
				cols := s.columnarCols(cl, j)
				if cols == nil {
					continue
				}
				for _, k := range got {
					n := index.NodeID(b*64 + int(k.off))
					pc, pm := s.columnarBound(cl, cols, prio, j, n, &k)
					ec, em := s.evalNode(cl, prio, n, false)
					if pm != em || pm == 0 && pc != ec {
						t.Fatalf("seed %d node %d: columnarBound %+v %b, evalNode %+v %b", seed, n, pc, pm, ec, em)
					}
					if nc, nm := s.columnarNodeBound(cl, cols, prio, j, n); nm != em || nm == 0 && nc != ec {
						t.Fatalf("seed %d node %d: columnarNodeBound %+v %b, evalNode %+v %b", seed, n, nc, nm, ec, em)
					}
					columnar++
				}
			}
			s.pre.vs = append(s.pre.vs[:0], vs...)
		}
		in := preemptionInput(rand.New(rand.NewPCG(seed, 31)))
		c, err := index.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		Solve(c, Config{Seed: seed, sw: switches{checkChoice: checkChoice}})
	}
	if blocks < 1000 || columnar < 10000 || sure == 0 {
		t.Errorf("%d blocks, %d columnar bounds, %d nodes with kept pods: the test does not exercise the keys", blocks, columnar, sure)
	}
}
