package solver

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/kplace/kplace/index"
)

// Node runs, the order of lean scans.
//
// A bare bucket keeps a domain's best few nodes, and only about one
// fitting node in ten has a shape bound (shapes.go) that reaches the
// worst of them; testing every fitting node's bound made a lean fill cost
// a few nanoseconds per node, tens of thousands of times at 100,000 nodes.
//
// So the nodes are ordered, per domain of the topology a class's bare
// buckets split by, by shape, then by pool (nodePools: the nodes of one
// set of taints and cordon), then by the cpu plus memory parts of their
// shape records, most free first, and the order is cut into runs of up to
// runLen nodes of one shape and pool. A run keeps the maxima of its
// nodes' records and the range of their balance differences; a class
// bounds a run from them as shapeUpper bounds a node (the bound grows
// with each score part and moves one way with the balance difference), so
// a run whose bound cannot enter the bucket is passed over whole, and the
// nodes of the others are tested as before.
//
// Most runs of a segment (a domain's runs of one shape) come after the
// bucket is full and cannot enter: on the realistic 100,000-node export,
// 48 million of the 57 million feasible runs scanned were passed over one
// by one. So each run also keeps the maxima of the runs from it to the
// end of its segment (its tail, merged as the runs are), and a scan
// leaves the segment at the first run whose tail cannot enter. The order
// is sorted by free room, so the tails fall along a segment much as the
// runs do; runs of 16 nodes rather than 32 then pay (on that export,
// runs passed one by one fell to 6.6 million and node tests by 11%; a
// realistic 10,000-node solve runs 4% fewer instructions).
//
// The tails also order a scan across a domain's segments. Scores are
// integers, and on a large cluster thousands of nodes score within a few
// points of the best. A scan that took each segment to its end before
// the next (the shape whose first run bounds highest first) entered runs
// that beat the worst kept entry only because the better nodes of the
// segments after had not been seen yet. So a scan keeps a cursor per
// segment and takes the runs in passes: each pass takes, from every
// segment in turn, the runs whose tails bound at least the best tail
// bound left less levelStep points. Runs are taken about best bound
// first, and the worst kept entry rises early.
//
// Pools keep runs tight. Tainted nodes are the emptiest of their shape
// (few pods tolerate them), so in an order by shape and free room alone
// they led the runs that also held the nodes a group finds feasible, and
// such a run bounded 10 to 15 points above its feasible nodes. A segment
// of a pool no node of which a group finds feasible is left out whole
// (classSegs). On the realistic 100,000-node export, passes and pools
// together took the nodes scans test from 169 to 132 million and the runs
// they visit from 24 to 17 million, with the same results.
//
// Classes of a group keep skipping the same runs, those without a node
// the group finds feasible (another node pool, tainted nodes): the group
// keeps which runs hold one (feasibleRuns), made again with the order.
//
// Scores are integers, and on a large cluster hundreds of nodes of a
// domain share the best few: the kept entries are then decided by the
// tie-break hash, and most nodes of an entered run tie with, or lose to,
// the worst kept entry. So a run holds its nodes in tie order, highest
// first (then by id), and a scan leaves a run whose bound does not beat
// the worst kept entry at the first node whose tie loses to it: none
// after it can enter.
//
// Records change with every placement. A rise lifts the run's maxima at
// once, and the tails that no longer cover it, keeping them bounds; a
// fall marks the run stale, and its maxima are taken again when a scan
// next cannot pass it over (the tails stay: bounds still). Falls leave
// the order less sorted and the runs looser, so the order is made again
// once they reach an eighth of the nodes: from the previous sorted keys,
// the nodes whose records moved sorted apart and merged in.

// runLen is the most nodes a run holds.
const runLen = 16

// nodeRun is a run of nodes of one shape: order.nodes[start:start+n].
type nodeRun struct {
	start int32
	n     uint8
	shape uint8
	// stale: a node's record fell since the maxima were taken.
	stale      bool
	cpu, mem   uint16 // the nodes' highest fitRec.cpu and fitRec.mem,
	sum        uint32 // their highest sum of the two,
	dmin, dmax int16  // their least and highest fitRec.d
	balCap     uint8  // and highest fitRec.balCap
}

// shapeSeg is the runs of one shape in a domain: runs [lo, hi).
type shapeSeg struct {
	lo, hi int32
	shape  uint8
}

// nodeOrder is the run order of the nodes for one topology (nil: one
// domain holding every node).
type nodeOrder struct {
	topo *index.Topology
	// nodes, and their shape records, tie-break hashes and score
	// records, in order (so that a scan reads them in sequence).
	nodes  []index.NodeID
	recs   []fitRec
	ties   []uint32
	scores []scoreRec
	pos    []int32 // each node's position
	runOf  []int32 // and its run
	runs   []nodeRun
	// tail[j] holds the maxima of runs j to the end of run j's shape
	// segment (scanRuns leaves a segment at the first run whose tail
	// cannot enter), and segLo[j] that segment's first run. Rises lift
	// them with the runs'; falls leave them bounds.
	tail  []nodeRun
	segLo []int32
	// segs[pd] lists the shape segments of domain pd - 1 (0: the nodes
	// lacking the key), as bareBucket numbers domains.
	segs [][]shapeSeg
	keys []uint64 // each domain's sorted keys as last made (mergeMoved starts from them)
	// prevRecs, prevTies and prevScores hold the columns as last made
	// while a remake fills the others (their arrays are swapped).
	prevRecs   []fitRec
	prevTies   []uint32
	prevScores []scoreRec
	// work is each worker's scratch of make; runsTo its runs per domain.
	work   []orderWork
	runsTo []int32
	// moved has a bit per node whose record moved since made.
	moved []uint64
	falls int // record falls since made
	made  int // Solver.orderMakes when made
	// remake: a node changed shape, or falls reached the limit.
	remake bool
}

// orderWork is a worker's scratch of makeOrder: a domain's moved keys
// (mergeMoved) and a run's tie keys.
type orderWork struct{ moved, run []uint64 }

// orderFor returns the run order for topology t, made or remade if due.
// The shape records must exist (shapeShares makes them).
func (s *Solver) orderFor(t *index.Topology) *nodeOrder {
	o := s.orders[t]
	if o == nil {
		if s.orders == nil {
			s.orders = map[*index.Topology]*nodeOrder{}
		}
		o = &nodeOrder{topo: t, remake: true}
		s.orders[t] = o
		s.orderList = append(s.orderList, o)
	}
	if o.remake || o.falls > len(s.fitRecs)/8 {
		s.makeOrder(o)
	}
	return o
}

// makeOrder sorts the nodes into o's runs.
func (s *Solver) makeOrder(o *nodeOrder) {
	recs := s.fitRecs
	domains := 1
	if o.topo != nil {
		domains += len(o.topo.Size)
	}
	// Place the nodes by domain, then sort each domain's keys: shape,
	// cpu plus memory parts falling, node.
	start := make([]int32, domains+1)
	pdOf := func(n int) int {
		if o.topo == nil {
			return 0
		}
		return int(o.topo.Of[n]) + 1
	}
	start[1] = int32(len(recs)) // the nodes lacking the key: all less the domains'
	if o.topo != nil {
		for d, k := range o.topo.Size {
			start[1] -= k
			start[d+2] = k
		}
	}
	for pd := range domains {
		start[pd+1] += start[pd]
	}
	// A node's shape changed, or taints or cordons did (the groups'
	// feasible runs go with the order): sort all anew.
	remade := len(o.nodes) == len(recs) && !o.remake
	if !remade || len(s.poolOf) != len(recs) {
		s.nodePools()
	}
	pools := s.poolOf
	key := func(n index.NodeID) uint64 {
		r := recs[n]
		free := uint64(1<<17 - 1 - (uint32(r.cpu) + uint32(r.mem)))
		return uint64(r.shape)<<56 | uint64(pools[n])<<49 | free<<32 | uint64(n)
	}
	o.keys = slices.Grow(o.keys[:0], len(recs))[:len(recs)]
	if !remade {
		next := slices.Clone(start[:domains])
		for n := range recs {
			pd := pdOf(n)
			o.keys[next[pd]] = key(index.NodeID(n))
			next[pd]++
		}
	}
	// A remake reads each node's records and tie from the order as last
	// made, kept current and read there nearly in sequence, rather than
	// from the node arrays at random.
	var prevRecs []fitRec
	var prevTies []uint32
	var prevScores []scoreRec
	if remade {
		o.recs, o.prevRecs = o.prevRecs, o.recs
		o.ties, o.prevTies = o.prevTies, o.ties
		o.scores, o.prevScores = o.prevScores, o.scores
		prevRecs, prevTies, prevScores = o.prevRecs, o.prevTies, o.prevScores
	}
	o.nodes = slices.Grow(o.nodes[:0], len(recs))[:len(recs)]
	o.recs = slices.Grow(o.recs[:0], len(recs))[:len(recs)]
	o.ties = slices.Grow(o.ties[:0], len(recs))[:len(recs)]
	o.scores = slices.Grow(o.scores[:0], len(recs))[:len(recs)]
	o.pos = slices.Grow(o.pos[:0], len(recs))[:len(recs)]
	o.runOf = slices.Grow(o.runOf[:0], len(recs))[:len(recs)]
	if len(o.segs) != domains {
		o.segs = make([][]shapeSeg, domains)
	}
	// A domain's nodes, runs and tails are ranges of their own, and a
	// node stays in its domain: the domains are made on every processor,
	// their keys sorted and runs counted first (runs are numbered across
	// the domains), then their runs made.
	workers := min(s.procCount(), domains)
	for len(o.work) < workers {
		o.work = append(o.work, orderWork{})
	}
	runsTo := slices.Grow(o.runsTo[:0], domains+1)[:domains+1] // runsTo[pd+1]: domain pd's runs, then their end
	o.runsTo = runsTo
	var next atomic.Int32
	eachDomain := func(f func(pd int, wk *orderWork)) {
		next.Store(0)
		s.eachWorker(workers, func(w int) {
			for pd := int(next.Add(1)) - 1; pd < domains; pd = int(next.Add(1)) - 1 {
				f(pd, &o.work[w])
			}
		})
	}
	eachDomain(func(pd int, wk *orderWork) {
		keys := o.keys[start[pd]:start[pd+1]]
		if remade {
			o.mergeMoved(keys, key, &wk.moved)
		} else {
			slices.Sort(keys)
		}
		runsTo[pd+1] = int32(runsIn(keys))
	})
	runsTo[0] = 0
	for pd := range domains {
		runsTo[pd+1] += runsTo[pd]
	}
	total := int(runsTo[domains])
	o.runs = slices.Grow(o.runs[:0], total)[:total]
	o.tail = slices.Grow(o.tail[:0], total)[:total]
	o.segLo = slices.Grow(o.segLo[:0], total)[:total]
	eachDomain(func(pd int, wk *orderWork) {
		keys := o.keys[start[pd]:start[pd+1]]
		j := runsTo[pd]
		segs := o.segs[pd][:0]
		for i := 0; i < len(keys); {
			shape, seg := uint8(keys[i]>>56), keys[i]>>49
			sg := shapeSeg{lo: j, shape: shape}
			for i < len(keys) && keys[i]>>49 == seg {
				r := nodeRun{start: start[pd] + int32(i), shape: shape}
				// The run's nodes in tie order, highest first, then by
				// id (see scanRuns).
				run := wk.run[:0]
				for ; i < len(keys) && len(run) < runLen && keys[i]>>49 == seg; i++ {
					n := uint32(keys[i])
					run = append(run, uint64(^s.ties[n])<<32|uint64(n))
				}
				slices.Sort(run)
				for _, k := range run {
					n := index.NodeID(uint32(k))
					p := r.start + int32(r.n)
					if remade {
						q := o.pos[n] // n's place as last made: this domain's
						o.nodes[p], o.recs[p], o.ties[p], o.scores[p] = n, prevRecs[q], prevTies[q], prevScores[q]
					} else {
						o.nodes[p], o.recs[p], o.ties[p], o.scores[p] = n, recs[n], s.ties[n], s.hot[n].scoreRec
					}
					o.pos[n], o.runOf[n] = p, j
					r.n++
				}
				wk.run = run
				o.runs[j] = r
				o.runs[j].takeMaxima(o)
				j++
			}
			sg.hi = j
			segs = append(segs, sg)
			o.takeTails(sg)
		}
		o.segs[pd] = segs
	})
	o.moved = slices.Grow(o.moved[:0], (len(recs)+63)/64)[:(len(recs)+63)/64]
	clear(o.moved)
	o.falls, o.remake = 0, false
	s.orderMakes++
	o.made = s.orderMakes
}

// nodePools sets poolOf to each node's pool: nodes of one pool have the
// same taints (the index's distinct taints, NodeTaints) and cordon, so
// that a group finds all of them feasible or none by those filters. Pools
// are numbered in order of first sight across the solver's life
// (poolIDs), up to maxPools - 1; the nodes of the pools after share the
// last number.
func (s *Solver) nodePools() {
	if s.poolIDs == nil {
		s.poolIDs = map[string]uint8{}
	}
	c := s.c
	s.poolOf = slices.Grow(s.poolOf[:0], len(c.Nodes))[:len(c.Nodes)]
	var buf []byte
	for n := range c.Nodes {
		taints, cordoned := c.NodeTaints[n], c.Nodes[n].Unschedulable
		if len(taints) == 0 && !cordoned {
			s.poolOf[n] = 0
			continue
		}
		buf = buf[:0]
		if cordoned {
			buf = append(buf, 1)
		}
		for _, ti := range taints {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(ti))
		}
		id, ok := s.poolIDs[string(buf)]
		if !ok {
			id = uint8(min(len(s.poolIDs)+1, maxPools-1))
			s.poolIDs[string(buf)] = id
		}
		s.poolOf[n] = id
	}
}

// maxPools is how many pool numbers a run order's keys hold (7 bits).
const maxPools = 128

// mergeMoved sets keys, a domain's sorted keys as last made, to its
// nodes' sorted keys now: those whose records did not move since keep
// their key and place, and the others are sorted apart (in scratch, the
// worker's) and merged in.
func (o *nodeOrder) mergeMoved(keys []uint64, key func(index.NodeID) uint64, scratch *[]uint64) {
	moved := (*scratch)[:0]
	kept := 0
	for _, k := range keys {
		if n := index.NodeID(uint32(k)); o.moved[n>>6]&(1<<(n&63)) != 0 {
			moved = append(moved, key(n))
		} else {
			keys[kept] = k
			kept++
		}
	}
	slices.Sort(moved)
	*scratch = moved
	// Merge from the back, into the room the moved keys leave.
	i, j := kept-1, len(moved)-1
	for k := len(keys) - 1; j >= 0; k-- {
		if i >= 0 && keys[i] > moved[j] {
			keys[k] = keys[i]
			i--
		} else {
			keys[k] = moved[j]
			j--
		}
	}
}

// takeMaxima sets run r of o's maxima from its nodes' records.
func (r *nodeRun) takeMaxima(o *nodeOrder) {
	r.cpu, r.mem, r.sum, r.balCap, r.stale = 0, 0, 0, 0, false
	r.dmin, r.dmax = math.MaxInt16, math.MinInt16
	for _, f := range o.recs[r.start : r.start+int32(r.n)] {
		r.raise(f)
	}
}

// runsIn returns the runs a domain's sorted keys make: each shape
// segment's nodes, runLen at a time.
func runsIn(keys []uint64) int {
	runs := 0
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j]>>49 == keys[i]>>49 {
			j++
		}
		runs += (j - i + runLen - 1) / runLen
		i = j
	}
	return runs
}

// takeTails sets the tail maxima of segment sg's runs.
func (o *nodeOrder) takeTails(sg shapeSeg) {
	copy(o.tail[sg.lo:sg.hi], o.runs[sg.lo:sg.hi])
	for j := sg.lo; j < sg.hi; j++ {
		o.segLo[j] = sg.lo
	}
	for j := sg.hi - 2; j >= sg.lo; j-- {
		o.tail[j].merge(&o.tail[j+1])
	}
}

// merge lifts r's maxima to q's.
func (r *nodeRun) merge(q *nodeRun) {
	r.cpu, r.mem, r.sum, r.balCap = max(r.cpu, q.cpu), max(r.mem, q.mem), max(r.sum, q.sum), max(r.balCap, q.balCap)
	r.dmin, r.dmax = min(r.dmin, q.dmin), max(r.dmax, q.dmax)
}

// covers reports whether r's maxima bound record f.
func (r *nodeRun) covers(f fitRec) bool {
	return f.cpu <= r.cpu && f.mem <= r.mem && uint32(f.cpu)+uint32(f.mem) <= r.sum && f.balCap <= r.balCap && r.dmin <= f.d && f.d <= r.dmax
}

// raise lifts r's maxima to record f.
func (r *nodeRun) raise(f fitRec) {
	r.cpu, r.mem, r.balCap = max(r.cpu, f.cpu), max(r.mem, f.mem), max(r.balCap, f.balCap)
	r.sum = max(r.sum, uint32(f.cpu)+uint32(f.mem))
	r.dmin, r.dmax = min(r.dmin, f.d), max(r.dmax, f.d)
}

// noteRec keeps the run orders' maxima bounds as node n's shape record
// changes from was to now.
func (s *Solver) noteRec(n index.NodeID, was, now fitRec) {
	for _, o := range s.orderList {
		if o.remake {
			continue
		}
		r := &o.runs[o.runOf[n]]
		if now.shape != r.shape {
			o.remake = true
			continue
		}
		o.recs[o.pos[n]] = now
		o.moved[n>>6] |= 1 << (n & 63)
		r.raise(now)
		// The tails from the segment's start to r's hold r's: lift
		// them back to the first that covers now (those before it do).
		for j := o.runOf[n]; j >= o.segLo[o.runOf[n]] && !o.tail[j].covers(now); j-- {
			o.tail[j].raise(now)
		}
		if now.cpu < was.cpu || now.mem < was.mem || now.balCap < was.balCap || now.d != was.d {
			r.stale = true
			o.falls++
		}
	}
}

// runUpper bounds shapeUpper on every node of run r for shares sh. A
// node's per-resource parts rc and rm are at most the run's maxima's, and
// their sum, max(rc + rm, rc, rm, 0), at most the same with rc + rm
// bounded from the run's highest sum: floor(x / 256) + floor(y / 256) is
// at most floor((x + y) / 256).
func runUpper(r *nodeRun, sh []shapeShare) int64 {
	k := &sh[r.shape]
	rc, rm := max((int64(r.cpu)-k.cpu)>>8, 0), max((int64(r.mem)-k.mem)>>8, 0)
	sum := min(rc+rm, max((int64(r.sum)-k.cpu-k.mem)>>8, rc, rm))
	// balanceBound falls as d rises when dq > 0, rises when dq < 0.
	d := r.dmax
	if k.dq > 0 {
		d = r.dmin
	}
	bal := k.balanceBound(int64(d))
	return weightFit*(sum/2) + min(bal, weightBalanced*int64(r.balCap))
}

// staticMax returns the most class cl's static scores can be on a node.
func staticMax(cl *class) int64 {
	st := slices.Max(cl.ttScore) + slices.Max(cl.naScore)
	if cl.hasImg {
		st += int64(cl.imgRef.max)
	}
	return st
}

// classSegs returns in buf domain pd's shape segments of o holding a run
// of feas (a group's feasible runs, see feasibleRuns), the one whose first
// run bounds highest for shares sh first (ties in their order). Segments
// are split by pool too (nodePools): most hold no node a group finds
// feasible, and are left out before their bounds are computed.
func classSegs(o *nodeOrder, pd int, sh []shapeShare, feas []uint64, buf []shapeSeg) []shapeSeg {
	buf = buf[:0]
	for _, sg := range o.segs[pd] {
		if anyIn(feas, sg.lo, sg.hi) {
			buf = append(buf, sg)
		}
	}
	// Each segment's bound once, then an insertion sort (stable), highest
	// first: a domain's segments holding feasible runs are few.
	var small [64]int64
	keys := small[:0]
	if len(buf) > len(small) {
		keys = make([]int64, 0, len(buf))
	}
	for i := range buf {
		k, sg := runUpper(&o.runs[buf[i].lo], sh), buf[i]
		keys = append(keys, k)
		j := i
		for ; j > 0 && keys[j-1] < k; j-- {
			keys[j], buf[j] = keys[j-1], buf[j-1]
		}
		keys[j], buf[j] = k, sg
	}
	return buf
}

// anyIn reports whether bitset b holds a bit in [lo, hi).
func anyIn(b []uint64, lo, hi int32) bool {
	if lo >= hi {
		return false
	}
	first, last := lo>>6, (hi-1)>>6
	for w := first; w <= last; w++ {
		x := b[w]
		if w == first {
			x &= ^uint64(0) << (lo & 63)
		}
		if w == last {
			x &= ^uint64(0) >> (63 - (hi-1)&63)
		}
		if x != 0 {
			return true
		}
	}
	return false
}

// feasibleRuns returns a bitset of the runs of o holding a node group g
// finds feasible, made if g holds none for o as made now.
func (s *Solver) feasibleRuns(g *group, o *nodeOrder) []uint64 {
	if g.runsOf == o && g.runsMade == o.made {
		return g.runs
	}
	rs := slices.Grow(g.runs[:0], (len(o.runs)+63)/64)[:(len(o.runs)+63)/64]
	o.runsHolding(rs, g.dense, g.feasCard < sparseRuns*len(o.runs))
	g.runs, g.runsOf, g.runsMade = rs, o, o.made
	return rs
}

// sparseRuns is the feasible nodes per run below which runsHolding visits
// the nodes rather than the runs.
const sparseRuns = 4

// runsHolding sets rs to the runs of o holding a node of dense: from the
// nodes of dense (sparse), or run by run until a node of dense.
func (o *nodeOrder) runsHolding(rs, dense []uint64, sparse bool) {
	clear(rs)
	if sparse {
		for wi, word := range dense {
			for x := word; x != 0; x &= x - 1 {
				j := o.runOf[wi*64+bits.TrailingZeros64(x)]
				rs[j>>6] |= 1 << (j & 63)
			}
		}
		return
	}
	for j := range o.runs {
		r := &o.runs[j]
		for _, n := range o.nodes[r.start : r.start+int32(r.n)] {
			if dense[n>>6]&(1<<(n&63)) != 0 {
				rs[j>>6] |= 1 << (j & 63)
				break
			}
		}
	}
}
