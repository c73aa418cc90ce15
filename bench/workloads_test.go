package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
)

// TestExportInvariant runs checkExportInvariant on a generated export
// whose controllers hold all their pods (70% running, 30% pending) and
// whose DaemonSets lack their pod on a tenth of their nodes.
func TestExportInvariant(t *testing.T) {
	var b bytes.Buffer
	cfg := WorkloadConfig{Nodes: 400, Workloads: 300, DaemonSets: 4, Running: 0.7, Pending: 0.3, DaemonPods: 0.9, Seed: 5}
	if err := GenerateWorkloads(cfg, &b); err != nil {
		t.Fatal(err)
	}
	checkExportInvariant(t, b.Bytes())
}

// checkExportInvariant checks expansion against an export (a JSON List)
// whose controllers hold all their pods but for DaemonSet pods: expansion
// creates nothing but DaemonSet pods, each for a node its DaemonSet has
// no pod on; and with the export's pending pods deleted, it creates
// exactly those again (by controller, StatefulSet pod name, Job index and
// DaemonSet node) besides the same DaemonSet pods.
func checkExportInvariant(t *testing.T, export []byte) {
	t.Helper()
	dir := t.TempDir()
	full := filepath.Join(dir, "full.json")
	if err := os.WriteFile(full, export, 0o644); err != nil {
		t.Fatal(err)
	}
	in, created := expandFile(t, full)
	var pending []string
	held := map[string]bool{} // DaemonSet/node pairs the export holds
	for _, p := range in.Pods[:len(in.Pods)-len(created)] {
		if p.Owner != nil && p.Owner.Kind == index.KindDaemonSet {
			if node, ok := pinned(&p); ok {
				held[p.Owner.Name+"@"+node] = true
			}
		}
		if p.NodeName == "" {
			pending = append(pending, podKey(&p))
		}
	}
	var daemons []string
	for _, p := range created {
		k := podKey(&p)
		if p.Owner == nil || p.Owner.Kind != index.KindDaemonSet {
			t.Fatalf("expansion of a satisfied export created %s", k)
		}
		node, _ := pinned(&p)
		if held[p.Owner.Name+"@"+node] {
			t.Errorf("created %s on a node its DaemonSet runs on", k)
		}
		daemons = append(daemons, k)
	}
	if len(daemons) == 0 || len(pending) == 0 {
		t.Fatalf("the export has %d pending pods and lacks %d DaemonSet pods: nothing to check", len(pending), len(daemons))
	}

	stripped := filepath.Join(dir, "stripped.json")
	if err := os.WriteFile(stripped, withoutPending(t, export), 0o644); err != nil {
		t.Fatal(err)
	}
	_, again := expandFile(t, stripped)
	var got []string
	for _, p := range again {
		got = append(got, podKey(&p))
	}
	want := append(pending, daemons...)
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("with the pending pods deleted, expansion created %d pods, want the %d deleted and %d DaemonSet pods",
			len(got), len(pending), len(daemons))
		for i := 0; i < min(len(got), len(want)); i++ {
			if got[i] != want[i] {
				t.Fatalf("first difference: created %s, want %s", got[i], want[i])
			}
		}
	}
}

// expandFile loads and expands a file, returning the input and the pods
// expansion created.
func expandFile(t *testing.T, path string) (*index.Input, []index.Pod) {
	t.Helper()
	in, err := ingest.Load([]string{path}, ingest.Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	n := len(in.Pods)
	exp, err := ingest.Expand(in, ingest.ExpandOptions{Seed: 1, AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	if exp.Pods != len(in.Pods)-n {
		t.Fatalf("Expand reports %d pods created, Input.Pods grew by %d", exp.Pods, len(in.Pods)-n)
	}
	return in, in.Pods[n:]
}

// podKey identifies a controller's pod up to its random name: its
// controller, and its StatefulSet name, Job index or DaemonSet node.
func podKey(p *index.Pod) string {
	if p.Owner == nil {
		return p.Namespace + "/" + p.Name + " (no controller)"
	}
	k := p.Namespace + "/" + p.Owner.Kind + "/" + p.Owner.Name
	switch {
	case p.Owner.Kind == index.KindStatefulSet:
		k += " " + p.Name
	case p.Labels["batch.kubernetes.io/job-completion-index"] != "":
		k += " index " + p.Labels["batch.kubernetes.io/job-completion-index"]
	case p.Owner.Kind == index.KindDaemonSet:
		node, _ := pinned(p)
		k += " on " + node
	}
	return k
}

// pinned is the node a pod is bound or pinned to (a DaemonSet pod's
// matchFields term).
func pinned(p *index.Pod) (string, bool) {
	if p.NodeName != "" {
		return p.NodeName, true
	}
	for _, t := range p.RequiredTerms {
		for _, r := range t.MatchFields {
			if r.Key == index.FieldNodeName && r.Operator == index.SelIn && len(r.Values) == 1 {
				return r.Values[0], true
			}
		}
	}
	return "", false
}

// withoutPending returns a JSON List without its pending pods (Pods with
// no spec.nodeName).
func withoutPending(t *testing.T, list []byte) []byte {
	t.Helper()
	var l struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(list, &l); err != nil {
		t.Fatal(err)
	}
	kept := l.Items[:0]
	for _, it := range l.Items {
		var o struct {
			Kind string
			Spec struct{ NodeName string }
		}
		if err := json.Unmarshal(it, &o); err != nil {
			t.Fatal(err)
		}
		if o.Kind != "Pod" || o.Spec.NodeName != "" {
			kept = append(kept, it)
		}
	}
	l.Items = kept
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
