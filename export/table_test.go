package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

// tableFixture is a cluster and a hand-made result with every kind of row:
// binds, evictions with their preemptor, pending pods of each kind and a
// pod rejected at admission. want is the table it must give, one row per
// pod outcome in column order, nil for null.
func tableFixture(t *testing.T) (c *index.Cluster, res *solver.Result, want [][]any) {
	t.Helper()
	c, err := index.Build(&index.Input{
		Nodes: []index.Node{
			{Name: "node-a", Allocatable: index.ResourceList{{Name: "pods", Value: 10}}},
			{Name: "node-b", Allocatable: index.ResourceList{{Name: "pods", Value: 10}}},
		},
		Pods: []index.Pod{
			0: {Namespace: "shop", Name: "web-0", UID: "u-web-0", Priority: 100,
				Owner: &index.OwnerRef{Kind: "ReplicaSet", Name: "web-7d9f8b", APIVersion: "apps/v1", UID: "u-rs"}},
			1: {Namespace: "shop", Name: "batch-0", UID: "u-batch-0", NodeName: "node-b"},
			2: {Namespace: "shop", Name: "batch-1", NodeName: "node-b", Priority: -5},
			3: {Namespace: "prod", Name: "db-0", UID: "u-db-0", Priority: 1000,
				Owner: &index.OwnerRef{Kind: "StatefulSet", Name: "db", APIVersion: "apps/v1"}},
			4: {Namespace: "prod", Name: "big", UID: "u-big", Priority: 10,
				Owner: &index.OwnerRef{Kind: "DaemonSet", Name: "agent", APIVersion: "apps/v1"}},
			5: {Namespace: "prod", Name: "pvc", Priority: 10},
			6: {Namespace: "prod", Name: "gated", UID: "u-gated", Gated: true, SchedulingGates: []string{"example.com/wait"}},
			7: {Namespace: "prod", Name: "orphan", UID: "u-orphan", Rejected: `no PriorityClass with name "gold" was found`},
			8: {Namespace: "ns", Name: `we"ird\name`, UID: "u-weird", Priority: 1},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	const tooMany = "0/2 nodes are available: 2 Too many pods."
	res = &solver.Result{
		Commits: []solver.Commit{
			{Action: solver.Bind, Pod: 0, Node: 0, Score: 187},
			{Action: solver.Evict, Pod: 1, Node: 1, Preemptor: 3},
			{Action: solver.Evict, Pod: 2, Node: 1, Preemptor: 3},
			{Action: solver.Bind, Pod: 3, Node: 1, Score: 42},
			{Action: solver.Bind, Pod: 8, Node: 0, Score: 0},
		},
		Pending: []solver.Pending{
			{Pod: 4, Kind: solver.Unschedulable, Reason: tooMany},
			{Pod: 5, Kind: solver.Unsupported, Reason: "unsupported: volumes"},
			{Pod: 6, Kind: solver.Gated, Reason: "waiting for scheduling gates: [example.com/wait]"},
		},
	}
	i32, i64 := func(v int32) any { return v }, func(v int64) any { return v }
	want = [][]any{
		// namespace, name, uid, node, priority, action, reason, pending_kind, preemptor, score, seq, owner_kind, owner_name
		{"shop", "web-0", "u-web-0", "node-a", i32(100), "bind", nil, nil, nil, i64(187), i64(0), "ReplicaSet", "web-7d9f8b"},
		{"shop", "batch-0", "u-batch-0", "node-b", i32(0), "evict", nil, nil, "prod/db-0", nil, i64(1), nil, nil},
		{"shop", "batch-1", nil, "node-b", i32(-5), "evict", nil, nil, "prod/db-0", nil, i64(2), nil, nil},
		{"prod", "db-0", "u-db-0", "node-b", i32(1000), "bind", nil, nil, nil, i64(42), i64(3), "StatefulSet", "db"},
		{"ns", `we"ird\name`, "u-weird", "node-a", i32(1), "bind", nil, nil, nil, i64(0), i64(4), nil, nil},
		{"prod", "big", "u-big", nil, i32(10), "pending", tooMany, "unschedulable", nil, nil, nil, "DaemonSet", "agent"},
		{"prod", "pvc", nil, nil, i32(10), "pending", "unsupported: volumes", "unsupported", nil, nil, nil, nil, nil},
		{"prod", "gated", "u-gated", nil, i32(0), "pending", "waiting for scheduling gates: [example.com/wait]", "gated", nil, nil, nil, nil, nil},
		{"prod", "orphan", "u-orphan", nil, i32(0), "pending", `no PriorityClass with name "gold" was found`, "rejected", nil, nil, nil, nil, nil},
	}
	return c, res, want
}

// checkSchema compares the fields of a schema read back with TableSchema's
// (Parquet adds field metadata: field ids).
func checkSchema(t *testing.T, got *arrow.Schema) {
	t.Helper()
	want := TableSchema.Fields()
	if got.NumFields() != len(want) {
		t.Fatalf("schema\n%v\nwant\n%v", got, TableSchema)
	}
	for i, f := range got.Fields() {
		if f.Name != want[i].Name || f.Nullable != want[i].Nullable || !arrow.TypeEqual(f.Type, want[i].Type) {
			t.Errorf("field %d: %v, want %v", i, f, want[i])
		}
	}
}

// recordRows appends rec's rows to rows, each value as Go sees it (nil for
// null).
func recordRows(rows [][]any, rec arrow.Record) [][]any {
	for i := 0; i < int(rec.NumRows()); i++ {
		row := make([]any, rec.NumCols())
		for j, col := range rec.Columns() {
			row[j] = col.GetOneForMarshal(i)
		}
		rows = append(rows, row)
	}
	return rows
}

// readArrow reads an Arrow IPC file back: its schema, rows and number of
// record batches.
func readArrow(t *testing.T, b []byte, mem memory.Allocator) (*arrow.Schema, [][]any, int) {
	t.Helper()
	r, err := ipc.NewFileReader(bytes.NewReader(b), ipc.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows [][]any
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.Record(i)
		if err != nil {
			t.Fatal(err)
		}
		rows = recordRows(rows, rec)
	}
	return r.Schema(), rows, r.NumRecords()
}

// readParquet reads a Parquet file back through pqarrow: its schema, rows
// and number of row groups.
func readParquet(t *testing.T, b []byte, mem memory.Allocator) (*arrow.Schema, [][]any, int) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b), file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 4}, mem)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 0)
	defer tr.Release()
	var rows [][]any
	for tr.Next() {
		rows = recordRows(rows, tr.Record())
	}
	return tbl.Schema(), rows, pf.NumRowGroups()
}

// writeTableBytes writes the table of res in format f, batch rows a batch.
func writeTableBytes(t *testing.T, c *index.Cluster, res *solver.Result, f Format, mem memory.Allocator, batch int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeTable(&buf, c, res, f, mem, batch); err != nil {
		t.Fatalf("write %s: %v", f, err)
	}
	return buf.Bytes()
}

func TestWriteTable(t *testing.T) {
	c, res, want := tableFixture(t)
	readers := map[Format]func(*testing.T, []byte, memory.Allocator) (*arrow.Schema, [][]any, int){
		FormatArrow:   readArrow,
		FormatParquet: readParquet,
	}
	for _, f := range []Format{FormatArrow, FormatParquet} {
		for _, batch := range []int{1, 4, tableBatch} {
			t.Run(fmt.Sprintf("%s/batch=%d", f, batch), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				b := writeTableBytes(t, c, res, f, mem, batch)
				schema, rows, batches := readers[f](t, b, mem)
				checkSchema(t, schema)
				if wantBatches := (len(want) + batch - 1) / batch; batches != wantBatches {
					t.Errorf("%d batches, want %d", batches, wantBatches)
				}
				if len(rows) != len(want) {
					t.Fatalf("%d rows, want %d", len(rows), len(want))
				}
				for i := range want {
					if !reflect.DeepEqual(rows[i], want[i]) {
						t.Errorf("row %d\n got %#v\nwant %#v", i, rows[i], want[i])
					}
				}
			})
		}
	}
}

func TestWriteTableEmpty(t *testing.T) {
	c, err := index.Build(&index.Input{})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	if _, rows, _ := readArrow(t, writeTableBytes(t, c, &solver.Result{}, FormatArrow, mem, tableBatch), mem); len(rows) != 0 {
		t.Errorf("arrow: %d rows, want 0", len(rows))
	}
	if _, rows, _ := readParquet(t, writeTableBytes(t, c, &solver.Result{}, FormatParquet, mem, tableBatch), mem); len(rows) != 0 {
		t.Errorf("parquet: %d rows, want 0", len(rows))
	}
}

// TestWriteTableDeterministic writes each table twice: the files must be
// byte-identical (no timestamp or other varying data in either format).
func TestWriteTableDeterministic(t *testing.T) {
	c, res, _ := tableFixture(t)
	for _, f := range []Format{FormatArrow, FormatParquet} {
		var outs [2]bytes.Buffer
		for i := range outs {
			if err := WriteResult(&outs[i], c, res, f); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
			t.Errorf("%s: two writes of the same result differ", f)
		}
	}
	// The Parquet footer's free-form parts: a fixed created_by and the
	// stored Arrow schema, nothing else.
	var buf bytes.Buffer
	if err := WriteResult(&buf, c, res, FormatParquet); err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	if md.GetCreatedBy() != parquet.DefaultCreatedBy {
		t.Errorf("created_by %q, want %q", md.GetCreatedBy(), parquet.DefaultCreatedBy)
	}
	if keys := md.KeyValueMetadata().Keys(); !reflect.DeepEqual(keys, []string{"ARROW:schema"}) {
		t.Errorf("key-value metadata %v, want only ARROW:schema", keys)
	}
}

// failWriter fails every write.
type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestWriteTableError(t *testing.T) {
	c, res, _ := tableFixture(t)
	for _, f := range []Format{FormatArrow, FormatParquet} {
		if err := WriteResult(failWriter{}, c, res, f); !errors.Is(err, errDiskFull) {
			t.Errorf("%s: error %v, want %v", f, err, errDiskFull)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"list", "jsonl", "arrow", "parquet"} {
		if f, err := ParseFormat(s); err != nil || string(f) != s {
			t.Errorf("ParseFormat(%q) = %q, %v", s, f, err)
		}
	}
	// The names of the suffixes: json is a list, ndjson JSON lines.
	for s, want := range map[string]Format{"json": FormatList, "ndjson": FormatJSONL, "yml": FormatYAML, "yaml": FormatYAML} {
		if f, err := ParseFormat(s); err != nil || f != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", s, f, err, want)
		}
	}
	if _, err := ParseFormat("csv"); err == nil {
		t.Error("ParseFormat(csv) succeeded")
	}
}
