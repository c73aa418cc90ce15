package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
)

// BenchmarkExpand times expansion alone (ingest.Expand) on generated
// exports whose controllers hold 70% of their pods running and lack the
// rest, and whose 4 DaemonSets lack every pod: 3 workloads per 10 nodes.
func BenchmarkExpand(b *testing.B) {
	for _, nodes := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("nodes=%d/workloads=%d", nodes, nodes*3/10), func(b *testing.B) {
			in := loadWorkloads(b, WorkloadConfig{Nodes: nodes, Workloads: nodes * 3 / 10, DaemonSets: 4, Running: 0.7, Seed: 1})
			b.ReportAllocs()
			created := 0
			for b.Loop() {
				// Expand appends to the input's slices: give it clipped
				// copies of their headers, so each run starts alike.
				run := *in
				run.Pods, run.Workloads, run.Namespaces = slices.Clip(in.Pods), slices.Clip(in.Workloads), slices.Clip(in.Namespaces)
				exp, err := ingest.Expand(&run, ingest.ExpandOptions{Seed: 1, AdmissionDefaults: true})
				if err != nil {
					b.Fatal(err)
				}
				created = exp.Pods
			}
			b.ReportMetric(float64(created), "pods/op")
		})
	}
}

func loadWorkloads(b *testing.B, cfg WorkloadConfig) *index.Input {
	b.Helper()
	var buf bytes.Buffer
	if err := GenerateWorkloads(cfg, &buf); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "w.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	in, err := ingest.Load([]string{path}, ingest.Options{AdmissionDefaults: true})
	if err != nil {
		b.Fatal(err)
	}
	return in
}
