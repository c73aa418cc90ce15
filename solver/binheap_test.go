package solver

import (
	"math/rand/v2"
	"testing"
)

func (a *entry) before(b *entry) bool { return better(a, b) }

// BenchmarkHeap pushes 4096 random entries and pops them all, with the
// class heap's own code (nodeHeap) and with the generic heap.
func BenchmarkHeap(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	es := make([]entry, 4096)
	for i := range es {
		es[i] = entry{score: int64(r.IntN(1000)), tie: r.Uint32(), node: uint32(i)}
	}
	b.Run("nodeHeap", func(b *testing.B) {
		h := make(nodeHeap, 0, len(es))
		for b.Loop() {
			for _, e := range es {
				h.push(e)
			}
			for len(h) > 0 {
				h.pop()
			}
		}
	})
	b.Run("generic", func(b *testing.B) {
		h := make([]entry, 0, len(es))
		for b.Loop() {
			for _, e := range es {
				h = heapPush(h, e)
			}
			for len(h) > 0 {
				h = heapPop(h)
			}
		}
	})
}
