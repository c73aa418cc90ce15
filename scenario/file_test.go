package scenario

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sampleScenario has a step of each kind of field: TestParse reads it, and
// FuzzParseScenario starts from it.
const sampleScenario = `
kind: Scenario
until: 2h
steps:
- at: 5m
  drain: {nodes: "pool in (gpu,cpu)", timeout: 90s}
- at: 90
  taint:
    nodes: topology.kubernetes.io/zone=a
    add: [{key: maintenance, value: "true", effect: NoExecute}]
    remove: [{key: spot}]
- at: 0s
  addNodes: {count: 2, template: {status: {allocatable: {cpu: "2"}}}}
- at: 1h
  scale: {kind: Deployment, name: web, replicas: 0}
- at: 1h
  failNodes: {nodes: node-7}
`

func TestParse(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(sampleScenario))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Until != 2*time.Hour || len(sc.Steps) != 5 {
		t.Fatalf("until %v, %d steps", sc.Until, len(sc.Steps))
	}
	var order []string
	for _, s := range sc.Steps {
		order = append(order, s.Action)
	}
	if got := strings.Join(order, " "); got != "addNodes taint drain scale failNodes" {
		t.Errorf("steps in time order (ties in file order): %s", got)
	}
	d := sc.Steps[2]
	if d.Timeout == nil || *d.Timeout != 90*time.Second || d.Nodes.Labels == nil || !d.Nodes.Match("x", map[string]string{"pool": "gpu"}) {
		t.Errorf("drain step %+v", d)
	}
	if tt := sc.Steps[1]; tt.At != 90*time.Second || len(tt.Add) != 1 || tt.Add[0].Value != "true" || tt.Remove[0].Effect != "" {
		t.Errorf("taint step %+v", tt)
	}
	if f := sc.Steps[4]; f.Nodes.Name != "node-7" || f.Nodes.Match("node-8", nil) {
		t.Errorf("a node name selects that node: %+v", f.Nodes)
	}
	if s := sc.Steps[3]; s.Namespace != "default" || s.Replicas != 0 {
		t.Errorf("scale step %+v", s)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"kind: Pod\nsteps: []", "s.yaml: kind: \"Pod\", want Scenario"},
		{"steps: []", "s.yaml: kind: missing"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  cordon: {nodes: a}\n  drain: {nodes: b}", "s.yaml: steps[0]: two actions, cordon and drain: one per step"},
		{"kind: Scenario\nsteps:\n- cordon: {nodes: a}", "s.yaml: steps[0].at: missing"},
		{"kind: Scenario\nsteps:\n- at: soon\n  cordon: {nodes: a}", "s.yaml: steps[0].at: \"soon\" is not a duration"},
		{"kind: Scenario\nsteps:\n- at: -5s\n  cordon: {nodes: a}", "s.yaml: steps[0].at: -5s is negative"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  explode: {}", "s.yaml: steps[0].explode: unknown action"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  cordon: {nodes: a, force: true}", "s.yaml: steps[0].cordon.force: unknown field (want nodes)"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  cordon: {}", "s.yaml: steps[0].cordon.nodes: missing"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  cordon: {nodes: 'zone in (a'}", "s.yaml: steps[0].cordon.nodes: \"zone in (a\""},
		{"kind: Scenario\nsteps:\n- at: 1s\n  taint: {nodes: a, add: [{key: k, effect: NoExec}]}", "s.yaml: steps[0].taint.add[0].effect: \"NoExec\" is not a taint effect"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  taint: {nodes: a, add: [{key: k}]}", "s.yaml: steps[0].taint.add[0].effect: missing"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  taint: {nodes: a, remove: [{key: k, value: v}]}", "s.yaml: steps[0].taint.remove[0].value: unknown field (want key, effect)"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  taint: {nodes: a}", "s.yaml: steps[0].taint: neither add nor remove"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  taint: {nodes: a, add: [{key: 'bad key', effect: NoSchedule}]}", "s.yaml: steps[0].taint.add[0].key: \"bad key\""},
		{"kind: Scenario\nsteps:\n- at: 1s\n  addNodes: {count: 0, template: n.yaml}", "s.yaml: steps[0].addNodes.count: want a whole number of at least 1, not 0"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  addNodes: {count: 1, template: {kind: Pod}}", "s.yaml: steps[0].addNodes.template.kind: \"Pod\", want Node"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  scale: {kind: CronJob, name: x, replicas: 1}", "s.yaml: steps[0].scale.kind: \"CronJob\", want one of"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  scale: {kind: Deployment, name: x, replicas: -1}", "s.yaml: steps[0].scale.replicas: want a whole number of at least 0"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  drain: {nodes: a, timeout: forever}", "s.yaml: steps[0].drain.timeout: \"forever\" is not a duration"},
		{"kind: Scenario\nsteps: [1, 2]", "s.yaml: steps[0]: want an object"},
		{"kind: Scenario\nsteps:\n  - at: 1s\n   cordon: x", "s.yaml: yaml: line 3"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  taint: {nodes: a, add: [{key: k, value: v1, effect: NoSchedule}, {key: k, value: v2, effect: NoSchedule}]}", "s.yaml: steps[0].taint.add[1]: a second taint of key \"k\" and effect NoSchedule in one step"},
		{"kind: Scenario\nsteps:\n- at: 1s\n  taint: {nodes: a, add: [{key: k, value: y, effect: NoSchedule}]}", "s.yaml: steps[0].taint.add[0].value: want a string, not true (a YAML boolean: quote the value for a string)"},
		{"kind: Scenario\nsteps:\n- at: 30s\n  at: 40s\n  cordon: {nodes: a}", "s.yaml: line 4: key \"at\" already set in map"},
		// One document: a second would be ignored, its steps with it.
		{"kind: Scenario\nsteps: []\n---\nkind: Scenario\nsteps:\n- at: 1s\n  cordon: {nodes: a}", "s.yaml: a second YAML document at line 4: a scenario file holds one"},
		{"kind: Scenario\nsteps: []\n--- junk", "s.yaml: line 3: invalid YAML document marker: --- junk"},
		{"# nothing\n---\n", "s.yaml: empty: want a Scenario object"},
	} {
		_, err := Parse("s.yaml", []byte(c.doc))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s...", c.doc, err, c.want)
		}
	}
}

// TestRunErrors: a step that cannot run stops the run with an error that
// names the file and the step.
func TestRunErrors(t *testing.T) {
	for _, c := range []struct{ step, want, cluster string }{
		{"cordon: {nodes: nope}", `test.yaml: steps[0] (cordon at 1s): no node named "nope"`, ""},
		{"drain: {nodes: zone=mars}", `test.yaml: steps[0] (drain at 1s): no node matches "zone=mars"`, ""},
		{"scale: {kind: ReplicaSet, namespace: shop, name: gone, replicas: 2}", "test.yaml: steps[0] (scale at 1s): ReplicaSet shop/gone is not in the cluster and has no pod to copy", ""},
		{"addNodes: {count: 2, namePrefix: \"n\", template: {status: {allocatable: {cpu: 2}}}}", `test.yaml: steps[0] (addNodes at 1s): node "n1" exists already`, ""},
		{"apply: {file: testdata/missing.yaml}", "test.yaml: steps[0] (apply at 1s): testdata/missing.yaml: no such file or directory", ""},
		{"apply: {file: testdata/apply-controllers.yaml}\n- at: 2s\n  apply: {file: testdata/apply-controllers.yaml}",
			"test.yaml: steps[1] (apply at 2s): testdata/apply-controllers.yaml: Deployment shop/api exists already", "testdata/workloads.yaml"},
	} {
		in := load(t, cmp.Or(c.cluster, "testdata/small.yaml"))
		sc, err := Parse("test.yaml", []byte("kind: Scenario\nsteps:\n- at: 1s\n  "+c.step))
		if err != nil {
			t.Fatal(err)
		}
		sc.Dir = "."
		e, err := New(in, sc, Config{})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Run(nil); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s...", c.step, err, c.want)
		}
	}
}

// TestParseOneDocument: documents of nothing but comments around the
// scenario are no second document.
func TestParseOneDocument(t *testing.T) {
	sc, err := Parse("s.yaml", []byte("# c\n---\nkind: Scenario\nsteps:\n- at: 1s\n  cordon: {nodes: a}\n---\n# trailing\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Steps) != 1 {
		t.Errorf("%d steps, want 1", len(sc.Steps))
	}
}

// TestLoadBounded: a scenario file is read within the input limits: an
// endless one (/dev/zero) is refused at 64Mi, a line past 4Mi named.
func TestLoadBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	if _, err := Load("/dev/zero"); err == nil || err.Error() != "/dev/zero: larger than 64Mi bytes" {
		t.Errorf("Load(/dev/zero): %v", err)
	}
	long := filepath.Join(t.TempDir(), "long.yaml")
	if err := os.WriteFile(long, []byte("kind: Scenario\nsteps: []\nx: "+strings.Repeat("a", 5<<20)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(long); err == nil || err.Error() != long+": line 3 is larger than the limit of 4Mi bytes" {
		t.Errorf("Load(long line): %v", err)
	}
}
