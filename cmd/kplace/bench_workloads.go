package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/kplace/kplace/bench"
	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/ingest"
)

// workloadCase is one row of the expansion benchmark.
type workloadCase struct {
	Name       string  `json:"name"`
	Nodes      int     `json:"nodes"`
	Workloads  int     `json:"workloads"`
	DaemonSets int     `json:"daemonsets"`
	GenMs      float64 `json:"gen_ms"`
	IngestMs   float64 `json:"ingest_ms"`
	ExpandMs   float64 `json:"expand_ms"`
	Created    int     `json:"created_pods"`
	Bound      int     `json:"bound_pods"`
	PeakRSSMB  float64 `json:"peak_rss_mb"`
}

// workloadSuite: exports whose controllers hold 70% of their pods running
// and lack the rest, and whose DaemonSets lack every pod (the expansion
// creates them all: a DaemonSet over 100,000 nodes is 100,000 pods).
var workloadSuite = []bench.WorkloadConfig{
	{Nodes: 10000, Workloads: 3000, DaemonSets: 4, Running: 0.7, Seed: 1},
	{Nodes: 100000, Workloads: 30000, DaemonSets: 4, Running: 0.7, Seed: 1},
}

// benchWorkloads times loading and expanding each case of workloadSuite
// (kplace bench --suite workloads): expansion alone, as place runs it
// between ingest and index.
func benchWorkloads(dir string, asJSON bool) int {
	var rows []workloadCase
	for _, cfg := range workloadSuite {
		name := fmt.Sprintf("workloads/nodes=%d/workloads=%d/daemonsets=%d", cfg.Nodes, cfg.Workloads, cfg.DaemonSets)
		if !asJSON {
			fmt.Fprintf(os.Stderr, "bench: %s ...\n", name)
		}
		path := filepath.Join(dir, fmt.Sprintf("workloads-%d-%d.json", cfg.Nodes, cfg.Workloads))
		t0 := time.Now()
		err := export.WriteFileAtomic(path, func(w io.Writer) error { return bench.GenerateWorkloads(cfg, w) })
		if err != nil {
			return fail(err)
		}
		t1 := time.Now()
		in, info, err := ingest.LoadWithInfo([]string{path}, ingest.Options{AdmissionDefaults: true})
		if err != nil {
			return fail(err)
		}
		bound := len(in.Pods)
		t2 := time.Now()
		exp, err := ingest.Expand(in, ingest.ExpandOptions{Seed: 1, AdmissionDefaults: info.AdmissionDefaults})
		if err != nil {
			return fail(err)
		}
		t3 := time.Now()
		rows = append(rows, workloadCase{Name: name, Nodes: cfg.Nodes, Workloads: cfg.Workloads, DaemonSets: cfg.DaemonSets,
			GenMs: ms(t1.Sub(t0)), IngestMs: ms(t2.Sub(t1)), ExpandMs: ms(t3.Sub(t2)), Created: exp.Pods, Bound: bound,
			PeakRSSMB: peakRSSMB()})
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return fail(err)
		}
		return 0
	}
	fmt.Printf("%-48s %9s %9s %9s %12s %12s %9s\n", "case", "gen", "ingest", "expand", "input pods", "created", "peak RSS")
	for _, r := range rows {
		fmt.Printf("%-48s %7.0fms %7.0fms %7.0fms %12d %12d %7.0fMB\n", r.Name, r.GenMs, r.IngestMs, r.ExpandMs, r.Bound, r.Created, r.PeakRSSMB)
	}
	return 0
}
