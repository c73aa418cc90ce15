package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

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
