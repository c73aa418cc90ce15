package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kplace/kplace/export"
)

// The fuzz targets here read from memory: they need no API server
// (TestMain starts one only when a test asks livetest.Shared).

// FuzzReadPlan: reading a result file never panics; an error names the
// file first; every item read has what add requires (a name, a namespace,
// a Binding's node), and the items written back as a List and as JSON
// lines read back the same.
func FuzzReadPlan(f *testing.F) {
	ev, bi := eviction("ns", "v", "u-v", "n1", "p"), binding("ns", "p", "u-p", "n1")
	for _, s := range []string{
		// Valid (plan_test.go).
		`{"apiVersion":"v1","kind":"List","metadata":{},"items":[` + "\n" + ev + ",\n" + bi + "\n]}\n",
		ev + "\n" + bi + "\n",
		`{"apiVersion":"v1","items":[` + ev + `],"kind":"List"}`,
		`{"kind":"List","apiVersion":"v1","items":[` + bi + `]}`,
		bi + " " + ev + `{"kind":"PodList","items":[]}`,
		`{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"x"},"deleteOptions":{"gracePeriodSeconds":0,"preconditions":{"uid":"u","resourceVersion":"7"}}}`,
		`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"q","uid":""},"target":{"name":"n"},"extra":[1,{"a":null}]}`,
		"",
		// Malformed (plan_test.go's errors and more).
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}`,
		`{"apiVersion":"v1","kind":"List","items":[` + bi + `,{"apiVersion":"v1","kind":"Binding","metadata":{"name":"q"}}]}`,
		`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"q"},"target":{"kind":"Pod","name":"x"}}`,
		`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{}}`,
		`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"q"},"target":{"name":"n"}`,
		`[1]`,
		`{"kind":"Binding","items":[]}`,
		`{"items":{}}`,
		`{"apiVersion":"v1","kind":"List","items":[` + bi,
		`{"metadata":[]}`,
		`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"x"},"deleteOptions":{"preconditions":{"uid":5}}}`,
	} {
		f.Add([]byte(s))
	}
	const path = "dir/result.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		p := &Plan{}
		err := p.read(path, bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("error %q: want it to start with the file", err)
			}
			return
		}
		checkItems(t, path, p.Items)
		// Written back, as a List and as JSON lines: the same items.
		lines := make([]string, len(p.Items))
		for i := range p.Items {
			lines[i] = writeItem(t, &p.Items[i])
		}
		for _, back := range []string{
			`{"apiVersion":"v1","kind":"List","metadata":{},"items":[` + strings.Join(lines, ",") + "]}",
			strings.Join(lines, "\n"),
		} {
			q := &Plan{}
			if err := q.read(path, strings.NewReader(back)); err != nil {
				t.Fatalf("items written back: %v\n%s", err, back)
			}
			if len(q.Items) != len(p.Items) {
				t.Fatalf("items written back: %d items, want %d\n%s", len(q.Items), len(p.Items), back)
			}
			for i := range q.Items {
				a, b := &p.Items[i], &q.Items[i]
				if a.Op != b.Op || a.Namespace != b.Namespace || a.Name != b.Name || a.UID != b.UID || a.Node != b.Node || a.Preemptor != b.Preemptor || a.Src != b.Src {
					t.Fatalf("item %d written back: %+v, want %+v", i, b, a)
				}
			}
		}
	})
}

// checkItems checks what add promises of each item of one file.
func checkItems(t *testing.T, path string, items []Item) {
	t.Helper()
	for i := range items {
		it := &items[i]
		if it.Name == "" || it.Namespace == "" || it.Src != fmt.Sprintf("%s: item %d", path, i) {
			t.Fatalf("item %d: %+v: want a name, a namespace and its place in the file", i, it)
		}
		switch it.Op {
		case OpBind:
			if it.Node == "" || it.DeleteOptions != nil || it.Preemptor != "" {
				t.Fatalf("item %d: Binding %+v", i, it)
			}
		case OpEvict:
			uid := ""
			if o := it.DeleteOptions; o != nil && o.Preconditions != nil && o.Preconditions.UID != nil {
				uid = string(*o.Preconditions.UID)
			}
			if it.UID != uid {
				t.Fatalf("item %d: Eviction UID %q, its preconditions' %q", i, it.UID, uid)
			}
		default:
			t.Fatalf("item %d: op %d", i, it.Op)
		}
	}
}

// writeItem writes an item as the v1 Binding or policy/v1 Eviction it was
// read from.
func writeItem(t *testing.T, it *Item) string {
	t.Helper()
	md := map[string]any{"name": it.Name, "namespace": it.Namespace, "uid": it.UID}
	obj := map[string]any{"apiVersion": "v1", "kind": "Binding", "metadata": md, "target": map[string]any{"kind": "Node", "name": it.Node}}
	if it.Op == OpEvict {
		delete(md, "uid")
		md["annotations"] = map[string]string{export.NodeAnnotation: it.Node, export.PreemptorAnnotation: it.Preemptor}
		obj = map[string]any{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": md, "deleteOptions": it.DeleteOptions}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("item %+v: %v", it, err)
	}
	return string(b)
}

// fuzzDigest is the result digest of FuzzJournal's journals.
const fuzzDigest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

// FuzzJournal: reading a journal never panics; an error names the
// journal; what it returns stays within the plan and the records read;
// a journal it accepts, cut anywhere after its header (a run that died
// while writing), is accepted too.
func FuzzJournal(f *testing.F) {
	header := func(items int, dryRun bool) string {
		b, _ := json.Marshal(journalHeader{Journal: "kplace-bind", Version: journalVersion, Result: fuzzDigest, Items: items, DryRun: dryRun})
		return string(b) + "\n"
	}
	rec := func(seq int, event string) string {
		b, _ := json.Marshal(journalRecord{Seq: seq, Event: event, Kind: "Binding", Namespace: "ns", Name: fmt.Sprintf("p%d", seq), Node: "n1", Time: "2024-01-02T03:04:05.123456789Z"})
		return string(b) + "\n"
	}
	for _, c := range []struct {
		data   string
		items  uint8
		dryRun bool
		cut    uint16
	}{
		// Valid, as openJournal and Bind write them.
		{header(3, false), 3, false, 0},
		{header(3, false) + rec(0, evBound) + rec(1, evEvicted) + rec(1, evGone) + rec(2, evFailed), 3, false, 200},
		{header(2, true) + rec(1, evBound) + rec(0, evEvicted), 2, true, 90},
		{header(2, false) + rec(0, evBound) + `{"seq":1,"event":"bou`, 2, false, 150}, // cut short
		{header(0, false), 0, false, 0},
		// Malformed.
		{"", 1, false, 0},
		{"not json\n", 1, false, 0},
		{`{"journal":"kplace-bind","version":2}` + "\n", 0, false, 0},
		{header(4, false), 3, false, 0},
		{header(3, true), 3, false, 0},
		{header(2, false) + "garbage\n" + rec(0, evBound), 2, false, 0},
		{header(2, false) + rec(5, evBound), 2, false, 0},
		{header(2, false) + rec(-1, evGone) + rec(0, evGone), 2, false, 0},
	} {
		f.Add([]byte(c.data), c.items, c.dryRun, c.cut)
	}
	const path = "dir/bind.journal"
	read := func(t *testing.T, data []byte, want *journalHeader) (*journalState, error) {
		n := want.Items
		st := &journalState{bound: make([]bool, n), evicted: make([]bool, n), gone: make([]bool, n)}
		err := st.read(path, bytes.NewReader(data), want)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "journal "+path+": ") {
				t.Fatalf("error %q: want it to name the journal", err)
			}
			if strings.Contains(err.Error(), ": empty: ") && len(data) > 0 {
				t.Fatalf("error %q on %d bytes", err, len(data))
			}
			return nil, err
		}
		if len(st.bound) != n || len(st.evicted) != n || len(st.gone) != n {
			t.Fatalf("%d items: state of %d, %d, %d", n, len(st.bound), len(st.evicted), len(st.gone))
		}
		// Each record sets at most one of bound and evicted (gone sets
		// evicted too); there are no more records than lines after the
		// header.
		set := 0
		for i := range n {
			if st.gone[i] && !st.evicted[i] {
				t.Fatalf("item %d gone, not evicted", i)
			}
			if st.bound[i] {
				set++
			}
			if st.evicted[i] {
				set++
			}
		}
		lines := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++
		}
		if st.records < set || st.records > lines-1 {
			t.Fatalf("%d records, %d items bound or evicted, %d lines", st.records, set, lines)
		}
		return st, nil
	}
	f.Fuzz(func(t *testing.T, data []byte, items uint8, dryRun bool, cut uint16) {
		want := &journalHeader{Journal: "kplace-bind", Version: journalVersion, Result: fuzzDigest, Items: int(items), DryRun: dryRun}
		st, err := read(t, data, want)
		if err != nil {
			return
		}
		// Cut after the header: a last line cut short is ignored, what
		// comes before it is kept.
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return
		}
		k := nl + 1 + int(cut)%(len(data)-nl)
		cst, err := read(t, data[:k], want)
		if err != nil {
			t.Fatalf("cut at %d of %d: %v", k, len(data), err)
		}
		if cst.records > st.records+1 {
			t.Fatalf("cut at %d of %d: %d records, %d uncut", k, len(data), cst.records, st.records)
		}
	})
}

// TestJournalLongLine: a line longer than the reader takes (1 MiB) is an
// error naming the journal and the line, not a bare scanner error (nor,
// in the header, an empty journal). Not a fuzz seed: at 1 MiB it would
// slow FuzzJournal's every run.
func TestJournalLongLine(t *testing.T) {
	hdr, _ := json.Marshal(journalHeader{Journal: "kplace-bind", Version: journalVersion, Result: fuzzDigest, Items: 2})
	long := strings.Repeat("x", 1<<20+1)
	for _, c := range []struct{ data, want string }{
		{string(hdr) + "\n" + long + "\n", "journal j: line 2: bufio.Scanner: token too long"},
		{string(hdr) + "\ngarbage\n" + long, "journal j: line 3: bufio.Scanner: token too long"},
		{long, "journal j: line 1: bufio.Scanner: token too long"},
	} {
		st := &journalState{bound: make([]bool, 2), evicted: make([]bool, 2), gone: make([]bool, 2)}
		err := st.read("j", strings.NewReader(c.data), &journalHeader{Result: fuzzDigest, Items: 2})
		if err == nil || err.Error() != c.want {
			t.Errorf("%.40q...: %v, want %s", c.data, err, c.want)
		}
	}
}
