package rules

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestResolvable: the failures a preemption may resolve (Unschedulable)
// against those it cannot (UnschedulableAndUnresolvable).
func TestResolvable(t *testing.T) {
	cites(t, `priority-and-preemption.uk.txt: "Якщо всі Podʼи з меншим пріоритетом, ніж очікуваний Pod, будуть видалені з вузла, чи може очікуваний Pod бути запланованим на вузлі?"`)
	yes := []Reason{NodePortsConflict, TooManyPods, Insufficient, SpreadConstraintsMismatch, PodAntiAffinityMismatch, ExistingAntiAffinityMismatch}
	for r := None; r < numReasons; r++ {
		if got, want := Resolvable(r), slices.Contains(yes, r); got != want {
			t.Errorf("Resolvable(%q) = %v, want %v", r, got, want)
		}
	}
	if !CanPreempt(index.PreemptLowerPriority) || CanPreempt(index.PreemptNever) || !IsVictim(1, 2) || IsVictim(2, 2) {
		t.Error("CanPreempt/IsVictim")
	}
}

// TestVictimOrder: most important first: priority, then earlier start (a
// pod without a start counts as started now), then pod id.
func TestVictimOrder(t *testing.T) {
	vs := []Victim{{Pod: 4, Prio: 0, Start: math.MaxInt64}, {Pod: 3, Prio: 0, Start: 50}, {Pod: 2, Prio: 10, Start: 90}, {Pod: 1, Prio: 0, Start: 50}, {Pod: 0, Prio: -5, Start: 1}}
	SortVictims(vs)
	var got []index.PodID
	for _, v := range vs {
		got = append(got, v.Pod)
	}
	if want := []index.PodID{2, 1, 3, 4, 0}; !slices.Equal(got, want) {
		t.Errorf("victim order %v, want %v", got, want)
	}
}

// TestViolationsAndReprieve: budgets counted down over the victims in
// importance order; the violating ones are tried back first.
func TestViolationsAndReprieve(t *testing.T) {
	cites(t, "priority-and-preemption.uk.txt: Однак якщо такі Podʼи мають PodDisruptionBudget")
	budgets := [][]int32{{0}, {0, 1}, {}, {1}, {0}}
	viol := Violations(len(budgets), func(i int) []int32 { return budgets[i] }, []int32{1, 1})
	// budget 0 allows 1: victims 0 (ok), 1 (violates), 4 (violates);
	// budget 1 allows 1: victims 1 (ok), 3 (violates).
	if want := []bool{false, true, false, true, true}; !slices.Equal(viol, want) {
		t.Fatalf("Violations = %v, want %v", viol, want)
	}
	if got, want := ReprieveOrder(viol), []int{1, 3, 4, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("ReprieveOrder = %v, want %v", got, want)
	}
}

// TestBetterCandidate: fewest violations, lowest highest victim priority,
// smallest priority sum, fewest victims, latest start of the
// highest-priority victims, then the lower node id.
func TestBetterCandidate(t *testing.T) {
	cites(t, "priority-and-preemption.uk.txt: планувальник намагається вибрати вузол з набором Podʼів з найнижчим пріоритетом")
	mk := func(n index.NodeID, victims ...[3]int64) Candidate { // {prio, start, viol}
		c := NewCandidate(n)
		for _, v := range victims {
			c.AddVictim(int32(v[0]), v[1], v[2] != 0)
		}
		return c
	}
	base := mk(5, [3]int64{10, 100, 0})
	for _, tc := range []struct {
		name   string
		better Candidate
	}{
		{"fewer violations", mk(9, [3]int64{10, 100, 0}, [3]int64{1000, 1, 0})},
		{"lower highest priority", mk(9, [3]int64{5, 100, 0}, [3]int64{5, 100, 0})},
		{"smaller sum", mk(9, [3]int64{10, 100, 0})},
		{"latest start", mk(9, [3]int64{10, 200, 0})},
		{"lower node id", mk(1, [3]int64{10, 100, 0})},
	} {
		worse := base
		switch tc.name {
		case "fewer violations":
			worse = mk(5, [3]int64{1, 100, 1})
		case "smaller sum":
			worse = mk(5, [3]int64{10, 100, 0}, [3]int64{-5, 100, 0})
		}
		if !BetterCandidate(&tc.better, &worse) || BetterCandidate(&worse, &tc.better) {
			t.Errorf("%s: %+v should beat %+v", tc.name, tc.better, worse)
		}
	}
	// The sum shifts each priority by 2^31: one victim of -5 beats two.
	one, two := mk(1, [3]int64{-5, 1, 0}), mk(2, [3]int64{-5, 1, 0}, [3]int64{-5, 1, 0})
	if !BetterCandidate(&one, &two) {
		t.Error("fewer negative-priority victims must win")
	}
	c := mk(3, [3]int64{10, 300, 1}, [3]int64{10, 200, 0}, [3]int64{0, 50, 0})
	if got := fmt.Sprintf("%d %d %d %d", c.Viol, c.MaxPrio, c.Count, c.Start); got != "1 10 3 200" {
		t.Errorf("criteria %s, want 1 10 3 200 (the earliest start of the highest-priority victims)", got)
	}
}

// TestCriteriaSplit: BetterVictims decides on the first four criteria
// alone, BetterStart on the fifth, and SameCriteria holds when neither
// does, whatever the nodes.
func TestCriteriaSplit(t *testing.T) {
	f := func(a, b Candidate, victims, start, same bool) {
		t.Helper()
		if _, d := BetterVictims(&a, &b); d != victims {
			t.Errorf("BetterVictims(%+v, %+v) decided %v, want %v", a, b, d, victims)
		}
		if _, d := BetterStart(&a, &b); d != start {
			t.Errorf("BetterStart(%+v, %+v) decided %v, want %v", a, b, d, start)
		}
		if got := SameCriteria(&a, &b); got != same {
			t.Errorf("SameCriteria(%+v, %+v) = %v, want %v", a, b, got, same)
		}
	}
	a := NewCandidate(1)
	a.AddVictim(10, 100, false)
	b := a
	b.Node = 2
	f(a, b, false, false, true)
	b.Start = 50
	f(a, b, false, true, false)
	b = a
	b.AddVictim(-1, 100, false) // one more victim below the highest: sum and count
	f(a, b, true, false, false)
	if ShiftedPrio(math.MinInt32) != 0 || ShiftedPrio(-1) != math.MaxInt32 {
		t.Errorf("ShiftedPrio: %d %d", ShiftedPrio(math.MinInt32), ShiftedPrio(-1))
	}
}
