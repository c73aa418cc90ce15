package solver

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// fullInput is a cluster of nodes full of equal pods, most of priority -5
// (some under a budget), and two deployments of pods of that size, one
// with host port 9090: each pod makes room by evicting one.
func fullInput(seed uint64) *index.Input {
	r := rand.New(rand.NewPCG(seed, 53))
	var in index.Input
	for i := range 200 + r.IntN(100) {
		name := fmt.Sprintf("n%d", i)
		in.Nodes = append(in.Nodes, makeNode(name).alloc("cpu", 4000).alloc("memory", 8<<30).alloc("pods", 10).obj())
		for k := range 4 {
			prio := int32(-5)
			if r.IntN(4) == 0 {
				prio = 0
			}
			in.Pods = append(in.Pods, makePod(fmt.Sprintf("run%d-%d", i, k)).req("cpu", 1000).req("memory", 2<<30).priority(prio).
				label("app", fmt.Sprint(r.IntN(3))).started(int64(1000+r.IntN(50))).on(name).obj())
		}
	}
	for d := range 2 {
		for k := range 30 {
			b := makePod(fmt.Sprintf("d%d-%d", d, k)).req("cpu", 1000).req("memory", 2<<30).priority(100).created(int64(d))
			if d == 0 {
				b.hostPort(9090)
			}
			in.Pods = append(in.Pods, b.obj())
		}
	}
	in.PDBs = []index.PDB{{Namespace: "default", Name: "pdb", Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": "0"}}, DisruptionsAllowed: 5}}
	return &in
}

// solveInputs places each input's batch with seed (the tests' hooks look
// on).
func solveInputs(t *testing.T, sw switches, seed uint64, ins ...*index.Input) {
	t.Helper()
	for _, in := range ins {
		c, err := index.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		Solve(c, Config{Seed: seed, sw: sw})
	}
}

// leastInput is a random preemption batch for sampleLeast: 400 to 800
// nodes, most of their pods of the lowest priority in use (-5), so that
// many nodes make room with one of them; the pending pods of one
// deployment in four are small and ask for host port 9090 (which no
// running pod holds).
func leastInput(seed uint64) *index.Input {
	r := rand.New(rand.NewPCG(seed, 41))
	in := preemptionInputSized(r, 400+r.IntN(400), 20+r.IntN(20))
	for i := range in.Pods {
		p := &in.Pods[i]
		switch {
		case p.NodeName != "" && r.IntN(3) != 0:
			p.Priority = -5
		case p.NodeName == "" && p.CreationUnix%4 == 1:
			// Small, so that one victim makes room on many nodes.
			p.HostPorts = append(p.HostPorts, index.HostPort{Port: 9090, Protocol: "TCP"})
			p.Requests = []index.Quantity{{Name: "cpu", Value: 200}, {Name: "memory", Value: 128 << 20}}
			p.ScoreCPU, p.NonZeroCPU, p.ScoreMemory, p.NonZeroMemory = 200, 200, 128<<20, 128<<20
		}
	}
	return in
}

// TestLeastWordMatchesNodeBound checks, at every preemption of random
// batches and on every block of the class's feasible set, that leastWord
// keeps exactly the nodes whose nodeBound is the least any node may have
// (one victim at leastThreshold), classes with host ports included.
func TestLeastWordMatchesNodeBound(t *testing.T) {
	t.Parallel()
	least, other, ported := 0, 0, 0
	for seed := range uint64(12) {
		checkChoice := func(s *Solver, cl *class, prio int32, _ candidate) {
			j := s.c.LowIndex(prio)
			if j < 0 || cl.rel != nil && len(cl.rel.deps) > 0 {
				return
			}
			k0, ok := s.leastThreshold(cl, j)
			if !ok {
				return
			}
			if s.columnarCols(cl, j) == nil {
				ported++
			}
			want := makeKey(0, s.c.LowPrio[k0-1], 1)
			for b, word := range cl.g.dense {
				got := s.leastWord(cl, b, word, j, k0)
				if got&^word != 0 {
					t.Fatalf("seed %d block %d: leastWord %x outside the word %x", seed, b, got, word)
				}
				for w := word; w != 0; w &= w - 1 {
					o := bits.TrailingZeros64(w)
					n := index.NodeID(b*64 + o)
					is := s.nodeBound(cl, n, j).rank == want.rank
					if is != (got>>o&1 == 1) {
						t.Fatalf("seed %d node %d: nodeBound %+v least %v, leastWord %v", seed, n, s.nodeBound(cl, n, j), is, !is)
					}
					if is {
						least++
					} else {
						other++
					}
				}
			}
		}
		solveInputs(t, switches{checkChoice: checkChoice}, seed, leastInput(seed), fullInput(seed))
	}
	if least < 10000 || other < 10000 || ported < 10 {
		t.Errorf("%d nodes of the least bound, %d others, %d preemptions of a class with host ports: the test does not exercise leastWord", least, other, ported)
	}
}

// TestSampleLeastMatchesSettle builds, at preemptions of random batches,
// the class's candidates afresh with sampleLeast and with settle alone
// (noLeastSample): both must pop the same bounds in the same order, the
// sampled ones marked alike, and sampleLeast must have made the sample
// often.
func TestSampleLeastMatchesSettle(t *testing.T) {
	t.Parallel()
	fast, fastPorts, builds, sparse := 0, 0, 0, 0
	for seed := range uint64(30) {
		// Every third seed gives up after one word without a node of the
		// least bound (sparse builds).
		sparseWords := 0 // defaultSparseWords
		if seed%3 == 2 {
			sparseWords = 1
		}
		turn := 0
		checkChoice := func(s *Solver, cl *class, prio int32, _ candidate) {
			if turn++; turn%2 != 0 && len(cl.demand.Ports) == 0 || cl.failures > 0 {
				return
			}
			vs := append([]index.PodID(nil), s.pre.vs...)
			var seqs [2][]candidate
			for i, off := range []bool{false, true} {
				s.cfg.sw.noLeastSample = off
				ps := s.newPreState(len(cl.g.dense))
				if !off {
					if _, ok, _ := s.sampleLeast(cl, ps, prio, s.c.LowIndex(prio), nil); ok {
						fast++
						if len(cl.demand.Ports) > 0 {
							fastPorts++
						}
					}
					clear(ps.bounded)
					ps.heap = ps.heap[:0]
				}
				s.buildCandidates(cl, ps, prio)
				if ps.sparse {
					sparse++
				}
				for s.settle(cl, ps, prio) {
					seqs[i] = append(seqs[i], ps.heap[0])
					ps.heap.pop()
				}
				s.releasePre(ps)
			}
			s.cfg.sw.noLeastSample = false
			builds++
			if !slices.Equal(seqs[0], seqs[1]) {
				for k := range min(len(seqs[0]), len(seqs[1])) {
					if seqs[0][k] != seqs[1][k] {
						t.Fatalf("seed %d: pop %d of %d: sampleLeast %+v, settle %+v", seed, k, len(seqs[1]), seqs[0][k], seqs[1][k])
					}
				}
				t.Fatalf("seed %d: %d pops with sampleLeast, %d with settle", seed, len(seqs[0]), len(seqs[1]))
			}
			s.pre.vs = append(s.pre.vs[:0], vs...)
		}
		solveInputs(t, switches{checkChoice: checkChoice, sparseWords: sparseWords}, seed, leastInput(seed), fullInput(seed))
	}
	if fast < 30 || builds-fast < 30 || fastPorts < 30 || sparse < 10 {
		t.Errorf("%d builds, %d sampled by sampleLeast (%d with host ports), %d sparse: the test does not exercise them all", builds, fast, fastPorts, sparse)
	}
}

// TestSplitCacheMatchesRecount places random preemption batches with the
// nodes' PDB splits kept between dry runs and counted afresh for each: the
// commits and reasons must be the same. At every preemption, each kept
// split still valid for the preemptor's priority must equal a recount.
func TestSplitCacheMatchesRecount(t *testing.T) {
	t.Parallel()
	lazyMatchesEager(t, 43, func(sw *switches, eager bool) { sw.noSplitCache = eager })

	hits, violating := 0, 0
	for seed := range uint64(20) {
		checkChoice := func(s *Solver, cl *class, prio int32, _ candidate) {
			if s.pre.splits == nil {
				return
			}
			for n := range s.pre.splits {
				sp := s.pre.splits[n]
				if !sp.made || sp.prio != prio || sp.gen != s.c.Gen[n] || sp.pgen != s.pgenOf(index.NodeID(n)) {
					continue
				}
				kept := sp
				kept.viol = slices.Clone(sp.viol)
				kept.rep, kept.pcpu, kept.pmem = slices.Clone(sp.rep), slices.Clone(sp.pcpu), slices.Clone(sp.pmem)
				s.cfg.sw.noSplitCache = true
				fresh, vic := s.splitOf(index.NodeID(n), prio)
				s.cfg.sw.noSplitCache = false
				if !slices.Equal(kept.viol, fresh.viol) || kept.nviol != fresh.nviol || kept.off != fresh.off ||
					!slices.Equal(kept.rep, fresh.rep) || !slices.Equal(kept.pcpu, fresh.pcpu) || !slices.Equal(kept.pmem, fresh.pmem) {
					t.Fatalf("seed %d node %d: kept split %+v, made again %+v", seed, n, kept, *fresh)
				}
				if want := lowerSuffix(s.nodePods(index.NodeID(n)), prio); len(vic) != len(want) || len(vic) > 0 && &vic[0] != &want[0] {
					t.Fatalf("seed %d node %d: %d victims from the split, %d below priority %d", seed, n, len(vic), len(want), prio)
				}
				hits++
				violating += fresh.nviol
			}
		}
		solveInputs(t, switches{checkChoice: checkChoice}, seed, preemptionInput(rand.New(rand.NewPCG(seed, 47))))
	}
	if hits < 1000 || violating < 100 {
		t.Errorf("%d kept splits checked, %d violating victims: the test does not exercise the cache", hits, violating)
	}
}

// TestSureFromEntBudgets makes the sure-violation state of random
// preemption batches from the budgets makeEnts keeps and from every bound
// pod's entry: the same pods per budget, in the same order, the same
// most per node.
func TestSureFromEntBudgets(t *testing.T) {
	t.Parallel()
	pods := 0
	for seed := range uint64(20) {
		var states [2]*sureViol
		for i, off := range []bool{false, true} {
			in := preemptionInput(rand.New(rand.NewPCG(seed, 59)))
			c, err := index.Build(in)
			if err != nil {
				t.Fatal(err)
			}
			s := newSolver(c, Config{Seed: seed, sw: switches{noEntBudgets: off}})
			s.initSure()
			states[i] = s.pre.sure
		}
		a, b := states[0], states[1]
		if a == nil || b == nil {
			if a != b {
				t.Fatalf("seed %d: a state from one, none from the other", seed)
			}
			continue
		}
		if !slices.EqualFunc(a.podsOf, b.podsOf, slices.Equal) || !slices.Equal(a.maxOn, b.maxOn) {
			t.Fatalf("seed %d: pods per budget differ:\n%v\n%v", seed, a.podsOf, b.podsOf)
		}
		for _, l := range a.podsOf {
			pods += len(l)
		}
	}
	if pods < 500 {
		t.Errorf("%d pods under budgets not exhausted: the test does not exercise the lists", pods)
	}
}

// TestRunReprieveMatchesOneByOne places random preemption batches with
// the common case's victims found run by run from the split's sums and
// with every pod reprieved one by one: the commits and reasons must be
// the same, and at every preemption each node's evaluation too.
func TestRunReprieveMatchesOneByOne(t *testing.T) {
	t.Parallel()
	lazyMatchesEager(t, 61, func(sw *switches, eager bool) { sw.noRunReprieve = eager })

	evals, victims := 0, 0
	for seed := range uint64(20) {
		checkChoice := func(s *Solver, cl *class, prio int32, _ candidate) {
			vs := append([]index.PodID(nil), s.pre.vs...)
			j := s.c.LowIndex(prio)
			for b, word := range cl.g.dense {
				for w := word; w != 0; w &= w - 1 {
					n := index.NodeID(b*64 + bits.TrailingZeros64(w))
					if j < 0 || s.columnarCols(cl, j) == nil || s.columnarVerdict(s.columnarCols(cl, j), j, int(n)) != 0 {
						continue
					}
					slackPods := s.c.Alloc[index.ResPods][n] - (s.c.Req[index.ResPods][n] - s.c.LowerRequested(j, prio, index.ResPods, n)) - 1
					s.cfg.sw.noRunReprieve = false
					runs := s.selectVictims(cl, prio, n, j, slackPods, nil)
					got := slices.Clone(s.pre.vs)
					s.cfg.sw.noRunReprieve = true
					one := s.selectVictims(cl, prio, n, j, slackPods, nil)
					s.cfg.sw.noRunReprieve = false
					if runs != one || !slices.Equal(got, s.pre.vs) {
						t.Fatalf("seed %d node %d: by runs %+v %v, one by one %+v %v", seed, n, runs, got, one, s.pre.vs)
					}
					evals++
					victims += len(got)
				}
			}
			s.pre.vs = append(s.pre.vs[:0], vs...)
		}
		solveInputs(t, switches{checkChoice: checkChoice}, seed, preemptionInput(rand.New(rand.NewPCG(seed, 67))), fullInput(seed))
	}
	if evals < 10000 || victims < 10000 {
		t.Errorf("%d evaluations, %d victims: the test does not exercise the reprieve", evals, victims)
	}
}
