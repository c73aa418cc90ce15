package solver

import (
	"math"

	"github.com/kplace/kplace/index"
)

// Pruned builds.
//
// A class (re)build must find its best nodes among all feasible ones. For the
// common class (LeastAllocated, no preferred node affinity), a node's score
// is bounded by a number that does not depend on the class:
//
//	LeastAllocated(n, pod) <= LeastAllocated(n, nothing)      (A(n))
//	Balanced(n, pod)       <= 50 + (150 - balanceNow(n)) / 2
//	TaintToleration        <= 3 x 100
//
// so UB(n) + 300 >= score(n) for every class. Nodes sit in buckets by UB
// (0..maxUB); a build walks buckets from the top and stops once its heap is
// full and the next bucket's bound is below the heap's worst score: nodes
// further down cannot make the cut. A bucket entry is live while
// its generation is the node's; a change appends a fresh entry and leaves the
// old one to be skipped, and the buckets are rebuilt when stale entries pile
// up.

const maxUB = 2*maxNodeScore + 1

type ubRef struct {
	node index.NodeID
	gen  uint32
}

// upperBound is UB(n) as above.
func (s *Solver) upperBound(n index.NodeID) int {
	c := s.c
	a := fitScore(LeastAllocated, c.ScoreReq[0][n], c.Alloc[index.ResCPU][n], c.ScoreReq[1][n], c.Alloc[index.ResMemory][n])
	b := maxNodeScore/2 + (3*maxNodeScore/2-s.balanceNow(n))/2
	return int(min(a+b, maxUB-1))
}

// initBuckets files every node under its bound.
func (s *Solver) initBuckets() {
	if s.buckets == nil {
		s.buckets = make([][]ubRef, maxUB)
	}
	for i := range s.buckets {
		s.buckets[i] = s.buckets[i][:0]
	}
	gen := s.c.Gen
	for n := range s.c.NumNodes() {
		b := s.upperBound(index.NodeID(n))
		s.buckets[b] = append(s.buckets[b], ubRef{node: index.NodeID(n), gen: gen[n]})
	}
	s.bucketed = s.c.NumNodes()
}

// nodeChanged refiles node n after a change.
func (s *Solver) nodeChanged(n index.NodeID) {
	if s.buckets == nil {
		return
	}
	if s.bucketed > 3*s.c.NumNodes()+1024 {
		s.initBuckets()
		return
	}
	b := s.upperBound(n)
	s.buckets[b] = append(s.buckets[b], ubRef{node: n, gen: s.c.Gen[n]})
	s.bucketed++
}

// prunable reports whether a class's scores are bounded by UB plus its
// TaintToleration maximum (preferred node affinity is not bounded here).
func (s *Solver) prunable(cl *class) bool {
	return s.cfg.Strategy == LeastAllocated && cl.g.rawNA == nil
}

// taintMax is the TaintToleration normalisation maximum: the largest count
// of untolerated PreferNoSchedule taints over the nodes the class fits on.
func (s *Solver) taintMax(cl *class) int64 {
	g := cl.g
	for _, n := range g.ttNodes {
		if s.c.Fits(n, &cl.demand) {
			return int64(g.rawTT[n])
		}
	}
	return 0
}

// buildPruned fills the class heap with its best keep nodes, walking the UB
// buckets from the top.
func (s *Solver) buildPruned(cl *class, keep int) {
	c := s.c
	g := cl.g
	dense := g.denseFeasible(c.NumNodes())
	if g.rawTT != nil {
		cl.ttMax = s.taintMax(cl)
	}
	// TaintToleration adds at most weight x 100 on top of UB.
	const static = weightTaint * maxNodeScore
	gen := c.Gen
	h := cl.heap[:0]
	if cap(h) > 4*keep {
		h = nil
	}
	s.prunedBuilds++
	for b := maxUB - 1; b >= 0; b-- {
		if len(h) == keep && int64(b)+static < h[0].score {
			// Everything below scores at most b + static: that is the cut.
			s.recordCut(cl, entry{score: int64(b) + static, tie: math.MaxUint32})
			break
		}
		for _, r := range s.buckets[b] {
			n := r.node
			s.scanned++
			if r.gen != gen[n] || dense[n>>6]&(1<<(n&63)) == 0 || !c.Fits(n, &cl.demand) {
				continue
			}
			e := entry{score: s.score(cl, n), tie: s.tie[n], node: n, gen: r.gen}
			if len(h) < keep {
				h = append(h, e)
				if len(h) == keep {
					minHeapInit(h)
				}
				continue
			}
			if better(&e, &h[0]) {
				e, h[0] = h[0], e
				minHeapDown(h, 0)
			}
			s.recordCut(cl, e)
		}
	}
	cl.heap = h
	cl.heap.init()
}

// recordCut notes e as left out of the class heap.
func (s *Solver) recordCut(cl *class, e entry) {
	if !cl.truncated || better(&e, &cl.cut) {
		cl.cut = e
	}
	cl.truncated = true
}

// denseFeasible returns the group's feasible set as a bitset, built once.
func (g *group) denseFeasible(n int) []uint64 {
	if g.dense == nil {
		g.dense = make([]uint64, (n+63)/64)
		it := g.feas.Iterator()
		for it.HasNext() {
			v := it.Next()
			g.dense[v>>6] |= 1 << (v & 63)
		}
	}
	return g.dense
}
