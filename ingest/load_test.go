package ingest

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/kplace/kplace/index"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// long runs the exhaustive tests whole (every byte flipped, every cut):
// go test -long, make test-long. Without it they take a sample.
var long = flag.Bool("long", false, "run the exhaustive tests whole, not a sample")

// dump renders an Input as stable, indented JSON; source files are shown
// by base name without a compression suffix, so compressed copies of a
// file dump the same.
func dump(t *testing.T, in *index.Input) []byte {
	t.Helper()
	norm := func(s *index.Source) {
		f := filepath.ToSlash(s.File)
		if i := strings.Index(f, "testdata/"); i >= 0 {
			f = f[i+len("testdata/"):]
		} else {
			f = filepath.Base(f)
		}
		f = strings.TrimSuffix(strings.TrimSuffix(f, ".gz"), ".zst")
		s.File = f
	}
	cp := *in
	cp.Nodes = append([]index.Node(nil), in.Nodes...)
	cp.Pods = append([]index.Pod(nil), in.Pods...)
	for i := range cp.Nodes {
		norm(&cp.Nodes[i].Src)
	}
	for i := range cp.Pods {
		norm(&cp.Pods[i].Src)
	}
	cp.Workloads = append([]index.Workload(nil), in.Workloads...)
	for i := range cp.Workloads {
		norm(&cp.Workloads[i].Src)
	}
	b, err := json.MarshalIndent(&cp, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
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
		t.Errorf("%s differs from %s (run go test -update and review the diff):\n%s", name, path, firstDiff(want, got))
	}
}

func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return ""
}

func mustLoad(t *testing.T, opts Options, paths ...string) *index.Input {
	t.Helper()
	in, err := Load(paths, opts)
	if err != nil {
		t.Fatalf("Load(%v): %v", paths, err)
	}
	return in
}

var goldenCases = []struct {
	name  string
	paths []string
	opts  Options
}{
	{"list", []string{"testdata/list.json"}, Options{AdmissionDefaults: true}},
	{"list-noadmission", []string{"testdata/list.json"}, Options{}},
	{"podlist", []string{"testdata/podlist.json"}, Options{AdmissionDefaults: true}},
	{"multi", []string{"testdata/multi.yaml"}, Options{AdmissionDefaults: true}},
	{"dir", []string{"testdata/dir"}, Options{AdmissionDefaults: true, Recursive: true}},
	{"relations", []string{"testdata/relations.yaml"}, Options{AdmissionDefaults: true}},
}

// modes are the decoding modes every result must agree across.
var modes = []struct {
	name        string
	parallelism int
}{{"sequential", 1}, {"parallel", 3}}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		for _, m := range modes {
			t.Run(tc.name+"/"+m.name, func(t *testing.T) {
				opts := tc.opts
				opts.Parallelism = m.parallelism
				checkGolden(t, tc.name, dump(t, mustLoad(t, opts, tc.paths...)))
			})
		}
	}
}

func compress(t *testing.T, data []byte, kind string) []byte {
	t.Helper()
	var b bytes.Buffer
	switch kind {
	case "gz":
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
	case "zst":
		w, err := zstd.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		w.Close()
	}
	return b.Bytes()
}

// TestCompressed loads gzip and zstd copies (also misnamed ones, and a
// directory of them) and expects the same result as the plain files.
func TestCompressed(t *testing.T) {
	for _, tc := range goldenCases {
		if len(tc.paths) != 1 || !strings.Contains(tc.paths[0], ".") {
			continue
		}
		data, err := os.ReadFile(tc.paths[0])
		if err != nil {
			t.Fatal(err)
		}
		want := dump(t, mustLoad(t, tc.opts, tc.paths...))
		base := filepath.Base(tc.paths[0])
		for _, kind := range []string{"gz", "zst"} {
			dir := t.TempDir()
			named := filepath.Join(dir, base+"."+kind)
			os.WriteFile(named, compress(t, data, kind), 0o644)
			if got := dump(t, mustLoad(t, tc.opts, named)); !bytes.Equal(got, want) {
				t.Errorf("%s: %s", named, firstDiff(want, got))
			}
			// Misnamed: compressed content under the plain name.
			mis := filepath.Join(t.TempDir(), base)
			os.WriteFile(mis, compress(t, data, kind), 0o644)
			if got := dump(t, mustLoad(t, tc.opts, mis)); !bytes.Equal(got, want) {
				t.Errorf("misnamed %s: %s", mis, firstDiff(want, got))
			}
			// A directory holding the compressed file.
			if got := dump(t, mustLoad(t, tc.opts, dir)); !bytes.Equal(got, want) {
				t.Errorf("directory %s: %s", dir, firstDiff(want, got))
			}
		}
	}
}

// TestDirectoryOrder: a directory reads input files sorted by path,
// recursively with Options.Recursive (kubectl -R), and skips other names.
func TestDirectoryOrder(t *testing.T) {
	// Without Recursive, as kubectl without -R: only the files directly in
	// the directory (sub/c.yml holds the pod).
	if in := mustLoad(t, Options{}, "testdata/dir"); len(in.Nodes) != 2 || len(in.Pods) != 0 {
		t.Errorf("not recursive: %d nodes, %d pods; want 2 nodes, 0 pods", len(in.Nodes), len(in.Pods))
	}
	in := mustLoad(t, Options{Recursive: true}, "testdata/dir")
	var names []string
	for _, n := range in.Nodes {
		names = append(names, n.Name)
	}
	if got := strings.Join(names, ","); got != "dir-node-a,dir-node-b" {
		t.Errorf("nodes %s", got)
	}
	if len(in.Pods) != 1 || in.Pods[0].Name != "dir-pod" || in.Pods[0].Src.Line != 1 {
		t.Errorf("pods %+v", in.Pods)
	}
	// Named explicitly, a file is read whatever its name.
	dir := t.TempDir()
	odd := filepath.Join(dir, "cluster.dump")
	os.WriteFile(odd, []byte(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`), 0o644)
	if in := mustLoad(t, Options{}, odd); len(in.Nodes) != 1 {
		t.Errorf("explicit odd name: %d nodes", len(in.Nodes))
	}
	if in := mustLoad(t, Options{}, dir, "testdata/dir/a.json"); len(in.Nodes) != 1 {
		t.Errorf("directory with only an odd name plus a file: %d nodes", len(in.Nodes))
	}
}

// TestEmptyInput: an input of nothing but empty files (an export that
// failed, most often) is an error naming them; an empty file beside one
// that holds objects is not, and neither is an empty List (a cluster
// without objects of the kinds listed).
func TestEmptyInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty, blank := write("empty.json", ""), write("blank.yaml", " \n\t\n")
	node := write("node.json", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`)
	list := write("list.json", `{"apiVersion":"v1","kind":"List","items":[]}`)
	for _, paths := range [][]string{{empty}, {empty, blank}} {
		_, err := Load(paths, Options{})
		want := strings.Join(paths, ", ") + ": empty: no Kubernetes objects to read (did the export that wrote it fail?)"
		if err == nil || err.Error() != want {
			t.Errorf("%v: error %v, want %q", paths, err, want)
		}
	}
	if in := mustLoad(t, Options{}, empty, node); len(in.Nodes) != 1 {
		t.Errorf("an empty file beside a node: %d nodes", len(in.Nodes))
	}
	if in := mustLoad(t, Options{}, list); len(in.Nodes)+len(in.Pods) != 0 {
		t.Errorf("an empty List: %d nodes, %d pods", len(in.Nodes), len(in.Pods))
	}
}

// TestSourceLines checks recorded lines for each format.
func TestSourceLines(t *testing.T) {
	in := mustLoad(t, Options{}, "testdata/list.json", "testdata/multi.yaml", "testdata/podlist.json")
	want := map[string]int{
		"node-a": 18, "node-b": 36, "yaml-node": 4, "n1": 17, // nodes
		"web-1": 42, "pending-1": 68, "yaml-pod-1": 25, "yaml-pod-2": 40, "flow-pod": 52, "p1": 4, "p2": 8,
	}
	check := func(name string, src index.Source) {
		if w, ok := want[name]; ok && src.Line != w {
			t.Errorf("%s at %s:%d, want line %d", name, src.File, src.Line, w)
		}
	}
	for _, n := range in.Nodes {
		check(n.Name, n.Src)
	}
	for _, p := range in.Pods {
		check(p.Name, p.Src)
	}
}

// TestStdinBounded: standard input, read into memory whole, stops at
// Options.MaxStdinSize with an error that says to give a file; input at
// the limit is read.
func TestStdinBounded(t *testing.T) {
	old := StdinReader
	defer func() { StdinReader = old }()
	node := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`
	StdinReader = strings.NewReader(node)
	if in, err := Load([]string{Stdin}, Options{MaxStdinSize: int64(len(node))}); err != nil || len(in.Nodes) != 1 {
		t.Fatalf("stdin at the limit: %v", err)
	}
	StdinReader = io.MultiReader(strings.NewReader(node), strings.NewReader(strings.Repeat(" ", 1<<20)))
	_, err := Load([]string{Stdin}, Options{MaxStdinSize: 1 << 16})
	want := "stdin: more than 64Ki bytes: standard input is read into memory, files are streamed: give the input as a file (-f FILE)"
	if err == nil || err.Error() != want {
		t.Errorf("stdin over the limit: %v, want %q", err, want)
	}
}

// TestYAMLDocumentEnd: "..." ends a YAML document; what follows is the
// next one, with or without a "---" (a Pod after a Node was lost).
func TestYAMLDocumentEnd(t *testing.T) {
	in, err := loadYAML(t, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n...\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n...\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec: {containers: [{name: c}]}\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Nodes) != 1 || len(in.Pods) != 2 || in.Pods[1].Name != "q" {
		t.Errorf("%d nodes, %d pods; want 1 node and pods p, q", len(in.Nodes), len(in.Pods))
	}
}
