package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

// tableBatch is the number of rows per record batch (and per Parquet row
// group): a table is built and written one batch at a time, so memory stays
// bounded whatever the number of pods.
const tableBatch = 64 << 10

// The placement table's columns, in schema order.
const (
	colNamespace = iota
	colName
	colUID
	colNode
	colPriority
	colAction
	colReason
	colPendingKind
	colPreemptor
	colScore
	colSeq
	colOwnerKind
	colOwnerName
	numCols
)

// The action column's values.
const (
	actBind    = "bind"
	actEvict   = "evict"
	actPending = "pending"
)

// TableSchema is the schema of the placement table written by the arrow and
// parquet formats: one row per pod outcome (see docs/formats.md, "Output").
var TableSchema = arrow.NewSchema([]arrow.Field{
	colNamespace:   {Name: "namespace", Type: arrow.BinaryTypes.String},
	colName:        {Name: "name", Type: arrow.BinaryTypes.String},
	colUID:         {Name: "uid", Type: arrow.BinaryTypes.String, Nullable: true},
	colNode:        {Name: "node", Type: arrow.BinaryTypes.String, Nullable: true},
	colPriority:    {Name: "priority", Type: arrow.PrimitiveTypes.Int32},
	colAction:      {Name: "action", Type: arrow.BinaryTypes.String},
	colReason:      {Name: "reason", Type: arrow.BinaryTypes.String, Nullable: true},
	colPendingKind: {Name: "pending_kind", Type: arrow.BinaryTypes.String, Nullable: true},
	colPreemptor:   {Name: "preemptor", Type: arrow.BinaryTypes.String, Nullable: true},
	colScore:       {Name: "score", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	colSeq:         {Name: "seq", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	colOwnerKind:   {Name: "owner_kind", Type: arrow.BinaryTypes.String, Nullable: true},
	colOwnerName:   {Name: "owner_name", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// recordWriter is what the Arrow IPC file writer and the Parquet writer
// have in common.
type recordWriter interface {
	Write(arrow.Record) error
	Close() error
}

// writeTable writes the placement table of res over c in format f (arrow or
// parquet), batch rows per record batch, allocating Arrow buffers from mem.
func writeTable(w io.Writer, c *index.Cluster, res *solver.Result, f Format, mem memory.Allocator, batch int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var (
		tw  recordWriter
		err error
	)
	switch f {
	case FormatArrow:
		tw, err = ipc.NewFileWriter(&CountingWriter{W: bw}, ipc.WithSchema(TableSchema), ipc.WithZstd(), ipc.WithAllocator(mem))
	case FormatParquet:
		// No timestamp or other varying data goes into the file: the
		// footer holds the schema, the statistics and the library's
		// fixed created_by string.
		props := parquet.NewWriterProperties(
			parquet.WithCompression(compress.Codecs.Zstd),
			parquet.WithMaxRowGroupLength(int64(batch)),
			// Dictionary encoding, except for the columns unique per
			// row: there it only costs time, and the plain values
			// compress better.
			parquet.WithDictionaryFor(TableSchema.Field(colName).Name, false),
			parquet.WithDictionaryFor(TableSchema.Field(colUID).Name, false),
			parquet.WithDictionaryFor(TableSchema.Field(colSeq).Name, false),
			parquet.WithAllocator(mem))
		// bw has no Close, so the Parquet writer's Close leaves w open.
		tw, err = pqarrow.NewFileWriter(TableSchema, bw, props,
			pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(mem)))
	default:
		err = fmt.Errorf("format %q is not a table format", f)
	}
	if err != nil {
		return err
	}
	tb := newTableBuilder(mem, batch, tw)
	defer tb.release()
	if err := tb.appendResult(c, res); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// tableBuilder builds the placement table one batch at a time and hands
// each full batch to out.
type tableBuilder struct {
	// batch is the rows per batch, rows those built in the current one,
	// left those not built yet.
	batch, rows, left int
	out               recordWriter
	str               [numCols]*array.StringBuilder // the utf8 columns; nil for the others
	// dataLen is each utf8 column's data length in the last batch.
	dataLen    [numCols]int
	priority   *array.Int32Builder
	score, seq *array.Int64Builder
	cols       []arrow.Array
}

func newTableBuilder(mem memory.Allocator, batch int, out recordWriter) *tableBuilder {
	tb := &tableBuilder{
		batch:    batch,
		out:      out,
		priority: array.NewInt32Builder(mem),
		score:    array.NewInt64Builder(mem),
		seq:      array.NewInt64Builder(mem),
		cols:     make([]arrow.Array, numCols),
	}
	for i, fd := range TableSchema.Fields() {
		if fd.Type.ID() == arrow.STRING {
			tb.str[i] = array.NewStringBuilder(mem)
		}
	}
	return tb
}

// release frees the builders.
func (tb *tableBuilder) release() {
	for _, b := range tb.str {
		if b != nil {
			b.Release()
		}
	}
	tb.priority.Release()
	tb.score.Release()
	tb.seq.Release()
}

// appendResult appends every row: the commits in commit order, then
// res.Pending in its order, then c.Rejected; and writes the last batch.
func (tb *tableBuilder) appendResult(c *index.Cluster, res *solver.Result) error {
	tb.left = len(res.Commits) + len(res.Pending) + len(c.Rejected)
	tb.reserve()
	for i := range res.Commits {
		cm := &res.Commits[i]
		p := &c.Pods[cm.Pod]
		tb.appendPod(p)
		tb.str[colNode].Append(c.Nodes[cm.Node].Name)
		tb.str[colReason].AppendNull()
		tb.str[colPendingKind].AppendNull()
		if cm.Action == solver.Evict {
			pre := &c.Pods[cm.Preemptor]
			tb.str[colAction].Append(actEvict)
			tb.str[colPreemptor].Append(pre.Namespace + "/" + pre.Name)
			tb.score.AppendNull()
		} else {
			tb.str[colAction].Append(actBind)
			tb.str[colPreemptor].AppendNull()
			tb.score.Append(cm.Score)
		}
		tb.seq.Append(int64(i))
		if err := tb.endRow(); err != nil {
			return err
		}
	}
	for _, pd := range res.Pending {
		if err := tb.appendPending(&c.Pods[pd.Pod], pd.Kind.String(), pd.Reason); err != nil {
			return err
		}
	}
	for _, pid := range c.Rejected {
		p := &c.Pods[pid]
		if err := tb.appendPending(p, "rejected", p.Rejected); err != nil {
			return err
		}
	}
	return tb.flush()
}

// appendPod appends the columns every row fills from the pod itself.
func (tb *tableBuilder) appendPod(p *index.Pod) {
	tb.str[colNamespace].Append(p.Namespace)
	tb.str[colName].Append(p.Name)
	if p.UID != "" {
		tb.str[colUID].Append(p.UID)
	} else {
		tb.str[colUID].AppendNull()
	}
	tb.priority.Append(p.Priority)
	if p.Owner != nil {
		tb.str[colOwnerKind].Append(p.Owner.Kind)
		tb.str[colOwnerName].Append(p.Owner.Name)
	} else {
		tb.str[colOwnerKind].AppendNull()
		tb.str[colOwnerName].AppendNull()
	}
}

// appendPending appends a pending row.
func (tb *tableBuilder) appendPending(p *index.Pod, kind, reason string) error {
	tb.appendPod(p)
	tb.str[colNode].AppendNull()
	tb.str[colAction].Append(actPending)
	tb.str[colReason].Append(reason)
	tb.str[colPendingKind].Append(kind)
	tb.str[colPreemptor].AppendNull()
	tb.score.AppendNull()
	tb.seq.AppendNull()
	return tb.endRow()
}

// endRow counts a row and writes the batch when it is full.
func (tb *tableBuilder) endRow() error {
	tb.rows++
	tb.left--
	if tb.rows < tb.batch {
		return nil
	}
	if err := tb.flush(); err != nil {
		return err
	}
	tb.reserve()
	return nil
}

// reserve sizes the builders for the next batch: its number of rows and,
// for each utf8 column, the data length of the batch before; so a batch's
// buffers are mostly allocated once rather than grown by doubling.
func (tb *tableBuilder) reserve() {
	n := min(tb.batch, tb.left)
	if n == 0 {
		return
	}
	for i, b := range tb.str {
		if b != nil {
			b.Reserve(n)
			b.ReserveData(tb.dataLen[i])
		}
	}
	tb.priority.Reserve(n)
	tb.score.Reserve(n)
	tb.seq.Reserve(n)
}

// flush writes the rows built so far as one record batch, if there are any.
func (tb *tableBuilder) flush() error {
	if tb.rows == 0 {
		return nil
	}
	for i, b := range tb.str {
		if b != nil {
			tb.dataLen[i] = b.DataLen()
			tb.cols[i] = b.NewArray()
		}
	}
	tb.cols[colPriority] = tb.priority.NewArray()
	tb.cols[colScore] = tb.score.NewArray()
	tb.cols[colSeq] = tb.seq.NewArray()
	rec := array.NewRecord(TableSchema, tb.cols, int64(tb.rows))
	for i, a := range tb.cols {
		a.Release()
		tb.cols[i] = nil
	}
	tb.rows = 0
	defer rec.Release()
	return tb.out.Write(rec)
}

// CountingWriter counts the bytes written through it to W. It is also the
// io.WriteSeeker the Arrow IPC file writer takes, which only ever asks for
// the current position: the count answers it, so the file format can go to
// a pipe, through a buffer.
type CountingWriter struct {
	W io.Writer
	N int64
}

func (t *CountingWriter) Write(p []byte) (int, error) {
	n, err := t.W.Write(p)
	t.N += int64(n)
	return n, err
}

// Seek answers Seek(0, io.SeekCurrent) only.
func (t *CountingWriter) Seek(offset int64, whence int) (int64, error) {
	if offset != 0 || whence != io.SeekCurrent {
		return t.N, errors.New("export: only the current position can be asked for")
	}
	return t.N, nil
}
