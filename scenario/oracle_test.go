package scenario

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The taint-evict cases (testdata/taint-evict): a cluster of bound
// standalone pods (no controller: no replacements) and a scenario of taint
// changes, with the deletions kplace must make in its "# want:" lines.

type deletion struct {
	pod string
	at  float64
}

func taintEvictCases(t *testing.T) []string {
	t.Helper()
	cases, err := filepath.Glob("testdata/taint-evict/*.scenario.yaml")
	if err != nil || len(cases) < 10 {
		t.Fatalf("%d cases (%v), want at least 10", len(cases), err)
	}
	for i := range cases {
		cases[i] = strings.TrimSuffix(cases[i], ".scenario.yaml")
	}
	return cases
}

// kplaceDeletions runs a case through the engine.
func kplaceDeletions(t *testing.T, c string) []deletion {
	t.Helper()
	raw, err := os.ReadFile(c + ".scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, tl, _ := play(t, c+".yaml", string(raw), nil)
	var out []deletion
	for _, l := range tl {
		if l.Event == "pod-deleted" {
			out = append(out, deletion{l.Pod, l.T})
		}
	}
	return out
}

// wantDeletions reads a case's "# want:" lines.
func wantDeletions(t *testing.T, c string) []deletion {
	t.Helper()
	raw, err := os.ReadFile(c + ".scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "# want:\n")
	if !ok {
		t.Fatalf("%s: no want lines", c)
	}
	var out []deletion
	for _, line := range strings.Split(strings.TrimSpace(rest), "\n") {
		f := strings.Fields(strings.TrimPrefix(line, "#"))
		if len(f) != 2 {
			continue
		}
		at, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			t.Fatalf("%s: want line %q", c, line)
		}
		out = append(out, deletion{f[0], at})
	}
	return out
}

func sorted(ds []deletion) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s %g", d.pod, d.at))
	}
	slices.Sort(out)
	return out
}

// TestTaintEvictCases: kplace's deletions on every case are the ones the
// case wants (the rules of v1.36's taint manager, which TestAgainstOracle
// checks against the real one).
func TestTaintEvictCases(t *testing.T) {
	for _, c := range taintEvictCases(t) {
		same(t, filepath.Base(c), sorted(kplaceDeletions(t, c)), sorted(wantDeletions(t, c)))
	}
}

// oracleTolerance is how much later than kplace the real controller may
// delete a pod: its timers run on the wall clock, through informers, a
// work queue and an API call (about 0.01 to 0.1 s), and it reports
// seconds to 0.01.
const oracleTolerance = 0.3

// TestAgainstOracle runs each case through the real taint eviction
// controller (../shared/oracle taint-evict, given as KPLACE_ORACLE; in
// real time, one case after the other) and compares: the same pods
// deleted, each no earlier than kplace says and at most oracleTolerance
// later. Skipped without KPLACE_ORACLE (make taint-evict-compare sets it).
func TestAgainstOracle(t *testing.T) {
	oracle := os.Getenv("KPLACE_ORACLE")
	if oracle == "" {
		t.Skip("KPLACE_ORACLE is not set: the real controller is not run")
	}
	if _, err := os.Stat(oracle); err != nil {
		t.Skipf("KPLACE_ORACLE: %v", err)
	}
	worst := 0.0
	var table []string
	seen := map[string]bool{}
	for _, c := range taintEvictCases(t) {
		name := filepath.Base(c)
		ours := kplaceDeletions(t, c)
		theirs := oracleDeletions(t, oracle, c)
		kt := map[string]float64{}
		for _, d := range ours {
			kt[d.pod] = d.at
		}
		ot := map[string]float64{}
		for _, d := range theirs {
			ot[d.pod] = d.at
		}
		for _, pod := range slices.Sorted(slices.Values(append(keys(kt), keys(ot)...))) {
			if seen[name+" "+pod] {
				continue
			}
			seen[name+" "+pod] = true
			k, kok := kt[pod]
			o, ook := ot[pod]
			switch {
			case !kok || !ook:
				t.Errorf("%s: %s deleted by kplace %v, by the controller %v", name, pod, kok, ook)
				continue
			case o < k-0.005 || o > k+oracleTolerance:
				t.Errorf("%s: %s deleted at %gs by kplace, %gs by the controller", name, pod, k, o)
			}
			worst = math.Max(worst, o-k)
			table = append(table, fmt.Sprintf("%-26s %-34s kplace %6.2fs  controller %6.2fs  diff %+.2fs", name, pod, k, o, o-k))
		}
		if len(ours) == 0 && len(theirs) == 0 {
			table = append(table, fmt.Sprintf("%-26s %-34s (no deletion by either)", name, "-"))
		}
	}
	t.Logf("kplace against the real taint eviction controller (tolerance %.2fs, largest lag %.2fs):\n%s", oracleTolerance, worst, strings.Join(table, "\n"))
}

func keys(m map[string]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// oracleDeletions runs the real controller on a case: the scenario's
// taint steps become the oracle's steps file.
func oracleDeletions(t *testing.T, oracle, c string) []deletion {
	t.Helper()
	raw, err := os.ReadFile(c + ".scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Parse(c+".scenario.yaml", raw)
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		At     float64          `json:"at"`
		Node   string           `json:"node"`
		Add    []map[string]any `json:"add,omitempty"`
		Remove []map[string]any `json:"remove,omitempty"`
	}
	var steps []step
	for _, s := range sc.Steps {
		if s.Action != ActTaint || s.Nodes.Name == "" {
			t.Fatalf("%s: the oracle takes taint steps on named nodes only", c)
		}
		st := step{At: s.At.Seconds(), Node: s.Nodes.Name}
		for _, a := range s.Add {
			st.Add = append(st.Add, map[string]any{"key": a.Key, "value": a.Value, "effect": a.Effect})
		}
		for _, r := range s.Remove {
			st.Remove = append(st.Remove, map[string]any{"key": r.Key, "effect": r.Effect})
		}
		steps = append(steps, st)
	}
	dir := t.TempDir()
	stepsFile, out := filepath.Join(dir, "steps.json"), filepath.Join(dir, "report.json")
	b, _ := json.Marshal(steps)
	if err := os.WriteFile(stepsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(oracle, "taint-evict", "-in", c+".yaml", "-steps", stepsFile, "-json", out)
	start := time.Now()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: oracle: %v\n%s", c, err, msg)
	}
	t.Logf("%s: the controller ran %.1fs", filepath.Base(c), time.Since(start).Seconds())
	var rep struct {
		Evictions []struct {
			Pod string  `json:"pod"`
			At  float64 `json:"at"`
		} `json:"evictions"`
	}
	raw, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	var ds []deletion
	for _, e := range rep.Evictions {
		ds = append(ds, deletion{e.Pod, e.At})
	}
	return ds
}
