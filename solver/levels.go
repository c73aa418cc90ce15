package solver

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Level-ordered builds, for sessions.
//
// A session's batches are small (a few pods, each class once), so each
// build scans every feasible node to keep a few hundred entries: on a
// large cluster the scans are most of a batch. boundLevels files the nodes
// by shape (their cpu and memory capacity) and, within a shape, by cell:
// their NodeResourcesFit score with no extra request and whether both its
// per-resource scores are at least tightMin. For one class, every node of
// a shape and cell has the same bound on the class's score (cellBound: the
// fit score less what the class's requests take on that shape, plus the
// most they can improve the shape's balance, plus the class's best static
// scores). A build visits the cells from the highest bound down, over
// every shape at once, and stops at the first cell whose bound cannot beat
// the worst entry kept. The nodes left unvisited are recorded as a cut
// entry of that bound, so the heap is rebuilt before any of them could be
// the best: the result is a full scan's.

// fitLevels is how many NodeResourcesFit scores there are (0 to 100);
// a shape has a cell for each, twice (loose, then tight).
const (
	fitLevels     = int(maxNodeScore) + 1
	cellsPerShape = 2 * fitLevels
)

// tightMin: a node whose cpu and memory scores are both at least this is
// tight, and a class whose requests take less than this of either on the
// node's shape cannot empty either score (see cellBound).
const tightMin = 10

// maxShapes is how many distinct capacities get a shape of their own; the
// nodes of others, and nodes without cpu or memory, share the last shape,
// whose bound is looser.
const maxShapes = 64

type boundLevels struct {
	shapes  []levelShape // the last one is the shared shape
	shapeOf []int16      // each node's shape
	localOf []int32      // each node's place in its shape's nodes
	of      []int16      // each node's cell
	// minCPU and minMem are the least capacities of the shared shape's
	// nodes that have both (for its balance bound).
	minCPU, minMem int64
	// bounds are the shapes' bounds for the class being built, heads
	// the walk's first heads (see startWalk).
	bounds []shapeBound
	heads  []cellHead
}

// levelShape holds the nodes of one capacity.
type levelShape struct {
	cpu, mem int64 // capacity; 0 for the shared shape
	shared   bool
	nodes    []index.NodeID // in id order
	bits     [cellsPerShape][]uint64
	count    [cellsPerShape]int32
}

// cellOf is the cell of the node of record h: its NodeResourcesFit score
// with no extra request, which a request only lowers (100 under
// MostAllocated, its most), plus fitLevels when it is tight.
func cellOf(strategy Strategy, h *nodeHot) int16 {
	if strategy != LeastAllocated {
		return int16(maxNodeScore)
	}
	fit := fitScoreFast(LeastAllocated, h.nzCPU, h.capCPU, h.invCPU, h.nzMem, h.capMem, h.invMem)
	if h.capCPU > 0 && h.capMem > 0 &&
		resourceScoreFast(LeastAllocated, h.nzCPU, h.capCPU, h.invCPU) >= tightMin &&
		resourceScoreFast(LeastAllocated, h.nzMem, h.capMem, h.invMem) >= tightMin {
		return int16(fit) + int16(fitLevels)
	}
	return int16(fit)
}

// newBoundLevels files every node by shape and cell (the nodes' hot
// records are up to date).
func newBoundLevels(hot []nodeHot, strategy Strategy) *boundLevels {
	lv := &boundLevels{shapeOf: make([]int16, len(hot)), localOf: make([]int32, len(hot)), of: make([]int16, len(hot)),
		minCPU: math.MaxInt64, minMem: math.MaxInt64}
	// The shapes with the most nodes get their own, in capacity order.
	counts := map[[2]int64]int{}
	for n := range hot {
		if h := &hot[n]; h.capCPU > 0 && h.capMem > 0 {
			counts[[2]int64{h.capCPU, h.capMem}]++
		}
	}
	caps := make([][2]int64, 0, len(counts))
	for sh := range counts {
		caps = append(caps, sh)
	}
	slices.SortFunc(caps, func(a, b [2]int64) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	caps = caps[:min(len(caps), maxShapes)]
	slices.SortFunc(caps, func(a, b [2]int64) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	id := make(map[[2]int64]int16, len(caps))
	lv.shapes = make([]levelShape, len(caps)+1)
	for i, sh := range caps {
		id[sh] = int16(i)
		lv.shapes[i].cpu, lv.shapes[i].mem = sh[0], sh[1]
	}
	shared := int16(len(caps))
	lv.shapes[shared].shared = true
	for n := range hot {
		h := &hot[n]
		k, ok := id[[2]int64{h.capCPU, h.capMem}]
		if !ok {
			k = shared
			if h.capCPU > 0 && h.capMem > 0 {
				lv.minCPU, lv.minMem = min(lv.minCPU, h.capCPU), min(lv.minMem, h.capMem)
			}
		}
		sh := &lv.shapes[k]
		lv.shapeOf[n], lv.localOf[n] = k, int32(len(sh.nodes))
		sh.nodes = append(sh.nodes, index.NodeID(n))
	}
	for k := range lv.shapes {
		sh := &lv.shapes[k]
		words := (len(sh.nodes) + 63) / 64
		for c := range sh.bits {
			sh.bits[c] = make([]uint64, words)
		}
		for i, n := range sh.nodes {
			c := cellOf(strategy, &hot[n])
			lv.of[n] = c
			sh.bits[c][i>>6] |= 1 << (i & 63)
			sh.count[c]++
		}
	}
	return lv
}

// set files node n in cell c.
func (lv *boundLevels) set(n index.NodeID, c int16) {
	old := lv.of[n]
	if c == old {
		return
	}
	sh, i := &lv.shapes[lv.shapeOf[n]], lv.localOf[n]
	sh.bits[old][i>>6] &^= 1 << (i & 63)
	sh.count[old]--
	sh.bits[c][i>>6] |= 1 << (i & 63)
	sh.count[c]++
	lv.of[n] = c
}

// shapeBound is what a class's requests make of one shape's cells.
type shapeBound struct {
	// kCPU and kMem are floor(100 * scoring request / capacity): a
	// node's per-resource LeastAllocated score with the pod is at most
	// its score without it less that, or 0.
	kCPU, kMem int64
	// bal is the most the BalancedAllocation score can be on the shape.
	bal int64
}

// shapeBoundOf bounds class cl on shape sh; ok is false when no node of
// the shape can fit the class.
//
// BalancedAllocation: a pod taking fractions a of a node's cpu and b of
// its memory (where it fits, both fractions stay at most 1) moves the
// balance 1 - |cpu - memory| / 2 by at most |a - b| / 2: in points, with -
// without is below 50|a - b| + 1 (both are truncated), so the plugin's 50
// + (50 + with - without) / 2 is at most 50 + (50 + floor(50|a - b|) + 1)
// / 2. On a node without cpu or memory it is 75 for any pod. A class that
// requests neither resource gets no BalancedAllocation score.
func (lv *boundLevels) shapeBoundOf(cl *class, sh *levelShape) (shapeBound, bool) {
	var b shapeBound
	if !sh.shared {
		if rules.Unresolvable(cl.needCPU, sh.cpu) || rules.Unresolvable(cl.needMem, sh.mem) {
			return b, false
		}
		b.kCPU, b.kMem = cl.demand.ScoreCPU*maxNodeScore/sh.cpu, cl.demand.ScoreMem*maxNodeScore/sh.mem
	}
	if !cl.balance {
		return b, true
	}
	var diff float64 // |a - b|
	switch {
	case !sh.shared:
		diff = math.Abs(float64(cl.balCPU)/float64(sh.cpu) - float64(cl.balMem)/float64(sh.mem))
	case lv.minCPU != math.MaxInt64:
		diff = max(float64(cl.balCPU)/float64(lv.minCPU), float64(cl.balMem)/float64(lv.minMem))
	}
	b.bal = maxNodeScore/2 + (maxNodeScore/2+balanceGain(diff))/2
	return b, true
}

// cellBound bounds the class's NodeResourcesFit plus BalancedAllocation
// score on the nodes of cell c of a shape bounded by b. A cell's nodes
// have fit score f = floor((rc + rm) / 2) with no extra request, rc and
// rm the per-resource scores; with the pod each is at most max(0, r - k).
// When r > k it is at most r - k; a tight node has both at least
// tightMin, so a class with both k below it takes k from each: at most
// floor((2f + 1 - kc - km) / 2). Otherwise a score that empties leaves
// the other at most its own less its k: at most floor((2f + 1 - min(kc,
// km)) / 2). The shared shape and MostAllocated take f as it is.
func (s *Solver) cellBound(b *shapeBound, shared bool, c int) int64 {
	f := int64(c % fitLevels)
	fit := f
	if !shared && s.cfg.Strategy == LeastAllocated {
		k := min(b.kCPU, b.kMem)
		if c >= fitLevels && max(b.kCPU, b.kMem) < tightMin {
			k = b.kCPU + b.kMem
		}
		fit = max(0, 2*f+1-k) / 2
	}
	return weightFit*fit + weightBalanced*b.bal
}

// The walk over the cells merges the shapes' cells by bound: one head per
// shape and tightness, each going down its cells from the highest fit
// (their bounds never rise along the way), in a max-heap by bound.
type cellHead struct {
	shape int16
	cell  int16 // the cell it stands on
	ub    int64
}

func (h *cellHead) above(o *cellHead) bool {
	return h.ub > o.ub || h.ub == o.ub && (h.shape < o.shape || h.shape == o.shape && h.cell > o.cell)
}

// startWalk bounds class cl on every shape and makes the walk's first
// heads (lv.heads).
func (s *Solver) startWalk(cl *class) {
	lv := s.lv
	lv.heads, lv.bounds = lv.heads[:0], lv.bounds[:0]
	for k := range lv.shapes {
		b, ok := lv.shapeBoundOf(cl, &lv.shapes[k])
		lv.bounds = append(lv.bounds, b)
		if !ok {
			continue
		}
		for _, top := range [2]int{cellsPerShape - 1, fitLevels - 1} {
			if h, ok := s.headFrom(int16(k), top); ok {
				lv.heads = append(lv.heads, h)
			}
		}
	}
	for i := len(lv.heads)/2 - 1; i >= 0; i-- {
		headsDown(lv.heads, i)
	}
}

// headFrom is the head of shape k on its first cell with nodes at or
// below cell c, of c's tightness.
func (s *Solver) headFrom(k int16, c int) (cellHead, bool) {
	lv := s.lv
	sh := &lv.shapes[k]
	low := 0
	if c >= fitLevels {
		low = fitLevels
	}
	for ; c >= low; c-- {
		if sh.count[c] > 0 {
			return cellHead{shape: k, cell: int16(c), ub: s.cellBound(&lv.bounds[k], sh.shared, c)}, true
		}
	}
	return cellHead{}, false
}

// nextCell moves the top head of heads to its next cell with nodes, or
// drops it.
func (s *Solver) nextCell(heads []cellHead) []cellHead {
	top := heads[0]
	if top.cell != 0 && top.cell != int16(fitLevels) {
		if h, ok := s.headFrom(top.shape, int(top.cell)-1); ok {
			heads[0] = h
			headsDown(heads, 0)
			return heads
		}
	}
	last := len(heads) - 1
	heads[0] = heads[last]
	heads = heads[:last]
	headsDown(heads, 0)
	return heads
}

func headsDown(h []cellHead, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r].above(&h[l]) {
			l = r
		}
		if !h[l].above(&h[i]) {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// buildLevels is build's scan for a session's class without a pod-relative
// part or a domain split: each worker walks the cells from the highest
// bound down, scanning its share of each cell's nodes, until none left can
// enter its best keep; the workers' bests and cuts merge as a full scan's
// do.
func (s *Solver) buildLevels(cl *class, dense []uint64, keep int) {
	lv := s.lv
	stMax := slices.Max(cl.ttScore) + slices.Max(cl.naScore) + cl.imageMax()
	workers := s.scanners(cl.g.feasCard)
	roomCPU, roomMem := s.room.of(cl)
	s.startWalk(cl)
	s.eachWorker(len(workers), func(i int) {
		w := &workers[i]
		heads := append(w.heads[:0], lv.heads...)
		for len(heads) > 0 {
			head := &heads[0]
			ub := head.ub + stMax
			if len(w.heap) == keep && w.heap[0].score > ub {
				// Every node left is bounded by ub, below the worst entry kept.
				w.drop(entry{score: ub, tie: math.MaxUint32})
				w.stopped = true
				break
			}
			sh := &lv.shapes[head.shape]
			cell := sh.bits[head.cell]
			lo, hi := len(cell)*i/len(workers), len(cell)*(i+1)/len(workers)
			// The cell's nodes that are feasible and may have room, as
			// scanScore's words over the shape's nodes from word lo.
			filt, any := w.filt[:0], uint64(0)
			for wi := lo; wi < hi; wi++ {
				var f uint64
				for x := cell[wi]; x != 0; x &= x - 1 {
					b := bits.TrailingZeros64(x)
					n := sh.nodes[wi*64+b]
					if dense[n>>6]&roomCPU[n>>6]&roomMem[n>>6]&(1<<(n&63)) != 0 {
						f |= 1 << b
					}
				}
				filt = append(filt, f)
				any |= f
			}
			w.filt = filt
			if any != 0 {
				s.scanScore(cl, filt, w, 0, len(filt), keep, nil, sh.nodes[lo*64:])
			}
			heads = s.nextCell(heads)
		}
		w.heads = heads
	})
	for i := range workers {
		if workers[i].stopped {
			s.levelStops++
			break
		}
	}
	m := s.mergeScanners(workers, keep)
	cl.heap = append(cl.heap[:0], m.heap...)
	if cap(cl.heap) > 4*len(cl.heap)+64 {
		cl.heap = append(nodeHeap(nil), cl.heap...)
	}
	cl.heap.init()
	cl.cut, cl.truncated = m.cut, m.truncated
}
