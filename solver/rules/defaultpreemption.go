package rules

// DefaultPreemption (pkg/scheduler/framework/plugins/defaultpreemption,
// pkg/scheduler/framework/preemption): a pod that fits nowhere may evict
// pods of strictly lower priority on one node. A node is tried when the
// first filter it fails could pass with pods gone (Resolvable); there, every
// lower-priority pod is removed, the filters run again, and the victims are
// found by adding pods back ("reprieve") most important first, those whose
// eviction would violate a PodDisruptionBudget before the others. Among the
// candidates: fewest violations, lowest highest victim priority, smallest
// sum of victim priorities, fewest victims, latest start of the
// highest-priority victims; kube-scheduler then takes the first of its
// (random) order, kplace the lowest node id.

import (
	"math"
	"slices"

	"github.com/kplace/kplace/index"
)

// Resolvable reports whether preemption may help a node whose first failing
// filter gave r (Unschedulable rather than UnschedulableAndUnresolvable).
// An Insufficient resource is resolvable unless the request is above the
// node's whole allocatable (see Unresolvable).
func Resolvable(r Reason) bool {
	switch r {
	case NodePortsConflict, TooManyPods, Insufficient, SpreadConstraintsMismatch,
		PodAntiAffinityMismatch, ExistingAntiAffinityMismatch:
		return true
	}
	return false
}

// CanPreempt reports whether a pod with this preemptionPolicy may evict
// others (PodEligibleToPreemptOthers).
func CanPreempt(policy string) bool { return policy != index.PreemptNever }

// Victim is a pod a preemptor may evict: one of strictly lower priority on
// the node.
type Victim struct {
	Pod   index.PodID
	Prio  int32
	Start int64 // index.StartOf
}

// IsVictim reports whether a bound pod of priority prio may be evicted by
// a preemptor of priority preemptor.
func IsVictim(prio, preemptor int32) bool { return prio < preemptor }

// MoreImportant orders victims as MoreImportantPod does: higher priority,
// then earlier start; then lower pod id, for a total order.
func MoreImportant(a, b *Victim) bool {
	if a.Prio != b.Prio {
		return a.Prio > b.Prio
	}
	if a.Start != b.Start {
		return a.Start < b.Start
	}
	return a.Pod < b.Pod
}

// SortVictims sorts victims most important first.
func SortVictims(v []Victim) {
	slices.SortFunc(v, func(a, b Victim) int {
		switch {
		case MoreImportant(&a, &b):
			return -1
		case MoreImportant(&b, &a):
			return 1
		}
		return 0
	})
}

// Violations is filterPodsWithPDBViolation: for victims in importance
// order, whose budgets are budgetsOf(i), whether each one's eviction
// violates a budget: every budget a victim matches is counted down from
// allowed, and a count below zero violates.
func Violations(n int, budgetsOf func(i int) []int32, allowed []int32) []bool {
	left := slices.Clone(allowed)
	viol := make([]bool, n)
	for i := range n {
		viol[i] = CountDown(left, budgetsOf(i))
	}
	return viol
}

// CountDown is one victim's step of Violations: each budget it matches
// (budgets, indices into left) is counted down by one in left, and its
// eviction violates when a count falls below zero.
func CountDown(left []int32, budgets []int32) (viol bool) {
	for _, k := range budgets {
		left[k]--
		if left[k] < 0 {
			viol = true
		}
	}
	return viol
}

// ReprieveOrder returns the order in which victims (in importance order,
// viol from Violations) are tried back: the violating ones first, then the
// others, each group in importance order.
func ReprieveOrder(viol []bool) []int {
	order := make([]int, 0, len(viol))
	for pass := range 2 {
		for i, v := range viol {
			if ReprievePass(v) == pass {
				order = append(order, i)
			}
		}
	}
	return order
}

// ReprievePass is the pass of the reprieve order in which a victim is
// tried back: 0 when its eviction violates a budget, 1 otherwise.
func ReprievePass(viol bool) int {
	if viol {
		return 0
	}
	return 1
}

// Candidate is a node where preemption makes room, with the node-choice
// criteria of its victims. The fields are ordered so that it takes 32
// bytes: the solver's candidate heaps embed it.
type Candidate struct {
	Sum     int64 // victim priorities, each shifted by 2^31 (see ShiftedPrio)
	Start   int64 // earliest start of the highest-priority victims
	Node    index.NodeID
	Viol    int32 // victims whose eviction violates a budget
	MaxPrio int32 // highest victim priority
	Count   int32 // victims
}

// NewCandidate is node n's candidate before any victim is added.
func NewCandidate(n index.NodeID) Candidate {
	return Candidate{Node: n, MaxPrio: math.MinInt32, Start: math.MaxInt64}
}

// ShiftedPrio is a victim priority as Candidate.Sum adds it: shifted by
// 2^31, so that every term is positive and a sum grows with the victims.
func ShiftedPrio(prio int32) int64 { return int64(prio) + math.MaxInt32 + 1 }

// AddVictim counts a victim of priority prio and start time start (viol:
// its eviction violates a budget).
func (c *Candidate) AddVictim(prio int32, start int64, viol bool) {
	if viol {
		c.Viol++
	}
	c.Count++
	c.Sum += ShiftedPrio(prio)
	switch {
	case prio > c.MaxPrio:
		c.MaxPrio, c.Start = prio, start
	case prio == c.MaxPrio:
		c.Start = min(c.Start, start)
	}
}

// BetterVictims compares candidates on pickOneNodeForPreemption's first
// four criteria: fewest violations, lowest highest victim priority,
// smallest priority sum, fewest victims. decided is false when a and b tie
// on all four; better is then false too.
func BetterVictims(a, b *Candidate) (better, decided bool) {
	switch {
	case a.Viol != b.Viol:
		return a.Viol < b.Viol, true
	case a.MaxPrio != b.MaxPrio:
		return a.MaxPrio < b.MaxPrio, true
	case a.Sum != b.Sum:
		return a.Sum < b.Sum, true
	case a.Count != b.Count:
		return a.Count < b.Count, true
	}
	return false, false
}

// BetterStart compares candidates on the fifth criterion: the latest start
// of the highest-priority victims. decided is false when the starts are
// equal.
func BetterStart(a, b *Candidate) (better, decided bool) {
	return a.Start > b.Start, a.Start != b.Start
}

// SameCriteria reports whether a and b tie on the five criteria (the node
// aside).
func SameCriteria(a, b *Candidate) bool {
	_, v := BetterVictims(a, b)
	_, s := BetterStart(a, b)
	return !v && !s
}

// BetterCandidate orders candidates, best first: pickOneNodeForPreemption's
// criteria (BetterVictims, then BetterStart), then the lower node id.
func BetterCandidate(a, b *Candidate) bool {
	if better, ok := BetterVictims(a, b); ok {
		return better
	}
	if better, ok := BetterStart(a, b); ok {
		return better
	}
	return a.Node < b.Node
}
