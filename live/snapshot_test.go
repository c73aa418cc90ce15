package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kplace/kplace/live/livetest"
)

// TestSnapshotPages: WriteSnapshot reads each kind in pages of PageSize
// (continue tokens: one LIST per page, no other request) and writes a v1
// List whose items carry apiVersion and kind, without managedFields, each
// object once.
func TestSnapshotPages(t *testing.T) {
	e := newEnv(t)
	k := e.s.Client(t)
	objs := []any{livetest.Namespace(e.ns)}
	for i := range 3 {
		objs = append(objs, livetest.Node(e.node(fmt.Sprint(i)), 1000, "1Gi", nil))
	}
	for i := range 23 {
		objs = append(objs, livetest.Pod(e.ns, podName(i), 10, "", 0, nil))
	}
	created := livetest.Create(t, k, objs...)
	c := e.client(t, 1000)
	var buf bytes.Buffer
	const page = 5
	st, err := WriteSnapshot(context.Background(), c, &buf, SnapshotOptions{PageSize: page})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		APIVersion, Kind string
		Items            []struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name, Namespace, UID string
				ManagedFields        []any `json:"managedFields"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(buf.Bytes(), &list); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if list.APIVersion != "v1" || list.Kind != "List" {
		t.Errorf("list %s %s", list.APIVersion, list.Kind)
	}
	pages, total := 0, 0
	for _, kc := range st.Objects {
		pages += max(1, (kc.Count+page-1)/page)
		total += kc.Count
	}
	if st.Lists != pages || c.Requests() != int64(pages) || len(list.Items) != total {
		t.Errorf("%d LIST requests (%d sent in all) for %d objects %v: want %d", st.Lists, c.Requests(), len(list.Items), st.Objects, pages)
	}
	seen := map[string]bool{}
	mine := 0
	for _, it := range list.Items {
		m := it.Metadata
		key := it.Kind + "/" + m.Namespace + "/" + m.Name
		switch {
		case it.APIVersion == "" || it.Kind == "":
			t.Fatalf("%s: no apiVersion or kind", key)
		case m.ManagedFields != nil:
			t.Errorf("%s: managedFields kept", key)
		case seen[key]:
			t.Errorf("%s twice", key)
		}
		seen[key] = true
		if it.Kind == "Pod" && m.Namespace == e.ns {
			mine++
			if p := created[m.Name]; p == nil || string(p.UID) != m.UID || it.APIVersion != "v1" {
				t.Errorf("pod %s: uid %s, apiVersion %s", m.Name, m.UID, it.APIVersion)
			}
		}
	}
	if mine != 23 {
		t.Errorf("%d of the test's 23 pods", mine)
	}
}
