package ingest

import (
	"bytes"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/cespare/xxhash/v2"

	"github.com/kplace/kplace/index"
)

// snapshotBytes writes in as a snapshot.
func snapshotBytes(t testing.TB, in *index.Input, admission bool) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSnapshot(&b, in, SnapshotOptions{AdmissionDefaults: admission}); err != nil {
		t.Fatalf("WriteSnapshot: %v", err)
	}
	return b.Bytes()
}

// smallBatches makes snapshots of a few rows per record batch for the
// rest of the test, so that small inputs cover multi-batch tables.
func smallBatches(t testing.TB, rows int) {
	old := snapshotBatchRows
	snapshotBatchRows = rows
	t.Cleanup(func() { snapshotBatchRows = old })
}

// filler fills values of the model's types at random, walking them with
// reflect: every field of every type gets values, slices and maps are nil,
// empty or filled, pointers nil or set. A field added to the model later
// is filled too, so the round trip fails until the snapshot carries it.
type filler struct {
	r    *rand.Rand
	pool []string
	seen map[string]map[string]bool // field path -> variants seen
}

func newFiller(seed uint64) *filler {
	return &filler{r: rand.New(rand.NewPCG(seed, 7)), seen: map[string]map[string]bool{},
		pool: []string{"", "a", "default", "kubernetes.io/hostname", "NoSchedule", "Exists", "zone-1", "ü-ñ 東京", "x\x00y"}}
}

func (f *filler) note(path, variant string) {
	if f.seen[path] == nil {
		f.seen[path] = map[string]bool{}
	}
	f.seen[path][variant] = true
}

func (f *filler) str() string {
	switch f.r.IntN(4) {
	case 0:
		return fmt.Sprintf("s-%d", f.r.Uint64())
	case 1:
		return strings.Repeat("long-", f.r.IntN(40))
	}
	return f.pool[f.r.IntN(len(f.pool))]
}

func (f *filler) integer(bits int) int64 {
	switch f.r.IntN(5) {
	case 0:
		return 0
	case 1:
		return int64(-1) << (bits - 1) // minimum
	case 2:
		return int64(1)<<(bits-1) - 1 // maximum
	}
	return int64(f.r.Uint64()) >> (64 - bits) // any value of the width
}

// length picks nil (-1), empty (0) or a few elements.
func (f *filler) length(path string, max int) int {
	switch f.r.IntN(4) {
	case 0:
		f.note(path, "nil")
		return -1
	case 1:
		f.note(path, "empty")
		return 0
	}
	f.note(path, "full")
	return 1 + f.r.IntN(max)
}

func (f *filler) fill(v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.str())
		f.note(path, fmt.Sprint(v.Len() > 0))
	case reflect.Bool:
		v.SetBool(f.r.IntN(2) == 0)
		f.note(path, fmt.Sprint(v.Bool()))
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(f.integer(v.Type().Bits()))
		f.note(path, fmt.Sprint(v.Int() != 0))
	case reflect.Pointer:
		if f.r.IntN(3) == 0 {
			v.SetZero()
			f.note(path, "nil")
			return
		}
		f.note(path, "set")
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), path)
		v.Set(p)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // []byte: raw JSON
			n := f.length(path, 40)
			if n < 0 {
				v.SetZero()
				return
			}
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(f.r.Uint32())
			}
			v.SetBytes(b)
			return
		}
		n := f.length(path, 4)
		if n < 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := 0; i < n; i++ {
			f.fill(v.Index(i), path+"[]")
		}
	case reflect.Map:
		n := f.length(path, 5)
		if n < 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.MakeMap(v.Type()))
		for i := 0; i < n; i++ {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k, path+"{key}")
			f.fill(e, path+"{}")
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f.fill(v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	default:
		panic(fmt.Sprintf("filler: %s is of kind %s: teach the filler (and the snapshot) about it", path, v.Kind()))
	}
}

// randomInput fills an Input: its slices get many rows. The variants of
// the top-level fields (nil, empty, full; zero or not) cycle with iter,
// so that a few iterations see them all.
func (f *filler) randomInput(iter int) *index.Input {
	in := &index.Input{}
	v := reflect.ValueOf(in).Elem()
	for i := 0; i < v.NumField(); i++ {
		fv, name := v.Field(i), "Input."+v.Type().Field(i).Name
		variant := (iter + i) % 4
		switch {
		case variant == 0 && fv.Kind() != reflect.Struct:
			fv.SetZero() // nil, or zero
			f.note(name, map[bool]string{true: "nil", false: "false"}[fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map])
		case variant == 1 && fv.Kind() == reflect.Slice:
			fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
			f.note(name, "empty")
		case variant == 1 && fv.Kind() == reflect.Map:
			fv.Set(reflect.MakeMap(fv.Type()))
			f.note(name, "empty")
		case fv.Kind() == reflect.Map:
			f.note(name, "full")
			fv.Set(reflect.MakeMap(fv.Type()))
			for j := 0; j < 20; j++ {
				k, e := reflect.New(fv.Type().Key()).Elem(), reflect.New(fv.Type().Elem()).Elem()
				f.fill(k, name+"{key}")
				f.fill(e, name+"{}")
				fv.SetMapIndex(k, e)
			}
		case fv.Kind() == reflect.Slice:
			n := 20 + f.r.IntN(60)
			f.note(name, "full")
			fv.Set(reflect.MakeSlice(fv.Type(), n, n))
			for j := 0; j < n; j++ {
				f.fill(fv.Index(j), name+"[]")
			}
		default:
			f.fill(fv, name)
		}
	}
	return in
}

// wantVariants lists, for every field path below t, the variants the
// filler must have produced.
func wantVariants(t reflect.Type, path string, out map[string][]string) {
	switch t.Kind() {
	case reflect.String, reflect.Bool:
		out[path] = []string{"false", "true"}
	case reflect.Int, reflect.Int32, reflect.Int64:
		out[path] = []string{"false", "true"}
	case reflect.Pointer:
		out[path] = []string{"nil", "set"}
		sub := map[string][]string{} // the pointee shares the path
		wantVariants(t.Elem(), path, sub)
		for k, v := range sub {
			if k != path {
				out[k] = v
			}
		}
	case reflect.Slice:
		out[path] = []string{"empty", "full", "nil"}
		if t.Elem().Kind() != reflect.Uint8 {
			wantVariants(t.Elem(), path+"[]", out)
		}
	case reflect.Map:
		out[path] = []string{"empty", "full", "nil"}
		wantVariants(t.Key(), path+"{key}", out)
		wantVariants(t.Elem(), path+"{}", out)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			wantVariants(t.Field(i).Type, path+"."+t.Field(i).Name, out)
		}
	}
}

// TestSnapshotRoundTripEveryField writes random inputs that set every
// field of every model type (nil and empty variants included) and reads
// them back: the result must be reflect.DeepEqual to what was written.
func TestSnapshotRoundTripEveryField(t *testing.T) {
	smallBatches(t, 32)
	oldMin := poolMin
	poolMin = 64 // the buffers of small batches are reused too
	defer func() { poolMin = oldMin }()
	f := newFiller(1)
	for iter := 0; iter < 16; iter++ {
		in := f.randomInput(iter)
		admission := iter%2 == 0
		data := snapshotBytes(t, in, admission)
		for _, par := range []int{1, 3} {
			got, gotAdm, err := decodeSnapshot("in.arrow", bytes.NewReader(data), par)
			if err != nil {
				t.Fatalf("iteration %d: decode: %v", iter, err)
			}
			if gotAdm != admission {
				t.Errorf("iteration %d: admission defaults %t, want %t", iter, gotAdm, admission)
			}
			if !reflect.DeepEqual(got, in) {
				t.Fatalf("iteration %d (parallelism %d): round trip differs: %s", iter, par, diffInputs(in, got))
			}
		}
		// Deterministic: the same input gives the same bytes.
		if iter > 2 {
			continue
		}
		if again := snapshotBytes(t, in, admission); !bytes.Equal(again, data) {
			t.Fatalf("iteration %d: two writes of the same input differ", iter)
		}
	}
	// The filler reached every field path of the model, each in every
	// variant (nil, empty, full; zero and non-zero; ...).
	want := map[string][]string{}
	wantVariants(reflect.TypeOf(index.Input{}), "Input", want)
	delete(want, "Input")
	var missing []string
	for path, variants := range want {
		for _, v := range variants {
			if !f.seen[path][v] {
				missing = append(missing, path+" "+v)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the random inputs never had these field variants (make the filler reach them):\n%s", strings.Join(missing, "\n"))
	}
}

// diffInputs names the first difference between two inputs.
func diffInputs(want, got *index.Input) string {
	var walk func(a, b reflect.Value, path string) string
	walk = func(a, b reflect.Value, path string) string {
		if reflect.DeepEqual(a.Interface(), b.Interface()) {
			return ""
		}
		switch a.Kind() {
		case reflect.Struct:
			for i := 0; i < a.NumField(); i++ {
				if d := walk(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
					return d
				}
			}
		case reflect.Slice:
			if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
				return fmt.Sprintf("%s: %d elements (nil %t), got %d (nil %t)", path, a.Len(), a.IsNil(), b.Len(), b.IsNil())
			}
			for i := 0; i < a.Len(); i++ {
				if d := walk(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
					return d
				}
			}
		case reflect.Pointer:
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil %t, got nil %t", path, a.IsNil(), b.IsNil())
			}
			return walk(a.Elem(), b.Elem(), path)
		}
		return fmt.Sprintf("%s: want %#v\n got %#v", path, a.Interface(), b.Interface())
	}
	return walk(reflect.ValueOf(want).Elem(), reflect.ValueOf(got).Elem(), "Input")
}

// TestSnapshotGoldenInputs converts the golden inputs and loads the
// snapshots through Load: the same Input as from the original files.
func TestSnapshotGoldenInputs(t *testing.T) {
	smallBatches(t, 2)
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			want, info, err := LoadWithInfo(tc.paths, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "cluster.snap")
			if err := os.WriteFile(path, snapshotBytes(t, want, info.AdmissionDefaults), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, m := range modes {
				got, ginfo, err := LoadWithInfo([]string{path}, Options{Parallelism: m.parallelism, AdmissionDefaults: !tc.opts.AdmissionDefaults})
				if err != nil {
					t.Fatal(err)
				}
				if !ginfo.Snapshot || ginfo.AdmissionDefaults != tc.opts.AdmissionDefaults {
					t.Errorf("info %+v, want a snapshot with admission defaults %t", ginfo, tc.opts.AdmissionDefaults)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s", m.name, diffInputs(want, got))
				}
			}
		})
	}
}

// goldenSnapshot is a small valid snapshot: the "list" golden input.
func goldenSnapshot(t testing.TB) ([]byte, *index.Input) {
	t.Helper()
	in, err := Load([]string{"testdata/list.json"}, Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	return snapshotBytes(t, in, true), in
}

// loadSnapshotFile writes data to a file named name and loads it.
func loadSnapshotFile(t *testing.T, name string, data []byte, opts Options) (*index.Input, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return Load([]string{path}, opts)
}

func TestSnapshotErrors(t *testing.T) {
	smallBatches(t, 2)
	data, _ := goldenSnapshot(t)
	wantErr := func(t *testing.T, err error, parts ...string) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		if _, ok := err.(*Error); !ok {
			t.Errorf("error %T is not an *Error: %v", err, err)
		}
		for _, p := range append([]string{"cluster.arrow"}, parts...) {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not mention %q", err, p)
			}
		}
	}
	t.Run("truncated", func(t *testing.T) {
		for _, n := range []int{5, 100, len(data) / 3, len(data) / 2, len(data) - 9, len(data) - 1} {
			_, err := loadSnapshotFile(t, "cluster.arrow", data[:n], Options{})
			wantErr(t, err)
			if err != nil && !strings.Contains(err.Error(), "truncated") {
				t.Errorf("cut at %d: %v does not say truncated", n, err)
			}
		}
	})
	t.Run("trailing data", func(t *testing.T) {
		_, err := loadSnapshotFile(t, "cluster.arrow", append(slicesClone(data), 0), Options{})
		wantErr(t, err, "after the snapshot")
	})
	t.Run("wrong version", func(t *testing.T) {
		snapshotVersionWritten = 9
		defer func() { snapshotVersionWritten = SnapshotVersion }()
		in, _ := Load([]string{"testdata/list.json"}, Options{})
		_, err := loadSnapshotFile(t, "cluster.arrow", snapshotBytes(t, in, false), Options{})
		wantErr(t, err, `version "9"`, "convert")
	})
	t.Run("not a snapshot", func(t *testing.T) {
		_, err := loadSnapshotFile(t, "cluster.arrow", []byte{0xff, 0xff, 0xff, 0xff, 8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, Options{})
		wantErr(t, err, "not a kplace snapshot")
		_, err = loadSnapshotFile(t, "cluster.arrow", []byte("ARROW1\x00\x00rest"), Options{})
		wantErr(t, err, "Arrow IPC file")
	})
	t.Run("corrupt column", func(t *testing.T) {
		// Flip one byte in the middle of each record batch body of the pods
		// table (the third stream).
		n := 0
		for _, m := range messages(t, data) {
			if m.stream != 2 || m.typ != ipc.MessageRecordBatch {
				continue
			}
			n++
			bad := slicesClone(data)
			bad[(m.body+m.end)/2] ^= 0x40
			_, err := loadSnapshotFile(t, "cluster.arrow", bad, Options{})
			wantErr(t, err, `table "pods"`)
		}
		if n == 0 {
			t.Fatal("no record batch found in the pods stream")
		}
	})
	t.Run("admission mismatch", func(t *testing.T) {
		_, err := loadSnapshotFile(t, "cluster.arrow", data, Options{AdmissionDefaults: false, AdmissionDefaultsSet: true})
		wantErr(t, err, "--admission-defaults=true", "--admission-defaults=false")
		if _, err := loadSnapshotFile(t, "cluster.arrow", data, Options{AdmissionDefaults: true, AdmissionDefaultsSet: true}); err != nil {
			t.Errorf("the recorded value, set explicitly: %v", err)
		}
		if _, err := loadSnapshotFile(t, "cluster.arrow", data, Options{AdmissionDefaults: false}); err != nil {
			t.Errorf("the flag not set: %v", err)
		}
	})
	t.Run("mixed with other files", func(t *testing.T) {
		dir := t.TempDir()
		snap := filepath.Join(dir, "cluster.arrow")
		os.WriteFile(snap, data, 0o644)
		os.WriteFile(filepath.Join(dir, "more.json"), []byte(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"extra"}}`), 0o644)
		for _, paths := range [][]string{{snap, "testdata/podlist.json"}, {"testdata/podlist.json", snap}, {snap, snap}, {dir}} {
			_, err := Load(paths, Options{})
			wantErr(t, err, "only input")
		}
	})
}

func slicesClone(b []byte) []byte { return append([]byte(nil), b...) }

// message locates one IPC message of a snapshot.
type message struct {
	stream    int // index of its stream (table) in the file
	typ       ipc.MessageType
	body, end int64 // byte range of its body
}

// messages lists the messages of a snapshot, end-of-stream markers apart.
func messages(t *testing.T, data []byte) []message {
	t.Helper()
	mr := &msgReader{r: bytes.NewReader(data), h: xxhash.New()}
	var out []message
	stream := 0
	for mr.pos < int64(len(data)) {
		msg, err := mr.Message()
		if err == io.EOF {
			stream++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, message{stream, msg.Type(), mr.pos - msg.BodyLen(), mr.pos})
	}
	return out
}

// TestSnapshotEveryByteFlip: whichever byte of a snapshot is corrupted,
// loading it fails with an error or (padding) gives the same Input; it
// never panics and never loads something else. Every byte with -long
// (minutes: zstd decoders are costly to start); else one in 173, in every
// part of the file.
func TestSnapshotEveryByteFlip(t *testing.T) {
	data, want := goldenSnapshot(t)
	t.Logf("%d bytes", len(data))
	step := 173
	switch {
	case *long:
		step = 1
	case testing.Short():
		step = 401
	}
	for i := 0; i < len(data); i += step {
		bad := slicesClone(data)
		bad[i] ^= 0x08
		got, _, err := decodeSnapshot("cluster.arrow", bytes.NewReader(bad), 2)
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("byte %d flipped: loaded a different cluster: %s", i, diffInputs(want, got))
		}
		if err != nil && !strings.HasPrefix(err.Error(), "cluster.arrow: ") {
			t.Fatalf("byte %d flipped: error %q does not name the file", i, err)
		}
		if err != nil && strings.Contains(err.Error(), "runtime error") {
			t.Fatalf("byte %d flipped: error %q shows a reader's internals", i, err)
		}
	}
}

// TestSnapshotLimits: sizes beyond the decoder's limits are errors, not
// allocations.
func TestSnapshotLimits(t *testing.T) {
	data, _ := goldenSnapshot(t)
	old := snapMaxMessage
	snapMaxMessage = 64
	defer func() { snapMaxMessage = old }()
	_, _, err := decodeSnapshot("cluster.arrow", bytes.NewReader(data), 1)
	if err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("error %v, want a size limit", err)
	}
}

// FuzzSnapshot feeds corrupted snapshots to the decoder: it must return
// an *Error or a model, never panic or allocate without bound; a model
// that loads (validation passed) places. FuzzSnapshotValues reaches the
// values, which the checksums guard here.
func FuzzSnapshot(f *testing.F) {
	old, oldPre := snapMaxMessage, snapMaxPrealloc
	snapMaxMessage, snapMaxPrealloc = 1<<20, 1<<10
	defer func() { snapMaxMessage, snapMaxPrealloc = old, oldPre }()
	data, _ := goldenSnapshot(f)
	f.Add(data)
	f.Add(snapshotBytes(f, &index.Input{}, false))
	tiny := &index.Input{Nodes: []index.Node{{Name: "n", Labels: map[string]string{"a": "b"}}},
		Pods: []index.Pod{{Name: "p", Namespace: "d", Tolerations: []index.Toleration{{Key: "k"}}}}}
	f.Add(snapshotBytes(f, tiny, true))
	rel, err := Load([]string{"testdata/relations.yaml"}, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(snapshotBytes(f, rel, false))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		in, _, err := decodeSnapshot("in", bytes.NewReader(b), 2)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			return
		}
		// What loads writes again and reads back the same.
		again, _, err := decodeSnapshot("in", bytes.NewReader(snapshotBytes(t, in, false)), 1)
		if err != nil || !reflect.DeepEqual(again, in) {
			t.Fatalf("a loaded snapshot does not round-trip: %v", err)
		}
		loaded, err := loadBytes(b, Options{Parallelism: 2})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			return
		}
		placeChecked(t, loaded, len(b))
	})
}

// TestSnapshotStockReader reads a snapshot the way an analysis tool does
// (README): the stock Arrow IPC stream reader, opened again and again on
// the same file until it ends, each stream's table named by its schema
// metadata.
func TestSnapshotStockReader(t *testing.T) {
	smallBatches(t, 2)
	data, in := goldenSnapshot(t)
	r := bytes.NewReader(data)
	var names []string
	rows := map[string]int64{}
	var podNames []string
	for r.Len() > 0 {
		rd, err := ipc.NewReader(r)
		if err != nil {
			t.Fatalf("stream %d: %v", len(names), err)
		}
		md := rd.Schema().Metadata()
		name := md.Values()[md.FindKey(metaTable)]
		names = append(names, name)
		for rd.Next() {
			rec := rd.Record()
			rows[name] += rec.NumRows()
			if name == tblPods {
				col := rec.Column(rec.Schema().FieldIndices("name")[0]).(*array.String)
				for i := 0; i < col.Len(); i++ {
					podNames = append(podNames, col.Value(i))
				}
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatalf("table %s: %v", name, err)
		}
		rd.Release()
	}
	want := []string{tblSnapshot, tblNodes, tblPods, tblPriorityClasses, tblPDBs, tblNamespaces, tblWorkloads, tblChecksum}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("tables %v, want %v", names, want)
	}
	if rows[tblSnapshot] != 1 || rows[tblNodes] != int64(len(in.Nodes)) || rows[tblPods] != int64(len(in.Pods)) {
		t.Errorf("rows %v for %d nodes and %d pods", rows, len(in.Nodes), len(in.Pods))
	}
	for i, p := range in.Pods {
		if i >= len(podNames) || podNames[i] != p.Name {
			t.Fatalf("pod names %v", podNames)
		}
	}
}

// TestSnapshotSharesPodParts: pods of equal toleration lists decode to
// one shared slice, and pods of equal labels to one map; lists differing
// only in a toleration's seconds (unset, or another value) or in a value
// do not share, and nil and empty lists stay as they were written. Pods of
// one owner share its reference, an owner of another uid does not; so do
// requests and images.
func TestSnapshotSharesPodParts(t *testing.T) {
	secs := func(v int64) *int64 { return &v }
	base := []index.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: secs(300)},
		{Key: "dedicated", Operator: "Equal", Value: "gpu", Effect: "NoSchedule"},
	}
	variant := func(f func(ts []index.Toleration)) []index.Toleration {
		ts := make([]index.Toleration, len(base))
		copy(ts, base)
		ts[0].TolerationSeconds = secs(300)
		f(ts)
		return ts
	}
	lists := [][]index.Toleration{
		base,
		variant(func([]index.Toleration) {}), // equal to base
		variant(func(ts []index.Toleration) { ts[0].TolerationSeconds = nil }),
		variant(func(ts []index.Toleration) { ts[0].TolerationSeconds = secs(600) }),
		variant(func(ts []index.Toleration) { ts[1].Value = "tpu" }),
		nil,
		{},
		variant(func([]index.Toleration) {}), // equal to base
	}
	// Equal label sets, in a row and apart; sets differing in a value
	// next to each other.
	labels := []map[string]string{{"app": "web"}, {"app": "web"}, {"app": "api"}, {"app": "web"},
		{"app": "web", "tier": "x"}, {"app": "web", "tier": "x"}, nil, {"app": "web"}}
	in := &index.Input{}
	for i, ts := range lists {
		owner := &index.OwnerRef{Kind: "ReplicaSet", Name: "web-1", APIVersion: "apps/v1", UID: "rs-1"}
		if i == 3 {
			owner.UID = "rs-2"
		}
		p := index.Pod{Namespace: "default", Name: fmt.Sprintf("p%d", i), UID: fmt.Sprintf("u%d", i), Tolerations: ts, Owner: owner,
			Requests: []index.Quantity{{Name: "cpu", Value: 100}, {Name: "memory", Value: 1 << 20}}, Images: []string{"web:1", "side:2"}}
		if i == 4 {
			p.Requests[1].Value, p.Images[1] = 2<<20, "side:3"
		}
		p.Labels = labels[i]
		in.Pods = append(in.Pods, p)
	}
	got, _, err := decodeSnapshot("in.arrow", bytes.NewReader(snapshotBytes(t, in, false)), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("round trip differs: %s", diffInputs(in, got))
	}
	first := func(i int) *index.Toleration { return &got.Pods[i].Tolerations[0] }
	if first(0) != first(1) || first(0) != first(7) {
		t.Error("equal toleration lists decode to separate slices")
	}
	for _, i := range []int{2, 3, 4} {
		if first(i) == first(0) {
			t.Errorf("pod %d's list, unlike pod 0's, shares its slice", i)
		}
	}
	p0, p4, p7 := &got.Pods[0], &got.Pods[4], &got.Pods[7]
	if &p0.Requests[0] != &p7.Requests[0] || &p0.Images[0] != &p7.Images[0] || &p0.Requests[0] == &p4.Requests[0] || &p0.Images[0] == &p4.Images[0] {
		t.Error("requests and images: pods 0 and 7 must share, pods 0 and 4 (another value) must not")
	}
	if got.Pods[0].Owner != got.Pods[7].Owner || got.Pods[0].Owner == got.Pods[3].Owner {
		t.Errorf("owners: pods 0 and 7 share %v, pods 0 and 3 share %v; want true, false", got.Pods[0].Owner == got.Pods[7].Owner, got.Pods[0].Owner == got.Pods[3].Owner)
	}
	lm := func(i int) uintptr { return mapID(got.Pods[i].Labels) }
	if lm(0) != lm(1) || lm(0) != lm(3) || lm(0) != lm(7) || lm(4) != lm(5) || lm(0) == lm(2) || lm(0) == lm(4) {
		t.Errorf("labels: pods 0, 1, 3 and 7 must share a map, and 4 and 5; 0, 2 and 4 must not")
	}
	if l := got.Pods[0].Tolerations; cap(l) != len(l) {
		t.Errorf("a shared list has capacity %d past its %d elements: an append would write into it", cap(l), len(l))
	}
}

// TestSnapshotGCHook: Options.SnapshotGC is called once around a
// snapshot's decoding, its resume once before Load returns (also when the
// snapshot is refused), and never for JSON.
func TestSnapshotGCHook(t *testing.T) {
	in := &index.Input{
		Nodes: []index.Node{{Name: "n1", Allocatable: []index.Quantity{{Name: "cpu", Value: 4000}, {Name: "pods", Value: 110}}}},
		Pods:  []index.Pod{{Namespace: "default", Name: "p", UID: "u", Requests: []index.Quantity{{Name: "cpu", Value: 100}}}},
	}
	dir := t.TempDir()
	snap := filepath.Join(dir, "in.arrow")
	b := snapshotBytes(t, in, false)
	if err := os.WriteFile(snap, b, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.arrow")
	if err := os.WriteFile(bad, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "in.json")
	if err := os.WriteFile(js, []byte(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file    string
		calls   int
		wantErr bool
	}{{snap, 1, false}, {bad, 1, true}, {js, 0, false}} {
		paused, resumed := 0, 0
		opts := Options{SnapshotGC: func() func() {
			paused++
			return func() { resumed++ }
		}}
		got, _, err := LoadWithInfo([]string{tc.file}, opts)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: error %v, want error %t", filepath.Base(tc.file), err, tc.wantErr)
		}
		if paused != tc.calls || resumed != tc.calls {
			t.Errorf("%s: paused %d times, resumed %d times; want %d and %d", filepath.Base(tc.file), paused, resumed, tc.calls, tc.calls)
		}
		if err == nil && len(got.Nodes) != 1 {
			t.Errorf("%s: %d nodes, want 1", filepath.Base(tc.file), len(got.Nodes))
		}
	}
}

// TestCapAllocator: a freed buffer of poolMin bytes or more comes back,
// zeroed, for the next allocation of its size class; smaller ones and
// buffers of other capacities are left to the collector; sizes beyond max
// are refused.
func TestCapAllocator(t *testing.T) {
	a := &capAllocator{max: 1 << 20}
	b := a.Allocate(5000)
	if len(b) != 5000 || cap(b) != 8192 {
		t.Fatalf("Allocate(5000): len %d cap %d, want 5000 and 8192", len(b), cap(b))
	}
	// reuse fills a buffer of size bytes, frees it and allocates again
	// with again bytes: the same buffer must come back, zeroed.
	reuse := func(size, again int) (old, got []byte) {
		t.Helper()
		old = a.Allocate(size)
		for i := range old[:cap(old)] {
			old[:cap(old)][i] = 0xee
		}
		a.Free(old)
		got = a.Allocate(again)
		if &got[0] != &old[0] {
			t.Fatalf("Allocate(%d) after freeing a buffer of %d: a new buffer, want the freed one", again, cap(old))
		}
		for i, v := range got {
			if v != 0 {
				t.Fatalf("reused buffer: byte %d is %#x, want 0", i, v)
			}
		}
		return old, got
	}
	a.Free(b)
	_, c := reuse(6000, 7000)
	if d := a.Allocate(7000); &d[0] == &c[0] {
		t.Fatalf("a buffer in use handed out twice")
	}
	// Growing within the capacity shows zeros, not the last user's bytes.
	_, short := reuse(1<<14, 9000)
	for i, v := range a.Reallocate(1<<14, short) {
		if v != 0 {
			t.Fatalf("reused buffer grown in place: byte %d is %#x, want 0", i, v)
		}
	}
	small := a.Allocate(100)
	a.Free(small)
	if a.free[bits.Len(uint(100-1))] != nil {
		t.Errorf("a buffer under poolMin was kept")
	}
	odd := make([]byte, 5000)
	a.Free(odd)
	for k, l := range a.free {
		if len(l) > 0 {
			t.Errorf("a buffer of capacity 5000 was kept (class %d)", k)
		}
	}
	grown := a.Reallocate(20000, c)
	if cap(grown) != 32768 || len(grown) != 20000 {
		t.Fatalf("Reallocate(20000): len %d cap %d, want 20000 and 32768", len(grown), cap(grown))
	}
	if e := a.Allocate(8000); &e[0] != &c[0] {
		t.Errorf("the buffer Reallocate grew out of was not freed")
	}
	defer func() {
		if recover() == nil {
			t.Errorf("Allocate beyond max: no panic")
		}
	}()
	a.Allocate(2 << 20)
}

// TestSnapshotSharesPodTerms: the pods of a batch with equal spread
// constraints and pod (anti-)affinity lists decode to shared lists, and
// only those.
func TestSnapshotSharesPodTerms(t *testing.T) {
	in := &index.Input{Pods: termVariants()}
	for i := range in.Pods {
		in.Pods[i].Namespace, in.Pods[i].Name, in.Pods[i].UID = "default", fmt.Sprintf("p%d", i), fmt.Sprintf("u%d", i)
	}
	got, _, err := decodeSnapshot("in.arrow", bytes.NewReader(snapshotBytes(t, in, false)), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("round trip differs: %s", diffInputs(in, got))
	}
	checkTermsShared(t, got.Pods, in.Pods)
}
