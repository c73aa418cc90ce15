package ingest

// Snapshots: the loaded model (index.Input, admission applied) as Arrow IPC
// tables, written by `kplace convert` and read back by Load without any
// JSON parsing. The layout is described in the package documentation and
// in docs/formats.md; snapshot_read.go decodes it.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/cespare/xxhash/v2"

	"github.com/kplace/kplace/index"
)

// SnapshotVersion is the snapshot format version this kplace writes and
// reads. It changes whenever a table or column changes.
const SnapshotVersion = 4

// Schema metadata keys and values.
const (
	metaFormat    = "kplace.format"             // formatName, on every table
	metaVersion   = "kplace.format_version"     // SnapshotVersion, on every table
	metaTable     = "kplace.table"              // the table's name, on every table
	metaAdmission = "kplace.admission_defaults" // "true" or "false", on the snapshot table
	metaChecksum  = "kplace.xxhash64"           // + ".TABLE", on the checksum table
	formatName    = "kplace-snapshot"
)

// Table names, in file order.
const (
	tblSnapshot        = "snapshot"
	tblNodes           = "nodes"
	tblPods            = "pods"
	tblPriorityClasses = "priority_classes"
	tblPDBs            = "pdbs"
	tblNamespaces      = "namespaces"
	tblWorkloads       = "workloads"
	tblChecksum        = "checksum"
)

// snapshotVersionWritten is the version written (tests write others).
var snapshotVersionWritten = SnapshotVersion

// snapshotBatchRows is the most rows one record batch holds (a variable
// so tests can exercise many batches with little data).
var snapshotBatchRows = 1 << 16

// SnapshotOptions is what a snapshot records beyond the objects.
type SnapshotOptions struct {
	// AdmissionDefaults records whether the DefaultTolerationSeconds
	// tolerations were added to the pending pods when the input was
	// loaded (Options.AdmissionDefaults, or the value a snapshot recorded).
	AdmissionDefaults bool
}

// Arrow types of the columns. Strings that repeat (namespaces, label keys
// and values, node names, operators, ...) are dictionary encoded; strings
// unique per row (names, UIDs) are plain. Lists and structs that the
// model can hold as nil are nullable: null is nil, an empty list empty.
var (
	dstr    = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	str     = arrow.BinaryTypes.String
	i32     = arrow.PrimitiveTypes.Int32
	i64     = arrow.PrimitiveTypes.Int64
	boolean = arrow.FixedWidthTypes.Boolean
	bin     = arrow.BinaryTypes.Binary

	labelsT    = mapOf(dstr, dstr)
	strsT      = arrow.ListOfNonNullable(dstr)
	reqT       = arrow.StructOf(req("key", dstr), req("operator", dstr), opt("values", strsT))
	reqsT      = arrow.ListOfNonNullable(reqT)
	termT      = arrow.StructOf(opt("match_expressions", reqsT), opt("match_fields", reqsT))
	termsT     = arrow.ListOfNonNullable(termT)
	prefT      = arrow.StructOf(req("weight", i32), req("term", termT))
	prefsT     = arrow.ListOfNonNullable(prefT)
	taintT     = arrow.StructOf(req("key", dstr), req("value", dstr), req("effect", dstr))
	taintsT    = arrow.ListOfNonNullable(taintT)
	imageT     = arrow.StructOf(opt("names", strsT), req("size", i64))
	imagesT    = arrow.ListOfNonNullable(imageT)
	tolT       = arrow.StructOf(req("key", dstr), req("operator", dstr), req("value", dstr), req("effect", dstr), opt("toleration_seconds", i64))
	tolsT      = arrow.ListOfNonNullable(tolT)
	qtyT       = arrow.StructOf(req("name", dstr), req("value", i64))
	resourcesT = arrow.ListOfNonNullable(qtyT)
	hostPortT  = arrow.StructOf(req("host_ip", dstr), req("protocol", dstr), req("port", i32))
	hostPortsT = arrow.ListOfNonNullable(hostPortT)
	ownerT     = arrow.StructOf(req("kind", dstr), req("name", dstr), req("api_version", dstr), req("uid", str))
	selectorT  = arrow.StructOf(opt("match_labels", labelsT), opt("match_expressions", reqsT))
	countsT    = mapOf(str, i64)
	spreadT    = arrow.StructOf(req("max_skew", i32), req("topology_key", dstr), req("when_unsatisfiable", dstr),
		opt("selector", selectorT), req("min_domains", i32), opt("match_label_keys", strsT),
		req("node_affinity_policy", dstr), req("node_taints_policy", dstr))
	spreadsT = arrow.ListOfNonNullable(spreadT)
	podTermT = arrow.StructOf(opt("selector", selectorT), opt("namespaces", strsT), opt("namespace_selector", selectorT),
		req("topology_key", dstr), opt("match_label_keys", strsT), opt("mismatch_label_keys", strsT))
	podTermsT  = arrow.ListOfNonNullable(podTermT)
	wPodTermT  = arrow.StructOf(req("weight", i32), req("term", podTermT))
	wPodTermsT = arrow.ListOfNonNullable(wPodTermT)
)

func req(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t}
}

func opt(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true}
}

func mapOf(k, v arrow.DataType) *arrow.MapType {
	t := arrow.MapOf(k, v)
	t.SetItemNullable(false)
	return t
}

// Table schemas (without their metadata). The decoder finds columns by
// name in these; a file whose schema differs is refused.
var (
	snapshotFields = []arrow.Field{
		req("admission_defaults", boolean),
		req("other_scheduler", i64),
		req("finished_pods", i64),
		opt("skipped_kinds", countsT),
		opt(tblNodes, i64),
		opt(tblPods, i64),
		opt(tblPriorityClasses, i64),
		opt(tblPDBs, i64),
		opt(tblNamespaces, i64),
		opt(tblWorkloads, i64),
	}
	nodeFields = []arrow.Field{
		req("name", str),
		opt("labels", labelsT),
		opt("taints", taintsT),
		req("unschedulable", boolean),
		opt("allocatable", resourcesT),
		req("src_file", dstr),
		req("src_line", i64),
		opt("images", imagesT),
	}
	podFields = []arrow.Field{
		req("namespace", dstr),
		req("name", str),
		req("uid", str),
		opt("labels", labelsT),
		req("creation_unix", i64),
		req("start_unix", i64),
		opt("owner", ownerT),
		req("node_name", dstr),
		req("scheduler_name", dstr),
		opt("requests", resourcesT),
		req("score_cpu", i64),
		req("score_memory", i64),
		opt("tolerations", tolsT),
		opt("node_selector", labelsT),
		opt("required_terms", termsT),
		req("has_required", boolean),
		opt("preferred_terms", prefsT),
		opt("host_ports", hostPortsT),
		req("priority", i32),
		req("preemption_policy", dstr),
		req("unsupported", dstr),
		req("gated", boolean),
		opt("scheduling_gates", strsT),
		req("rejected", str),
		req("src_file", dstr),
		req("src_line", i64),
		req("non_zero_cpu", i64),
		req("non_zero_memory", i64),
		req("priority_class_name", dstr),
		opt("spread", spreadsT),
		opt("affinity", podTermsT),
		opt("anti_affinity", podTermsT),
		opt("preferred_affinity", wPodTermsT),
		opt("preferred_anti_affinity", wPodTermsT),
		opt("images", strsT),
		req("image_containers", i32),
	}
	priorityClassFields = []arrow.Field{
		req("name", str),
		req("value", i32),
		req("global_default", boolean),
		req("preemption_policy", dstr),
	}
	pdbFields = []arrow.Field{
		req("namespace", dstr),
		req("name", str),
		opt("selector", selectorT),
		req("min_available", dstr),
		req("max_unavailable", dstr),
		req("disruptions_allowed", i32),
	}
	namespaceFields = []arrow.Field{
		req("name", str),
		opt("labels", labelsT),
	}
	workloadFields = []arrow.Field{
		req("kind", dstr),
		req("namespace", dstr),
		req("name", str),
		opt("selector", selectorT),
		req("uid", str),
		opt("owner", ownerT),
		req("creation_unix", i64),
		req("replicas", i32),
		req("parallelism", i32),
		req("completions", i32),
		req("indexed", boolean),
		req("suspend", boolean),
		req("manual_selector", boolean),
		req("finished", boolean),
		req("succeeded", i32),
		req("completed_indexes", str),
		req("failed_indexes", str),
		req("ordinals_start", i32),
		req("service_name", dstr),
		req("update_revision", str),
		req("collision_count", i32),
		req("template_generation", i64),
		opt("template", bin),
		opt("claim_templates", bin),
		req("src_file", dstr),
		req("src_line", i64),
	}
)

// tableSchema is a table's schema with the metadata naming it.
func tableSchema(name string, fields []arrow.Field, extra ...string) *arrow.Schema {
	keys := []string{metaFormat, metaVersion, metaTable}
	vals := []string{formatName, strconv.Itoa(snapshotVersionWritten), name}
	for i := 0; i+1 < len(extra); i += 2 {
		keys, vals = append(keys, extra[i]), append(vals, extra[i+1])
	}
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(fields, &md)
}

// WriteSnapshot writes in as a snapshot to w: a sequence of Arrow IPC
// streams with zstd-compressed buffers, one per table, then a checksum
// stream (see the package documentation). The output is deterministic:
// the same input gives the same bytes. in is only read.
func WriteSnapshot(w io.Writer, in *index.Input, opts SnapshotOptions) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	hw := &hashWriter{w: bw, h: xxhash.New()}
	var sums []string // metadata of the checksum stream
	sum := func(table string) {
		sums = append(sums, metaChecksum+"."+table, fmt.Sprintf("%016x", hw.h.Sum64()))
		hw.h.Reset()
	}
	if err := writeHeader(hw, in, opts); err != nil {
		return err
	}
	sum(tblSnapshot)
	tables := []struct {
		name   string
		fields []arrow.Field
		rows   int
		enc    func(*encoder) rowEncoder
	}{
		{tblNodes, nodeFields, len(in.Nodes), func(e *encoder) rowEncoder { return newNodeEnc(e, in.Nodes) }},
		{tblPods, podFields, len(in.Pods), func(e *encoder) rowEncoder { return newPodEnc(e, in.Pods) }},
		{tblPriorityClasses, priorityClassFields, len(in.PriorityClasses), func(e *encoder) rowEncoder { return newPriorityClassEnc(e, in.PriorityClasses) }},
		{tblPDBs, pdbFields, len(in.PDBs), func(e *encoder) rowEncoder { return newPDBEnc(e, in.PDBs) }},
		{tblNamespaces, namespaceFields, len(in.Namespaces), func(e *encoder) rowEncoder { return newNamespaceEnc(e, in.Namespaces) }},
		{tblWorkloads, workloadFields, len(in.Workloads), func(e *encoder) rowEncoder { return newWorkloadEnc(e, in.Workloads) }},
	}
	for _, t := range tables {
		e := &encoder{}
		if err := writeTable(hw, tableSchema(t.name, t.fields), t.rows, e, t.enc(e)); err != nil {
			return fmt.Errorf("snapshot table %q: %w", t.name, err)
		}
		sum(t.name)
	}
	iw := ipc.NewWriter(hw, ipc.WithSchema(tableSchema(tblChecksum, nil, sums...)))
	if err := iw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// hashWriter hashes what it writes.
type hashWriter struct {
	w io.Writer
	h *xxhash.Digest
}

func (w *hashWriter) Write(p []byte) (int, error) {
	w.h.Write(p)
	return w.w.Write(p)
}

// headerCounts are the columns of the snapshot table giving each table's
// rows (null: a nil slice), in file order.
var headerCounts = []string{tblNodes, tblPods, tblPriorityClasses, tblPDBs, tblNamespaces, tblWorkloads}

// writeHeader writes the one-row snapshot table.
func writeHeader(w io.Writer, in *index.Input, opts SnapshotOptions) error {
	e := &encoder{}
	admission, other, finished := e.bools(), e.i64s(), e.i64s()
	skipped := newCountsEnc(e)
	admission.add(opts.AdmissionDefaults)
	other.add(int64(in.OtherScheduler))
	finished.add(int64(in.FinishedPods))
	skipped.add(in.SkippedKinds)
	cols := []arrow.ArrayData{admission.data(), other.data(), finished.data(), skipped.data()}
	for _, n := range []struct {
		rows  int
		isNil bool
	}{{len(in.Nodes), in.Nodes == nil}, {len(in.Pods), in.Pods == nil}, {len(in.PriorityClasses), in.PriorityClasses == nil},
		{len(in.PDBs), in.PDBs == nil}, {len(in.Namespaces), in.Namespaces == nil}, {len(in.Workloads), in.Workloads == nil}} {
		c := e.i64s()
		rows := int64(n.rows)
		if n.isNil {
			c.addPtr(nil)
		} else {
			c.addPtr(&rows)
		}
		cols = append(cols, c.data())
	}
	sch := tableSchema(tblSnapshot, snapshotFields, metaAdmission, strconv.FormatBool(opts.AdmissionDefaults))
	iw := ipc.NewWriter(w, ipc.WithSchema(sch), ipc.WithZstd())
	if err := writeRecord(iw, sch, 1, cols, e); err != nil {
		return fmt.Errorf("snapshot table %q: %w", tblSnapshot, err)
	}
	return iw.Close()
}

// rowEncoder adds row i of its table to its encoder's columns; cols
// returns the columns' data, in schema order.
type rowEncoder interface {
	row(i int)
	cols() []arrow.ArrayData
}

// encodeRows adds rows [lo, hi).
func encodeRows(re rowEncoder, lo, hi int) {
	for i := lo; i < hi; i++ {
		re.row(i)
	}
}

// writeTable writes one table as an IPC stream: a first pass over every
// row fills the dictionaries (so that one dictionary per column serves
// every batch and is written once), a second encodes and writes batches of
// at most snapshotBatchRows rows.
func writeTable(w io.Writer, sch *arrow.Schema, rows int, e *encoder, re rowEncoder) error {
	for lo := 0; lo < rows; lo += snapshotBatchRows {
		encodeRows(re, lo, min(rows, lo+snapshotBatchRows))
		e.reset()
	}
	e.freeze()
	iw := ipc.NewWriter(w, ipc.WithSchema(sch), ipc.WithZstd())
	for lo := 0; lo < rows; lo += snapshotBatchRows {
		hi := min(rows, lo+snapshotBatchRows)
		encodeRows(re, lo, hi)
		if err := writeRecord(iw, sch, hi-lo, re.cols(), e); err != nil {
			return err
		}
		e.reset()
	}
	return iw.Close()
}

func writeRecord(iw *ipc.Writer, sch *arrow.Schema, n int, cols []arrow.ArrayData, e *encoder) error {
	if e.err != nil {
		return e.err
	}
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		arrs[i] = array.MakeFromData(c)
	}
	rec := array.NewRecord(sch, arrs, int64(n))
	defer rec.Release()
	for _, a := range arrs {
		a.Release()
	}
	return iw.Write(rec)
}

// encoder owns one table's column encoders: the leaves it resets after
// each batch, and the dictionaries it freezes after the first pass.
type encoder struct {
	leaves []interface{ reset() }
	dicts  []*dictEnc
	err    error
}

func (e *encoder) reset() {
	for _, l := range e.leaves {
		l.reset()
	}
}

func (e *encoder) freeze() {
	for _, d := range e.dicts {
		d.dict = stringsData(d.vals)
	}
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

func (e *encoder) dict() *dictEnc {
	d := leaf(e, &dictEnc{ids: map[string]int32{}})
	e.dicts = append(e.dicts, d)
	return d
}

// leaf registers c to be reset after each batch.
func leaf[T interface{ reset() }](e *encoder, c T) T {
	e.leaves = append(e.leaves, c)
	return c
}

func (e *encoder) strs() *strEnc   { return leaf(e, &strEnc{e: e, offs: []int32{0}}) }
func (e *encoder) i64s() *i64Enc   { return leaf(e, &i64Enc{}) }
func (e *encoder) i32s() *i32Enc   { return leaf(e, &i32Enc{}) }
func (e *encoder) bools() *bitsEnc { return leaf(e, &bitsEnc{}) }
func (e *encoder) list() *listEnc  { return leaf(e, &listEnc{e: e, offs: []int32{0}}) }

func (e *encoder) valid() *bitsEnc { return e.bools() }

// bitsEnc collects a bitmap: boolean values, or validity (true = valid).
type bitsEnc struct {
	bits  []byte
	n     int
	zeros int
}

func (b *bitsEnc) add(v bool) {
	if b.n%8 == 0 {
		b.bits = append(b.bits, 0)
	}
	if v {
		b.bits[b.n/8] |= 1 << (b.n % 8)
	} else {
		b.zeros++
	}
	b.n++
}

func (b *bitsEnc) reset() { b.bits, b.n, b.zeros = b.bits[:0], 0, 0 }

func (b *bitsEnc) buf() *memory.Buffer { return memory.NewBufferBytes(slices.Clone(b.bits)) }

// validity returns the validity buffer and null count: no buffer when
// every value is valid.
func (b *bitsEnc) validity() (*memory.Buffer, int) {
	if b.zeros == 0 {
		return nil, 0
	}
	return b.buf(), b.zeros
}

func (b *bitsEnc) data() arrow.ArrayData {
	return array.NewData(boolean, b.n, []*memory.Buffer{nil, b.buf()}, nil, 0, 0)
}

type i64Enc struct {
	v     []int64
	valid bitsEnc
}

func (c *i64Enc) add(v int64) {
	c.v = append(c.v, v)
	c.valid.add(true)
}

func (c *i64Enc) addPtr(p *int64) {
	if p == nil {
		c.v = append(c.v, 0)
		c.valid.add(false)
		return
	}
	c.add(*p)
}

func (c *i64Enc) reset() { c.v = c.v[:0]; c.valid.reset() }

func (c *i64Enc) data() arrow.ArrayData {
	vb, nulls := c.valid.validity()
	return array.NewData(i64, len(c.v), []*memory.Buffer{vb, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(slices.Clone(c.v)))}, nil, nulls, 0)
}

type i32Enc struct{ v []int32 }

func (c *i32Enc) add(v int32) { c.v = append(c.v, v) }
func (c *i32Enc) reset()      { c.v = c.v[:0] }
func (c *i32Enc) data() arrow.ArrayData {
	return array.NewData(i32, len(c.v), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(slices.Clone(c.v)))}, nil, 0, 0)
}

// strEnc is a plain string column.
type strEnc struct {
	e    *encoder
	offs []int32
	data []byte
}

func (s *strEnc) add(v string) {
	s.data = append(s.data, v...)
	if len(s.data) > math.MaxInt32 {
		s.e.fail(errors.New("a string column of one batch exceeds 2 GiB"))
		s.data = s.data[:0]
	}
	s.offs = append(s.offs, int32(len(s.data)))
}

func (s *strEnc) reset() { s.offs, s.data = s.offs[:1], s.data[:0] }

func (s *strEnc) arrayData() arrow.ArrayData {
	return array.NewData(str, len(s.offs)-1, []*memory.Buffer{nil,
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(slices.Clone(s.offs))),
		memory.NewBufferBytes(slices.Clone(s.data))}, nil, 0, 0)
}

// binEnc is a nullable binary column (raw JSON): null is nil, empty empty.
type binEnc struct {
	e     *encoder
	offs  []int32
	data  []byte
	valid bitsEnc
}

func (e *encoder) bins() *binEnc { return leaf(e, &binEnc{e: e, offs: []int32{0}}) }

func (b *binEnc) add(v []byte) {
	b.data = append(b.data, v...)
	if len(b.data) > math.MaxInt32 {
		b.e.fail(errors.New("a binary column of one batch exceeds 2 GiB"))
		b.data = b.data[:0]
	}
	b.offs = append(b.offs, int32(len(b.data)))
	b.valid.add(v != nil)
}

func (b *binEnc) reset() { b.offs, b.data = b.offs[:1], b.data[:0]; b.valid.reset() }

func (b *binEnc) arrayData() arrow.ArrayData {
	vb, nulls := b.valid.validity()
	return array.NewData(bin, len(b.offs)-1, []*memory.Buffer{vb,
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(slices.Clone(b.offs))),
		memory.NewBufferBytes(slices.Clone(b.data))}, nil, nulls, 0)
}

// stringsData is a string array of vals.
func stringsData(vals []string) arrow.ArrayData {
	s := strEnc{e: &encoder{}, offs: []int32{0}}
	for _, v := range vals {
		s.add(v)
	}
	return s.arrayData()
}

// dictEnc is a dictionary-encoded string column: the dictionary (values in
// order of first appearance) spans the whole table, the indices one batch.
type dictEnc struct {
	ids  map[string]int32
	vals []string
	idx  []int32
	dict arrow.ArrayData // set by encoder.freeze
}

func (d *dictEnc) add(s string) {
	id, ok := d.ids[s]
	if !ok {
		id = int32(len(d.vals))
		d.ids[s] = id
		d.vals = append(d.vals, s)
	}
	d.idx = append(d.idx, id)
}

func (d *dictEnc) reset() { d.idx = d.idx[:0] }

func (d *dictEnc) data() arrow.ArrayData {
	return array.NewDataWithDictionary(dstr, len(d.idx), []*memory.Buffer{nil,
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(slices.Clone(d.idx)))}, 0, 0, d.dict.(*array.Data))
}

// listEnc is the offsets and validity of a list (or map) column; its
// elements are encoded by the caller.
type listEnc struct {
	e     *encoder
	offs  []int32
	valid bitsEnc
}

// add ends a row of n elements; present false is a null (nil) row.
func (l *listEnc) add(present bool, n int) {
	last := int64(l.offs[len(l.offs)-1]) + int64(n)
	if last > math.MaxInt32 {
		l.e.fail(errors.New("a list column of one batch exceeds 2^31 elements"))
		last = 0
	}
	l.offs = append(l.offs, int32(last))
	l.valid.add(present)
}

func (l *listEnc) reset() { l.offs = l.offs[:1]; l.valid.reset() }

func (l *listEnc) data(t arrow.DataType, child arrow.ArrayData) arrow.ArrayData {
	vb, nulls := l.valid.validity()
	return array.NewData(t, len(l.offs)-1, []*memory.Buffer{vb,
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(slices.Clone(l.offs)))}, []arrow.ArrayData{child}, nulls, 0)
}

// structData is a struct array of n rows over children.
func structData(t arrow.DataType, n int, valid *bitsEnc, children ...arrow.ArrayData) arrow.ArrayData {
	var vb *memory.Buffer
	nulls := 0
	if valid != nil {
		vb, nulls = valid.validity()
	}
	return array.NewData(t, n, []*memory.Buffer{vb}, children, nulls, 0)
}

// Composite encoders, one per nested model type.

// addList adds one row of list l: each element of v through elem; a nil v
// is a null row.
func addList[T any](l *listEnc, v []T, elem func(*T)) {
	for i := range v {
		elem(&v[i])
	}
	l.add(v != nil, len(v))
}

// labelsEnc encodes a map[string]string as map<dict, dict>, keys sorted.
type labelsEnc struct {
	list       *listEnc
	keys, vals *dictEnc
	scratch    []string
}

func newLabelsEnc(e *encoder) *labelsEnc {
	return &labelsEnc{list: e.list(), keys: e.dict(), vals: e.dict()}
}

func (m *labelsEnc) add(lbl map[string]string) {
	if lbl == nil {
		m.list.add(false, 0)
		return
	}
	m.scratch = sortedKeys(lbl, m.scratch)
	for _, k := range m.scratch {
		m.keys.add(k)
		m.vals.add(lbl[k])
	}
	m.list.add(true, len(lbl))
}

func (m *labelsEnc) data() arrow.ArrayData {
	entries := structData(labelsT.Elem(), len(m.keys.idx), nil, m.keys.data(), m.vals.data())
	return m.list.data(labelsT, entries)
}

// sortedKeys returns the keys of m in order, in buf's storage.
func sortedKeys[V any](m map[string]V, buf []string) []string {
	buf = buf[:0]
	for k := range m {
		buf = append(buf, k)
	}
	slices.Sort(buf)
	return buf
}

// countsEnc encodes SkippedKinds as map<string, int64>, keys sorted.
type countsEnc struct {
	list *listEnc
	keys *strEnc
	vals *i64Enc
}

func newCountsEnc(e *encoder) *countsEnc {
	return &countsEnc{list: e.list(), keys: e.strs(), vals: e.i64s()}
}

func (c *countsEnc) add(m map[string]int) {
	if m == nil {
		c.list.add(false, 0)
		return
	}
	keys := sortedKeys(m, nil)
	for _, k := range keys {
		c.keys.add(k)
		c.vals.add(int64(m[k]))
	}
	c.list.add(true, len(keys))
}

func (c *countsEnc) data() arrow.ArrayData {
	entries := structData(countsT.Elem(), len(c.vals.v), nil, c.keys.arrayData(), c.vals.data())
	return c.list.data(countsT, entries)
}

// strsEnc encodes a []string as list<dict>.
type strsEnc struct {
	list *listEnc
	vals *dictEnc
}

func newStrsEnc(e *encoder) *strsEnc { return &strsEnc{list: e.list(), vals: e.dict()} }

func (s *strsEnc) add(v []string) { addList(s.list, v, func(x *string) { s.vals.add(*x) }) }

func (s *strsEnc) data() arrow.ArrayData { return s.list.data(strsT, s.vals.data()) }

// reqsEnc encodes []index.Requirement.
type reqsEnc struct {
	list          *listEnc
	key, operator *dictEnc
	values        *strsEnc
}

func newReqsEnc(e *encoder) *reqsEnc {
	return &reqsEnc{list: e.list(), key: e.dict(), operator: e.dict(), values: newStrsEnc(e)}
}

func (r *reqsEnc) add(reqs []index.Requirement) {
	addList(r.list, reqs, func(q *index.Requirement) {
		r.key.add(q.Key)
		r.operator.add(q.Operator)
		r.values.add(q.Values)
	})
}

func (r *reqsEnc) data() arrow.ArrayData {
	elems := structData(reqT, len(r.key.idx), nil, r.key.data(), r.operator.data(), r.values.data())
	return r.list.data(reqsT, elems)
}

// termEnc encodes one index.NodeSelectorTerm (a struct, never null).
type termEnc struct {
	exprs, fields *reqsEnc
}

func newTermEnc(e *encoder) *termEnc {
	return &termEnc{exprs: newReqsEnc(e), fields: newReqsEnc(e)}
}

func (t *termEnc) add(term *index.NodeSelectorTerm) {
	t.exprs.add(term.MatchExpressions)
	t.fields.add(term.MatchFields)
}

func (t *termEnc) data() arrow.ArrayData {
	return structData(termT, len(t.exprs.list.offs)-1, nil, t.exprs.data(), t.fields.data())
}

// termsEnc encodes []index.NodeSelectorTerm.
type termsEnc struct {
	list *listEnc
	term *termEnc
}

func newTermsEnc(e *encoder) *termsEnc { return &termsEnc{list: e.list(), term: newTermEnc(e)} }

func (t *termsEnc) add(terms []index.NodeSelectorTerm) { addList(t.list, terms, t.term.add) }

func (t *termsEnc) data() arrow.ArrayData { return t.list.data(termsT, t.term.data()) }

// prefsEnc encodes []index.PreferredTerm.
type prefsEnc struct {
	list   *listEnc
	weight *i32Enc
	term   *termEnc
}

func newPrefsEnc(e *encoder) *prefsEnc {
	return &prefsEnc{list: e.list(), weight: e.i32s(), term: newTermEnc(e)}
}

func (p *prefsEnc) add(prefs []index.PreferredTerm) {
	addList(p.list, prefs, func(pt *index.PreferredTerm) {
		p.weight.add(pt.Weight)
		p.term.add(&pt.Term)
	})
}

func (p *prefsEnc) data() arrow.ArrayData {
	return p.list.data(prefsT, structData(prefT, len(p.weight.v), nil, p.weight.data(), p.term.data()))
}

// taintsEnc encodes []index.Taint.
type taintsEnc struct {
	list               *listEnc
	key, value, effect *dictEnc
}

func newTaintsEnc(e *encoder) *taintsEnc {
	return &taintsEnc{list: e.list(), key: e.dict(), value: e.dict(), effect: e.dict()}
}

func (t *taintsEnc) add(taints []index.Taint) {
	addList(t.list, taints, func(tn *index.Taint) {
		t.key.add(tn.Key)
		t.value.add(tn.Value)
		t.effect.add(tn.Effect)
	})
}

func (t *taintsEnc) data() arrow.ArrayData {
	return t.list.data(taintsT, structData(taintT, len(t.key.idx), nil, t.key.data(), t.value.data(), t.effect.data()))
}

// imagesEnc encodes []index.NodeImage.
type imagesEnc struct {
	list  *listEnc
	names *strsEnc
	size  *i64Enc
}

func newImagesEnc(e *encoder) *imagesEnc {
	return &imagesEnc{list: e.list(), names: newStrsEnc(e), size: e.i64s()}
}

func (t *imagesEnc) add(images []index.NodeImage) {
	addList(t.list, images, func(im *index.NodeImage) {
		t.names.add(im.Names)
		t.size.add(im.Size)
	})
}

func (t *imagesEnc) data() arrow.ArrayData {
	return t.list.data(imagesT, structData(imageT, len(t.size.v), nil, t.names.data(), t.size.data()))
}

// tolsEnc encodes []index.Toleration.
type tolsEnc struct {
	list                         *listEnc
	key, operator, value, effect *dictEnc
	seconds                      *i64Enc
}

func newTolsEnc(e *encoder) *tolsEnc {
	return &tolsEnc{list: e.list(), key: e.dict(), operator: e.dict(), value: e.dict(), effect: e.dict(), seconds: e.i64s()}
}

func (t *tolsEnc) add(tols []index.Toleration) {
	addList(t.list, tols, func(tl *index.Toleration) {
		t.key.add(tl.Key)
		t.operator.add(tl.Operator)
		t.value.add(tl.Value)
		t.effect.add(tl.Effect)
		t.seconds.addPtr(tl.TolerationSeconds)
	})
}

func (t *tolsEnc) data() arrow.ArrayData {
	return t.list.data(tolsT, structData(tolT, len(t.key.idx), nil,
		t.key.data(), t.operator.data(), t.value.data(), t.effect.data(), t.seconds.data()))
}

// resourcesEnc encodes an index.ResourceList.
type resourcesEnc struct {
	list  *listEnc
	name  *dictEnc
	value *i64Enc
}

func newResourcesEnc(e *encoder) *resourcesEnc {
	return &resourcesEnc{list: e.list(), name: e.dict(), value: e.i64s()}
}

func (r *resourcesEnc) add(l index.ResourceList) {
	addList(r.list, l, func(q *index.Quantity) {
		r.name.add(q.Name)
		r.value.add(q.Value)
	})
}

func (r *resourcesEnc) data() arrow.ArrayData {
	return r.list.data(resourcesT, structData(qtyT, len(r.name.idx), nil, r.name.data(), r.value.data()))
}

// hostPortsEnc encodes []index.HostPort.
type hostPortsEnc struct {
	list             *listEnc
	hostIP, protocol *dictEnc
	port             *i32Enc
}

func newHostPortsEnc(e *encoder) *hostPortsEnc {
	return &hostPortsEnc{list: e.list(), hostIP: e.dict(), protocol: e.dict(), port: e.i32s()}
}

func (h *hostPortsEnc) add(ports []index.HostPort) {
	addList(h.list, ports, func(p *index.HostPort) {
		h.hostIP.add(p.HostIP)
		h.protocol.add(p.Protocol)
		h.port.add(p.Port)
	})
}

func (h *hostPortsEnc) data() arrow.ArrayData {
	return h.list.data(hostPortsT, structData(hostPortT, len(h.port.v), nil, h.hostIP.data(), h.protocol.data(), h.port.data()))
}

// ownerEnc encodes a *index.OwnerRef (null when nil).
type ownerEnc struct {
	valid                  *bitsEnc
	kind, name, apiVersion *dictEnc
	uid                    *strEnc
}

func newOwnerEnc(e *encoder) *ownerEnc {
	return &ownerEnc{valid: e.valid(), kind: e.dict(), name: e.dict(), apiVersion: e.dict(), uid: e.strs()}
}

func (o *ownerEnc) add(r *index.OwnerRef) {
	o.valid.add(r != nil)
	if r == nil {
		r = &index.OwnerRef{}
	}
	o.kind.add(r.Kind)
	o.name.add(r.Name)
	o.apiVersion.add(r.APIVersion)
	o.uid.add(r.UID)
}

func (o *ownerEnc) data() arrow.ArrayData {
	return structData(ownerT, o.valid.n, o.valid, o.kind.data(), o.name.data(), o.apiVersion.data(), o.uid.arrayData())
}

// selectorEnc encodes a *index.LabelSelector (null when nil).
type selectorEnc struct {
	valid  *bitsEnc
	labels *labelsEnc
	exprs  *reqsEnc
}

func newSelectorEnc(e *encoder) *selectorEnc {
	return &selectorEnc{valid: e.valid(), labels: newLabelsEnc(e), exprs: newReqsEnc(e)}
}

func (s *selectorEnc) add(sel *index.LabelSelector) {
	s.valid.add(sel != nil)
	if sel == nil {
		sel = &index.LabelSelector{}
	}
	s.labels.add(sel.MatchLabels)
	s.exprs.add(sel.MatchExpressions)
}

func (s *selectorEnc) data() arrow.ArrayData {
	return structData(selectorT, s.valid.n, s.valid, s.labels.data(), s.exprs.data())
}

// spreadsEnc encodes []index.SpreadConstraint.
type spreadsEnc struct {
	list                                *listEnc
	maxSkew, minDomains                 *i32Enc
	topologyKey, when, nodeAff, nodeTnt *dictEnc
	selector                            *selectorEnc
	matchKeys                           *strsEnc
}

func newSpreadsEnc(e *encoder) *spreadsEnc {
	return &spreadsEnc{list: e.list(), maxSkew: e.i32s(), topologyKey: e.dict(), when: e.dict(), selector: newSelectorEnc(e),
		minDomains: e.i32s(), matchKeys: newStrsEnc(e), nodeAff: e.dict(), nodeTnt: e.dict()}
}

func (s *spreadsEnc) add(cs []index.SpreadConstraint) {
	addList(s.list, cs, func(c *index.SpreadConstraint) {
		s.maxSkew.add(c.MaxSkew)
		s.topologyKey.add(c.TopologyKey)
		s.when.add(c.WhenUnsatisfiable)
		s.selector.add(c.Selector)
		s.minDomains.add(c.MinDomains)
		s.matchKeys.add(c.MatchLabelKeys)
		s.nodeAff.add(c.NodeAffinityPolicy)
		s.nodeTnt.add(c.NodeTaintsPolicy)
	})
}

func (s *spreadsEnc) data() arrow.ArrayData {
	return s.list.data(spreadsT, structData(spreadT, len(s.maxSkew.v), nil, s.maxSkew.data(), s.topologyKey.data(),
		s.when.data(), s.selector.data(), s.minDomains.data(), s.matchKeys.data(), s.nodeAff.data(), s.nodeTnt.data()))
}

// podTermEnc encodes one index.PodAffinityTerm (a struct, never null).
type podTermEnc struct {
	selector, nsSelector                *selectorEnc
	namespaces, matchKeys, mismatchKeys *strsEnc
	topologyKey                         *dictEnc
}

func newPodTermEnc(e *encoder) *podTermEnc {
	return &podTermEnc{selector: newSelectorEnc(e), namespaces: newStrsEnc(e), nsSelector: newSelectorEnc(e),
		topologyKey: e.dict(), matchKeys: newStrsEnc(e), mismatchKeys: newStrsEnc(e)}
}

func (t *podTermEnc) add(term *index.PodAffinityTerm) {
	t.selector.add(term.Selector)
	t.namespaces.add(term.Namespaces)
	t.nsSelector.add(term.NamespaceSelector)
	t.topologyKey.add(term.TopologyKey)
	t.matchKeys.add(term.MatchLabelKeys)
	t.mismatchKeys.add(term.MismatchLabelKeys)
}

func (t *podTermEnc) data() arrow.ArrayData {
	return structData(podTermT, len(t.topologyKey.idx), nil, t.selector.data(), t.namespaces.data(), t.nsSelector.data(),
		t.topologyKey.data(), t.matchKeys.data(), t.mismatchKeys.data())
}

// podTermsEnc encodes []index.PodAffinityTerm.
type podTermsEnc struct {
	list *listEnc
	term *podTermEnc
}

func newPodTermsEnc(e *encoder) *podTermsEnc {
	return &podTermsEnc{list: e.list(), term: newPodTermEnc(e)}
}

func (t *podTermsEnc) add(terms []index.PodAffinityTerm) { addList(t.list, terms, t.term.add) }

func (t *podTermsEnc) data() arrow.ArrayData { return t.list.data(podTermsT, t.term.data()) }

// wPodTermsEnc encodes []index.WeightedPodAffinityTerm.
type wPodTermsEnc struct {
	list   *listEnc
	weight *i32Enc
	term   *podTermEnc
}

func newWPodTermsEnc(e *encoder) *wPodTermsEnc {
	return &wPodTermsEnc{list: e.list(), weight: e.i32s(), term: newPodTermEnc(e)}
}

func (w *wPodTermsEnc) add(terms []index.WeightedPodAffinityTerm) {
	addList(w.list, terms, func(t *index.WeightedPodAffinityTerm) {
		w.weight.add(t.Weight)
		w.term.add(&t.Term)
	})
}

func (w *wPodTermsEnc) data() arrow.ArrayData {
	return w.list.data(wPodTermsT, structData(wPodTermT, len(w.weight.v), nil, w.weight.data(), w.term.data()))
}

// Table encoders: one column encoder per field, in schema order.

type nodeEnc struct {
	rows          []index.Node
	name          *strEnc
	labels        *labelsEnc
	taints        *taintsEnc
	unschedulable *bitsEnc
	alloc         *resourcesEnc
	srcFile       *dictEnc
	srcLine       *i64Enc
	images        *imagesEnc
}

func newNodeEnc(e *encoder, rows []index.Node) *nodeEnc {
	return &nodeEnc{rows: rows, name: e.strs(), labels: newLabelsEnc(e), taints: newTaintsEnc(e),
		unschedulable: e.bools(), alloc: newResourcesEnc(e), srcFile: e.dict(), srcLine: e.i64s(), images: newImagesEnc(e)}
}

func (c *nodeEnc) row(i int) {
	n := &c.rows[i]
	c.name.add(n.Name)
	c.labels.add(n.Labels)
	c.taints.add(n.Taints)
	c.unschedulable.add(n.Unschedulable)
	c.alloc.add(n.Allocatable)
	c.srcFile.add(n.Src.File)
	c.srcLine.add(int64(n.Src.Line))
	c.images.add(n.Images)
}

func (c *nodeEnc) cols() []arrow.ArrayData {
	return []arrow.ArrayData{c.name.arrayData(), c.labels.data(), c.taints.data(), c.unschedulable.data(),
		c.alloc.data(), c.srcFile.data(), c.srcLine.data(), c.images.data()}
}

type podEnc struct {
	rows                                          []index.Pod
	namespace                                     *dictEnc
	name, uid, rejected                           *strEnc
	labels, nodeSelector                          *labelsEnc
	creation, start                               *i64Enc
	owner                                         *ownerEnc
	nodeName, schedulerName, preemption, unsupp   *dictEnc
	requests                                      *resourcesEnc
	scoreCPU, scoreMemory, nonZeroCPU, nonZeroMem *i64Enc
	tolerations                                   *tolsEnc
	required                                      *termsEnc
	hasRequired, gated                            *bitsEnc
	preferred                                     *prefsEnc
	hostPorts                                     *hostPortsEnc
	priority                                      *i32Enc
	gates                                         *strsEnc
	srcFile, priorityClass                        *dictEnc
	srcLine                                       *i64Enc
	spread                                        *spreadsEnc
	affinity, antiAffinity                        *podTermsEnc
	prefAffinity, prefAntiAffinity                *wPodTermsEnc
	images                                        *strsEnc
	imageContainers                               *i32Enc
}

func newPodEnc(e *encoder, rows []index.Pod) *podEnc {
	return &podEnc{rows: rows,
		namespace: e.dict(), name: e.strs(), uid: e.strs(), labels: newLabelsEnc(e),
		creation: e.i64s(), start: e.i64s(), owner: newOwnerEnc(e),
		nodeName: e.dict(), schedulerName: e.dict(), requests: newResourcesEnc(e),
		scoreCPU: e.i64s(), scoreMemory: e.i64s(), tolerations: newTolsEnc(e), nodeSelector: newLabelsEnc(e),
		required: newTermsEnc(e), hasRequired: e.bools(), preferred: newPrefsEnc(e), hostPorts: newHostPortsEnc(e),
		priority: e.i32s(), preemption: e.dict(), unsupp: e.dict(), gated: e.bools(), gates: newStrsEnc(e),
		rejected: e.strs(), srcFile: e.dict(), srcLine: e.i64s(), nonZeroCPU: e.i64s(), nonZeroMem: e.i64s(),
		priorityClass: e.dict(), spread: newSpreadsEnc(e), affinity: newPodTermsEnc(e), antiAffinity: newPodTermsEnc(e),
		prefAffinity: newWPodTermsEnc(e), prefAntiAffinity: newWPodTermsEnc(e), images: newStrsEnc(e), imageContainers: e.i32s()}
}

func (c *podEnc) row(i int) {
	p := &c.rows[i]
	c.namespace.add(p.Namespace)
	c.name.add(p.Name)
	c.uid.add(p.UID)
	c.labels.add(p.Labels)
	c.creation.add(p.CreationUnix)
	c.start.add(p.StartUnix)
	c.owner.add(p.Owner)
	c.nodeName.add(p.NodeName)
	c.schedulerName.add(p.SchedulerName)
	c.requests.add(p.Requests)
	c.scoreCPU.add(p.ScoreCPU)
	c.scoreMemory.add(p.ScoreMemory)
	c.tolerations.add(p.Tolerations)
	c.nodeSelector.add(p.NodeSelector)
	c.required.add(p.RequiredTerms)
	c.hasRequired.add(p.HasRequired)
	c.preferred.add(p.PreferredTerms)
	c.hostPorts.add(p.HostPorts)
	c.priority.add(p.Priority)
	c.preemption.add(p.PreemptionPolicy)
	c.unsupp.add(p.Unsupported)
	c.gated.add(p.Gated)
	c.gates.add(p.SchedulingGates)
	c.rejected.add(p.Rejected)
	c.srcFile.add(p.Src.File)
	c.srcLine.add(int64(p.Src.Line))
	c.nonZeroCPU.add(p.NonZeroCPU)
	c.nonZeroMem.add(p.NonZeroMemory)
	c.priorityClass.add(p.PriorityClassName)
	c.spread.add(p.Spread)
	c.affinity.add(p.Affinity)
	c.antiAffinity.add(p.AntiAffinity)
	c.prefAffinity.add(p.PreferredAffinity)
	c.prefAntiAffinity.add(p.PreferredAntiAffinity)
	c.images.add(p.Images)
	c.imageContainers.add(p.ImageContainers)
}

func (c *podEnc) cols() []arrow.ArrayData {
	return []arrow.ArrayData{c.namespace.data(), c.name.arrayData(), c.uid.arrayData(), c.labels.data(),
		c.creation.data(), c.start.data(), c.owner.data(), c.nodeName.data(), c.schedulerName.data(),
		c.requests.data(), c.scoreCPU.data(), c.scoreMemory.data(), c.tolerations.data(), c.nodeSelector.data(),
		c.required.data(), c.hasRequired.data(), c.preferred.data(), c.hostPorts.data(), c.priority.data(),
		c.preemption.data(), c.unsupp.data(), c.gated.data(), c.gates.data(), c.rejected.arrayData(),
		c.srcFile.data(), c.srcLine.data(), c.nonZeroCPU.data(), c.nonZeroMem.data(), c.priorityClass.data(),
		c.spread.data(), c.affinity.data(), c.antiAffinity.data(), c.prefAffinity.data(), c.prefAntiAffinity.data(),
		c.images.data(), c.imageContainers.data()}
}

type priorityClassEnc struct {
	rows          []index.PriorityClass
	name          *strEnc
	value         *i32Enc
	globalDefault *bitsEnc
	preemption    *dictEnc
}

func newPriorityClassEnc(e *encoder, rows []index.PriorityClass) *priorityClassEnc {
	return &priorityClassEnc{rows: rows, name: e.strs(), value: e.i32s(), globalDefault: e.bools(), preemption: e.dict()}
}

func (c *priorityClassEnc) row(i int) {
	pc := &c.rows[i]
	c.name.add(pc.Name)
	c.value.add(pc.Value)
	c.globalDefault.add(pc.GlobalDefault)
	c.preemption.add(pc.PreemptionPolicy)
}

func (c *priorityClassEnc) cols() []arrow.ArrayData {
	return []arrow.ArrayData{c.name.arrayData(), c.value.data(), c.globalDefault.data(), c.preemption.data()}
}

type pdbEnc struct {
	rows                                []index.PDB
	namespace, minAvailable, maxUnavail *dictEnc
	name                                *strEnc
	selector                            *selectorEnc
	allowed                             *i32Enc
}

func newPDBEnc(e *encoder, rows []index.PDB) *pdbEnc {
	return &pdbEnc{rows: rows, namespace: e.dict(), name: e.strs(), selector: newSelectorEnc(e),
		minAvailable: e.dict(), maxUnavail: e.dict(), allowed: e.i32s()}
}

func (c *pdbEnc) row(i int) {
	p := &c.rows[i]
	c.namespace.add(p.Namespace)
	c.name.add(p.Name)
	c.selector.add(p.Selector)
	c.minAvailable.add(p.MinAvailable)
	c.maxUnavail.add(p.MaxUnavailable)
	c.allowed.add(p.DisruptionsAllowed)
}

func (c *pdbEnc) cols() []arrow.ArrayData {
	return []arrow.ArrayData{c.namespace.data(), c.name.arrayData(), c.selector.data(), c.minAvailable.data(),
		c.maxUnavail.data(), c.allowed.data()}
}

type namespaceEnc struct {
	rows   []index.Namespace
	name   *strEnc
	labels *labelsEnc
}

func newNamespaceEnc(e *encoder, rows []index.Namespace) *namespaceEnc {
	return &namespaceEnc{rows: rows, name: e.strs(), labels: newLabelsEnc(e)}
}

func (c *namespaceEnc) row(i int) {
	c.name.add(c.rows[i].Name)
	c.labels.add(c.rows[i].Labels)
}

func (c *namespaceEnc) cols() []arrow.ArrayData {
	return []arrow.ArrayData{c.name.arrayData(), c.labels.data()}
}

type workloadEnc struct {
	rows                                                  []index.Workload
	kind, namespace, serviceName, srcFile                 *dictEnc
	name, uid, completedIndexes, failedIndexes, updateRev *strEnc
	selector                                              *selectorEnc
	owner                                                 *ownerEnc
	creation, templateGen, srcLine                        *i64Enc
	replicas, parallelism, completions, succeeded         *i32Enc
	ordinalsStart, collisionCount                         *i32Enc
	indexed, suspend, manualSelector, finished            *bitsEnc
	template, claimTemplates                              *binEnc
}

func newWorkloadEnc(e *encoder, rows []index.Workload) *workloadEnc {
	return &workloadEnc{rows: rows, kind: e.dict(), namespace: e.dict(), name: e.strs(), selector: newSelectorEnc(e),
		uid: e.strs(), owner: newOwnerEnc(e), creation: e.i64s(), replicas: e.i32s(), parallelism: e.i32s(),
		completions: e.i32s(), indexed: e.bools(), suspend: e.bools(), manualSelector: e.bools(), finished: e.bools(),
		succeeded: e.i32s(), completedIndexes: e.strs(), failedIndexes: e.strs(), ordinalsStart: e.i32s(),
		serviceName: e.dict(), updateRev: e.strs(), collisionCount: e.i32s(), templateGen: e.i64s(),
		template: e.bins(), claimTemplates: e.bins(), srcFile: e.dict(), srcLine: e.i64s()}
}

func (c *workloadEnc) row(i int) {
	w := &c.rows[i]
	c.kind.add(w.Kind)
	c.namespace.add(w.Namespace)
	c.name.add(w.Name)
	c.selector.add(w.Selector)
	c.uid.add(w.UID)
	c.owner.add(w.Owner)
	c.creation.add(w.CreationUnix)
	c.replicas.add(w.Replicas)
	c.parallelism.add(w.Parallelism)
	c.completions.add(w.Completions)
	c.indexed.add(w.Indexed)
	c.suspend.add(w.Suspend)
	c.manualSelector.add(w.ManualSelector)
	c.finished.add(w.Finished)
	c.succeeded.add(w.Succeeded)
	c.completedIndexes.add(w.CompletedIndexes)
	c.failedIndexes.add(w.FailedIndexes)
	c.ordinalsStart.add(w.OrdinalsStart)
	c.serviceName.add(w.ServiceName)
	c.updateRev.add(w.UpdateRevision)
	c.collisionCount.add(w.CollisionCount)
	c.templateGen.add(w.TemplateGeneration)
	c.template.add(w.Template)
	c.claimTemplates.add(w.ClaimTemplates)
	c.srcFile.add(w.Src.File)
	c.srcLine.add(int64(w.Src.Line))
}

func (c *workloadEnc) cols() []arrow.ArrayData {
	return []arrow.ArrayData{c.kind.data(), c.namespace.data(), c.name.arrayData(), c.selector.data(),
		c.uid.arrayData(), c.owner.data(), c.creation.data(), c.replicas.data(), c.parallelism.data(),
		c.completions.data(), c.indexed.data(), c.suspend.data(), c.manualSelector.data(), c.finished.data(),
		c.succeeded.data(), c.completedIndexes.arrayData(), c.failedIndexes.arrayData(), c.ordinalsStart.data(),
		c.serviceName.data(), c.updateRev.arrayData(), c.collisionCount.data(), c.templateGen.data(),
		c.template.arrayData(), c.claimTemplates.arrayData(), c.srcFile.data(), c.srcLine.data()}
}
