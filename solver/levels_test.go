package solver

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// levelsCluster is seed's cluster for the level tests: random nodes
// copied up to 4,000, with node shapes (a few, or more than maxShapes,
// which share a shape), nodes without memory, nodes loaded up to nearly
// full (loose cells), and both strategies; and a session's solver over it.
func levelsCluster(t *testing.T, seed uint64) *Solver {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 17))
	nodes, pods := randomCluster(r)
	for i := range 60 { // nodes whose memory the non-zero requests of pods without any fill
		b := makeNode(fmt.Sprintf("zeros%d", i)).alloc("cpu", 4000).alloc("memory", 4<<30)
		nodes = append(nodes, b.obj())
		for j := range 17 + r.IntN(4) {
			pods = append(pods, makePod(fmt.Sprintf("zero%d-%d", i, j)).on(b.n.Name).obj())
		}
	}
	orig := len(nodes)
	for i := 0; len(nodes) < 4000; i++ {
		n := nodes[i%orig]
		n.Name = fmt.Sprintf("%s-copy%d", n.Name, i)
		n.Labels = maps.Clone(n.Labels)
		n.Labels["kubernetes.io/hostname"] = n.Name
		n.Allocatable = slices.Clone(n.Allocatable)
		switch {
		case seed%4 == 1 && r.IntN(2) == 0: // many shapes
			for j := range n.Allocatable {
				if n.Allocatable[j].Name == "cpu" {
					n.Allocatable[j].Value += int64(r.IntN(200))
				}
			}
		case seed%4 == 2 && r.IntN(50) == 0: // no memory
			n.Allocatable = slices.DeleteFunc(n.Allocatable, func(q index.Quantity) bool { return q.Name == "memory" })
		}
		nodes = append(nodes, n)
	}
	if seed%2 == 1 {
		// Images on a few nodes, held by pending pods: ImageLocality adds
		// up to its maximum to those nodes' static scores.
		for i := range nodes {
			if r.IntN(2) == 0 {
				nodes[i].Images = []index.NodeImage{{Names: []string{"registry/big:1"}, Size: 900 << 20}}
			}
		}
		for i := range pods {
			if pods[i].NodeName == "" && r.IntN(2) == 0 {
				pods[i].Images, pods[i].ImageContainers = []string{"registry/big:1"}, 1
			}
		}
	}
	for i := range 3000 { // load the nodes unevenly
		pods = append(pods, makePod(fmt.Sprintf("load%d", i)).req("cpu", int64(50*(1+r.IntN(10)))).
			req("memory", int64(1+r.IntN(8))<<26).on(nodes[r.IntN(len(nodes))].Name).obj())
	}
	for i := range 400 { // and some nearly full, or full of cpu alone
		pods = append(pods, makePod(fmt.Sprintf("heavy%d", i)).req("cpu", 900).req("memory", 900<<20).
			on(nodes[r.IntN(len(nodes))].Name).obj())
		pods = append(pods, makePod(fmt.Sprintf("cpu%d", i)).req("cpu", 900).req("memory", 1).
			on(nodes[r.IntN(len(nodes))].Name).obj())
	}
	c := cluster(t, nodes, pods)
	cfg := Config{Seed: seed}
	if seed%4 == 3 {
		cfg.Strategy = MostAllocated
	}
	s := newSolver(c, cfg)
	s.lv, s.session = newBoundLevels(s.hot, s.cfg.Strategy), true
	return s
}

// TestCellBound: on every node a class fits, its NodeResourcesFit plus
// BalancedAllocation score is at most its cell's bound. Covers shared
// shapes, nodes without memory, loose cells and both strategies.
func TestCellBound(t *testing.T) {
	t.Parallel()
	shared, loose, checked := 0, 0, 0
	for seed := range uint64(16) {
		s := levelsCluster(t, seed)
		c, lv := s.c, s.lv
		if sh := &lv.shapes[len(lv.shapes)-1]; len(sh.nodes) > 0 {
			shared++
		}
		for n := range c.NumNodes() {
			if lv.of[n] < int16(fitLevels) && lv.shapeOf[n] < int16(len(lv.shapes)-1) {
				loose++
			}
		}
		classOf := s.classify(Queue(c))
		s.awaitGroups()
		seen := map[int32]bool{}
		for _, cid := range classOf {
			if cid < 0 || seen[cid] {
				continue
			}
			seen[cid] = true
			cl := s.classes[cid]
			s.prepareStatic(cl)
			checked += checkCellBounds(t, s, cl, -1)
		}
	}
	if shared == 0 || loose == 0 || checked == 0 {
		t.Fatalf("clusters with a shared shape %d, nodes in loose cells %d, nodes checked %d", shared, loose, checked)
	}
}

// checkCellBounds checks class cl's score against its cell bound on every
// node it fits, and that the bound is within maxGap of it on tight nodes
// (maxGap >= 0); it returns how many nodes it checked.
func checkCellBounds(t *testing.T, s *Solver, cl *class, maxGap int64) int {
	t.Helper()
	c, lv := s.c, s.lv
	checked := 0
	for n := range c.NumNodes() {
		id := index.NodeID(n)
		if cl.g.dense[n>>6]&(1<<(n&63)) == 0 || !s.fits(id, cl) {
			continue
		}
		k := lv.shapeOf[n]
		b, ok := lv.shapeBoundOf(cl, &lv.shapes[k])
		if !ok {
			t.Fatalf("class of %s fits node %d, of a shape it cannot fit", c.Pods[cl.rep].Name, n)
		}
		if h := &s.hot[n]; cl.balance {
			// The balance part alone, which the fit part's slack may hide.
			if bal := balancedScore(h.useCPU, h.useMem, cl.balCPU, cl.balMem, h.capCPU, h.capMem); bal > b.bal {
				t.Fatalf("class of %s, node %s (shape %d): BalancedAllocation %d above its bound %d", c.Pods[cl.rep].Name, c.Nodes[n].Name, k, bal, b.bal)
			}
		}
		ub := s.cellBound(&b, lv.shapes[k].shared, int(lv.of[n]))
		got := s.score(cl, id) - cl.staticScore(id)
		if got > ub {
			t.Fatalf("class of %s, node %s (shape %d, cell %d): score %d above its bound %d", c.Pods[cl.rep].Name, c.Nodes[n].Name, k, lv.of[n], got, ub)
		}
		if maxGap >= 0 && lv.of[n] >= int16(fitLevels) && max(b.kCPU, b.kMem) < tightMin && ub-got > maxGap {
			t.Errorf("class of %s, node %s (cell %d): bound %d, score %d: looser than %d", c.Pods[cl.rep].Name, c.Nodes[n].Name, lv.of[n], ub, got, maxGap)
		}
		checked++
	}
	return checked
}

// TestCellBoundTight: pods that take the same fraction of a node's cpu
// and memory (BalancedAllocation gives them 75 at most) on nodes of three
// shapes loaded from empty to nearly full: on tight nodes (where they take
// less than tightMin) the bound is within 2 of the score (a point for the
// fit's truncation, one for the balance's); nodes loaded past 90% of
// either are loose.
func TestCellBoundTight(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 5))
	shapes := [][2]int64{{16000, 64 << 30}, {8000, 32 << 30}, {4000, 16 << 30}}
	var nodes []index.Node
	var pods []index.Pod
	for i := range 300 {
		sh := shapes[i%len(shapes)]
		b := makeNode(fmt.Sprintf("n%d", i))
		b.n.Allocatable = index.ResourceList{{Name: "cpu", Value: sh[0]}, {Name: "memory", Value: sh[1]}, {Name: "pods", Value: 110}}
		nodes = append(nodes, b.obj())
		load := r.Float64() * 0.97
		pods = append(pods, makePod(fmt.Sprintf("load%d", i)).req("cpu", int64(load*float64(sh[0]))).
			req("memory", int64(r.Float64()*0.97*float64(sh[1]))).on(b.n.Name).obj())
	}
	for i, req := range [][2]int64{{250, 1 << 30}, {500, 2 << 30}, {100, 400 << 20}} {
		pods = append(pods, makePod(fmt.Sprintf("p%d", i)).req("cpu", req[0]).req("memory", req[1]).obj())
	}
	c := cluster(t, nodes, pods)
	s := newSolver(c, Config{Seed: 1})
	s.lv, s.session = newBoundLevels(s.hot, s.cfg.Strategy), true
	classOf := s.classify(Queue(c))
	s.awaitGroups()
	tight, checked := 0, 0
	for n := range c.NumNodes() {
		if s.lv.of[n] >= int16(fitLevels) {
			tight++
		}
	}
	for _, cid := range classOf {
		cl := s.classes[cid]
		s.prepareStatic(cl)
		checked += checkCellBounds(t, s, cl, 2)
	}
	if tight < 100 || tight == c.NumNodes() || checked < 600 {
		t.Fatalf("tight nodes %d of %d, nodes checked %d", tight, c.NumNodes(), checked)
	}
}

// TestCellWalk: a walk with no stop visits every cell with nodes of the
// shapes a class can fit once, by bound from the highest down.
func TestCellWalk(t *testing.T) {
	t.Parallel()
	for seed := range uint64(8) {
		s := levelsCluster(t, seed)
		lv := s.lv
		classOf := s.classify(Queue(s.c))
		s.awaitGroups()
		for _, cid := range classOf[:min(len(classOf), 50)] {
			if cid < 0 {
				continue
			}
			cl := s.classes[cid]
			s.startWalk(cl)
			visited := map[[2]int16]bool{}
			last := int64(math.MaxInt64)
			for heads := slices.Clone(lv.heads); len(heads) > 0; heads = s.nextCell(heads) {
				h := heads[0]
				if h.ub > last || visited[[2]int16{h.shape, h.cell}] {
					t.Fatalf("seed %d: cell %+v after bound %d, or again", seed, h, last)
				}
				last = h.ub
				visited[[2]int16{h.shape, h.cell}] = true
			}
			for k := range lv.shapes {
				_, ok := lv.shapeBoundOf(cl, &lv.shapes[k])
				for c, n := range lv.shapes[k].count {
					if want := ok && n > 0; visited[[2]int16{int16(k), int16(c)}] != want {
						t.Fatalf("seed %d: shape %d cell %d with %d nodes: visited %v", seed, k, c, n, !want)
					}
				}
			}
		}
	}
}

// TestBuildLevels: a session's level-ordered build keeps entries and a
// cut such that no node it did not keep is better than the cut and every
// one it kept is, and its best entry is a full scan's best node.
func TestBuildLevels(t *testing.T) {
	t.Parallel()
	stopped := 0
	for seed := range uint64(16) {
		s := levelsCluster(t, seed)
		c := s.c
		queue := Queue(c)
		classOf := s.classify(queue)
		s.awaitGroups()
		for i, cid := range classOf {
			if cid < 0 || i%7 != 0 {
				continue
			}
			cl := s.classes[cid]
			s.build(cl)
			kept := map[index.NodeID]bool{}
			best := entry{score: -1 << 62}
			for _, e := range cl.heap {
				if kept[e.node] {
					t.Fatalf("seed %d: node %d kept twice", seed, e.node)
				}
				kept[e.node] = true
				if better(&e, &best) {
					best = e
				}
			}
			full := entry{score: -1 << 62}
			for n := range c.NumNodes() {
				id := index.NodeID(n)
				if cl.g.dense[n>>6]&(1<<(n&63)) == 0 || !s.fits(id, cl) {
					continue
				}
				e := entry{score: s.score(cl, id), tie: s.hot[n].tie, node: id}
				if better(&e, &full) {
					full = e
				}
				if !kept[id] && (!cl.truncated || better(&e, &cl.cut)) {
					t.Fatalf("seed %d, class of %s: node %d (score %d) left out, above the cut %+v", seed, c.Pods[queue[i]].Name, n, e.score, cl.cut)
				}
			}
			if full.score > -1<<62 && (best.node != full.node || best.score != full.score) && !better(&cl.cut, &best) {
				t.Fatalf("seed %d: the build's best %+v is not the full scan's %+v", seed, best, full)
			}
			for _, e := range cl.heap {
				if cl.truncated && !better(&e, &cl.cut) {
					t.Fatalf("seed %d: the build kept %+v, not better than its cut %+v (a scan keeps only entries above what it leaves out)", seed, e, cl.cut)
				}
			}
			if s.levelStops > 0 {
				stopped++
				s.levelStops = 0
			}
		}
	}
	if stopped == 0 {
		t.Fatal("no build stopped early: the test does not test it")
	}
}
