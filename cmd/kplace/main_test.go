package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/kplace/kplace/bench"
	"github.com/kplace/kplace/export"
)

var update = flag.Bool("update", false, "rewrite golden files")

// runCapture runs the CLI with args and returns the exit code and stderr.
func runCapture(t *testing.T, args ...string) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	code := run(args)
	w.Close()
	os.Stderr = old
	return code, <-done
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestPlaceSeedsGolden places the seed scenario and compares the result file
// and the report's pod reasons with golden files.
func TestPlaceSeedsGolden(t *testing.T) {
	dir := t.TempDir()
	out, rep := filepath.Join(dir, "result.json"), filepath.Join(dir, "report.json")
	code, stderr := runCapture(t, "place", "-f", "testdata/seeds.yaml", "-o", out, "--report", rep, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	result, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "seeds.result.json", result)
	golden(t, "seeds.report.json", stableReport(t, rep))
}

// stableReport is a report's counts, pending and rejected pods and
// roll-ups: timings (they vary) left out.
func stableReport(t *testing.T, path string) []byte {
	t.Helper()
	var r struct {
		Counts   map[string]int    `json:"counts"`
		Engine   json.RawMessage   `json:"engine,omitempty"`
		Pending  []json.RawMessage `json:"pending"`
		Rejected []json.RawMessage `json:"rejected"`
		Rollups  json.RawMessage   `json:"rollups"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Engine != nil {
		t.Errorf("%s: engine counters without --verbose", path)
	}
	stable, _ := json.MarshalIndent(r, "", "  ")
	return append(stable, '\n')
}

// TestPlaceRequeueCrossNode places testdata/requeue.yaml with
// --requeue-evicted and --cross-node-preemption: the result is golden, and
// the report lists each eviction with where the pod went again.
func TestPlaceRequeueCrossNode(t *testing.T) {
	dir := t.TempDir()
	out, rep := filepath.Join(dir, "result.json"), filepath.Join(dir, "report.json")
	code, stderr := runCapture(t, "place", "-f", "testdata/requeue.yaml", "-o", out, "--report", rep, "-q", "--requeue-evicted", "--cross-node-preemption")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	result, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "requeue.result.json", result)
	golden(t, "requeue.report.json", stableReport(t, rep))
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Evicted []map[string]string `json:"evicted"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(r.Evicted)
	want := `[{"name":"low","namespace":"default","node":"n1","placed_on":"n3","preemptor":"default/high"},` +
		`{"name":"db","namespace":"default","node":"n2","placed_on":"n3","preemptor":"default/web"}]`
	if string(got) != want {
		t.Errorf("evicted %s\nwant %s", got, want)
	}
	// Without the flags: no cross-node eviction, no second Binding, no list.
	code, stderr = runCapture(t, "place", "-f", "testdata/requeue.yaml", "-o", out, "--report", rep, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	result, _ = os.ReadFile(out)
	if bytes.Count(result, []byte(`"kind":"Eviction"`)) != 1 || bytes.Count(result, []byte(`"kind":"Binding"`)) != 1 {
		t.Errorf("default run:\n%s\nwant one Eviction (low) and one Binding (high)", result)
	}
	if b, _ := os.ReadFile(rep); bytes.Contains(b, []byte(`"evicted": [`)) {
		t.Error("default report lists evictions")
	}
}

func TestPlaceDeterministic(t *testing.T) {
	dir := t.TempDir()
	var outs [2][]byte
	for i := range outs {
		out := filepath.Join(dir, "r.json")
		if code, stderr := runCapture(t, "place", "--sample", "-o", out, "-q", "--seed", "7"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = b
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("two runs with the same seed wrote different results")
	}
	if !bytes.Contains(outs[0], []byte(`"kind":"Binding"`)) {
		t.Error("the sample placed nothing")
	}
}

// TestPlaceTries solves a resource-tight cluster on which tie-breaking
// changes how many pods fit with --tries 4: the report must list each
// seed's count as a single run of that seed places it, and the result must
// be, byte for byte, that of the best seed (most placed, then fewest
// evictions, then first).
func TestPlaceTries(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "cluster.json")
	if err := writeGenerated(src, bench.GenConfig{Profile: "resources", Nodes: 200, Pods: 2000, Running: -1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	type outcome struct{ placed, evicted int }
	single := map[uint64]outcome{}
	results := map[uint64][]byte{}
	for seed := uint64(1); seed < 5; seed++ {
		out, rep := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.report.json")
		if code, stderr := runCapture(t, "place", "-q", "-f", src, "-o", out, "--report", rep, "--seed", fmt.Sprint(seed)); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		r := readReport(t, rep)
		single[seed] = outcome{r.Counts.Placed, r.Counts.Evicted}
		results[seed], _ = os.ReadFile(out)
	}
	best := uint64(1)
	for seed := uint64(2); seed < 5; seed++ {
		if o, b := single[seed], single[best]; o.placed > b.placed || o.placed == b.placed && o.evicted < b.evicted {
			best = seed
		}
	}
	if single[best] == single[1] {
		t.Fatalf("seeds 1-4 place %v: the first is as good as the best, the test cannot tell", single)
	}
	out, rep := filepath.Join(dir, "t.json"), filepath.Join(dir, "t.report.json")
	code, stderr := runCapture(t, "place", "-f", src, "-o", out, "--report", rep, "--seed", "1", "--tries", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, fmt.Sprintf("kept seed %d", best)) {
		t.Errorf("summary does not say seed %d was kept:\n%s", best, stderr)
	}
	r := readReport(t, rep)
	if len(r.Tries) != 4 {
		t.Fatalf("report lists %d tries, want 4", len(r.Tries))
	}
	for i, tr := range r.Tries {
		if tr.Seed != 1+uint64(i) || (outcome{tr.Placed, tr.Evicted}) != single[tr.Seed] || tr.Kept != (tr.Seed == best) {
			t.Errorf("try %d: %+v; a single run of seed %d placed %+v, best is seed %d", i, tr, tr.Seed, single[tr.Seed], best)
		}
	}
	if r.Counts.Placed != single[best].placed {
		t.Errorf("report counts %d placed, want %d", r.Counts.Placed, single[best].placed)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, results[best]) {
		t.Errorf("result differs from a single run of seed %d", best)
	}
}

// readReport decodes a --report file.
func readReport(t *testing.T, path string) *export.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r export.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func TestPlaceBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \"4\"}}\n---\n"+
		"apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c, resources: {requests: {cpu: lots}}}]\n"), 0o644)
	out := filepath.Join(dir, "result.json")
	code, stderr := runCapture(t, "place", "-f", bad, "-o", out)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"bad.yaml", "web", "lots"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("error %q does not name %q", stderr, want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("result file written despite the error (stat: %v)", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the input (no temporary left behind)", len(entries))
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"nonsense"},
		{"place"},
		{"place", "--sample", "--strategy", "random"},
		{"place", "--sample", "--format", "xml"},
		{"gen", "--profile", "mixed"},
		{"place", "--sample", "--preemption=false", "--requeue-evicted"},
		{"place", "--sample", "--preemption=false", "--cross-node-preemption"},
		{"place", "--sample", "--tries", "0"},
	} {
		if code, _ := runCapture(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestConvertPlacesTheSame converts a generated cluster to a snapshot and
// places it: the Bindings and the pending reasons must be byte for byte
// those of placing the JSON.
func TestConvertPlacesTheSame(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "cluster.json.zst")
	if err := writeGenerated(src, bench.GenConfig{Profile: "mixed", Nodes: 300, Pods: 3000, Running: -1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	for _, admission := range []string{"true", "false"} {
		snap := filepath.Join(dir, "cluster-"+admission+".arrow")
		if code, stderr := runCapture(t, "convert", "-q", "-f", src, "-o", snap, "--admission-defaults="+admission); code != 0 {
			t.Fatalf("convert: exit %d: %s", code, stderr)
		}
		var results, reports [2][]byte
		for i, in := range []string{src, snap} {
			out, rep := filepath.Join(dir, "result.json"), filepath.Join(dir, "report.json")
			args := []string{"place", "-q", "-f", in, "-o", out, "--report", rep}
			if i == 0 {
				args = append(args, "--admission-defaults="+admission)
			}
			if code, stderr := runCapture(t, args...); code != 0 {
				t.Fatalf("place %s: exit %d: %s", in, code, stderr)
			}
			results[i], _ = os.ReadFile(out)
			reports[i] = stableReport(t, rep)
		}
		if !bytes.Contains(results[0], []byte(`"kind":"Binding"`)) || !bytes.Contains(reports[0], []byte(`"reason"`)) {
			t.Fatal("nothing placed or nothing pending: the comparison would prove little")
		}
		if !bytes.Equal(results[0], results[1]) {
			t.Errorf("admission %s: the snapshot's Bindings differ from the JSON's", admission)
		}
		if !bytes.Equal(reports[0], reports[1]) {
			t.Errorf("admission %s: the snapshot's report differs from the JSON's:\n%s\n---\n%s", admission, reports[0], reports[1])
		}
	}
}

// TestConvertErrors: a damaged snapshot or a conflicting flag fails with
// exit 1 and an error naming the file; bad usage exits 2.
func TestConvertErrors(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "cluster.arrow")
	if code, stderr := runCapture(t, "convert", "-q", "-f", "testdata/seeds.yaml", "-o", snap); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.arrow")
	os.WriteFile(cut, data[:len(data)/2], 0o644)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"place", "-q", "-f", cut}, []string{"cut.arrow", "truncated"}},
		{[]string{"place", "-q", "-f", snap, "--admission-defaults=false"}, []string{"cluster.arrow", "--admission-defaults=true"}},
		{[]string{"place", "-q", "-f", snap, "-f", "testdata/seeds.yaml"}, []string{"cluster.arrow", "only input"}},
		{[]string{"convert", "-q", "-f", cut, "-o", filepath.Join(dir, "out.arrow")}, []string{"cut.arrow", "truncated"}},
	} {
		code, stderr := runCapture(t, tc.args...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1 (%s)", tc.args, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: error %q does not mention %q", tc.args, stderr, w)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.arrow")); !os.IsNotExist(err) {
		t.Errorf("a failed convert left its output (stat: %v)", err)
	}
	// The recorded value, given explicitly, is fine; so is a snapshot in a directory.
	sub := filepath.Join(dir, "snapdir")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "c.arrow"), data, 0o644)
	for _, args := range [][]string{{"place", "-q", "-f", snap, "--admission-defaults=true"}, {"place", "-q", "-f", sub}} {
		if code, stderr := runCapture(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	for _, args := range [][]string{{"convert"}, {"convert", "-f", snap}, {"convert", "-o", snap}} {
		if code, _ := runCapture(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestBenchArrowInput: an .arrow case of the bench suite converts the
// generated .json.zst (reused when an earlier case left it) and places it.
func TestBenchArrowInput(t *testing.T) {
	base := filepath.Join(t.TempDir(), "mixed-50-200")
	gc := bench.GenConfig{Profile: "mixed", Nodes: 50, Pods: 200, Running: -1, Seed: 1}
	genMs, convertMs, err := prepareBenchInput(base, ".arrow", gc, "")
	if err != nil {
		t.Fatal(err)
	}
	if genMs <= 0 || convertMs <= 0 {
		t.Errorf("gen %v ms, convert %v ms", genMs, convertMs)
	}
	if genMs, _, err = prepareBenchInput(base, ".arrow", gc, ""); err != nil || genMs != 0 {
		t.Errorf("second preparation: gen %v ms (want the .json.zst reused), %v", genMs, err)
	}
	st, err := place(placeConfig{paths: []string{base + ".arrow"}, admission: true, quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.report.Counts.Pending != 200 {
		t.Errorf("%d pending pods, want 200", st.report.Counts.Pending)
	}
}

// TestGenZones: --zones reaches the generator (spread-bench spreads its
// nodes evenly over that many zones); a negative count is an error.
func TestGenZones(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.json")
	if code, stderr := runCapture(t, "gen", "--profile", "spread-bench", "--nodes", "30", "--pods", "60", "--zones", "3", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []struct {
			Kind     string
			Metadata struct{ Labels map[string]string }
		}
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	perZone := map[string]int{}
	for _, it := range list.Items {
		if it.Kind == "Node" {
			perZone[it.Metadata.Labels["topology.kubernetes.io/zone"]]++
		}
	}
	if len(perZone) != 3 || perZone["us-east-1a"] != 10 {
		t.Errorf("nodes per zone %v, want 10 in each of 3", perZone)
	}
	if code, _ := runCapture(t, "gen", "--profile", "spread-bench", "--nodes", "3", "--zones", "-1", "-o", out); code == 0 {
		t.Error("--zones -1: exit 0")
	}
}

// TestGenPendingAs: --pending-as reaches the generator: the realistic
// cluster without its pending pods has the same running pods and no
// pending one; another profile refuses it, and so does an unknown mode.
func TestGenPendingAs(t *testing.T) {
	dir := t.TempDir()
	count := func(path string) (running, pending int) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Items []struct {
				Kind   string
				Spec   struct{ NodeName string }
				Status struct{ Phase string }
			}
		}
		if err := json.Unmarshal(data, &list); err != nil {
			t.Fatal(err)
		}
		for _, it := range list.Items {
			switch {
			case it.Kind != "Pod":
			case it.Status.Phase == "Running":
				running++
			case it.Status.Phase == "Pending":
				pending++
			}
		}
		return running, pending
	}
	pods, wl := filepath.Join(dir, "p.json"), filepath.Join(dir, "w.json")
	for _, c := range [][]string{{pods, "pods"}, {wl, "workloads"}} {
		if code, stderr := runCapture(t, "gen", "--profile", "realistic", "--nodes", "40", "--pods", "200", "--pending-as", c[1], "-o", c[0]); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	r1, p1 := count(pods)
	r2, p2 := count(wl)
	if p1 != 200 || p2 != 0 || r1 != r2 || r1 == 0 {
		t.Errorf("pods mode: %d running, %d pending; workloads mode: %d running, %d pending", r1, p1, r2, p2)
	}
	for _, args := range [][]string{{"--profile", "mixed", "--pending-as", "workloads"}, {"--profile", "realistic", "--pending-as", "none"}} {
		if code, _ := runCapture(t, append([]string{"gen", "--nodes", "3", "--pods", "3", "-o", wl}, args...)...); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
}

// TestPlaceSchedulerConfig: --scheduler-config applies InterPodAffinity's
// hardPodAffinityWeight and NodeResourcesFit's scoring strategy, warns
// about the settings it does not apply, and refuses what it cannot honour.
func TestPlaceSchedulerConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const head = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n"
	out := filepath.Join(dir, "result.json")
	nodeOf := func(args ...string) (string, string) {
		t.Helper()
		code, stderr := runCapture(t, append([]string{"place", "-f", "testdata/schedconfig.yaml", "-o", out}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Items []struct {
				Target struct {
					Name string `json:"name"`
				} `json:"target"`
			} `json:"items"`
		}
		if err := json.Unmarshal(b, &list); err != nil || len(list.Items) != 1 {
			t.Fatalf("%v: result %s (%v)", args, b, err)
		}
		return list.Items[0].Target.Name, stderr
	}
	if n, _ := nodeOf(); n != "b1" {
		t.Errorf("default hardPodAffinityWeight: cache on %s, want b1", n)
	}
	off := write("off.yaml", head+"  pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 0}\n  - name: VolumeBinding\n    args: {bindTimeoutSeconds: 60}\n")
	n, stderr := nodeOf("--scheduler-config", off)
	if n != "a1" {
		t.Errorf("hardPodAffinityWeight 0: cache on %s, want a1", n)
	}
	if !strings.Contains(stderr, "pluginConfig VolumeBinding: not applied") {
		t.Errorf("no warning for the VolumeBinding args:\n%s", stderr)
	}
	// MostAllocated packs onto the fuller b1 even without the weight.
	packed := write("packed.yaml", head+"  pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 0}\n"+
		"  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]}}\n")
	if n, _ := nodeOf("--scheduler-config", packed); n != "b1" {
		t.Errorf("MostAllocated: cache on %s, want b1", n)
	}
	if n, _ := nodeOf("--scheduler-config", packed, "--strategy", "least-allocated"); n != "a1" {
		t.Errorf("--strategy over the config: cache on %s, want a1", n)
	}
	for name, body := range map[string]string{
		"weight.yaml":   head + "  pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 101}\n",
		"ratio.yaml":    head + "  pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: RequestedToCapacityRatio}}\n",
		"resource.yaml": head + "  pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: LeastAllocated, resources: [{name: cpu, weight: 2}, {name: memory, weight: 1}]}}\n",
		"kind.yaml":     "kind: PodTopologySpreadArgs\n",
	} {
		code, stderr := runCapture(t, "place", "-f", "testdata/schedconfig.yaml", "--scheduler-config", write(name, body))
		if code != 2 || !strings.Contains(stderr, name) {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming the file", name, code, stderr)
		}
	}
}

// TestSoftLimit: 7/32 of the RAM, at least 4 GiB, at most 70%.
func TestSoftLimit(t *testing.T) {
	const gib = int64(1) << 30
	for _, tc := range []struct{ total, want int64 }{
		{24 * gib, 21 * gib / 4},
		{64 * gib, 14 * gib},
		{8 * gib, 4 * gib},
		{4 * gib, 4 * gib / 10 * 7},
	} {
		if got := softLimit(tc.total); got != tc.want {
			t.Errorf("softLimit(%d GiB) = %d, want %d", tc.total/gib, got, tc.want)
		}
	}
}

// TestBenchKubectlInput: a bench case in kubectl's layout generates its
// .json.zst indented, and it places as the case one item per line does.
func TestBenchKubectlInput(t *testing.T) {
	dir := t.TempDir()
	gc := bench.GenConfig{Profile: "realistic", Nodes: 30, Pods: 200, Running: -1, Seed: 1}
	var placed [2][]byte
	for i, layout := range []string{"", layoutKubectl} {
		base := filepath.Join(dir, "r"+layout)
		if _, _, err := prepareBenchInput(base, ".json.zst", gc, layout); err != nil {
			t.Fatal(err)
		}
		head := readZstd(t, base+".json.zst")
		if indented := bytes.HasPrefix(head, []byte("{\n    \"apiVersion\": ")); indented != (layout == layoutKubectl) {
			t.Errorf("layout %q: the file starts %.32q", layout, head)
		}
		out := base + ".result.json"
		if _, err := place(placeConfig{paths: []string{base + ".json.zst"}, admission: true, quiet: true, format: "list", out: out}); err != nil {
			t.Fatal(err)
		}
		var err error
		if placed[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(placed[0], placed[1]) {
		t.Error("the two layouts place differently")
	}
}

// TestPlaceStreamsResult: a result file is written while the solve runs
// (more commits than one batch, evictions among them); it must hold the
// bytes the result written after the solve holds (to standard output), as
// a list, as JSON lines and compressed.
func TestPlaceStreamsResult(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	if code, stderr := runCapture(t, "gen", "--profile", "preemption", "--nodes", "300", "--pods", "12000", "-o", in); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct{ file, format string }{{"r.json", "list"}, {"r.jsonl", "jsonl"}, {"r.json.zst", "list"}} {
		out := filepath.Join(dir, tc.file)
		if code, stderr := runCapture(t, "place", "-f", in, "-o", out, "-q"); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.file, code, stderr)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(tc.file, ".zst") {
			zr, err := zstd.NewReader(bytes.NewReader(got))
			if err != nil {
				t.Fatal(err)
			}
			if got, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
			zr.Close()
		}
		code, stdout, stderr := runStdout(t, "place", "-f", in, "-o", "-", "--format", tc.format, "-q")
		if code != 0 {
			t.Fatalf("-o -: exit %d: %s", code, stderr)
		}
		want := []byte(stdout)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes written during the solve, %d after it: they differ", tc.file, len(got), len(want))
		}
		if b, e := bytes.Count(want, []byte(`"kind":"Binding"`)), bytes.Count(want, []byte(`"kind":"Eviction"`)); b+e <= 8192 || e == 0 {
			t.Errorf("%s: %d bindings, %d evictions: want more commits than one batch, and evictions", tc.file, b, e)
		}
	}
}
