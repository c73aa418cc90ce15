package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
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
		if y.ImageContainers > x.ImageContainers && len(x.Images) > 0 {
			// Its requests took more containers than it had: the extra
			// ones have the pause image (export.setImages).
			extra := int(y.ImageContainers - x.ImageContainers)
			k := int(x.ImageContainers)
			if len(y.Images) != len(x.Images)+extra || !slices.Equal(y.Images[:k], x.Images[:k]) ||
				!slices.Equal(y.Images[k+extra:], x.Images[k:]) || slices.ContainsFunc(y.Images[k:k+extra], func(s string) bool { return s != "registry.k8s.io/pause:latest" }) {
				return fmt.Sprintf("pod %s/%s: images %q (%d containers) read back as %q (%d)", x.Namespace, x.Name, x.Images, x.ImageContainers, y.Images, y.ImageContainers)
			}
			y.Images, y.ImageContainers = x.Images, x.ImageContainers
		}
		if nx, ny := normPod(x), normPod(y); !reflect.DeepEqual(nx, ny) {
			return fmt.Sprintf("pod %s/%s: %s", x.Namespace, x.Name, fieldDiff(nx, ny))
		}
	}
	for _, c := range []struct {
		name string
		a, b any
	}{{"priority classes", a.PriorityClasses, b.PriorityClasses}, {"PDBs", a.PDBs, b.PDBs},
		{"namespaces", a.Namespaces, b.Namespaces}} {
		if !reflect.DeepEqual(c.a, c.b) {
			return fmt.Sprintf("%s:\n%+v\nread back as\n%+v", c.name, c.a, c.b)
		}
	}
	if len(a.Workloads) != len(b.Workloads) {
		return fmt.Sprintf("%d workloads read back as %d", len(a.Workloads), len(b.Workloads))
	}
	for i := range a.Workloads {
		x, y := normWorkload(a.Workloads[i]), normWorkload(b.Workloads[i])
		if !reflect.DeepEqual(x, y) {
			return fmt.Sprintf("%s %s/%s: %s", x.Kind, x.Namespace, x.Name, fieldDiff(x, y))
		}
	}
	return ""
}

// normWorkload drops where w was read from and compacts its JSON fields
// (the writer does).
func normWorkload(w index.Workload) index.Workload {
	w.Src = index.Source{}
	for _, raw := range []*[]byte{&w.Template, &w.ClaimTemplates} {
		if *raw != nil {
			var buf bytes.Buffer
			if err := json.Compact(&buf, *raw); err == nil {
				*raw = buf.Bytes()
			}
		}
	}
	return w
}

// fieldDiff names the first field where a and b (structs of one type)
// differ, with both values.
func fieldDiff(a, b any) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		fa, fb := va.Field(i).Interface(), vb.Field(i).Interface()
		if !reflect.DeepEqual(fa, fb) {
			return fmt.Sprintf("%s %+v read back as %+v", va.Type().Field(i).Name, fa, fb)
		}
	}
	return "equal"
}

// normNode and normPod make empty maps and slices nil: JSON drops them.
func normNode(n index.Node) index.Node {
	if len(n.Labels) == 0 {
		n.Labels = nil
	}
	if len(n.Taints) == 0 {
		n.Taints = nil
	}
	if len(n.Images) == 0 {
		n.Images = nil
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
