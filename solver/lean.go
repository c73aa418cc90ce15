package solver

import (
	"math/bits"

	"github.com/kplace/kplace/index"
)

// Lean buckets.
//
// fillBuckets scores and files every fitting node of a scoring class. Where
// default spreading applies to most pods (Services and ReplicaSets select
// nearly every pod of a real cluster), a cluster of n nodes has scoring
// classes in proportion to n, and filling each at tens of nanoseconds a
// node makes the solve grow as n².
//
// Most of a class's nodes are plain: every per-node dimension (a hostname
// count) is 0 there, because the class's workload has few pods. The bucket
// of a plain node depends on its domain of the domain dimensions alone
// (they share one topology, zone say, or there is none), so a lean class
// keeps, per domain, one plain bucket holding only its best entries, cut
// as domain-split heaps cut theirs, and the exact count of its fitting
// nodes (the PodTopologySpread weights read counts, not nodes). Nodes that
// are not plain are kept whole in buckets of their own, as in a full fill.
// A plain bucket whose entries ran out while its cut may hold its best node
// is rescanned alone, from its domain's nodes.
//
// A fill then costs a fit test per feasible node and a score for the few
// that can enter a domain's best (pruned by the bounds builds use). The
// class keeps its fitting nodes as a bitset, to keep the counts exact as
// nodes change, and counts them per TaintToleration and NodeAffinity raw
// value: the normalisation maxima come from those counts, where a full
// fill rescans the nodes for them (fittingMax) before every pod.

// leanState is a lean class's bookkeeping.
type leanState struct {
	// fit has a bit per feasible node that fits the class now.
	fit []uint64
	// explicit holds the bucket of every fitting node that is not plain.
	explicit map[index.NodeID]int32
	// plainOf[ignored][d+1] is the plain bucket of domain d (-1 for the
	// nodes lacking the key), -1 until made.
	plainOf [2][]int32
	// ttHist and naHist count the fitting nodes per raw TaintToleration
	// and NodeAffinity value (nil when the group has no such column).
	ttHist, naHist []int32
}

// isPlain reports whether every per-node dimension of b is 0 on node n.
func (s *Solver) isPlain(b *buckets, n index.NodeID) bool {
	for i := range b.dims {
		dm := &b.dims[i]
		switch k := dm.ctr; {
		case dm.hostname:
			if !s.hasHostname(n) || k.counts[n] != 0 {
				return false
			}
		case dm.perNode:
			if d := k.topo.Of[n]; d < 0 || k.counts[d] != 0 {
				return false
			}
		}
	}
	return true
}

// ignoredAt reports whether node n is ignored by cl's soft constraints
// (it lacks one of their keys and they require all).
func ignoredAt(cl *class, n index.NodeID) bool {
	rc := cl.rel
	return len(rc.soft) > 0 && rc.requireAll && rc.softElig != nil && rc.softElig[n>>6]&(1<<(n&63)) == 0
}

// plainBucket returns plain node n's bucket, made if new, and its slot:
// ignored*(domains) + its domain + 1 (0: the nodes lacking the key).
func (s *Solver) plainBucket(cl *class, b *buckets, n index.NodeID) (int, int32) {
	pd := int32(0)
	if b.topo != nil {
		pd = b.topo.Of[n] + 1
	}
	ig := 0
	if ignoredAt(cl, n) {
		ig = 1
	}
	slot := &b.ln.plainOf[ig][pd]
	if *slot < 0 {
		s.valuesOf(b, n)
		*slot = b.newBucket(ig == 1)
		b.list[*slot].plain = pd + 1
	}
	return ig*len(b.ln.plainOf[0]) + int(pd), *slot
}

// fillLean builds lean class cl's buckets b from every feasible node, in
// one pass over the nodes with room for the class (roomLevels) that
// scores with the class's current maxima; should the fitting nodes' counts
// give other maxima, the entries are scored again.
func (s *Solver) fillLean(cl *class, b *buckets) {
	s.leanFills++
	g := cl.g
	ln := &leanState{explicit: map[index.NodeID]int32{}, fit: make([]uint64, len(g.dense))}
	b.ln = ln
	domains := 1
	if b.topo != nil {
		domains += len(b.topo.Size)
	}
	for i := range ln.plainOf {
		ln.plainOf[i] = make([]int32, domains)
		for d := range ln.plainOf[i] {
			ln.plainOf[i][d] = -1
		}
	}
	if g.rawTT != nil {
		ln.ttHist = make([]int32, g.ttTop+1)
	}
	if g.rawNA != nil {
		ln.naHist = make([]int32, g.naTop+1)
	}
	keep := domKeep(max(cl.pods, 16), domains)
	tops := s.leanTops(2 * domains)
	np := s.nonPlain(b, len(g.dense))
	gen := s.c.Gen
	roomCPU, roomMem := s.room.of(cl)
	for wi, word := range g.dense {
		var fit uint64
		for word &= roomCPU[wi] & roomMem[wi]; word != 0; word &= word - 1 {
			n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if !s.fits(n, cl) {
				continue
			}
			bit := uint64(1) << (n & 63)
			fit |= bit
			ln.count(cl, n, 1)
			if np[wi]&bit != 0 {
				id := s.bucketOf(cl, b, n)
				b.list[id].heap.push(entry{score: s.score(cl, n), tie: s.hot[n].tie, node: n, gen: gen[n]})
				b.list[id].members++
				ln.explicit[n] = id
				continue
			}
			slot, id := s.plainBucket(cl, b, n)
			b.list[id].members++
			s.offerPlain(cl, &tops[slot], n, keep)
		}
		ln.fit[wi] = fit
	}
	if s.leanMaxima(cl, b) {
		// Scored with other maxima: again, from the fitting nodes.
		for i := range tops {
			tops[i].reset()
		}
		for _, id := range ln.explicit {
			b.list[id].heap = b.list[id].heap[:0]
		}
		for n, id := range ln.explicit {
			b.list[id].heap = append(b.list[id].heap, entry{score: s.score(cl, n), tie: s.hot[n].tie, node: n, gen: gen[n]})
		}
		for i := range b.list {
			if b.list[i].plain == 0 {
				b.list[i].heap.init()
			}
		}
		for wi, word := range ln.fit {
			for word &^= np[wi]; word != 0; word &= word - 1 {
				n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
				slot, _ := s.plainBucket(cl, b, n)
				s.offerPlain(cl, &tops[slot], n, keep)
			}
		}
	}
	for ig := range ln.plainOf {
		for pd, id := range ln.plainOf[ig] {
			if id >= 0 {
				b.list[id].fromTop(&tops[ig*domains+pd])
			}
		}
	}
	cl.buckets = b
}

// nonPlain returns a bitset of the nodes that are not plain for b: those
// lacking the key of a per-node dimension, or with a count above 0 there,
// found through the counters' nonzero lists. The bitset is scratch, valid
// until the next call.
func (s *Solver) nonPlain(b *buckets, words int) []uint64 {
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
			s.hasHostname(0) // makes s.hostnames
			has = s.hostnames
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
			for d, v := range k.counts {
				if n, ok := node(int32(d)); v != 0 && ok {
					np[n>>6] |= 1 << (n & 63)
				}
			}
			continue
		}
		for _, d := range k.nz {
			if n, ok := node(d); k.counts[d] != 0 && ok {
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

// leanTops returns the fill's scratch best entries, one per bucket, empty
// (fromTop empties each one it takes).
func (s *Solver) leanTops(nb int) []topK {
	for len(s.leanK) < nb {
		s.leanK = append(s.leanK, topK{})
	}
	return s.leanK[:nb]
}

// fromTop makes plain bucket bk's heap from the best entries t kept.
func (bk *bucket) fromTop(t *topK) {
	bk.heap = append(bk.heap[:0], t.heap...)
	bk.heap.init()
	bk.cut, bk.truncated = t.cut, t.truncated
	t.reset()
}

// offerPlain offers fitting plain node n to t, pruned by the bounds as
// scanDomNode prunes.
func (s *Solver) offerPlain(cl *class, t *topK, n index.NodeID, keep int) {
	tie := s.hot[n].tie
	st := cl.staticScore(n)
	if t.skip(int64(s.bound[n])+st, tie, n, keep) || t.skip(s.upper(cl, &s.bounds[n])+st, tie, n, keep) {
		return
	}
	t.offer(entry{score: s.score(cl, n), tie: tie, node: n, gen: s.c.Gen[n]}, keep)
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
	// First the fit bits and counts: the maxima decide the scores.
	touched := s.leanTouched[:0]
	for _, ch := range changes {
		n := ch.Node
		if ch.Gen != c.Gen[n] || dense[n>>6]&(1<<(n&63)) == 0 {
			continue
		}
		bit := uint64(1) << (n & 63)
		if ln.fit[n>>6]&bit != 0 {
			ln.count(cl, n, -1)
			if id, ok := ln.explicit[n]; ok {
				b.list[id].members--
				delete(ln.explicit, n)
			} else {
				_, id := s.plainBucket(cl, b, n)
				b.list[id].members--
			}
			ln.fit[n>>6] &^= bit
		}
		if s.fits(n, cl) {
			ln.fit[n>>6] |= bit
			ln.count(cl, n, 1)
			touched = append(touched, n)
		}
	}
	s.leanTouched = touched[:0]
	if s.leanMaxima(cl, b) {
		s.fillBuckets(cl)
		return
	}
	for _, n := range touched {
		if ln.fit[n>>6]&(1<<(n&63)) == 0 {
			continue
		}
		e := entry{score: s.score(cl, n), tie: s.hot[n].tie, node: n, gen: c.Gen[n]}
		id := int32(0)
		if s.isPlain(b, n) {
			_, id = s.plainBucket(cl, b, n)
		} else {
			id = s.bucketOf(cl, b, n)
			ln.explicit[n] = id
		}
		b.list[id].heap.push(e)
		b.list[id].members++
	}
}

// livePlain drops the stale entries on top of plain bucket id and, when
// its entries ran out while its cut may hold its best node, rescans its
// domain; false when it holds no fitting node.
func (s *Solver) livePlain(cl *class, b *buckets, id int32) bool {
	bk := &b.list[id]
	gen := s.c.Gen
	h := &bk.heap
	for len(*h) > 0 && (*h)[0].gen != gen[(*h)[0].node] {
		h.pop()
	}
	if bk.truncated && (len(*h) == 0 || better(&bk.cut, &(*h)[0])) {
		s.refillPlain(cl, b, id)
	}
	return len(bk.heap) > 0
}

// refillPlain rescans plain bucket id's domain for its best entries.
func (s *Solver) refillPlain(cl *class, b *buckets, id int32) {
	s.plainRefills++
	bk := &b.list[id]
	ln := b.ln
	domains := 1
	if b.topo != nil {
		domains += len(b.topo.Size)
	}
	keep := domKeep(max(cl.pods, 16), domains)
	t := &s.refillK
	t.reset()
	offer := func(n index.NodeID) {
		if ln.fit[n>>6]&(1<<(n&63)) == 0 || !s.isPlain(b, n) {
			return
		}
		if _, pid := s.plainBucket(cl, b, n); pid == id { // made: the node's bucket
			s.offerPlain(cl, t, n, keep)
		}
	}
	if d := bk.plain - 2; d >= 0 {
		for _, n := range b.topo.Members(d) {
			offer(n)
		}
	} else {
		for wi, word := range ln.fit {
			for ; word != 0; word &= word - 1 {
				offer(index.NodeID(wi*64 + bits.TrailingZeros64(word)))
			}
		}
	}
	bk.fromTop(t)
}
