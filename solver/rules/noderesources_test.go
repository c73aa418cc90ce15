package rules

import (
	"math"
	"testing"
)

// TestFits: a request fits while requested + request <= allocatable; a
// request above the whole allocatable is unresolvable.
func TestFits(t *testing.T) {
	for _, tc := range []struct {
		requested, request, alloc int64
		fits, unresolvable        bool
	}{
		{0, 1000, 1000, true, false},
		{1, 1000, 1000, false, false},
		{500, 500, 1000, true, false},
		{0, 1001, 1000, false, true},
		{0, 1, 0, false, true},
	} {
		if got := Fits(tc.requested, tc.request, tc.alloc); got != tc.fits {
			t.Errorf("Fits(%d, %d, %d) = %v", tc.requested, tc.request, tc.alloc, got)
		}
		if got := Unresolvable(tc.request, tc.alloc); got != tc.unresolvable {
			t.Errorf("Unresolvable(%d, %d) = %v", tc.request, tc.alloc, got)
		}
	}
	if !PodsFit(109, 110) || PodsFit(110, 110) || PodsFit(0, 0) {
		t.Error("PodsFit: one more pod must fit below the pods allocatable")
	}
	// Deficit: what must be freed (preemption's victim count bound).
	for _, tc := range []struct{ requested, request, alloc, want int64 }{
		{3000, 2000, 4000, 1000}, {0, 1000, 1000, 0}, {500, 500, 4000, -3000}, {110, 1, 110, 1},
	} {
		if got := Deficit(tc.requested, tc.request, tc.alloc); got != tc.want {
			t.Errorf("Deficit(%d, %d, %d) = %d, want %d", tc.requested, tc.request, tc.alloc, got, tc.want)
		}
		// Slack is what is left with the request in: a further request
		// fits in it exactly when it fits beside both.
		slack := Slack(tc.requested, tc.request, tc.alloc)
		if slack != -tc.want {
			t.Errorf("Slack(%d, %d, %d) = %d, want %d", tc.requested, tc.request, tc.alloc, slack, -tc.want)
		}
		for _, more := range []int64{0, 1, 1000} {
			if FitsFree(more, slack) != Fits(tc.requested+tc.request, more, tc.alloc) {
				t.Errorf("FitsFree(%d, Slack(%d, %d, %d)) disagrees with Fits", more, tc.requested, tc.request, tc.alloc)
			}
		}
	}
	// The free form on a node whose allocatable is the largest quantity:
	// the request is compared with what is left, nothing overflows.
	if !Fits(1, math.MaxInt64-1, math.MaxInt64) || Fits(2, math.MaxInt64-1, math.MaxInt64) {
		t.Error("Fits must compare the request with allocatable - requested")
	}
	if FitsFree(0, -1) || !FitsFree(0, Free(5, 5)) {
		t.Error("FitsFree: nothing fits in negative room, a zero request fits in none")
	}
}

// TestFitScore: LeastAllocated and MostAllocated per resource, averaged
// over cpu and memory, leaving out a resource of capacity 0 (the cases of
// kube-scheduler's least_allocated_test and most_allocated_test).
func TestFitScore(t *testing.T) {
	for _, tc := range []struct {
		s                              Strategy
		reqCPU, capCPU, reqMem, capMem int64
		want                           int64
	}{
		// least: cpu (4000-3000)/4000 = 25, memory (10000-5000)/10000 = 50.
		{LeastAllocated, 3000, 4000, 5000, 10000, 37},
		{LeastAllocated, 0, 4000, 0, 10000, 100},
		{LeastAllocated, 6000, 4000, 0, 10000, 50}, // over capacity scores 0
		{LeastAllocated, 3000, 4000, 5000, 0, 25},  // no memory: cpu alone
		{LeastAllocated, 1, 0, 1, 0, 0},
		// most: cpu 75, memory 50.
		{MostAllocated, 3000, 4000, 5000, 10000, 62},
		{MostAllocated, 6000, 4000, 0, 10000, 50}, // capped at capacity
		{MostAllocated, 0, 4000, 0, 10000, 0},
	} {
		if got := FitScore(tc.s, tc.reqCPU, tc.capCPU, tc.reqMem, tc.capMem); got != tc.want {
			t.Errorf("FitScore(%v, %d/%d, %d/%d) = %d, want %d", tc.s, tc.reqCPU, tc.capCPU, tc.reqMem, tc.capMem, got, tc.want)
		}
	}
}

// TestBalancedScore: v1.36's BalancedAllocation, 50 + (50 + with - without)/2
// with balance = (1 - |fcpu - fmem|/2) * 100.
func TestBalancedScore(t *testing.T) {
	for _, tc := range []struct {
		usedCPU, usedMem, podCPU, podMem, capCPU, capMem int64
		want                                             int64
	}{
		// Empty node, pod 3000/4000 cpu and 5000/10000 memory: with =
		// (1 - 0.125)*100 = 87, without = 100: 50 + (50 + 87 - 100)/2 = 68.
		{0, 0, 3000, 5000, 4000, 10000, 68},
		// The pod evens the node out: without 75 (0.5 vs 0), with 100.
		{2000, 0, 0, 5000, 4000, 10000, 87},
		// A node without memory: one fraction, balance 100 both ways.
		{0, 0, 1000, 1000, 4000, 0, 75},
		// Fractions capped at 1.
		{4000, 0, 4000, 0, 4000, 10000, 75},
	} {
		if got := BalancedScore(tc.usedCPU, tc.usedMem, tc.podCPU, tc.podMem, tc.capCPU, tc.capMem); got != tc.want {
			t.Errorf("BalancedScore(%+v) = %d, want %d", tc, got, tc.want)
		}
	}
	if Balanced(0, 0) || !Balanced(0, 1) || !Balanced(1, 0) {
		t.Error("Balanced: only a pod requesting neither cpu nor memory is skipped")
	}
}

// TestNormalizeScore is DefaultNormalizeScore.
func TestNormalizeScore(t *testing.T) {
	for _, tc := range []struct {
		score, max int64
		reverse    bool
		want       int64
	}{
		{5, 10, false, 50}, {5, 10, true, 50}, {0, 0, false, 0}, {0, 0, true, 100}, {1, 3, false, 33}, {1, 3, true, 67},
	} {
		if got := NormalizeScore(tc.score, tc.max, tc.reverse); got != tc.want {
			t.Errorf("NormalizeScore(%d, %d, %v) = %d, want %d", tc.score, tc.max, tc.reverse, got, tc.want)
		}
	}
}
