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
