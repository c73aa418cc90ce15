package solver

import (
	"math"

	"github.com/kplace/kplace/index"
)

// Preemption candidates: a node's criteria in kube-scheduler's node-choice
// order, and the heap they are taken from (see preempt.go).

// candidate is a node where preemption makes room, with kube-scheduler's
// node-choice criteria.
type candidate struct {
	sum     int64 // sum of victim priorities, each shifted by 2^31
	start   int64 // earliest start of the highest-priority victims (later is better)
	viol    int32 // victims whose PDB is violated
	maxPrio int32 // highest victim priority
	count   int32 // victims
	node    index.NodeID
	gen     uint32 // node generation when evaluated
	pgen    uint32 // the node's budget generation when evaluated (see sureViol.gen)
	// vic is, for an evaluated node of a columnar class, 1 + the offset of
	// its victims (count of them) in preState.vics; 0 when not kept.
	vic int32
	// exact is false for a lower bound on the first four criteria (start
	// unknown), found in O(1) from the node's lower-priority sums.
	exact bool
	// sample marks a bound of a node a build sampled (see sampleSize); its
	// start is then at least the exact one (see startBound).
	sample bool
}

// tied reports whether c takes part in the start-time tie-break: an
// evaluated node, or the bound of a sampled one.
func (c *candidate) tied() bool { return c.exact || c.sample }

// add counts victim e (viol: its eviction violates a budget) into c's
// criteria.
func (c *candidate) add(e *podEnt, viol bool) { c.addVictim(e.prio, e.start, viol) }

// addVictim counts a victim of priority prio and start time start.
func (c *candidate) addVictim(prio int32, start int64, viol bool) {
	if viol {
		c.viol++
	}
	c.sum += int64(prio) + math.MaxInt32 + 1
	switch {
	case prio > c.maxPrio:
		c.maxPrio, c.start = prio, start
	case prio == c.maxPrio:
		c.start = min(c.start, start)
	}
}

// betterCand orders candidates, best first.
func betterCand(a, b *candidate) bool {
	switch {
	case a.viol != b.viol:
		return a.viol < b.viol
	case a.maxPrio != b.maxPrio:
		return a.maxPrio < b.maxPrio
	case a.sum != b.sum:
		return a.sum < b.sum
	case a.count != b.count:
		return a.count < b.count
	case a.tied() != b.tied():
		return a.tied() // start decides among evaluated and sampled nodes
	case a.start != b.start:
		return a.start > b.start // a sampled node's bound: the latest its start may be
	case a.exact != b.exact:
		return !a.exact // a sampled node before an evaluated one it may tie with
	}
	return a.node < b.node
}

func sameCand(a, b *candidate) bool {
	return a.viol == b.viol && a.maxPrio == b.maxPrio && a.sum == b.sum && a.count == b.count && a.start == b.start
}

// Hand-written rather than the generic heap (binheap.go): with it for
// candidates, blocks and keys, BenchmarkPreemption took 7% more CPU
// (median of 5 interleaved runs of 30 solves, GOMAXPROCS=1: 1.54 s, 1.65 s).
type candHeap []candidate

func (h *candHeap) push(c candidate) {
	*h = append(*h, c)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !betterCand(&a[i], &a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *candHeap) pop() {
	a := *h
	n := len(a) - 1
	a[0] = a[n]
	*h = a[:n]
	h.down(0)
}

// init orders the heap in O(n).
func (h candHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h candHeap) down(i int) {
	a, n := h, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && betterCand(&a[r], &a[l]) {
			m = r
		}
		if !betterCand(&a[m], &a[i]) {
			return
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
}
