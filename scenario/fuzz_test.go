package scenario

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
	"k8s.io/apimachinery/pkg/util/validation"
)

// FuzzParseScenario: Parse never panics; an error is an *Error naming the
// file (and says what is wrong); a scenario it accepts keeps the promises
// of Scenario and Step.
func FuzzParseScenario(f *testing.F) {
	for _, s := range []string{
		// Valid (file_test.go, engine_test.go, workloads_test.go).
		sampleScenario,
		"kind: Scenario\nsteps: []\n",
		"kind: Scenario\nsteps:\n- at: 60s\n  failNodes: {nodes: topology.kubernetes.io/zone=a}\n- at: 2m\n  drain: {nodes: b1}\n",
		"kind: Scenario\nsteps:\n- at: 30s\n  removeNodes: {nodes: n2}\n- at: 40s\n  recoverNodes: {nodes: '!spot'}\n",
		"kind: Scenario\nsteps:\n- at: 1s\n  cordon: {nodes: a}\n- at: 1s\n  uncordon: {nodes: a}\n",
		"kind: Scenario\nsteps:\n- at: 20s\n  addNodes:\n    count: 2\n    namePrefix: big-\n    template:\n      metadata: {labels: {role: big}}\n      status: {allocatable: {cpu: \"16\", memory: 64Gi, pods: \"110\"}}\n",
		"kind: Scenario\nsteps:\n- at: 20s\n  addNodes: {count: 3, template: nodes/big.yaml}\n",
		"kind: Scenario\nsteps:\n- at: 7s\n  apply: {file: testdata/apply-controllers.yaml}\n",
		"kind: Scenario\nsteps:\n- at: 1s\n  scale: {kind: StatefulSet, namespace: db, name: pg, replicas: 5}\n",
		`{"kind":"Scenario","until":600,"steps":[{"at":"10s","drain":{"nodes":"n1","timeout":0}}]}`,
		// Malformed (file_test.go's TestParseErrors and more).
		"kind: Pod\nsteps: []",
		"steps: []",
		"kind: Scenario\nsteps:\n- at: 1s\n  cordon: {nodes: a}\n  drain: {nodes: b}",
		"kind: Scenario\nsteps:\n- at: -5s\n  cordon: {nodes: a}",
		"kind: Scenario\nsteps:\n- at: 1s\n  cordon: {nodes: 'zone in (a'}",
		"kind: Scenario\nsteps:\n- at: 1s\n  taint: {nodes: a, add: [{key: 'bad key', effect: NoSchedule}]}",
		"kind: Scenario\nsteps:\n- at: 1s\n  addNodes: {count: 1, template: {kind: Pod}}",
		"kind: Scenario\nsteps:\n- at: 1s\n  scale: {kind: Deployment, name: x, replicas: -1}",
		"kind: Scenario\nsteps: [1, 2]",
		"kind: Scenario\nsteps:\n  - at: 1s\n   cordon: x",
		"kind: Scenario\nuntil: 1e400\nsteps: []",
		"kind: Scenario\nuntil: 9223372036.854775807\nsteps: []", // seconds just under the largest duration
		"- a\n- b\n",
		"",
		"{",
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("testdata/taint-evict/*.scenario.yaml")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	const file = "dir/s.yaml"
	f.Fuzz(func(t *testing.T, raw []byte) {
		sc, err := Parse(file, raw)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %q: want a *scenario.Error", err, err)
			}
			if e.File != file || e.Msg == "" || !strings.HasPrefix(err.Error(), file+": ") {
				t.Fatalf("error %+v (%q): want the file %s and a message", e, err, file)
			}
			if sc != nil {
				t.Fatalf("error %q with a scenario", err)
			}
			return
		}
		checkScenario(t, file, sc)
	})
}

// checkScenario checks what Parse promises of a scenario it accepts.
func checkScenario(t *testing.T, file string, sc *Scenario) {
	t.Helper()
	if sc.File != file || sc.Dir != filepath.Dir(file) {
		t.Fatalf("File %q, Dir %q", sc.File, sc.Dir)
	}
	if sc.Until < 0 {
		t.Fatalf("until %v", sc.Until)
	}
	seen := map[int]bool{}
	for i := range sc.Steps {
		st := &sc.Steps[i]
		if st.Index < 0 || st.Index >= len(sc.Steps) || seen[st.Index] {
			t.Fatalf("step %d: index %d", i, st.Index)
		}
		seen[st.Index] = true
		if st.At < 0 {
			t.Fatalf("step %d: at %v", st.Index, st.At)
		}
		if i > 0 {
			// In time order, ties in file order.
			if p := &sc.Steps[i-1]; p.At > st.At || p.At == st.At && p.Index > st.Index {
				t.Fatalf("steps %d (at %v) before %d (at %v)", p.Index, p.At, st.Index, st.At)
			}
		}
		if !slices.Contains(actions, st.Action) {
			t.Fatalf("step %d: action %q", st.Index, st.Action)
		}
		_ = st.Describe()
		switch st.Action {
		case ActTaint, ActCordon, ActUncordon, ActDrain, ActFailNodes, ActRecoverNodes, ActRemoveNodes:
			n := &st.Nodes
			if n.Text == "" || n.Text != strings.TrimSpace(n.Text) || (n.Name == "") == (n.Labels == nil) {
				t.Fatalf("step %d: selector %+v: want a name or labels", st.Index, n)
			}
			if n.Name != "" && (n.Name != n.Text || len(validation.IsDNS1123Subdomain(n.Name)) > 0) {
				t.Fatalf("step %d: node name %q", st.Index, n.Name)
			}
			if n.Labels != nil && n.Labels.Empty() {
				t.Fatalf("step %d: selector %q selects every node", st.Index, n.Text)
			}
		default:
			if st.Nodes.Text != "" || st.Nodes.Name != "" || st.Nodes.Labels != nil {
				t.Fatalf("step %d: %s with nodes %+v", st.Index, st.Action, st.Nodes)
			}
		}
		if st.Action == ActTaint {
			if len(st.Add)+len(st.Remove) == 0 {
				t.Fatalf("step %d: taint with neither add nor remove", st.Index)
			}
			for _, tt := range st.Add {
				checkTaint(t, st.Index, tt, true)
			}
			for _, tt := range st.Remove {
				checkTaint(t, st.Index, tt, false)
			}
		} else if st.Add != nil || st.Remove != nil {
			t.Fatalf("step %d: %s with taints", st.Index, st.Action)
		}
		if st.Timeout != nil && (st.Action != ActDrain || *st.Timeout < 0) {
			t.Fatalf("step %d: %s with timeout %v", st.Index, st.Action, *st.Timeout)
		}
		switch st.Action {
		case ActAddNodes:
			if st.Count < 1 || (st.Template == nil) == (st.TemplateFile == "") {
				t.Fatalf("step %d: addNodes count %d, template %q, file %q", st.Index, st.Count, st.Template, st.TemplateFile)
			}
			if st.NamePrefix != "" && len(validation.IsDNS1123Subdomain(st.NamePrefix+"0")) > 0 {
				t.Fatalf("step %d: name prefix %q", st.Index, st.NamePrefix)
			}
			if st.Template != nil {
				var node struct {
					APIVersion, Kind string
					Metadata         struct{ Name any }
				}
				if err := json.Unmarshal(st.Template, &node); err != nil || node.APIVersion != "v1" || node.Kind != "Node" || node.Metadata.Name == nil {
					t.Fatalf("step %d: template %s: %v", st.Index, st.Template, err)
				}
			}
		case ActScale:
			if !slices.Contains(scaleKinds, st.Kind) || st.Namespace == "" || st.Name == "" || st.Replicas < 0 {
				t.Fatalf("step %d: scale %s %s/%s to %d", st.Index, st.Kind, st.Namespace, st.Name, st.Replicas)
			}
		case ActApply:
			if st.File == "" {
				t.Fatalf("step %d: apply without a file", st.Index)
			}
		}
	}
}

func checkTaint(t *testing.T, step int, tt index.Taint, add bool) {
	t.Helper()
	if tt.Key == "" || len(validation.IsQualifiedName(tt.Key)) > 0 || len(validation.IsValidLabelValue(tt.Value)) > 0 || !add && tt.Value != "" {
		t.Fatalf("step %d: taint %+v (add %t)", step, tt, add)
	}
	switch tt.Effect {
	case index.EffectNoSchedule, index.EffectPreferNoSchedule, index.EffectNoExecute:
	case "":
		if add {
			t.Fatalf("step %d: taint to add %+v without an effect", step, tt)
		}
	default:
		t.Fatalf("step %d: taint %+v: effect", step, tt)
	}
}

// TestParseHugeSeconds: a number of seconds at the largest duration is
// accepted or refused as too large, never read as negative (a float64 of
// 2^63 ns does not fit time.Duration).
func TestParseHugeSeconds(t *testing.T) {
	for _, n := range []string{"9223372036.854775807", "9223372036.854776", "9223372036.854774", "9223372036"} {
		sc, err := Parse("s.yaml", []byte("kind: Scenario\nuntil: "+n+"\nsteps: []"))
		if err != nil && strings.Contains(err.Error(), "negative") || err == nil && sc.Until < 0 {
			t.Errorf("until %s: %v", n, err)
		}
	}
}
