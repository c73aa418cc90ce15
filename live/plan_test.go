package live

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadPlan: a List, JSON lines and the two files of place --split read
// into the same items; the digest follows the bytes, not the file names;
// bad items are errors naming the file, the item and the field.
func TestReadPlan(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string { return writeFile(t, filepath.Join(dir, name), body) }
	ev, bi := eviction("ns", "v", "u-v", "n1", "p"), binding("ns", "p", "u-p", "n1")
	list := write("list.json", `{"apiVersion":"v1","kind":"List","metadata":{},"items":[`+"\n"+ev+",\n"+bi+"\n]}\n")
	lines := write("lines.jsonl", ev+"\n"+bi+"\n")
	evFile := write("r.evictions.json", `{"apiVersion":"v1","items":[`+ev+`],"kind":"List"}`)
	biFile := write("r.bindings.json", `{"kind":"List","apiVersion":"v1","items":[`+bi+`]}`)
	var plans []*Plan
	for _, paths := range [][]string{{list}, {lines}, {evFile, biFile}} {
		p, err := ReadPlan(paths)
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	want := []Item{
		{Op: OpEvict, Namespace: "ns", Name: "v", UID: "u-v", Node: "n1", Preemptor: "ns/p"},
		{Op: OpBind, Namespace: "ns", Name: "p", UID: "u-p", Node: "n1"},
	}
	for k, p := range plans {
		if len(p.Items) != 2 {
			t.Fatalf("plan %d: %d items", k, len(p.Items))
		}
		for i, it := range p.Items {
			w := want[i]
			if it.Op != w.Op || it.Namespace != w.Namespace || it.Name != w.Name || it.UID != w.UID || it.Node != w.Node || it.Preemptor != w.Preemptor {
				t.Errorf("plan %d item %d: %+v, want %+v", k, i, it, w)
			}
		}
	}
	again, _ := ReadPlan([]string{write("renamed.json", mustRead(t, list))})
	if again.Digest != plans[0].Digest || plans[1].Digest == plans[0].Digest {
		t.Errorf("digests: %s %s %s", plans[0].Digest, again.Digest, plans[1].Digest)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}`, `bad.json: item 0: v1 "Pod": only v1 Binding and policy/v1 Eviction`},
		{`{"apiVersion":"v1","kind":"List","items":[` + bi + `,{"apiVersion":"v1","kind":"Binding","metadata":{"name":"q"}}]}`, `bad.json: item 1: Binding default/q: target.name: required`},
		{`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"q"},"target":{"kind":"Pod","name":"x"}}`, `target.kind: "Pod": want Node`},
		{`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{}}`, `metadata.name: required`},
		{`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"q"},"target":{"name":"n"}`, `bad.json: unexpected EOF`},
		{`[1]`, `want a JSON object`},
	} {
		_, err := ReadPlan([]string{write("bad.json", tc.body)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.body, err, tc.want)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
