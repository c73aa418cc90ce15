package solver

import (
	"math"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
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
	weightFit          = rules.WeightNodeResourcesFit
	weightBalanced     = rules.WeightBalancedAllocation
	weightTaint        = rules.WeightTaintToleration
	weightNodeAffinity = rules.WeightNodeAffinity
	maxNodeScore       = rules.MaxNodeScore
)

// fitScore averages the per-resource score over cpu and memory (weight 1
// each), leaving out resources the node has none of.
func fitScore(s Strategy, reqCPU, capCPU, reqMem, capMem int64) int64 {
	return rules.FitScore(rules.Strategy(s), reqCPU, capCPU, reqMem, capMem)
}

// fitScoreFast is fitScore with the divisions by capacity done through the
// precomputed reciprocals inv (1/capacity), corrected to the exact integer
// quotient: 64-bit IDIV dominates the scoring loop otherwise.
func fitScoreFast(s Strategy, reqCPU, capCPU int64, invCPU float64, reqMem, capMem int64, invMem float64) int64 {
	var sum, w int64
	if capCPU != 0 {
		sum += resourceScoreFast(s, reqCPU, capCPU, invCPU)
		w++
	}
	if capMem != 0 {
		sum += resourceScoreFast(s, reqMem, capMem, invMem)
		w++
	}
	switch w {
	case 2:
		return sum / 2
	case 1:
		return sum
	}
	return 0
}

func resourceScoreFast(s Strategy, req, capacity int64, inv float64) int64 {
	if s == MostAllocated {
		req = min(req, capacity)
		return quotient(req*maxNodeScore, capacity, inv)
	}
	if req > capacity {
		return 0
	}
	return quotient((capacity-req)*maxNodeScore, capacity, inv)
}

// quotient returns floor(x / d) for 0 <= x <= 100*d, d > 0, given inv = 1/d:
// the float estimate is off by at most one and is corrected exactly.
func quotient(x, d int64, inv float64) int64 {
	q := int64(float64(x) * inv)
	if q*d > x {
		q--
	} else if (q+1)*d <= x {
		q++
	}
	return q
}

// balancedScore is NodeResourcesBalancedAllocation (v1.36): how much placing
// the pod improves the node's balance, mapped to [50, 100].
func balancedScore(usedCPU, usedMem, podCPU, podMem, capCPU, capMem int64) int64 {
	return rules.BalancedScore(usedCPU, usedMem, podCPU, podMem, capCPU, capMem)
}

// normalize is DefaultNormalizeScore for one score given the maximum.
func normalize(score, maxScore int64, reverse bool) int64 {
	return rules.NormalizeScore(score, maxScore, reverse)
}

// score is the weighted total of node n for the class, as the default
// profile sums it.
func (s *Solver) score(cl *class, n index.NodeID) int64 {
	return s.recScore(cl, &s.hot[n].scoreRec, n)
}

// recScore is score from node n's score record h (its own, or the copy
// a run order holds).
func (s *Solver) recScore(cl *class, h *scoreRec, n index.NodeID) int64 {
	return s.recDynamic(cl, h) + cl.staticScore(n)
}

// recDynamic is recScore less the static scores: what the node's
// requests and capacity make of it.
func (s *Solver) recDynamic(cl *class, h *scoreRec) int64 {
	total := weightFit * fitScoreFast(s.cfg.Strategy, h.nzCPU+cl.demand.ScoreCPU, h.capCPU, h.invCPU,
		h.nzMem+cl.demand.ScoreMem, h.capMem, h.invMem)
	if cl.balance {
		with := rules.Balance(h.useCPU+cl.balCPU, h.capCPU, h.useMem+cl.balMem, h.capMem)
		total += weightBalanced * (maxNodeScore/2 + (maxNodeScore/2+with-h.bal)/2)
	}
	return total
}

// upper bounds the NodeResourcesFit plus NodeResourcesBalancedAllocation
// score of the class on the node of record r. It works on the requested
// fractions in float32: the exact integer forms truncate the same real
// values, and the float error (below 1e-4 points) is covered by the margin
// added, so the bound is never below the exact score and is usually within
// a point of it: a build scores exactly only the nodes that can compete.
// NodeResourcesFit's per-resource score is a+s*fraction, clamped: (1, -1)
// for LeastAllocated, (0, 1) for MostAllocated (see Solver.fitA).
func (s *Solver) upper(cl *class, r *nodeBound) int64 {
	fit := (clamp1(s.fitA+s.fitS*(r.nzCPU+cl.fScoreCPU*r.invCPU)) + clamp1(s.fitA+s.fitS*(r.nzMem+cl.fScoreMem*r.invMem))) * 50
	if !cl.balance {
		return int64(weightFit*fit + 0.01)
	}
	diff := clamp1(r.useCPU+cl.fBalCPU*r.invCPU) - clamp1(r.useMem+cl.fBalMem*r.invMem)
	if diff < 0 {
		diff = -diff
	}
	// 50 + (50 + with - bal)/2 with with = (1 - diff/2) * 100.
	return int64(weightFit*fit + weightBalanced*(125-25*diff-float32(r.bal)/2) + 0.01)
}

// clamp1 clamps x to [0, 1] (no NaN can reach it).
func clamp1(x float32) float32 {
	if x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

// staticScore is the weighted TaintToleration plus NodeAffinity score of
// node n for the class, plus its ImageLocality score, from its tables (see prepareStatic).
func (cl *class) staticScore(n index.NodeID) int64 {
	return cl.ttScore[cl.rawTT[n]] + cl.naScore[cl.rawNA[n]] + int64(cl.img[n])
}

// nodeHot packs what scoring and the fit check read of a node into one
// record (two cache lines), so a scan streams one array instead of a dozen
// columns. refreshNode rewrites it after every change the solver makes.
type nodeHot struct {
	scoreRec
	capPods, usePods int64
	bound            int64 // class-independent score bound, see refreshNode
	tie              uint32
}

// scoreRec is what recScore reads of a node. The run orders keep a copy
// of each node's in their order (nodeOrder.scores), which refreshNode
// rewrites with nodeHot's.
type scoreRec struct {
	capCPU, capMem int64
	nzCPU, nzMem   int64   // non-zero requested, for NodeResourcesFit
	useCPU, useMem int64   // requested, for BalancedAllocation and fit
	invCPU, invMem float64 // 1/capacity, 0 where none
	bal            int64   // BalancedAllocation balance without the pod
}

// nodeBound is the compact record a build's pruning reads for every node it
// visits (32 bytes: a scan streams a third of the cache lines the full
// record would take): the requested fractions and reciprocal capacities in
// float32 and the balance without the pod.
type nodeBound struct {
	nzCPU, nzMem   float32 // non-zero requested / capacity
	useCPU, useMem float32 // requested / capacity
	invCPU, invMem float32 // 1 / capacity
	bal            int16
}

// nodeFree is what a build's first fit test reads of a node: its free cpu
// and memory, with cpu at its least when the node has no pod slot left, so
// that no request fits. A node passing it still needs the full check
// (Solver.fits) when the class requests another resource or host ports.
type nodeFree struct {
	cpu, mem int64
}

// fitsFree is the first fit test: cpu, memory and the pod count.
func (cl *class) fitsFree(f *nodeFree) bool {
	return rules.FitsFree(cl.needCPU, f.cpu) && rules.FitsFree(cl.needMem, f.mem)
}

// refreshNode recomputes node n's port mask and hot record from the
// cluster.
func (s *Solver) refreshNode(n index.NodeID) {
	s.portMasks[n] = portMask(s.c.Ports[n])
	s.refreshUse(n)
}

// refreshUse is refreshNode but for the port mask, which a bind only adds
// its pod's ports to (bindPod). The record's bound is NodeResourcesFit with
// no extra request (LeastAllocated only falls as the pod's request is
// added; MostAllocated is at most 100) plus the most BalancedAllocation can
// give, 50 + (150 - balance now) / 2; a build adds the class's
// TaintToleration and NodeAffinity table values.
func (s *Solver) refreshUse(n index.NodeID) {
	c := s.c
	h := &s.hot[n]
	h.capCPU, h.capMem = c.Alloc[index.ResCPU][n], c.Alloc[index.ResMemory][n]
	h.nzCPU, h.nzMem = c.ScoreReq[0][n], c.ScoreReq[1][n]
	h.useCPU, h.useMem = c.Req[index.ResCPU][n], c.Req[index.ResMemory][n]
	h.capPods, h.usePods = c.Alloc[index.ResPods][n], c.Req[index.ResPods][n]
	h.invCPU, h.invMem = reciprocal(h.capCPU), reciprocal(h.capMem)
	h.bal = rules.Balance(h.useCPU, h.capCPU, h.useMem, h.capMem)
	fit := maxNodeScore
	if s.cfg.Strategy == LeastAllocated {
		fit = fitScoreFast(LeastAllocated, h.nzCPU, h.capCPU, h.invCPU, h.nzMem, h.capMem, h.invMem)
	}
	h.bound = weightFit*fit + weightBalanced*(maxNodeScore/2+(3*maxNodeScore/2-h.bal)/2)
	s.bound[n] = int16(h.bound)
	if h.capCPU > 0 && h.capMem > 0 {
		s.minCPU, s.minMem = min(s.minCPU, h.capCPU), min(s.minMem, h.capMem)
	}
	if s.fitRecs != nil {
		s.setFitRec(n, h)
	}
	for _, o := range s.orderList {
		if !o.remake {
			o.scores[o.pos[n]] = h.scoreRec
		}
	}
	if s.lv != nil {
		s.lv.set(n, cellOf(s.cfg.Strategy, h))
	}
	s.free[n] = nodeFree{cpu: rules.Free(h.useCPU, h.capCPU), mem: rules.Free(h.useMem, h.capMem)}
	if !rules.PodsFit(h.usePods, h.capPods) {
		s.free[n].cpu = math.MinInt64
	}
	s.room.set(n, s.free[n])
	b := &s.bounds[n]
	if h.capCPU > 0 && h.capMem > 0 {
		*b = nodeBound{
			invCPU: float32(h.invCPU), invMem: float32(h.invMem),
			nzCPU: float32(float64(h.nzCPU) * h.invCPU), nzMem: float32(float64(h.nzMem) * h.invMem),
			useCPU: float32(float64(h.useCPU) * h.invCPU), useMem: float32(float64(h.useMem) * h.invMem),
			bal: int16(h.bal),
		}
		return
	}
	// A node without cpu or memory: the per-resource fit terms clamp to
	// their most (100 in all) and the balance term is made huge, so upper
	// never prunes it.
	inf := float32(math.Inf(int(s.fitS)))
	*b = nodeBound{nzCPU: inf, nzMem: inf, bal: math.MinInt16}
}

func reciprocal(v int64) float64 {
	if v == 0 {
		return 0
	}
	return 1 / float64(v)
}
