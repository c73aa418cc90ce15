package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
)

// smallWindow makes JSON streams start with a window of size bytes for the
// rest of the test, so that small inputs refill and move the window often.
func smallWindow(t testing.TB, size int) {
	old := streamWindow
	streamWindow = size
	t.Cleanup(func() { streamWindow = old })
}

// TestTruncatedJSON cuts a JSON list at many bytes and loads the prefix,
// sequentially and in parallel, with windows from tiny to the default:
// every cut is an *Error saying the file is truncated, never a panic (a
// capture that refilled the window used to slice the buffer with an index
// taken before the refill).
func TestTruncatedJSON(t *testing.T) {
	data, err := os.ReadFile("testdata/list.json")
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.TrimRight(data, " \n") // every shorter prefix is truncated
	for _, window := range []int{16, 300, 64 << 10} {
		smallWindow(t, window)
		step := 3 // most cuts through the tiny window, a sample for the others
		if window > 16 {
			step = 17
		}
		if testing.Short() {
			step = 41
		}
		for _, par := range []int{1, 3} {
			for cut := 1; cut < len(data); cut += step {
				_, err := loadBytes(data[:cut], Options{Parallelism: par})
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("window %d, parallelism %d, cut at %d of %d: error %T %v, want an *Error", window, par, cut, len(data), err, err)
				}
				if !strings.Contains(e.Msg, "truncated file?") || e.File != "in" || e.Line < 1 {
					t.Fatalf("window %d, parallelism %d, cut at %d: %v, want a truncation at a line of in", window, par, cut, err)
				}
			}
		}
	}
}

// TestPDBv1beta1 reads policy/v1beta1 budgets as the API server converts
// them: an empty selector selects no pod (nil), where in policy/v1 it
// selects every pod of the namespace; other selectors are kept.
func TestPDBv1beta1(t *testing.T) {
	in, err := loadYAML(t, `apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: old-empty}
spec: {minAvailable: 1, selector: {}}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: old-app}
spec: {maxUnavailable: 50%, selector: {matchLabels: {app: web}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: new-empty}
spec: {minAvailable: 1, selector: {}}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.SkippedKinds) != 0 || len(in.PDBs) != 3 {
		t.Fatalf("skipped %v, budgets %+v", in.SkippedKinds, in.PDBs)
	}
	if s := in.PDBs[0].Selector; s != nil {
		t.Errorf("v1beta1 empty selector: %+v, want nil (no pod)", s)
	}
	if s := in.PDBs[1].Selector; s == nil || s.MatchLabels["app"] != "web" || in.PDBs[1].MaxUnavailable != "50%" {
		t.Errorf("v1beta1 budget: %+v", in.PDBs[1])
	}
	if s := in.PDBs[2].Selector; s == nil || len(s.MatchLabels)+len(s.MatchExpressions) != 0 {
		t.Errorf("v1 empty selector: %+v, want empty (every pod)", s)
	}
}

// TestSnapshotValidation writes snapshots of a valid input with one value
// made invalid, as a crafted file could hold it (its checksums valid), and
// loads them: each is refused with the error the same value gets from
// JSON, naming the snapshot, the object, the file and line it came from
// and the field.
func TestSnapshotValidation(t *testing.T) {
	base := func() *index.Input {
		in, err := Load([]string{"testdata/list.json"}, Options{AdmissionDefaults: true})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	in := base()
	// The first pending pod and the first node, and where they came from.
	pi := slices.IndexFunc(in.Pods, func(p index.Pod) bool { return p.NodeName == "" && p.Rejected == "" })
	pod, node := in.Pods[pi], in.Nodes[0]
	podAt := fmt.Sprintf("cluster.arrow: Pod %s/%s (from testdata/list.json:%d): ", pod.Namespace, pod.Name, pod.Src.Line)
	nodeAt := fmt.Sprintf("cluster.arrow: Node %s (from testdata/list.json:%d): ", node.Name, node.Src.Line)
	term := index.NodeSelectorTerm{MatchExpressions: []index.Requirement{{Key: "zone", Operator: "Exists"}}}
	spread := index.SpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: index.DoNotSchedule, MinDomains: 1,
		NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore, Selector: &index.LabelSelector{}}
	cases := []struct {
		name   string
		mutate func(in *index.Input, p *index.Pod, n *index.Node)
		want   string
	}{
		{"preferred weight 0", func(_ *index.Input, p *index.Pod, _ *index.Node) {
			p.PreferredTerms = []index.PreferredTerm{{Weight: 0, Term: term}}
		}, podAt + "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: must be in the range 1-100, found 0"},
		{"preferred weight 2^30", func(_ *index.Input, p *index.Pod, _ *index.Node) {
			p.PreferredTerms = []index.PreferredTerm{{Weight: 50, Term: term}, {Weight: 1 << 30, Term: term}}
		}, podAt + "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].weight: must be in the range 1-100, found 1073741824"},
		{"negative request", func(_ *index.Input, p *index.Pod, _ *index.Node) {
			p.Requests = index.ResourceList{{Name: "cpu", Value: -5}}
		}, podAt + "spec (effective requests).cpu: quantity -5 out of range (0 to 2^63-2)"},
		{"MaxInt64 request", func(_ *index.Input, p *index.Pod, _ *index.Node) {
			p.Requests = index.ResourceList{{Name: "memory", Value: math.MaxInt64}}
		}, podAt + "spec (effective requests).memory: quantity 9223372036854775807 out of range (0 to 2^63-2)"},
		{"negative scoring request", func(_ *index.Input, p *index.Pod, _ *index.Node) { p.ScoreCPU = -1 },
			podAt + "spec (scoring requests): quantity -1 out of range (0 to 2^63-2)"},
		{"MaxInt64 allocatable", func(_ *index.Input, _ *index.Pod, n *index.Node) {
			n.Allocatable = index.ResourceList{{Name: "cpu", Value: math.MaxInt64}}
		}, nodeAt + "status.allocatable.cpu: quantity 9223372036854775807 out of range (0 to 2^63-2)"},
		{"unknown toleration operator", func(_ *index.Input, p *index.Pod, _ *index.Node) {
			p.Tolerations = []index.Toleration{{Key: "a", Operator: "Like"}}
		}, podAt + `spec.tolerations[0].operator: unknown toleration operator "Like"`},
		{"unknown taint effect", func(_ *index.Input, _ *index.Pod, n *index.Node) {
			n.Taints = []index.Taint{{Key: "a", Effect: "Sometimes"}}
		}, nodeAt + `spec.taints[0].effect: unknown taint effect "Sometimes"`},
		{"unknown node selector operator", func(_ *index.Input, p *index.Pod, _ *index.Node) {
			p.RequiredTerms = []index.NodeSelectorTerm{{MatchFields: []index.Requirement{{Key: "metadata.name", Operator: "Near"}}}}
		}, podAt + `spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].operator: unknown operator "Near"`},
		{"maxSkew 0", func(_ *index.Input, p *index.Pod, _ *index.Node) {
			s := spread
			s.MaxSkew = 0
			p.Spread = []index.SpreadConstraint{s}
		}, podAt + "spec.topologySpreadConstraints[0].maxSkew: must be at least 1, found 0"},
		{"minDomains with ScheduleAnyway", func(_ *index.Input, p *index.Pod, _ *index.Node) {
			s := spread
			s.WhenUnsatisfiable, s.MinDomains = index.ScheduleAnyway, 3
			p.Spread = []index.SpreadConstraint{s}
		}, podAt + "spec.topologySpreadConstraints[0].minDomains: may only be set when whenUnsatisfiable is DoNotSchedule, not ScheduleAnyway"},
		{"host port -1", func(_ *index.Input, p *index.Pod, _ *index.Node) {
			p.HostPorts = []index.HostPort{{Protocol: "TCP", Port: -1}}
		}, podAt + "spec (host ports): hostPort -1: must be in the range 1-65535"},
		{"empty pod name", func(_ *index.Input, p *index.Pod, _ *index.Node) { p.Name = "" },
			fmt.Sprintf("cluster.arrow: Pod %s/(no name) (from testdata/list.json:%d): metadata.name: missing", pod.Namespace, pod.Src.Line)},
		{"empty node name", func(_ *index.Input, _ *index.Pod, n *index.Node) { n.Name = "" },
			fmt.Sprintf("cluster.arrow: Node (no name) (from testdata/list.json:%d): metadata.name: missing", node.Src.Line)},
		{"duplicate pod", func(in *index.Input, p *index.Pod, _ *index.Node) {
			in.Pods = append(in.Pods, *p)
		}, fmt.Sprintf("cluster.arrow: Pod %s/%s (from testdata/list.json:%d): duplicate object: first defined at testdata/list.json:%[3]d", pod.Namespace, pod.Name, pod.Src.Line)},
		{"two global defaults", func(in *index.Input, _ *index.Pod, _ *index.Node) {
			in.PriorityClasses = append(in.PriorityClasses, index.PriorityClass{Name: "d1", Value: 1, GlobalDefault: true})
		}, "cluster.arrow: PriorityClass d1: globalDefault: PriorityClass default-low is the global default already"},
		{"user class above 1e9", func(in *index.Input, _ *index.Pod, _ *index.Node) {
			in.PriorityClasses[0].Value = 2000000000
		}, fmt.Sprintf("cluster.arrow: PriorityClass %s: value: 2000000000 is above 1000000000, the highest priority a user-defined class may have", in.PriorityClasses[0].Name)},
		{"negative skipped count", func(in *index.Input, _ *index.Pod, _ *index.Node) { in.OtherScheduler = -2 },
			`cluster.arrow: snapshot table "snapshot": other_scheduler -2 is negative`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := base()
			tc.mutate(in, &in.Pods[pi], &in.Nodes[0])
			path := filepath.Join(t.TempDir(), "cluster.arrow")
			if err := os.WriteFile(path, snapshotBytes(t, in, true), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, m := range modes {
				_, err := Load([]string{path}, Options{Parallelism: m.parallelism})
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%s: error %T %v, want an *Error", m.name, err, err)
				}
				if got := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), ""); got != tc.want {
					t.Errorf("%s: error\n  got:  %s\n  want: %s", m.name, got, tc.want)
				}
			}
		})
	}
}
