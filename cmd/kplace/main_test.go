package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

	var r struct {
		Counts   map[string]int    `json:"counts"`
		Pending  []json.RawMessage `json:"pending"`
		Rejected []json.RawMessage `json:"rejected"`
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	for _, internal := range []string{"classes", "groups", "heap_builds", "heap_rebuilds"} {
		delete(r.Counts, internal) // engine internals, not semantics
	}
	stable, _ := json.MarshalIndent(r, "", "  ") // timings left out: they vary
	golden(t, "seeds.report.json", append(stable, '\n'))
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
		{},
		{"nonsense"},
		{"place"},
		{"place", "--sample", "--strategy", "random"},
		{"place", "--sample", "--format", "xml"},
		{"gen", "--profile", "mixed"},
	} {
		if code, _ := runCapture(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	code, stderr := runCapture(t, "place", "--help")
	if code != 0 || !strings.Contains(stderr, "--strategy") {
		t.Errorf("place --help: exit %d, output %q", code, stderr)
	}
	for _, f := range []string{"list", "jsonl", "arrow", "parquet"} {
		if !strings.Contains(stderr, f) {
			t.Errorf("place --help does not name the format %s", f)
		}
	}
}
