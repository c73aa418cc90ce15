package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"sigs.k8s.io/yaml"

	"github.com/kplace/kplace/bench"
	"github.com/kplace/kplace/ingest"
)

// runAll runs the CLI with args and returns the exit code, stdout and
// stderr.
func runAll(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	capture := func(f **os.File) (func() string, error) {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		old := *f
		*f = w
		done := make(chan string)
		go func() {
			b, _ := io.ReadAll(r)
			done <- string(b)
		}()
		return func() string { w.Close(); *f = old; return <-done }, nil
	}
	out, err := capture(&os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := capture(&os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	code = run(args)
	return code, out(), errOut()
}

// TestHelp: every command's help goes to stdout with a description and
// examples, and "kplace help CMD" prints the same as "kplace CMD --help".
func TestHelp(t *testing.T) {
	for _, cmd := range []string{"place", "simulate", "explain", "convert", "expand", "snapshot", "bind", "gen", "bench", "version"} {
		code, stdout, stderr := runAll(t, cmd, "--help")
		if code != 0 || stderr != "" {
			t.Errorf("%s --help: exit %d, stderr %q", cmd, code, stderr)
		}
		for _, want := range []string{"Usage:\n  kplace " + cmd, "Examples:\n  ", "Flags:\n"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s --help: no %q on stdout:\n%s", cmd, want, stdout)
			}
		}
		_, viaHelp, _ := runAll(t, "help", cmd)
		if viaHelp != stdout {
			t.Errorf("kplace help %s differs from kplace %s --help", cmd, cmd)
		}
	}
	_, stdout, _ := runAll(t, "place", "--help")
	for _, f := range []string{"list", "jsonl", "yaml", "arrow", "parquet", "--requeue-evicted", "--cross-node-preemption", "-R, --recursive"} {
		if !strings.Contains(stdout, f) {
			t.Errorf("place --help does not name %s", f)
		}
	}
	// kplace alone: the command list, on stdout, as kubectl.
	code, stdout, _ := runAll(t)
	if code != 0 || !strings.Contains(stdout, "Available Commands:") || !strings.Contains(stdout, "completion") {
		t.Errorf("kplace: exit %d, stdout %q", code, stdout)
	}
}

// TestCompletion: kplace completion bash prints a script that bash loads
// and that registers the kplace completion; zsh and fish print theirs.
func TestCompletion(t *testing.T) {
	code, script, _ := runAll(t, "completion", "bash")
	if code != 0 || !strings.Contains(script, "__start_kplace") {
		t.Fatalf("completion bash: exit %d, %d bytes", code, len(script))
	}
	for _, sh := range []string{"zsh", "fish"} {
		if code, out, _ := runAll(t, "completion", sh); code != 0 || !strings.Contains(out, "kplace") {
			t.Errorf("completion %s: exit %d", sh, code)
		}
	}
	// Flag values complete too.
	_, values, _ := runAll(t, "__complete", "gen", "--profile", "")
	if got := strings.Fields(values); !slices.Equal(got[:len(got)-1], bench.Profiles()) {
		t.Errorf("gen --profile completes %q, want the profiles", got)
	}
	_, values, _ = runAll(t, "__complete", "place", "--format", "")
	if !strings.HasPrefix(values, "list\njsonl\nyaml\narrow\nparquet\n") {
		t.Errorf("place --format completes %q", values)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	f := filepath.Join(t.TempDir(), "kplace.bash")
	os.WriteFile(f, []byte(script), 0o644)
	out, err := exec.Command(bash, "-c", "source "+f+" && complete -p kplace").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-F __start_kplace kplace") {
		t.Errorf("bash: %v: %s", err, out)
	}
}

// TestVersion: the Kubernetes version comes from the k8s.io/api module
// of the build, v0.X.Y being Kubernetes v1.X.Y.
func TestVersion(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build info")
	}
	api := ""
	for _, d := range bi.Deps {
		if d.Path == "k8s.io/api" {
			api = d.Version
		}
	}
	if api == "" {
		t.Skip("the test binary records no dependencies")
	}
	code, stdout, _ := runAll(t, "version", "-o", "json")
	var v versionInfo
	if err := json.Unmarshal([]byte(stdout), &v); code != 0 || err != nil {
		t.Fatalf("version -o json: exit %d, %v: %s", code, err, stdout)
	}
	if want := "v1." + strings.TrimPrefix(api, "v0."); v.Kubernetes != want {
		t.Errorf("kubernetes %q, want %q (k8s.io/api %s)", v.Kubernetes, want, api)
	}
	_, text, _ := runAll(t, "version")
	if !strings.Contains(text, "kubernetes "+v.Kubernetes+"\n") || !strings.HasPrefix(text, "kplace "+v.Version+"\n") {
		t.Errorf("version:\n%s", text)
	}
	f := func(mod string, settings map[string]string, wantCommit string) {
		t.Helper()
		bi := &debug.BuildInfo{Main: debug.Module{Version: mod}, Deps: []*debug.Module{{Path: "k8s.io/api", Version: "v0.37.0-alpha.1"}}}
		for k, v := range settings {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: k, Value: v})
		}
		v := buildVersion(bi, true)
		if v.Version != mod || v.Commit != wantCommit || v.Kubernetes != "v1.37.0-alpha.1" {
			t.Errorf("%+v", v)
		}
	}
	f("(devel)", map[string]string{"vcs.revision": "abc", "vcs.modified": "true"}, "abc-dirty")
	f("v1.2.3", map[string]string{"vcs.revision": "abc", "vcs.modified": "false"}, "abc")
	f("v1.2.3", nil, "")
}

// TestInputFlags: -f - reads stdin, -f a,b is two files (kubectl's
// StringSlice), and a directory is read without its subdirectories unless
// -R. Each input places the same as the plain file.
func TestInputFlags(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	cluster := path("cluster.json")
	if err := writeGenerated(cluster, bench.GenConfig{Profile: "mixed", Nodes: 20, Pods: 100, Running: -1, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	placeTo := func(out string, args ...string) []byte {
		t.Helper()
		if code, _, stderr := runAll(t, append([]string{"place", "-q", "-o", out}, args...)...); code != 0 {
			t.Fatalf("place %v: exit %d: %s", args, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := placeTo(path("want.json"), "-f", cluster)
	if !bytes.Contains(want, []byte(`"kind":"Binding"`)) {
		t.Fatal("the cluster places nothing")
	}

	data, _ := os.ReadFile(cluster)
	old := ingest.StdinReader
	ingest.StdinReader = bytes.NewReader(data)
	got := placeTo(path("stdin.json"), "-f", "-")
	ingest.StdinReader = old
	if !bytes.Equal(got, want) {
		t.Error("-f -: result differs")
	}

	// The same cluster in two files: its nodes, then the rest.
	var nodes, rest []string
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.Contains(line, `"kind":"Node"`):
			nodes = append(nodes, strings.TrimSuffix(line, ","))
		case strings.HasPrefix(line, `{"apiVersion"`) && !strings.Contains(line, `"kind":"List"`):
			rest = append(rest, strings.TrimSuffix(line, ","))
		}
	}
	os.Mkdir(path("split"), 0o755)
	os.Mkdir(path("split/sub"), 0o755)
	os.WriteFile(path("split/a-nodes.json"), []byte(strings.Join(nodes, "\n")), 0o644)
	os.WriteFile(path("split/sub/b-rest.json"), []byte(strings.Join(rest, "\n")), 0o644)
	if got := placeTo(path("comma.json"), "-f", path("split/a-nodes.json")+","+path("split/sub/b-rest.json")); !bytes.Equal(got, want) {
		t.Error("-f a,b: result differs")
	}
	if got := placeTo(path("rec.json"), "-f", path("split"), "-R"); !bytes.Equal(got, want) {
		t.Error("-f DIR -R: result differs")
	}
	// Without -R the pods in split/sub are not read: nothing to place.
	if got := placeTo(path("flat.json"), "-f", path("split")); bytes.Contains(got, []byte("Binding")) {
		t.Error("-f DIR without -R read the subdirectory")
	}
}

// TestConfigSpellings: flags that mirror KubeSchedulerConfiguration fields
// take its spellings too, with the same result as kplace's own.
func TestConfigSpellings(t *testing.T) {
	dir := t.TempDir()
	cluster := filepath.Join(dir, "cluster.json")
	if err := writeGenerated(cluster, bench.GenConfig{Profile: "mixed", Nodes: 30, Pods: 200, Running: -1, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	result := func(args ...string) string {
		t.Helper()
		out := filepath.Join(dir, strings.Join(args, "_")+".json")
		if code, _, stderr := runAll(t, append([]string{"place", "-q", "-f", cluster, "-o", out}, args...)...); code != 0 {
			t.Fatalf("place %v: exit %d: %s", args, code, stderr)
		}
		b, _ := os.ReadFile(out)
		return string(b)
	}
	most, least := result("--strategy", "most-allocated"), result("--strategy", "least-allocated")
	if most == least {
		t.Fatal("the strategies place the same: the test cannot tell them apart")
	}
	if result("--strategy", "MostAllocated") != most || result("--strategy", "LeastAllocated") != least {
		t.Error("--strategy MostAllocated|LeastAllocated differ from most-allocated|least-allocated")
	}
	builtin, none := result("--default-spread", "builtin"), result("--default-spread", "none")
	if result("--default-spread", "System") != builtin || result("--default-spread", "List") != none {
		t.Error("--default-spread System|List differ from builtin|none")
	}
}

// TestExitCodes: a bad flag or value is a usage error everywhere: exit 2,
// the message prefixed by the command; a failed run exits 1.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	cluster := filepath.Join(dir, "cluster.json")
	if err := writeGenerated(cluster, bench.GenConfig{Profile: "mixed", Nodes: 5, Pods: 10, Running: -1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"place", "--bogus"}, 2},
		{[]string{"place", "-f", cluster, "--strategy", "random"}, 2},
		{[]string{"place", "-f", cluster, "-o", "yaml"}, 2},
		{[]string{"place", "-f", cluster, "--format", "arrow"}, 2},
		{[]string{"place", "-f", cluster, "-o", out, "--format", "xml"}, 2},
		{[]string{"place", "-f", cluster, "-o", filepath.Join(dir, "t.arrow.gz")}, 2},
		{[]string{"place", "-f", cluster, "--html", "html"}, 2},
		{[]string{"explain", "-f", cluster}, 2},
		{[]string{"explain", "ns/pod", "-f", cluster, "-o", "xml"}, 2},
		{[]string{"place", "extra-argument"}, 2},
		{[]string{"place", "-f", filepath.Join(dir, "missing.json")}, 1},
		{[]string{"simulate", "-f", cluster, "--drain", "x", "--node-monitor-period", "0s"}, 2},
		{[]string{"simulate", "-f", cluster, "--drain", "x", "-o", "json"}, 2},
		{[]string{"simulate", "--bogus"}, 2},
		{[]string{"convert", "-f", cluster}, 2},
		{[]string{"convert", "-f", cluster, "-o", filepath.Join(dir, "c.json")}, 2},
		{[]string{"convert", "-f", cluster, "-o", "arrow"}, 2},
		{[]string{"expand", "-f", cluster, "-o", filepath.Join(dir, "e.parquet")}, 2},
		{[]string{"expand", "--seed", "x"}, 2},
		{[]string{"snapshot", "-o", "yaml"}, 2},
		{[]string{"snapshot", "-o", filepath.Join(dir, "s.parquet")}, 2},
		{[]string{"snapshot", "extra", "-o", out}, 2},
		{[]string{"bind"}, 2},
		{[]string{"bind", "-f", out, "--dry-run", "client"}, 2},
		{[]string{"gen", "--profile", "nope", "-o", out}, 2},
		{[]string{"gen", "--nodes", "-1", "-o", out}, 2},
		{[]string{"gen", "-o", "json"}, 2},
		{[]string{"gen", "--layout", "yaml", "-o", out}, 2},
		{[]string{"bench", "--suite", "nope"}, 2},
		{[]string{"version", "-o", "xml"}, 2},
		{[]string{"completion", "tcsh"}, 2},
		{[]string{"help", "nosuch"}, 2},
		{[]string{"explain", "a/b/c", "-f", cluster}, 2},
		{[]string{"explain", "", "-f", cluster}, 2},
		{[]string{"simulate", "-f", cluster, "--drain", "x", "--until", "-10m"}, 2},
		{[]string{"simulate", "-f", cluster, "--drain", "x", "--at", "30s", "--until", "10s"}, 2},
		{[]string{"simulate", "-f", cluster, "--drain", "x", "--drain-timeout", "-1s"}, 2},
		{[]string{"simulate", "-f", cluster, "--drain", "x", "-o", cluster}, 2},
		{[]string{"simulate", "-f", cluster, "--drain", "x", "-o", out, "--timeline", out}, 2},
	} {
		code, _, stderr := runAll(t, tc.args...)
		prefix := "kplace " + tc.args[0] + ": "
		if tc.code == 1 {
			prefix = "kplace: "
		}
		if code != tc.code || !strings.HasPrefix(stderr, prefix) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d, prefix %q", tc.args, code, stderr, tc.code, prefix)
		}
	}
	if _, err := os.Stat("yaml"); err == nil {
		t.Error("-o yaml wrote a file named yaml")
	}
}

// TestOutputDirectoryMissing: an output in a directory that does not
// exist (or under a file) is a usage error found before any work, for
// every command and output flag; nothing is written, the other outputs of
// the run included.
func TestOutputDirectoryMissing(t *testing.T) {
	dir := t.TempDir()
	cluster := filepath.Join(dir, "cluster.json")
	if err := writeGenerated(cluster, bench.GenConfig{Profile: "mixed", Nodes: 5, Pods: 10, Running: -1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	out, missing := filepath.Join(dir, "out.json"), filepath.Join(dir, "nodir", "x.json")
	underFile := filepath.Join(cluster, "x.json")
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"place", "-f", cluster, "-o", out, "--report", missing}, "--report"},
		{[]string{"place", "-f", cluster, "-o", missing, "--report", out}, "-o"},
		{[]string{"place", "-f", cluster, "-o", out, "--html", missing}, "--html"},
		{[]string{"place", "-f", cluster, "-o", out, "--cpuprofile", missing}, "--cpuprofile"},
		{[]string{"simulate", "-f", cluster, "--drain", "pool=gpu", "--timeline", out, "-o", missing}, "-o"},
		{[]string{"simulate", "-f", cluster, "--drain", "pool=gpu", "-o", out, "--timeline", missing}, "--timeline"},
		{[]string{"simulate", "-f", cluster, "--drain", "pool=gpu", "-o", out, "--report", missing}, "--report"},
		{[]string{"convert", "-f", cluster, "-o", filepath.Join(dir, "nodir", "c.arrow")}, "-o"},
		{[]string{"expand", "-f", cluster, "-o", missing}, "-o"},
		{[]string{"gen", "-o", missing}, "-o"},
		{[]string{"bind", "-f", cluster, "--report", missing}, "--report"},
	} {
		code, _, stderr := runAll(t, tc.args...)
		want := "kplace " + tc.args[0] + ": " + tc.flag + " " + filepath.Join(dir, "nodir")
		if code != 2 || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "no directory "+filepath.Join(dir, "nodir")) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2, %q... no directory", tc.args, code, stderr, want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
			os.Remove(out)
		}
	}
	code, _, stderr := runAll(t, "place", "-f", cluster, "-o", underFile)
	if want := "-o " + underFile + ": " + cluster + " is not a directory"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("an output under a file: exit %d, stderr %q; want %q", code, stderr, want)
	}
}

// TestOutputFormats: -o FILE takes the format from its suffix, --format
// overrides it, and the YAML List holds the JSON List's items.
func TestOutputFormats(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	cluster := path("cluster.json")
	if err := writeGenerated(cluster, bench.GenConfig{Profile: "mixed", Nodes: 20, Pods: 100, Running: -1, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	place := func(args ...string) {
		t.Helper()
		if code, _, stderr := runAll(t, append([]string{"place", "-q", "-f", cluster}, args...)...); code != 0 {
			t.Fatalf("place %v: exit %d: %s", args, code, stderr)
		}
	}
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(path(name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	place("-o", path("r.json"))
	place("-o", path("r.yaml"))
	place("-o", path("r2.yaml"))
	place("-o", path("r.jsonl"))
	place("-o", path("r.parquet"))
	place("-o", path("r.arrow"))
	place("-o", path("r.json.zst"))
	place("-o", path("r.yaml.out"), "--format", "yaml")
	list := read("r.json")
	var fromJSON, fromYAML map[string]any
	if err := json.Unmarshal(list, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(read("r.yaml"), &fromYAML); err != nil {
		t.Fatal(err)
	}
	if items := fromJSON["items"].([]any); len(items) == 0 || !reflect.DeepEqual(fromJSON, fromYAML) {
		t.Errorf("the YAML List differs from the JSON List (%d items)", len(items))
	}
	if !bytes.Equal(read("r.yaml"), read("r2.yaml")) || !bytes.Equal(read("r.yaml"), read("r.yaml.out")) {
		t.Error("YAML output is not byte-deterministic, or --format yaml differs from .yaml")
	}
	if lines := bytes.Count(read("r.jsonl"), []byte("\n")); lines != len(fromJSON["items"].([]any)) {
		t.Errorf(".jsonl: %d lines", lines)
	}
	if b := read("r.parquet"); !bytes.HasPrefix(b, []byte("PAR1")) {
		t.Errorf(".parquet starts %q", b[:4])
	}
	if b := read("r.arrow"); !bytes.HasPrefix(b, []byte("ARROW1")) {
		t.Errorf(".arrow starts %q", b[:6])
	}
	if b := readZstd(t, path("r.json.zst")); !bytes.Equal(b, list) {
		t.Errorf(".json.zst: %d bytes, want the list's %d", len(b), len(list))
	}
}

// TestWarnings: an input without nodes or without pending pods, nodes
// without allocatable or capacity, and fields of --scheduler-config that
// KubeSchedulerConfiguration v1 does not define or kplace does not apply
// are warnings in the report and the summary, not silent.
func TestWarnings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	node := func(name, status string) string {
		return `{"apiVersion":"v1","kind":"Node","metadata":{"name":"` + name + `"}` + status + "}\n"
	}
	const capacity = `,"status":{"capacity":{"cpu":"4","memory":"8Gi","pods":"110"}}`
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"c"}]}}` + "\n"
	f := func(input string, extra []string, want ...string) {
		t.Helper()
		rep := filepath.Join(dir, "report.json")
		args := append([]string{"place", "-f", input, "--report", rep}, extra...)
		code, _, stderr := runAll(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		got := readReport(t, rep).Warnings
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: warnings\n%q\nwant\n%q", args, got, want)
		}
		for _, w := range want {
			if !strings.Contains(stderr, "  warning: "+w+"\n") {
				t.Errorf("%v: the summary lacks %q", args, w)
			}
		}
	}
	f(write("empty.json", `{"apiVersion":"v1","kind":"List","items":[]}`), nil,
		"the input holds no nodes: no pod can be placed")
	f(write("nopending.json", node("a", capacity)), nil,
		"the input holds no pending pods (and its controllers want none): nothing to place")
	f(write("bare.json", node("a", capacity)+node("bare-1", "")+node("bare-2", `,"status":{}`)+pod), nil,
		"2 node(s) have neither status.allocatable nor status.capacity (the first: bare-1): no pod fits on them")
	// Pods exported without the PriorityClasses they name.
	classless := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q","namespace":"default"},"spec":{"priority":7,"priorityClassName":"gone","containers":[{"name":"c"}]}}` + "\n"
	f(write("classless.json", node("a", capacity)+pod+classless), nil,
		`1 pending pod(s) rejected at admission (the first, default/q: pods "q" is forbidden: no PriorityClass with name gone was found): export the PriorityClasses they name with them`)
	sc := write("sc.yaml", `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 50
leaderElection: {leaderElect: false}
profiles:
- schedulerName: default-scheduler
  pluginConfg: []
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy: {type: MostAllocated}
      scoringStrategyy: {}
`)
	f(write("ok.json", node("a", capacity)+pod), []string{"--scheduler-config", sc},
		sc+": unknown field profiles[0].pluginConfg (not a KubeSchedulerConfiguration v1 field): ignored",
		sc+": unknown field profiles[0].pluginConfig[0].args.scoringStrategyy (not a KubeSchedulerConfiguration v1 field): ignored",
		sc+": percentageOfNodesToScore (kplace scores every feasible node): not applied")
}

// TestGenLayoutKubectl: gen --layout kubectl writes the same objects as the
// default layout, indented as kubectl prints them (each List item's '{' on
// a line of its own after eight spaces), and place reads both to the same
// placement.
func TestGenLayoutKubectl(t *testing.T) {
	dir := t.TempDir()
	lines, kubectl := filepath.Join(dir, "l.json"), filepath.Join(dir, "k.json.zst")
	for _, args := range [][]string{
		{"gen", "--profile", "realistic", "--nodes", "30", "--pods", "200", "-o", lines},
		{"gen", "--profile", "realistic", "--nodes", "30", "--pods", "200", "--layout", "kubectl", "-o", kubectl},
	} {
		if code, _, stderr := runAll(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	raw, err := os.ReadFile(lines)
	if err != nil {
		t.Fatal(err)
	}
	indented := readZstd(t, kubectl)
	var want bytes.Buffer
	if err := json.Indent(&want, bytes.TrimSpace(raw), "", "    "); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	if !bytes.Equal(indented, want.Bytes()) || !bytes.Contains(indented, []byte("\n    \"items\": [\n        {\n")) {
		t.Fatalf("--layout kubectl is not the default layout indented by four spaces:\n%.400s", indented)
	}
	var outs [2][]byte
	for i, in := range []string{lines, kubectl} {
		out := filepath.Join(dir, fmt.Sprint("p", i, ".json"))
		if code, _, stderr := runAll(t, "place", "-q", "-f", in, "-o", out); code != 0 {
			t.Fatalf("place %s: exit %d: %s", in, code, stderr)
		}
		if outs[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("place reads the two layouts to different placements")
	}
}

// readZstd returns the decompressed contents of zstd file path.
func readZstd(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}
