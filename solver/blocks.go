package solver

import (
	"math"
	"math/bits"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Lazy bounding. A preempting class's candidates are taken in bound order,
// but most of them are never popped: bounding every feasible node at each
// build costs more than the dry runs themselves. Instead, the feasible
// nodes are split into blocks of 64 (one word of the group's feasible
// bitset), each queued by a floor of its unbounded nodes' bounds (node:
// the first of them), and a block's next node is bounded into the class
// heap only when the floor beats the heap's top. Pops then follow the same
// order as with every node bounded up front: an entry is popped only when
// it beats the floor of every block, so it beats every bound not yet made.
//
// A block's floor is found from the nodes' lower-priority sums alone, in
// a few operations per node (see blockFloor), while bounding a node costs
// its filters, its bound and a heap push; a build queues every block with
// the least floor a block can have and finds a block's own only when it
// reaches the top (see pushBlocks). A block from which several nodes came
// out above the floor is refined: its nodes' bounds are computed alone,
// word by word, into a small heap, and its floor follows them (see
// blockEnt).
//
// Most nodes of a cluster full of pods of the lowest priority have the
// least bound there is: one victim of that priority. Their test is a
// word's (leastWord), so a build takes its sample among them by scanning
// the blocks in node order (sampleLeast) and settle bounds a block's nodes
// of that bound at once (scanLeast); the other nodes' floor is then the
// next bound.

// noCandidate is a floor above every candidate: the nodes have none (they
// are bounded still, when the heap has nothing better, for their failure
// bits).
var noCandidate = bound(math.MaxInt32, 0, 0, 0)

// blockFloor returns a candidate that no bound of the nodes of word (of
// block b) beats, for class cl with threshold j (see lowerBound): its
// highest victim priority is the lowest any of the nodes may have: the
// threshold below the first at which one of them fits with the
// lower-priority pods removed; its node is the first of them.
// noCandidate when none can be a candidate.
func (s *Solver) blockFloor(cl *class, b int, word uint64, j int) candidate {
	c := s.c
	d := &cl.demand
	out := bound(0, math.MinInt32, 1, 0)
	out.Node = index.NodeID(b*64 + bits.TrailingZeros64(word))
	if j < 0 {
		return out // lowerBound's weakest bound, for every node
	}
	// fitsAt reports whether some node of word fits at threshold k, with
	// the surely violating pods kept when sure is not nil (see nodeBound).
	fitsAt := func(k int, sure [][]int64) bool {
		for w := word; w != 0; w &= w - 1 {
			if s.fitsAtNode(d, index.NodeID(b*64+bits.TrailingZeros64(w)), k, sure) {
				return true
			}
		}
		return false
	}
	// A candidate fits with every lower-priority pod removed (threshold
	// j): without one, the block has none.
	if !fitsAt(j, nil) {
		out = noCandidate
		out.Node = index.NodeID(b*64 + bits.TrailingZeros64(word))
		return out
	}
	k := s.firstThreshold(cl)
	for k < j && !fitsAt(k, nil) {
		k++
	}
	if sj := s.sureSums(j); sj != nil && anyKept(sj[index.ResPods][b*64:], word) {
		// The nodes that fit with the surely violating pods kept have
		// the lower bounds; without one, every node's bound violates.
		if !fitsAt(j, s.sureSums(j)) {
			out.Viol = 1
		} else {
			for k < j && !fitsAt(k, s.sureSums(k)) {
				k++
			}
		}
	}
	if k > 0 {
		out.MaxPrio = c.LowPrio[k-1]
	}
	out.Sum = rules.ShiftedPrio(out.MaxPrio)
	return out
}

// anyKept reports whether any node of word counts a surely violating pod
// (pods: the block's slice of the pod counts).
func anyKept(pods []int64, word uint64) bool {
	for ; word != 0; word &= word - 1 {
		if pods[bits.TrailingZeros64(word)] > 0 {
			return true
		}
	}
	return false
}

// blockEnt is a block with nodes not yet bounded for a class, keyed by
// its floor. A block is refined when its floor first beats the heap's
// top: its nodes' bounds are computed alone (lowerBound, without the
// filters, the failure bits or a heap push), and its floor becomes the
// least of them, so that only nodes whose own bound beats the top are
// bounded into the heap.
type blockEnt struct {
	floor candidate
	block int32
	ver   uint32
	// keys is, for a refined block, the offset in preState.keys of its
	// unbounded nodes' bounds, a keyHeap of left entries; -1 if not
	// refined.
	keys, left int32
	// loose counts the nodes bounded in node order since the entry was
	// made whose bound is above the floor (possibly bounded for nothing).
	loose int32
	// lazy marks a floor not found yet: the class's least (see
	// pushBlocks).
	lazy bool
}

// refineAfter is how many nodes of a block are bounded above its floor,
// in node order, before the block is refined: refining costs a bound per
// node left, worth it when most of them are not needed.
const refineAfter = 8

// nodeKey is a node's bound on the first four criteria, kept in a refined
// block. Its priority sum follows from the others (see finishKey and
// sum).
//
// The violation (0 or 1), highest victim priority and victim count are
// packed into rank, most significant first, so that one comparison orders
// keys as betterCand orders bounds: for equal highest priorities the sum
// grows with the count (by a non-negative step), so the count decides both.
type nodeKey struct {
	rank uint64 // viol (bit 63), maxPrio + 2^31 (bits 31-62), count (bits 0-30)
	off  int32  // the node's offset in the block
}

// makeKey packs a bound: viol 0 or 1, count 1 to MaxInt32.
func makeKey(viol, maxPrio, count int32) nodeKey {
	return nodeKey{rank: uint64(viol)<<63 | uint64(uint32(maxPrio)^1<<31)<<31 | uint64(count)}
}

func (k *nodeKey) viol() int32    { return int32(k.rank >> 63) }
func (k *nodeKey) maxPrio() int32 { return int32(uint32(k.rank>>31) ^ 1<<31) }
func (k *nodeKey) count() int32   { return int32(k.rank & math.MaxInt32) }

// sum is k's bound on the sum of victim priorities: the highest, then the
// lowest priority in use (s.minPrio) for each other victim, each shifted
// by 2^31 as rules.Candidate.Sum is (rules.ShiftedPrio).
func (k *nodeKey) sum(minPrio int32) int64 {
	return rules.ShiftedPrio(k.maxPrio()) + int64(k.count()-1)*rules.ShiftedPrio(minPrio)
}

// bound is k as a candidate's bound (no node).
func (k *nodeKey) bound(minPrio int32) candidate {
	return bound(k.viol(), k.maxPrio(), k.count(), k.sum(minPrio))
}

// keyLess orders node keys as betterCand orders bounds (see nodeKey).
func keyLess(a, b *nodeKey) bool { return a.rank < b.rank }

// blockHeap is the blocks by floor, best first.
// Hand-written rather than the generic heap (binheap.go): with it for
// candidates, blocks and keys, BenchmarkPreemption took 7% more CPU
// (median of 5 interleaved runs of 30 solves, GOMAXPROCS=1: 1.54 s, 1.65 s).
type blockHeap []blockEnt

func (h *blockHeap) push(e blockEnt) {
	*h = append(*h, e)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !betterCand(&a[i].floor, &a[p].floor) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *blockHeap) pop() {
	a := *h
	n := len(a) - 1
	a[0] = a[n]
	*h = a[:n]
	h.fixTop()
}

// fixTop restores the heap order after the top's floor grew.
func (h blockHeap) fixTop() {
	a, n := h, len(h)
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && betterCand(&a[r].floor, &a[l].floor) {
			m = r
		}
		if !betterCand(&a[m].floor, &a[i].floor) {
			return
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
}

// pushBlock queues the nodes of block b of the class's feasible set not
// bounded yet (replacing the block's former entry) with the least floor,
// its own found when it reaches the top (see pushBlocks): a sync's changed
// blocks mostly lie below the entries of the least bound in the heap.
func (s *Solver) pushBlock(cl *class, ps *preState, j int, b int) {
	ps.ver[b]++
	word := cl.g.dense[b] &^ ps.bounded[b]
	if word == 0 {
		return
	}
	least := s.leastFloor(cl, j)
	least.Node = index.NodeID(b*64 + bits.TrailingZeros64(word))
	ps.blocks.push(blockEnt{floor: least, block: int32(b), ver: ps.ver[b], keys: -1, lazy: true})
}

// pushBlocks queues every block of the class's feasible set (a build: no
// node is bounded but those sampleLeast found) with floor least, the
// least any block may have (see leastFloor) or, after sampleLeast found
// every node of that bound, the next one; a block's real floor is found
// when it reaches the top (see settle): most blocks never do. A columnar
// class's block without a candidate is bounded at once instead (the test
// stops at the first candidate, usually early).
func (s *Solver) pushBlocks(cl *class, ps *preState, j int, least candidate) {
	cols := s.columnarCols(cl, j)
	var masks [64]uint64
	for b, word := range cl.g.dense {
		ps.ver[b]++
		if word &^= ps.bounded[b]; word == 0 {
			continue
		}
		if cols != nil && s.columnarVerdicts(cols, j, b, word, &masks, true) == 0 {
			s.setMasks(ps, b, word, &masks)
			continue
		}
		least.Node = index.NodeID(b*64 + bits.TrailingZeros64(word))
		ps.blocks = append(ps.blocks, blockEnt{floor: least, block: int32(b), ver: ps.ver[b], keys: -1, lazy: true})
	}
	// Floors grow with the block (the first node first): already a heap.
}

// leastFloor is the floor blockFloor finds when a node fits at the first
// threshold it tries, with no violation: no bound of class cl (threshold
// j) is below it.
func (s *Solver) leastFloor(cl *class, j int) candidate {
	out := bound(0, math.MinInt32, 1, 0)
	if j >= 0 {
		if k := s.firstThreshold(cl); k > 0 {
			out.MaxPrio = s.c.LowPrio[k-1]
		}
		out.Sum = rules.ShiftedPrio(out.MaxPrio)
	}
	return out
}

// boundAll bounds every node of the class's feasible set not bounded yet.
// A columnar class's nodes take their verdicts from the columns (see
// columnarVerdicts); only its candidates are evaluated in full.
func (s *Solver) boundAll(cl *class, ps *preState, prio int32) {
	j := s.c.LowIndex(prio)
	cols := s.columnarCols(cl, j)
	var masks [64]uint64
	for b, word := range cl.g.dense {
		word &^= ps.bounded[b]
		if word == 0 {
			continue
		}
		if cols != nil {
			cand := s.columnarVerdicts(cols, j, b, word, &masks, false)
			s.setMasks(ps, b, word&^cand, &masks)
			word = cand
		}
		ps.bounded[b] |= word
		ps.ver[b]++
		for ; word != 0; word &= word - 1 {
			s.evalInto(cl, ps, prio, index.NodeID(b*64+bits.TrailingZeros64(word)))
		}
	}
	ps.blocks = ps.blocks[:0]
}

// resCols are one requested resource's columns for columnarVerdicts.
type resCols struct {
	alloc, req, low []int64
	val             int64
	bit             uint64
}

// columnarCols returns the columns of the class's requests at threshold j,
// or nil unless the class is columnar: no host ports, no pod-relative
// filter, and a preemptor priority with O(1) sums (j >= 0).
func (s *Solver) columnarCols(cl *class, j int) []resCols {
	if j < 0 || len(cl.demand.Ports) > 0 || cl.rel != nil && len(cl.rel.deps) > 0 || s.cfg.sw.noColumnarVerdicts {
		return nil
	}
	c := s.c
	nres := len(c.ResNames)
	cols := s.pre.cols[:0]
	for _, rv := range cl.demand.Req {
		cols = append(cols, resCols{alloc: c.Alloc[rv.Res], req: c.Req[rv.Res], low: c.Low[j*nres+int(rv.Res)], val: rv.Val,
			bit: maskRes << min(rv.Res, maxMaskRes-1)})
	}
	s.pre.cols = cols
	return cols
}

// columnarVerdicts is evalNode's verdict on each node of word (block b) for
// a columnar class (cols, threshold j), into masks by offset: a request above
// allocatable is not helpful; no lower-priority pod, no victims; else the
// resources (and pod count) still short once every lower-priority pod is
// gone. It returns the nodes with none short, the candidates, whose
// verdict needs the full evaluation; with stop, it returns at the first.
func (s *Solver) columnarVerdicts(cols []resCols, j int, b int, word uint64, masks *[64]uint64, stop bool) uint64 {
	var cand uint64
	for ; word != 0; word &= word - 1 {
		i := bits.TrailingZeros64(word)
		m := s.columnarVerdict(cols, j, b*64+i)
		if m == 0 {
			cand |= 1 << i
			if stop {
				return cand
			}
		}
		masks[i] = m
	}
	return cand
}

// columnarVerdict is columnarVerdicts' verdict on node n: its failure bits, 0
// for a candidate.
func (s *Solver) columnarVerdict(cols []resCols, j int, n int) uint64 {
	c := s.c
	for k := range cols {
		if rules.Unresolvable(cols[k].val, cols[k].alloc[n]) {
			return maskNotHelpful
		}
	}
	lowPods := c.Low[j*len(c.ResNames)+index.ResPods][n]
	if lowPods == 0 {
		return maskNoVictims
	}
	var m uint64
	if !rules.PodsFit(c.Req[index.ResPods][n]-lowPods, c.Alloc[index.ResPods][n]) {
		m |= maskTooMany
	}
	for k := range cols {
		if col := &cols[k]; !rules.Fits(col.req[n]-col.low[n], col.val, col.alloc[n]) {
			m |= col.bit
		}
	}
	return m
}

// columnarBound is evalNode's bound of node n for columnar class cl (cols and
// threshold j from columnarCols), given the node's bound k from blockKeys:
// the verdict from the columns (columnarVerdict), then k.
func (s *Solver) columnarBound(cl *class, cols []resCols, prio int32, j int, n index.NodeID, k *nodeKey) (candidate, uint64) {
	if m := s.columnarVerdict(cols, j, int(n)); m != 0 {
		return candidate{}, m
	}
	return s.columnarCand(cl, prio, j, n, k), 0
}

// columnarCand is the bound of candidate node n (columnarVerdict 0) from its
// key k.
func (s *Solver) columnarCand(cl *class, prio int32, j int, n index.NodeID, k *nodeKey) candidate {
	out := k.bound(s.minPrio)
	out.Node, out.gen, out.pgen = n, s.c.Gen[n], s.pgenOf(n)
	if s.cfg.sw.checkBound != nil {
		slackPods := rules.Slack(s.c.Req[index.ResPods][n]-s.c.LowerRequested(j, prio, index.ResPods, n), 1, s.c.Alloc[index.ResPods][n])
		s.cfg.sw.checkBound(cl, out, s.selectVictims(cl, prio, n, j, slackPods, nil))
	}
	return out
}

// columnarNodeBound is evalNode's bound of node n for columnar class cl (cols
// and threshold j from columnarCols), from the columns alone: columnarVerdict,
// then nodeBound.
func (s *Solver) columnarNodeBound(cl *class, cols []resCols, prio int32, j int, n index.NodeID) (candidate, uint64) {
	if m := s.columnarVerdict(cols, j, int(n)); m != 0 {
		return candidate{}, m
	}
	k := s.nodeBound(cl, n, j)
	return s.columnarCand(cl, prio, j, n, &k), 0
}

// setMasks bounds the nodes of word (block b) with their failure masks.
func (s *Solver) setMasks(ps *preState, b int, word uint64, masks *[64]uint64) {
	ps.bounded[b] |= word
	lastMask, lastID := uint64(0), uint16(0)
	for ; word != 0; word &= word - 1 {
		i := bits.TrailingZeros64(word)
		n := index.NodeID(b*64 + i)
		if m := masks[i]; m != lastMask || lastID == 0 {
			ps.setMask(n, m)
			lastMask, lastID = m, ps.maskOf[n]
			continue
		}
		ps.maskOf[n] = lastID
	}
}

// settle drops stale entries from the top of the class heap and bounds,
// in floor order, the nodes of the blocks whose floor beats it, until the
// top beats every block left (or none is left). It reports whether the
// heap has an entry.
func (s *Solver) settle(cl *class, ps *preState, prio int32) bool {
	gen := s.c.Gen
	dense := cl.g.dense
	j := s.c.LowIndex(prio)
	cols := s.columnarCols(cl, j)
	// The least bound (one victim at the first threshold) and the next one
	// (two victims there), for scanLeast; none when not columnar.
	var least, next nodeKey
	k0 := s.firstThreshold(cl)
	scan := cols != nil && k0 >= 1 && k0 <= j && !s.cfg.sw.noLeastSample && !ps.sparse
	if scan {
		least, next = makeKey(0, s.c.LowPrio[k0-1], 1), makeKey(0, s.c.LowPrio[k0-1], 2)
	}
	for {
		for len(ps.heap) > 0 && (ps.heap[0].gen != gen[ps.heap[0].Node] || ps.heap[0].pgen != s.pgenOf(ps.heap[0].Node)) {
			ps.heap.pop() // stale: sync pushed the node's fresh bound
		}
		for len(ps.blocks) > 0 && ps.blocks[0].ver != ps.ver[ps.blocks[0].block] {
			ps.blocks.pop() // floored again since
		}
		if len(ps.blocks) == 0 || len(ps.heap) > 0 && !betterCand(&ps.blocks[0].floor, &ps.heap[0]) {
			return len(ps.heap) > 0
		}
		if len(ps.heap) == 0 && ps.blocks[0].floor.Viol == noCandidate.Viol {
			// Nothing but blocks without candidates: bound them all, for
			// their failure bits.
			s.boundAll(cl, ps, prio)
			continue
		}
		top := &ps.blocks[0]
		b := int(top.block)
		if scan && top.keys < 0 && top.floor.Viol == 0 && top.floor.MaxPrio == least.maxPrio() && top.floor.Count == 1 {
			s.scanLeast(cl, ps, prio, j, k0, cols, top, &least, &next)
			continue
		}
		if top.lazy {
			// Its real floor, or the one it had when higher (both hold).
			top.lazy = false
			if f := s.blockFloor(cl, b, dense[b]&^ps.bounded[b], j); betterCand(&top.floor, &f) {
				top.floor = f
			}
			ps.blocks.fixTop()
			continue
		}
		if top.keys < 0 && j >= 0 && top.floor.Viol != noCandidate.Viol && top.loose >= refineAfter {
			// Refine: the floor can only grow.
			top.keys = int32(len(ps.keys))
			ps.keys = s.blockKeys(cl, b, dense[b]&^ps.bounded[b], j, ps.keys)
			top.left = int32(len(ps.keys)) - top.keys
			s.refloorRefined(ps, top)
			continue
		}
		// Bound the floor's node: the first left in a block not refined
		// (the floor holds for the others, from the next one), the least
		// in a refined one.
		n := top.floor.Node
		ps.bounded[b] |= 1 << (n & 63)
		var cand candidate
		var mask uint64
		switch {
		case cols != nil && top.keys >= 0:
			cand, mask = s.columnarBound(cl, cols, prio, j, n, &ps.keys[top.keys])
		case cols != nil:
			cand, mask = s.columnarNodeBound(cl, cols, prio, j, n)
		default:
			cand, mask = s.evalNode(cl, prio, n, false)
		}
		switch {
		case dense[b]&^ps.bounded[b] == 0:
			ps.ver[b]++
			ps.blocks.pop()
		case top.keys >= 0:
			keyHeap(ps.keys[top.keys : top.keys+top.left]).pop()
			top.left--
			s.refloorRefined(ps, top)
		default:
			if mask == 0 && keyAbove(&cand, &top.floor) {
				top.loose++
			}
			top.floor.Node = index.NodeID(b*64 + bits.TrailingZeros64(dense[b]&^ps.bounded[b]))
			ps.blocks.fixTop()
		}
		ps.setMask(n, mask)
		if mask == 0 {
			ps.heap.push(cand)
		}
	}
}

// scanLeast bounds, for settle, the nodes of top's block (the heap's top,
// not refined) whose bound is the least (key least: one victim at
// threshold k0, see leastWord) into the class heap at once, and floors
// the block's other nodes at the next bound (next: two victims there), as
// sampleLeast does for a build: a word's test finds them for a fraction
// of the floor, refinement and node bounds settle spends on them.
func (s *Solver) scanLeast(cl *class, ps *preState, prio int32, j, k0 int, cols []resCols, top *blockEnt, least, next *nodeKey) {
	b := int(top.block)
	word := cl.g.dense[b] &^ ps.bounded[b]
	found := s.leastWord(cl, b, word, j, k0)
	for w := found; w != 0; w &= w - 1 {
		n := index.NodeID(b*64 + bits.TrailingZeros64(w))
		ps.bounded[b] |= 1 << (n & 63)
		m := s.columnarVerdict(cols, j, int(n)) // 0: it fits at k0 <= j
		ps.setMask(n, m)
		if m == 0 {
			ps.heap.push(s.columnarCand(cl, prio, j, n, least))
		}
	}
	rest := word &^ found
	if rest == 0 {
		ps.ver[b]++
		ps.blocks.pop()
		return
	}
	// The next bound, or the block's own floor when higher (found when it
	// reaches the top again: lazy).
	top.floor = next.bound(s.minPrio)
	top.floor.Node = index.NodeID(b*64 + bits.TrailingZeros64(rest))
	top.lazy, top.loose = true, 0
	ps.blocks.fixTop()
}

// keyAbove reports whether bound a is above floor f on the first four
// criteria (rules.BetterVictims).
func keyAbove(a, f *candidate) bool {
	worse, _ := rules.BetterVictims(&f.Candidate, &a.Candidate)
	return worse
}

// blockKeys appends to keys nodeBound's bound of each node of word (of
// block b), as a keyHeap (least bound, then node, first). The thresholds are tried
// for the whole word at once: first each node's first threshold with the
// lower-priority pods removed, then, for the nodes counting surely
// violating pods, the first from there with those pods kept (as nodeBound
// does node by node).
func (s *Solver) blockKeys(cl *class, b int, word uint64, j int, out []nodeKey) []nodeKey {
	var first [64]int8
	left := word
	for k := s.firstThreshold(cl); k <= j && left != 0; k++ {
		f := s.fitWord(cl, b, left, k, nil)
		for w := f; w != 0; w &= w - 1 {
			first[bits.TrailingZeros64(w)] = int8(k)
		}
		left &^= f
	}
	for w := left; w != 0; w &= w - 1 {
		first[bits.TrailingZeros64(w)] = int8(j + 1) // fits nowhere: as nodeBound
	}
	var viol uint64 // nodes whose bound counts a violation
	if sj := s.sureSums(j); sj != nil {
		kept := sj[index.ResPods][b*64:]
		var pend uint64 // nodes counting kept pods, fitting at some threshold
		for w := word &^ left; w != 0; w &= w - 1 {
			if o := bits.TrailingZeros64(w); kept[o] > 0 {
				pend |= 1 << o
			}
		}
		var from [64]int8
		for w := pend; w != 0; w &= w - 1 {
			o := bits.TrailingZeros64(w)
			from[o] = first[o]
		}
		for k := s.firstThreshold(cl); k <= j && pend != 0; k++ {
			var active uint64 // from their own first threshold on
			for w := pend; w != 0; w &= w - 1 {
				if o := bits.TrailingZeros64(w); int(from[o]) <= k {
					active |= 1 << o
				}
			}
			f := s.fitWord(cl, b, active, k, s.sureSums(k))
			for w := f; w != 0; w &= w - 1 {
				first[bits.TrailingZeros64(w)] = int8(k)
			}
			pend &^= f
		}
		viol = pend // no room with the kept pods: the first threshold stays
	}
	var keys [64]nodeKey
	if len(cl.demand.Req) > maxBlockRes {
		for w := word; w != 0; w &= w - 1 {
			o := bits.TrailingZeros64(w)
			keys[o] = s.finishKey(cl, index.NodeID(b*64+o), j, int(first[o]), int32(viol>>o&1))
		}
	} else {
		s.finishKeys(cl, b, word, j, &first, viol, &keys)
	}
	start := len(out)
	for w := word; w != 0; w &= w - 1 {
		o := bits.TrailingZeros64(w)
		keys[o].off = int32(o)
		out = append(out, keys[o])
	}
	keyHeap(out[start:]).init()
	return out
}

// keyHeap is a refined block's node bounds not bounded yet, least first
// (keyLess, then node): a heap, as a block is seldom consumed far. It is
// hand-written for the reason candHeap is.
type keyHeap []nodeKey

func keyBefore(a, b *nodeKey) bool {
	return a.rank < b.rank || a.rank == b.rank && a.off < b.off
}

func (h keyHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h keyHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && keyBefore(&h[r], &h[l]) {
			m = r
		}
		if !keyBefore(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// pop removes the least key; the heap is h[:len(h)-1] after.
func (h keyHeap) pop() {
	n := len(h) - 1
	h[0] = h[n]
	h[:n].down(0)
}

// maxBlockRes is the most requested columns finishKeys takes.
const maxBlockRes = 6

// finishKeys is finishKey for every node of word (of block b), given each
// node's first threshold and violation bit, with the block's columns
// taken once.
func (s *Solver) finishKeys(cl *class, b int, word uint64, j int, first *[64]int8, viol uint64, keys *[64]nodeKey) {
	c := s.c
	d := &cl.demand
	nres := len(c.ResNames)
	base := b * 64
	end := min(base+64, c.NumNodes())
	type col struct {
		req, alloc []int64
		val        int64
	}
	var cols [maxBlockRes]col
	for i, rv := range d.Req {
		cols[i] = col{req: c.Req[rv.Res][base:end], alloc: c.Alloc[rv.Res][base:end], val: rv.Val}
	}
	// The MaxOne columns of the last two thresholds used (a block's nodes
	// mostly share one or two).
	var ones [2][maxBlockRes][]int64
	oneAt, next := [2]int{-1, -1}, 0
	reqPods, allocPods := c.Req[index.ResPods][base:end], c.Alloc[index.ResPods][base:end]
	for w := word; w != 0; w &= w - 1 {
		o := bits.TrailingZeros64(w)
		k := int(first[o])
		maxPrio := int32(math.MinInt32)
		if k > 0 && k <= j {
			maxPrio = c.LowPrio[k-1]
		}
		one := min(k, j)
		slot := 0
		switch one {
		case oneAt[0]:
		case oneAt[1]:
			slot = 1
		default:
			slot, next = next, next^1
			oneAt[slot] = one
			for i, rv := range d.Req {
				ones[slot][i] = c.MaxOne[one*nres+int(rv.Res)][base:end]
			}
		}
		one1 := &ones[slot]
		count := rules.Deficit(reqPods[o], 1, allocPods[o])
		for i := range d.Req {
			cl := &cols[i]
			if deficit := rules.Deficit(cl.req[o], cl.val, cl.alloc[o]); deficit > 0 {
				if m := one1[i][o]; m > 0 {
					switch {
					case deficit <= m:
						count = max(count, 1)
					case deficit-m <= m:
						count = max(count, 2)
					default:
						count = max(count, (deficit+m-1)/m)
					}
				}
			}
		}
		keys[o] = makeKey(int32(viol>>o&1), maxPrio, int32(max(1, min(count, math.MaxInt32))))
	}
}

// fitWord returns the nodes of word (of block b) where class cl's demand
// fits once every pod below threshold k is removed, except, when sure is
// not nil, the pods whose eviction surely violates a budget (fitsAtNode
// for a word).
func (s *Solver) fitWord(cl *class, b int, word uint64, k int, sure [][]int64) uint64 {
	c := s.c
	nres := len(c.ResNames)
	low := c.Low[k*nres : (k+1)*nres]
	base := b * 64
	end := min(base+64, c.NumNodes())
	d := &cl.demand
	if len(d.Req) > maxBlockRes {
		var out uint64
		for w := word; w != 0; w &= w - 1 {
			if o := bits.TrailingZeros64(w); s.fitsAtNode(d, index.NodeID(base+o), k, sure) {
				out |= 1 << o
			}
		}
		return out
	}
	// Per column, what is left once the pods below k (but the kept ones)
	// are gone: alloc - (req - low + kept) >= val.
	type col struct {
		req, low, alloc, kept []int64
		val                   int64
	}
	var cols [maxBlockRes + 1]col
	cols[0] = col{req: c.Req[index.ResPods][base:end], low: low[index.ResPods][base:end], alloc: c.Alloc[index.ResPods][base:end], val: 1}
	for i, rv := range d.Req {
		cols[i+1] = col{req: c.Req[rv.Res][base:end], low: low[rv.Res][base:end], alloc: c.Alloc[rv.Res][base:end], val: rv.Val}
	}
	ncol := len(d.Req) + 1
	if sure != nil {
		cols[0].kept = sure[index.ResPods][base:end]
		for i, rv := range d.Req {
			cols[i+1].kept = sure[rv.Res][base:end]
		}
	}
	var out uint64
	for w := word; w != 0; w &= w - 1 {
		o := bits.TrailingZeros64(w)
		fits := true
		for i := range ncol {
			cl := &cols[i]
			used := cl.req[o] - cl.low[o]
			if cl.kept != nil {
				used += cl.kept[o]
			}
			if !rules.Fits(used, cl.val, cl.alloc[o]) {
				fits = false
				break
			}
		}
		if fits {
			out |= 1 << o
		}
	}
	return out
}

// refloorRefined sets the floor of refined block entry top (the heap's
// top) to its least node bound and restores the heap order.
func (s *Solver) refloorRefined(ps *preState, top *blockEnt) {
	k := &ps.keys[top.keys]
	top.floor = k.bound(s.minPrio)
	top.floor.Node = index.NodeID(int(top.block)*64 + int(k.off))
	ps.blocks.fixTop()
}

func (ps *preState) isBounded(n index.NodeID) bool { return ps.bounded[n>>6]&(1<<(n&63)) != 0 }

// sampleLeast is a build's sample (appended to sample) when the class's
// feasible set has at least sampleSize nodes whose bound is the least any
// node may have: those of them first in node order, the entries a build's
// settle pops first. In a cluster full of pods of the lowest priority most
// nodes have it (a victim of that priority frees enough), and a scan of the
// blocks in node order, word by word, finds them at a fraction of settle's
// cost (a floor, a refinement and a heap push per block). The sampled
// nodes are bounded (the blocks queued after leave them out). With fewer
// such nodes it reports false, and those it found, every one, are bounded
// into the class heap for settle to sample. floor is the least bound the
// nodes not bounded may have (for pushBlocks): the least one, or the next
// after a complete scan.
//
// The least bound is leastFloor's, one victim at the first threshold
// nodeBound tries; when that is 0 (nothing needs to go: the class has host
// ports, or pods lie below the lowest threshold) and no node fits at it, it
// is one victim at threshold 1. Classes with pod-relative filters are left
// to settle.
func (s *Solver) sampleLeast(cl *class, ps *preState, prio int32, j int, sample []candidate) ([]candidate, bool, candidate) {
	floor := s.leastFloor(cl, j)
	if j < 0 || cl.rel != nil && len(cl.rel.deps) > 0 || s.cfg.sw.noLeastSample {
		return sample, false, floor
	}
	k0, ok := s.leastThreshold(cl, j)
	if !ok {
		return sample, false, floor
	}
	cols := s.columnarCols(cl, j)
	key := makeKey(0, s.c.LowPrio[k0-1], 1)
	start := len(sample)
	scanned, sparseWords := 0, defaultSparseWords
	if s.cfg.sw.sparseWords != 0 {
		sparseWords = s.cfg.sw.sparseWords
	}
	for b, word := range cl.g.dense {
		if word == 0 {
			continue
		}
		if scanned++; scanned > sparseWords && len(sample) == start {
			// None so far: there are likely none (a cluster with room,
			// or without pods of the lowest priority); settle finds
			// the sample from the blocks' own floors.
			ps.sparse = true
			return sample, false, floor
		}
		for w := s.leastWord(cl, b, word, j, k0); w != 0; w &= w - 1 {
			n := index.NodeID(b*64 + bits.TrailingZeros64(w))
			var cand candidate
			if cols != nil {
				if s.columnarVerdict(cols, j, int(n)) != 0 {
					continue // cannot be: it fits at k0 <= j; be safe
				}
				cand = s.columnarCand(cl, prio, j, n, &key)
			} else {
				var mask uint64
				if cand, mask = s.evalNode(cl, prio, n, false); mask != 0 {
					continue // a host port held by a pod that stays
				}
				if cand.Viol != 0 || cand.MaxPrio != key.maxPrio() || cand.Count != 1 {
					return sample[:start], false, floor // cannot be (see leastWord); be safe
				}
			}
			sample = append(sample, cand)
			if len(sample)-start == sampleSize {
				break
			}
		}
		if len(sample)-start == sampleSize {
			break
		}
	}
	for _, e := range sample[start:] {
		ps.bounded[e.Node>>6] |= 1 << (e.Node & 63)
		ps.setMask(e.Node, 0)
	}
	if len(sample)-start == sampleSize {
		return sample, true, floor
	}
	// Every node of the least bound is found: bounded into the heap, where
	// settle takes them first; the others' bounds are the next one at least.
	for _, e := range sample[start:] {
		ps.heap.push(e)
	}
	next := makeKey(0, key.maxPrio(), 2)
	floor = next.bound(s.minPrio)
	return sample[:start], false, floor
}

// defaultSparseWords is how many words of the feasible set sampleLeast
// scans without finding a node of the least bound before it leaves the
// sample to settle (and settle stops scanning for them, see
// preState.sparse); tests may set another (switches.sparseWords).
const defaultSparseWords = 32

// leastThreshold returns the threshold k0 <= j of the least bound of class
// cl's nodes at threshold j (see sampleLeast), or false: the first one
// nodeBound tries, or 1 when that is 0 and no node fits at 0.
func (s *Solver) leastThreshold(cl *class, j int) (int, bool) {
	k0 := s.firstThreshold(cl)
	if k0 == 0 {
		for b, word := range cl.g.dense {
			if word != 0 && s.fitWord(cl, b, word, 0, nil) != 0 {
				return 0, false // bounds at threshold 0: left to settle
			}
		}
		k0 = 1
	}
	return k0, k0 <= j
}

// leastWord returns the nodes of word (block b) whose nodeBound for class
// cl (threshold j) is one victim at threshold k0 <= j, the least bound
// when no node fits below k0: they fit at k0, with the surely violating
// pods kept when they count any, and one pod below k0 frees each column's
// deficit.
func (s *Solver) leastWord(cl *class, b int, word uint64, j, k0 int) uint64 {
	f := s.fitWord(cl, b, word, k0, nil)
	if f == 0 {
		return 0
	}
	if sj := s.sureSums(j); sj != nil {
		kept := sj[index.ResPods][b*64:]
		var pend uint64
		for w := f; w != 0; w &= w - 1 {
			if o := bits.TrailingZeros64(w); kept[o] > 0 {
				pend |= 1 << o
			}
		}
		if pend != 0 {
			f &^= pend &^ s.fitWord(cl, b, pend, k0, s.sureSums(k0))
		}
	}
	c := s.c
	d := &cl.demand
	nres := len(c.ResNames)
	base := b * 64
	for w := f; w != 0; w &= w - 1 {
		o := bits.TrailingZeros64(w)
		n := base + o
		ok := rules.Deficit(c.Req[index.ResPods][n], 1, c.Alloc[index.ResPods][n]) <= 1
		for _, rv := range d.Req {
			if !ok {
				break
			}
			if deficit := rules.Deficit(c.Req[rv.Res][n], rv.Val, c.Alloc[rv.Res][n]); deficit > 0 {
				m := c.MaxOne[k0*nres+int(rv.Res)][n]
				ok = m <= 0 || deficit <= m
			}
		}
		if !ok {
			f &^= 1 << o
		}
	}
	return f
}
