package export

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

func testResult(t *testing.T) (*index.Cluster, *solver.Result) {
	t.Helper()
	c, err := index.Build(&index.Input{
		Nodes: []index.Node{{Name: "node-1", Allocatable: index.ResourceList{{Name: "pods", Value: 10}}}},
		Pods: []index.Pod{
			{Namespace: "ns", Name: `we"ird\name`, UID: "u1"},
			{Namespace: "ns", Name: "plain"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, &solver.Result{Commits: []solver.Commit{
		{Action: solver.Bind, Pod: 0, Node: 0},
		{Action: solver.Evict, Pod: 1},
	}}
}

func TestWriteCommitsFormats(t *testing.T) {
	c, res := testResult(t)
	var list bytes.Buffer
	if err := WriteCommits(&list, c, res, FormatList); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Kind  string
		Items []map[string]any
	}
	if err := json.Unmarshal(list.Bytes(), &doc); err != nil {
		t.Fatalf("list is not JSON: %v\n%s", err, list.Bytes())
	}
	if doc.Kind != "List" || len(doc.Items) != 2 {
		t.Fatalf("got kind %q with %d items", doc.Kind, len(doc.Items))
	}
	b := doc.Items[0]
	meta := b["metadata"].(map[string]any)
	if b["kind"] != "Binding" || meta["name"] != `we"ird\name` || meta["uid"] != "u1" ||
		b["target"].(map[string]any)["name"] != "node-1" {
		t.Errorf("binding %v", b)
	}
	if e := doc.Items[1]; e["kind"] != "Eviction" || e["apiVersion"] != "policy/v1" {
		t.Errorf("eviction %v", e)
	}
	var lines bytes.Buffer
	if err := WriteCommits(&lines, c, res, FormatJSONL); err != nil {
		t.Fatal(err)
	}
	ls := strings.Split(strings.TrimSpace(lines.String()), "\n")
	if len(ls) != 2 {
		t.Fatalf("%d lines, want 2", len(ls))
	}
	for _, l := range ls {
		if !json.Valid([]byte(l)) {
			t.Errorf("invalid JSON line %q", l)
		}
	}
}

func TestReportCounts(t *testing.T) {
	c, res := testResult(t)
	res.Pending = []solver.Pending{{Pod: 1, Kind: solver.Unschedulable, Reason: "0/1 nodes are available: 1 Too many pods."}}
	r := NewReport(c, res, 0, Timings{})
	if r.Counts.Placed != 1 || r.Counts.Evicted != 1 || r.Counts.Unschedulable != 1 || r.Counts.Nodes != 1 {
		t.Errorf("counts %+v", r.Counts)
	}
	if top := r.TopReasons(3); len(top) != 1 || top[0].Pods != 1 {
		t.Errorf("top reasons %v", top)
	}
}

func TestReportRequeued(t *testing.T) {
	c, err := index.Build(&index.Input{
		Nodes: []index.Node{{Name: "n1"}, {Name: "n2"}},
		Pods: []index.Pod{
			{Namespace: "ns", Name: "low", NodeName: "n1"},
			{Namespace: "ns", Name: "other", NodeName: "n1"},
			{Namespace: "ns", Name: "high"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	res := &solver.Result{Commits: []solver.Commit{
		{Action: solver.Evict, Pod: 0, Node: 0, Preemptor: 2},
		{Action: solver.Evict, Pod: 1, Node: 0, Preemptor: 2},
		{Action: solver.Bind, Pod: 2, Node: 0},
		{Action: solver.Bind, Pod: 0, Node: 1},
	}, Pending: []solver.Pending{{Pod: 1, Kind: solver.Unschedulable, Reason: "r"}}, Requeued: 2, Replaced: 1, Preemptions: 1}
	r := NewReport(c, res, 2, Timings{})
	want := []EvictedPod{
		{Namespace: "ns", Name: "low", Node: "n1", Preemptor: "ns/high", PlacedOn: "n2"},
		{Namespace: "ns", Name: "other", Node: "n1", Preemptor: "ns/high"},
	}
	if len(r.Evicted) != 2 || r.Evicted[0] != want[0] || r.Evicted[1] != want[1] {
		t.Errorf("evicted %+v\nwant %+v", r.Evicted, want)
	}
	if r.Counts.Requeued != 2 || r.Counts.Replaced != 1 || r.Counts.Placed != 2 || r.Counts.Evicted != 2 || r.Counts.Unschedulable != 1 {
		t.Errorf("counts %+v", r.Counts)
	}
	// Without requeue the report keeps its former shape.
	res.Requeued, res.Replaced = 0, 0
	var b bytes.Buffer
	if err := NewReport(c, res, 2, Timings{}).Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"evicted": [`, `"requeued"`, `"replaced"`, `"cross_node"`} {
		if strings.Contains(b.String(), field) {
			t.Errorf("report without requeue has %s:\n%s", field, b.String())
		}
	}
}

// TestCommitUIDs: a Binding and an Eviction carry the uid the input gave
// the pod (the Eviction as deleteOptions.preconditions.uid) and none when
// it had none; an Eviction names the node its victim leaves and its
// preemptor.
func TestCommitUIDs(t *testing.T) {
	c := mustBuild(t, &index.Input{
		Nodes: []index.Node{{Name: "n0"}, {Name: "n1"}},
		Pods: []index.Pod{
			{Namespace: "ns", Name: "pre", UID: "u-pre"},
			{Namespace: "ns", Name: "nouid"},
			{Namespace: "ns", Name: "victim", UID: "u-victim", NodeName: "n1"},
			{Namespace: "ns", Name: "bare", NodeName: "n1"},
		},
	})
	res := &solver.Result{Commits: []solver.Commit{
		{Action: solver.Evict, Pod: 2, Node: 1, Preemptor: 0},
		{Action: solver.Evict, Pod: 3, Node: 1, Preemptor: 0},
		{Action: solver.Bind, Pod: 0, Node: 1},
		{Action: solver.Bind, Pod: 1, Node: 0},
	}}
	var out bytes.Buffer
	if err := WriteCommits(&out, c, res, FormatJSONL); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"victim","namespace":"ns","annotations":{"kplace.io/node":"n1","kplace.io/preemptor":"ns/pre","oracle/preemptor":"ns/pre"}},"deleteOptions":{"preconditions":{"uid":"u-victim"}}}`,
		`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"bare","namespace":"ns","annotations":{"kplace.io/node":"n1","kplace.io/preemptor":"ns/pre","oracle/preemptor":"ns/pre"}}}`,
		`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"pre","namespace":"ns","uid":"u-pre"},"target":{"apiVersion":"v1","kind":"Node","name":"n1"}}`,
		`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"nouid","namespace":"ns"},"target":{"apiVersion":"v1","kind":"Node","name":"n0"}}`,
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Split: the Evictions, then the Bindings, each in commit order and
	// each a List of its own.
	var ev, bi bytes.Buffer
	if err := WriteSplit(&ev, &bi, c, res, FormatList); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		buf  *bytes.Buffer
		want []string
	}{{&ev, want[:2]}, {&bi, want[2:]}} {
		var doc struct{ Items []json.RawMessage }
		if err := json.Unmarshal(tc.buf.Bytes(), &doc); err != nil {
			t.Fatalf("split file is not JSON: %v\n%s", err, tc.buf.Bytes())
		}
		if len(doc.Items) != len(tc.want) {
			t.Fatalf("split file holds %d items, want %d:\n%s", len(doc.Items), len(tc.want), tc.buf.Bytes())
		}
		for i, it := range doc.Items {
			if string(it) != tc.want[i] {
				t.Errorf("split item %d: %s, want %s", i, it, tc.want[i])
			}
		}
	}
}

// mustBuild indexes in or fails the test.
func mustBuild(t *testing.T, in *index.Input) *index.Cluster {
	t.Helper()
	c, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWriteCommitsYAML: the YAML List holds the JSON List's items, with
// names YAML would read as other types (booleans, null, numbers) or that
// need quoting kept as strings; an empty result is an empty List.
func TestWriteCommitsYAML(t *testing.T) {
	names := []string{"true", "No", "null", "on", "y", "1e3", "0x10", "123", ".inf", "plain-name.x", `we"ird\name`, "a: b", "#c", "ü"}
	in := &index.Input{Nodes: []index.Node{{Name: "off", Allocatable: index.ResourceList{{Name: "pods", Value: 100}}}}}
	res := &solver.Result{}
	for i, name := range names {
		in.Pods = append(in.Pods, index.Pod{Namespace: "ns", Name: name, UID: names[len(names)-1-i]})
		res.Commits = append(res.Commits, solver.Commit{Action: solver.Bind, Pod: index.PodID(i), Node: 0})
	}
	in.Pods = append(in.Pods, index.Pod{Namespace: "ns", Name: "victim", UID: "1", NodeName: "off"})
	res.Commits = append(res.Commits, solver.Commit{Action: solver.Evict, Pod: index.PodID(len(names)), Node: 0, Preemptor: 0})
	c := mustBuild(t, in)
	var js, y bytes.Buffer
	if err := WriteCommits(&js, c, res, FormatList); err != nil {
		t.Fatal(err)
	}
	if err := WriteCommits(&y, c, res, FormatYAML); err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML any
	if err := json.Unmarshal(js.Bytes(), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(y.Bytes(), &fromYAML); err != nil {
		t.Fatalf("%v:\n%s", err, y.Bytes())
	}
	if !reflect.DeepEqual(fromJSON, fromYAML) {
		t.Errorf("YAML differs from JSON:\n%s", y.Bytes())
	}
	if !strings.HasPrefix(y.String(), "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Binding\n  metadata:\n    name: \"true\"\n    namespace: ns\n") {
		t.Errorf("YAML starts:\n%s", y.String()[:200])
	}
	var empty bytes.Buffer
	if err := WriteCommits(&empty, c, &solver.Result{}, FormatYAML); err != nil {
		t.Fatal(err)
	}
	if empty.String() != "apiVersion: v1\nitems: []\nkind: List\nmetadata: {}\n" {
		t.Errorf("empty List: %q", empty.String())
	}
}

// TestYAMLItemAllocatesNothing: converting an item reuses the converter's
// buffers.
func TestYAMLItemAllocatesNothing(t *testing.T) {
	c, _ := testResult(t)
	cm := solver.Commit{Action: solver.Bind, Pod: 1, Node: 0}
	js := appendCommit(nil, c, &cm)
	var conv yamlConv
	out, _ := conv.appendItem(nil, js)
	if allocs := testing.AllocsPerRun(100, func() { out, _ = conv.appendItem(out[:0], js) }); allocs != 0 {
		t.Errorf("%.1f allocations per item", allocs)
	}
	if want := "- apiVersion: v1\n  kind: Binding\n  metadata:\n    name: plain\n    namespace: ns\n  target:\n    apiVersion: v1\n    kind: Node\n    name: node-1\n"; string(out) != want {
		t.Errorf("item:\n%s\nwant\n%s", out, want)
	}
}

// TestWriteCommitsInChunks: formatted in chunks of one to four commits on
// several goroutines, every format is byte for byte what one chunk gives,
// whichever commits the split keeps.
func TestWriteCommitsInChunks(t *testing.T) {
	c, res, _ := tableFixture(t)
	big := &solver.Result{}
	for range 50 {
		big.Commits = append(big.Commits, res.Commits...)
	}
	whole := func(f Format, split bool) (string, string) {
		var a, b bytes.Buffer
		var err error
		if split {
			err = WriteSplit(&a, &b, c, big, f)
		} else {
			err = WriteCommits(&a, c, big, f)
		}
		if err != nil {
			t.Fatal(err)
		}
		return a.String(), b.String()
	}
	old, procs := commitChunk, runtime.GOMAXPROCS(4)
	defer func() { commitChunk = old; runtime.GOMAXPROCS(procs) }()
	for _, f := range []Format{FormatList, FormatJSONL} {
		for _, split := range []bool{false, true} {
			commitChunk = len(big.Commits)
			wantA, wantB := whole(f, split)
			for _, size := range []int{1, 2, 3, 4} {
				commitChunk = size
				if a, b := whole(f, split); a != wantA || b != wantB {
					t.Fatalf("%s, split %v, chunks of %d: differs from one chunk:\n%s\n%s", f, split, size, a, wantA)
				}
			}
		}
	}
}

// TestCommitWriterBatches: commits written as they come, in batches of
// any size (empty ones among them), are byte for byte what WriteCommits
// writes for them all, in both streamed formats.
func TestCommitWriterBatches(t *testing.T) {
	c, res, _ := tableFixture(t)
	big := &solver.Result{}
	for range 20 {
		big.Commits = append(big.Commits, res.Commits...)
	}
	r := rand.New(rand.NewPCG(3, 5))
	for _, f := range []Format{FormatList, FormatJSONL} {
		var want bytes.Buffer
		if err := WriteCommits(&want, c, big, f); err != nil {
			t.Fatal(err)
		}
		for range 20 {
			var got bytes.Buffer
			cw := NewCommitWriter(&got, c, f)
			for rest := big.Commits; ; {
				k := min(r.IntN(5), len(rest)) // 0: an empty batch
				cw.Write(rest[:k])
				if rest = rest[k:]; len(rest) == 0 {
					break
				}
			}
			if err := cw.Close(); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("%s: streamed\n%s\nwant\n%s", f, got.String(), want.String())
			}
		}
	}
	// No commits: an empty list.
	var got, want bytes.Buffer
	cw := NewCommitWriter(&got, c, FormatList)
	cw.Write(nil)
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := WriteCommits(&want, c, &solver.Result{}, FormatList); err != nil || got.String() != want.String() {
		t.Fatalf("no commits: %q, want %q (%v)", got.String(), want.String(), err)
	}
}
