package solver

import (
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
)

// BenchmarkPreemption places a batch where most pods must preempt: 4,000
// nodes nearly full of lower-priority pods (some under budgets) and 400
// deployments of higher-priority pods. Each iteration indexes the input
// afresh (untimed) and solves it.
func BenchmarkPreemption(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 7))
	in := preemptionInputSized(r, 4000, 400)
	pods := in.Pods
	preemptions := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		in.Pods = append([]index.Pod(nil), pods...)
		c, err := index.Build(in)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		preemptions = Solve(c, Config{Seed: 1}).Preemptions
	}
	b.ReportMetric(float64(preemptions)*float64(b.N)/b.Elapsed().Seconds(), "preemptions/s")
}

// BenchmarkBlockKeys measures refining one block of 64 nodes (blockKeys:
// every node's bound, sorted) at the state of the 50th preemption of the
// BenchmarkPreemption batch, over the class's whole feasible set: ns/op
// per block.
func BenchmarkBlockKeys(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 7))
	in := preemptionInputSized(r, 4000, 400)
	c, err := index.Build(in)
	if err != nil {
		b.Fatal(err)
	}
	seen, ran := 0, false
	checkChoice := func(s *Solver, cl *class, prio int32, _ candidate) {
		if seen++; seen != 50 {
			return
		}
		ran = true
		j := s.c.LowIndex(prio)
		var keys []nodeKey
		var blocks []int
		for bl, word := range cl.g.dense {
			if word != 0 {
				blocks = append(blocks, bl)
			}
		}
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			bl := blocks[i%len(blocks)]
			keys = s.blockKeys(cl, bl, cl.g.dense[bl], j, keys[:0])
		}
	}
	Solve(c, Config{Seed: 1, sw: switches{checkChoice: checkChoice}})
	if !ran {
		b.Fatal("fewer than 50 preemptions")
	}
}
