package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kplace/kplace/ingest"
)

// TestSimulate runs a scenario end to end: exit 0, a story, a timeline,
// a report, the final state as JSON and as a snapshot (each read back by
// ingest, and placed again by place), the same bytes on a second run.
func TestSimulate(t *testing.T) {
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	runOnce := func(suffix string) (string, []byte, []byte, []byte) {
		code, stderr := runCapture(t, "simulate", "-f", "testdata/simulate-cluster.yaml", "--scenario", "testdata/simulate-drain.yaml",
			"--timeline", out("timeline"+suffix), "--report", out("report"+suffix), "-o", out("state"+suffix+".json"),
			"--placements", out("placements"+suffix), "--placements-state", out("pstate"+suffix+".json"))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		tl, _ := os.ReadFile(out("timeline" + suffix))
		st, _ := os.ReadFile(out("state" + suffix + ".json"))
		pl, _ := os.ReadFile(out("placements" + suffix))
		return stderr, tl, st, pl
	}
	story, tl1, st1, pl1 := runOnce("1")
	for _, want := range []string{"drain pool=old", "failNodes n3", "evictions refused (PodDisruptionBudgets): 4", "drain of 2 node(s): 2 drained"} {
		if !strings.Contains(story, want) {
			t.Errorf("the story lacks %q:\n%s", want, story)
		}
	}
	_, tl2, st2, pl2 := runOnce("2")
	if !bytes.Equal(tl1, tl2) || !bytes.Equal(st1, st2) || !bytes.Equal(pl1, pl2) || len(tl1) == 0 {
		t.Error("two runs wrote different timelines, states or placements")
	}
	for _, l := range bytes.Split(bytes.TrimSpace(tl1), []byte("\n")) {
		var ev map[string]any
		if err := json.Unmarshal(l, &ev); err != nil {
			t.Fatalf("timeline line %q: %v", l, err)
		}
		if _, ok := ev["t"].(float64); !ok || ev["event"] == nil || ev["reason"] == nil {
			t.Fatalf("timeline line %q lacks t, event or reason", l)
		}
	}
	var rep struct {
		Steps []struct {
			Displaced     int `json:"displaced"`
			TimeToReplace any `json:"time_to_replace_s"`
		} `json:"steps"`
	}
	raw, _ := os.ReadFile(out("report1"))
	if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Steps) != 2 {
		t.Fatalf("report: %v, %d steps", err, len(rep.Steps))
	}
	// n3 holds every shop pod at 5 min: its failure displaces them, and
	// nowhere is left to put them (n1 and n2 are cordoned).
	if rep.Steps[0].Displaced != 5 || rep.Steps[1].Displaced != 5 || rep.Steps[1].TimeToReplace != "never" {
		t.Errorf("report steps %+v", rep.Steps)
	}
	state, err := ingest.Load([]string{out("state1.json")}, ingest.Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(state.Nodes) != 3 || !state.Nodes[0].Unschedulable {
		t.Errorf("state: %d nodes, n1 cordoned %v", len(state.Nodes), state.Nodes[0].Unschedulable)
	}
	// The state chains: a snapshot of it, and place on it.
	code, stderr := runCapture(t, "simulate", "-q", "-f", out("state1.json"), "--uncordon-all-for-test-only")
	if code != 2 {
		t.Errorf("an unknown flag: exit %d, want 2 (%s)", code, stderr)
	}
	code, stderr = runCapture(t, "simulate", "-q", "-f", "testdata/simulate-cluster.yaml", "--drain", "n1", "-o", out("state.arrow"))
	if code != 0 {
		t.Fatalf("shorthand drain to a snapshot: exit %d: %s", code, stderr)
	}
	code, stderr = runCapture(t, "place", "-q", "-f", out("state.arrow"), "-o", out("result.json"))
	if code != 0 {
		t.Fatalf("place on the snapshot state: exit %d: %s", code, stderr)
	}
}

func TestSimulateUsage(t *testing.T) {
	for _, args := range [][]string{
		{"simulate"},
		{"simulate", "-f", "testdata/simulate-cluster.yaml"},
		{"simulate", "-f", "testdata/simulate-cluster.yaml", "--scenario", "testdata/simulate-drain.yaml", "--drain", "n1"},
		{"simulate", "-f", "testdata/simulate-cluster.yaml", "--scenario", "testdata/simulate-cluster.yaml"},
		{"simulate", "-f", "testdata/simulate-cluster.yaml", "--taint-nodes", "n1"},
		{"simulate", "-f", "testdata/simulate-cluster.yaml", "--drain", "n1", "--strategy", "random"},
		{"simulate", "-f", "testdata/simulate-cluster.yaml", "--drain", "n1", "--node-monitor-period", "0s"},
	} {
		if code, stderr := runCapture(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	if code, stderr := runCapture(t, "simulate", "-q", "-f", "testdata/simulate-cluster.yaml", "--fail-nodes", "nope"); code != 1 || !strings.Contains(stderr, `no node named "nope"`) {
		t.Errorf("a step that cannot run: exit %d, %s", code, stderr)
	}
	if code, _ := runCapture(t, "simulate", "--help"); code != 0 {
		t.Errorf("--help: exit %d", code)
	}
}

// TestSimulateExpand: with --expand (the default) a cluster of manifests
// starts with its controllers' pods, placed at t = 0 (the Deployment's two,
// the DaemonSet's one per node); when n1 is tainted NoExecute at 30 s, the
// Deployment's pod there is replaced from its template and placed on n2 at
// 30 s, the DaemonSet's is not. Without --expand nothing runs.
func TestSimulateExpand(t *testing.T) {
	dir := t.TempDir()
	tlPath := filepath.Join(dir, "timeline.jsonl")
	events := func(args ...string) []map[string]any {
		args = append([]string{"simulate", "-q", "-f", "testdata/simulate-manifests.yaml", "--taint-nodes", "n1", "--taint", "maint:NoExecute",
			"--at", "30s", "--timeline", tlPath}, args...)
		if code, stderr := runCapture(t, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		raw, _ := os.ReadFile(tlPath)
		var out []map[string]any
		for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
			var ev map[string]any
			if err := json.Unmarshal(l, &ev); err != nil {
				t.Fatalf("timeline line %q: %v", l, err)
			}
			out = append(out, ev)
		}
		return out
	}
	count := func(evs []map[string]any, tm float64, event, podPrefix, node string) int {
		n := 0
		for _, ev := range evs {
			pod, _ := ev["pod"].(string)
			if ev["t"] == tm && ev["event"] == event && strings.HasPrefix(pod, podPrefix) && (node == "" || ev["node"] == node) {
				n++
			}
		}
		return n
	}
	evs := events()
	if api, logs := count(evs, 0, "pod-bound", "shop/api-", ""), count(evs, 0, "pod-bound", "kube-system/logs-", ""); api != 2 || logs != 2 {
		t.Errorf("bound at 0: %d api pods, %d logs pods; want 2 and 2", api, logs)
	}
	gone := count(evs, 30, "pod-deleted", "shop/api-", "n1")
	if gone == 0 || count(evs, 30, "pod-created", "shop/api-", "") != gone || count(evs, 30, "pod-bound", "shop/api-", "n2") != gone {
		t.Errorf("at 30 s: %d api pods deleted on n1; want each replaced and bound to n2 at 30 s: %v", gone, evs)
	}
	if count(evs, 30, "pod-deleted", "kube-system/logs-", "n1") != 1 || count(evs, 30, "pod-created", "kube-system/", "") != 0 {
		t.Errorf("the DaemonSet pod on n1: want deleted at 30 s, not replaced: %v", evs)
	}
	if evs := events("--expand=false"); count(evs, 0, "pod-bound", "", "") != 0 || count(evs, 30, "pod-deleted", "", "") != 0 {
		t.Errorf("--expand=false: %v", evs)
	}
}

// TestExampleScenario: the scenario the docs show and the repository ships
// (examples/zone-failure.yaml, the same steps in docs/scenarios.md) runs on
// the README's quick start cluster: every step matches nodes, the drain
// completes, and the clock stops at the scenario's until without the
// warning a run that goes on for days gives.
func TestExampleScenario(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "zone-failure.yaml")
	raw, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	var steps strings.Builder
	for _, l := range strings.SplitAfter(string(raw), "\n") {
		if !strings.HasPrefix(l, "#") {
			steps.WriteString(l)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```yaml\n"+steps.String()+"```\n") {
		t.Error("docs/scenarios.md does not show examples/zone-failure.yaml's steps as they are")
	}
	dir := t.TempDir()
	cluster := filepath.Join(dir, "cluster.json")
	if code, stderr := runCapture(t, "gen", "--profile", "mixed", "--nodes", "100", "--pods", "1000", "-o", cluster); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	code, stderr := runCapture(t, "simulate", "-f", cluster, "--scenario", example, "--report", filepath.Join(dir, "report.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"4 step(s), 2h0m0s of virtual time", "drain of 13 node(s): 13 drained", "addNodes 20 x big-*  (20 node(s))"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the story lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "warning: stopped at") || strings.Contains(stderr, " 0 hugepages") {
		t.Errorf("the story:\n%s", stderr)
	}
}
