package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
	"github.com/kplace/kplace/solver"
)

// loadGenerated generates cfg into a temporary file and ingests it.
func loadGenerated(tb testing.TB, cfg GenConfig) *index.Input {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "cluster.json")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := Generate(cfg, f); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	in, err := ingest.Load([]string{path}, ingest.Options{AdmissionDefaults: true})
	if err != nil {
		tb.Fatal(err)
	}
	return in
}

// BenchmarkSolve measures the solve phase alone: ingest and index building
// are outside the timer. One op places every pending pod once; pods/s is
// the solve-phase throughput.
func BenchmarkSolve(b *testing.B) {
	for _, tc := range []GenConfig{
		{Profile: "mixed", Nodes: 1000, Pods: 10000, Running: -1, Seed: 1},
		{Profile: "mixed", Nodes: 10000, Pods: 100000, Running: -1, Seed: 1},
		{Profile: "resources", Nodes: 10000, Pods: 100000, Running: -1, Seed: 1},
		{Profile: "preemption-heavy", Nodes: 10000, Pods: 20000, Running: -1, Seed: 1},
	} {
		b.Run(fmt.Sprintf("profile=%s/nodes=%d/pods=%d", tc.Profile, tc.Nodes, tc.Pods), func(b *testing.B) {
			in := loadGenerated(b, tc)
			b.ReportAllocs()
			var placed int
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				c, err := index.Build(in) // Solve mutates the cluster, not the input
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res := solver.Solve(c, solver.Config{Seed: 1})
				placed = len(res.Commits)
			}
			b.ReportMetric(float64(tc.Pods)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
			b.ReportMetric(float64(placed), "placed")
		})
	}
}

// BenchmarkSolveSnapshot is BenchmarkSolve on the snapshot (or any input
// file) named by KPLACE_BENCH_SNAPSHOT, read, expanded and solved with
// the CLI's default settings (kube-scheduler's default spreading among
// them), so that an export shaped like a real one (kplace gen --profile
// realistic, then kplace convert) can be timed and counted (bench/icount.sh
// snapshot) without generating it again.
func BenchmarkSolveSnapshot(b *testing.B) {
	path := os.Getenv("KPLACE_BENCH_SNAPSHOT")
	if path == "" {
		b.Skip("KPLACE_BENCH_SNAPSHOT not set")
	}
	in, info, err := ingest.LoadWithInfo([]string{path}, ingest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	exp, err := ingest.Expand(in, ingest.ExpandOptions{Seed: 1, AdmissionDefaults: info.AdmissionDefaults, NodeIndex: true})
	if err != nil {
		b.Fatal(err)
	}
	cfg := solver.Config{Seed: 1, DefaultSpread: solver.BuiltinDefaultSpread(), SystemDefaultSpread: true}
	b.ReportAllocs()
	var placed, pending int
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		c, err := index.BuildOn(in, exp.Nodes)
		if err != nil {
			b.Fatal(err)
		}
		pending = 0
		for _, n := range c.PodNode {
			if n == index.NoNode {
				pending++
			}
		}
		b.StartTimer()
		placed = len(solver.Solve(c, cfg).Commits)
	}
	b.ReportMetric(float64(pending)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(placed), "commits")
}
