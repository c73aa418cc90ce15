package solver

import (
	"math"
	"math/bits"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Domain-split heaps.
//
// A class with a DoNotSchedule spread constraint over a few large domains
// (zones, say) would, with one heap, see most of its best nodes fail that
// constraint whenever their domain is ahead: each would be parked one by
// one and pushed back, one by one, when the constraint's minimum rises,
// which costs O(nodes) per round of placements. Instead, such a class keeps
// one heap per domain of that constraint (its primary) and a heap of the
// domains ordered by their best entry. The primary is checked once per
// domain: a domain that fails it is set aside as a whole until the
// constraint relaxes. Each domain heap is cut to the class's pods like the
// single heap, with its own cut, and a domain whose cut may hold its best
// node is rebuilt alone, from the domain's nodes. The other pod-relative
// filters still park single entries.

// topK keeps the best entries offered, up to a limit, with the best entry
// dropped (valid when truncated).
type topK struct {
	heap      []entry // min-heap of the best entries seen, worst on top
	cut       entry
	truncated bool
	// pub is the worst kept entry's score and tie-break (score<<32 | tie)
	// last published (publish), 0 before.
	pub uint64
}

func (t *topK) reset() {
	t.heap = t.heap[:0]
	t.truncated = false
	t.pub = 0
}

// publish stores in out, for the other workers of a split scan, the worst
// kept entry's score and tie-break (score<<32 | tie) once the heap holds
// keep entries (a score outside 0..2^31 is not published); they read it
// as a bar (scanRuns).
func (t *topK) publish(keep int, out *pubSlot) {
	if len(t.heap) < keep {
		return
	}
	if h := &t.heap[0]; h.score >= 0 && h.score < 1<<31 {
		if p := uint64(h.score)<<32 | uint64(h.tie); p != t.pub {
			t.pub = p
			out.v.Store(p)
		}
	}
}

// limit returns the entry an entry must beat to enter t, a heap of keep
// entries, given bar, another worker's published worst kept entry (0:
// none): the better of the two, and false while there is neither. bar
// stands for an entry of the worst node id, so an entry of its score and
// tie-break still passes.
func (t *topK) limit(keep int, bar uint64) (entry, bool) {
	own := len(t.heap) == keep
	if bar == 0 {
		if own {
			return t.heap[0], true
		}
		return entry{}, false
	}
	b := entry{score: int64(bar >> 32), tie: uint32(bar), node: math.MaxUint32}
	if own && !better(&b, &t.heap[0]) {
		return t.heap[0], true
	}
	return b, true
}

// offer keeps e if it is among the best keep entries seen.
func (t *topK) offer(e entry, keep int) {
	h := t.heap
	if len(h) < keep {
		h = append(h, e)
		if len(h) == keep {
			minHeapInit(h)
		}
		t.heap = h
		return
	}
	if better(&e, &h[0]) {
		e, h[0] = h[0], e
		minHeapDown(h, 0)
	}
	t.drop(e)
}

// drop records e as left out.
func (t *topK) drop(e entry) {
	if !t.truncated || better(&e, &t.cut) {
		t.cut = e
	}
	t.truncated = true
}

// skip reports whether a node with upper bound ub cannot enter t, a full
// heap of keep entries, and records the bound as left out if so.
func (t *topK) skip(ub int64, tie uint32, n index.NodeID, keep int) bool {
	if len(t.heap) < keep {
		return false
	}
	thr := &t.heap[0]
	if ub > thr.score {
		return false
	}
	e := entry{score: ub, tie: tie, node: n}
	if ub == thr.score && better(&e, thr) {
		return false
	}
	t.drop(e)
	return true
}

// domSplit is a class's per-domain heaps (see above).
type domSplit struct {
	j    int      // the primary's index in relClass.hard and relClass.deps
	ctr  *counter // the primary's counter
	topo *index.Topology
	// Per domain: the max-heap of entries, its cut and whether it is
	// truncated.
	heaps []nodeHeap
	cut   []entry
	trunc []bool
	// top is a max-heap of the domains holding an entry or a cut, by their
	// best (key); pos[d] is d's place in it, -1 when absent.
	top []domSlot
	pos []int32
	// aside lists the domains that failed the primary, back in top when
	// the counter's relax count moves from seen.
	aside   []int32
	isAside []bool
	seen    uint32
	entries int // entries in all domain heaps, stale ones included
	// A lazy domain still has its entries in tmpl, the template the class
	// was built from: they are taken when the domain first reaches the top
	// (materialize), so a build costs the domains the class uses.
	tmpl *template
	lazy []bool
}

type domSlot struct {
	key entry
	d   int32
}

// minDomainNodes is the average number of nodes per domain below which a
// constraint is not worth splitting by.
const minDomainNodes = 8

// splitDomains gives cl per-domain heaps when it has a DoNotSchedule spread
// constraint over at least two domains averaging minDomainNodes nodes (the
// one with fewest domains) and no score that needs every node per pod.
func (s *Solver) splitDomains(cl *class) {
	rc := cl.rel
	if rc == nil || rc.scoring || cl.dom != nil || s.cfg.oneHeap {
		return
	}
	best := -1
	var bt *index.Topology
	for j, h := range rc.hard {
		t := s.rel.counters[h.ctr].topo
		nd := len(t.Values)
		if t.Key == "" || nd < 2 || nd*minDomainNodes > s.c.NumNodes() {
			continue
		}
		if best < 0 || nd < len(bt.Values) {
			best, bt = j, t
		}
	}
	if best < 0 {
		return
	}
	nd := len(bt.Values)
	ds := &domSplit{j: best, ctr: s.rel.counters[rc.hard[best].ctr], topo: bt,
		heaps: make([]nodeHeap, nd), cut: make([]entry, nd), trunc: make([]bool, nd),
		pos: make([]int32, nd), isAside: make([]bool, nd), lazy: make([]bool, nd)}
	for d := range ds.pos {
		ds.pos[d] = -1
	}
	cl.dom = ds
	s.splitClasses++
}

// key returns the best of domain d's top entry, cut and (lazy) template
// top, and false when it has none.
func (ds *domSplit) key(d int32) (entry, bool) {
	var k entry
	ok := false
	consider := func(e *entry) {
		if !ok || better(e, &k) {
			k, ok = *e, true
		}
	}
	if h := ds.heaps[d]; len(h) > 0 {
		consider(&h[0])
	}
	if ds.trunc[d] {
		consider(&ds.cut[d])
	}
	if ds.lazy[d] {
		if h := ds.tmpl.heaps[d]; len(h) > 0 {
			consider(&h[0])
		}
	}
	return k, ok
}

// refresh puts domain d where its key says: in top, moved, or out of it
// (a domain set aside stays aside).
func (ds *domSplit) refresh(d int32) {
	k, ok := ds.key(d)
	i := ds.pos[d]
	switch {
	case !ok && i >= 0:
		ds.remove(i)
	case ok && i >= 0:
		ds.top[i].key = k
		ds.up(int(i))
		ds.down(int(ds.pos[d]))
	case ok && !ds.isAside[d]:
		ds.top = append(ds.top, domSlot{key: k, d: d})
		ds.pos[d] = int32(len(ds.top) - 1)
		ds.up(len(ds.top) - 1)
	}
}

// remove takes the domain at top[i] out of top.
func (ds *domSplit) remove(i int32) {
	last := len(ds.top) - 1
	d := ds.top[i].d
	ds.swap(int(i), last)
	ds.top = ds.top[:last]
	ds.pos[d] = -1
	if int(i) < last {
		ds.up(int(i))
		ds.down(int(ds.pos[ds.top[i].d]))
	}
}

func (ds *domSplit) swap(a, b int) {
	ds.top[a], ds.top[b] = ds.top[b], ds.top[a]
	ds.pos[ds.top[a].d], ds.pos[ds.top[b].d] = int32(a), int32(b)
}

func (ds *domSplit) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(&ds.top[i].key, &ds.top[p].key) {
			return
		}
		ds.swap(i, p)
		i = p
	}
}

func (ds *domSplit) down(i int) {
	n := len(ds.top)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && better(&ds.top[r].key, &ds.top[l].key) {
			m = r
		}
		if !better(&ds.top[m].key, &ds.top[i].key) {
			return
		}
		ds.swap(i, m)
		i = m
	}
}

// push adds a scored entry to its node's domain heap.
func (ds *domSplit) push(e entry) {
	d := ds.topo.Of[e.node]
	ds.heaps[d].push(e)
	ds.entries++
	ds.refresh(d)
}

// setAside takes domain d, which fails the primary, out of top until the
// primary's counter relaxes.
func (ds *domSplit) setAside(d int32) {
	if len(ds.aside) == 0 {
		ds.seen = ds.ctr.relax
	}
	ds.remove(ds.pos[d])
	ds.isAside[d] = true
	ds.aside = append(ds.aside, d)
}

// wakeDomains returns the domains set aside to top once the primary relaxed.
func (ds *domSplit) wakeDomains() {
	if len(ds.aside) == 0 || ds.ctr.relax == ds.seen {
		return
	}
	for _, d := range ds.aside {
		ds.isAside[d] = false
		ds.refresh(d)
	}
	ds.aside = ds.aside[:0]
}

// allowed reports whether domain d passes the primary constraint for rc.
func (ds *domSplit) allowed(rc *relClass, d int32) bool {
	h := &rc.hard[ds.j]
	k := ds.ctr
	return rules.SkewOK(k.counts.at(d), h.self, rules.GlobalMin(k.min, k.domains, h.minDomains), h.maxSkew)
}

// placeDom picks the best node of a domain-split class that passes every
// filter and pops it from its heap.
func (s *Solver) placeDom(cl *class) (entry, bool) {
	ds, rc := cl.dom, cl.rel
	gen := s.c.Gen
	ds.wakeDomains()
	for len(ds.top) > 0 {
		d := ds.top[0].d
		if ds.lazy[d] {
			s.materialize(cl, d)
			ds.refresh(d)
			continue
		}
		h := &ds.heaps[d]
		stale := false
		for len(*h) > 0 && (*h)[0].gen != gen[(*h)[0].node] {
			h.pop()
			ds.entries--
			stale = true
		}
		if ds.trunc[d] && (len(*h) == 0 || better(&ds.cut[d], &(*h)[0])) {
			s.rebuilds++
			s.buildDomain(cl, d)
			ds.refresh(d)
			continue
		}
		if stale || len(*h) == 0 {
			ds.refresh(d)
			continue
		}
		if !ds.allowed(rc, d) {
			ds.setAside(d)
			continue
		}
		e := (*h)[0]
		h.pop()
		ds.entries--
		ds.refresh(d)
		if f, j := s.checkSkip(rc, e.node, ds.j); f != relOK {
			rc.park(s, j, e)
			continue
		}
		return e, true
	}
	return entry{}, false
}

// buildDom fills the domain heaps of cl from scratch: the scan of build,
// keeping the best entries per domain.
func (s *Solver) buildDom(cl *class, dense []uint64, workers []scanner, keep int) {
	ds := cl.dom
	m := s.scanDoms(cl, dense, workers, domKeep(keep, len(ds.heaps)), true)
	ds.top, ds.aside, ds.entries, ds.tmpl = ds.top[:0], ds.aside[:0], 0, nil
	for d := range ds.heaps {
		ds.isAside[d], ds.pos[d], ds.lazy[d] = false, -1, false
		ds.fill(int32(d), &m.doms[d])
		ds.refresh(int32(d))
	}
}

// scanDoms scans the feasible nodes into the workers' per-domain best
// entries, keep per domain, through the pod-relative filters other than
// the primary when check is set, and merges them into the first worker's.
func (s *Solver) scanDoms(cl *class, dense []uint64, workers []scanner, keep int, check bool) *scanner {
	nd := len(cl.dom.heaps)
	for i := range workers {
		w := &workers[i]
		for len(w.doms) < nd {
			w.doms = append(w.doms, topK{})
		}
		for d := range w.doms[:nd] {
			w.doms[d].reset()
		}
	}
	s.parallel(workers, dense, func(w *scanner, lo, hi int) {
		for wi := lo; wi < hi; wi++ {
			for word := dense[wi]; word != 0; word &= word - 1 {
				s.scanDomNode(cl, w, index.NodeID(wi*64+bits.TrailingZeros64(word)), keep, check)
			}
		}
	})
	m := &workers[0]
	for i := 1; i < len(workers); i++ {
		for d := range nd {
			t := &workers[i].doms[d]
			for _, e := range t.heap {
				m.doms[d].offer(e, keep)
			}
			if t.truncated {
				m.doms[d].drop(t.cut)
			}
		}
	}
	return m
}

// materialize takes lazy domain d's entries from the class's template, or
// scans the domain when the template cannot catch up.
func (s *Solver) materialize(cl *class, d int32) {
	ds := cl.dom
	ds.lazy[d] = false
	t := ds.tmpl
	if !s.advance(cl, t) {
		s.rebuilds++
		s.buildDomain(cl, d)
		return
	}
	k := domKeep(max(cl.pods, 16), len(ds.heaps))
	before := len(ds.heaps[d])
	h, rest, more := s.take(&t.heaps[d], &t.entries, ds.heaps[d], before+k, func(e entry) (rules.Reason, int) { return s.checkSkip(cl.rel, e.node, ds.j) }, cl.rel)
	if before > 0 {
		h.init() // the entries sync pushed come first
	}
	ds.heaps[d] = h
	ds.entries += len(h) - before
	ds.cut[d], ds.trunc[d] = rest, more
}

// buildDomain rescans the nodes of domain d alone.
func (s *Solver) buildDomain(cl *class, d int32) {
	ds := cl.dom
	dense := cl.g.dense
	ws := s.scanners(0)
	w := &ws[0]
	if len(w.doms) <= int(d) {
		w.doms = append(w.doms, make([]topK, int(d)+1-len(w.doms))...)
	}
	t := &w.doms[d]
	t.reset()
	keep := domKeep(max(cl.pods, 16), len(ds.heaps))
	for _, n := range ds.topo.Members(d) {
		if dense[n>>6]&(1<<(n&63)) != 0 {
			s.scanDomNode(cl, w, n, keep, true)
		}
	}
	ds.entries -= len(ds.heaps[d])
	ds.fill(d, t)
	for _, pe := range w.parked {
		cl.rel.park(s, pe.dep, pe.e)
	}
}

// fill makes domain d's heap from t.
func (ds *domSplit) fill(d int32, t *topK) {
	h := append(ds.heaps[d][:0], t.heap...)
	if cap(h) > 4*len(h)+64 {
		h = append(nodeHeap(nil), h...)
	}
	h.init()
	ds.heaps[d] = h
	ds.cut[d], ds.trunc[d] = t.cut, t.truncated
	ds.entries += len(h)
}

// scanDomNode offers feasible node n to its domain's best entries in w,
// pruning by the bounds as scanScore does, or, when check is set, parks it
// if a pod-relative filter other than the primary rejects it.
func (s *Solver) scanDomNode(cl *class, w *scanner, n index.NodeID, keep int, check bool) {
	ds := cl.dom
	d := ds.topo.Of[n]
	if d < 0 {
		return // lacks the primary's key: (missing required label)
	}
	if !cl.fitsFree(&s.free[n]) {
		return
	}
	t := &w.doms[d]
	tie := s.hot[n].tie
	st := cl.staticScore(n)
	if t.skip(int64(s.bound[n])+st, tie, n, keep) || t.skip(s.upper(cl, &s.bounds[n])+st, tie, n, keep) {
		return
	}
	if cl.fullFit && !s.fits(n, cl) {
		return
	}
	e := entry{score: s.score(cl, n), tie: tie, node: n, gen: s.c.Gen[n]}
	if !check {
		t.offer(e, keep)
		return
	}
	if f, j := s.checkSkip(cl.rel, n, ds.j); f != relOK {
		if j >= 0 {
			w.parked = append(w.parked, parkedEntry{dep: j, e: e})
		}
		return
	}
	t.offer(e, keep)
}
