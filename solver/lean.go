package solver

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Lean buckets.
//
// fillBuckets scores and files every fitting node of a scoring class. Where
// default spreading applies to most pods (Services and ReplicaSets select
// nearly every pod of a real cluster), a cluster of n nodes has scoring
// classes in proportion to n, and filling each at tens of nanoseconds a
// node makes the solve grow as n².
//
// Most of a class's nodes are bare: every per-node dimension (a hostname
// count) is 0 there, because the class's workload has few pods. The bucket
// of a bare node depends on its domain of the domain dimensions alone
// (they share one topology, zone say, or there is none), so a lean class
// keeps, per domain, one bare bucket holding only its best entries, cut
// as domain-split heaps cut theirs, and the exact count of its fitting
// nodes (the PodTopologySpread weights read counts, not nodes). Nodes that
// are not bare are kept whole in buckets of their own, as in a full fill.
// A bare bucket whose entries ran out while its cut may hold its best node
// is rescanned alone, from its domain's nodes.
//
// A fill then costs a fit test per feasible node (a word at a time where
// the room levels settle it) and a score for the few that can enter a
// domain's best (pruned run by run, runs.go, then by the shape bound,
// shapes.go); a sync leaves out a changed bare node its bucket's cut
// bounds. The
// class keeps its fitting nodes as a bitset, to keep the counts exact as
// nodes change, and counts them per TaintToleration and NodeAffinity raw
// value: the normalisation maxima come from those counts, where a full
// fill rescans the nodes for them (fittingMax) before every pod.

// leanState is a lean class's bookkeeping.
type leanState struct {
	// fit has a bit per feasible node that fits the class now.
	fit []uint64
	// explicit holds the bucket of every fitting node that is not bare,
	// exBits a bit per node it holds, so that a node that is not in it
	// (most nodes a sync looks up) is known without a lookup.
	explicit nodeTable
	exBits   []uint64
	// bareOf[ignored][d+1] is the bare bucket of domain d (-1 for the
	// nodes lacking the key), -1 until made.
	bareOf [2][]int32
	// ttHist and naHist count the fitting nodes per raw TaintToleration
	// and NodeAffinity value (nil when the group has no such column);
	// the maxima read the values above 0 alone, and a fill counts those
	// alone.
	ttHist, naHist []int32
}

// setExplicit files fitting node n, not bare, in bucket id.
func (ln *leanState) setExplicit(n index.NodeID, id int32) {
	ln.explicit.set(n, id)
	ln.exBits[n>>6] |= 1 << (n & 63)
}

// takeExplicit returns node n's bucket and removes it from explicit, or
// false when n is not there.
func (ln *leanState) takeExplicit(n index.NodeID) (int32, bool) {
	bit := uint64(1) << (n & 63)
	if ln.exBits[n>>6]&bit == 0 {
		return 0, false
	}
	id, _ := ln.explicit.take(n)
	ln.exBits[n>>6] &^= bit
	return id, true
}

// isBare reports whether every per-node dimension of b is 0 on node n.
func (s *Solver) isBare(b *buckets, n index.NodeID) bool {
	for i := range b.dims {
		dm := &b.dims[i]
		switch k := dm.ctr; {
		case dm.hostname:
			if !s.hasHostname(n) || k.counts.at(int32(n)) != 0 {
				return false
			}
		case dm.perNode:
			if d := k.topo.Of[n]; d < 0 || k.counts.at(d) != 0 {
				return false
			}
		}
	}
	return true
}

// ignoredAt reports whether node n is ignored by cl's soft constraints
// (it lacks one of their keys and they require all).
func ignoredAt(cl *class, n index.NodeID) bool {
	elig := eligibleOf(cl)
	return elig != nil && elig[n>>6]&(1<<(n&63)) == 0
}

// bareBucket returns bare node n's bucket, made if new, and its slot:
// ignored*(domains) + its domain + 1 (0: the nodes lacking the key).
func (s *Solver) bareBucket(cl *class, b *buckets, n index.NodeID) (int, int32) {
	pd := int32(0)
	if b.topo != nil {
		pd = b.topo.Of[n] + 1
	}
	ig := 0
	if ignoredAt(cl, n) {
		ig = 1
	}
	slot := &b.ln.bareOf[ig][pd]
	if *slot < 0 {
		s.valuesOf(b, n)
		*slot = b.newBucket(ig == 1)
		b.list[*slot].bare = pd + 1
	}
	return ig*len(b.ln.bareOf[0]) + int(pd), *slot
}

// fillLean builds lean class cl's buckets b: which feasible nodes fit (a
// word at a time through roomLevels, testing only the nodes whose free
// room is near the request), the bare buckets' counts (per domain, a word
// at a time through the domains' bitsets), the raw value counts and the
// entries of the nodes that are not bare. A bare bucket finds its best
// entries on its first use (liveBare), through the bound index.
func (s *Solver) fillLean(cl *class, b *buckets) {
	s.leanFills++
	g := cl.g
	ln := s.takeLean(len(g.dense))
	b.ln = ln
	domains := 1
	if b.topo != nil {
		domains += len(b.topo.Size)
	}
	for i := range ln.bareOf {
		ln.bareOf[i] = slices.Grow(ln.bareOf[i][:0], domains)[:domains]
		for d := range ln.bareOf[i] {
			ln.bareOf[i][d] = -1
		}
	}
	ln.ttHist, ln.naHist = nil, nil
	if g.rawTT != nil {
		ln.ttHist = make([]int32, g.ttTop+1)
	}
	if g.rawNA != nil {
		ln.naHist = make([]int32, g.naTop+1)
	}
	// The fit bits, then on the same words the bare slots' and the
	// histograms' counts, each worker over its words.
	ws := s.scanners(g.feasCard)
	np := s.nonBare(b, len(g.dense))
	sl := s.bareSlotsOf(cl, b)
	s.classFloors(cl) // before the workers read them
	s.parallel(ws, ln.fit, func(w *scanner, lo, hi int) {
		s.fitWords(cl, ln.fit, lo, hi)
		if sl.byWord {
			w.bare = sl.count(ln.fit, np, lo, hi, w.bare)
		}
		w.ttHist = countRaw(ln.fit, g.rawTT, g.ttNZ, lo, hi, len(ln.ttHist), w.ttHist)
		w.naHist = countRaw(ln.fit, g.rawNA, g.naNZ, lo, hi, len(ln.naHist), w.naHist)
	})
	for i := range ws {
		for v, k := range ws[i].ttHist {
			ln.ttHist[v] += k
		}
		for v, k := range ws[i].naHist {
			ln.naHist[v] += k
		}
	}
	explicit := s.leanTouched[:0]
	for wi, word := range ln.fit {
		for x := word & np[wi]; x != 0; x &= x - 1 {
			explicit = append(explicit, index.NodeID(wi*64+bits.TrailingZeros64(x)))
		}
	}
	s.countBare(cl, b, np, sl, ws)
	s.leanMaxima(cl, b)
	gen := s.c.Gen
	for _, n := range explicit {
		id := s.bucketOf(cl, b, n)
		b.list[id].heap.push(entry{score: s.score(cl, n), tie: s.hot[n].tie, node: n, gen: gen[n]})
		b.list[id].members++
		ln.setExplicit(n, id)
	}
	s.leanTouched = explicit[:0]
	// The bare buckets' best entries, each worker over its words.
	keep := domKeep(max(cl.pods, 16), domains)
	var slots []int // the bare slots with a bucket, and the buckets
	for ig := range ln.bareOf {
		for pd, id := range ln.bareOf[ig] {
			if id >= 0 {
				slots = append(slots, ig*domains+pd, int(id))
			}
		}
	}
	for i := range ws {
		ws[i].barSlots(2 * domains)
		for j := 0; j < len(slots); j += 2 {
			ws[i].resetBarSlot(slots[j])
		}
	}
	shares := s.shapeShares(cl)
	o := s.orderFor(b.topo)
	feas := s.feasibleRuns(g, o)
	segs := s.segBufs(len(slots) / 2)
	for i := range segs {
		segs[i] = classSegs(o, slots[2*i]%domains, shares, feas, segs[i])
	}
	scans := [2]runScan{ // by slots' ignored flag
		{fit: ln.fit, np: np, elig: eligibleOf(cl), shares: shares},
		{fit: ln.fit, np: np, elig: eligibleOf(cl), ig: true, shares: shares},
	}
	s.eachWorker(len(ws), func(i int) {
		for j := 0; j < len(slots); j += 2 {
			s.scanRuns(cl, &scans[slots[j]/domains], o, segs[j/2], slots[j], ws, keep, i)
		}
	})
	for i := 0; i < len(slots); i += 2 {
		b.list[slots[i+1]].fromTop(mergeTops(ws, slots[i], keep))
		if chk := s.cfg.sw.checkBare; chk != nil {
			chk(s, cl, b, int32(slots[i+1]), keep)
		}
	}
	cl.buckets = b
}

// takeLean returns the lean state of a fill, with fit and explicit bit
// sets of words words: one a class gave back (dropBuckets) when there is
// one, its explicit nodes empty. Its fit set's words, like its other
// buffers, were written recently, so they are in the cache, where a new
// one's are not; their contents are stale (fitWords writes every word,
// fillLean sets the rest).
func (s *Solver) takeLean(words int) *leanState {
	if k := len(s.leanFree); k > 0 {
		ln := s.leanFree[k-1]
		s.leanFree = s.leanFree[:k-1]
		if cap(ln.fit) >= words {
			ln.fit = ln.fit[:words]
		} else {
			ln.fit = make([]uint64, words)
		}
		if cap(ln.exBits) >= words {
			ln.exBits = ln.exBits[:words] // cleared by dropBuckets
		} else {
			ln.exBits = make([]uint64, words)
		}
		return ln
	}
	return &leanState{fit: make([]uint64, words), exBits: make([]uint64, words)}
}

// dropBuckets takes back what cl's lean buckets hold that later fills
// reuse, their lean state (takeLean), bucket list and heaps (newBuckets,
// newBucket), when cl's buckets are about to be dropped or made again:
// nothing reads them after. The heaps of other buckets are cut from one
// array (fillBuckets) and stay where they are.
func (s *Solver) dropBuckets(cl *class) {
	b := cl.buckets
	if b == nil || !b.lean {
		return
	}
	if ln := b.ln; ln != nil && len(s.leanFree) < maxFreeLeans {
		ln.explicit.reset(2 * maxFreeExplicit)
		clear(ln.exBits)
		s.leanFree = append(s.leanFree, ln)
	}
	b.ln = nil
	for i := range b.list {
		if h := b.list[i].heap; cap(h) > 0 && cap(h) <= maxFreeHeapCap && len(s.heapFree) < maxFreeHeaps {
			s.heapFree = append(s.heapFree, h[:0])
		}
		b.list[i].heap = nil
	}
	if cap(b.list) <= maxFreeListCap && len(s.listFree) < maxFreeLists {
		s.listFree = append(s.listFree, b.list[:0])
	}
	b.list = nil
}

// What dropBuckets keeps for reuse at most: lean states and the nodes of
// one's explicit table, heaps and the entries of one, bucket lists and the
// buckets of one (larger ones are rare and would hold memory).
const (
	maxFreeLeans    = 4
	maxFreeExplicit = 1 << 14
	maxFreeHeaps    = 1024
	maxFreeHeapCap  = 1024
	maxFreeLists    = 16
	maxFreeListCap  = 1024
)

// segBufs returns n segment buffers (for classSegs), kept across scans.
func (s *Solver) segBufs(n int) [][]shapeSeg {
	for len(s.segBuf) < n {
		s.segBuf = append(s.segBuf, nil)
	}
	return s.segBuf[:n]
}

// mergeTops merges the workers' best entries of slot into the first
// worker's, and empties the others'.
func mergeTops(ws []scanner, slot, keep int) *topK {
	m := &ws[0].doms[slot]
	for i := 1; i < len(ws); i++ {
		t := &ws[i].doms[slot]
		for _, e := range t.heap {
			m.offer(e, keep)
		}
		if t.truncated {
			m.drop(t.cut)
		}
		t.reset()
	}
	return m
}

// runScan is which nodes of a run order scanRuns offers, and the
// class's shape shares.
type runScan struct {
	// fit holds the nodes that fit, less those of np (a lean class's
	// nodes that are not bare); elig, when not nil, the nodes the class's
	// soft constraints do not ignore, offered when ig is false (the
	// others when true).
	fit, np, elig []uint64
	ig            bool
	// lazy: fit holds the feasible nodes, whether they fit or not, and a
	// node is tested (fitMask with room) once its bound may enter. A node
	// passed over on its bound may then not fit: the cut it leaves may be
	// above every node left out, which costs an early build, not a wrong
	// choice.
	lazy   bool
	room   roomTest
	shares []shapeShare
}

// scanRuns offers to t the nodes sc admits (a lean class's fitting bare
// nodes of bare slot slot, see bareBucket) in the runs of o that worker w
// of the len(ws) workers takes (every len(ws)-th) and cl's group finds
// feasible nodes in (feasibleRuns, made before), segs holding the slot's
// shape segments (classSegs), taken in passes by their runs' tail bounds
// (runs.go). A run whose bound cannot enter t is
// passed over (runs.go); in the others a node whose shape bound cannot
// enter t costs a few loads and a compare. What cannot enter is judged
// against the better of t's worst kept entry and the other workers'
// (their bar, read at each run): an entry below another worker's full
// heap cannot be among the slot's best, and its bound is dropped into t's
// cut as when t's own heap leaves it out.
func (s *Solver) scanRuns(cl *class, sc *runScan, o *nodeOrder, segs []shapeSeg, slot int, ws []scanner, keep, w int) {
	t, k := &ws[w].doms[slot], len(ws)
	fit, np, elig, ig, lazy, shares := sc.fit, sc.np, sc.elig, sc.ig, sc.lazy, sc.shares
	// The static scores: the same on every node, or TaintToleration's
	// alone varying (most classes), or all three.
	stConst := cl.g.rawTT == nil && cl.g.rawNA == nil && !cl.hasImg
	ttOnly := cl.g.rawNA == nil && !cl.hasImg
	st, stMax := cl.ttScore[0]+cl.naScore[0], staticMax(cl)
	// A node outside the bitsets of nonzero raw values and image scores
	// scores st: its columns, read at random here, are not read.
	rawTT, ttTab, na0 := cl.rawTT, cl.ttScore, cl.naScore[0]
	ttNZ, naNZ, imgNZ := cl.g.ttNZ, cl.g.naNZ, cl.imgNZ
	recs, ties, scores, gen, feas := o.recs, o.ties, o.scores, s.c.Gen, cl.g.runs
	// A cursor per segment, and passes over them (runs.go): each takes
	// from every segment the runs whose tails bound at least level, the
	// best tail bound left less levelStep.
	curs := ws[w].curs[:0]
	for _, sg := range segs {
		if c := newSegCursor(sg, feas, k, w); c.next >= 0 {
			curs = append(curs, c)
		}
	}
	top := int64(math.MinInt64)
	for i := range curs {
		top = max(top, runUpper(&o.tail[curs[i].next], shares)+stMax)
	}
	for len(curs) > 0 {
		level, next := top-levelStep, int64(math.MinInt64)
		for ci := range curs {
			c := &curs[ci]
			for c.next >= 0 {
				j := c.next
				bar := peersBar(ws, slot, w)
				thr, full := t.limit(keep, bar)
				tb := runUpper(&o.tail[j], shares) + stMax
				if full && tb < thr.score {
					// No run left in the segment can enter: leave it.
					if !t.truncated || tb >= t.cut.score {
						t.drop(entry{score: tb, tie: math.MaxUint32})
					}
					c.next = -1
					break
				}
				if tb < level {
					next = max(next, tb)
					break // until a later pass
				}
				c.advance(feas, k)
				r := &o.runs[j]
				var rb int64 // the run's bound
				if full {
					var pass bool
					if rb, pass = s.passOver(o, r, shares, stMax, t, thr.score); pass {
						continue
					}
				} else {
					rb = runUpper(r, shares) + stMax
				}
				// A run's nodes are in tie order (runs.go) and score at most
				// rb: from the first whose tie is below leave, none can enter.
				leave := leaveBelow(rb, full, &thr)
				for p := r.start; p < r.start+int32(r.n); p++ {
					if uint64(ties[p]) < leave {
						t.drop(entry{score: rb, tie: ties[p]})
						break
					}
					n := o.nodes[p]
					wi, bit := n>>6, uint64(1)<<(n&63)
					if fit[wi]&^np[wi]&bit == 0 || elig != nil && (elig[wi]&bit == 0) != ig {
						continue
					}
					rec := recs[p]
					k := &shares[rec.shape]
					ub := k.fitBound(rec) + k.balBound(rec) // shapeUpper
					// First with the most the static scores can be: most
					// nodes go without reading their columns (a cache miss).
					if full && ub+stMax < thr.score {
						if !t.truncated || ub+stMax >= t.cut.score {
							t.drop(entry{score: ub + stMax, tie: ties[p], node: n})
						}
						continue
					}
					sn := st
					switch {
					case stConst:
					case ttOnly:
						if ttNZ[wi]&bit != 0 {
							sn = ttTab[rawTT[n]] + na0
						}
					default:
						if staticNZ(ttNZ, naNZ, imgNZ, wi)&bit != 0 {
							sn = cl.staticScore(n)
						}
					}
					if ub += sn; full && ub <= thr.score {
						// Out unless a bound equal to the worst kept entry
						// wins its tie-break. A pruned node only raises t's
						// cut when it may beat it.
						if ub < thr.score {
							if !t.truncated || ub >= t.cut.score {
								t.drop(entry{score: ub, tie: ties[p], node: n})
							}
							continue
						}
						if e := (entry{score: ub, tie: ties[p], node: n}); !better(&e, &thr) {
							t.drop(e)
							continue
						}
					}
					if lazy && s.fitMask(cl, &sc.room, int(wi), bit) == 0 {
						continue
					}
					e := entry{score: s.recDynamic(cl, &scores[p]) + sn, tie: ties[p], node: n, gen: gen[n]}
					if full && !better(&e, &thr) {
						t.drop(e)
						continue
					}
					t.offer(e, keep)
					t.publish(keep, &ws[w].pubs[slot])
					thr, full = t.limit(keep, bar)
					leave = leaveBelow(rb, full, &thr)
				}
			}
		}
		curs = slices.DeleteFunc(curs, func(c segCursor) bool { return c.next < 0 })
		top = next
	}
	ws[w].curs = curs
}

// levelStep is how far below the best tail bound left a pass of scanRuns
// takes runs, in points. Smaller steps make more passes and may test
// fewer nodes: on the realistic 100,000-node export, steps of 2 and 4
// tested 131.7 and 132.1 million nodes, and a realistic 10,000-node solve
// ran 0.4% fewer instructions with steps of 2 than of 4 (and, before
// pools, 0.6% more with steps of 1 than of 2).
const levelStep = 2

// segCursor walks the feasible runs of a shape segment that one worker
// takes (every k-th, from its turn).
type segCursor struct {
	fw, hi int32  // the word of the feasible runs holding next, the segment's end
	word   uint64 // the word's runs after next
	turn   int
	next   int32 // the next run the worker takes, -1 when none is left
}

// newSegCursor starts a cursor on segment sg at the first run worker w of
// k takes.
func newSegCursor(sg shapeSeg, feas []uint64, k, w int) segCursor {
	c := segCursor{fw: sg.lo >> 6, hi: sg.hi, turn: k - 1 - w, next: -1}
	if sg.lo >= sg.hi {
		return c
	}
	c.load(feas)
	c.word &= ^uint64(0) << (sg.lo & 63)
	c.advance(feas, k)
	return c
}

// load sets c's word to word fw of feas, less the runs past the segment.
func (c *segCursor) load(feas []uint64) {
	c.word = feas[c.fw]
	if (c.fw+1)<<6 > c.hi {
		c.word &= 1<<(c.hi&63) - 1
	}
}

// advance moves c to the worker's next run of the segment (next -1 when
// none is left); k is the number of workers.
func (c *segCursor) advance(feas []uint64, k int) {
	for {
		for c.word != 0 {
			b := bits.TrailingZeros64(c.word)
			c.word &= c.word - 1
			if c.turn++; c.turn < k {
				continue
			}
			c.turn = 0
			c.next = c.fw<<6 + int32(b)
			return
		}
		if c.fw++; c.fw<<6 >= c.hi {
			c.next = -1
			return
		}
		c.load(feas)
	}
}

// staticNZ returns word wi of the union of the bitsets (nil ones are
// empty): the nodes whose static scores may differ from a node's with
// every raw value and image score 0.
func staticNZ(ttNZ, naNZ, imgNZ []uint64, wi index.NodeID) uint64 {
	var w uint64
	if ttNZ != nil {
		w = ttNZ[wi]
	}
	if naNZ != nil {
		w |= naNZ[wi]
	}
	if imgNZ != nil {
		w |= imgNZ[wi]
	}
	return w
}

// peersBar returns the best worst kept entry of slot among the workers
// other than w whose heaps are full (see topK.publish), 0 when none.
func peersBar(ws []scanner, slot, w int) uint64 {
	var bar uint64
	for i := range ws {
		if i != w {
			bar = max(bar, ws[i].pubs[slot].v.Load())
		}
	}
	return bar
}

// pubSlot holds a worker's published worst kept entry (topK.publish) on a
// cache line of its own: the other workers read it at every run, and on
// the line of the topK, which its worker writes at every node it drops,
// each read was a miss for the reader and then for the writer.
type pubSlot struct {
	v atomic.Uint64
	_ [56]byte
}

// barSlots makes w's per-slot heaps and published bars at least n long.
func (w *scanner) barSlots(n int) {
	for len(w.doms) < n {
		w.doms = append(w.doms, topK{})
	}
	for len(w.pubs) < n {
		w.pubs = append(w.pubs, pubSlot{})
	}
}

// resetBarSlot empties w's heap of slot and its published bar.
func (w *scanner) resetBarSlot(slot int) {
	w.doms[slot].reset()
	w.pubs[slot].v.Store(0)
}

// leaveBelow returns the ties below which an entry scoring at most ub
// cannot pass thr, when full (see scanRuns): none (0) while not full or
// thr scores below ub, thr's tie when it scores ub, and every tie
// (1 << 32) when it scores above.
func leaveBelow(ub int64, full bool, thr *entry) uint64 {
	switch {
	case !full || ub > thr.score:
		return 0
	case ub < thr.score:
		return 1 << 32
	}
	return uint64(thr.tie)
}

// passOver reports whether run r cannot enter t, whose entries must beat
// thr (a score), and returns the run's bound; a run passed over records
// its bound as left out.
func (s *Solver) passOver(o *nodeOrder, r *nodeRun, sh []shapeShare, stMax int64, t *topK, thr int64) (int64, bool) {
	ub := runUpper(r, sh) + stMax
	if ub >= thr && r.stale {
		r.takeMaxima(o)
		ub = runUpper(r, sh) + stMax
	}
	if ub >= thr {
		return ub, false
	}
	// The best entry a node of the run could have at ub.
	if !t.truncated || ub >= t.cut.score {
		t.drop(entry{score: ub, tie: math.MaxUint32})
	}
	return ub, true
}

// eligibleOf returns the nodes cl's soft constraints do not ignore, nil
// when they ignore none.
func eligibleOf(cl *class) []uint64 {
	if rc := cl.rel; len(rc.soft) > 0 && rc.requireAll && rc.softElig != nil {
		return rc.softElig
	}
	return nil
}

// fitWords sets fit's words [lo, hi) to the feasible nodes that fit cl
// now (fitMask).
func (s *Solver) fitWords(cl *class, fit []uint64, lo, hi int) {
	rt := s.roomTestOf(cl)
	for wi := lo; wi < hi; wi++ {
		fit[wi] = s.fitMask(cl, &rt, wi, cl.g.dense[wi])
	}
}

// roomTest is the room level bitsets that fitMask reads for a class.
type roomTest struct {
	cpu, mem             []uint64 // the nodes that may have room (roomLevels.of)
	enoughCPU, enoughMem []uint64 // that certainly have (roomLevels.atLeast), or nil
}

// roomTestOf returns cl's room test. The class's floors must be made
// (classFloors).
func (s *Solver) roomTestOf(cl *class) roomTest {
	var rt roomTest
	rt.cpu, rt.mem = s.room.of(cl)
	rt.enoughCPU, rt.enoughMem = s.room.atLeast(cl.needCPU, &s.room.cpu), s.room.atLeast(cl.needMem, &s.room.mem)
	return rt
}

// fitMask returns the nodes of word wi in x that fit cl now: fits, decided
// by word where the room levels decide it. A node outside the levels
// holding cl's requests, or outside one of its floors, does not fit; one
// whose free cpu and memory both reach the level past the requests
// (roomLevels.atLeast) fits the class's cpu, memory and pod count (the
// levels hold only nodes with a pod slot left), so only the class's other
// resources and host ports are tested there (fitsExtra); the other nodes
// with room are tested in full.
func (s *Solver) fitMask(cl *class, rt *roomTest, wi int, x uint64) uint64 {
	cand := x & rt.cpu[wi] & rt.mem[wi]
	for _, f := range cl.floors {
		cand &= f[wi]
	}
	if cand == 0 {
		return 0
	}
	var enough, f uint64
	if rt.enoughCPU != nil && rt.enoughMem != nil {
		enough = cand & rt.enoughCPU[wi] & rt.enoughMem[wi]
		f = enough
		if cl.fullFit {
			f = s.fitsExtra(cl, wi, enough)
		}
	}
	for y := cand &^ enough; y != 0; y &= y - 1 {
		if n := index.NodeID(wi*64 + bits.TrailingZeros64(y)); s.fits(n, cl) {
			f |= 1 << (n & 63)
		}
	}
	return f
}

// classFloors sets cl.floors, once: allocFloor's node set for each of
// its other requests that some node's allocatable is below.
func (s *Solver) classFloors(cl *class) {
	if cl.floorsMade {
		return
	}
	cl.floorsMade = true
	for _, rv := range cl.extra {
		if f := s.allocFloor(rv); f != nil {
			cl.floors = append(cl.floors, f)
		}
	}
}

// allocFloor returns the nodes whose allocatable rv.Res takes rv.Val
// with nothing requested there, one bit per node, nil when every node's
// does. A node outside it fits no pod requesting rv (what a node has
// requested only lowers what is left: rules.Fits); a GPU or device
// request excludes most nodes at once, before any node is tested.
// Allocatable does not change, so each is made once per solver.
func (s *Solver) allocFloor(rv index.ResVal) []uint64 {
	if f, ok := s.allocFloors[rv]; ok {
		return f
	}
	alloc := s.c.Alloc[rv.Res]
	f := make([]uint64, (len(alloc)+63)/64)
	all := true
	for n, a := range alloc {
		if rules.Fits(0, rv.Val, a) {
			f[n>>6] |= 1 << (n & 63)
		} else {
			all = false
		}
	}
	if all {
		f = nil
	}
	if s.allocFloors == nil {
		s.allocFloors = map[index.ResVal][]uint64{}
	}
	s.allocFloors[rv] = f
	return f
}

// bareSlots is how countBare counts a class's bare slots: by word
// (byWord: the domains are few), slot ig*domains+pd holding the nodes of
// domain pd (0: lacking the key) that the class's soft constraints ignore
// (ig 1) or not (0); else node by node.
type bareSlots struct {
	byWord  bool
	domains int
	masks   [][]uint64 // per domain, nil for one domain
	elig    []uint64   // eligibleOf
}

// bareSlotsOf returns how countBare counts cl's bare slots in b.
func (s *Solver) bareSlotsOf(cl *class, b *buckets) bareSlots {
	sl := bareSlots{domains: len(b.ln.bareOf[0]), elig: eligibleOf(cl)}
	switch {
	case b.topo == nil:
		sl.byWord = true
	case len(b.topo.Size) < maxMaskDomains:
		sl.byWord, sl.masks = true, s.domainMasks(b.topo)
	}
	return sl
}

// count counts the fitting bare nodes (fit less np) of words [lo, hi) into
// cnt, one entry per slot, each word split among the domains.
func (sl *bareSlots) count(fit, np []uint64, lo, hi int, cnt []bareCount) []bareCount {
	cnt = cnt[:0]
	for range 2 * sl.domains {
		cnt = append(cnt, bareCount{first: -1})
	}
	domains := sl.domains
	for wi := lo; wi < hi; wi++ {
		x := fit[wi] &^ np[wi]
		if x == 0 {
			continue
		}
		e := ^uint64(0)
		if sl.elig != nil {
			e = sl.elig[wi]
		}
		for pd := 0; x != 0 && pd < domains; pd++ {
			y := x
			if sl.masks != nil {
				y &= sl.masks[pd][wi]
			}
			x &^= y
			if z := y & e; z != 0 {
				cnt[pd].add(wi, z)
			}
			if z := y &^ e; z != 0 {
				cnt[domains+pd].add(wi, z)
			}
		}
	}
	return cnt
}

// countBare makes the bare buckets that hold fitting bare nodes (fit less
// np) and sets their members: by word from the counts of the workers ws
// (bareSlots.count over their words, in order), or node by node.
func (s *Solver) countBare(cl *class, b *buckets, np []uint64, sl bareSlots, ws []scanner) {
	if !sl.byWord {
		for wi, word := range b.ln.fit {
			for x := word &^ np[wi]; x != 0; x &= x - 1 {
				_, id := s.bareBucket(cl, b, index.NodeID(wi*64+bits.TrailingZeros64(x)))
				b.list[id].members++
			}
		}
		return
	}
	cnt := ws[0].bare
	for i := 1; i < len(ws); i++ {
		for j, c := range ws[i].bare {
			if cnt[j].first < 0 {
				cnt[j].first = c.first
			}
			cnt[j].members += c.members
		}
	}
	for pd := range sl.domains {
		for ig := range 2 {
			if c := cnt[ig*sl.domains+pd]; c.members > 0 {
				_, id := s.bareBucket(cl, b, index.NodeID(c.first))
				b.list[id].members = c.members
			}
		}
	}
}

// bareCount is countBare's count of a bare slot: its fitting nodes, and
// the first of them.
type bareCount struct {
	members int
	first   int
}

// add counts the nodes of bits x of word wi.
func (c *bareCount) add(wi int, x uint64) {
	if c.first < 0 {
		c.first = wi*64 + bits.TrailingZeros64(x)
	}
	c.members += bits.OnesCount64(x)
}

// maxMaskDomains bounds the domains countBare counts word by word.
const maxMaskDomains = 64

// domainMasks returns a bitset per domain of t, those lacking the key
// first, made once per topology.
func (s *Solver) domainMasks(t *index.Topology) [][]uint64 {
	if m, ok := s.domMasks[t]; ok {
		return m
	}
	words := (s.c.NumNodes() + 63) / 64
	m := make([][]uint64, len(t.Size)+1)
	for i := range m {
		m[i] = make([]uint64, words)
	}
	for n, d := range t.Of {
		m[d+1][n>>6] |= 1 << (n & 63)
	}
	if s.domMasks == nil {
		s.domMasks = map[*index.Topology][][]uint64{}
	}
	s.domMasks[t] = m
	return m
}

// nonBare returns a bitset of the nodes that are not bare for b: those
// lacking the key of a per-node dimension, or with a count above 0 there,
// found through the counters' nonzero lists. The bitset is scratch, valid
// until the next call.
func (s *Solver) nonBare(b *buckets, words int) []uint64 {
	np := s.npBuf[:0]
	np = append(np, make([]uint64, words)...)
	s.npBuf = np
	for i := range b.dims {
		dm := &b.dims[i]
		if !dm.perNode && !dm.hostname {
			continue
		}
		k := dm.ctr
		var has []uint64
		if dm.hostname {
			has = s.hostnameNodes()
		} else {
			has = s.keyNodes(k.topo.Key)
		}
		for w := range np {
			np[w] |= ^has[w]
		}
		// A hostname dimension counts per node (its domains are the
		// nodes); a per-node topology has one node per domain.
		node := func(d int32) (index.NodeID, bool) {
			if dm.hostname {
				return index.NodeID(d), true
			}
			if m := k.topo.Members(d); len(m) > 0 {
				return m[0], true
			}
			return 0, false
		}
		if k.nzLost {
			for pi, pg := range k.counts.pages {
				if pg == k.pool.zeroPg {
					continue
				}
				for j, v := range pg {
					if v == 0 {
						continue
					}
					if n, ok := node(int32(pi<<countShift + j)); ok {
						np[n>>6] |= 1 << (n & 63)
					}
				}
			}
			continue
		}
		for _, d := range k.nz {
			if n, ok := node(d); k.counts.at(d) != 0 && ok {
				np[n>>6] |= 1 << (n & 63)
			}
		}
	}
	return np
}

// keyNodes returns the nodes carrying key as a bitset, made once per key.
func (s *Solver) keyNodes(key string) []uint64 {
	if bs, ok := s.keyBits[key]; ok {
		return bs
	}
	if s.keyBits == nil {
		s.keyBits = map[string][]uint64{}
	}
	bs := s.keysNodes([]string{key})
	s.keyBits[key] = bs
	return bs
}

// fromTop makes bare bucket bk's heap from the best entries t kept.
func (bk *bucket) fromTop(t *topK) {
	bk.heap = append(bk.heap[:0], t.heap...)
	bk.heap.init()
	bk.cut, bk.truncated = t.cut, t.truncated
	t.reset()
}

// count adds sign to the raw value counts of fitting node n.
func (ln *leanState) count(cl *class, n index.NodeID, sign int32) {
	if ln.ttHist != nil {
		ln.ttHist[cl.g.rawTT[n]] += sign
	}
	if ln.naHist != nil {
		ln.naHist[cl.g.rawNA[n]] += sign
	}
}

// countRaw returns h holding the fitting nodes of words [lo, hi) per raw
// value of a group's column raw, size values (none when size is 0). The maxima read
// the counts of values above 0 alone, so only the nodes of nz (few: most
// nodes have neither value) are looked at.
func countRaw(fit []uint64, raw []int32, nz []uint64, lo, hi, size int, h []int32) []int32 {
	if size == 0 {
		return h[:0]
	}
	h = slices.Grow(h[:0], size)[:size]
	clear(h)
	for wi := lo; wi < hi; wi++ {
		for x := fit[wi] & nz[wi]; x != 0; x &= x - 1 {
			h[raw[wi*64+bits.TrailingZeros64(x)]]++
		}
	}
	return h
}

// leanMaxima sets cl's normalisation maxima (and score tables) from the
// raw value counts, as prepareStatic does from a scan, and reports whether
// they moved from those b's entries were scored with.
func (s *Solver) leanMaxima(cl *class, b *buckets) bool {
	ln := b.ln
	top := func(h []int32) int64 {
		for v := len(h) - 1; v > 0; v-- {
			if h[v] > 0 {
				return int64(v)
			}
		}
		return 0
	}
	g := cl.g
	cl.rawTT, cl.rawNA = s.orZeros(g.rawTT), s.orZeros(g.rawNA)
	if cl.img == nil {
		s.classImages(cl)
	}
	tt, na := top(ln.ttHist), top(ln.naHist)
	if tt != cl.ttMax || na != cl.naMax || cl.ttScore == nil {
		cl.ttMax, cl.naMax = tt, na
		cl.ttScore = scoreTable(cl.ttScore, int64(g.ttTop), tt, weightTaint, true)
		cl.naScore = scoreTable(cl.naScore, int64(g.naTop), na, weightNodeAffinity, false)
	}
	moved := tt != b.ttMax || na != b.naMax
	b.ttMax, b.naMax = tt, na
	return moved
}

// syncLean replays the node changes since lean class cl's buckets last saw
// them, or refills them when that costs more or the maxima moved.
func (s *Solver) syncLean(cl *class) {
	b := cl.buckets
	c := s.c
	if len(c.Changes)-b.cursor > cl.g.feasCard {
		s.fillBuckets(cl)
		return
	}
	ln := b.ln
	dense := cl.g.dense
	changes := c.Changes[b.cursor:]
	b.cursor = len(c.Changes)
	// The nodes changed since (each once: its last change), whether the
	// class fits on each now and whether it is bare.
	nodes := s.syncNodes[:0]
	for _, ch := range changes {
		if n := ch.Node; ch.Gen == c.Gen[n] && dense[n>>6]&(1<<(n&63)) != 0 {
			nodes = append(nodes, n)
		}
	}
	s.syncNodes = nodes
	state := s.syncState(cl, b, nodes)
	// First the fit bits and counts: the maxima decide the scores. A bare
	// node that fitted and still does stays in its bucket (a bare node's
	// bucket is its domain's) and in the counts (its raw values are
	// static): it only needs its new entry (syncKept).
	for i, n := range nodes {
		bit := uint64(1) << (n & 63)
		if ln.fit[n>>6]&bit != 0 {
			id, ok := ln.takeExplicit(n)
			if !ok && state[i]&syncBare != 0 {
				state[i] |= syncKept
				continue
			}
			ln.count(cl, n, -1)
			if !ok {
				_, id = s.bareBucket(cl, b, n)
			}
			b.list[id].members--
			ln.fit[n>>6] &^= bit
		}
		if state[i]&syncFits != 0 {
			ln.fit[n>>6] |= bit
			ln.count(cl, n, 1)
		}
	}
	if s.leanMaxima(cl, b) {
		s.fillBuckets(cl)
		return
	}
	var shares []shapeShare // made for the first bare node that may stay out
	var stMax int64         // and the most cl's static scores can be
	for i, n := range nodes {
		if state[i]&syncFits == 0 || ln.fit[n>>6]&(1<<(n&63)) == 0 {
			continue
		}
		id := int32(0)
		// A kept node is counted in its bucket's members already.
		joins := 1
		if state[i]&syncKept != 0 {
			joins = 0
		}
		if state[i]&syncBare != 0 {
			_, id = s.bareBucket(cl, b, n)
			// A node whose shape bound does not beat a truncated bare
			// bucket's cut stays out unscored: the cut bounds it, and a
			// refill finds it when the bucket's entries fall below it.
			// First with the most the static scores can be: their
			// columns are read at random.
			if bk := &b.list[id]; bk.truncated {
				if shares == nil {
					shares, stMax = s.shapeShares(cl), staticMax(cl)
				}
				su := shapeUpper(s.fitRecs[n], shares)
				if ub := (entry{score: su + stMax, tie: s.ties[n], node: n}); !better(&ub, &bk.cut) {
					bk.members += joins
					continue
				}
				if ub := (entry{score: su + cl.staticScore(n), tie: s.ties[n], node: n}); !better(&ub, &bk.cut) {
					bk.members += joins
					continue
				}
			}
		} else {
			id = s.bucketOf(cl, b, n)
			ln.setExplicit(n, id)
		}
		b.list[id].heap.push(entry{score: s.score(cl, n), tie: s.hot[n].tie, node: n, gen: c.Gen[n]})
		b.list[id].members += joins
	}
}

// Per-node flags of a lean sync (syncState).
const (
	syncFits uint8 = 1 << iota // the class fits on the node now
	syncBare                   // and the node is bare for its buckets
	syncKept                   // and was, fitting, in the same bucket
)

// minParallelSync is the changed nodes below which a lean sync tests
// them on one goroutine.
const minParallelSync = 512

// syncState returns, per node of nodes, whether cl fits there now and
// whether the node is bare for b: tests that read the cluster and the
// counters alone, on every processor when the nodes are many.
func (s *Solver) syncState(cl *class, b *buckets, nodes []index.NodeID) []uint8 {
	st := slices.Grow(s.syncFlags[:0], len(nodes))[:len(nodes)]
	s.syncFlags = st
	for i := range b.dims {
		if b.dims[i].hostname {
			s.hostnameNodes() // made before the workers read it
		}
	}
	// Many nodes read the bare test from a bitset of the nodes that are
	// not, when it costs less to make: its counts, read node by node,
	// are scattered pages, and nonBare reads one per nonzero count.
	var np []uint64
	if nz, ok := s.nonzeroListed(b); ok && len(nodes) >= s.minBareBits()+2*nz {
		np = s.nonBare(b, len(b.ln.fit))
	}
	if k := s.procCount(); k > 1 && len(nodes) >= s.minParallelSync() {
		s.parallelSyncs++
		s.eachWorker(k, func(w int) { s.syncTest(cl, b, nodes, st, np, len(nodes)*w/k, len(nodes)*(w+1)/k) })
	} else {
		s.syncTest(cl, b, nodes, st, np, 0, len(nodes))
	}
	return st
}

// minBareBits is the changed nodes, past twice the nonzero counts of its
// per-node dimensions, from which a lean sync reads which are bare from
// nonBare's bitset.
const minBareBits = 64

// minBareBits returns minBareBits, or the tests' own.
func (s *Solver) minBareBits() int {
	if m := s.cfg.sw.minBareBits; m > 0 {
		return m
	}
	return minBareBits
}

// nonzeroListed reports whether every per-node dimension of b lists its
// nonzero counts, so that nonBare does not read all their pages, and
// returns how many they list.
func (s *Solver) nonzeroListed(b *buckets) (int, bool) {
	nz := 0
	for i := range b.dims {
		if dm := &b.dims[i]; dm.perNode || dm.hostname {
			if dm.ctr.nzLost {
				return 0, false
			}
			nz += len(dm.ctr.nz)
		}
	}
	return nz, true
}

// syncTest sets st[lo:hi] for nodes[lo:hi] (see syncState); np, when not
// nil, holds the nodes that are not bare (nonBare).
func (s *Solver) syncTest(cl *class, b *buckets, nodes []index.NodeID, st []uint8, np []uint64, lo, hi int) {
	for i := lo; i < hi; i++ {
		var f uint8
		if n := nodes[i]; s.fits(n, cl) {
			f = syncFits
			if np != nil && np[n>>6]&(1<<(n&63)) == 0 || np == nil && s.isBare(b, n) {
				f |= syncBare
			}
		}
		st[i] = f
	}
}

// minParallelSync returns minParallelSync, or the tests' own.
func (s *Solver) minParallelSync() int {
	if m := s.cfg.sw.minParallelSync; m > 0 {
		return m
	}
	return minParallelSync
}

// liveBare drops the stale entries on top of bare bucket id and, when
// its entries ran out while its cut may hold its best node, rescans its
// domain; false when it holds no fitting node.
func (s *Solver) liveBare(cl *class, b *buckets, id int32) bool {
	bk := &b.list[id]
	gen := s.c.Gen
	h := &bk.heap
	for len(*h) > 0 && (*h)[0].gen != gen[(*h)[0].node] {
		h.pop()
	}
	if bk.truncated && (len(*h) == 0 || better(&bk.cut, &(*h)[0])) {
		s.refillBare(cl, b, id)
	}
	return len(bk.heap) > 0
}

// refillBare rescans bare bucket id's domain for its best entries.
func (s *Solver) refillBare(cl *class, b *buckets, id int32) {
	s.bareRefills++
	ln := b.ln
	bk := &b.list[id]
	slot := int(bk.bare - 1)
	if bk.ignored {
		slot += len(ln.bareOf[0])
	}
	// Of the fitting nodes, those not bare are the explicit ones: the
	// class's last sync (every count change is a node change) filed them.
	np := ln.exBits
	keep := domKeep(max(cl.pods, 16), len(ln.bareOf[0]))
	ws := s.scanners(bk.members)
	for i := range ws {
		ws[i].barSlots(slot + 1)
		ws[i].resetBarSlot(slot)
	}
	shares := s.shapeShares(cl)
	o := s.orderFor(b.topo)
	feas := s.feasibleRuns(cl.g, o)
	segs := s.segBufs(1)
	segs[0] = classSegs(o, slot%len(ln.bareOf[0]), shares, feas, segs[0])
	sc := runScan{fit: ln.fit, np: np, elig: eligibleOf(cl), ig: bk.ignored, shares: shares}
	s.eachWorker(len(ws), func(i int) {
		s.scanRuns(cl, &sc, o, segs[0], slot, ws, keep, i)
	})
	bk.fromTop(mergeTops(ws, slot, keep))
	if chk := s.cfg.sw.checkBare; chk != nil {
		chk(s, cl, b, id, keep)
	}
}
