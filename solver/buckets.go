package solver

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Bucketed scoring.
//
// A scoring class (soft spread constraints, default spreading, preferred
// pod affinity, running pods' terms) normalises its pod-relative scores
// over every candidate node, so placeScored scores every feasible node per
// pod. But those scores depend on a node only through a few values: for
// each counter the class reads, the node's domain (zone, say) or, for a
// counter whose domains are single nodes (hostname), the node's own count.
// Nodes with equal values (a bucket) get equal pod-relative scores, so the
// best node of a bucket is the one with the best base score: a heap per
// bucket. Per pod, the normalisation and the choice then run over the
// buckets, not the nodes. A node changes bucket only when its own counts
// change, which takes a bind or an eviction on it, so the node change log
// (replayed as sync does) keeps the buckets current; domain counts move
// the buckets' scores, not their members.
//
// The pod-relative filters read the same kind of values, so the filters'
// counters are dimensions too and a bucket passes or fails them as a
// whole: the candidates are the fitting nodes of the passing buckets, each
// bucket counting its fitting nodes.

// buckets is a class's bucketed candidates.
type buckets struct {
	cursor       int // Cluster.Changes replayed
	ttMax, naMax int64
	// of is each feasible node's bucket while it fits, else -1.
	of []int32
	// dims are the values a bucket is keyed by: the soft constraints',
	// the scoring terms', then the filters' counters (relClass.deps).
	dims  []bucketDim
	index map[string]int32
	list  []bucket
	key   []byte
	vals  []int32
	// packed finds buckets by their values packed in one word (shift per
	// dim; a per-node count past its field's range goes to index).
	packed map[uint64]int32
	shift  []uint8
	// lean: the class keeps its bare nodes in truncated per-domain buckets
	// (see lean.go); topo is the domain dimensions' topology (nil when the
	// class has none).
	lean bool
	topo *index.Topology
	ln   *leanState
	// free holds, for lean buckets, the solver's heaps to reuse
	// (dropBuckets gave them back); nil otherwise.
	free *[]nodeHeap
}

// countBits is the width of a per-node count in a packed bucket key.
const countBits = 16

// bucketDim is one value of a bucket key: a counter's domain of the node,
// or (perNode) the counter's count on the node itself.
type bucketDim struct {
	ctr     *counter
	perNode bool
	// hostname: a soft hostname constraint (counted only on nodes with the
	// hostname label).
	hostname bool
}

type bucket struct {
	heap    nodeHeap
	members int // fitting nodes in the bucket
	ignored bool
	vals    []int32 // per dim: domain id, or the node's count; -1: no key
	// A lean class's bare bucket (bare > 0: its domain + 2) holds the
	// best entries of its fitting nodes, not all: cut is the best entry
	// left out when truncated (see lean.go).
	bare      int32
	cut       entry
	truncated bool
}

// useBuckets reports whether cl's scoring may run on buckets: not when
// the class is feasible on fewer than minBucketNodes nodes and fewer nodes
// than the cluster's bitsets have words. Filling buckets passes over the
// cluster's words and over every node its counters count pods on,
// whatever the class's nodes; a class of a handful (a DaemonSet's pod
// names one node) scores each of them for each pod (placeScored).
func (s *Solver) useBuckets(cl *class) bool {
	rc := cl.rel
	if rc == nil || !rc.scoring || s.cfg.oneHeap {
		return false
	}
	from := minBucketNodes
	if s.cfg.sw.bucketsFrom != 0 {
		from = s.cfg.sw.bucketsFrom
	}
	n := cl.g.feasCard
	return n >= from || n*64 >= s.c.NumNodes()
}

// minBucketNodes: see useBuckets.
const minBucketNodes = 64

// singleton reports whether every domain of t is one node.
func singleton(t *index.Topology) bool {
	return t.Key == "" || t.Singleton()
}

// newBuckets sets up cl's bucket dimensions: its soft spread constraints,
// then its scoring terms.
func (s *Solver) newBuckets(cl *class) *buckets {
	rc := cl.rel
	b := &buckets{index: map[string]int32{}}
	for _, h := range rc.soft {
		k := s.rel.counters[h.ctr]
		b.dims = append(b.dims, bucketDim{ctr: k, perNode: h.hostname, hostname: h.hostname})
	}
	for _, pr := range rc.pref {
		k := s.rel.counters[pr.ctr]
		b.dims = append(b.dims, bucketDim{ctr: k, perNode: singleton(k.topo)})
	}
	for _, id := range rc.deps {
		k := s.rel.counters[id]
		b.dims = append(b.dims, bucketDim{ctr: k, perNode: singleton(k.topo)})
	}
	// Values are -1 and up: v+1 takes a domain id's bits, or countBits.
	used := uint(1) // the ignored flag
	for _, dm := range b.dims {
		w := uint(countBits)
		if !dm.perNode && !dm.hostname {
			w = uint(bits.Len(uint(len(dm.ctr.topo.Values) + 1)))
		}
		b.shift = append(b.shift, uint8(used))
		used += w
	}
	if used <= 64 {
		b.packed = map[uint64]int32{}
	}
	b.topo, b.lean = s.leanTopo(cl)
	if b.lean {
		b.free = &s.heapFree
		if k := len(s.listFree); k > 0 {
			b.list, s.listFree = s.listFree[k-1], s.listFree[:k-1]
		}
	}
	return b
}

// leanTopo returns the topology of cl's bucket dimensions that are
// domains (nil when none is), and whether its buckets are lean: when
// those dimensions share one topology.
func (s *Solver) leanTopo(cl *class) (*index.Topology, bool) {
	rc := cl.rel
	var topo *index.Topology
	domain := func(id int32, perNode bool) bool {
		if perNode {
			return true
		}
		switch t := s.rel.counters[id].topo; {
		case topo == nil:
			topo = t
		case topo.Key != t.Key:
			return false
		}
		return true
	}
	lean := !s.cfg.noLean
	for _, h := range rc.soft {
		lean = domain(h.ctr, h.hostname) && lean
	}
	for _, pr := range rc.pref {
		lean = domain(pr.ctr, singleton(s.rel.counters[pr.ctr].topo)) && lean
	}
	for _, id := range rc.deps {
		lean = domain(id, singleton(s.rel.counters[id].topo)) && lean
	}
	return topo, lean
}

// packKey packs b.vals with the ignored flag; false when a per-node count
// does not fit its field.
func (b *buckets) packKey(ignored bool) (uint64, bool) {
	var key uint64
	if ignored {
		key = 1
	}
	for i, v := range b.vals {
		if dm := &b.dims[i]; (dm.perNode || dm.hostname) && v+1 >= 1<<countBits {
			return 0, false
		}
		key |= uint64(v+1) << b.shift[i]
	}
	return key, true
}

// valuesOf fills b.vals with node n's bucket values.
func (s *Solver) valuesOf(b *buckets, n index.NodeID) {
	b.vals = b.vals[:0]
	for _, dm := range b.dims {
		k := dm.ctr
		v := int32(-1)
		switch {
		case dm.hostname:
			if s.hasHostname(n) {
				v = k.counts.at(int32(n))
			}
		case dm.perNode:
			if d := k.topo.Of[n]; d >= 0 {
				v = k.counts.at(d)
			}
		default:
			v = k.topo.Of[n]
		}
		b.vals = append(b.vals, v)
	}
}

// bucketOf returns node n's bucket, made if new.
func (s *Solver) bucketOf(cl *class, b *buckets, n index.NodeID) int32 {
	s.valuesOf(b, n)
	rc := cl.rel
	ignored := len(rc.soft) > 0 && rc.requireAll && rc.softElig != nil && rc.softElig[n>>6]&(1<<(n&63)) == 0
	if b.packed != nil {
		if pk, ok := b.packKey(ignored); ok {
			id, ok := b.packed[pk]
			if !ok {
				id = b.newBucket(ignored)
				b.packed[pk] = id
			}
			return id
		}
	}
	key := b.key[:0]
	if ignored {
		key = append(key, 1)
	} else {
		key = append(key, 0)
	}
	for _, v := range b.vals {
		key = binary.AppendVarint(key, int64(v))
	}
	b.key = key
	id, ok := b.index[string(key)]
	if !ok {
		id = b.newBucket(ignored)
		b.index[string(key)] = id
	}
	return id
}

// newBucket adds a bucket with values b.vals.
func (b *buckets) newBucket(ignored bool) int32 {
	var vals []int32 // a reused list's slot past its end holds a dropped bucket's
	if n := len(b.list); n < cap(b.list) {
		vals = b.list[:n+1][n].vals[:0]
	}
	bk := bucket{ignored: ignored, vals: append(vals, b.vals...)}
	if b.free != nil {
		if k := len(*b.free); k > 0 {
			bk.heap, *b.free = (*b.free)[k-1], (*b.free)[:k-1]
		}
	}
	b.list = append(b.list, bk)
	return int32(len(b.list) - 1)
}

// setFit moves feasible node n out of its bucket's count and, when it fits,
// into the count of the bucket of its new entry e.
func (s *Solver) setFit(cl *class, b *buckets, e entry, fits bool) {
	n := e.node
	if old := b.of[n]; old >= 0 {
		b.list[old].members--
	}
	b.of[n] = -1
	if fits {
		id := s.bucketOf(cl, b, n)
		b.list[id].heap.push(e)
		b.list[id].members++
		b.of[n] = id
	}
}

// fillBuckets builds cl's buckets from every feasible node.
func (s *Solver) fillBuckets(cl *class) {
	s.dropBuckets(cl)
	b := s.newBuckets(cl)
	b.cursor = len(s.c.Changes)
	b.ttMax, b.naMax = cl.ttMax, cl.naMax
	if b.lean {
		s.fillLean(cl, b)
		return
	}
	b.of = make([]int32, s.c.NumNodes())
	for i := range b.of {
		b.of[i] = -1
	}
	gen := s.c.Gen
	// First each fitting node's entry and bucket, then the heaps, cut
	// from one array by the buckets' sizes and ordered once.
	fill := s.fillBuf[:0]
	for wi, word := range cl.g.dense {
		for ; word != 0; word &= word - 1 {
			n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if s.fits(n, cl) {
				id := s.bucketOf(cl, b, n)
				b.of[n] = id
				b.list[id].members++
				fill = append(fill, entry{score: s.score(cl, n), tie: s.hot[n].tie, node: n, gen: gen[n]})
			}
		}
	}
	all := make([]entry, len(fill))
	off := 0
	for i := range b.list {
		m := b.list[i].members
		b.list[i].heap = nodeHeap(all[off : off : off+m]) // a push past m moves it out
		off += m
	}
	for _, e := range fill {
		bk := &b.list[b.of[e.node]]
		bk.heap = append(bk.heap, e)
	}
	for i := range b.list {
		b.list[i].heap.init()
	}
	s.fillBuf = fill[:0]
	cl.buckets = b
}

// syncBuckets replays the node changes since the buckets last saw them, or
// rebuilds them when that costs more or the static maxima moved.
func (s *Solver) syncBuckets(cl *class) {
	if b := cl.buckets; b != nil && b.lean {
		s.syncLean(cl)
		return
	}
	b := cl.buckets
	c := s.c
	if b == nil || b.ttMax != cl.ttMax || b.naMax != cl.naMax || len(c.Changes)-b.cursor > cl.g.feasCard {
		s.fillBuckets(cl)
		return
	}
	dense := cl.g.dense
	for _, ch := range c.Changes[b.cursor:] {
		n := ch.Node
		if ch.Gen != c.Gen[n] || dense[n>>6]&(1<<(n&63)) == 0 {
			continue
		}
		e := entry{node: n, gen: ch.Gen}
		fits := s.fits(n, cl)
		if fits {
			e.score, e.tie = s.score(cl, n), s.hot[n].tie
		}
		s.setFit(cl, b, e, fits)
	}
	b.cursor = len(c.Changes)
}

// placeBuckets is placeScored on buckets: the same node, found over the
// buckets' best entries.
func (s *Solver) placeBuckets(cl *class, pid index.PodID) (index.NodeID, int64, bool) {
	rc := cl.rel
	r := s.rel
	s.bucketed++
	if cl.buckets == nil {
		t, lean := s.leanTopo(cl)
		uniform := s.uniformSpread(cl)
		if uniform || !lean {
			s.prepareStatic(cl) // a lean fill takes the maxima from its counts (leanMaxima)
		}
		if uniform {
			if n, score, ok := s.placeUniform(cl, pid, t); ok {
				return n, score, true
			}
		}
	}
	s.syncBuckets(cl)
	b := cl.buckets
	gen := s.c.Gen
	// The buckets with a candidate: a fitting node, passing the filters.
	live := s.liveBuckets[:0]
	cands, ignored := 0, 0
	for i := range b.list {
		bk := &b.list[i]
		if bk.members == 0 || !s.bucketPasses(cl, b, bk) {
			continue
		}
		if bk.bare > 0 {
			if !s.liveBare(cl, b, int32(i)) {
				continue
			}
		} else {
			h := &bk.heap
			for (*h)[0].gen != gen[(*h)[0].node] {
				h.pop() // stale; a fitting member keeps a live entry
			}
		}
		live = append(live, int32(i))
		cands += bk.members
		if bk.ignored {
			ignored += bk.members
		}
	}
	s.liveBuckets = live
	if len(live) == 0 {
		return 0, 0, false
	}
	add := s.bucketAdd[:0]
	for range live {
		add = append(add, 0)
	}
	s.bucketAdd = add
	nsoft := len(rc.soft)
	if nsoft > 0 {
		// Weights: log(domains among the candidates + 2), a node lacking
		// the key being one domain; per node for hostname.
		weights := r.weights[:0]
		for j, h := range rc.soft {
			sz := cands - ignored
			if !h.hostname {
				sz = s.distinctAmong(b, live, j)
			}
			weights = append(weights, rules.NormalizingWeight(sz))
		}
		r.weights = weights
		lo, hi := int64(math.MaxInt64), int64(0)
		raw := s.bucketRaw[:0]
		for _, id := range live {
			bk := &b.list[id]
			if bk.ignored {
				raw = append(raw, 0)
				continue
			}
			var f float64
			for j, h := range rc.soft {
				v := bk.vals[j]
				if v < 0 {
					continue
				}
				cnt := v
				if !b.dims[j].perNode {
					cnt = b.dims[j].ctr.counts.at(v)
				}
				f += rules.ScoreForCount(int64(cnt), h.maxSkew, weights[j])
			}
			x := rules.RoundSpread(f)
			raw = append(raw, x)
			lo, hi = min(lo, x), max(hi, x)
		}
		s.bucketRaw = raw
		for i, id := range live {
			add[i] += rules.SpreadScore(raw[i], lo, hi, b.list[id].ignored)
		}
	}
	anyActive := false
	for _, pr := range rc.pref {
		if r.counters[pr.ctr].total != 0 {
			anyActive = true
			break
		}
	}
	if anyActive {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		raw := s.bucketRaw[:0]
		for _, id := range live {
			bk := &b.list[id]
			var g int64
			for t, pr := range rc.pref {
				k := r.counters[pr.ctr]
				if k.total == 0 {
					continue
				}
				v := bk.vals[nsoft+t]
				if v < 0 {
					continue
				}
				cnt := v
				if !b.dims[nsoft+t].perNode {
					cnt = k.counts.at(v)
				}
				g += pr.weight * int64(cnt)
			}
			raw = append(raw, g)
			lo, hi = min(lo, g), max(hi, g)
		}
		s.bucketRaw = raw
		for i := range live {
			add[i] += rules.PodAffinityScore(raw[i], lo, hi)
		}
	}
	var be entry
	for i, id := range live {
		top := b.list[id].heap[0]
		e := entry{score: top.score + add[i], tie: top.tie, node: top.node}
		if i == 0 || better(&e, &be) {
			be = e
		}
	}
	s.bindPod(pid, be.node, &cl.demand)
	return be.node, be.score, true
}

// distinctAmong counts the distinct values of soft dimension j among the
// live buckets not ignored.
func (s *Solver) distinctAmong(b *buckets, live []int32, j int) int {
	r := s.rel
	r.newEpoch(b.dims[j].ctr.topo)
	sz := 0
	for _, id := range live {
		bk := &b.list[id]
		if bk.ignored {
			continue
		}
		if d := bk.vals[j] + 1; r.stamp[d] != r.epoch {
			r.stamp[d] = r.epoch
			sz++
		}
	}
	return sz
}

// bucketPasses runs check's pod-relative filters on a bucket's values.
func (s *Solver) bucketPasses(cl *class, b *buckets, bk *bucket) bool {
	rc := cl.rel
	i := len(rc.soft) + len(rc.pref) // the filters' first dimension
	count := func() (int32, bool) {
		v := bk.vals[i]
		dm := &b.dims[i]
		i++
		if v < 0 {
			return 0, false
		}
		if dm.perNode {
			return v, true
		}
		return dm.ctr.counts.at(v), true
	}
	for _, h := range rc.hard {
		k := b.dims[i].ctr
		cnt, ok := count()
		if !ok {
			return false
		}
		if !rules.SkewOK(cnt, h.self, rules.GlobalMin(k.min, k.domains, h.minDomains), h.maxSkew) {
			return false
		}
	}
	if len(rc.aff) > 0 {
		exist, empty := true, true
		for range rc.aff {
			k := b.dims[i].ctr
			cnt, ok := count()
			if !ok {
				return false
			}
			if cnt <= 0 {
				exist = false
			}
			if k.total > 0 {
				empty = false
			}
		}
		if !rules.AffinityOK(true, exist, empty, rc.affSelf) {
			return false
		}
	}
	for range len(rc.anti) + len(rc.repel) {
		if cnt, ok := count(); ok && cnt > 0 {
			return false
		}
	}
	return true
}
