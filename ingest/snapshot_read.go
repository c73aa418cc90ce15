package ingest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/cespare/xxhash/v2"
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/kplace/kplace/index"
)

// Decoding a snapshot: the Arrow IPC messages are framed by msgReader
// (which hashes every byte and bounds every allocation), decoded into
// Arrow arrays by the ipc package, validated (checkArray: offsets, indices
// and lengths within their buffers, so no corrupt column can make the
// decoder index out of range or allocate more than the file holds), and
// converted column by column into the model: repeated strings through the
// dictionaries, each distinct string interned once; the nested lists of a
// batch share one backing array per column.

// Limits on what a snapshot may ask the decoder to allocate.
var (
	// snapMaxMessage bounds one IPC message's metadata and body, and one
	// decompressed buffer.
	snapMaxMessage int64 = 1 << 30
	// snapMaxPrealloc bounds the rows preallocated from the snapshot
	// table's counts (a table longer than that grows as it is read).
	snapMaxPrealloc = 1 << 22
)

// arrowStreamMagic starts every Arrow IPC stream (the continuation
// marker of its first message), and so every snapshot; arrowFileMagic
// starts an Arrow IPC file, which kplace does not read.
var (
	arrowStreamMagic = []byte{0xff, 0xff, 0xff, 0xff}
	arrowFileMagic   = []byte("ARROW1")
)

// snapError is a decoding failure, raised by panic inside the decoder and
// turned into an *Error by decodeSnapshot.
type snapError struct{ msg string }

// snapDecoder decodes one snapshot.
type snapDecoder struct {
	file  string
	mr    *msgReader
	mem   memory.Allocator
	table string      // the table being read, for errors
	rd    *ipc.Reader // its reader
	par   int
	sem   chan struct{} // a slot per batch being filled, par in all
	// filling holds, in file order, a wait for the tables whose batches
	// may still be filled (readRows).
	filling []func()
	sums    map[string]string // checksum of each table read

	strs  map[string]string            // interned strings
	dicts map[arrow.ArrayData][]string // dictionary arrays, as interned strings
}

// decodeSnapshot reads a snapshot from r, which starts at its first byte.
// It returns the model and the recorded admission-defaults setting.
func decodeSnapshot(file string, r io.Reader, parallelism int) (in *index.Input, admission bool, err error) {
	d := &snapDecoder{
		file: file,
		mr:   &msgReader{r: r, h: xxhash.New()},
		mem:  &capAllocator{max: snapMaxMessage},
		par:  parallelism,
		sums: map[string]string{},
		strs: make(map[string]string, 256),
		// The memo of each stream keeps its dictionaries for all its batches.
		dicts: map[arrow.ArrayData][]string{},
	}
	if d.par <= 0 {
		d.par = runtime.GOMAXPROCS(0)
	}
	d.sem = make(chan struct{}, d.par)
	defer d.mr.inf.close()
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		in = nil
		msg := ""
		switch p := p.(type) {
		case snapError:
			msg = p.msg
		default:
			// A corrupt buffer the validation did not catch (the arrow
			// package panics on some): still an input error.
			msg = "corrupt snapshot: " + panicDetail(p)
		}
		if d.table != "" {
			msg = fmt.Sprintf("snapshot table %q: %s", d.table, msg)
		}
		err = &Error{File: file, Msg: msg}
	}()
	in, admission = d.decode()
	return in, admission, nil
}

func (d *snapDecoder) fail(format string, args ...any) {
	panic(snapError{fmt.Sprintf(format, args...)})
}

// decode reads the tables in file order. A table's last batches are
// filled while the next tables are read; a failure waits for the fills
// before it, and the first table's that failed is the one reported, as
// when each table was read to its end before the next.
func (d *snapDecoder) decode() (*index.Input, bool) {
	defer func() {
		if p := recover(); p != nil {
			d.waitFills()
			panic(p)
		}
	}()
	in := &index.Input{}
	hdr := d.header(in)
	in.Nodes = readRows(d, tblNodes, nodeFields, hdr.counts[0], decodeNodes)
	in.Pods = readRows(d, tblPods, podFields, hdr.counts[1], decodePods)
	in.PriorityClasses = readRows(d, tblPriorityClasses, priorityClassFields, hdr.counts[2], decodePriorityClasses)
	in.PDBs = readRows(d, tblPDBs, pdbFields, hdr.counts[3], decodePDBs)
	in.Namespaces = readRows(d, tblNamespaces, namespaceFields, hdr.counts[4], decodeNamespaces)
	in.Workloads = readRows(d, tblWorkloads, workloadFields, hdr.counts[5], decodeWorkloads)
	d.waitFills()

	md := d.open(tblChecksum, nil)
	if d.rd.Next() {
		d.fail("unexpected rows")
	}
	d.endTable()
	for _, t := range append([]string{tblSnapshot}, headerCounts...) {
		want := md[metaChecksum+"."+t]
		if got := d.sums[t]; got != want {
			d.table = t
			d.fail("checksum mismatch (the file is corrupt): recorded %q, computed %s", want, got)
		}
	}
	d.table = ""
	var one [1]byte
	if n, _ := io.ReadFull(d.mr.r, one[:]); n > 0 {
		d.fail("unexpected data after the snapshot at byte %d", d.mr.pos)
	}
	return in, hdr.admission
}

// snapHeader is the snapshot table's row.
type snapHeader struct {
	admission bool
	counts    [6]int // rows per table; -1 for a nil slice
}

func (d *snapDecoder) header(in *index.Input) snapHeader {
	md := d.open(tblSnapshot, snapshotFields)
	var h snapHeader
	rows := 0
	for d.rd.Next() {
		rec := d.rd.Record()
		c := d.columns(rec, snapshotFields)
		for i := 0; i < int(rec.NumRows()); i++ {
			rows++
			if rows > 1 {
				d.fail("more than one row")
			}
			h.admission = d.bools(c.col("admission_defaults")).at(i)
			in.OtherScheduler = int(d.i64s(c.col("other_scheduler")).v[i])
			in.FinishedPods = int(d.i64s(c.col("finished_pods")).v[i])
			skipped := d.counts(c.col("skipped_kinds"))
			in.SkippedKinds = skipped.at(i)
			for k, name := range headerCounts {
				col := d.i64s(c.col(name))
				h.counts[k] = int(col.v[i])
				if !col.valid.ok(i) {
					h.counts[k] = -1
				} else if h.counts[k] < 0 {
					d.fail("negative row count for %s", name)
				}
			}
		}
	}
	d.endTable()
	if rows != 1 {
		d.fail("holds %d rows, want 1", rows)
	}
	if rec := md[metaAdmission]; rec != strconv.FormatBool(h.admission) {
		d.fail("metadata %s=%q disagrees with column admission_defaults=%t", metaAdmission, rec, h.admission)
	}
	d.table = ""
	return h
}

// open starts reading the next stream, which must be table name with the
// given columns, and returns its schema metadata. The schema message is
// checked before the ipc package parses it (a corrupt one could make it
// allocate without bound): its metadata is read here, with bounds checks,
// and the message must be byte for byte the one this kplace writes for
// that metadata.
func (d *snapDecoder) open(name string, fields []arrow.Field) map[string]string {
	first := d.mr.pos == 0
	d.table = name
	d.mr.h.Reset()
	msg, err := d.mr.Message()
	if err != nil {
		if first {
			d.table = ""
			d.fail("not a kplace snapshot (an Arrow IPC stream was expected): %v", err)
		}
		if err == io.EOF {
			d.fail("an end-of-stream marker where the table belongs (corrupt?)")
		}
		d.fail("%v", err)
	}
	keys, vals, ok := schemaMetadata(d.mr.meta)
	if !ok || msg.Type() != ipc.MessageSchema {
		if first {
			d.table = ""
			d.fail("not a kplace snapshot (the first message is not an Arrow schema)")
		}
		d.fail("the table's first message at byte %d is not a valid schema (corrupt?)", d.mr.pos)
	}
	md := make(map[string]string, len(keys))
	for i, k := range keys {
		md[k] = vals[i]
	}
	if f := md[metaFormat]; f != formatName {
		d.table = ""
		d.fail("an Arrow IPC stream but not a kplace snapshot (schema metadata %s=%q, want %q)", metaFormat, f, formatName)
	}
	if v := md[metaVersion]; v != strconv.Itoa(SnapshotVersion) {
		d.table = ""
		d.fail("snapshot format version %q; this kplace reads version %d (convert the original input again with this kplace)", v, SnapshotVersion)
	}
	if t := md[metaTable]; t != name {
		d.fail("found table %q where table %q belongs", t, name)
	}
	am := arrow.NewMetadata(keys, vals)
	if !bytes.Equal(schemaMessage(arrow.NewSchema(fields, &am)), d.mr.meta) {
		d.fail("the schema differs from format version %d's (corrupt, or not written by kplace convert)", SnapshotVersion)
	}
	d.rd, err = ipc.NewReaderFromMessageReader(&pushback{msg, d.mr}, ipc.WithAllocator(d.mem))
	if err != nil {
		d.fail("%v", err)
	}
	return md
}

// schemaMessage is the metadata of the schema message the ipc package
// writes for s.
func schemaMessage(s *arrow.Schema) []byte {
	var b bytes.Buffer
	w := ipc.NewWriter(&b, ipc.WithSchema(s))
	if err := w.Close(); err != nil {
		panic(err)
	}
	buf := b.Bytes()
	n := binary.LittleEndian.Uint32(buf[4:8])
	return buf[8 : 8+n]
}

// schemaMetadata reads the custom metadata of a schema message's
// flatbuffer, checking every offset; ok is false when meta is not a
// well-formed schema message.
func schemaMetadata(meta []byte) (keys, vals []string, ok bool) {
	defer func() {
		if recover() != nil {
			keys, vals, ok = nil, nil, false
		}
	}()
	// Arrow's Message.fbs: table Message {version: short; header: union
	// MessageHeader (header_type 1 = Schema); bodyLength: long;
	// custom_metadata}; Schema.fbs: table Schema {endianness; fields;
	// custom_metadata: [KeyValue]; features}; table KeyValue {key: string;
	// value: string}. A field's vtable slot is 4 + 2*id.
	if len(meta) < 8 {
		return nil, nil, false
	}
	root := flatbuffers.GetUOffsetT(meta)
	msg := flatbuffers.Table{Bytes: meta, Pos: root}
	if o := msg.Offset(fbMessageHeaderType); o == 0 || msg.GetByte(msg.Pos+flatbuffers.UOffsetT(o)) != headerSchema {
		return nil, nil, false
	}
	o := msg.Offset(fbMessageHeader)
	if o == 0 {
		return nil, nil, false
	}
	sch := flatbuffers.Table{Bytes: meta, Pos: msg.Indirect(msg.Pos + flatbuffers.UOffsetT(o))}
	o = sch.Offset(8)
	if o == 0 {
		return nil, nil, true
	}
	vec := sch.Vector(flatbuffers.UOffsetT(o))
	n := sch.VectorLen(flatbuffers.UOffsetT(o))
	if n < 0 || n > len(meta)/4 {
		return nil, nil, false
	}
	for i := 0; i < n; i++ {
		kv := flatbuffers.Table{Bytes: meta, Pos: sch.Indirect(vec + flatbuffers.UOffsetT(4*i))}
		ko, vo := kv.Offset(4), kv.Offset(6)
		if ko == 0 || vo == 0 {
			return nil, nil, false
		}
		keys = append(keys, strings.Clone(kv.String(kv.Pos+flatbuffers.UOffsetT(ko))))
		vals = append(vals, strings.Clone(kv.String(kv.Pos+flatbuffers.UOffsetT(vo))))
	}
	return keys, vals, true
}

// pushback returns msg, then reads on from mr.
type pushback struct {
	msg *ipc.Message
	mr  *msgReader
}

func (p *pushback) Message() (*ipc.Message, error) {
	if m := p.msg; m != nil {
		p.msg = nil
		return m, nil
	}
	return p.mr.Message()
}

func (p *pushback) Retain()  {}
func (p *pushback) Release() {}

// endTable checks that the current stream ended cleanly (its end-of-stream
// marker read) and records its checksum.
func (d *snapDecoder) endTable() {
	if err := d.rd.Err(); err != nil {
		var me msgError
		if errors.As(err, &me) {
			d.fail("%s", me.msg)
		}
		msg := strings.TrimPrefix(err.Error(), "arrow/ipc: ")
		if strings.Contains(msg, "runtime error") { // the reader's recovered panic
			msg = "its offsets or lengths are inconsistent"
		}
		d.fail("corrupt data (%s)", msg)
	}
	if !d.mr.eos {
		d.fail("stream ends without its end-of-stream marker")
	}
	d.sums[d.table] = fmt.Sprintf("%016x", d.mr.h.Sum64())
}

// waitFills waits for the batches of the tables read so far to be
// filled, and panics with the first table's failure, if any.
func (d *snapDecoder) waitFills() {
	for len(d.filling) > 0 {
		w := d.filling[0]
		d.filling = d.filling[1:]
		w()
	}
}

// readRows reads table name (want rows; -1: a nil slice). prepare runs on
// the reading goroutine (validated views, dictionaries); the function it
// returns fills a batch's rows and may run on any goroutine. The rows may
// still be being filled when it returns: they are all filled once
// waitFills returns.
func readRows[T any](d *snapDecoder, name string, fields []arrow.Field, want int,
	prepare func(*snapDecoder, cols) func(dst []T)) []T {
	d.open(name, fields)
	var out []T
	if want >= 0 {
		out = make([]T, 0, min(want, snapMaxPrealloc))
	}
	var (
		wg   sync.WaitGroup
		sem  = d.sem
		mu   sync.Mutex
		perr any
	)
	wait := func() {
		wg.Wait()
		if perr != nil {
			d.table = name
			panic(perr)
		}
	}
	d.filling = append(d.filling, wait)
	for d.rd.Next() {
		rec := d.rd.Record()
		n := int(rec.NumRows())
		fill := prepare(d, d.columns(rec, fields))
		start := len(out)
		if cap(out)-start < n {
			d.waitFills() // workers write into out
			out = slices.Grow(out, n)
			d.filling = append(d.filling, wait)
		}
		out = out[:start+n]
		dst := out[start:]
		if d.par == 1 {
			fill(dst)
			continue
		}
		rec.Retain()
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() {
				if p := recover(); p != nil {
					mu.Lock()
					if perr == nil {
						perr = p
					}
					mu.Unlock()
				}
				rec.Release()
				<-sem
				wg.Done()
			}()
			fill(dst)
		}()
	}
	d.endTable()
	if got := len(out); (want < 0 && (out != nil || got != 0)) || (want >= 0 && got != want) {
		d.fail("holds %d rows; the snapshot table says %d", got, want)
	}
	d.table = ""
	return out
}

// cols is a validated record batch.
type cols struct {
	rec    arrow.Record
	fields []arrow.Field
}

func (c cols) col(name string) arrow.Array {
	for i := range c.fields {
		if c.fields[i].Name == name {
			return c.rec.Column(i)
		}
	}
	panic("ingest: no snapshot column " + name) // a bug, not bad input
}

// columns validates every column of rec.
func (d *snapDecoder) columns(rec arrow.Record, fields []arrow.Field) cols {
	n := rec.NumRows()
	if n < 0 || n > int64(snapshotBatchRowsMax) {
		d.fail("a record batch of %d rows", n)
	}
	for i, a := range rec.Columns() {
		if int64(a.Len()) != n {
			d.fail("column %s: %d values in a batch of %d rows", fields[i].Name, a.Len(), n)
		}
		if err := checkArray(a, fields[i].Nullable); err != nil {
			d.fail("column %s: %v", fields[i].Name, err)
		}
	}
	return cols{rec, fields}
}

// snapshotBatchRowsMax bounds the rows of one record batch in a file.
const snapshotBatchRowsMax = 1 << 20

// checkArray validates a for the types snapshots use: every length,
// offset and dictionary index within its buffers. nullable false refuses
// nulls.
func checkArray(a arrow.Array, nullable bool) error {
	data := a.Data()
	n, off := a.Len(), data.Offset()
	if n < 0 || off < 0 {
		return errors.New("negative length or offset")
	}
	if a.NullN() != 0 {
		if !nullable {
			return errors.New("nulls in a column without nulls")
		}
		if len(a.NullBitmapBytes()) < (off+n+7)/8 {
			return errors.New("validity bitmap too short")
		}
	}
	switch a := a.(type) {
	case *array.Boolean:
		if b := data.Buffers()[1]; b == nil || b.Len() < (off+n+7)/8 {
			return errors.New("boolean bitmap too short")
		}
	case *array.Int32:
		if len(a.Int32Values()) != n {
			return errors.New("values buffer too short")
		}
	case *array.Int64:
		if len(a.Int64Values()) != n {
			return errors.New("values buffer too short")
		}
	case *array.String, *array.Binary:
		if n > 0 {
			limit := 0
			if b := data.Buffers()[2]; b != nil {
				limit = b.Len()
			}
			offs := a.(interface{ ValueOffsets() []int32 }).ValueOffsets()
			if err := checkOffsets(offs, int64(limit)); err != nil {
				return err
			}
		}
	case *array.Dictionary:
		dict := a.Dictionary()
		if err := checkArray(dict, false); err != nil {
			return fmt.Errorf("dictionary: %w", err)
		}
		idx, ok := a.Indices().(*array.Int32)
		if !ok || len(idx.Int32Values()) != n {
			return errors.New("dictionary indices buffer too short")
		}
		m := int32(dict.Len())
		for _, x := range idx.Int32Values() {
			if x < 0 || x >= m {
				return fmt.Errorf("dictionary index %d out of range [0, %d)", x, m)
			}
		}
	case *array.Map:
		return checkList(a.List, off, n)
	case *array.List:
		return checkList(a, off, n)
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		for i := 0; i < a.NumField(); i++ {
			f := a.Field(i)
			if f.Len() != n {
				return fmt.Errorf("field %s: %d values for %d rows", st.Field(i).Name, f.Len(), n)
			}
			if err := checkArray(f, st.Field(i).Nullable); err != nil {
				return fmt.Errorf("field %s: %w", st.Field(i).Name, err)
			}
		}
	default:
		return fmt.Errorf("unexpected array type %s", a.DataType())
	}
	return nil
}

func checkList(a *array.List, off, n int) error {
	all := a.Offsets()
	if len(all) < off+n+1 {
		return errors.New("offsets buffer too short")
	}
	child := a.ListValues()
	if err := checkOffsets(all[off:off+n+1], int64(child.Len())); err != nil {
		return err
	}
	elem := a.DataType().(arrow.ListLikeType).ElemField()
	if err := checkArray(child, elem.Nullable); err != nil {
		return fmt.Errorf("elements: %w", err)
	}
	return nil
}

// checkOffsets checks that offs is non-decreasing within [0, limit].
func checkOffsets(offs []int32, limit int64) error {
	if offs[0] < 0 {
		return errors.New("negative offset")
	}
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] {
			return errors.New("decreasing offsets")
		}
	}
	if int64(offs[len(offs)-1]) > limit {
		return fmt.Errorf("offset %d beyond the %d values", offs[len(offs)-1], limit)
	}
	return nil
}

// Column views. Each is built from a validated array on the reading
// goroutine and read from any.

// validCol is a validity bitmap; all valid when bits is nil.
type validCol struct {
	bits []byte
	off  int
}

func validOf(a arrow.Array) validCol {
	if a.NullN() == 0 {
		return validCol{}
	}
	return validCol{a.NullBitmapBytes(), a.Data().Offset()}
}

func (v validCol) ok(i int) bool { return v.bits == nil || bit(v.bits, v.off+i) }

// bit is bit i of an Arrow bitmap (least significant bit first).
func bit(bits []byte, i int) bool { return bits[i>>3]&(1<<(i&7)) != 0 }

type i64Col struct {
	v     []int64
	valid validCol
}

func (d *snapDecoder) i64s(a arrow.Array) i64Col {
	return i64Col{a.(*array.Int64).Int64Values(), validOf(a)}
}

// ptr returns a pointer to value i (nil when null), allocated from slab.
func (c i64Col) ptr(i int, slab *[]int64) *int64 {
	if !c.valid.ok(i) {
		return nil
	}
	if len(*slab) == cap(*slab) {
		*slab = make([]int64, 0, 256)
	}
	*slab = append(*slab, c.v[i])
	return &(*slab)[len(*slab)-1]
}

func (d *snapDecoder) i32s(a arrow.Array) []int32 { return a.(*array.Int32).Int32Values() }

type boolCol struct {
	bits []byte
	off  int
}

func (d *snapDecoder) bools(a arrow.Array) boolCol {
	return boolCol{a.Data().Buffers()[1].Bytes(), a.Data().Offset()}
}

func (c boolCol) at(i int) bool { return bit(c.bits, c.off+i) }

// strCol is a plain string column, its bytes copied into one string.
type strCol struct {
	offs  []int32
	arena string
}

func (d *snapDecoder) plain(a arrow.Array) strCol {
	s := a.(*array.String)
	if s.Len() == 0 {
		return strCol{}
	}
	offs := s.ValueOffsets()
	return strCol{offs, string(s.Data().Buffers()[2].Bytes()[:offs[len(offs)-1]])}
}

func (c strCol) at(i int) string { return c.arena[c.offs[i]:c.offs[i+1]] }

// binCol is a nullable binary column, its bytes copied into one slice;
// each value is capped at its length.
type binCol struct {
	offs  []int32
	arena []byte
	valid validCol
}

func (d *snapDecoder) bins(a arrow.Array) binCol {
	b := a.(*array.Binary)
	if b.Len() == 0 {
		return binCol{}
	}
	offs := b.ValueOffsets()
	return binCol{offs, bytes.Clone(b.Data().Buffers()[2].Bytes()[:offs[len(offs)-1]]), validOf(a)}
}

// at returns value i: nil when null, empty (not nil) when empty.
func (c binCol) at(i int) []byte {
	if !c.valid.ok(i) {
		return nil
	}
	if c.offs[i] == c.offs[i+1] {
		return []byte{}
	}
	return c.arena[c.offs[i]:c.offs[i+1]:c.offs[i+1]]
}

// dictCol is a dictionary-encoded string column.
type dictCol struct {
	idx  []int32
	strs []string
}

func (d *snapDecoder) dict(a arrow.Array) dictCol {
	da := a.(*array.Dictionary)
	dict := da.Dictionary()
	strs, ok := d.dicts[dict.Data()]
	if !ok {
		sa := dict.(*array.String)
		strs = make([]string, sa.Len())
		for i := range strs {
			strs[i] = d.intern(sa.Value(i))
		}
		d.dicts[dict.Data()] = strs
	}
	return dictCol{da.Indices().(*array.Int32).Int32Values(), strs}
}

func (c dictCol) at(i int) string { return c.strs[c.idx[i]] }

// intern returns s, or the equal string seen before; s may point into an
// Arrow buffer, so new strings are copied.
func (d *snapDecoder) intern(s string) string {
	if v, ok := d.strs[s]; ok {
		return v
	}
	v := string([]byte(s))
	d.strs[v] = v
	return v
}

// listCol is the offsets and validity of a list or map column.
type listCol struct {
	offs  []int32
	valid validCol
}

func (d *snapDecoder) list(a arrow.Array) (listCol, arrow.Array) {
	var l *array.List
	switch a := a.(type) {
	case *array.Map:
		l = a.List
	default:
		l = a.(*array.List)
	}
	off := a.Data().Offset()
	return listCol{l.Offsets()[off : off+a.Len()+1], validOf(a)}, l.ListValues()
}

// sub is row i's part of all (the list's elements), nil when null; its
// capacity ends with it, so an append never overwrites the next row's.
func sub[T any](l *listCol, all []T, i int) []T {
	if !l.valid.ok(i) {
		return nil
	}
	lo, hi := l.offs[i], l.offs[i+1]
	return all[lo:hi:hi]
}

func field(a arrow.Array, i int) arrow.Array { return a.(*array.Struct).Field(i) }

// labelsCol is a map<dict, dict> column.
type labelsCol struct {
	list       listCol
	keys, vals dictCol
}

func (d *snapDecoder) labels(a arrow.Array) labelsCol {
	l, entries := d.list(a)
	return labelsCol{l, d.dict(field(entries, 0)), d.dict(field(entries, 1))}
}

func (c *labelsCol) at(i int) map[string]string {
	if !c.list.valid.ok(i) {
		return nil
	}
	lo, hi := c.list.offs[i], c.list.offs[i+1]
	m := make(map[string]string, hi-lo)
	for j := lo; j < hi; j++ {
		m[c.keys.at(int(j))] = c.vals.at(int(j))
	}
	return m
}

// sharedLabelsCol is a labels column whose rows with equal entries share
// one map: the pods of a workload carry the same labels and node
// selector, and building a map per pod would cost a third of the decode.
// Used by one goroutine.
type sharedLabelsCol struct {
	labelsCol
	seen map[uint64]int32    // hash of a row's entries -> a row with them
	maps []map[string]string // by row, where built
	last map[string]string   // the map the last non-empty row read got
	// lastLo and lastHi are that row's entries (lastHi 0 before any).
	lastLo, lastHi int32
}

func (c *sharedLabelsCol) at(i int) map[string]string {
	if !c.list.valid.ok(i) {
		return nil
	}
	if c.seen == nil {
		c.seen = map[uint64]int32{}
		c.maps = make([]map[string]string, len(c.list.offs)-1)
	}
	lo, hi := c.list.offs[i], c.list.offs[i+1]
	keys, vals := c.keys.idx[lo:hi], c.vals.idx[lo:hi]
	// Equal rows mostly follow each other: the last one's first.
	if c.lastHi > 0 && slices.Equal(c.keys.idx[c.lastLo:c.lastHi], keys) && slices.Equal(c.vals.idx[c.lastLo:c.lastHi], vals) {
		return c.last
	}
	m := c.row(i, lo, hi, keys, vals)
	if hi > lo {
		c.last, c.lastLo, c.lastHi = m, lo, hi
	}
	return m
}

// row returns row i's map (entries lo to hi: keys and vals), shared with
// an earlier row of equal entries.
func (c *sharedLabelsCol) row(i int, lo, hi int32, keys, vals []int32) map[string]string {
	h := uint64(len(keys))
	for j := range keys {
		h = (h ^ uint64(uint32(keys[j]))<<32 ^ uint64(uint32(vals[j]))) * 0x9e3779b97f4a7c15
	}
	if r, ok := c.seen[h]; ok {
		rlo, rhi := c.list.offs[r], c.list.offs[r+1]
		if slices.Equal(c.keys.idx[rlo:rhi], keys) && slices.Equal(c.vals.idx[rlo:rhi], vals) {
			return c.maps[r]
		}
	}
	m := c.labelsCol.at(i)
	c.seen[h] = int32(i)
	c.maps[i] = m
	return m
}

// countsCol is the map<string, int64> of SkippedKinds.
type countsCol struct {
	list listCol
	keys strCol
	vals i64Col
}

func (d *snapDecoder) counts(a arrow.Array) countsCol {
	l, entries := d.list(a)
	return countsCol{l, d.plain(field(entries, 0)), d.i64s(field(entries, 1))}
}

func (c *countsCol) at(i int) map[string]int {
	if !c.list.valid.ok(i) {
		return nil
	}
	m := map[string]int{}
	for j := c.list.offs[i]; j < c.list.offs[i+1]; j++ {
		m[c.keys.at(int(j))] = int(c.vals.v[j])
	}
	return m
}

// listOf is a list column whose elements of a batch are decoded into one
// backing array: row i is a slice of it.
type listOf[T any] struct {
	list listCol
	all  []T
}

// fill decodes the n elements.
func (c *listOf[T]) fill(n int, elem func(j int) T) {
	c.all = make([]T, n)
	for j := range c.all {
		c.all[j] = elem(j)
	}
}

func (c *listOf[T]) at(i int) []T { return sub(&c.list, c.all, i) }

// sharedRows returns each row of list column l, the rows of equal keys
// sharing one slice, made once (capacity at length: an append copies):
// key appends element j's key to b, self-delimiting; elem makes element j.
// The pods of a workload carry equal lists.
func sharedRows[T any](l *listCol, key func(b []byte, j int) []byte, elem func(j int) T) [][]T {
	rows := make([][]T, max(len(l.offs)-1, 0))
	made := map[string][]T{}
	var b, prev []byte // this row's key, and the last valid row's
	last := -1         // that row
	for i := range rows {
		if !l.valid.ok(i) {
			continue
		}
		lo, hi := int(l.offs[i]), int(l.offs[i+1])
		b = b[:0]
		for j := lo; j < hi; j++ {
			b = key(b, j)
		}
		// Equal rows mostly follow each other: the last one's first.
		if last >= 0 && bytes.Equal(b, prev) {
			rows[i] = rows[last]
			last = i
			continue
		}
		r, ok := made[string(b)]
		if !ok {
			r = make([]T, hi-lo)
			for k := range r {
				r[k] = elem(lo + k)
			}
			made[string(b)] = r
		}
		rows[i] = r
		b, prev, last = prev, b, i
	}
	return rows
}

// strsCol is a list<dict> column ([]string).
type strsCol struct {
	list listCol
	vals dictCol
	rows [][]string // sharedRows
}

func (d *snapDecoder) strsOf(a arrow.Array) *strsCol {
	l, vals := d.list(a)
	return &strsCol{list: l, vals: d.dict(vals)}
}

func (c *strsCol) build() {
	c.rows = sharedRows(&c.list, func(b []byte, j int) []byte { return binary.AppendUvarint(b, uint64(c.vals.idx[j])) }, c.vals.at)
}

func (c *strsCol) at(i int) []string { return c.rows[i] }

// reqsCol is a list<requirement> column.
type reqsCol struct {
	listOf[index.Requirement]
	key, operator dictCol
	values        *strsCol
}

func (d *snapDecoder) reqs(a arrow.Array) *reqsCol {
	l, elems := d.list(a)
	return &reqsCol{listOf[index.Requirement]{list: l}, d.dict(field(elems, 0)), d.dict(field(elems, 1)), d.strsOf(field(elems, 2))}
}

func (c *reqsCol) build() {
	c.values.build()
	c.fill(len(c.key.idx), func(j int) index.Requirement {
		return index.Requirement{Key: c.key.at(j), Operator: c.operator.at(j), Values: c.values.at(j)}
	})
}

// termCol is a struct column of node selector terms.
type termCol struct {
	exprs, fields *reqsCol
}

func (d *snapDecoder) term(a arrow.Array) termCol {
	return termCol{d.reqs(field(a, 0)), d.reqs(field(a, 1))}
}

func (c termCol) build() {
	c.exprs.build()
	c.fields.build()
}

func (c termCol) at(i int) index.NodeSelectorTerm {
	return index.NodeSelectorTerm{MatchExpressions: c.exprs.at(i), MatchFields: c.fields.at(i)}
}

// termsCol is a list<term> column.
type termsCol struct {
	listOf[index.NodeSelectorTerm]
	term termCol
}

func (d *snapDecoder) terms(a arrow.Array) *termsCol {
	l, elems := d.list(a)
	return &termsCol{listOf[index.NodeSelectorTerm]{list: l}, d.term(elems)}
}

func (c *termsCol) build() {
	c.term.build()
	c.fill(len(c.term.exprs.list.offs)-1, c.term.at)
}

// prefsCol is a list<preferred term> column.
type prefsCol struct {
	listOf[index.PreferredTerm]
	weight []int32
	term   termCol
}

func (d *snapDecoder) prefs(a arrow.Array) *prefsCol {
	l, elems := d.list(a)
	return &prefsCol{listOf[index.PreferredTerm]{list: l}, d.i32s(field(elems, 0)), d.term(field(elems, 1))}
}

func (c *prefsCol) build() {
	c.term.build()
	c.fill(len(c.weight), func(j int) index.PreferredTerm {
		return index.PreferredTerm{Weight: c.weight[j], Term: c.term.at(j)}
	})
}

// taintsCol is a list<taint> column.
type taintsCol struct {
	listOf[index.Taint]
	key, value, effect dictCol
}

func (d *snapDecoder) taints(a arrow.Array) *taintsCol {
	l, elems := d.list(a)
	return &taintsCol{listOf[index.Taint]{list: l}, d.dict(field(elems, 0)), d.dict(field(elems, 1)), d.dict(field(elems, 2))}
}

func (c *taintsCol) build() {
	c.fill(len(c.key.idx), func(j int) index.Taint {
		return index.Taint{Key: c.key.at(j), Value: c.value.at(j), Effect: c.effect.at(j)}
	})
}

// imagesCol is a list<image> column.
type imagesCol struct {
	listOf[index.NodeImage]
	names *strsCol
	size  i64Col
}

func (d *snapDecoder) images(a arrow.Array) *imagesCol {
	l, elems := d.list(a)
	return &imagesCol{listOf[index.NodeImage]{list: l}, d.strsOf(field(elems, 0)), d.i64s(field(elems, 1))}
}

func (c *imagesCol) build() {
	c.names.build()
	c.fill(len(c.size.v), func(j int) index.NodeImage {
		return index.NodeImage{Names: c.names.at(j), Size: c.size.v[j]}
	})
}

// tolsCol is a list<toleration> column, its rows shared (sharedRows: the
// pods of a workload, the tolerations admission adds).
type tolsCol struct {
	list                         listCol
	key, operator, value, effect dictCol
	seconds                      i64Col
	rows                         [][]index.Toleration
}

func (d *snapDecoder) tols(a arrow.Array) *tolsCol {
	l, elems := d.list(a)
	return &tolsCol{list: l, key: d.dict(field(elems, 0)), operator: d.dict(field(elems, 1)),
		value: d.dict(field(elems, 2)), effect: d.dict(field(elems, 3)), seconds: d.i64s(field(elems, 4))}
}

func (c *tolsCol) build() {
	var slab []int64
	c.rows = sharedRows(&c.list, func(b []byte, j int) []byte {
		b = binary.AppendUvarint(binary.AppendUvarint(b, uint64(c.key.idx[j])), uint64(c.operator.idx[j]))
		b = binary.AppendUvarint(binary.AppendUvarint(b, uint64(c.value.idx[j])), uint64(c.effect.idx[j]))
		if !c.seconds.valid.ok(j) {
			return append(b, 0)
		}
		return binary.AppendVarint(append(b, 1), c.seconds.v[j])
	}, func(j int) index.Toleration {
		return index.Toleration{Key: c.key.at(j), Operator: c.operator.at(j), Value: c.value.at(j),
			Effect: c.effect.at(j), TolerationSeconds: c.seconds.ptr(j, &slab)}
	})
}

func (c *tolsCol) at(i int) []index.Toleration { return c.rows[i] }

// resourcesCol is a list<quantity> column.
type resourcesCol struct {
	list  listCol
	name  dictCol
	value i64Col
	rows  [][]index.Quantity // sharedRows
}

func (d *snapDecoder) resources(a arrow.Array) *resourcesCol {
	l, elems := d.list(a)
	return &resourcesCol{list: l, name: d.dict(field(elems, 0)), value: d.i64s(field(elems, 1))}
}

func (c *resourcesCol) build() {
	c.rows = sharedRows(&c.list, func(b []byte, j int) []byte {
		return binary.AppendVarint(binary.AppendUvarint(b, uint64(c.name.idx[j])), c.value.v[j])
	}, func(j int) index.Quantity { return index.Quantity{Name: c.name.at(j), Value: c.value.v[j]} })
}

func (c *resourcesCol) at(i int) []index.Quantity { return c.rows[i] }

// hostPortsCol is a list<host port> column.
type hostPortsCol struct {
	listOf[index.HostPort]
	hostIP, protocol dictCol
	port             []int32
}

func (d *snapDecoder) hostPorts(a arrow.Array) *hostPortsCol {
	l, elems := d.list(a)
	return &hostPortsCol{listOf[index.HostPort]{list: l}, d.dict(field(elems, 0)), d.dict(field(elems, 1)), d.i32s(field(elems, 2))}
}

func (c *hostPortsCol) build() {
	c.fill(len(c.port), func(j int) index.HostPort {
		return index.HostPort{HostIP: c.hostIP.at(j), Protocol: c.protocol.at(j), Port: c.port[j]}
	})
}

// ownerCol is a nullable struct column of owner references.
type ownerCol struct {
	valid                  validCol
	kind, name, apiVersion dictCol
	uid                    strCol
	made                   map[index.OwnerRef]*index.OwnerRef
	last                   int             // the last valid row read, -1 before any
	lastRef                *index.OwnerRef // its reference
}

func (d *snapDecoder) owner(a arrow.Array) *ownerCol {
	return &ownerCol{valid: validOf(a), kind: d.dict(field(a, 0)), name: d.dict(field(a, 1)), apiVersion: d.dict(field(a, 2)),
		uid: d.plain(field(a, 3))}
}

func (c *ownerCol) build() { c.made, c.last = map[index.OwnerRef]*index.OwnerRef{}, -1 }

// at returns row i's reference, shared by the rows of an equal one (the
// pods of one controller, which mostly follow each other: the last row's
// is tried first, by its dictionary indexes). Rows are read in order.
func (c *ownerCol) at(i int) *index.OwnerRef {
	if !c.valid.ok(i) {
		return nil
	}
	if l := c.last; l >= 0 && c.kind.idx[i] == c.kind.idx[l] && c.name.idx[i] == c.name.idx[l] &&
		c.apiVersion.idx[i] == c.apiVersion.idx[l] && c.uid.at(i) == c.uid.at(l) {
		c.last = i
		return c.lastRef
	}
	ref := index.OwnerRef{Kind: c.kind.at(i), Name: c.name.at(i), APIVersion: c.apiVersion.at(i), UID: c.uid.at(i)}
	o, ok := c.made[ref]
	if !ok {
		o = &ref
		c.made[ref] = o
	}
	c.last, c.lastRef = i, o
	return o
}

// selectorCol is a nullable struct column of label selectors.
type selectorCol struct {
	valid  validCol
	labels labelsCol
	exprs  *reqsCol
}

func (d *snapDecoder) selector(a arrow.Array) *selectorCol {
	return &selectorCol{valid: validOf(a), labels: d.labels(field(a, 0)), exprs: d.reqs(field(a, 1))}
}

func (c *selectorCol) build() { c.exprs.build() }

func (c *selectorCol) at(i int) *index.LabelSelector {
	if !c.valid.ok(i) {
		return nil
	}
	return &index.LabelSelector{MatchLabels: c.labels.at(i), MatchExpressions: c.exprs.at(i)}
}

// spreadsCol is a list<spread constraint> column.
type spreadsCol struct {
	listOf[index.SpreadConstraint]
	maxSkew, minDomains                 []int32
	topologyKey, when, nodeAff, nodeTnt dictCol
	selector                            *selectorCol
	matchKeys                           *strsCol
}

func (d *snapDecoder) spreads(a arrow.Array) *spreadsCol {
	l, e := d.list(a)
	return &spreadsCol{listOf: listOf[index.SpreadConstraint]{list: l}, maxSkew: d.i32s(field(e, 0)),
		topologyKey: d.dict(field(e, 1)), when: d.dict(field(e, 2)), selector: d.selector(field(e, 3)),
		minDomains: d.i32s(field(e, 4)), matchKeys: d.strsOf(field(e, 5)), nodeAff: d.dict(field(e, 6)), nodeTnt: d.dict(field(e, 7))}
}

func (c *spreadsCol) build() {
	c.selector.build()
	c.matchKeys.build()
	c.fill(len(c.maxSkew), func(j int) index.SpreadConstraint {
		return index.SpreadConstraint{MaxSkew: c.maxSkew[j], TopologyKey: c.topologyKey.at(j), WhenUnsatisfiable: c.when.at(j),
			Selector: c.selector.at(j), MinDomains: c.minDomains[j], MatchLabelKeys: c.matchKeys.at(j),
			NodeAffinityPolicy: c.nodeAff.at(j), NodeTaintsPolicy: c.nodeTnt.at(j)}
	})
}

// podTermCol is a struct column of pod affinity terms.
type podTermCol struct {
	selector, nsSelector                *selectorCol
	namespaces, matchKeys, mismatchKeys *strsCol
	topologyKey                         dictCol
}

func (d *snapDecoder) podTerm(a arrow.Array) podTermCol {
	return podTermCol{selector: d.selector(field(a, 0)), namespaces: d.strsOf(field(a, 1)), nsSelector: d.selector(field(a, 2)),
		topologyKey: d.dict(field(a, 3)), matchKeys: d.strsOf(field(a, 4)), mismatchKeys: d.strsOf(field(a, 5))}
}

func (c podTermCol) build() {
	c.selector.build()
	c.nsSelector.build()
	c.namespaces.build()
	c.matchKeys.build()
	c.mismatchKeys.build()
}

func (c podTermCol) at(i int) index.PodAffinityTerm {
	return index.PodAffinityTerm{Selector: c.selector.at(i), Namespaces: c.namespaces.at(i), NamespaceSelector: c.nsSelector.at(i),
		TopologyKey: c.topologyKey.at(i), MatchLabelKeys: c.matchKeys.at(i), MismatchLabelKeys: c.mismatchKeys.at(i)}
}

// podTermsCol is a list<pod affinity term> column.
type podTermsCol struct {
	listOf[index.PodAffinityTerm]
	term podTermCol
}

func (d *snapDecoder) podTerms(a arrow.Array) *podTermsCol {
	l, elems := d.list(a)
	return &podTermsCol{listOf[index.PodAffinityTerm]{list: l}, d.podTerm(elems)}
}

func (c *podTermsCol) build() {
	c.term.build()
	c.fill(len(c.term.topologyKey.idx), c.term.at)
}

// wPodTermsCol is a list<weighted pod affinity term> column.
type wPodTermsCol struct {
	listOf[index.WeightedPodAffinityTerm]
	weight []int32
	term   podTermCol
}

func (d *snapDecoder) wPodTerms(a arrow.Array) *wPodTermsCol {
	l, elems := d.list(a)
	return &wPodTermsCol{listOf[index.WeightedPodAffinityTerm]{list: l}, d.i32s(field(elems, 0)), d.podTerm(field(elems, 1))}
}

func (c *wPodTermsCol) build() {
	c.term.build()
	c.fill(len(c.weight), func(j int) index.WeightedPodAffinityTerm {
		return index.WeightedPodAffinityTerm{Weight: c.weight[j], Term: c.term.at(j)}
	})
}

// Table decoders.

func decodeNodes(d *snapDecoder, c cols) func([]index.Node) {
	name, labels, taints := d.plain(c.col("name")), d.labels(c.col("labels")), d.taints(c.col("taints"))
	unsched, alloc := d.bools(c.col("unschedulable")), d.resources(c.col("allocatable"))
	srcFile, srcLine, images := d.dict(c.col("src_file")), d.i64s(c.col("src_line")), d.images(c.col("images"))
	return func(dst []index.Node) {
		taints.build()
		alloc.build()
		images.build()
		for i := range dst {
			dst[i] = index.Node{Name: name.at(i), Labels: labels.at(i), Taints: taints.at(i),
				Unschedulable: unsched.at(i), Allocatable: alloc.at(i), Images: images.at(i),
				Src: index.Source{File: srcFile.at(i), Line: int(srcLine.v[i])}}
		}
	}
}

func decodePods(d *snapDecoder, c cols) func([]index.Pod) {
	ns, name, uid := d.dict(c.col("namespace")), d.plain(c.col("name")), d.plain(c.col("uid"))
	labels, nodeSel := sharedLabelsCol{labelsCol: d.labels(c.col("labels"))}, sharedLabelsCol{labelsCol: d.labels(c.col("node_selector"))}
	creation, start, owner := d.i64s(c.col("creation_unix")), d.i64s(c.col("start_unix")), d.owner(c.col("owner"))
	nodeName, schedName, requests := d.dict(c.col("node_name")), d.dict(c.col("scheduler_name")), d.resources(c.col("requests"))
	scoreCPU, scoreMem, tols := d.i64s(c.col("score_cpu")), d.i64s(c.col("score_memory")), d.tols(c.col("tolerations"))
	required, hasReq := d.terms(c.col("required_terms")), d.bools(c.col("has_required"))
	preferred, hostPorts, prio := d.prefs(c.col("preferred_terms")), d.hostPorts(c.col("host_ports")), d.i32s(c.col("priority"))
	preempt, unsupp, gated := d.dict(c.col("preemption_policy")), d.dict(c.col("unsupported")), d.bools(c.col("gated"))
	gates, rejected, srcFile := d.strsOf(c.col("scheduling_gates")), d.plain(c.col("rejected")), d.dict(c.col("src_file"))
	srcLine, nzCPU, nzMem := d.i64s(c.col("src_line")), d.i64s(c.col("non_zero_cpu")), d.i64s(c.col("non_zero_memory"))
	pcName, spread := d.dict(c.col("priority_class_name")), d.spreads(c.col("spread"))
	affinity, antiAffinity := d.podTerms(c.col("affinity")), d.podTerms(c.col("anti_affinity"))
	prefAffinity, prefAntiAffinity := d.wPodTerms(c.col("preferred_affinity")), d.wPodTerms(c.col("preferred_anti_affinity"))
	images, imageContainers := d.strsOf(c.col("images")), d.i32s(c.col("image_containers"))
	return func(dst []index.Pod) {
		owner.build()
		requests.build()
		tols.build()
		required.build()
		preferred.build()
		hostPorts.build()
		gates.build()
		spread.build()
		affinity.build()
		antiAffinity.build()
		prefAffinity.build()
		prefAntiAffinity.build()
		images.build()
		terms := newTermSharer() // the batch's pods share equal terms (see termSharer)
		for i := range dst {
			p := &dst[i] // zero: fill in place
			p.Namespace, p.Name, p.UID, p.Labels = ns.at(i), name.at(i), uid.at(i), labels.at(i)
			p.CreationUnix, p.StartUnix, p.Owner = creation.v[i], start.v[i], owner.at(i)
			p.NodeName, p.SchedulerName, p.Requests = nodeName.at(i), schedName.at(i), requests.at(i)
			p.ScoreCPU, p.ScoreMemory, p.Tolerations = scoreCPU.v[i], scoreMem.v[i], tols.at(i)
			p.NodeSelector, p.RequiredTerms, p.HasRequired = nodeSel.at(i), required.at(i), hasReq.at(i)
			p.PreferredTerms, p.HostPorts, p.Priority = preferred.at(i), hostPorts.at(i), prio[i]
			p.PreemptionPolicy, p.Unsupported, p.Gated = preempt.at(i), unsupp.at(i), gated.at(i)
			p.SchedulingGates, p.Rejected = gates.at(i), rejected.at(i)
			p.Src = index.Source{File: srcFile.at(i), Line: int(srcLine.v[i])}
			p.NonZeroCPU, p.NonZeroMemory, p.PriorityClassName = nzCPU.v[i], nzMem.v[i], pcName.at(i)
			p.Spread, p.Affinity, p.AntiAffinity = spread.at(i), affinity.at(i), antiAffinity.at(i)
			p.PreferredAffinity, p.PreferredAntiAffinity = prefAffinity.at(i), prefAntiAffinity.at(i)
			p.Images, p.ImageContainers = images.at(i), imageContainers[i]
			terms.share(p)
		}
	}
}

func decodePriorityClasses(d *snapDecoder, c cols) func([]index.PriorityClass) {
	name, value := d.plain(c.col("name")), d.i32s(c.col("value"))
	global, preempt := d.bools(c.col("global_default")), d.dict(c.col("preemption_policy"))
	return func(dst []index.PriorityClass) {
		for i := range dst {
			dst[i] = index.PriorityClass{Name: name.at(i), Value: value[i], GlobalDefault: global.at(i), PreemptionPolicy: preempt.at(i)}
		}
	}
}

func decodePDBs(d *snapDecoder, c cols) func([]index.PDB) {
	ns, name, sel := d.dict(c.col("namespace")), d.plain(c.col("name")), d.selector(c.col("selector"))
	minAv, maxUn, allowed := d.dict(c.col("min_available")), d.dict(c.col("max_unavailable")), d.i32s(c.col("disruptions_allowed"))
	return func(dst []index.PDB) {
		sel.build()
		for i := range dst {
			dst[i] = index.PDB{Namespace: ns.at(i), Name: name.at(i), Selector: sel.at(i),
				MinAvailable: minAv.at(i), MaxUnavailable: maxUn.at(i), DisruptionsAllowed: allowed[i]}
		}
	}
}

func decodeNamespaces(d *snapDecoder, c cols) func([]index.Namespace) {
	name, labels := d.plain(c.col("name")), d.labels(c.col("labels"))
	return func(dst []index.Namespace) {
		for i := range dst {
			dst[i] = index.Namespace{Name: name.at(i), Labels: labels.at(i)}
		}
	}
}

func decodeWorkloads(d *snapDecoder, c cols) func([]index.Workload) {
	kind, ns, name, sel := d.dict(c.col("kind")), d.dict(c.col("namespace")), d.plain(c.col("name")), d.selector(c.col("selector"))
	uid, owner, creation := d.plain(c.col("uid")), d.owner(c.col("owner")), d.i64s(c.col("creation_unix"))
	replicas, parallelism, completions := d.i32s(c.col("replicas")), d.i32s(c.col("parallelism")), d.i32s(c.col("completions"))
	indexed, suspend, manual := d.bools(c.col("indexed")), d.bools(c.col("suspend")), d.bools(c.col("manual_selector"))
	finished, succeeded := d.bools(c.col("finished")), d.i32s(c.col("succeeded"))
	completed, failed := d.plain(c.col("completed_indexes")), d.plain(c.col("failed_indexes"))
	start, service, updateRev := d.i32s(c.col("ordinals_start")), d.dict(c.col("service_name")), d.plain(c.col("update_revision"))
	collisions, templateGen := d.i32s(c.col("collision_count")), d.i64s(c.col("template_generation"))
	template, claims := d.bins(c.col("template")), d.bins(c.col("claim_templates"))
	srcFile, srcLine := d.dict(c.col("src_file")), d.i64s(c.col("src_line"))
	return func(dst []index.Workload) {
		sel.build()
		owner.build()
		for i := range dst {
			dst[i] = index.Workload{Kind: kind.at(i), Namespace: ns.at(i), Name: name.at(i), Selector: sel.at(i),
				UID: uid.at(i), Owner: owner.at(i), CreationUnix: creation.v[i], Replicas: replicas[i],
				Parallelism: parallelism[i], Completions: completions[i], Indexed: indexed.at(i), Suspend: suspend.at(i),
				ManualSelector: manual.at(i), Finished: finished.at(i), Succeeded: succeeded[i],
				CompletedIndexes: completed.at(i), FailedIndexes: failed.at(i), OrdinalsStart: start[i],
				ServiceName: service.at(i), UpdateRevision: updateRev.at(i), CollisionCount: collisions[i],
				TemplateGeneration: templateGen.v[i], Template: template.at(i), ClaimTemplates: claims.at(i),
				Src: index.Source{File: srcFile.at(i), Line: int(srcLine.v[i])}}
		}
	}
}

// msgReader frames the IPC messages of a snapshot's streams for the ipc
// package: it hashes every byte it reads, tracks the position for errors,
// bounds the sizes it allocates, and reports an end-of-stream marker as
// io.EOF, so that one reader serves all the streams of a file in turn.
type msgReader struct {
	r    io.Reader
	h    *xxhash.Digest
	pos  int64
	eos  bool   // the last message read was an end-of-stream marker
	meta []byte // the last message's metadata
	// body is the last message's body as read, reused: the ipc package
	// copies every buffer out of a body before it asks for the next
	// message; inf inflates it (snapshot_inflate.go).
	body []byte
	inf  inflater
}

// msgError is a framing error (truncation, a size beyond the limits); it
// deliberately does not wrap io.EOF, which the ipc package would take for
// a clean end of stream.
type msgError struct{ msg string }

func (e msgError) Error() string { return e.msg }

func (m *msgReader) read(p []byte, what string) {
	n, err := io.ReadFull(m.r, p)
	m.h.Write(p[:n])
	m.pos += int64(n)
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			panic(msgError{fmt.Sprintf("truncated: the file ends inside %s at byte %d", what, m.pos)})
		}
		panic(msgError{fmt.Sprintf("read %s at byte %d: %v", what, m.pos, err)})
	}
}

func (m *msgReader) Message() (msg *ipc.Message, err error) {
	defer func() {
		if p := recover(); p != nil {
			me, ok := p.(msgError)
			if !ok {
				me = msgError{fmt.Sprintf("corrupt message at byte %d: %s", m.pos, panicDetail(p))}
			}
			msg, err = nil, me
		}
	}()
	m.eos, m.meta = false, nil
	var word [4]byte
	m.read(word[:], "a message header")
	size := binary.LittleEndian.Uint32(word[:])
	if size == 0xffffffff { // continuation marker
		m.read(word[:], "a message header")
		size = binary.LittleEndian.Uint32(word[:])
	}
	if size == 0 {
		m.eos = true
		return nil, io.EOF
	}
	if int64(size) > snapMaxMessage || size > 1<<31-1 {
		return nil, msgError{fmt.Sprintf("message metadata of %d bytes at byte %d (corrupt?)", size, m.pos)}
	}
	meta := make([]byte, size)
	m.read(meta, "message metadata")
	m.meta = meta
	head := ipc.NewMessage(memory.NewBufferBytes(meta), memory.NewBufferBytes(nil))
	bodyLen := head.BodyLen()
	if bodyLen < 0 || bodyLen > snapMaxMessage {
		return nil, msgError{fmt.Sprintf("message body of %d bytes at byte %d (corrupt?)", bodyLen, m.pos)}
	}
	if int64(cap(m.body)) < bodyLen {
		m.body = make([]byte, bodyLen)
	}
	body := m.body[:bodyLen]
	m.read(body, "a message body")
	body, err = m.inf.inflate(meta, body, snapMaxMessage)
	if err != nil {
		return nil, msgError{fmt.Sprintf("the message ending at byte %d: %v", m.pos, err)}
	}
	return ipc.NewMessage(memory.NewBufferBytes(meta), memory.NewBufferBytes(body)), nil
}

func (m *msgReader) Retain()  {}
func (m *msgReader) Release() {}

// capAllocator is the Go allocator, refusing single allocations above max
// (a corrupt buffer length must not exhaust memory), that reuses the
// buffers of released record batches: a batch's decompressed buffers die
// when its rows are decoded, and without reuse the 100,000-node snapshot
// made 1.15 GB of them, garbage that the collector must then find (see
// Options.SnapshotGC). Buffers of poolMin bytes and more are rounded up to
// a power of two and kept by size when freed; smaller ones are the Go
// allocator's.
type capAllocator struct {
	go_ memory.GoAllocator
	max int64

	mu   sync.Mutex
	free [64][][]byte // freed buffers by log2 of their capacity
}

// poolMin is a variable for the tests.
var poolMin = 4 << 10

func (a *capAllocator) Allocate(size int) []byte {
	if size < 0 || int64(size) > a.max {
		panic(msgError{fmt.Sprintf("a buffer of %d bytes (corrupt?)", size)})
	}
	if size < poolMin {
		return a.go_.Allocate(size)
	}
	k := bits.Len(uint(size - 1))
	a.mu.Lock()
	if n := len(a.free[k]); n > 0 {
		b := a.free[k][n-1]
		a.free[k][n-1] = nil
		a.free[k] = a.free[k][:n-1]
		a.mu.Unlock()
		clear(b[:size])
		return b[:size]
	}
	a.mu.Unlock()
	return a.go_.Allocate(1 << k)[:size]
}

func (a *capAllocator) Reallocate(size int, b []byte) []byte {
	if size < 0 || int64(size) > a.max {
		panic(msgError{fmt.Sprintf("a buffer of %d bytes (corrupt?)", size)})
	}
	if size <= cap(b) {
		if size > len(b) {
			clear(b[len(b):size]) // a reused buffer holds its last user's bytes there
		}
		return b[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

// Free keeps b for reuse when Allocate rounded it (a power-of-two
// capacity of at least poolMin).
func (a *capAllocator) Free(b []byte) {
	c := cap(b)
	if c < poolMin || c&(c-1) != 0 {
		return
	}
	k := bits.Len(uint(c - 1))
	a.mu.Lock()
	a.free[k] = append(a.free[k], b[:c])
	a.mu.Unlock()
}

// panicDetail says what a panic on corrupt data was, for an error: a
// runtime error (an index out of range inside a reader) only says the
// data is inconsistent, the reader's internals being no help to a user.
func panicDetail(p any) string {
	if _, ok := p.(runtime.Error); ok {
		return "its offsets or lengths are inconsistent"
	}
	return fmt.Sprint(p)
}
