package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlaceReportTotalsWarningsVerbose: the report's total time covers
// the phases, the --scheduler-config warnings are in it, and the solver's
// internal counters appear (report and summary) only with --verbose.
func TestPlaceReportTotalsWarningsVerbose(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sc.yaml")
	err := os.WriteFile(cfg, []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"+
		"- schedulerName: default-scheduler\n  pluginConfig:\n  - name: VolumeBinding\n    args: {bindTimeoutSeconds: 60}\n"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	type report struct {
		Timings  map[string]float64 `json:"timings"`
		Warnings []string           `json:"warnings"`
		Engine   *struct {
			Classes int `json:"classes"`
		} `json:"engine"`
	}
	for _, verbose := range []bool{false, true} {
		rep := filepath.Join(dir, "report.json")
		args := []string{"place", "-f", "testdata/seeds.yaml", "--report", rep, "--scheduler-config", cfg}
		if verbose {
			args = append(args, "--verbose")
		}
		code, stderr := runCapture(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(rep)
		if err != nil {
			t.Fatal(err)
		}
		var r report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for k, v := range r.Timings {
			if k != "total_ms" {
				sum += v
			}
		}
		if total := r.Timings["total_ms"]; total <= 0 || total < sum {
			t.Errorf("total_ms %v, phases sum to %v", total, sum)
		}
		found := false
		for _, w := range r.Warnings {
			found = found || strings.HasSuffix(w, "pluginConfig VolumeBinding: not applied")
		}
		if !found {
			t.Errorf("no --scheduler-config warning in the report: %q", r.Warnings)
		}
		if strings.Count(stderr, "pluginConfig VolumeBinding: not applied") != 1 {
			t.Errorf("the warning is not on stderr once:\n%s", stderr)
		}
		if got := r.Engine != nil && r.Engine.Classes > 0; got != verbose {
			t.Errorf("--verbose %v: engine counters %+v", verbose, r.Engine)
		}
		if got := strings.Contains(stderr, "classes"); got != verbose {
			t.Errorf("--verbose %v: summary:\n%s", verbose, stderr)
		}
		if !strings.Contains(stderr, "NodeResourcesFit") || !strings.Contains(stderr, "0/N nodes are available: N Insufficient nvidia.com/gpu, N node(s) had untolerated taint(s), N node(s) were unschedulable. no new claims to deallocate, preemption: 0/N nodes are available: N No preemption victims found for incoming pod, N Preemption is not helpful for scheduling.\n") {
			t.Errorf("summary lacks the roll-ups or cuts a reason:\n%s", stderr)
		}
	}
}
