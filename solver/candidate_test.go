package solver

import (
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// TestBetterCandOrdersAsRules: among evaluated candidates betterCand is
// rules.BetterCandidate; a bound (Start unknown) comes after an evaluated
// node it ties with on the first four criteria, and a sampled bound before
// it when their starts tie.
func TestBetterCandOrdersAsRules(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	mk := func() candidate {
		c := evaluated(index.NodeID(r.IntN(4)), 0, 0)
		for range 1 + r.IntN(3) {
			c.AddVictim(int32(r.IntN(3)), int64(r.IntN(3)), r.IntN(4) == 0)
		}
		return c
	}
	for range 5000 {
		a, b := mk(), mk()
		if got, want := betterCand(&a, &b), rules.BetterCandidate(&a.Candidate, &b.Candidate); got != want {
			t.Fatalf("betterCand(%+v, %+v) = %v, rules say %v", a, b, got, want)
		}
	}
	e := evaluated(7, 0, 0)
	e.AddVictim(5, 10, false)
	lb := bound(e.Viol, e.MaxPrio, e.Count, e.Sum)
	lb.Node = 1
	if !betterCand(&e, &lb) || betterCand(&lb, &e) {
		t.Error("an evaluated node must come before a bound it ties with on the first four criteria")
	}
	lb.sample, lb.Start = true, e.Start
	if !betterCand(&lb, &e) || betterCand(&e, &lb) {
		t.Error("a sampled bound must come before an evaluated node of the same start")
	}
}
