package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
)

// benchCluster is n nodes of mixed sizes, a third of them soft-tainted,
// partly filled, for the solver micro-benchmarks.
func benchCluster(tb testing.TB, n int, pending []index.Pod) *index.Cluster {
	r := rand.New(rand.NewPCG(1, 2))
	var nodes []index.Node
	var pods []index.Pod
	for i := range n {
		name := fmt.Sprintf("n%d", i)
		b := makeNode(name).alloc("cpu", int64(4000<<(i%4))).alloc("memory", int64(16<<(i%4))<<30).label("zone", fmt.Sprint(i%5))
		if i%3 == 0 {
			b.taint("spot", "true", PN)
		}
		nodes = append(nodes, b.obj())
		for range r.IntN(5) {
			pods = append(pods, makePod(fmt.Sprintf("r%d", len(pods))).req("cpu", int64(100+r.IntN(900))).req("memory", int64(1+r.IntN(8))<<28).on(name).obj())
		}
	}
	return cluster(tb, nodes, append(pods, pending...))
}

// BenchmarkBuild measures one class heap build over 10,000 nodes: the
// per-class cost that bounds throughput when classes are small.
func BenchmarkBuild(b *testing.B) {
	for _, tc := range []struct {
		name string
		pod  index.Pod
	}{
		{"plain", makePod("p").req("cpu", 500).req("memory", 1<<30).obj()},
		{"preferred", makePod("p").req("cpu", 500).req("memory", 1<<30).preferred(10, req("zone", "In", "1", "2")).obj()},
	} {
		b.Run(tc.name+"/nodes=10000", func(b *testing.B) {
			c := benchCluster(b, 10000, []index.Pod{tc.pod})
			s := newSolver(c, Config{Seed: 1})
			queue := Queue(c)
			classOf := s.classify(queue)
			s.awaitGroups()
			cl := s.classes[classOf[0]]
			b.ReportAllocs()
			for b.Loop() {
				s.build(cl)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/node")
		})
	}
}
