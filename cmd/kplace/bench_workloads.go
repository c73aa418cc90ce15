package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
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
	// ExpandCPUMs is the processor time expansion took (all threads; 0
	// where /proc is unavailable): on a shared machine wall time varies
	// with the load, this much less.
	ExpandCPUMs float64 `json:"expand_cpu_ms"`
	Created     int     `json:"created_pods"`
	Bound       int     `json:"bound_pods"`
	PeakRSSMB   float64 `json:"peak_rss_mb"`
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
		genMs := ms(time.Since(t0))
		runtime.GC()
		startCase() // the case's peak RSS is its own, the generator's memory returned
		t1 := time.Now()
		in, info, err := loadInput([]string{path}, ingest.Options{AdmissionDefaults: true})
		if err != nil {
			return fail(err)
		}
		bound := len(in.Pods)
		t2, cpu0 := time.Now(), cpuMs()
		exp, err := ingest.Expand(in, ingest.ExpandOptions{Seed: 1, AdmissionDefaults: info.AdmissionDefaults})
		if err != nil {
			return fail(err)
		}
		t3, cpu1 := time.Now(), cpuMs()
		rows = append(rows, workloadCase{Name: name, Nodes: cfg.Nodes, Workloads: cfg.Workloads, DaemonSets: cfg.DaemonSets,
			GenMs: genMs, IngestMs: ms(t2.Sub(t1)), ExpandMs: ms(t3.Sub(t2)), ExpandCPUMs: cpu1 - cpu0, Created: exp.Pods, Bound: bound,
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
	fmt.Printf("%-48s %9s %9s %9s %11s %12s %12s %9s\n", "case", "gen", "ingest", "expand", "expand CPU", "input pods", "created", "peak RSS")
	for _, r := range rows {
		fmt.Printf("%-48s %7.0fms %7.0fms %7.0fms %9.0fms %12d %12d %7.0fMB\n", r.Name, r.GenMs, r.IngestMs, r.ExpandMs, r.ExpandCPUMs,
			r.Bound, r.Created, r.PeakRSSMB)
	}
	return 0
}

// cpuMs reads the processor time the process has used (user and system,
// all threads) from /proc/self/stat, in ms; 0 where it is unavailable.
func cpuMs() float64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name (which may hold spaces): state
	// is the 3rd field, utime and stime the 14th and 15th.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) * 1000 / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc's times (100 on Linux).
const clockTicks = 100
