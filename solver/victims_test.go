package solver

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestNodePodsFollowChanges binds and unbinds random pods and checks each
// node's kept list against one built from scratch.
func TestNodePodsFollowChanges(t *testing.T) {
	t.Parallel()
	for seed := range uint64(10) {
		r := rand.New(rand.NewPCG(seed, 3))
		in := preemptionInput(r)
		c, err := index.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		s := newSolver(c, Config{Seed: seed})
		check := func(n index.NodeID) {
			got := slices.Clone(s.nodePods(n))
			var want []podEnt
			for _, q := range c.PodsOn[n] {
				e, _ := s.podEntOf(q, nil, &budgetMemo{}) // made afresh, not from the cache
				want = append(want, e)
			}
			slices.SortFunc(want, func(a, b podEnt) int {
				if moreImportant(&a, &b) {
					return -1
				}
				return 1
			})
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d node %d: list %v, want %v", seed, n, got, want)
			}
		}
		var unbound []index.PodID
		for range 3000 {
			n := index.NodeID(r.IntN(c.NumNodes()))
			switch on := c.PodsOn[n]; {
			case r.IntN(3) == 0:
				check(n)
			case len(unbound) > 0 && r.IntN(2) == 0:
				k := r.IntN(len(unbound))
				p := unbound[k]
				unbound = slices.Delete(unbound, k, k+1)
				d := c.DemandOf(&c.Pods[p])
				c.Bind(p, n, &d)
			case len(on) > 0:
				p := on[r.IntN(len(on))]
				d := c.DemandOf(&c.Pods[p])
				c.Unbind(p, &d)
				unbound = append(unbound, p)
			}
		}
		for n := range c.NumNodes() {
			check(index.NodeID(n))
		}
	}
}
