package scenario

import (
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/nodelifecycle"
	"github.com/kplace/kplace/solver"
)

// BenchmarkReplacementCopy: the replacement of a pod whose controller the
// input lacks (the zone-failure bench's pods): a copy of its spec under a
// new name.
func BenchmarkReplacementCopy(b *testing.B) {
	in := load(b, "testdata/small.yaml")
	sc, _ := Parse("b.yaml", []byte("kind: Scenario\nsteps: []\n"))
	e, err := New(in, sc, Config{Solve: solver.Config{Seed: 1}, Lifecycle: nodelifecycle.DefaultConfig(), Admission: true})
	if err != nil {
		b.Fatal(err)
	}
	var p *index.Pod
	for i := range e.c.Pods {
		if e.c.Pods[i].Name == "api-7f6b-1" {
			p = &e.c.Pods[i]
		}
	}
	var buf []index.Pod
	b.ReportAllocs()
	for b.Loop() {
		if buf = e.replacementsOf(buf[:0], p); len(buf) != 1 {
			b.Fatal(len(buf))
		}
	}
}
