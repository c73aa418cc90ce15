package ingest

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkAdmitSnapshot times the checks a snapshot's objects pass
// (validation, duplicates, UIDs) on the snapshot named by
// KPLACE_BENCH_SNAPSHOT (kplace convert of a generated cluster).
func BenchmarkAdmitSnapshot(b *testing.B) {
	path := os.Getenv("KPLACE_BENCH_SNAPSHOT")
	if path == "" {
		b.Skip("KPLACE_BENCH_SNAPSHOT not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	in, _, err := decodeSnapshot(path, bytes.NewReader(data), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l := newLoader(Options{})
		l.in = in
		if err := l.admitSnapshot(path); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(in.Pods)), "ns/pod")
}
