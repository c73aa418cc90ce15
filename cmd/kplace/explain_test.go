package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kplace/kplace/bench"
	"github.com/kplace/kplace/explain"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
	"github.com/kplace/kplace/solver"
	"github.com/kplace/kplace/solver/differential"
	"github.com/kplace/kplace/solver/reference"
)

// explainInput generates a cluster of profile and loads it.
func explainInput(t *testing.T, profile string, nodes, pods int, seed uint64) func() *index.Input {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.json")
	if err := writeGenerated(path, bench.GenConfig{Profile: profile, Nodes: nodes, Pods: pods, Running: -1, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return func() *index.Input {
		in, err := ingest.Load([]string{path}, ingest.Options{AdmissionDefaults: true})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
}

// replayCheck replays commits (Binds only) on a fresh cluster of in and,
// before each Binding, explains its pod there: the node it was bound to
// must be a top-ranked node (the cycle's pick, or tied with it on total
// score when exact is false). It returns how many Bindings it checked.
func replayCheck(t *testing.T, name string, in func() *index.Input, cfg solver.Config, binds [][2]int32, exact bool) int {
	t.Helper()
	c, err := index.Build(in())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range binds {
		pid, node := index.PodID(b[0]), index.NodeID(b[1])
		r, err := explain.Explain(c, pid, cfg, explain.Options{Node: c.Nodes[node].Name})
		if err != nil {
			t.Fatal(err)
		}
		row := r.Rows[0]
		switch {
		case !row.Feasible:
			t.Fatalf("%s: %s bound to %s, which explain rejects: %s", name, r.Pod, row.Node, row.Status)
		case exact && row.Node != r.Winner, !exact && row.Total != r.WinnerTotal:
			t.Fatalf("%s: %s bound to %s (rank %d, total %d); explain picks %s (total %d)", name, r.Pod, row.Node, row.Rank, row.Total, r.Winner, r.WinnerTotal)
		}
		d := c.DemandOf(&c.Pods[pid])
		c.Bind(pid, node, &d)
	}
	return len(binds)
}

// TestExplainAgreesWithPlace solves generated clusters with the fast
// solver (kplace place) and the reference solver, preemption off, and
// checks explain against both: every Binding's node is one explain ranks
// top on the cluster as it was just before it (the reference's pick
// exactly; the fast solver's up to ties, as its normalisation may differ),
// and every pod left unschedulable has no feasible node in the final
// state, with per-plugin counts equal to its reason's histogram.
func TestExplainAgreesWithPlace(t *testing.T) {
	checked, pendingChecked := 0, 0
	for i, profile := range []string{"mixed", "taints", "affinity", "spread", "anti-affinity", "resources"} {
		seed := uint64(i + 1)
		in := explainInput(t, profile, 40, 160, seed)
		cfg := solver.Config{Seed: seed, NoPreemption: true, DefaultSpread: solver.BuiltinDefaultSpread(), SystemDefaultSpread: true}
		name := fmt.Sprintf("%s seed %d", profile, seed)

		cf, err := index.Build(in())
		if err != nil {
			t.Fatal(err)
		}
		fast := solver.Solve(cf, cfg)
		var binds [][2]int32
		for _, cm := range fast.Commits {
			binds = append(binds, [2]int32{int32(cm.Pod), int32(cm.Node)})
		}
		checked += replayCheck(t, name+" fast", in, cfg, binds, false)
		// Pending pods on the final state: no feasible node, and the
		// counts of the first failing plugins are the reason's histogram.
		for _, pd := range fast.Pending {
			if pd.Kind != solver.Unschedulable || pd.Nodes == nil {
				continue
			}
			r, err := explain.Explain(cf, pd.Pod, cfg, explain.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, fc := range r.Filters {
				maps.Copy(got, fc.Reasons)
			}
			if r.Feasible != 0 || !maps.Equal(got, pd.Nodes) {
				t.Fatalf("%s: pending %s: explain finds %d feasible, counts %v; the reason's %v", name, r.Pod, r.Feasible, got, pd.Nodes)
			}
			pendingChecked++
		}

		cr, err := index.Build(in())
		if err != nil {
			t.Fatal(err)
		}
		ref := reference.Solve(cr, differential.RefConfig(cfg))
		binds = binds[:0]
		for _, cm := range ref.Commits {
			binds = append(binds, [2]int32{int32(cm.Pod), int32(cm.Node)})
		}
		checked += replayCheck(t, name+" reference", in, cfg, binds, true)
		for _, pd := range ref.Pending {
			if pd.Kind != "unschedulable" {
				continue
			}
			r, err := explain.Explain(cr, pd.Pod, cfg, explain.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Feasible != 0 || r.Message == "" || len(pd.Reason) < len(r.Message) || pd.Reason[:len(r.Message)] != r.Message {
				t.Fatalf("%s: pending %s: explain %d feasible, %q; the reference's reason %q", name, r.Pod, r.Feasible, r.Message, pd.Reason)
			}
			pendingChecked++
		}
	}
	if checked < 500 || pendingChecked < 50 {
		t.Errorf("only %d Bindings and %d pending pods checked", checked, pendingChecked)
	}
	t.Logf("%d Bindings and %d pending pods checked", checked, pendingChecked)
}

// runStdout runs the CLI with args and returns the exit code, stdout and
// stderr.
func runStdout(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	code, stderr := runCapture(t, args...)
	w.Close()
	os.Stdout = old
	return code, <-done, stderr
}

// TestExplainGolden explains the pods of testdata/explain.yaml: the table,
// one node in detail, JSON, and a pod no node takes; each output is
// golden, and the facts the cluster was written for are checked too.
func TestExplainGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string // lines the output must hold
	}{
		{"explain.web.txt", []string{"shop/web-2"}, []string{
			"pod shop/web-2: 6 nodes, 2 feasible; kube-scheduler would pick b2 (total 463)",
			"  PodTopologySpread  3        3       3 node(s) didn't match pod topology spread constraints",
		}},
		{"explain.node.txt", []string{"shop/web-2", "--node", "a1"}, []string{
			"node a1: rejected by PodTopologySpread: node(s) didn't match pod topology spread constraints",
			"  InterPodAffinity   fail     node(s) didn't match pod anti-affinity rules",
		}},
		{"explain.node-b3.txt", []string{"shop/web-2", "--node", "b3"}, []string{
			"node b3: feasible, rank 2 of 2, total 454",
		}},
		{"explain.big.txt", []string{"shop/big"}, []string{
			"0/6 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, 4 Insufficient cpu.",
		}},
		{"explain.web.json", []string{"shop/web-2", "-o", "json"}, []string{`  "winner": "b2",`}},
	} {
		code, out, stderr := runStdout(t, append([]string{"explain", "-f", "testdata/explain.yaml"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		for _, line := range tc.want {
			if !strings.Contains(out, line+"\n") {
				t.Errorf("%v: no line %q in\n%s", tc.args, line, out)
			}
		}
		golden(t, tc.name, []byte(out))
	}
	for _, bad := range [][]string{{"shop/nope"}, {"shop/web-2", "--node", "zz"}} {
		if code, _, stderr := runStdout(t, append([]string{"explain", "-f", "testdata/explain.yaml"}, bad...)...); code != 1 || !strings.Contains(stderr, "not found") {
			t.Errorf("%v: exit %d, %q", bad, code, stderr)
		}
	}
	if code, _, _ := runStdout(t, "explain", "-f", "testdata/explain.yaml"); code != 2 {
		t.Errorf("no pod: exit %d, want 2", code)
	}
}

// TestExplainSummaryAndBound: above explain.SummaryAbove nodes the report
// holds the top nodes by score only (ranked 1..10, all feasible), --all
// every node; a bound pod is explained as if pending, its own node
// feasible again.
func TestExplainSummaryAndBound(t *testing.T) {
	in := explainInput(t, "mixed", 300, 50, 7)
	c, err := index.Build(in())
	if err != nil {
		t.Fatal(err)
	}
	cfg := solver.Config{Seed: 7}
	var pending, bound index.PodID = -1, -1
	for pid := range c.Pods {
		switch {
		case pending < 0 && c.PodNode[pid] == index.NoNode && c.Pods[pid].Unsupported == "" && !c.Pods[pid].Gated:
			pending = index.PodID(pid)
		case bound < 0 && c.PodNode[pid] != index.NoNode:
			bound = index.PodID(pid)
		}
	}
	r, err := explain.Explain(c, pending, cfg, explain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Summary || r.Feasible < explain.TopNodes || len(r.Rows) != explain.TopNodes {
		t.Fatalf("summary %v, %d feasible, %d rows", r.Summary, r.Feasible, len(r.Rows))
	}
	for i, row := range r.Rows {
		if !row.Feasible || row.Rank != i+1 || i > 0 && row.Total > r.Rows[i-1].Total {
			t.Errorf("row %d: %+v", i, row)
		}
	}
	all, err := explain.Explain(c, pending, cfg, explain.Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if all.Summary || len(all.Rows) != 300 || all.Rows[0].Node != r.Winner {
		t.Errorf("--all: summary %v, %d rows, first %s (winner %s)", all.Summary, len(all.Rows), all.Rows[0].Node, r.Winner)
	}
	node := c.Nodes[c.PodNode[bound]].Name
	rb, err := explain.Explain(c, bound, cfg, explain.Options{Node: node})
	if err != nil {
		t.Fatal(err)
	}
	if !rb.Unbound || c.PodNode[bound] != index.NoNode || !rb.Rows[0].Feasible {
		t.Errorf("bound pod on %s: unbound %v, node now %d, its node %+v", node, rb.Unbound, c.PodNode[bound], rb.Rows[0])
	}
}

// TestExplainCreatedPod: a pod that place adds for a controller (here a
// Deployment of a manifest, with no pods yet) is explained under the name
// place gives it with the same seed, and kube-scheduler's pick is the node
// place binds it to (it is the batch's only pod); --expand=false leaves it
// out, and the error says how to have it.
func TestExplainCreatedPod(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nodes := write("nodes.yaml", `apiVersion: v1
kind: Node
metadata: {name: small}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: big}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "10"}}
`)
	app := write("app.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m, memory: 256Mi}}}]}
`)
	result := filepath.Join(dir, "r.json")
	if code, stderr := runCapture(t, "place", "-q", "-f", nodes, "-f", app, "-o", result); code != 0 {
		t.Fatalf("place: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	// The Binding's metadata.name, then its target's name.
	var name, node string
	for _, f := range strings.Split(string(b), `"name":"`)[1:] {
		v, _, _ := strings.Cut(f, `"`)
		if strings.HasPrefix(v, "web-") {
			name = v
		} else if name != "" && node == "" {
			node = v
		}
	}
	if name == "" || node != "big" {
		t.Fatalf("place bound %q to %q, want a web pod on big:\n%s", name, node, b)
	}
	code, stdout, stderr := runAll(t, "explain", "default/"+name, "-f", nodes, "-f", app)
	if code != 0 || !strings.HasPrefix(stdout, "pod default/"+name+": 2 nodes, 2 feasible; kube-scheduler would pick big") {
		t.Errorf("explain: exit %d:\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = runAll(t, "explain", "default/"+name, "-f", nodes, "-f", app, "--expand=false")
	if code != 1 || !strings.Contains(stderr, "without --expand=false") {
		t.Errorf("explain --expand=false: exit %d: %s", code, stderr)
	}
}
