package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

func TestScoreFormulas(t *testing.T) {
	t.Parallel()
	f := func(name string, got, want int64) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	// LeastAllocated: ((cap - req) * 100) / cap per resource, averaged.
	f("least 1000/4000 cpu, 4Gi/16Gi mem", fitScore(LeastAllocated, 1000, 4000, 4<<30, 16<<30), 75)
	f("least truncates", fitScore(LeastAllocated, 1, 3, 0, 3), (66+100)/2)
	f("least over capacity", fitScore(LeastAllocated, 5000, 4000, 0, 16), (0+100)/2)
	f("least without memory capacity", fitScore(LeastAllocated, 1000, 4000, 5, 0), 75)
	f("most", fitScore(MostAllocated, 1000, 4000, 8<<30, 16<<30), (25+50)/2)
	f("most clamps", fitScore(MostAllocated, 5000, 4000, 0, 16), (100+0)/2)
	// BalancedAllocation (v1.36): 50 + (50 + with - without) / 2.
	// Empty node, pod 1 cpu of 4 and 4Gi of 16Gi: fractions equal -> with
	// = 100, without = 100 -> 75.
	f("balanced even", balancedScore(0, 0, 1000, 4<<30, 4000, 16<<30), 75)
	// Node at cpu 0.5 / mem 0.0 (without = 75); pod adds mem 0.5 -> with = 100: 50+(50+25)/2 = 87.
	f("balanced improves", balancedScore(2000, 0, 0, 8<<30, 4000, 16<<30), 87)
	// Empty node, pod only cpu 0.5: with = 75, without = 100: 50+(50-25)/2 = 62.
	f("balanced worsens", balancedScore(0, 0, 2000, 0, 4000, 16<<30), 62)
	// DefaultNormalizeScore.
	f("normalize", normalize(3, 4, false), 75)
	f("normalize reverse", normalize(1, 4, true), 75)
	f("normalize max 0", normalize(0, 0, false), 0)
	f("normalize reverse max 0", normalize(0, 0, true), 100)
}

func TestLeastAllocatedSpreads(t *testing.T) {
	t.Parallel()
	var nodes []index.Node
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		nodes = append(nodes, makeNode(n).obj())
	}
	var pods []index.Pod
	for i := range 8 {
		pods = append(pods, makePod("p"+string(rune('a'+i))).req("cpu", 500).req("memory", 1<<30).obj())
	}
	_, c, res := solve(t, nodes, pods)
	per := make([]int, len(nodes))
	for _, cm := range res.Commits {
		per[cm.Node]++
	}
	if !slices.Equal(per, []int{2, 2, 2, 2}) {
		t.Errorf("pods per node %v, want 2 each", per)
	}
	// MostAllocated packs onto one node.
	c = cluster(t, nodes, pods)
	res = Solve(c, Config{Strategy: MostAllocated, Seed: 1})
	per = make([]int, len(nodes))
	for _, cm := range res.Commits {
		per[cm.Node]++
	}
	slices.Sort(per)
	if !slices.Equal(per, []int{0, 0, 0, 8}) {
		t.Errorf("most-allocated pods per node %v, want all 8 on one node", per)
	}
}

func TestPreferredAffinity(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{
		makeNode("a").label("disk", "hdd").obj(),
		makeNode("b").label("disk", "ssd").obj(),
		makeNode("c").label("disk", "ssd").label("fast", "yes").obj(),
	}
	got, _, _ := solve(t, nodes, []index.Pod{
		makePod("p").req("cpu", 100).preferred(10, req("disk", "In", "ssd")).preferred(50, req("fast", "Exists")).obj(),
	})
	if got["p"] != "c" {
		t.Errorf("p on %q, want c (both preferred terms)", got["p"])
	}
}

func TestScoreMatchesNaiveBest(t *testing.T) {
	t.Parallel()
	// Every placement must go to a node whose score equals the best score
	// over all fitting nodes at that moment, recomputed from scratch.
	// 300 nodes and 40 interleaved classes: class heaps are cut to their
	// best 64 entries and the other classes keep invalidating them.
	var nodes []index.Node
	for i := range 300 {
		b := makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", int64(1000+i%40*250)).alloc("memory", int64(2+i%5)<<30)
		if i%7 == 0 {
			b.taint("spot", "true", PN)
		}
		if i%3 == 0 {
			b.label("disk", "ssd")
		}
		nodes = append(nodes, b.obj())
	}
	var pods []index.Pod
	for i := range 1600 {
		b := makePod(fmt.Sprintf("p%d", i)).req("cpu", int64(100+(i%40)*10)).req("memory", int64(1+i%4)<<28)
		if i%4 == 0 {
			b.preferred(20, req("disk", "In", "ssd"))
		}
		pods = append(pods, b.obj())
	}
	c := cluster(t, nodes, pods)
	s := newSolver(c, Config{Seed: 3})
	queue := Queue(c)
	classOf := s.classify(queue)
	s.awaitGroups()
	for i, pid := range queue {
		cl := s.classes[classOf[i]]
		// Reference: kube-scheduler's cycle from scratch.
		fitting, ref := reference(c, cl, func(n int) bool {
			return cl.g.has(n) && fitsNow(c, n, &cl.demand)
		})
		best, bestNode := int64(-1), 0
		for _, n := range fitting {
			if sc := ref(n); sc > best {
				best, bestNode = sc, n
			}
		}
		n, _, ok := s.place(cl, pid)
		cl.pods--
		if !ok {
			if len(fitting) > 0 {
				t.Fatalf("pod %d: not placed but %d nodes fit", i, len(fitting))
			}
			continue
		}
		c.Unbind(pid, &cl.demand) // score the choice in the state it was made in
		got := ref(int(n))
		c.Bind(pid, n, &cl.demand)
		if got != best {
			t.Fatalf("pod %d placed on %d scoring %d; best is %d on %d", i, n, got, best, bestNode)
		}
	}
	if s.rebuilds == 0 {
		t.Error("no truncated heap was rebuilt: the test does not exercise truncation")
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	var nodes []index.Node
	for i := range 50 {
		nodes = append(nodes, makeNode("n"+string(rune('A'+i%26))+string(rune('A'+i/26))).obj())
	}
	var pods []index.Pod
	for i := range 200 {
		pods = append(pods, makePod("p"+string(rune('a'+i%26))+string(rune('a'+i/26))).req("cpu", 100).obj())
	}
	run := func(seed uint64) []Commit {
		c := cluster(t, slices.Clone(nodes), slices.Clone(pods))
		return Solve(c, Config{Seed: seed}).Commits
	}
	a, b := run(7), run(7)
	if !slices.Equal(a, b) {
		t.Error("same seed gave different commits")
	}
	if slices.Equal(a, run(8)) {
		t.Error("different seeds gave identical tie-breaks on 50 identical nodes")
	}
}

// TestPlacementAllocatesNothing pins "no heap allocation per placement".
func TestPlacementAllocatesNothing(t *testing.T) {
	var nodes []index.Node
	for i := range 500 {
		nodes = append(nodes, makeNode("n"+string(rune('A'+i%26))+string(rune('A'+i/26%26))+string(rune('A'+i/676))).obj())
	}
	const pods = 2000
	var ps []index.Pod
	for range pods {
		ps = append(ps, makePod("p").req("cpu", 100).req("memory", 1<<20).obj())
	}
	c := cluster(t, nodes, ps)
	s := newSolver(c, Config{Seed: 1})
	queue := Queue(c)
	classOf := s.classify(queue)
	s.awaitGroups()
	cl := s.classes[classOf[0]]
	s.place(cl, queue[0]) // builds the class heap
	cl.heap = slices.Grow(cl.heap, pods)
	i := 1
	allocs := testing.AllocsPerRun(500, func() {
		if _, _, ok := s.place(cl, queue[i]); !ok {
			t.Fatal("not placed")
		}
		i++
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per placement, want 0", allocs)
	}
}

// FuzzQuotient checks the reciprocal division against integer division.
func FuzzQuotient(f *testing.F) {
	for _, seed := range [][2]int64{{0, 1}, {100, 1}, {99, 3}, {1 << 40 * 100, 1 << 40}, {7910 * 100, 7910}, {123456789, 32506700 << 10}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, x, d int64) {
		if d <= 0 || d > 1<<46 {
			return
		}
		if x < 0 {
			x = -x
		}
		x %= 100*d + 1
		if got, want := quotient(x, d, 1/float64(d)), x/d; got != want {
			t.Fatalf("quotient(%d, %d) = %d, want %d", x, d, got, want)
		}
	})
}

func TestFitScoreFastMatches(t *testing.T) {
	t.Parallel()
	for _, strat := range []Strategy{LeastAllocated, MostAllocated} {
		for capCPU := int64(0); capCPU < 3000; capCPU += 7 {
			for req := int64(0); req < 3500; req += 13 {
				inv := 0.0
				if capCPU != 0 {
					inv = 1 / float64(capCPU)
				}
				mem, capMem := req<<20, capCPU<<21+5
				want := fitScore(strat, req, capCPU, mem, capMem)
				got := fitScoreFast(strat, req, capCPU, inv, mem, capMem, 1/float64(capMem))
				if got != want {
					t.Fatalf("%v req %d cap %d: fast %d, exact %d", strat, req, capCPU, got, want)
				}
			}
		}
	}
}

// TestNormalisationFollowsFittingNodes: kube-scheduler normalises
// NodeAffinity over the nodes that fit in each cycle. When the only node
// holding the maximum fills up, the maximum drops and the choice changes.
func TestNormalisationFollowsFittingNodes(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{
		makeNode("both").label("a", "1").label("b", "1").alloc("cpu", 1000).obj(),
		makeNode("bonly").label("b", "1").obj(),
		makeNode("aonly").label("a", "1").obj(),
	}
	class := func(name string, prio int32) index.Pod {
		return makePod(name).req("cpu", 100).req("memory", 1<<30).priority(prio).
			preferred(10, req("a", "In", "1")).preferred(20, req("b", "In", "1")).obj()
	}
	pods := []index.Pod{
		makePod("load").req("cpu", 3200).req("memory", 12<<30).on("bonly").obj(),
		class("first", 10), // takes "both" while it still fits (max 30)
		makePod("filler").req("cpu", 900).priority(5).selector("kubernetes.io/hostname", "both").obj(),
		class("second", 1), // "both" is full: the maximum is now 20
	}
	got, _, _ := solve(t, nodes, pods)
	if got["first"] != "both" || got["filler"] != "both" {
		t.Fatalf("setup: %v", got)
	}
	// With the maximum at 20, bonly's NodeAffinity score (2x100) beats
	// aonly's (2x50) by more than aonly gains on resources; with a stale
	// maximum of 30 (2x66 against 2x33) it would not.
	if got["second"] != "bonly" {
		t.Errorf("second on %q, want bonly (normalised over the nodes that fit now)", got["second"])
	}
}

// reference is kube-scheduler's scoring cycle for class cl, from scratch:
// the nodes that pass (fit), and a scorer normalising TaintToleration and
// NodeAffinity over exactly those nodes.
func reference(c *index.Cluster, cl *class, fit func(n int) bool) ([]int, func(n int) int64) {
	var fitting []int
	var ttMax, naMax int64
	for n := range c.Nodes {
		if !fit(n) {
			continue
		}
		fitting = append(fitting, n)
		if cl.g.rawTT != nil {
			ttMax = max(ttMax, int64(cl.g.rawTT[n]))
		}
		if cl.g.rawNA != nil {
			naMax = max(naMax, int64(cl.g.rawNA[n]))
		}
	}
	return fitting, func(n int) int64 {
		total := fitScore(LeastAllocated, c.ScoreReq[0][n]+cl.demand.ScoreCPU, c.Alloc[0][n], c.ScoreReq[1][n]+cl.demand.ScoreMem, c.Alloc[1][n])
		if cl.balance {
			total += balancedScore(c.Req[0][n], c.Req[1][n], cl.balCPU, cl.balMem, c.Alloc[0][n], c.Alloc[1][n])
		}
		var raw int64
		if cl.g.rawTT != nil {
			raw = int64(cl.g.rawTT[n])
		}
		total += 3 * normalize(raw, ttMax, true)
		if cl.g.rawNA != nil {
			total += 2 * normalize(int64(cl.g.rawNA[n]), naMax, false)
		}
		return total
	}
}

// TestUpperBoundsScore: the float32 pruning bound is never below the exact
// score (else a build could skip the best node) and stays within a few
// points of it (else it prunes nothing), over random node states including
// overcommitted nodes, nodes without cpu or memory, and both strategies.
func TestUpperBoundsScore(t *testing.T) {
	t.Parallel()
	const n = 500
	c := blankCluster(t, n)
	r := rand.New(rand.NewPCG(7, 7))
	val := func(max int64) int64 {
		switch r.IntN(10) {
		case 0:
			return 0
		case 1:
			return max // the scale's top: fractions of 1 and above
		}
		return r.Int64N(max)
	}
	for i := range n {
		scale := []int64{1000, 64000, 1 << 30, 1 << 40}[r.IntN(4)]
		c.Alloc[index.ResCPU][i], c.Alloc[index.ResMemory][i] = val(scale), val(scale<<10)
		c.Req[index.ResCPU][i], c.Req[index.ResMemory][i] = val(scale*5/4), val(scale<<10*5/4)
		c.ScoreReq[0][i] = c.Req[index.ResCPU][i] + val(200)
		c.ScoreReq[1][i] = c.Req[index.ResMemory][i] + val(200<<20)
	}
	for _, strat := range []Strategy{LeastAllocated, MostAllocated} {
		s := newSolver(c, Config{Strategy: strat})
		exact := 0
		for range 200 {
			cl := &class{g: &group{}, img: s.noImageScores()}
			cl.balCPU, cl.balMem = val(4000), val(8<<30)
			cl.demand.ScoreCPU, cl.demand.ScoreMem = max(cl.balCPU, 100), max(cl.balMem, 200<<20)
			cl.prepare()
			s.prepareStatic(cl)
			for node := range n {
				ub := s.upper(cl, &s.bounds[node]) + cl.staticScore(uint32(node))
				got := s.score(cl, uint32(node))
				if ub < got {
					t.Fatalf("%v node %d class %+v: bound %d below score %d", strat, node, cl.demand, ub, got)
				}
				if s.bounds[node].invCPU != 0 && s.bounds[node].invMem != 0 {
					exact++
					if ub > got+4 {
						t.Fatalf("%v node %d: bound %d is loose for score %d", strat, node, ub, got)
					}
				}
			}
		}
		if exact < 50000 {
			t.Fatalf("only %d exact-path bounds checked", exact)
		}
	}
}

// TestFirstStageBoundsScore checks the lean scans' first pruning stage on
// random nodes and classes: on every node the class fits, neither the
// shape bound (shapeUpper) nor the class-independent one is below the
// exact score, and the shape bound is never above the class-independent
// one, often below it, and under LeastAllocated usually within 2 points
// of the score and often equal to it. Some classes request one resource
// alone (the balance moves the most); the nodes have more capacity pairs
// than there are shape ids, so some share the shared shape.
func TestFirstStageBoundsScore(t *testing.T) {
	t.Parallel()
	const n = 500
	c := blankCluster(t, n)
	r := rand.New(rand.NewPCG(9, 9))
	for i := range n {
		if r.IntN(20) == 0 {
			c.Alloc[index.ResCPU][i] = 0 // a node without cpu
			continue
		}
		cpu, mem := int64(1000*(1+r.IntN(64))), int64(1+r.IntN(256))<<30
		if i%4 == 0 {
			cpu, mem = 1000, 1<<30 // the least capacities, which bound the shared shape's balance
		}
		c.Alloc[index.ResCPU][i], c.Alloc[index.ResMemory][i] = cpu, mem
		c.Req[index.ResCPU][i], c.Req[index.ResMemory][i] = r.Int64N(cpu+1), r.Int64N(mem+1)
		if r.IntN(4) == 0 {
			c.Req[index.ResCPU][i], c.Req[index.ResMemory][i] = 0, mem // as unbalanced as can be
		}
		c.ScoreReq[0][i] = c.Req[index.ResCPU][i] + r.Int64N(200)
		c.ScoreReq[1][i] = c.Req[index.ResMemory][i] + r.Int64N(200<<20)
	}
	for _, strat := range []Strategy{LeastAllocated, MostAllocated} {
		s := newSolver(c, Config{Strategy: strat})
		s.shapeShares(&class{}) // makes the shape records
		shared := 0
		for _, r := range s.fitRecs {
			if r.shape == sharedShape {
				shared++
			}
		}
		if shared == 0 {
			t.Fatal("no node of the shared shape: the capacity pairs are too few")
		}
		checked, tighter, near, exact := 0, 0, 0, 0
		for range 300 {
			cl := &class{g: &group{}, img: s.noImageScores()}
			switch r.IntN(5) {
			case 0: // no request: no BalancedAllocation score
			case 1:
				cl.balCPU, cl.balMem = r.Int64N(64000), r.Int64N(256<<30)
			case 2: // one resource: the balance moves the most
				cl.balCPU = 1 + r.Int64N(1000)
			default:
				cl.balCPU, cl.balMem = 50*(1+r.Int64N(40)), (64<<20)*(1+r.Int64N(64))
			}
			cl.demand.ScoreCPU, cl.demand.ScoreMem = max(cl.balCPU, 100), max(cl.balMem, 200<<20)
			cl.prepare()
			s.prepareStatic(cl)
			shares := s.shapeShares(cl)
			for node := range n {
				if c.Req[index.ResCPU][node]+cl.balCPU > c.Alloc[index.ResCPU][node] || c.Req[index.ResMemory][node]+cl.balMem > c.Alloc[index.ResMemory][node] {
					continue // the class does not fit: never scored
				}
				checked++
				st := cl.staticScore(uint32(node))
				got := s.score(cl, uint32(node))
				byNode := int64(s.bound[node]) + st
				byShape := shapeUpper(s.fitRecs[node], shares) + st
				if byShape < got || byNode < got {
					t.Fatalf("%v node %d class %+v: bounds %d (shape) and %d below score %d", strat, node, cl.demand, byShape, byNode, got)
				}
				if byShape > byNode {
					t.Fatalf("%v node %d class %+v: shape bound %d above the class-independent %d", strat, node, cl.demand, byShape, byNode)
				}
				if byShape < byNode {
					tighter++
				}
				if byShape <= got+2 {
					near++
				}
				if byShape == got {
					exact++
				}
			}
		}
		if checked < 20000 || tighter < checked/4 || strat == LeastAllocated && (near < checked/2 || exact < checked/3) {
			t.Fatalf("%v: %d fitting nodes checked, the shape bound tighter than the class-independent one on %d, within 2 of the score on %d and equal to it on %d", strat, checked, tighter, near, exact)
		}
		t.Logf("%v: %d fitting nodes checked, the shape bound tighter than the class-independent one on %d, within 2 of the score on %d and equal to it on %d", strat, checked, tighter, near, exact)
	}
}

// blankCluster is a cluster of n nodes whose columns a test sets.
func blankCluster(t *testing.T, n int) *index.Cluster {
	var nodes []index.Node
	for i := range n {
		nodes = append(nodes, makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", 1).alloc("memory", 1).obj())
	}
	return cluster(t, nodes, nil)
}
