package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/kplace/kplace/bench"
	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/ingest"
	"github.com/kplace/kplace/solver"
	"github.com/spf13/cobra"
)

// benchCase is one row of the benchmark table.
type benchCase struct {
	Name    string  `json:"name"`
	Nodes   int     `json:"nodes"`
	Pods    int     `json:"pods"`
	Profile string  `json:"profile"`
	Input   string  `json:"input"` // the format placed: .json, .json.zst or .arrow
	GenMs   float64 `json:"gen_ms"`
	// ConvertMs is the time to convert the generated JSON into the
	// snapshot an .arrow case places (load and write).
	ConvertMs float64 `json:"convert_ms,omitempty"`
	// Phase timings of the place run.
	IngestMs float64 `json:"ingest_ms"`
	IndexMs  float64 `json:"index_ms"`
	SolveMs  float64 `json:"solve_ms"`
	ExportMs float64 `json:"export_ms"`
	TotalMs  float64 `json:"total_ms"`
	// Rates in pending pods per second.
	SolveRate float64 `json:"solve_pods_per_s"`
	TotalRate float64 `json:"total_pods_per_s"`
	PeakRSSMB float64 `json:"peak_rss_mb"`
	Mallocs   uint64  `json:"solve_mallocs"`
	Placed    int     `json:"placed"`
	Pending   int     `json:"pending"`
	Evicted   int     `json:"evicted"`
	// Preemptors are pods placed by evicting others; PreemptRate is
	// preemptors per second of solve.
	Preemptors  int     `json:"preemptors"`
	PreemptRate float64 `json:"preemptors_per_s"`
}

// benchInput is one generated input of the suite.
type benchInput struct {
	gen bench.GenConfig
	// ext is the file suffix, the format the run reads: .json, .json.zst,
	// or .arrow (a snapshot converted from the .json.zst, which is
	// generated unless an earlier case left it).
	ext string
	// layout is how the JSON is laid out (gen --layout); "" is lines.
	layout string
}

// quickSuite is the default benchmark suite; fullSuite adds the 100,000-node
// case, read from zstd-compressed JSON (as large exports are shipped), then
// from its Arrow snapshot (kplace convert).
var (
	quickSuite = []benchInput{
		{bench.GenConfig{Profile: "mixed", Nodes: 1000, Pods: 10000, Running: -1, Seed: 1}, ".json", ""},
		{bench.GenConfig{Profile: "mixed", Nodes: 5000, Pods: 50000, Running: -1, Seed: 1}, ".json", ""},
		{bench.GenConfig{Profile: "mixed", Nodes: 10000, Pods: 100000, Running: -1, Seed: 1}, ".json", ""},
		{bench.GenConfig{Profile: "preemption-heavy", Nodes: 10000, Pods: 20000, Running: -1, Seed: 1}, ".json", ""},
		{bench.GenConfig{Profile: "spread-bench", Nodes: 10000, Pods: 100000, Running: -1, Seed: 1}, ".json", ""},
		{bench.GenConfig{Profile: "realistic", Nodes: 10000, Pods: 100000, Running: -1, Seed: 1}, ".json.zst", ""},
	}
	fullSuite = append(quickSuite[:len(quickSuite):len(quickSuite)],
		benchInput{bench.GenConfig{Profile: "realistic", Nodes: 10000, Pods: 100000, Running: -1, Seed: 1}, ".json.zst", layoutKubectl},
		benchInput{bench.GenConfig{Profile: "mixed", Nodes: 100000, Pods: 1000000, Running: -1, Seed: 1}, ".json.zst", ""},
		benchInput{bench.GenConfig{Profile: "mixed", Nodes: 100000, Pods: 1000000, Running: -1, Seed: 1}, ".arrow", ""},
		benchInput{bench.GenConfig{Profile: "realistic", Nodes: 100000, Pods: 1000000, Running: -1, Seed: 1}, ".json.zst", ""},
		benchInput{bench.GenConfig{Profile: "realistic", Nodes: 100000, Pods: 1000000, Running: -1, Seed: 1}, ".arrow", ""})
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench [--suite quick|full|workloads|zone-failure | --nodes N --pods M --profile P] [--json]",
		Short: "Generate clusters, place them and print timings",
		Long: `Generates clusters, places them in-process and prints phase timings, pods/s, peak
RSS and solve-phase allocations. Without --nodes it runs a fixed suite.`,
		Example: `  # The quick suite (about a minute on 2 cores)
  kplace bench

  # One case
  kplace bench --nodes 5000 --pods 50000 --profile spread-bench --json`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	nodes := fs.Int("nodes", 0, "run one case with this many nodes instead of the suite")
	pods := fs.Int("pods", 0, "pending pods of the single case")
	profile := fs.String("profile", "mixed", "profile of the single case: "+strings.Join(bench.Profiles(), ", "))
	seed := fs.Uint64("seed", 1, "generator seed")
	suiteName := fs.String("suite", "quick", "quick (mixed 1k nodes/10k pods, 5k/50k, 10k/100k; preemption-heavy 10k/20k; spread-bench 10k/100k; realistic 10k/100k from .json.zst),\n"+
		"full (adds realistic 10k laid out as kubectl prints it, and mixed and realistic 100k nodes/1M pods, each from .json.zst, then from its .arrow snapshot),\n"+
		"workloads (expansion alone: exports of controllers lacking 30% of their pods and 4 DaemonSets lacking all theirs, 10k nodes/3k workloads and 100k/30k)\n"+
		"or zone-failure (simulate: a zone of the mixed profile fails, 10k nodes/100k running pods, then 100k/1M; with --nodes, the cases up to that many nodes)")
	asJSON := fs.Bool("json", false, "print the table as JSON")
	keep := fs.String("keep", "", "keep the generated inputs and results in this directory")
	completeValues(cmd, "profile", bench.Profiles()...)
	completeValues(cmd, "suite", "quick", "full", "workloads", "zone-failure")
	run := func() int {
		var suite []benchInput
		switch {
		case *suiteName == "zone-failure":
		case *nodes > 0:
			suite = []benchInput{{bench.GenConfig{Profile: *profile, Nodes: *nodes, Pods: *pods, Running: -1, Seed: *seed}, ".json", ""}}
		case *suiteName == "quick":
			suite = quickSuite
		case *suiteName == "full":
			suite = fullSuite
		case *suiteName == "workloads":
		default:
			fmt.Fprintf(os.Stderr, "kplace bench: unknown --suite %q (want quick, full, workloads or zone-failure)\n", *suiteName)
			return 2
		}
		dir := *keep
		if dir == "" {
			d, err := os.MkdirTemp("", "kplace-bench")
			if err != nil {
				return fail(err)
			}
			defer os.RemoveAll(d)
			dir = d
		} else if err := os.MkdirAll(dir, 0o755); err != nil {
			return fail(err)
		}
		if *suiteName == "zone-failure" {
			return runZoneFailureBench(dir, *nodes, *asJSON)
		}
		if *suiteName == "workloads" && *nodes == 0 {
			return benchWorkloads(dir, *asJSON)
		}
		var rows []benchCase
		perCase := true // every case's peak RSS is its own (startCase)
		for _, in := range suite {
			gc := in.gen
			name := fmt.Sprintf("%s/nodes=%d/pods=%d", gc.Profile, gc.Nodes, gc.Pods)
			if in.ext == ".arrow" {
				name += "/arrow"
			}
			base := filepath.Join(dir, fmt.Sprintf("%s-%d-%d", gc.Profile, gc.Nodes, gc.Pods))
			if in.layout != "" {
				name += "/" + in.layout
				base += "-" + in.layout
			}
			if !*asJSON {
				fmt.Fprintf(os.Stderr, "bench: %s ...\n", name)
			}
			path := base + in.ext
			genMs, convertMs, err := prepareBenchInput(base, in.ext, gc, in.layout)
			if err != nil {
				return fail(err)
			}
			cfg := placeConfig{paths: []string{path}, admission: true, quiet: true, format: "list",
				out: path + ".result.json"}
			cfg.solve.Seed = *seed
			cfg.solve.DefaultSpread, cfg.solve.SystemDefaultSpread = solver.BuiltinDefaultSpread(), true
			// Each case starts on a collected heap, as a process of its
			// own would: the cases before it, and the conversion of an
			// /arrow case's input, leave garbage that would otherwise be
			// collected inside this case's phases (the soft memory limit
			// forcing collections through its snapshot's decoding).
			runtime.GC()
			perCase = startCase() && perCase
			st, err := place(cfg)
			if err != nil {
				return fail(err)
			}
			r := st.report
			row := benchCase{Name: name, Nodes: gc.Nodes, Pods: gc.Pods, Profile: gc.Profile, Input: in.ext, GenMs: genMs, ConvertMs: convertMs,
				IngestMs: r.Timings.Ingest, IndexMs: r.Timings.Index, SolveMs: r.Timings.Solve,
				ExportMs: r.Timings.Export, TotalMs: r.Timings.Total, PeakRSSMB: peakRSSMB(), Mallocs: st.mallocs,
				Placed: r.Counts.Placed, Pending: r.Counts.Unschedulable + r.Counts.Unsupported + r.Counts.Gated,
				Evicted: r.Counts.Evicted, Preemptors: r.Counts.Preemptors}
			if row.SolveMs > 0 {
				row.SolveRate = float64(r.Counts.Pending) / (row.SolveMs / 1000)
				row.PreemptRate = float64(row.Preemptors) / (row.SolveMs / 1000)
			}
			if row.TotalMs > 0 {
				row.TotalRate = float64(r.Counts.Pending) / (row.TotalMs / 1000)
			}
			rows = append(rows, row)
		}
		if *asJSON {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(rows); err != nil {
				return fail(err)
			}
			return 0
		}
		fmt.Printf("%-38s %9s %8s %8s %8s %8s %9s %11s %11s %9s %10s %8s %8s %8s %10s\n",
			"case", "ingest", "index", "solve", "export", "total", "gen", "solve pod/s", "total pod/s", "peak RSS", "allocs", "placed", "pending", "evicted", "preempt/s")
		for _, r := range rows {
			fmt.Printf("%-38s %8.0fms %6.0fms %6.0fms %6.0fms %6.0fms %7.0fms %11.0f %11.0f %7.0fMB %10d %8d %8d %8d %10.0f\n",
				r.Name, r.IngestMs, r.IndexMs, r.SolveMs, r.ExportMs, r.TotalMs, r.GenMs+r.ConvertMs, r.SolveRate, r.TotalRate,
				r.PeakRSSMB, r.Mallocs, r.Placed, r.Pending, r.Evicted, r.PreemptRate)
		}
		if perCase {
			fmt.Println("gen includes the conversion to the snapshot of an /arrow case; peak RSS is each case's own high-water mark (memory returned to the system and the mark reset before each case).")
		} else {
			fmt.Println("gen includes the conversion to the snapshot of an /arrow case; peak RSS is the process high-water mark so far (cumulative across cases: the mark could not be reset here).")
		}
		return 0
	}
	cmd.RunE = func(*cobra.Command, []string) error { return codeErr(run()) }
	return cmd
}

// startCase starts a case as a process of its own would start its run:
// the memory the cases before it freed is returned to the system (a case
// run after a larger one would otherwise find its pages already mapped),
// and the peak resident set size is reset to what is left (Linux: "5" to
// /proc/self/clear_refs), so that peakRSSMB after the case is the case's
// own. It reports whether the reset was made.
func startCase() bool {
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSSMB reads the process's peak resident set size (VmHWM) in MiB; 0
// where /proc is unavailable.
func peakRSSMB() float64 {
	return float64(procKB("/proc/self/status", "VmHWM:")) / 1024
}

// prepareBenchInput writes the input of a case at base+ext: generated JSON,
// or for .arrow the snapshot converted from base.json.zst (generated
// unless an earlier case left it). It returns the generation and
// conversion times in ms.
func prepareBenchInput(base, ext string, gc bench.GenConfig, layout string) (genMs, convertMs float64, err error) {
	src := base + ext
	if ext == ".arrow" {
		src = base + ".json.zst"
	}
	t0 := time.Now()
	if _, err := os.Stat(src); ext != ".arrow" || err != nil {
		if err := writeGeneratedAs(src, gc, layout); err != nil {
			return 0, 0, err
		}
		genMs = ms(time.Since(t0))
	}
	if ext != ".arrow" {
		return genMs, 0, nil
	}
	t1 := time.Now()
	in, info, err := loadInput([]string{src}, ingest.Options{AdmissionDefaults: true})
	if err != nil {
		return 0, 0, err
	}
	err = export.WriteFileAtomic(base+ext, func(w io.Writer) error {
		return ingest.WriteSnapshot(w, in, ingest.SnapshotOptions{AdmissionDefaults: info.AdmissionDefaults})
	})
	return genMs, ms(time.Since(t1)), err
}
