package solver

import (
	"math"
	"math/bits"
	"runtime"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Class (re)builds: the one place that looks at every feasible node.
//
// A build scores every statically feasible node that fits and keeps the best
// few in the class heap: a class with k pods left needs at most k of today's
// nodes (nodes that change later are re-scored by sync), so the heap is cut
// to max(k, 16) entries and the best entry cut off is remembered. Node
// ranges are scanned in parallel, each worker keeping its own best entries;
// the result is the same for any number of workers because entries are
// totally ordered (score, tie-break, node id). A class without a
// pod-relative part builds over the lean scans' run order where there is
// one (topInRuns): its bounds pass over most nodes unscored, with the same
// entries kept.

// minParallelNodes is the feasible-set size below which a build runs on one
// goroutine.
const minParallelNodes = 1024

// scanner is one worker's state for a build.
type scanner struct {
	topK // the best entries seen
	// doms holds the best entries per domain of a domain-split class.
	doms []topK
	// pubs holds, per slot of doms, the bar a lean scan publishes.
	pubs         []pubSlot
	ttMax, naMax int64
	// parked holds the fitting nodes a pod-relative filter rejected.
	parked []parkedEntry
	// heads and filt are a level-ordered build's walk and scratch words;
	// stopped is set when its walk stopped early.
	heads   []cellHead
	filt    []uint64
	stopped bool
	// bare and ttHist, naHist are a lean fill's counts over the worker's
	// words (bareSlots.count, countRaw).
	bare           []bareCount
	ttHist, naHist []int32
	// curs is scanRuns' segment cursors.
	curs []segCursor
}

// parkedEntry is an entry rejected by the class's relClass.deps[dep].
type parkedEntry struct {
	dep int
	e   entry
}

func (w *scanner) reset() {
	w.topK.reset()
	w.parked = w.parked[:0]
	w.stopped = false
}

// build fills the class heap from scratch.
func (s *Solver) build(cl *class) {
	c := s.c
	g := cl.g
	s.builds++
	again := cl.built
	cl.built = true
	cl.cursor = len(c.Changes)
	keep := max(cl.pods, 16)
	if s.session && cl.rel == nil && again {
		// A session keeps the class for later batches: once it is
		// built again (its pods keep coming), a deeper heap lasts more
		// placements before the next scan. Most classes of a session
		// come once, for a few pods: their first build keeps few.
		keep = max(keep, sessionKeep)
	}
	dense := g.dense
	workers := s.scanners(g.feasCard)
	s.prepareStatic(cl)
	if rc := cl.rel; rc != nil {
		rc.unpark()
	}
	if cl.rel != nil && !cl.scanOnly && !s.cfg.oneHeap && s.buildTwin(cl, keep) {
		return
	}
	if cl.dom != nil {
		s.buildDom(cl, dense, workers, keep)
		s.parkAll(cl, workers)
		return
	}
	if s.lv != nil && cl.rel == nil && cl.dom == nil {
		s.buildLevels(cl, dense, keep)
		return
	}
	if cl.rel == nil && g.feasCard >= minParallelNodes && len(s.orderList) > 0 && !s.cfg.sw.noRunBuilds {
		// Lean classes keep a run order up to date: its bounds pass
		// over most nodes (topInRuns).
		s.runBuilds++
		t := s.topInRuns(cl, s.orderList[0].topo, keep)
		s.setHeap(cl, t)
		t.reset()
		return
	}
	if len(workers) > 1 && s.room.fewer(cl, dense, 0, minParallelNodes) {
		workers = workers[:1] // the scan's work is the nodes with room: not worth the goroutines
	}
	if len(workers) == 1 {
		lo, hi := g.span() // a DaemonSet pod's group: one word of 1,563 at 100,000 nodes
		s.scanScore(cl, dense, &workers[0], lo, hi, keep, cl.rel, nil)
	} else {
		s.parallel(workers, dense, func(w *scanner, lo, hi int) { s.scanScore(cl, dense, w, lo, hi, keep, cl.rel, nil) })
	}
	s.setHeap(cl, &s.mergeScanners(workers, keep).topK)
	s.parkAll(cl, workers)
}

// setHeap makes cl's heap from the best entries t kept, and its cut.
func (s *Solver) setHeap(cl *class, t *topK) {
	cl.heap = append(cl.heap[:0], t.heap...)
	if cap(cl.heap) > 4*len(cl.heap)+64 {
		cl.heap = append(nodeHeap(nil), cl.heap...) // do not hold on to a big buffer
	}
	cl.heap.init()
	cl.cut, cl.truncated = t.cut, t.truncated
}

// mergeScanners merges the workers' best entries into the first worker's.
func (s *Solver) mergeScanners(workers []scanner, keep int) *scanner {
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
	return m
}

// parkAll parks the entries the workers' pod-relative filters rejected.
func (s *Solver) parkAll(cl *class, workers []scanner) {
	if rc := cl.rel; rc != nil {
		for i := range workers {
			for _, pe := range workers[i].parked {
				rc.park(s, pe.dep, pe.e)
			}
		}
	}
}

// procCount returns GOMAXPROCS as the solve started (or now, outside a
// solve).
func (s *Solver) procCount() int {
	if s.procs == 0 {
		return runtime.GOMAXPROCS(0)
	}
	return s.procs
}

// scanners returns the worker states for a feasible set of size n: one per
// processor for big sets, else one.
func (s *Solver) scanners(n int) []scanner {
	k := 1
	if n >= minParallelNodes {
		k = min(s.procCount(), n/(minParallelNodes/2))
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
	s.eachWorker(len(ws), func(i int) { f(&ws[i], words*i/len(ws), words*(i+1)/len(ws)) })
}

// eachWorker runs f(0), ..., f(k-1): on the caller and the pool's helpers
// when k > 1 (runShares).
func (s *Solver) eachWorker(k int, f func(i int)) {
	if k == 1 {
		f(0)
		return
	}
	runShares(k, f)
}

// scanScore scores the fitting nodes in bitset words [lo, hi) and keeps the
// best keep of them. Once the worker's heap is full, a node whose upper
// bound cannot beat the heap's worst entry is skipped without the fit check
// or the exact score: first the class-independent nodeBound.bound, then the
// class's own (upper); both add the class's static scores.
//
// rc is the class's pod-relative part, whose filters park the nodes they
// reject; nil scans without them (a template). With ids, dense holds words
// over ids (bit i of word j stands for node ids[64*j+i]) already cut to
// the nodes with room.
func (s *Solver) scanScore(cl *class, dense []uint64, w *scanner, lo, hi, keep int, rc *relClass, ids []index.NodeID) {
	gen := s.c.Gen
	hot := s.hot
	bound, ttTab, naTab, free := s.bound, cl.ttScore, cl.naScore, s.free
	// flat: no node has a raw TaintToleration or NodeAffinity score, nor
	// an ImageLocality score, so the static scores are the same on every
	// node.
	flat := cl.g.rawTT == nil && cl.g.rawNA == nil && !cl.hasImg
	st0 := ttTab[0] + naTab[0]
	// thr is the heap's worst entry once it is full: a node whose bound
	// (with its own tie-break) is not better cannot enter.
	thr := entry{score: math.MinInt64}
	if len(w.heap) == keep {
		thr = w.heap[0]
	}
	cut := entry{score: math.MinInt64} // the best bound skipped
	skip := func(ub int64, n index.NodeID) bool {
		if ub > thr.score {
			return false
		}
		e := entry{score: ub, tie: hot[n].tie, node: n}
		if ub == thr.score && better(&e, &thr) {
			return false
		}
		if better(&e, &cut) {
			cut = e
		}
		return true
	}
	var cand [64]index.NodeID
	var static [64]int64
	roomCPU, roomMem := s.room.of(cl)
	for wi := lo; wi < hi; wi++ {
		// Stage one, a tight loop over the word's nodes with room for
		// the class (see roomLevels): the fit test on cpu, memory and pod
		// count, then the class-independent bound plus the static scores.
		// A node above a normalisation maximum did not fit when the
		// maxima were taken: skipping it changes nothing.
		k := 0
		word := dense[wi]
		if ids == nil {
			word &= roomCPU[wi] & roomMem[wi]
		}
		for ; word != 0; word &= word - 1 {
			n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if ids != nil {
				n = ids[n]
			}
			if !cl.fitsFree(&free[n]) {
				continue // never an entry: not in the cut either
			}
			st := st0
			if !flat {
				st = cl.staticScore(n)
			}
			if ub := int64(bound[n]) + st; ub > thr.score || !skip(ub, n) {
				cand[k], static[k] = n, st
				k++
			}
		}
		// Stage two: the class's own bound, then the fit and exact score.
		for i, n := range cand[:k] {
			if ub := s.upper(cl, &s.bounds[n]) + static[i]; ub <= thr.score && skip(ub, n) {
				continue
			}
			if cl.fullFit && !s.fits(n, cl) {
				continue
			}
			if rc != nil {
				if f, j := s.check(rc, n); f != relOK {
					if j >= 0 {
						w.parked = append(w.parked, parkedEntry{dep: j, e: entry{score: s.score(cl, n), tie: hot[n].tie, node: n, gen: gen[n]}})
					}
					continue
				}
			}
			w.offer(entry{score: s.score(cl, n), tie: hot[n].tie, node: n, gen: gen[n]}, keep)
			if len(w.heap) == keep {
				thr = w.heap[0]
			}
		}
	}
	if cut.score != math.MinInt64 {
		w.drop(cut)
	}
}

// fits is the NodeResourcesFit and NodePorts filters on node n now, with
// the pods, cpu and memory columns hoisted.
func (s *Solver) fits(n index.NodeID, cl *class) bool {
	h := &s.hot[n]
	if !rules.PodsFit(h.usePods, h.capPods) {
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
		if !rules.Fits(used, rv.Val, alloc) {
			return false
		}
	}
	return s.portsFit(n, cl)
}

// fitsExtra is fits for the nodes of word wi in x, where cl's cpu,
// memory and pod count are known to fit: it returns those of them that
// fit its other requests (class.extra), from the cluster's columns, and
// its host ports. It does not read the nodes' records, and reads each
// column once per word.
func (s *Solver) fitsExtra(cl *class, wi int, x uint64) uint64 {
	base := index.NodeID(wi * 64)
	for _, rv := range cl.extra {
		req, alloc := s.c.Req[rv.Res], s.c.Alloc[rv.Res]
		for y := x; y != 0; y &= y - 1 {
			if n := base + index.NodeID(bits.TrailingZeros64(y)); !rules.Fits(req[n], rv.Val, alloc[n]) {
				x &^= 1 << (n & 63)
			}
		}
	}
	if cl.ports != 0 {
		for y := x; y != 0; y &= y - 1 {
			if n := base + index.NodeID(bits.TrailingZeros64(y)); !s.portsFit(n, cl) {
				x &^= 1 << (n & 63)
			}
		}
	}
	return x
}

// portsFit is the NodePorts filter on node n, tested only where the node's
// and the class's port masks share a bit.
func (s *Solver) portsFit(n index.NodeID, cl *class) bool {
	return s.portMasks[n]&cl.ports == 0 || !rules.PortsConflict(s.c.Ports[n], cl.demand.Ports)
}

// portMask has bit port mod 64 set for each of ports: two host ports that
// clash have the same number, so a node and a class whose masks share no
// bit cannot clash (and a class wanting no port has none).
func portMask(ports []index.PortKey) uint64 {
	var m uint64
	for _, p := range ports {
		m |= 1 << (uint32(p.Port) & 63)
	}
	return m
}

// prepareStatic takes the class's TaintToleration and NodeAffinity maxima
// over the nodes that fit now (both normalise over the nodes that pass
// every filter) and fills its score tables for every raw value up to the
// group's tops. A raw value above a maximum belongs to a node that did not
// fit when the maxima were taken; sync rebuilds before such a node is
// scored as fitting.
func (s *Solver) prepareStatic(cl *class) {
	g := cl.g
	cl.rawTT, cl.rawNA = s.orZeros(g.rawTT), s.orZeros(g.rawNA)
	if cl.img == nil {
		s.classImages(cl)
	}
	cl.ttMax, cl.naMax = 0, 0
	if g.rawTT != nil || g.rawNA != nil {
		cl.ttMax, cl.naMax = s.fittingMax(cl)
	}
	cl.ttScore = scoreTable(cl.ttScore, int64(g.ttTop), cl.ttMax, weightTaint, true)
	cl.naScore = scoreTable(cl.naScore, int64(g.naTop), cl.naMax, weightNodeAffinity, false)
}

// scoreTable fills buf with weight * normalize(raw, maxRaw, reverse) for raw
// in [0, top].
func scoreTable(buf []int64, top, maxRaw, weight int64, reverse bool) []int64 {
	buf = buf[:0]
	for raw := int64(0); raw <= top; raw++ {
		buf = append(buf, weight*normalize(raw, maxRaw, reverse))
	}
	return buf
}

// fittingMax returns the highest rawTT and rawNA values among the group's
// feasible nodes that the class fits on now (0 where there is none),
// testing the compact free columns first. The scan ends once both reach
// the group's tops, usually within the first words; when not (a crowded
// cluster, where few nodes fit), the rest is scanned on every processor,
// unless fewer than minParallelNodes of its nodes have room.
func (s *Solver) fittingMax(cl *class) (tt, na int64) {
	g := cl.g
	head := min(len(g.dense), fittingMaxHead)
	bt, bn := s.fittingMaxIn(cl, 0, head, 0, 0)
	if head == len(g.dense) || bt == g.ttTop && bn == g.naTop {
		return int64(bt), int64(bn)
	}
	rest := g.dense[head:]
	ws := s.scanners(64 * len(rest))
	if len(ws) > 1 && s.room.fewer(cl, g.dense, head, minParallelNodes) {
		ws = ws[:1] // few nodes with room: not worth the goroutines
	}
	s.parallel(ws, rest, func(w *scanner, lo, hi int) {
		t, a := s.fittingMaxIn(cl, head+lo, head+hi, bt, bn)
		w.ttMax, w.naMax = int64(t), int64(a)
	})
	tt, na = int64(bt), int64(bn)
	for i := range ws {
		tt, na = max(tt, ws[i].ttMax), max(na, ws[i].naMax)
	}
	return tt, na
}

// fittingMaxHead is how many bitset words fittingMax scans on one
// processor before it splits the rest.
const fittingMaxHead = 16

// fittingMaxIn is fittingMax over bitset words [lo, hi), from maxima bt
// and bn.
func (s *Solver) fittingMaxIn(cl *class, lo, hi int, bt, bn int32) (int32, int32) {
	g := cl.g
	rawTT, rawNA, free := cl.rawTT, cl.rawNA, s.free
	roomCPU, roomMem := s.room.of(cl)
	for wi := lo; wi < hi; wi++ {
		for word := g.dense[wi] & roomCPU[wi] & roomMem[wi]; word != 0; word &= word - 1 {
			if bt == g.ttTop && bn == g.naTop {
				return bt, bn
			}
			n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if t, a := rawTT[n], rawNA[n]; (t > bt || a > bn) && cl.fitsFree(&free[n]) && s.fits(n, cl) {
				bt, bn = max(bt, t), max(bn, a)
			}
		}
	}
	return bt, bn
}

// fitsAt reports whether the class fits on a feasible node whose raw value
// is v.
func (s *Solver) fitsAt(cl *class, raw []int32, v int32) bool {
	for wi, word := range cl.g.dense {
		for ; word != 0; word &= word - 1 {
			n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if raw[n] == v && s.fits(n, cl) {
				return true
			}
		}
	}
	return false
}

// orZeros returns raw, or all zeros when raw is nil.
func (s *Solver) orZeros(raw []int32) []int32 {
	if raw != nil {
		return raw
	}
	if s.zeros == nil {
		s.zeros = make([]int32, s.c.NumNodes())
	}
	return s.zeros
}

// topOf returns the highest raw value on the nodes of dense (0 if raw is nil).
func topOf(raw []int32, dense []uint64) int32 {
	var top int32
	if raw == nil {
		return 0
	}
	for wi, word := range dense {
		for ; word != 0; word &= word - 1 {
			top = max(top, raw[wi*64+bits.TrailingZeros64(word)])
		}
	}
	return top
}
