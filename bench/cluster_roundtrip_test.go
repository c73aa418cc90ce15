package bench

import (
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
)

// TestClusterRoundTrip writes every profile's cluster with
// export.WriteCluster and reads it back: the same model, field for field
// (effective and non-zero requests included), but for where each object
// was read from.
func TestClusterRoundTrip(t *testing.T) {
	for _, prof := range Profiles() {
		t.Run(prof, func(t *testing.T) {
			in := loadGenerated(t, GenConfig{Profile: prof, Nodes: 300, Pods: 1500, Running: -1, Seed: 3})
			back := writeAndLoad(t, in)
			if msg := sameInput(in, back); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}

func writeAndLoad(t *testing.T, in *index.Input) *index.Input {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.json")
	if err := export.WriteFileAtomic(path, func(w io.Writer) error { return export.WriteCluster(w, in) }); err != nil {
		t.Fatal(err)
	}
	back, err := ingest.Load([]string{path}, ingest.Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// sameInput compares two models object by object; "" when equal.
func sameInput(a, b *index.Input) string {
	if len(a.Nodes) != len(b.Nodes) || len(a.Pods) != len(b.Pods) {
		return fmt.Sprintf("%d nodes, %d pods read back as %d, %d", len(a.Nodes), len(a.Pods), len(b.Nodes), len(b.Pods))
	}
	for i := range a.Nodes {
		x, y := a.Nodes[i], b.Nodes[i]
		x.Src, y.Src = index.Source{}, index.Source{}
		if !reflect.DeepEqual(normNode(x), normNode(y)) {
			return fmt.Sprintf("node %s:\n%+v\nread back as\n%+v", x.Name, x, y)
		}
	}
	for i := range a.Pods {
		x, y := a.Pods[i], b.Pods[i]
		x.Src, y.Src = index.Source{}, index.Source{}
		if !reflect.DeepEqual(normPod(x), normPod(y)) {
			return fmt.Sprintf("pod %s/%s:\n%+v\nread back as\n%+v", x.Namespace, x.Name, x, y)
		}
	}
	for _, c := range []struct {
		name string
		a, b any
	}{{"priority classes", a.PriorityClasses, b.PriorityClasses}, {"PDBs", a.PDBs, b.PDBs},
		{"namespaces", a.Namespaces, b.Namespaces}, {"workloads", a.Workloads, b.Workloads}} {
		if !reflect.DeepEqual(c.a, c.b) {
			return fmt.Sprintf("%s:\n%+v\nread back as\n%+v", c.name, c.a, c.b)
		}
	}
	return ""
}

// normNode and normPod make empty maps and slices nil: JSON drops them.
func normNode(n index.Node) index.Node {
	if len(n.Labels) == 0 {
		n.Labels = nil
	}
	if len(n.Taints) == 0 {
		n.Taints = nil
	}
	return n
}

func normPod(p index.Pod) index.Pod {
	if len(p.Labels) == 0 {
		p.Labels = nil
	}
	if len(p.NodeSelector) == 0 {
		p.NodeSelector = nil
	}
	if len(p.Tolerations) == 0 {
		p.Tolerations = nil
	}
	return p
}

// TestClusterRoundTripRequests: pods whose effective and non-zero requests
// need init containers or pod-level requests when written back.
func TestClusterRoundTripRequests(t *testing.T) {
	in, err := ingest.Load([]string{"testdata/requests.yaml"}, ingest.Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range in.Pods {
		seen[fmt.Sprint(p.ScoreCPU != cpuOf(&p), p.NonZeroCPU != p.ScoreCPU || p.NonZeroMemory != p.ScoreMemory)] = true
	}
	if len(seen) < 3 {
		t.Fatalf("the testdata lost its point: kinds %v", seen)
	}
	if msg := sameInput(in, writeAndLoad(t, in)); msg != "" {
		t.Fatal(msg)
	}
}

func cpuOf(p *index.Pod) int64 {
	v, _ := p.Requests.Get(index.NameCPU)
	return v
}
