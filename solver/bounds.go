package solver

import (
	"math"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Node bounds: a lower bound of a node's dry run on the first four
// criteria, from its lower-priority sums, without the dry run (see
// preempt.go and blocks.go).

// lowerBound bounds node n's criteria from below without looking at its
// pods (see nodeBound); j >= 0 is the preemptor's threshold.
func (s *Solver) lowerBound(cl *class, prio int32, n index.NodeID, j int) candidate {
	out := bound(0, math.MinInt32, 1, 0)
	out.Node, out.gen, out.pgen = n, s.c.Gen[n], s.pgenOf(n)
	if j < 0 {
		return out // no sums for this priority: the weakest bound
	}
	k := s.nodeBound(cl, n, j)
	out.Candidate = k.bound(s.minPrio).Candidate
	out.Node = n
	return out
}

// nodeBound bounds node n's first four criteria from below in O(1) from
// its lower-priority sums, for class cl at threshold j >= 0: the highest
// victim priority is at least the lowest priority p such that removing
// every pod below the next priority in use makes room, keeping the pods
// whose eviction surely violates a budget (sureviol.go); when nothing
// makes room with those kept, a violation is certain and the pods are not
// kept. The victims are at least as many as any one resource's deficit
// needs, given the largest request of a pod below that next priority; each
// victim adds at least the lowest priority in use to the sum.
func (s *Solver) nodeBound(cl *class, n index.NodeID, j int) nodeKey {
	d := &cl.demand
	if len(d.Req) > maxBlockRes {
		return s.nodeBoundSlow(cl, n, j)
	}
	// What the pods below a threshold must free on n, per column (the pod
	// count first): the demand fits once they are gone when they free at
	// least that much (fitsAtNode with the node's columns read once).
	c := s.c
	nres := len(c.ResNames)
	var need [maxBlockRes + 1]int64
	var col [maxBlockRes + 1]int32
	need[0], col[0] = c.Req[index.ResPods][n]+1-c.Alloc[index.ResPods][n], index.ResPods
	for i, rv := range d.Req {
		need[i+1], col[i+1] = c.Req[rv.Res][n]+rv.Val-c.Alloc[rv.Res][n], rv.Res
	}
	ncol := len(d.Req) + 1
	fitsAt := func(k int, sure [][]int64) bool {
		low := c.Low[k*nres : (k+1)*nres]
		for i := range ncol {
			freed := low[col[i]][n]
			if sure != nil {
				freed -= sure[col[i]][n]
			}
			if freed < need[i] {
				return false
			}
		}
		return true
	}
	k, viol := s.boundThreshold(cl, n, j, fitsAt)
	// finishKey, from the deficits above.
	maxPrio := int32(math.MinInt32)
	if k > 0 && k <= j {
		maxPrio = c.LowPrio[k-1]
	}
	one := min(k, j)
	count := need[0]
	for i := 1; i < ncol; i++ {
		if deficit := need[i]; deficit > 0 {
			if m := c.MaxOne[one*nres+int(col[i])][n]; m > 0 {
				count = max(count, (deficit+m-1)/m)
			}
		}
	}
	return makeKey(viol, maxPrio, int32(max(1, min(count, math.MaxInt32))))
}

// nodeBoundSlow is nodeBound for a demand of more columns than it keeps
// apart.
func (s *Solver) nodeBoundSlow(cl *class, n index.NodeID, j int) nodeKey {
	d := &cl.demand
	k, viol := s.boundThreshold(cl, n, j, func(k int, sure [][]int64) bool { return s.fitsAtNode(d, n, k, sure) })
	return s.finishKey(cl, n, j, k, viol)
}

// boundThreshold is nodeBound's first threshold at which node n fits
// (j+1: none) and whether a violation is certain, given fitsAt (the
// surely violating pods kept when sure is not nil).
func (s *Solver) boundThreshold(cl *class, n index.NodeID, j int, fitsAt func(k int, sure [][]int64) bool) (int, int32) {
	var viol int32
	k := s.firstThreshold(cl)
	for k <= j && !fitsAt(k, nil) {
		k++
	}
	if sj := s.sureSums(j); k <= j && sj != nil && sj[index.ResPods][n] > 0 {
		kv := k
		for kv <= j && !fitsAt(kv, s.sureSums(kv)) {
			kv++
		}
		if kv > j {
			viol = 1
		} else {
			k = kv
		}
	}
	return k, viol
}

// fitsAtNode reports whether demand d fits node n once every pod below
// threshold k is removed, except, when sure is not nil (threshold k's sums
// of sureViol), the pods whose eviction surely violates a budget.
func (s *Solver) fitsAtNode(d *index.Demand, n index.NodeID, k int, sure [][]int64) bool {
	c := s.c
	nres := len(c.ResNames)
	low := c.Low[k*nres : (k+1)*nres]
	var kept int64
	if sure != nil {
		kept = sure[index.ResPods][n]
	}
	if !rules.PodsFit(c.Req[index.ResPods][n]-low[index.ResPods][n]+kept, c.Alloc[index.ResPods][n]) {
		return false
	}
	for _, rv := range d.Req {
		if sure != nil {
			kept = sure[rv.Res][n]
		}
		if !rules.Fits(c.Req[rv.Res][n]-low[rv.Res][n]+kept, rv.Val, c.Alloc[rv.Res][n]) {
			return false
		}
	}
	return true
}

// startBound bounds from above the start kube-scheduler's fifth criterion
// reads on node n (the earliest start of the victims of the highest
// priority) when that priority is maxPrio, for a preemptor of priority
// prio: the latest start of the node's pods of priority maxPrio, kept by
// the index. MinInt64 when it has none: the node's highest victim priority
// is then not maxPrio.
func (s *Solver) startBound(n index.NodeID, maxPrio, prio int32) int64 {
	if maxPrio >= prio {
		return math.MaxInt64 // no bound on the priority: no bound on the start
	}
	j := s.c.LowIndex(maxPrio)
	if j < 0 {
		return math.MinInt64 // no pod of that priority
	}
	return s.c.LatestStart(j, n)
}

// firstThreshold is the first threshold the bounds try for class cl: 1
// when no pod is below the lowest one (removing them frees nothing) and
// the class is columnar (no host ports, no pod-relative filter: its pod fits
// no node of its feasible set as it is, or it would not preempt), else 0.
func (s *Solver) firstThreshold(cl *class) int {
	c := s.c
	if len(cl.demand.Ports) == 0 && (cl.rel == nil || len(cl.rel.deps) == 0) && len(c.LowPrio) > 0 && c.LowPrio[0] <= s.minPrio {
		return 1
	}
	return 0
}

// finishKey completes node n's bound for class cl (threshold j) from k,
// the first threshold at which it fits (j+1: none), and viol.
func (s *Solver) finishKey(cl *class, n index.NodeID, j, k int, viol int32) nodeKey {
	c := s.c
	d := &cl.demand
	maxPrio := int32(math.MinInt32)
	if k > 0 && k <= j {
		maxPrio = c.LowPrio[k-1]
	}
	// Every victim is below LowPrio[k] when the highest is LowPrio[k-1].
	one := min(k, j)
	count := rules.Deficit(c.Req[index.ResPods][n], 1, c.Alloc[index.ResPods][n])
	for _, rv := range d.Req {
		if deficit := rules.Deficit(c.Req[rv.Res][n], rv.Val, c.Alloc[rv.Res][n]); deficit > 0 {
			if m := c.MaxRequest(one, rv.Res, n); m > 0 {
				count = max(count, (deficit+m-1)/m)
			}
		}
	}
	return makeKey(viol, maxPrio, int32(max(1, min(count, math.MaxInt32))))
}
