package scenario

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
)

// livePods returns the live pods whose namespace/name starts with prefix.
func livePods(e *Engine, prefix string) []*index.Pod {
	var out []*index.Pod
	for pid := range e.c.Pods {
		if !e.pods[pid].deleted && strings.HasPrefix(podKey(&e.c.Pods[pid]), prefix) {
			out = append(out, &e.c.Pods[pid])
		}
	}
	return out
}

// livePod returns the live pod named ns/name (nil: none).
func livePod(e *Engine, key string) *index.Pod {
	for _, p := range livePods(e, key) {
		if podKey(p) == key {
			return p
		}
	}
	return nil
}

// taintA1 taints a1 NoExecute at 10 s (nothing tolerates it).
const taintA1 = `
kind: Scenario
steps:
- at: 10s
  taint: {nodes: a1, add: [{key: maint, value: x, effect: NoExecute}]}
`

// TestReplacementsFromTemplates: pods a NoExecute taint deletes at 10 s
// come back at 10 s from their controllers' templates, not as copies:
// web's replacement asks for its template's 1 cpu and zone b (so b2: b1
// has no room), under the ReplicaSet's generateName; db-0 comes back
// under its name, in zone a (a2); the Job at 3 of 4 completions gets one
// pod, the Job without completions its parallelism's three; the
// ReplicationController's one; the DaemonSet's pod and the standalone
// pod none.
func TestReplacementsFromTemplates(t *testing.T) {
	e, tl, _ := play(t, "testdata/workloads.yaml", taintA1, nil)
	same(t, "deleted and created", pick(tl, "pod-deleted", "pod-created"), []string{
		"10 pod-deleted shop/web-6b9c-aaaaa a1", "10 pod-created shop/web-6b9c-*****",
		"10 pod-deleted shop/db-0 a1", "10 pod-created shop/db-0",
		"10 pod-deleted jobs/batch-iiiii a1", "10 pod-created jobs/batch-*****",
		"10 pod-deleted jobs/wide-eeeee a1", "10 pod-created jobs/wide-*****", "10 pod-created jobs/wide-*****", "10 pod-created jobs/wide-*****",
		"10 pod-deleted shop/legacy-ooooo a1", "10 pod-created shop/legacy-*****",
		"10 pod-deleted kube-system/agent-a1 a1",
		"10 pod-deleted shop/solo a1",
	})
	bound := map[string]string{}
	for _, l := range tl {
		if l.Event == "pod-bound" {
			if l.T != 10 {
				t.Errorf("%v: want every replacement bound at 10 s", l)
			}
			bound[generated.ReplaceAllString(l.Pod, "-*****")] = l.Node
		}
	}
	if bound["shop/web-6b9c-*****"] != "b2" || bound["shop/db-0"] != "a2" {
		t.Errorf("bound %v: want web's replacement on b2 (its template's zone b), db-0 on a2 (zone a)", bound)
	}
	for pod, node := range bound {
		if node == "a1" {
			t.Errorf("%s bound to the tainted a1", pod)
		}
	}
	var web *index.Pod
	for _, p := range livePods(e, "shop/web-6b9c-") {
		if p.Name != "web-6b9c-uuuuu" {
			web = p
		}
	}
	if web == nil {
		t.Fatal("no web replacement")
	}
	if web.Labels["tier"] != "front" || web.Labels["pod-template-hash"] != "6b9c" || web.NodeSelector["topology.kubernetes.io/zone"] != "b" {
		t.Errorf("web's replacement: labels %v, node selector %v: want its template's", web.Labels, web.NodeSelector)
	}
	if cpu := requestOf(web, "cpu"); cpu != 1000 {
		t.Errorf("web's replacement asks for %dm cpu, want its template's 1000m (the deleted pod asked for 2000m)", cpu)
	}
	if web.Owner == nil || web.Owner.Kind != index.KindReplicaSet || web.Owner.Name != "web-6b9c" || web.Owner.UID != "r1" {
		t.Errorf("web's replacement owner %+v", web.Owner)
	}
	if db := livePod(e, "shop/db-0"); db == nil || db.UID == "p3" || db.Labels["statefulset.kubernetes.io/pod-name"] != "db-0" {
		t.Errorf("db-0's replacement: %+v", db)
	}
	if s := e.Report().Steps[0]; s.Displaced != 7 || s.Replaced != 5 || s.Lost != 2 {
		t.Errorf("report: displaced %d, replaced %d, lost %d", s.Displaced, s.Replaced, s.Lost)
	}
}

// requestOf is p's request of resource name.
func requestOf(p *index.Pod, name string) int64 {
	for _, q := range p.Requests {
		if q.Name == name {
			return q.Value
		}
	}
	return 0
}

// TestDaemonSetOnNewNodes: nodes added at 5 s get a pod of each DaemonSet
// that selects them (agent: every node; gpu-agent: none of these), pinned
// to the node by node affinity and bound there at 5 s. The pod carries the
// tolerations the DaemonSet controller adds: when c-0 fails at 20 s and is
// tainted unreachable NoExecute at 75 s, it stays. A removed node's
// DaemonSet pod is deleted by the pod GC and not replaced.
func TestDaemonSetOnNewNodes(t *testing.T) {
	e, tl, _ := play(t, "testdata/workloads.yaml", `
kind: Scenario
until: 20m
steps:
- at: 5s
  addNodes:
    count: 2
    namePrefix: c-
    template:
      metadata: {labels: {topology.kubernetes.io/zone: c}}
      status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- at: 20s
  failNodes: {nodes: c-0}
- at: 30s
  removeNodes: {nodes: c-1}
`, nil)
	same(t, "daemon pods", pick(tl, "pod-created", "pod-bound", "pod-deleted", "taint-added"), []string{
		"5 pod-created kube-system/agent-*****", "5 pod-created kube-system/agent-*****",
		"5 pod-bound kube-system/agent-***** c-0", "5 pod-bound kube-system/agent-***** c-1",
		"75 taint-added c-0 node.kubernetes.io/unreachable:NoSchedule",
		"75 taint-added c-0 node.kubernetes.io/unreachable:NoExecute",
		"80 pod-deleted kube-system/agent-***** c-1",
	})
	var onC0 *index.Pod
	for pid := range e.c.Pods {
		if n := e.c.PodNode[pid]; n != index.NoNode && e.c.Nodes[n].Name == "c-0" {
			onC0 = &e.c.Pods[pid]
		}
	}
	if onC0 == nil {
		t.Fatal("no pod on c-0 at the end")
	}
	if len(onC0.RequiredTerms) != 1 || len(onC0.RequiredTerms[0].MatchFields) != 1 || onC0.RequiredTerms[0].MatchFields[0].Values[0] != "c-0" {
		t.Errorf("the DaemonSet pod's required affinity %+v: want metadata.name In (c-0)", onC0.RequiredTerms)
	}
	want := []string{"node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/unreachable:NoExecute",
		"node.kubernetes.io/disk-pressure:NoSchedule", "node.kubernetes.io/memory-pressure:NoSchedule",
		"node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"}
	var got []string
	for _, tol := range onC0.Tolerations {
		if tol.Operator != "Exists" || tol.TolerationSeconds != nil {
			t.Errorf("toleration %+v: want Exists, for ever", tol)
		}
		got = append(got, tol.Key+":"+tol.Effect)
	}
	same(t, "tolerations", got, want)
}

// TestScaleFromTemplates: a Deployment scaled up gets pods from its
// current ReplicaSet's template (zone b: b2); a StatefulSet its next
// ordinal from its own (zone a); scaled down, the ReplicaSet controller's
// order: the two on b2 first (more of web's pods on their node), then of
// the two alone on their node the one ready for less time (uuuuu, ready
// since 00:10, a smaller age bucket than aaaaa's 00:00).
func TestScaleFromTemplates(t *testing.T) {
	e, tl, _ := play(t, "testdata/workloads.yaml", `
kind: Scenario
steps:
- at: 5s
  scale: {kind: Deployment, namespace: shop, name: web, replicas: 4}
- at: 5s
  scale: {kind: StatefulSet, namespace: shop, name: db, replicas: 3}
- at: 10s
  scale: {kind: Deployment, namespace: shop, name: web, replicas: 1}
`, nil)
	same(t, "scale", pick(tl, "pod-created", "pod-bound", "pod-deleted"), []string{
		"5 pod-created shop/web-6b9c-*****", "5 pod-created shop/web-6b9c-*****",
		"5 pod-created shop/db-2",
		"5 pod-bound shop/web-6b9c-***** b2", "5 pod-bound shop/web-6b9c-***** b2",
		"5 pod-bound shop/db-2 a2",
		"10 pod-deleted shop/web-6b9c-***** b2", "10 pod-deleted shop/web-6b9c-***** b2",
		"10 pod-deleted shop/web-6b9c-uuuuu b1",
	})
	if got := boundTo(e, "shop/web-"); len(got) != 1 || got["shop/web-6b9c-aaaaa"] != "a1" {
		t.Errorf("web's pods after scaling to 1: %v", got)
	}
	if db := livePod(e, "shop/db-2"); db == nil || db.NodeSelector["topology.kubernetes.io/zone"] != "a" {
		t.Errorf("db-2: %+v", db)
	}
	if w := e.c.Workloads[e.workload(index.KindReplicaSet, "shop", "web-6b9c")]; w.Replicas != 1 {
		t.Errorf("web-6b9c replicas %d, want 1", w.Replicas)
	}
}

// TestActivePodsLess: the ReplicaSet controller's scale-down order, rule
// by rule (the lesser is deleted first); now is 2024-06-01T01:00:00.
func TestActivePodsLess(t *testing.T) {
	const now = 1717203600
	ready := func(rank int, since, created int64, uid string) rankedPod {
		return rankedPod{assigned: true, ready: true, rank: rank, readySince: since, created: created, uid: uid}
	}
	for _, c := range []struct {
		name string
		a, b rankedPod
		want bool // a before b
	}{
		{"unassigned first", rankedPod{created: now - 10}, ready(1, now-100, now-100, "b"), true},
		{"assigned after", ready(1, now-100, now-100, "b"), rankedPod{created: now - 10}, false},
		{"not ready first", rankedPod{assigned: true, rank: 1, created: now - 5000}, ready(1, now-10, now-10, "b"), true},
		{"more on its node first", ready(3, now-3000, now-3000, "z"), ready(1, now-10, now-10, "a"), true},
		{"ready for less time first", ready(1, now-10, now-4000, "z"), ready(1, now-1000, now-1000, "a"), true},
		{"same ready bucket: uid", ready(1, now-1200, now-1200, "b"), ready(1, now-1500, now-3000, "a"), false},
		{"same ready bucket: uid, other way", ready(1, now-1500, now-3000, "a"), ready(1, now-1200, now-1200, "b"), true},
		{"ready time unset first", ready(1, 0, now-10, "z"), ready(1, now-10, now-3000, "a"), true},
		{"created later first", ready(1, now-10, now-10, "z"), ready(1, now-10, now-3000, "a"), true},
		{"same creation bucket: uid", ready(1, now-10, now-1200, "b"), ready(1, now-10, now-1500, "a"), false},
		{"equal", ready(1, now-10, now-10, "a"), ready(1, now-10, now-10, "a"), false},
	} {
		if got := activePodsLess(&c.a, &c.b, now); got != c.want {
			t.Errorf("%s: activePodsLess = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestApplyControllers: an applied Deployment gets its ReplicaSet (named
// from its template's hash) and that ReplicaSet's pods; an applied
// DaemonSet one pod on each node it selects (zone b), bound there; all at
// the step's second.
func TestApplyControllers(t *testing.T) {
	e, tl, _ := play(t, "testdata/workloads.yaml", `
kind: Scenario
steps:
- at: 7s
  apply: {file: testdata/apply-controllers.yaml}
`, nil)
	var created, bound []string
	for _, l := range tl {
		p := generated.ReplaceAllString(l.Pod, "-*****")
		switch l.Event {
		case "pod-created":
			created = append(created, fmt.Sprintf("%g %s", l.T, p))
		case "pod-bound":
			if strings.HasPrefix(p, "shop/logs-") {
				bound = append(bound, fmt.Sprintf("%g %s %s", l.T, p, l.Node))
			} else if l.T != 7 {
				t.Errorf("%v: want bound at 7 s", l)
			}
		}
	}
	var rs []string
	for _, w := range e.c.Workloads {
		if w.Kind == index.KindReplicaSet && w.Owner != nil && w.Owner.Name == "api" {
			rs = append(rs, w.Name)
		}
	}
	if len(rs) != 1 || !strings.HasPrefix(rs[0], "api-") {
		t.Fatalf("api's ReplicaSets %v, want one", rs)
	}
	slices.Sort(created)
	same(t, "created", created, []string{"7 shop/" + rs[0] + "-*****", "7 shop/" + rs[0] + "-*****", "7 shop/logs-*****", "7 shop/logs-*****"})
	same(t, "daemon pods", bound, []string{"7 shop/logs-***** b1", "7 shop/logs-***** b2"})
	if api := boundTo(e, "shop/api-"); len(api) != 2 || slices.Contains(slices.Collect(maps.Values(api)), "") {
		t.Errorf("api's pods %v, want 2 bound", api)
	}
	if len(e.Report().Warnings) != 0 {
		t.Errorf("warnings %q", e.Report().Warnings)
	}
}

// variant writes testdata/workloads.yaml with from replaced by to, and
// returns its path.
func variant(t *testing.T, from, to string) string {
	t.Helper()
	raw, err := os.ReadFile("testdata/workloads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(string(raw), from, to, 1)
	if out == string(raw) {
		t.Fatalf("testdata/workloads.yaml: %q not found", from)
	}
	path := filepath.Join(t.TempDir(), "variant.yaml")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplicaSetAtZero: a ReplicaSet whose replicas are 0 (an old one of a
// rollout, being scaled down) does not replace its deleted pod.
func TestReplicaSetAtZero(t *testing.T) {
	const spec = "  spec:\n    replicas: 2\n    selector: {matchLabels: {app: web, pod-template-hash: 6b9c}}"
	_, tl, _ := play(t, variant(t, spec, strings.Replace(spec, "replicas: 2", "replicas: 0", 1)), taintA1, nil)
	for _, l := range pick(tl, "pod-created") {
		if strings.Contains(l, "web-") {
			t.Errorf("%s: a ReplicaSet at 0 replicas replaces nothing", l)
		}
	}
	if got := pick(tl, "pod-deleted"); len(got) == 0 || got[0] != "10 pod-deleted shop/web-6b9c-aaaaa a1" {
		t.Errorf("deletions %v", got)
	}
}

// TestTemplateFails: a controller whose template gives no pod (a request
// that is not a quantity) warns, and its deleted pod's replacement copies
// the pod (200m cpu), at 10 s.
func TestTemplateFails(t *testing.T) {
	const tmpl = "metadata: {labels: {app: legacy}}\n      spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 200m}}}]}"
	e, tl, _ := play(t, variant(t, tmpl, strings.Replace(tmpl, "cpu: 200m", "cpu: lots", 1)), taintA1, nil)
	created := pick(tl, "pod-created")
	if !slices.Contains(created, "10 pod-created shop/legacy-*****") {
		t.Errorf("created %v: want legacy's replacement at 10 s", created)
	}
	for _, p := range livePods(e, "shop/legacy-") {
		if requestOf(p, "cpu") != 200 {
			t.Errorf("%s asks for %dm cpu, want the deleted pod's 200m", p.Name, requestOf(p, "cpu"))
		}
	}
	w := e.Report().Warnings
	if len(w) != 1 || !strings.HasPrefix(w[0], "ReplicationController shop/legacy: its template gives no pod: replacements copy the deleted pods (") {
		t.Errorf("warnings %q", w)
	}
}

// TestApplyAdopts: an applied ReplicaSet of two counts the cluster's pod
// its selector matches (stray, without a controller: adopted) and creates
// one pod at the step's second.
func TestApplyAdopts(t *testing.T) {
	_, tl, _ := play(t, "testdata/workloads.yaml", `
kind: Scenario
steps:
- at: 4s
  apply: {file: testdata/apply-adopt.yaml}
`, nil)
	same(t, "created", pick(tl, "pod-created"), []string{"4 pod-created shop/stray-rs-*****"})
}
