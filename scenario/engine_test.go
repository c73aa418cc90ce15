package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
	"github.com/kplace/kplace/nodelifecycle"
	"github.com/kplace/kplace/solver"
)

// line is one timeline event.
type line struct {
	T      float64 `json:"t"`
	Event  string  `json:"event"`
	Pod    string  `json:"pod"`
	Node   string  `json:"node"`
	Reason string  `json:"reason"`
	Taint  string  `json:"taint"`
	Zone   string  `json:"zone"`
	Step   *int    `json:"step"`
}

func (l line) String() string {
	s := fmt.Sprintf("%g %s", l.T, l.Event)
	for _, f := range []string{l.Pod, l.Node, l.Taint, l.Zone} {
		if f != "" {
			s += " " + f
		}
	}
	return s
}

// play runs scenario text over a cluster file and returns the engine,
// the timeline and its raw bytes.
func play(t *testing.T, cluster, scenarioText string, tune func(*Config)) (*Engine, []line, []byte) {
	t.Helper()
	in := load(t, cluster)
	sc, err := Parse("test.yaml", []byte(scenarioText))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Solve: solver.Config{Seed: 1}, Lifecycle: nodelifecycle.DefaultConfig(), Admission: true}
	if tune != nil {
		tune(&cfg)
	}
	e, err := New(in, sc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := e.Run(&buf); err != nil {
		t.Fatal(err)
	}
	var out []line
	for _, raw := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		var l line
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("timeline line %q: %v", raw, err)
		}
		out = append(out, l)
	}
	return e, out, buf.Bytes()
}

// generated matches the five characters of a name made during a run.
var generated = regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{5}\b`)

func load(t testing.TB, cluster string) *index.Input {
	t.Helper()
	in, err := ingest.Load([]string{cluster}, ingest.Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// pick keeps the events named and renders them, generated name suffixes
// as -*****.
func pick(ls []line, events ...string) []string {
	var out []string
	for _, l := range ls {
		if slices.Contains(events, l.Event) {
			out = append(out, generated.ReplaceAllString(l.String(), "-*****"))
		}
	}
	return out
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// boundTo returns the node each live pod of ns/name prefix is on.
func boundTo(e *Engine, prefix string) map[string]string {
	out := map[string]string{}
	for pid := range e.c.Pods {
		p := &e.c.Pods[pid]
		if e.pods[pid].deleted || !strings.HasPrefix(podKey(p), prefix) {
			continue
		}
		n := ""
		if id := e.c.PodNode[pid]; id != index.NoNode {
			n = e.c.Nodes[id].Name
		}
		out[podKey(p)] = n
	}
	return out
}

// TestZoneFailure: a zone's nodes fail at 60 s; the controller marks them
// Unknown at the first pass after 60 + 50 s (115 s), taints them
// NoSchedule at once and NoExecute one per 10 s (FullDisruption, 0.1/s);
// the taint manager deletes each pod when its unreachable toleration runs
// out; the ReplicaSet's pods come back on zone b at once; the DaemonSet's
// pod stays; the standalone pod is gone.
func TestZoneFailure(t *testing.T) {
	e, tl, _ := play(t, "testdata/zones.yaml", `
kind: Scenario
steps:
- at: 60s
  failNodes: {nodes: topology.kubernetes.io/zone=a}
`, nil)
	same(t, "taints", pick(tl, "node-failed", "node-not-ready", "taint-added", "zone-state"), []string{
		"60 node-failed a1", "60 node-failed a2", "60 node-failed a3",
		"115 node-not-ready a1", "115 taint-added a1 node.kubernetes.io/unreachable:NoSchedule",
		"115 node-not-ready a2", "115 taint-added a2 node.kubernetes.io/unreachable:NoSchedule",
		"115 node-not-ready a3", "115 taint-added a3 node.kubernetes.io/unreachable:NoSchedule",
		"115 zone-state a",
		"115 taint-added a1 node.kubernetes.io/unreachable:NoExecute",
		"125 taint-added a2 node.kubernetes.io/unreachable:NoExecute",
		"135 taint-added a3 node.kubernetes.io/unreachable:NoExecute",
	})
	same(t, "deletions", pick(tl, "pod-deleted"), []string{
		"195 pod-deleted shop/quick-1 a3", // 135 + 60
		"415 pod-deleted shop/web-1 a1",   // 115 + 300; a node's pods in the order scheduled
		"415 pod-deleted shop/solo a1",
		"425 pod-deleted shop/web-2 a2",
	})
	for _, l := range tl {
		if l.Event == "pod-deleted" && l.Reason != "TaintManagerEviction" {
			t.Errorf("%v: reason %q", l, l.Reason)
		}
	}
	created := pick(tl, "pod-created")
	if len(created) != 3 {
		t.Fatalf("replacements %v, want 3 (none for the standalone pod)", created)
	}
	for pod, node := range boundTo(e, "shop/web-") {
		if !strings.HasPrefix(node, "b") {
			t.Errorf("%s on %q, want a zone b node", pod, node)
		}
	}
	if got := boundTo(e, "kube-system/agent-a1"); got["kube-system/agent-a1"] != "a1" {
		t.Errorf("the DaemonSet pod: %v, want it still on a1", got)
	}
	if _, ok := boundTo(e, "shop/solo")["shop/solo"]; ok {
		t.Error("the standalone pod must be gone")
	}
	r := e.Report()
	s := r.Steps[0]
	if s.Displaced != 4 || s.Replaced != 3 || s.Lost != 1 || s.TimeToReplace != "never" || s.Nodes != 3 {
		t.Errorf("report: displaced %d, replaced %d, lost %d, time %v, nodes %d", s.Displaced, s.Replaced, s.Lost, s.TimeToReplace, s.Nodes)
	}
	if s.CapacityLost["cpu"] != 12000 || s.CapacityLost["nodes"] != 3 {
		t.Errorf("capacity lost %v, want 12 cpus of 3 nodes", s.CapacityLost)
	}
}

// checkBudget replays the timeline's web pods and fails when fewer than
// least are up after an eviction.
func checkBudget(t *testing.T, tl []line, up, least int) {
	t.Helper()
	for _, l := range tl {
		if !strings.HasPrefix(l.Pod, "shop/web-") {
			continue
		}
		switch l.Event {
		case "pod-evicted", "pod-deleted":
			up--
			if up < least {
				t.Fatalf("%v leaves %d pods of web up, fewer than the budget's %d", l, up, least)
			}
		case "pod-bound":
			up++
		}
	}
}

// TestDrainWithBudget: kubectl drain over a pool cordons it, evicts each
// node's pods but the DaemonSet's and the mirror pod, one node after the
// other; the Eviction API refuses what would break the budget, kubectl
// retries every 5 s, and each refusal is in the timeline; the budget is
// never broken.
func TestDrainWithBudget(t *testing.T) {
	e, tl, _ := play(t, "testdata/drain.yaml", `
kind: Scenario
steps:
- at: 10s
  drain: {nodes: pool=old}
`, nil)
	same(t, "drain", pick(tl, "node-cordoned", "drain-started", "pod-evicted", "eviction-blocked", "drain-finished"), []string{
		"10 node-cordoned n1", "10 node-cordoned n2",
		"10 drain-started n1",
		"10 pod-evicted shop/cache n1",
		"10 pod-evicted shop/web-a n1",
		"10 eviction-blocked shop/web-b n1", // healthy 3 = minAvailable: the replacement is not up yet
		"15 pod-evicted shop/web-b n1",      // the replacement of web-a runs on n3 since 10
		"15 drain-finished n1",
		"15 drain-started n2",
		"15 eviction-blocked shop/web-c n2", // web-b's replacement is placed at the end of the instant
		"15 eviction-blocked shop/web-d n2",
		"20 pod-evicted shop/web-c n2",
		"20 eviction-blocked shop/web-d n2",
		"25 pod-evicted shop/web-d n2",
		"25 drain-finished n2",
	})
	for _, l := range tl {
		if l.Event == "eviction-blocked" && !strings.Contains(l.Reason, "The disruption budget web needs 3 healthy pods and has 3 currently") {
			t.Errorf("refusal reason %q", l.Reason)
		}
	}
	checkBudget(t, tl, 4, 3)
	for pod, node := range boundTo(e, "shop/") {
		if node != "n3" {
			t.Errorf("%s on %q, want n3", pod, node)
		}
	}
	if got := boundTo(e, "kube-system/"); got["kube-system/logs-n1"] != "n1" || got["kube-system/kube-proxy-n1"] != "n1" {
		t.Errorf("DaemonSet and mirror pods must stay on n1: %v", got)
	}
	s := e.Report().Steps[0]
	if s.EvictionRefusals != 4 || s.Displaced != 5 || s.Replaced != 5 || s.TimeToReplace != 15.0 || len(s.Drain) != 2 || s.Drain[1].Result != "drained" {
		t.Errorf("report: refusals %d, displaced %d, replaced %d, time %v, drain %+v", s.EvictionRefusals, s.Displaced, s.Replaced, s.TimeToReplace, s.Drain)
	}
}

// TestDrainStaleBudgetStatus: a budget whose input status is stale (it
// allows four disruptions where its spec allows one) is computed again
// from its spec, as the disruption controller does on its next sync: the
// drain goes as without a status, and the budget is never broken.
func TestDrainStaleBudgetStatus(t *testing.T) {
	raw, err := os.ReadFile("testdata/drain.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec := "spec: {minAvailable: 3, selector: {matchLabels: {app: web}}}"
	stale := strings.Replace(string(raw), spec, spec+"\n  status: {disruptionsAllowed: 4, currentHealthy: 4, desiredHealthy: 0, expectedPods: 4}", 1)
	if stale == string(raw) {
		t.Fatal("testdata/drain.yaml has no budget to give a status")
	}
	path := filepath.Join(t.TempDir(), "drain-stale.yaml")
	if err := os.WriteFile(path, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	const scenario = `
kind: Scenario
steps:
- at: 10s
  drain: {nodes: pool=old}
`
	_, want, _ := play(t, "testdata/drain.yaml", scenario, nil)
	_, tl, _ := play(t, path, scenario, nil)
	events := []string{"pod-evicted", "eviction-blocked", "drain-finished"}
	same(t, "stale status", pick(tl, events...), pick(want, events...))
	checkBudget(t, tl, 4, 3)
}

// TestDrainBlocked: a budget that allows no disruption: with a timeout the
// node's drain fails once a retry comes after it; without one the run
// stops when nothing can unblock the evictions any more.
func TestDrainBlocked(t *testing.T) {
	_, tl, _ := play(t, "testdata/drain-strict.yaml", `
kind: Scenario
steps:
- at: 10s
  drain: {nodes: n1, timeout: 12s}
`, nil)
	same(t, "with a timeout", pick(tl, "eviction-blocked", "eviction-failed", "drain-finished"), []string{
		"10 eviction-blocked shop/web-a n1", "10 eviction-blocked shop/web-b n1",
		"15 eviction-blocked shop/web-a n1", "15 eviction-blocked shop/web-b n1",
		"20 eviction-blocked shop/web-a n1", "20 eviction-blocked shop/web-b n1",
		"25 eviction-failed shop/web-a n1", "25 eviction-failed shop/web-b n1", // the first retry past 10 + 12 s
		"25 drain-finished n1",
	})
	e, tl, _ := play(t, "testdata/drain-strict.yaml", `
kind: Scenario
steps:
- at: 10s
  drain: {nodes: n1}
`, nil)
	same(t, "without", pick(tl, "eviction-blocked", "drain-stalled"), []string{
		"10 eviction-blocked shop/web-a n1", "10 eviction-blocked shop/web-b n1",
		"15 eviction-blocked shop/web-a n1", "15 eviction-blocked shop/web-b n1", // cache's replacement was placed at 10
		"20 drain-stalled n1",
	})
	if d := e.Report().Steps[0].Drain; len(d) != 1 || !strings.HasPrefix(d[0].Result, "stalled") {
		t.Errorf("drain result %+v", d)
	}
}

// TestRemoveNodes: pods of a removed node are deleted by the pod GC 40 s
// after its first pass (every 20 s) finds them orphaned; a StatefulSet's
// replacement keeps the name. A replacement preempts a lower-priority
// pod: the victim is deleted (pod-preempted), its Job replaces it, and that
// replacement waits (no room).
func TestRemoveNodes(t *testing.T) {
	e, tl, _ := play(t, "testdata/small.yaml", `
kind: Scenario
steps:
- at: 30s
  removeNodes: {nodes: n2}
`, nil)
	same(t, "removal", pick(tl, "node-removed", "pod-deleted", "pod-created", "pod-bound"), []string{
		"30 node-removed n2",
		"80 pod-deleted shop/api-7f6b-2 n2", // pass at 40 quarantines n2 until 80
		"80 pod-created shop/api-7f6b-*****",
		"80 pod-deleted shop/db-0 n2",
		"80 pod-created shop/db-0",
		"80 pod-created jobs/batch-*****", // the preemption victim's replacement (below)
		"80 pod-bound shop/api-7f6b-***** n3",
		"80 pod-bound shop/db-0 n3",
	})
	for _, l := range tl {
		if l.Event == "pod-deleted" && l.Reason != "DeletionByPodGC" {
			t.Errorf("%v: reason %q", l, l.Reason)
		}
	}
	if got := boundTo(e, "shop/api-"); len(got) != 2 {
		t.Errorf("api pods %v", got)
	}
	// The api replacement (3 cpus, high priority) fits nowhere else: n1
	// holds the other; it preempts batch-1 on n3.
	same(t, "preemption", pick(tl, "pod-preempted", "pod-pending"), []string{
		"0 pod-pending shop/huge",
		"80 pod-preempted jobs/batch-1 n3",
		"80 pod-pending jobs/batch-*****",
	})
	for _, l := range tl {
		if l.Event == "pod-preempted" && generated.ReplaceAllString(l.Reason, "-*****") != "PreemptionByScheduler: preempted by shop/api-7f6b-*****" {
			t.Errorf("reason %q", l.Reason)
		}
	}
	r := e.Report()
	if r.Pending != 2 || r.PendingPods[0].Pod != "shop/huge" || r.PendingPods[0].Step != -1 || r.PendingPods[1].Step != 0 {
		t.Errorf("pending %+v", r.PendingPods)
	}
	if s := r.Steps[0]; s.Displaced != 3 || s.Replaced != 2 || s.Pending != 1 || s.TimeToReplace != "never" {
		t.Errorf("step: displaced %d replaced %d pending %d time %v", s.Displaced, s.Replaced, s.Pending, s.TimeToReplace)
	}
}

// TestAddNodes: a pod that fit nowhere is placed on a node added later.
func TestAddNodes(t *testing.T) {
	e, tl, _ := play(t, "testdata/small.yaml", `
kind: Scenario
steps:
- at: 20s
  addNodes:
    count: 2
    namePrefix: big-
    template:
      metadata: {labels: {role: big}}
      status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
`, nil)
	same(t, "added", pick(tl, "node-added"), []string{"20 node-added big-0", "20 node-added big-1"})
	if got := boundTo(e, "shop/huge")["shop/huge"]; !strings.HasPrefix(got, "big-") {
		t.Errorf("huge on %q, want an added node (the two tie: the seed picks)", got)
	}
	if s := e.Report().Steps[0]; s.CapacityAdded["cpu"] != 32000 || s.CapacityAdded["nodes"] != 2 {
		t.Errorf("capacity added %v", s.CapacityAdded)
	}
	if e.c.Nodes[e.c.NodeByName["big-1"]].Labels["kubernetes.io/hostname"] != "big-1" {
		t.Error("an added node's hostname label")
	}
}

// TestScale: scaling a Deployment up copies its newest pod under new
// names; down deletes the pods its ReplicaSet would pick (without
// replacements); a StatefulSet grows by ordinals.
func TestScale(t *testing.T) {
	e, tl, _ := play(t, "testdata/small.yaml", `
kind: Scenario
steps:
- at: 5s
  scale: {kind: StatefulSet, namespace: shop, name: db, replicas: 3}
- at: 10s
  scale: {kind: Deployment, namespace: shop, name: api, replicas: 1}
`, nil)
	same(t, "scale", pick(tl, "pod-created", "pod-deleted"), []string{
		"5 pod-created shop/db-1", "5 pod-created shop/db-2",
		"10 pod-deleted shop/api-7f6b-2 n2", // the newer of the two
	})
	if got := boundTo(e, "shop/db-"); len(got) != 3 || got["shop/db-2"] == "" {
		t.Errorf("db pods %v", got)
	}
	r := e.Report()
	if r.Steps[0].Created != 2 || r.Steps[0].Placed != 2 || r.Steps[1].Displaced != 0 || r.Displaced != 0 {
		t.Errorf("report: %+v", r.Steps)
	}
}

// TestCordonRecover: a cordon gets the controller's unschedulable taint;
// a node that fails and comes back before its pods' tolerations run out
// keeps them: its taints go (NoSchedule at once, NoExecute at the next
// monitor pass) and the deletions are cancelled.
func TestCordonRecover(t *testing.T) {
	_, tl, _ := play(t, "testdata/zones.yaml", `
kind: Scenario
steps:
- at: 0s
  cordon: {nodes: b3}
- at: 0s
  failNodes: {nodes: a2}
- at: 200s
  recoverNodes: {nodes: a2}
- at: 210s
  uncordon: {nodes: b3}
`, nil)
	same(t, "taints", pick(tl, "taint-added", "taint-removed", "deletion-cancelled", "pod-deleted", "node-ready"), []string{
		"0 taint-added b3 node.kubernetes.io/unschedulable:NoSchedule",
		"55 taint-added a2 node.kubernetes.io/unreachable:NoSchedule",
		"55 taint-added a2 node.kubernetes.io/unreachable:NoExecute",
		"200 node-ready a2",
		"200 taint-removed a2 node.kubernetes.io/unreachable:NoSchedule",
		"200 taint-removed a2 node.kubernetes.io/unreachable:NoExecute",
		"200 deletion-cancelled shop/web-2 a2",
		"210 taint-removed b3 node.kubernetes.io/unschedulable:NoSchedule",
	})
}

// TestDeterministic: the same run twice gives the same bytes.
func TestDeterministic(t *testing.T) {
	const sc = `
kind: Scenario
steps:
- at: 60s
  failNodes: {nodes: topology.kubernetes.io/zone=a}
- at: 2m
  drain: {nodes: b1}
`
	_, _, a := play(t, "testdata/zones.yaml", sc, nil)
	_, _, b := play(t, "testdata/zones.yaml", sc, nil)
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Error("two runs gave different timelines")
	}
	// Pods made from templates: names from the seeded generator.
	const tsc = `
kind: Scenario
steps:
- at: 5s
  addNodes: {count: 2, namePrefix: c-, template: {status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}}
- at: 10s
  taint: {nodes: a1, add: [{key: maint, effect: NoExecute}]}
- at: 20s
  scale: {kind: Deployment, namespace: shop, name: web, replicas: 5}
`
	_, _, a = play(t, "testdata/workloads.yaml", tsc, nil)
	_, _, b = play(t, "testdata/workloads.yaml", tsc, nil)
	if !bytes.Equal(a, b) || !bytes.Contains(a, []byte(`"pod-created"`)) {
		t.Error("two runs with templates gave different timelines")
	}
}

// TestApply: an applied file's pods are admitted against the cluster's
// classes, created and placed; a Deployment without a template creates
// nothing and says so.
func TestApply(t *testing.T) {
	e, tl, _ := play(t, "testdata/small.yaml", `
kind: Scenario
steps:
- at: 3s
  apply: {file: testdata/apply.yaml}
`, func(c *Config) {})
	same(t, "apply", pick(tl, "pod-created", "pod-rejected"), []string{
		"3 pod-created shop/extra-1", "3 pod-created shop/extra-2", "3 pod-rejected shop/ghost",
	})
	if got := boundTo(e, "shop/extra-"); got["shop/extra-1"] == "" || got["shop/extra-2"] == "" {
		t.Errorf("applied pods not placed: %v", got)
	}
	var prio int32
	for i := range e.c.Pods {
		if e.c.Pods[i].Name == "extra-1" {
			prio = e.c.Pods[i].Priority
		}
	}
	if prio != 1000 {
		t.Errorf("extra-1 priority %d, want high's 1000", prio)
	}
	if w := e.Report().Warnings; len(w) != 1 || w[0] != "Deployment shop/web: no spec.template: creates no pods" {
		t.Errorf("warnings %q", w)
	}
	if s := e.Report().Steps[0]; s.Created != 2 || s.Placed != 2 {
		t.Errorf("created %d placed %d", s.Created, s.Placed)
	}
}

// TestReplay: the state for replaying a run's placements has the pods the
// scheduler placed pending again, its preemption victims bound, and the
// commits in order: Evictions before the Binding that needed them.
func TestReplay(t *testing.T) {
	e, _, _ := play(t, "testdata/small.yaml", `
kind: Scenario
steps:
- at: 30s
  removeNodes: {nodes: n2}
`, nil)
	state, c, res := e.Replay()
	pending := map[string]string{}
	for _, p := range state.Pods {
		pending[podKey(&p)] = p.NodeName
	}
	if n, ok := pending["jobs/batch-1"]; !ok || n != "n3" {
		t.Errorf("the victim must be in the replay state, bound to n3: %q %v", n, ok)
	}
	var order []string
	for _, cm := range res.Commits {
		p := &c.Pods[cm.Pod]
		if n, ok := pending[podKey(p)]; !ok || cm.Action == solver.Bind && n != "" {
			t.Errorf("commit of %s: in the state %v, bound there to %q", podKey(p), ok, n)
		}
		order = append(order, fmt.Sprintf("%d %s %s", cm.Action, generated.ReplaceAllString(p.Name, "-*****"), c.Nodes[cm.Node].Name))
	}
	same(t, "commits", order, []string{"1 batch-1 n3", "0 api-7f6b-***** n3", "0 db-0 n3"})
	st := e.State()
	for _, p := range st.Pods {
		if p.Name == "batch-1" || p.Name == "api-7f6b-2" {
			t.Errorf("%s was deleted: not in the final state", p.Name)
		}
	}
}

// TestFailedInInput: a node that failed before the export (unreachable,
// its NoSchedule taint only) is queued for its NoExecute taint by the
// lifecycle controller's first pass, as upstream's monitor pass queues
// every not-Ready node: it is tainted at t = 0 (the zone is Normal, its
// queue's first token free), and its pod, tolerating that for 300 s, is
// deleted at 300 s.
func TestFailedInInput(t *testing.T) {
	_, tl, _ := play(t, "testdata/failed-in-input.yaml", "kind: Scenario\nsteps: []\nuntil: 10m\n", nil)
	tainted, deleted := -1.0, -1.0
	for _, l := range tl {
		switch {
		case l.Event == "taint-added" && l.Node == "b" && strings.HasPrefix(l.Taint, "node.kubernetes.io/unreachable") && strings.HasSuffix(l.Taint, "NoExecute"):
			tainted = l.T
		case l.Event == "pod-deleted" && l.Pod == "default/p":
			deleted = l.T
		}
	}
	if tainted != 0 || deleted != 300 {
		t.Errorf("b tainted NoExecute at %v, p deleted at %v: want 0 and 300\n%+v", tainted, deleted, tl)
	}
}

// TestAddedCordonedNode: a node that registers cordoned (spec.unschedulable)
// gets the node.kubernetes.io/unschedulable:NoSchedule taint when it is
// added, as an input node or a cordon step's node does.
func TestAddedCordonedNode(t *testing.T) {
	_, tl, _ := play(t, "testdata/failed-in-input.yaml", `kind: Scenario
until: 1m
steps:
- at: 10s
  addNodes: {count: 1, namePrefix: new-, template: {spec: {unschedulable: true}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}}
`, nil)
	for _, l := range tl {
		if l.Event == "taint-added" && l.Node == "new-0" && strings.HasPrefix(l.Taint, "node.kubernetes.io/unschedulable") {
			if l.T != 10 {
				t.Errorf("new-0 cordon taint at %v, want 10", l.T)
			}
			return
		}
	}
	t.Errorf("new-0 never got the unschedulable taint:\n%+v", tl)
}

// TestReplayDropsAPreemptorsEvictions: p preempts v at t = 0 and is bound;
// a NoExecute taint at 10 s deletes p (no controller: gone for good). The
// replay leaves p's Binding out, and its Eviction of v with it: without
// p, the eviction freed room for nothing the replay holds (oracle
// validate called it invalid).
func TestReplayDropsAPreemptorsEvictions(t *testing.T) {
	e, tl, _ := play(t, "testdata/preemptor-deleted.yaml", `kind: Scenario
until: 1m
steps:
- at: 10s
  taint: {nodes: n1, add: [{key: k, value: v, effect: NoExecute}]}
`, nil)
	evicted, deleted := false, false
	for _, l := range tl {
		evicted = evicted || l.Event == "pod-preempted" && l.Pod == "default/v"
		deleted = deleted || l.Event == "pod-deleted" && l.Pod == "default/p" && l.T == 10
	}
	if !evicted || !deleted {
		t.Fatalf("v preempted %t, p deleted at 10 s %t:\n%+v", evicted, deleted, tl)
	}
	_, _, res := e.Replay()
	if len(res.Commits) != 0 {
		t.Errorf("replay commits %+v, want none (p's Binding and its Eviction left out)", res.Commits)
	}
}
