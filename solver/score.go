package solver

import (
	"math"

	"github.com/kplace/kplace/index"
)

// Strategy is the NodeResourcesFit scoring strategy.
type Strategy int

const (
	// LeastAllocated prefers emptier nodes (kube-scheduler's default).
	LeastAllocated Strategy = iota
	// MostAllocated prefers fuller nodes (bin packing).
	MostAllocated
)

// String names the strategy as the CLI spells it.
func (s Strategy) String() string {
	if s == MostAllocated {
		return "most-allocated"
	}
	return "least-allocated"
}

// Plugin weights of kube-scheduler's default profile.
const (
	weightFit                = 1
	weightBalanced           = 1
	weightTaint              = 3
	weightNodeAffinity       = 2
	maxNodeScore       int64 = 100
)

// leastRequested is NodeResourcesFit LeastAllocated's per-resource score.
func leastRequested(req, capacity int64) int64 {
	if capacity == 0 || req > capacity {
		return 0
	}
	return (capacity - req) * maxNodeScore / capacity
}

// mostRequested is NodeResourcesFit MostAllocated's per-resource score.
func mostRequested(req, capacity int64) int64 {
	if capacity == 0 {
		return 0
	}
	if req > capacity {
		req = capacity
	}
	return req * maxNodeScore / capacity
}

// fitScore averages the per-resource score over cpu and memory (weight 1
// each), leaving out resources the node has none of.
func fitScore(s Strategy, reqCPU, capCPU, reqMem, capMem int64) int64 {
	var sum, w int64
	if capCPU != 0 {
		sum += resourceScore(s, reqCPU, capCPU)
		w++
	}
	if capMem != 0 {
		sum += resourceScore(s, reqMem, capMem)
		w++
	}
	if w == 0 {
		return 0
	}
	return sum / w
}

func resourceScore(s Strategy, req, capacity int64) int64 {
	if s == MostAllocated {
		return mostRequested(req, capacity)
	}
	return leastRequested(req, capacity)
}

// balanceOf is (1 - std of the requested fractions) * 100, truncated, over
// cpu and memory, leaving out resources the node has none of.
func balanceOf(cpu, capCPU, mem, capMem int64) int64 {
	if capCPU == 0 || capMem == 0 {
		return maxNodeScore // at most one fraction: std is 0
	}
	fc := math.Min(float64(cpu)/float64(capCPU), 1)
	fm := math.Min(float64(mem)/float64(capMem), 1)
	std := math.Abs((fc - fm) / 2)
	return int64((1 - std) * float64(maxNodeScore))
}

// balancedScore is NodeResourcesBalancedAllocation (v1.36): how much placing
// the pod improves the node's balance, mapped to [50, 100].
func balancedScore(usedCPU, usedMem, podCPU, podMem, capCPU, capMem int64) int64 {
	with := balanceOf(usedCPU+podCPU, capCPU, usedMem+podMem, capMem)
	without := balanceOf(usedCPU, capCPU, usedMem, capMem)
	return maxNodeScore/2 + (maxNodeScore/2+with-without)/2
}

// normalize is DefaultNormalizeScore for one score given the maximum.
func normalize(score, maxScore int64, reverse bool) int64 {
	if maxScore == 0 {
		if reverse {
			return maxNodeScore
		}
		return 0
	}
	s := maxNodeScore * score / maxScore
	if reverse {
		s = maxNodeScore - s
	}
	return s
}

// score is the weighted total of node n for the class, as the default
// profile sums it.
func (s *Solver) score(cl *class, n index.NodeID) int64 {
	c := s.c
	capCPU, capMem := c.Alloc[index.ResCPU][n], c.Alloc[index.ResMemory][n]
	reqCPU, reqMem := c.ScoreReq[0][n]+cl.demand.ScoreCPU, c.ScoreReq[1][n]+cl.demand.ScoreMem
	total := weightFit * fitScore(s.cfg.Strategy, reqCPU, capCPU, reqMem, capMem)
	if cl.balance {
		usedCPU, usedMem := c.Req[index.ResCPU][n], c.Req[index.ResMemory][n]
		with := balanceOf(usedCPU+cl.balCPU, capCPU, usedMem+cl.balMem, capMem)
		total += weightBalanced * (maxNodeScore/2 + (maxNodeScore/2+with-s.balanceNow(n))/2)
	}
	g := cl.g
	if g.rawTT != nil {
		total += weightTaint * normalize(int64(g.rawTT[n]), cl.ttMax, true)
	} else {
		total += weightTaint * maxNodeScore
	}
	if g.rawNA != nil {
		total += weightNodeAffinity * normalize(int64(g.rawNA[n]), cl.naMax, false)
	}
	return total
}

// balanceNow is node n's balance without the incoming pod, cached per node
// generation (every class scoring n needs it).
func (s *Solver) balanceNow(n index.NodeID) int64 {
	c := s.c
	if s.balGen[n] != c.Gen[n]+1 {
		s.bal[n] = balanceOf(c.Req[index.ResCPU][n], c.Alloc[index.ResCPU][n],
			c.Req[index.ResMemory][n], c.Alloc[index.ResMemory][n])
		s.balGen[n] = c.Gen[n] + 1
	}
	return s.bal[n]
}

// scoreAll scores every node of fit for the class, as score does node by
// node, into a buffer reused by the next call. It is the hot loop of a class
// (re)build: columns are hoisted and the per-node work is inline.
func (s *Solver) scoreAll(cl *class, fit []index.NodeID) []int64 {
	c := s.c
	out := s.scores[:0]
	if cap(out) < len(fit) {
		out = make([]int64, 0, len(fit))
	}
	capCPU, capMem := c.Alloc[index.ResCPU], c.Alloc[index.ResMemory]
	nzCPU, nzMem := c.ScoreReq[0], c.ScoreReq[1]
	usedCPU, usedMem := c.Req[index.ResCPU], c.Req[index.ResMemory]
	dCPU, dMem := cl.demand.ScoreCPU, cl.demand.ScoreMem
	most := s.cfg.Strategy == MostAllocated
	g := cl.g
	static := int64(weightTaint * maxNodeScore) // no PreferNoSchedule taint to count
	for _, n := range fit {
		cc, cm := capCPU[n], capMem[n]
		rc, rm := nzCPU[n]+dCPU, nzMem[n]+dMem
		var fitSum, w int64
		if cc != 0 {
			fitSum += resourceScore(LeastAllocated, rc, cc)
			w++
		}
		if cm != 0 {
			fitSum += resourceScore(LeastAllocated, rm, cm)
			w++
		}
		if most {
			fitSum, w = 0, 0
			if cc != 0 {
				fitSum += mostRequested(rc, cc)
				w++
			}
			if cm != 0 {
				fitSum += mostRequested(rm, cm)
				w++
			}
		}
		var total int64
		if w != 0 {
			total = weightFit * (fitSum / w)
		}
		if cl.balance {
			with := balanceOf(usedCPU[n]+cl.balCPU, cc, usedMem[n]+cl.balMem, cm)
			total += weightBalanced * (maxNodeScore/2 + (maxNodeScore/2+with-s.balanceNow(n))/2)
		}
		if g.rawTT != nil {
			total += weightTaint * normalize(int64(g.rawTT[n]), cl.ttMax, true)
		} else {
			total += static
		}
		if g.rawNA != nil {
			total += weightNodeAffinity * normalize(int64(g.rawNA[n]), cl.naMax, false)
		}
		out = append(out, total)
	}
	s.scores = out
	return out
}
