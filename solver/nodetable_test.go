package solver

import (
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestNodeTable runs random sets and takes against a map: on a few nodes
// (long runs that wrap around the table's end, many removals in them) and
// on many (growth), with resets between rounds.
func TestNodeTable(t *testing.T) {
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 11))
		var tab nodeTable
		for round := range 4 {
			want := map[index.NodeID]int32{}
			nodes := 1 + r.IntN(40)
			if seed%2 == 1 {
				nodes = 1 + r.IntN(20000)
			}
			for op := range 20000 {
				n := index.NodeID(r.IntN(nodes))
				if r.IntN(2) == 0 {
					v := int32(r.IntN(1000))
					tab.set(n, v)
					want[n] = v
					continue
				}
				v, ok := tab.take(n)
				wv, wok := want[n]
				if ok != wok || v != wv {
					t.Fatalf("seed %d round %d op %d: take(%d) = %d, %v; want %d, %v", seed, round, op, n, v, ok, wv, wok)
				}
				delete(want, n)
				if tab.n != len(want) {
					t.Fatalf("seed %d round %d op %d: %d entries, want %d", seed, round, op, tab.n, len(want))
				}
			}
			for n, wv := range want { // every entry still found, once
				if v, ok := tab.take(n); !ok || v != wv {
					t.Fatalf("seed %d round %d: take(%d) = %d, %v at the end; want %d", seed, round, n, v, ok, wv)
				}
			}
			if tab.n != 0 {
				t.Fatalf("seed %d round %d: %d entries left", seed, round, tab.n)
			}
			tab.reset(1 << 12)
		}
	}
}
