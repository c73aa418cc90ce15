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
// BalancedAllocation's balance is 100 - 50 |fc - fm| (truncated) for the
// node's requested fractions fc and fm; a pod adds its own, a and b, so
// on a node where it fits (no fraction clamped at 1) it moves the balance
// by 50 (|d| - |d + a - b|), d = fc - fm, less than 1 off for the
// truncations. a - b depends on the shape alone: a node keeps d in
// 16384ths (balScale) and a class its a - b per shape, and the bound is
// that formula with a margin for the rounding (balanceBound). On the
// shared shape, whose nodes differ in capacity, the pod moves the balance
// by at most the most it could on any of them (see balanceGain), never
// above 100.

// Shape ids: the first shapes seen get their own; the others share
// sharedShape, and nodes without cpu or memory capacity take noCapShape.
const (
	sharedShape = 254
	noCapShape  = 255
)

// fitRec is a node's record for the shape bound: its per-resource
// NodeResourcesFit scores with no extra request, in 256ths (truncated;
// both its fit score where it lacks cpu or memory, 100 under
// MostAllocated, with the fraction at its most), its cpu less memory
// fraction d (clamped at 1) in 16384ths (rounded, away from 0 below a
// unit, so that its sign is exact; 0 where it lacks cpu or memory), the
// most its BalancedAllocation score can be (balanceTerm of 100 less its
// balance), and its shape.
type fitRec struct {
	cpu, mem uint16
	d        int16
	balCap   uint8
	shape    uint8
}

// balScale is the unit of fitRec.d and shapeShare.dq: 1/16384.
const balScale = 1 << 14

// balMargin covers, in points times balScale, the rounding of d and dq in
// balanceBound: |d| - |d + dq| is off by at most 2.5/balScale from its
// real value (1 for d, rounded away from 0; 1/2 for dq, twice), 125
// after the factor 50.
const balMargin = 160

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
	r.d = 0
	if r.shape != noCapShape {
		r.d = balanceDiff(float64(h.useCPU)*h.invCPU, float64(h.useMem)*h.invMem)
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

// balanceDiff is fitRec.d for fractions fc and fm: their difference,
// clamped to 1 as rules.Balance clamps them, in balScale units, rounded
// away from 0 below one.
func balanceDiff(fc, fm float64) int16 {
	fc, fm = min(fc, 1), min(fm, 1)
	d := int16(math.Round((fc - fm) * balScale))
	if d == 0 {
		d = int16(balanceSign(fc, fm))
	}
	return d
}

// shapeShare is what a class's requests take on one shape: cpu and mem
// of the per-resource scores, in 256ths (truncated), and dq their cpu
// less memory fraction in balScale units (rounded) on a shape of its own.
// balAdd is 0 there; elsewhere (the shared shape, or a class that gets no
// BalancedAllocation score) dq is 0, which bounds the score at 75, and
// balAdd takes it to the most the class's score can be.
type shapeShare struct {
	cpu, mem int64
	dq       int64
	balAdd   int64
}

// balanceBound bounds the weighted BalancedAllocation score of a class
// with share k on a node of balance difference d (fitRec.d) where it
// fits: the balance moves by less than 50 (|d| - |d + dq|) + 1 points.
func (k *shapeShare) balanceBound(d int64) int64 {
	x := d + k.dq
	g := (50*(max(d, -d)-max(x, -x)) + balMargin + balScale) >> 14 // + 1 point
	return weightBalanced*(maxNodeScore/2+(maxNodeScore/2+g)/2) + k.balAdd
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
		if cl.balance {
			a, b := float64(cl.balCPU)/float64(c[0]), float64(cl.balMem)/float64(c[1])
			k.dq = int64(math.Round((a - b) * balScale))
		} else {
			k.balAdd = -weightBalanced * balanceTerm(0)
		}
		sh[id] = k
	}
	// The shared shape: the most the requests can move a balance on the
	// least capacities; no capacity: a balance of 100, moved by nothing.
	gain := int64(maxNodeScore / 2)
	if s.minCPU != math.MaxInt64 {
		gain = balanceGain(max(float64(cl.balCPU)/float64(s.minCPU), float64(cl.balMem)/float64(s.minMem)))
	}
	sh[sharedShape], sh[noCapShape] = shapeShare{}, shapeShare{}
	if cl.balance {
		sh[sharedShape].balAdd = weightBalanced * (balanceTerm(gain) - balanceTerm(0))
	} else {
		sh[sharedShape].balAdd, sh[noCapShape].balAdd = -weightBalanced*balanceTerm(0), -weightBalanced*balanceTerm(0)
	}
	return sh
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
// b < (A + 1 - B) / 256. The BalancedAllocation part is balanceBound, no
// more than the node's balance leaves (fitRec.balCap).
func shapeUpper(r fitRec, sh []shapeShare) int64 {
	k := &sh[r.shape]
	return k.fitBound(r) + k.balBound(r)
}

// fitBound is shapeUpper's NodeResourcesFit part, for share k on r's
// shape (apart, so that each part inlines where shapeUpper would not).
func (k *shapeShare) fitBound(r fitRec) int64 {
	rc, rm := max((int64(r.cpu)-k.cpu)>>8, 0), max((int64(r.mem)-k.mem)>>8, 0)
	return weightFit * ((rc + rm) / 2)
}

// balBound is shapeUpper's BalancedAllocation part, for share k on r's
// shape: balanceBound, and no more than the node's balance leaves.
func (k *shapeShare) balBound(r fitRec) int64 {
	return min(k.balanceBound(int64(r.d)), weightBalanced*int64(r.balCap))
}

// balanceGain bounds how many points a pod taking fractions a and b of a
// node's cpu and memory can raise its BalancedAllocation balance, 1 -
// |cpu - memory| / 2 in points (where the pod fits, both fractions stay at
// most 1): below 50|a - b| + 1, both balances being truncated, and at most
// 50. diff is |a - b| or a bound of it; the margin covers its float error.
func balanceGain(diff float64) int64 {
	return min(int64(math.Floor(diff*float64(maxNodeScore/2)+1e-6))+1, maxNodeScore/2)
}
