package solver

import (
	"math"
	"math/bits"

	"github.com/kplace/kplace/index"
)

// Shape bounds, the first pruning stage of lean scans.
//
// A node's NodeResourcesFit score with a pod is what its per-resource
// scores without the pod become once the pod's requests are taken: under
// LeastAllocated, with a = (cap - used) * 100 / cap and b = req * 100 /
// cap, floor(a - b) is floor(a) - floor(b), less 1 when a's fraction is
// below b's (0 when negative). b depends on the node's capacity alone, so
// nodes are filed by shape (capacity pair) and a class computes its shares
// once per shape; a node keeps floor(a) and its fraction in 256ths, so
// its bound is a few integer operations on an eight-byte record (against
// a float bound, upper, on a 32-byte one) and off by at most a point.
//
// BalancedAllocation is bounded the same way: the pod moves the balance by
// at most the shape's gain (see balanceGain), never above 100, and by at
// most 1 (a truncation) when it adds to the side the node already leans
// to: its cpu fraction above its memory fraction on the shape (sign 1)
// on a node whose is too, or below on one whose is below (sign -1).

// Shape ids: the first shapes seen get their own; the others share
// sharedShape, and nodes without cpu or memory capacity take noCapShape.
const (
	sharedShape = 254
	noCapShape  = 255
)

// fitRec is a node's record for the shape bound: its per-resource
// NodeResourcesFit scores with no extra request, in 256ths (truncated;
// both its fit score where it lacks cpu or memory, 100 under
// MostAllocated, with the fraction at its most), the most its
// BalancedAllocation score can be (balanceTerm of 100 less its balance),
// the sign of its cpu less memory fraction, and its shape.
type fitRec struct {
	cpu, mem uint16
	balCap   uint8
	sign     int8
	shape    uint8
}

// shapeTable maps capacity pairs to shape ids.
type shapeTable struct {
	ids  map[[2]int64]uint8
	caps [][2]int64 // by id
}

// shapeOf returns the shape id of capacities cpu and mem, given the id
// the node had (kept while its capacities stay).
func (t *shapeTable) shapeOf(cpu, mem int64, had uint8) uint8 {
	if cpu <= 0 || mem <= 0 {
		return noCapShape
	}
	if int(had) < len(t.caps) && t.caps[had] == [2]int64{cpu, mem} {
		return had
	}
	if id, ok := t.ids[[2]int64{cpu, mem}]; ok {
		return id
	}
	if len(t.caps) == sharedShape {
		return sharedShape
	}
	if t.ids == nil {
		t.ids = map[[2]int64]uint8{}
	}
	id := uint8(len(t.caps))
	t.ids[[2]int64{cpu, mem}] = id
	t.caps = append(t.caps, [2]int64{cpu, mem})
	return id
}

// setFitRec refreshes node n's shape record from its hot record h.
func (s *Solver) setFitRec(n index.NodeID, h *nodeHot) {
	r := &s.fitRecs[n]
	was := *r
	r.shape = s.shapes.shapeOf(h.capCPU, h.capMem, r.shape)
	r.balCap = uint8(balanceTerm(maxNodeScore - h.bal))
	r.sign = 0
	if r.shape != noCapShape {
		r.sign = balanceSign(float64(h.useCPU)*h.invCPU, float64(h.useMem)*h.invMem)
	}
	switch {
	case s.cfg.Strategy != LeastAllocated:
		r.cpu, r.mem = uint16(maxNodeScore<<8|255), uint16(maxNodeScore<<8|255)
	case r.shape == noCapShape:
		f := uint16(fitScoreFast(LeastAllocated, h.nzCPU, h.capCPU, h.invCPU, h.nzMem, h.capMem, h.invMem))
		r.cpu, r.mem = f<<8|255, f<<8|255
	default:
		r.cpu = scoreParts(max(h.capCPU-h.nzCPU, 0), h.capCPU)
		r.mem = scoreParts(max(h.capMem-h.nzMem, 0), h.capMem)
	}
	if s.orderList != nil {
		s.noteRec(n, was, *r)
	}
}

// scoreParts returns 100 * v / capacity in 256ths, truncated (v at most
// capacity): floor(25600 * v / capacity), whose low byte is the
// fraction's 256ths.
func scoreParts(v, capacity int64) uint16 {
	hi, lo := bits.Mul64(uint64(v), 256*uint64(maxNodeScore))
	q, _ := bits.Div64(hi, lo, uint64(capacity))
	return uint16(q)
}

// balanceSign is the sign of the cpu fraction less the memory fraction,
// clamped to 1 as rules.Balance clamps them.
func balanceSign(fc, fm float64) int8 {
	fc, fm = min(fc, 1), min(fm, 1)
	switch {
	case fc > fm:
		return 1
	case fc < fm:
		return -1
	}
	return 0
}

// shapeShare is what a class's requests take on one shape: cpu and mem
// of the per-resource scores, in 256ths (truncated), and sign the sign of
// their cpu less memory fraction (0 where unknown). balOpp is the most its
// weighted BalancedAllocation score can be (balanceTerm of the most the
// requests add to the balance, see balanceGain), balSame that on a node
// leaning to the same side (a gain of 1), both 0 for a class that gets no
// such score.
type shapeShare struct {
	cpu, mem        int64
	balOpp, balSame int64
	sign            int8
}

// shapeShares fills s.shares with class cl's share on every shape, and
// makes the nodes' shape records on the first call (refreshNode keeps
// them from then on).
func (s *Solver) shapeShares(cl *class) []shapeShare {
	if s.fitRecs == nil {
		s.fitRecs = make([]fitRec, len(s.hot))
		for n := range s.hot {
			s.setFitRec(index.NodeID(n), &s.hot[n])
		}
	}
	if s.shares == nil {
		s.shares = make([]shapeShare, noCapShape+1)
	}
	sh := s.shares // by shape id; ids no node has are never read
	least := s.cfg.Strategy == LeastAllocated
	for id, c := range s.shapes.caps {
		var k shapeShare
		if least {
			// A share of 100 or more empties the score.
			k.cpu, k.mem = (maxNodeScore+1)<<8, (maxNodeScore+1)<<8
			if cl.demand.ScoreCPU < c[0] {
				k.cpu = int64(scoreParts(cl.demand.ScoreCPU, c[0]))
			}
			if cl.demand.ScoreMem < c[1] {
				k.mem = int64(scoreParts(cl.demand.ScoreMem, c[1]))
			}
		}
		a, b := float64(cl.balCPU)/float64(c[0]), float64(cl.balMem)/float64(c[1])
		k.sign = balanceSign(a, b)
		k.setBalance(cl, balanceGain(math.Abs(a-b)))
		sh[id] = k
	}
	gain := int64(maxNodeScore / 2)
	if s.minCPU != math.MaxInt64 {
		gain = balanceGain(max(float64(cl.balCPU)/float64(s.minCPU), float64(cl.balMem)/float64(s.minMem)))
	}
	sh[sharedShape], sh[noCapShape] = shapeShare{}, shapeShare{}
	sh[sharedShape].setBalance(cl, gain)
	sh[noCapShape].setBalance(cl, maxNodeScore/2)
	return sh
}

// setBalance sets k's balance bounds for class cl from the most its
// requests add to the balance on the shape.
func (k *shapeShare) setBalance(cl *class, gain int64) {
	if cl.balance {
		k.balOpp, k.balSame = weightBalanced*balanceTerm(gain), weightBalanced*balanceTerm(1)
	}
}

// balanceTerm is the BalancedAllocation score of a pod that raises the
// node's balance by gain points: 50 + (50 + gain) / 2.
func balanceTerm(gain int64) int64 {
	return maxNodeScore/2 + (maxNodeScore/2+gain)/2
}

// shapeUpper bounds the NodeResourcesFit plus BalancedAllocation score of
// a class with shares sh on a node of record r. A per-resource score is
// floor(a - b) for the node's a and the share b (or 0): at most
// floor((A - B) / 256) for their truncations A and B in 256ths, since a -
// b < (A + 1 - B) / 256. A node of sign 0 has a balance of 100, whose cap
// is the same-side bound (balanceTerm of 0 and of 1 are both 75).
func shapeUpper(r fitRec, sh []shapeShare) int64 {
	k := &sh[r.shape]
	rc, rm := max((int64(r.cpu)-k.cpu)>>8, 0), max((int64(r.mem)-k.mem)>>8, 0)
	bal := k.balOpp
	if r.sign == k.sign {
		bal = k.balSame
	}
	return weightFit*((rc+rm)/2) + min(bal, weightBalanced*int64(r.balCap))
}

// balanceGain bounds how many points a pod taking fractions a and b of a
// node's cpu and memory can raise its BalancedAllocation balance, 1 -
// |cpu - memory| / 2 in points (where the pod fits, both fractions stay at
// most 1): below 50|a - b| + 1, both balances being truncated, and at most
// 50. diff is |a - b| or a bound of it; the margin covers its float error.
func balanceGain(diff float64) int64 {
	return min(int64(math.Floor(diff*float64(maxNodeScore/2)+1e-6))+1, maxNodeScore/2)
}
