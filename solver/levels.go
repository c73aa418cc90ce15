package solver

import (
	"math"
	"slices"

	"github.com/kplace/kplace/index"
)

// Level-ordered builds, for sessions.
//
// A session's batches are small (a few pods, each class once), so each
// build scans every feasible node to keep a few hundred entries: on a
// large cluster the scans are most of a batch. boundLevels files the nodes
// by their class-independent score bound (nodeHot.bound, which refreshNode
// keeps up to date), one bitset per value; a session's build visits the
// levels from the highest down and stops at the first level whose bound,
// with the class's best static scores, cannot beat the worst entry kept.
// The nodes left unvisited are recorded as a cut entry of that bound, so
// the heap is rebuilt before any of them could be the best: the result is
// a full scan's.

// levelCount is how many bound values get a level; bounds at or above the
// last level share it (its bound is unlimited), bounds below 0 share level
// 0 (bound 0).
const levelCount = 256

type boundLevels struct {
	bits  [levelCount][]uint64
	count [levelCount]int
	of    []int16 // each node's level
	// and is a build's scratch bitset.
	and []uint64
}

func levelOf64(bound int64) int16 { return int16(min(max(bound, 0), levelCount-1)) }

// levelBound is the highest bound of a level's nodes.
func levelBound(l int) int64 {
	if l == levelCount-1 {
		return math.MaxInt32
	}
	return int64(l)
}

// newBoundLevels files every node by its bound.
func newBoundLevels(bound []int16) *boundLevels {
	words := (len(bound) + 63) / 64
	lv := &boundLevels{of: make([]int16, len(bound)), and: make([]uint64, words)}
	for l := range lv.bits {
		lv.bits[l] = make([]uint64, words)
	}
	for n, b := range bound {
		l := levelOf64(int64(b))
		lv.of[n] = l
		lv.bits[l][n>>6] |= 1 << (n & 63)
		lv.count[l]++
	}
	return lv
}

// set files node n by its new bound.
func (lv *boundLevels) set(n index.NodeID, bound int64) {
	l, old := levelOf64(bound), lv.of[n]
	if l == old {
		return
	}
	lv.bits[old][n>>6] &^= 1 << (n & 63)
	lv.count[old]--
	lv.bits[l][n>>6] |= 1 << (n & 63)
	lv.count[l]++
	lv.of[n] = l
}

// buildLevels is build's scan for a session's plain class: each worker
// visits its range of nodes level by level, from the highest bound down,
// until none left can enter its best keep; the workers' bests and cuts
// merge as a full scan's do.
func (s *Solver) buildLevels(cl *class, dense []uint64, keep int) {
	lv := s.lv
	stMax := slices.Max(cl.ttScore) + slices.Max(cl.naScore)
	workers := s.scanners(cl.g.feasCard)
	s.parallel(workers, dense, func(w *scanner, lo, hi int) {
		for l := levelCount - 1; l >= 0; l-- {
			if lv.count[l] == 0 {
				continue
			}
			ub := levelBound(l) + stMax
			if len(w.heap) == keep && w.heap[0].score > ub {
				// Every node left is bounded by ub, below the worst entry kept.
				w.drop(entry{score: ub, tie: math.MaxUint32})
				return
			}
			bits, and := lv.bits[l][lo:hi], lv.and[lo:hi]
			any := uint64(0)
			for i, x := range bits {
				and[i] = x & dense[lo+i]
				any |= and[i]
			}
			if any != 0 {
				s.scanScore(cl, lv.and, w, lo, hi, keep, nil)
			}
		}
	})
	m := s.mergeScanners(workers, keep)
	cl.heap = append(cl.heap[:0], m.heap...)
	if cap(cl.heap) > 4*len(cl.heap)+64 {
		cl.heap = append(nodeHeap(nil), cl.heap...)
	}
	cl.heap.init()
	cl.cut, cl.truncated = m.cut, m.truncated
}
