package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/kplace/kplace/bench"
	"github.com/kplace/kplace/scenario"
)

// The zone-failure suite: simulate runs on generated clusters of running
// pods only, one zone's nodes failing at 60 s.

// zoneFailureSuite are its inputs: the mixed profile's smallest zone
// (us-east-1e, a tenth of the nodes) fails; the clusters are read from
// their snapshots, as a user chaining runs would keep them.
var zoneFailureSuite = []benchInput{
	{bench.GenConfig{Profile: "mixed", Nodes: 10000, Pods: 0, Running: 100000, Seed: 1}, ".arrow", ""},
	{bench.GenConfig{Profile: "mixed", Nodes: 100000, Pods: 0, Running: 1000000, Seed: 1}, ".arrow", ""},
}

// zoneFailureScenario is the scenario of every case.
const zoneFailureScenario = `kind: Scenario
steps:
- at: 60s
  failNodes: {nodes: topology.kubernetes.io/zone=us-east-1e}
`

// simBenchCase is one row of the zone-failure table.
type simBenchCase struct {
	Name      string  `json:"name"`
	Nodes     int     `json:"nodes"`
	Pods      int     `json:"running_pods"`
	GenMs     float64 `json:"gen_ms"` // generation and conversion to the snapshot
	LoadMs    float64 `json:"load_ms"`
	SetupMs   float64 `json:"setup_ms"`
	SimMs     float64 `json:"simulate_ms"`
	SchedMs   float64 `json:"scheduler_ms"`
	WriteMs   float64 `json:"write_ms"`
	TotalMs   float64 `json:"total_ms"`
	PeakRSSMB float64 `json:"peak_rss_mb"`
	Displaced int     `json:"displaced"`
	Replaced  int     `json:"replaced"`
	Pending   int     `json:"pending"`
	Runs      int     `json:"scheduler_runs"`
	Events    int     `json:"timeline_events"`
	VirtualS  float64 `json:"virtual_s"`
}

// runZoneFailureBench runs the suite (only cases of at most maxNodes nodes
// when maxNodes > 0) and prints its table.
func runZoneFailureBench(dir string, maxNodes int, asJSON bool) int {
	sc, err := scenario.Parse("zone-failure", []byte(zoneFailureScenario))
	if err != nil {
		return fail(err)
	}
	var rows []simBenchCase
	for _, in := range zoneFailureSuite {
		gc := in.gen
		if maxNodes > 0 && gc.Nodes > maxNodes {
			continue
		}
		name := fmt.Sprintf("zone-failure/%s/nodes=%d/running=%d", gc.Profile, gc.Nodes, gc.Running)
		if !asJSON {
			fmt.Fprintf(os.Stderr, "bench: %s ...\n", name)
		}
		base := filepath.Join(dir, fmt.Sprintf("%s-%d-running-%d", gc.Profile, gc.Nodes, gc.Running))
		var genMs, convertMs float64
		if _, err := os.Stat(base + in.ext); err != nil { // kept from an earlier run (--keep): not made again
			if genMs, convertMs, err = prepareBenchInput(base, in.ext, gc, in.layout); err != nil {
				return fail(err)
			}
		}
		cfg := simulateConfig{paths: []string{base + in.ext}, admission: true, quiet: true, sc: sc,
			timeline: base + ".timeline.jsonl", engine: scenario.Config{}}
		cfg.engine.Solve.Seed = 1
		runtime.GC()
		startCase() // the case's peak RSS is its own
		rep, err := simulate(cfg)
		if err != nil {
			return fail(err)
		}
		t := rep.Timings
		rows = append(rows, simBenchCase{Name: name, Nodes: gc.Nodes, Pods: gc.Running, GenMs: genMs + convertMs,
			LoadMs: t.Load, SetupMs: t.Setup, SimMs: t.Simulate, SchedMs: t.Scheduler, WriteMs: t.Write, TotalMs: t.Total,
			PeakRSSMB: peakRSSMB(), Displaced: rep.Displaced, Replaced: rep.Replaced, Pending: rep.Pending,
			Runs: rep.SchedulerRuns, Events: rep.Events, VirtualS: rep.EndS})
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return fail(err)
		}
		return 0
	}
	fmt.Printf("%-44s %8s %8s %9s %10s %8s %9s %9s %10s %9s %9s %8s %7s\n",
		"case", "load", "set up", "simulate", "(sched.)", "write", "total", "peak RSS", "displaced", "replaced", "pending", "runs", "virtual")
	for _, r := range rows {
		fmt.Printf("%-44s %6.0fms %6.0fms %7.0fms %8.0fms %6.0fms %7.0fms %7.0fMB %10d %9d %9d %8d %6.1fh\n",
			r.Name, r.LoadMs, r.SetupMs, r.SimMs, r.SchedMs, r.WriteMs, r.TotalMs, r.PeakRSSMB, r.Displaced, r.Replaced, r.Pending, r.Runs, r.VirtualS/3600)
	}
	fmt.Println("total is load + set up + simulate + write (the input's generation and conversion are not in it); the timeline is written.")
	return 0
}
