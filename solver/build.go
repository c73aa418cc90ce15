package solver

import (
	"math"
	"math/bits"
	"runtime"
	"sync"

	"github.com/kplace/kplace/index"
)

// Class (re)builds: the one place that looks at every feasible node.
//
// A build scores every statically feasible node that fits and keeps the best
// few in the class heap: a class with k pods left needs at most k of today's
// nodes (nodes that change later are re-scored by sync), so the heap is cut
// to max(2k, 16) entries and the best entry cut off is remembered. Node
// ranges are scanned in parallel, each worker keeping its own best entries;
// the result is the same for any number of workers because entries are
// totally ordered (score, tie-break, node id).

// minParallelNodes is the feasible-set size below which a build runs on one
// goroutine.
const minParallelNodes = 4096

// scanner is one worker's state for a build.
type scanner struct {
	heap         []entry // min-heap of the best entries seen, worst on top
	cut          entry   // best entry dropped
	truncated    bool
	ttMax, naMax int64
}

func (w *scanner) reset() {
	w.heap = w.heap[:0]
	w.truncated = false
}

// offer keeps e if it is among the best keep entries seen.
func (w *scanner) offer(e entry, keep int) {
	h := w.heap
	if len(h) < keep {
		h = append(h, e)
		if len(h) == keep {
			minHeapInit(h)
		}
		w.heap = h
		return
	}
	if better(&e, &h[0]) {
		e, h[0] = h[0], e
		minHeapDown(h, 0)
	}
	w.drop(e)
}

// drop records e as left out.
func (w *scanner) drop(e entry) {
	if !w.truncated || better(&e, &w.cut) {
		w.cut = e
	}
	w.truncated = true
}

// build fills the class heap from scratch.
func (s *Solver) build(cl *class) {
	c := s.c
	g := cl.g
	s.builds++
	cl.built = true
	cl.cursor = len(c.Changes)
	keep := max(2*cl.pods, 16)
	dense := g.denseFeasible(c.NumNodes())
	workers := s.scanners(g.feasCard)
	if g.rawTT != nil || g.rawNA != nil {
		// TaintToleration and NodeAffinity normalise over the nodes that
		// pass every filter: the maxima are the highest levels with a node
		// the class fits on.
		cl.ttLevel, cl.ttMax = s.levelMax(g.ttLevels, cl)
		cl.naLevel, cl.naMax = s.levelMax(g.naLevels, cl)
		cl.ttScore = scoreTable(cl.ttScore, cl.ttMax, weightTaint, true)
		cl.naScore = scoreTable(cl.naScore, cl.naMax, weightNodeAffinity, false)
	}
	s.parallel(workers, dense, func(w *scanner, lo, hi int) { s.scanScore(cl, dense, w, lo, hi, keep) })
	// Merge: the first worker's heap absorbs the others'.
	m := &workers[0]
	for i := 1; i < len(workers); i++ {
		w := &workers[i]
		for _, e := range w.heap {
			m.offer(e, keep)
		}
		if w.truncated {
			m.drop(w.cut)
		}
	}
	cl.heap = append(cl.heap[:0], m.heap...)
	if cap(cl.heap) > 4*len(cl.heap)+64 {
		cl.heap = append(nodeHeap(nil), cl.heap...) // do not hold on to a big buffer
	}
	cl.heap.init()
	cl.cut, cl.truncated = m.cut, m.truncated
}

// scanners returns the worker states for a feasible set of size n: one per
// processor for big sets, else one.
func (s *Solver) scanners(n int) []scanner {
	k := 1
	if n >= minParallelNodes {
		k = min(runtime.GOMAXPROCS(0), n/(minParallelNodes/2))
	}
	for len(s.scan) < k {
		s.scan = append(s.scan, scanner{})
	}
	ws := s.scan[:k]
	for i := range ws {
		ws[i].reset()
	}
	return ws
}

// parallel runs f over len(ws) ranges of whole bitset words covering all
// nodes, one per worker.
func (s *Solver) parallel(ws []scanner, dense []uint64, f func(w *scanner, lo, hi int)) {
	words := len(dense)
	if len(ws) == 1 {
		f(&ws[0], 0, words)
		return
	}
	var wg sync.WaitGroup
	for i := range ws {
		lo, hi := words*i/len(ws), words*(i+1)/len(ws)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(&ws[i], lo, hi)
		}()
	}
	wg.Wait()
}

// scanScore scores the fitting nodes in bitset words [lo, hi) and keeps the
// best keep of them. Once the worker's heap is full, a node whose upper
// bound (nodeHot.bound plus the class's static scores) cannot beat the
// heap's worst entry is skipped without the fit check or the exact score.
func (s *Solver) scanScore(cl *class, dense []uint64, w *scanner, lo, hi, keep int) {
	gen := s.c.Gen
	for wi := lo; wi < hi; wi++ {
		for word := dense[wi]; word != 0; word &= word - 1 {
			n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if len(w.heap) == keep {
				// A node above a normalisation maximum did not fit when
				// the maxima were taken: skipping it changes nothing.
				if ub := s.hot[n].bound + cl.staticScore(n); ub < w.heap[0].score {
					w.drop(entry{score: ub, tie: math.MaxUint32})
					continue
				}
			}
			if !s.fits(n, cl) {
				continue
			}
			w.offer(entry{score: s.score(cl, n), tie: s.hot[n].tie, node: n, gen: gen[n]}, keep)
		}
	}
}

// fits is index.Cluster.Fits with the pods, cpu and memory columns hoisted.
func (s *Solver) fits(n index.NodeID, cl *class) bool {
	h := &s.hot[n]
	if h.usePods >= h.capPods {
		return false
	}
	d := &cl.demand
	for _, rv := range d.Req {
		var used, alloc int64
		switch rv.Res {
		case index.ResCPU:
			used, alloc = h.useCPU, h.capCPU
		case index.ResMemory:
			used, alloc = h.useMem, h.capMem
		default:
			used, alloc = s.c.Req[rv.Res][n], s.c.Alloc[rv.Res][n]
		}
		if used+rv.Val > alloc {
			return false
		}
	}
	return len(d.Ports) == 0 || !s.c.PortConflict(n, d.Ports)
}

// denseFeasible returns the group's feasible set as a bitset, built once.
func (g *group) denseFeasible(n int) []uint64 {
	if g.dense == nil {
		g.dense = make([]uint64, (n+63)/64)
		g.feas.WriteDenseTo(g.dense)
	}
	return g.dense
}

// scoreTable fills buf with weight * normalize(raw, maxRaw, reverse) for raw
// in [0, maxRaw].
func scoreTable(buf []int64, maxRaw, weight int64, reverse bool) []int64 {
	buf = buf[:0]
	for raw := int64(0); raw <= maxRaw; raw++ {
		buf = append(buf, weight*normalize(raw, maxRaw, reverse))
	}
	return buf
}

// levels lists a group's feasible nodes with a positive raw TaintToleration
// or NodeAffinity value, grouped by value, highest first.
type levels struct {
	vals  []int64
	nodes [][]index.NodeID
}

// newLevels groups the nodes of dense with raw > 0 by raw value (a counting
// sort: raw values are small sums of weights).
func newLevels(raw []int32, dense []uint64) *levels {
	if raw == nil {
		return nil
	}
	var top int32
	total := 0
	for wi, word := range dense {
		for ; word != 0; word &= word - 1 {
			if r := raw[wi*64+bits.TrailingZeros64(word)]; r > 0 {
				top = max(top, r)
				total++
			}
		}
	}
	count := make([]int, top+1)
	for wi, word := range dense {
		for ; word != 0; word &= word - 1 {
			if r := raw[wi*64+bits.TrailingZeros64(word)]; r > 0 {
				count[r]++
			}
		}
	}
	l := &levels{}
	all := make([]index.NodeID, total)
	start := make([]int, top+1)
	off := 0
	for v := top; v > 0; v-- {
		if count[v] == 0 {
			continue
		}
		start[v] = off
		l.vals = append(l.vals, int64(v))
		l.nodes = append(l.nodes, all[off:off:off+count[v]])
		off += count[v]
	}
	for wi, word := range dense {
		for ; word != 0; word &= word - 1 {
			n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if r := raw[n]; r > 0 {
				all[start[r]] = n
				start[r]++
			}
		}
	}
	for i := range l.nodes {
		l.nodes[i] = l.nodes[i][:cap(l.nodes[i])]
	}
	return l
}

// levelMax returns the index and value of the highest level holding a node
// the class fits on; (-1, 0) when there is none.
func (s *Solver) levelMax(l *levels, cl *class) (int, int64) {
	if l == nil {
		return -1, 0
	}
	for i, nodes := range l.nodes {
		if s.anyFits(nodes, cl) {
			return i, l.vals[i]
		}
	}
	return -1, 0
}

func (s *Solver) anyFits(nodes []index.NodeID, cl *class) bool {
	for _, n := range nodes {
		if s.fits(n, cl) {
			return true
		}
	}
	return false
}
