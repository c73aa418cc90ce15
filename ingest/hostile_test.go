package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

// TestTruncatedJSON cuts a JSON list at many bytes (every byte with -long)
// and loads the prefix,
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
		step := 7 // most cuts through the tiny window, a sample for the others
		if window > 16 {
			step = 43
		}
		switch {
		case *long:
			step = 1 // every cut
		case testing.Short():
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

// TestItemsNull: a List whose items are null (JSON null, or an empty
// "items:" in YAML), at the top or inside another list's items, holds no
// objects; it is not an object of kind List to skip.
func TestItemsNull(t *testing.T) {
	for _, text := range []string{
		`{"apiVersion": "v1", "kind": "List", "items": null}` + "\n" + `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}`,
		`{"items": null, "kind": "NodeList", "apiVersion": "v1"}{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}`,
		`{"kind": "List", "items": [{"apiVersion": "v1", "kind": "List", "items": null}, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}]}`,
		"apiVersion: v1\nkind: List\nitems:\n---\napiVersion: v1\nkind: Node\nmetadata: {name: a}\n",
	} {
		for _, m := range modes {
			in, err := loadBytes([]byte(text), Options{Parallelism: m.parallelism})
			if err != nil {
				t.Fatalf("%s: %q: %v", m.name, text, err)
			}
			if len(in.SkippedKinds) != 0 || len(in.Nodes) != 1 || in.Nodes[0].Name != "a" {
				t.Errorf("%s: %q: skipped %v, nodes %+v; want nothing skipped and node a", m.name, text, in.SkippedKinds, in.Nodes)
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
		{"duplicate node", func(in *index.Input, _ *index.Pod, n *index.Node) {
			in.Nodes = append(in.Nodes, *n)
		}, nodeAt + "duplicate object: first defined at cluster.arrow"},
		{"duplicate pod after a bad one", func(in *index.Input, p *index.Pod, _ *index.Node) {
			p.HostPorts = []index.HostPort{{Protocol: "TCP", Port: -1}}
			in.Pods = append(in.Pods, *p)
		}, podAt + "spec (host ports): hostPort -1: must be in the range 1-65535"},
		{"bad pod after a duplicate", func(in *index.Input, p *index.Pod, _ *index.Node) {
			dup := *p
			in.Pods = append(in.Pods, dup, dup)
			in.Pods[len(in.Pods)-1].Name += "-bad"
			in.Pods[len(in.Pods)-1].HostPorts = []index.HostPort{{Protocol: "TCP", Port: -1}}
		}, podAt + "duplicate object: first defined at testdata/list.json:" + fmt.Sprint(pod.Src.Line)},
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

// TestLimits feeds endless input to each reader: each stops near its
// limit, having read a few times the limit at most (plus its read-ahead
// window), with an error that names the line, the limit and the flag that
// raises it.
func TestLimits(t *testing.T) {
	const limit = 256 << 10
	const readAhead = 4 << 20 // the JSON window and the read buffer
	cases := []struct {
		name, head, fill, want string
	}{
		{"JSON list item", "{\"kind\": \"List\", \"items\": [\n{\"kind\": \"ConfigMap\"},\n{\"kind\": \"ConfigMap\", \"data\": \"", "x",
			"in:3: a JSON value is larger than the limit of 256Ki bytes (raise it with --max-object-size)"},
		{"JSON object", "\n\n{\"kind\": \"ConfigMap\", \"data\": \"", "x",
			"in:3: a JSON value is larger than the limit of 256Ki bytes (raise it with --max-object-size)"},
		{"JSON object fields", "{\"kind\": \"ConfigMap\",\n", "\"f\": 1,\n",
			"in:1: an object's fields is larger than the limit of 256Ki bytes (raise it with --max-object-size)"},
		{"YAML line", "kind: ConfigMap\ndata: ", "x",
			"in:2: line 2 is larger than the limit of 256Ki bytes (raise it with --max-line-size)"},
		{"YAML document", "kind: Namespace\nmetadata: {name: a}\n---\nkind: ConfigMap\ndata:\n", "  k: v\n",
			"in:4: the YAML document starting at line 4 is larger than the limit of 256Ki bytes (raise it with --max-object-size)"},
		{"YAML blank lines", "kind: ConfigMap\n", "\n",
			"in:1: the YAML document starting at line 1 is larger than the limit of 256Ki bytes (raise it with --max-object-size)"},
	}
	for _, tc := range cases {
		for _, m := range modes {
			gen := &repeat{text: tc.fill}
			l := newLoader(Options{MaxObjectSize: limit, MaxLineSize: limit, Parallelism: m.parallelism})
			err := l.loadFile("in", func() (io.ReadCloser, error) {
				return io.NopCloser(io.MultiReader(strings.NewReader(tc.head), gen)), nil
			})
			if err == nil || err.Error() != tc.want {
				t.Errorf("%s, %s: error %v, want %s", tc.name, m.name, err, tc.want)
			}
			if gen.n > 4*limit+readAhead {
				t.Errorf("%s, %s: read %d bytes before refusing, limit %d", tc.name, m.name, gen.n, limit)
			}
		}
	}
	// A value over the limit that fits in the window is refused too.
	small := `{"kind": "List", "items": [` + "\n" + `{"kind": "ConfigMap", "data": "` + strings.Repeat("x", 2000) + `"}]}`
	for _, m := range modes {
		_, err := loadBytes([]byte(small), Options{MaxObjectSize: 1 << 10, Parallelism: m.parallelism})
		if want := "in:2: a JSON value is larger than the limit of 1Ki bytes (raise it with --max-object-size)"; err == nil || err.Error() != want {
			t.Errorf("a 2 KB item, %s: error %v, want %s", m.name, err, want)
		}
	}
}

// TestNULSniff: content with a NUL byte in its first window is refused
// before a parser sees it, compressed or not (a zstd bomb of zeros is
// refused at its first decompressed bytes).
func TestNULSniff(t *testing.T) {
	zeros := compress(t, make([]byte, 16<<20), "zst")
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{[]byte("{\"a\x00\": 1}"), "in: binary data: a NUL byte at byte 3 of the content (not JSON, YAML or a kplace snapshot)"},
		{[]byte("kind: Node\n\x00"), "in: binary data: a NUL byte at byte 11 of the content (not JSON, YAML or a kplace snapshot)"},
		{zeros, "in: binary data: a NUL byte at byte 0 of the content (not JSON, YAML or a kplace snapshot)"},
	} {
		if _, err := loadBytes(tc.data, Options{}); err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %s", tc.data[:min(len(tc.data), 16)], err, tc.want)
		}
	}
}

// TestYAMLAliases: a document whose aliases expand it beyond the object
// limit is refused before it is converted to JSON; one that stays below
// loads.
func TestYAMLAliases(t *testing.T) {
	doc := func(aliases int) []byte {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  a: &a " + strings.Repeat("x", 64<<10) + "\n")
		for i := range aliases {
			fmt.Fprintf(&b, "  k%d: *a\n", i)
		}
		return []byte(b.String())
	}
	opts := Options{MaxObjectSize: 1 << 20}
	want := "in:1: the JSON this YAML document expands to (through its aliases) is larger than the limit of 1Mi bytes (raise it with --max-object-size)"
	if _, err := loadBytes(doc(100), opts); err == nil || err.Error() != want {
		t.Errorf("100 aliases of 64 KiB: error %v, want %s", err, want)
	}
	if in, err := loadBytes(doc(5), opts); err != nil || in.SkippedKinds["v1 ConfigMap"] != 1 {
		t.Errorf("5 aliases of 64 KiB: %v", err)
	}
	// Nested aliases (a "billion laughs"): refused, at once.
	var b strings.Builder
	b.WriteString("kind: ConfigMap\na0: &a0 [x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	if _, err := loadBytes([]byte(b.String()), opts); err == nil {
		t.Error("nested aliases: no error")
	}
}

func TestParseSize(t *testing.T) {
	f := func(s string, want int64) {
		t.Helper()
		got, err := ParseSize(s)
		if want < 0 {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, want an error", s, got)
			}
			return
		}
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
		if back, err := ParseSize(FormatSize(got)); err != nil || back != got {
			t.Errorf("FormatSize(%d) = %q reads back as %d, %v", got, FormatSize(got), back, err)
		}
	}
	f("64Mi", 64<<20)
	f("1Gi", 1<<30)
	f("1.5Ki", 1536)
	f("1000", 1000)
	f("1M", 1000000)
	f("0", -1)
	f("-1Mi", -1)
	f("10 MB", -1)
	f("", -1)
	// Beyond MaxSize: no Kubernetes object, and a bomb would exhaust memory.
	f("4Gi", 4<<30)
	f("4097Mi", -1)
	f("100Gi", -1)
	f("9999999999999999999Ei", -1)
	if got := FormatSize(DefaultMaxObjectSize); got != "64Mi" {
		t.Errorf("FormatSize(DefaultMaxObjectSize) = %q", got)
	}
}

// TestReadConfigLimits: the --scheduler-config and --default-spread files
// are read within the object limit, as the input is: an endless file or a
// YAML alias bomb is refused.
func TestReadConfigLimits(t *testing.T) {
	if _, err := ReadSchedulerConfig("/dev/zero"); err == nil || err.Error() != "/dev/zero: larger than 64Mi bytes" {
		t.Errorf("/dev/zero: %v", err)
	}
	path := filepath.Join(t.TempDir(), "bomb.yaml")
	var b strings.Builder
	b.WriteString("kind: KubeSchedulerConfiguration\nx: &x " + strings.Repeat("y", 1<<20) + "\n")
	for i := range 100 {
		fmt.Fprintf(&b, "x%d: *x\n", i)
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
	want := path + ": the JSON this YAML document expands to (through its aliases) is larger than the limit of 64Mi bytes"
	if _, err := ReadSchedulerConfig(path); err == nil || err.Error() != want {
		t.Errorf("alias bomb: %v, want %s", err, want)
	}
	if _, _, err := ReadDefaultSpread(path); err == nil || err.Error() != want {
		t.Errorf("alias bomb as default spread: %v, want %s", err, want)
	}
}

// repeat repeats text without end, counting the bytes read: a reader
// that stops at a limit reads about the limit, however much input there
// is (a decompression bomb has no end worth reading to).
type repeat struct {
	text string
	off  int
	n    int64
}

func (g *repeat) Read(p []byte) (int, error) {
	if g.n > 64<<20 {
		return 0, errors.New("test input: read 64 MiB, no limit stopped it")
	}
	for i := range p {
		p[i] = g.text[g.off]
		g.off = (g.off + 1) % len(g.text)
	}
	g.n += int64(len(p))
	return len(p), nil
}
