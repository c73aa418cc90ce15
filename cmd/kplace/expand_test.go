package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// TestExpandThenPlace: kplace expand writes the input and the pods its
// controllers create; placing that file binds the same pods to the same
// nodes as placing the input (which expands the same way), expanding it
// again creates nothing, and an unchanged --seed gives the same bytes.
func TestExpandThenPlace(t *testing.T) {
	dir := t.TempDir()
	var in []string
	for _, f := range []string{"deploy", "daemonset"} { // -f twice: the second input's workloads join the batch
		in = append(in, "-f", filepath.Join("..", "..", "ingest", "testdata", "expand", f+".yaml"))
	}
	expanded, again := filepath.Join(dir, "expanded.json"), filepath.Join(dir, "again.json")
	if code, errs := runCapture(t, append([]string{"expand", "-o", expanded}, in...)...); code != 0 {
		t.Fatalf("expand: exit %d: %s", code, errs)
	} else if !strings.Contains(errs, "created 19 pods, 1 ReplicaSets, 0 PersistentVolumeClaims") {
		t.Errorf("expand summary: %s", errs)
	}
	direct, viaFile := filepath.Join(dir, "direct.json"), filepath.Join(dir, "via.json")
	rep := filepath.Join(dir, "via.report.json")
	if code, errs := runCapture(t, append([]string{"place", "-q", "-o", direct}, in...)...); code != 0 {
		t.Fatalf("place: exit %d: %s", code, errs)
	}
	if code, errs := runCapture(t, "place", "-q", "-f", expanded, "-o", viaFile, "--report", rep); code != 0 {
		t.Fatalf("place expanded: exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(direct)
	b, _ := os.ReadFile(viaFile)
	if !bytes.Equal(a, b) || !bytes.Contains(a, []byte(`"kind":"Binding"`)) {
		t.Fatalf("placing the expanded file differs from placing the input:\n%s\n%s", a, b)
	}
	var r struct {
		Counts    struct{ Created int }
		Workloads []struct {
			Kind, Name        string
			Created, Existing int
		}
	}
	raw, _ := os.ReadFile(rep)
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.Counts.Created != 0 || len(r.Workloads) == 0 {
		t.Errorf("expanding the expanded file created %d pods (%d workloads)", r.Counts.Created, len(r.Workloads))
	}
	// A snapshot of the input keeps the controllers: placing it expands
	// them alike.
	snap, viaSnap := filepath.Join(dir, "in.arrow"), filepath.Join(dir, "snap.json")
	if code, errs := runCapture(t, append([]string{"convert", "-q", "-o", snap}, in...)...); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	if code, errs := runCapture(t, "place", "-q", "-f", snap, "-o", viaSnap); code != 0 {
		t.Fatalf("place snapshot: exit %d: %s", code, errs)
	}
	if c, _ := os.ReadFile(viaSnap); !bytes.Equal(a, c) {
		t.Errorf("placing the snapshot differs from placing the input")
	}
	if code, errs := runCapture(t, "expand", "-f", expanded, "-o", again); code != 0 {
		t.Fatalf("expand again: exit %d: %s", code, errs)
	} else if !strings.Contains(errs, "created 0 pods, 0 ReplicaSets, 0 PersistentVolumeClaims") {
		t.Errorf("expanding again: %s", errs)
	}
	// Deterministic.
	again2 := filepath.Join(dir, "expanded2.json")
	runCapture(t, append([]string{"expand", "-o", again2}, in...)...)
	x, _ := os.ReadFile(expanded)
	y, _ := os.ReadFile(again2)
	if !bytes.Equal(x, y) {
		t.Error("two expansions with the same seed differ")
	}
}

// TestExpandUsage: usage errors exit 2, bad input 1, and leave no file.
func TestExpandUsage(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	input := filepath.Join("..", "..", "ingest", "testdata", "expand", "job.yaml")
	if code, _ := runCapture(t, "expand", "-f", input); code != 2 {
		t.Errorf("no -o: exit %d, want 2", code)
	}
	if code, _ := runCapture(t, "expand", "--bogus"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	if code, _ := runCapture(t, "expand", "--help"); code != 0 {
		t.Errorf("--help: exit %d, want 0", code)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: -1, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}}}\n"), 0o644)
	if code, errs := runCapture(t, "expand", "-f", bad, "-o", out); code != 1 || !strings.Contains(errs, "bad.yaml:1: Deployment default/d: spec.replicas") {
		t.Errorf("bad input: exit %d, %s", code, errs)
	}
	snap := filepath.Join(dir, "c.arrow")
	if code, errs := runCapture(t, "convert", "-q", "-f", input, "-o", snap); code != 0 {
		t.Fatal(errs)
	}
	if code, errs := runCapture(t, "expand", "-f", snap, "-o", out); code != 1 || !strings.Contains(errs, "snapshot") {
		t.Errorf("snapshot input: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed expand left %s", out)
	}
}

// TestPlaceWorkloadReport: the report's workload rows count desired,
// existing, created, placed and pending pods with the reasons rolled up;
// the summary names the workload not fully placed; the placement table
// carries each pod's owner.
func TestPlaceWorkloadReport(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "in.yaml")
	os.WriteFile(input, []byte(`
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "1", memory: 4Gi, pods: "10"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: web, resources: {requests: {cpu: 400m}}}]}
`), 0o644)
	rep, table := filepath.Join(dir, "r.json"), filepath.Join(dir, "t.parquet")
	code, errs := runCapture(t, "place", "-f", input, "--report", rep)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "Deployment shop/web: 2 of 4 pending: 0/1 nodes are available: 1 Insufficient cpu."; !strings.Contains(errs, want) {
		t.Errorf("summary lacks %q:\n%s", want, errs)
	}
	var r struct {
		Workloads []struct {
			Kind, Namespace, Name                       string
			Desired, Existing, Created, Placed, Pending int
			Reasons                                     []struct {
				Reason string
				Pods   int
			}
		}
	}
	raw, _ := os.ReadFile(rep)
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Workloads) != 1 {
		t.Fatalf("workloads %+v", r.Workloads)
	}
	w := r.Workloads[0]
	if w.Kind != "Deployment" || w.Name != "web" || w.Desired != 4 || w.Existing != 0 || w.Created != 4 || w.Placed != 2 || w.Pending != 2 ||
		len(w.Reasons) != 1 || w.Reasons[0].Pods != 2 || !strings.HasPrefix(w.Reasons[0].Reason, "0/1 nodes are available: 1 Insufficient cpu.") {
		t.Errorf("workload row %+v", w)
	}
	if code, errs := runCapture(t, "place", "-q", "-f", input, "-o", table, "--format", "parquet"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := readParquetRows(t, table)
	for _, row := range rows {
		if row["owner_kind"] != "ReplicaSet" || !strings.HasPrefix(row["owner_name"].(string), "web-") {
			t.Errorf("row %v: owner %v/%v", row["name"], row["owner_kind"], row["owner_name"])
		}
	}
	if len(rows) != 4 {
		t.Errorf("%d rows", len(rows))
	}
}

// readParquetRows reads a placement table's rows as column name -> value
// (nil for null).
func readParquetRows(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(context.Background(), f, parquet.NewReaderProperties(nil), pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	rows := make([]map[string]any, tbl.NumRows())
	for i := range rows {
		rows[i] = map[string]any{}
	}
	for c := 0; c < int(tbl.NumCols()); c++ {
		name, k := tbl.Schema().Field(c).Name, 0
		for _, chunk := range tbl.Column(c).Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				rows[k][name] = chunk.GetOneForMarshal(i)
				k++
			}
		}
	}
	return rows
}
