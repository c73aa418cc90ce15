package rules

// NodeResourcesFit and NodeResourcesBalancedAllocation
// (pkg/scheduler/framework/plugins/noderesources): the pod fits when, for
// the pod count and for every resource it requests, what the node's pods
// request plus the pod's request stays within the node's allocatable
// (every insufficient resource is a reason of its own; a request above the
// whole allocatable cannot be resolved by preemption). Scores:
// LeastAllocated or MostAllocated over the non-zero cpu and memory
// requests (weight 1 each), and BalancedAllocation's improvement of the
// node's cpu/memory balance. Which resources the filter checks is
// index.Checked.

import "math"

// Strategy is NodeResourcesFit's scoring strategy.
type Strategy uint8

// Strategies.
const (
	// LeastAllocated prefers emptier nodes (kube-scheduler's default).
	LeastAllocated Strategy = iota
	// MostAllocated prefers fuller nodes (bin packing).
	MostAllocated
)

// Free is what a node has left of a resource: its allocatable less what
// its pods request (negative on an overcommitted node).
func Free(requested, allocatable int64) int64 { return allocatable - requested }

// FitsFree is the filter's predicate: a request fits in what is left
// (free: Free's, or what a caller keeps of it, such as Slack's).
func FitsFree(request, free int64) bool { return request <= free }

// Fits reports whether a request fits beside what is requested already.
func Fits(requested, request, allocatable int64) bool {
	return FitsFree(request, Free(requested, allocatable))
}

// Deficit is by how much a request exceeds what the node has left
// (request - Free; at most 0 when it fits): how much must be freed for it
// to fit.
func Deficit(requested, request, allocatable int64) int64 {
	return request - Free(requested, allocatable)
}

// Slack is what the node has left once the request is in (-Deficit): a
// further request fits in it by FitsFree.
func Slack(requested, request, allocatable int64) int64 {
	return Free(requested, allocatable) - request
}

// PodsFit reports whether one more pod fits beside pods on a node that
// allows allowed pods ("Too many pods" otherwise).
func PodsFit(pods, allowed int64) bool { return Fits(pods, 1, allowed) }

// Unresolvable reports whether a request is above the node's whole
// allocatable: evicting pods cannot make it fit.
func Unresolvable(request, allocatable int64) bool { return request > allocatable }

// LeastRequested is LeastAllocated's per-resource score.
func LeastRequested(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * MaxNodeScore / capacity
}

// MostRequested is MostAllocated's per-resource score.
func MostRequested(requested, capacity int64) int64 {
	if capacity == 0 {
		return 0
	}
	requested = min(requested, capacity)
	return requested * MaxNodeScore / capacity
}

// ResourceScore is strategy s's per-resource score.
func ResourceScore(s Strategy, requested, capacity int64) int64 {
	if s == MostAllocated {
		return MostRequested(requested, capacity)
	}
	return LeastRequested(requested, capacity)
}

// FitScore is NodeResourcesFit's score: the per-resource scores of cpu and
// memory (requested including the pod, non-zero defaults applied) averaged
// with weight 1 each, leaving out a resource the node has none of.
func FitScore(s Strategy, reqCPU, capCPU, reqMem, capMem int64) int64 {
	var sum, w int64
	if capCPU != 0 {
		sum += ResourceScore(s, reqCPU, capCPU)
		w++
	}
	if capMem != 0 {
		sum += ResourceScore(s, reqMem, capMem)
		w++
	}
	if w == 0 {
		return 0
	}
	return sum / w
}

// Balance is (1 - std of the requested fractions) * 100, truncated, over
// cpu and memory (fractions capped at 1), leaving out a resource the node
// has none of.
func Balance(cpu, capCPU, mem, capMem int64) int64 {
	if capCPU == 0 || capMem == 0 {
		return MaxNodeScore // at most one fraction: std is 0
	}
	fc := float64(cpu) / float64(capCPU)
	if fc > 1 {
		fc = 1
	}
	fm := float64(mem) / float64(capMem)
	if fm > 1 {
		fm = 1
	}
	std := math.Abs((fc - fm) / 2)
	return int64((1 - std) * float64(MaxNodeScore))
}

// BalancedScore is NodeResourcesBalancedAllocation (v1.36): how much
// placing the pod (podCPU, podMem: its requests) improves the node's
// balance (usedCPU, usedMem: its pods' requests), mapped to [50, 100].
// The plugin skips a pod requesting neither cpu nor memory (Balanced).
func BalancedScore(usedCPU, usedMem, podCPU, podMem, capCPU, capMem int64) int64 {
	with := Balance(usedCPU+podCPU, capCPU, usedMem+podMem, capMem)
	without := Balance(usedCPU, capCPU, usedMem, capMem)
	return MaxNodeScore/2 + (MaxNodeScore/2+with-without)/2
}

// Balanced reports whether BalancedAllocation scores a pod with these
// cpu and memory requests (not a best-effort pod).
func Balanced(podCPU, podMem int64) bool { return podCPU != 0 || podMem != 0 }
