package ingest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kplace/kplace/index"
)

// The expansion tests compare what Expand creates with what the real
// controllers create. testdata/expand/NAME.yaml holds the input;
// NAME.upstream the objects the v1.36 controllers created from it (see its
// header: a throwaway program ran k8s.io/kubernetes v1.36.3's deployment,
// replicaset, replication, statefulset, daemon and job controllers on a
// fake clientset), plus the hashes and DaemonSet node verdicts it printed
// (controller.ComputeHash, daemon.NodeShouldRunDaemonPod).

// expanded is an expansion of a test input and the objects it created.
type expanded struct {
	in   *index.Input
	exp  *Expansion
	pods []corev1.Pod
	rss  []appsv1.ReplicaSet
	pvcs []corev1.PersistentVolumeClaim
}

func expandFile(t *testing.T, name string, seed uint64) *expanded {
	t.Helper()
	in, err := Load([]string{filepath.Join("testdata", "expand", name+".yaml")}, Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := Expand(in, ExpandOptions{Seed: seed, AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	e := &expanded{in: in, exp: exp}
	err = exp.EachObject(func(obj []byte) error {
		var head struct{ Kind string }
		if err := json.Unmarshal(obj, &head); err != nil {
			return err
		}
		switch head.Kind {
		case "Pod":
			var p corev1.Pod
			e.pods = append(e.pods, p)
			return json.Unmarshal(obj, &e.pods[len(e.pods)-1])
		case "ReplicaSet":
			var rs appsv1.ReplicaSet
			e.rss = append(e.rss, rs)
			return json.Unmarshal(obj, &e.rss[len(e.rss)-1])
		case "PersistentVolumeClaim":
			var pvc corev1.PersistentVolumeClaim
			e.pvcs = append(e.pvcs, pvc)
			return json.Unmarshal(obj, &e.pvcs[len(e.pvcs)-1])
		}
		t.Fatalf("created a %s", head.Kind)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// upstream is what the controllers created for an input.
type upstream struct {
	pods   []corev1.Pod
	rss    []appsv1.ReplicaSet
	pvcs   []corev1.PersistentVolumeClaim
	hashes map[string]string          // Deployment and DaemonSet name -> ComputeHash
	runs   map[string]map[string]bool // DaemonSet -> node -> NodeShouldRunDaemonPod
}

func readUpstream(t *testing.T, name string) *upstream {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "expand", name+".upstream"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := &upstream{hashes: map[string]string{}, runs: map[string]map[string]bool{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		var err error
		switch kind {
		case "POD":
			var p corev1.Pod
			err = json.Unmarshal([]byte(rest), &p)
			u.pods = append(u.pods, p)
		case "RS":
			var rs appsv1.ReplicaSet
			err = json.Unmarshal([]byte(rest), &rs)
			u.rss = append(u.rss, rs)
		case "PVC":
			var pvc corev1.PersistentVolumeClaim
			err = json.Unmarshal([]byte(rest), &pvc)
			u.pvcs = append(u.pvcs, pvc)
		case "HASH", "DSHASH":
			f := strings.Fields(rest)
			u.hashes[f[0]] = f[1]
		case "DSNODE":
			f := strings.Fields(rest)
			if u.runs[f[0]] == nil {
				u.runs[f[0]] = map[string]bool{}
			}
			u.runs[f[0]][f[1]] = f[2] == "true"
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return u
}

// inputUIDs are the uids of the input's controllers: owner references to
// them must agree; any other owner uid is made up (by Expand from the seed,
// by the fake clientset upstream) and is compared as a placeholder.
func inputUIDs(e *expanded) map[string]bool {
	out := map[string]bool{}
	ws := e.in.Workloads
	for _, w := range ws[:len(ws)-e.exp.ReplicaSets] { // the created ReplicaSets come last
		if w.UID != "" {
			out[w.UID] = true
		}
	}
	return out
}

// normalMeta clears what differs by construction (generated names and
// uids, namespaces the fake client left out, timestamps) and replaces a
// made-up owner uid, wherever it appears, with a placeholder.
func normalMeta(m *metav1.ObjectMeta, uids map[string]bool) {
	m.Name, m.UID, m.Namespace, m.CreationTimestamp = "", "", "", metav1.Time{}
	for i := range m.OwnerReferences {
		ref := &m.OwnerReferences[i]
		if uids[string(ref.UID)] {
			continue
		}
		for k, v := range m.Labels {
			if v == string(ref.UID) {
				m.Labels[k] = "<made-up uid>"
			}
		}
		ref.UID = ""
	}
}

// normalPod readies a pod for comparison: metadata as normalMeta, the spec
// defaulted as the API server defaults what it stores (Expand writes what
// the controller posts), volumes in name order (the StatefulSet
// controller orders claims by map iteration).
func normalPod(p corev1.Pod, uids map[string]bool) string {
	normalMeta(&p.ObjectMeta, uids)
	t := corev1.PodTemplateSpec{Spec: p.Spec}
	defaultTemplate(&t)
	p.Spec = t.Spec
	sort.Slice(p.Spec.Volumes, func(i, j int) bool { return p.Spec.Volumes[i].Name < p.Spec.Volumes[j].Name })
	p.TypeMeta, p.Status = metav1.TypeMeta{}, corev1.PodStatus{}
	b, _ := json.Marshal(p)
	return string(b)
}

func normalRS(rs appsv1.ReplicaSet, uids map[string]bool) string {
	normalMeta(&rs.ObjectMeta, uids)
	rs.Annotations = nil // the deployment controller's revision annotations are not written
	rs.TypeMeta, rs.Status = metav1.TypeMeta{}, appsv1.ReplicaSetStatus{}
	defaultTemplate(&rs.Spec.Template)
	b, _ := json.Marshal(rs)
	return string(b)
}

func normalPVC(pvc corev1.PersistentVolumeClaim) string {
	pvc.Namespace, pvc.UID, pvc.TypeMeta, pvc.Status = "", "", metav1.TypeMeta{}, corev1.PersistentVolumeClaimStatus{}
	if pvc.Spec.VolumeMode == nil {
		fs := corev1.PersistentVolumeFilesystem
		pvc.Spec.VolumeMode = &fs
	}
	b, _ := json.Marshal(pvc)
	return string(b)
}

func sortedStrings[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	sort.Strings(out)
	return out
}

func diffLists(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d created, upstream %d", what, len(got), len(want))
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if got[i] != want[i] {
			t.Errorf("%s %d:\n got %s\nwant %s", what, i, got[i], want[i])
		}
	}
}

// checkNames checks the names Expand gave its pods: a StatefulSet pod its
// pod-name label, the others their generateName and five characters of the
// API server's alphabet, all distinct.
func checkNames(t *testing.T, pods []corev1.Pod) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range pods {
		if seen[p.Namespace+"/"+p.Name] {
			t.Errorf("pod %s/%s created twice", p.Namespace, p.Name)
		}
		seen[p.Namespace+"/"+p.Name] = true
		if n, ok := p.Labels[labelSTSPodName]; ok {
			if p.Name != n {
				t.Errorf("StatefulSet pod %s labelled %s", p.Name, n)
			}
			continue
		}
		suffix, ok := strings.CutPrefix(p.Name, p.GenerateName)
		if !ok || len(suffix) != 5 || strings.Trim(suffix, "bcdfghjklmnpqrstvwxz2456789") != "" {
			t.Errorf("pod %s: not generateName %q and five random characters", p.Name, p.GenerateName)
		}
	}
}

// compareUpstream compares an expansion with what the controllers created.
func compareUpstream(t *testing.T, e *expanded, u *upstream) {
	t.Helper()
	uids := inputUIDs(e)
	checkNames(t, e.pods)
	diffLists(t, "pod", sortedStrings(e.pods, func(p corev1.Pod) string { return normalPod(p, uids) }),
		sortedStrings(u.pods, func(p corev1.Pod) string { return normalPod(p, uids) }))
	diffLists(t, "ReplicaSet", sortedStrings(e.rss, func(rs appsv1.ReplicaSet) string { return normalRS(rs, uids) }),
		sortedStrings(u.rss, func(rs appsv1.ReplicaSet) string { return normalRS(rs, uids) }))
	// Upstream also creates the claims of pods the input holds without
	// them; Expand writes those of the pods it creates.
	mine := map[string]bool{}
	for _, pvc := range e.pvcs {
		mine[pvc.Name] = true
	}
	var theirs []corev1.PersistentVolumeClaim
	for _, pvc := range u.pvcs {
		if mine[pvc.Name] {
			theirs = append(theirs, pvc)
		}
	}
	diffLists(t, "PersistentVolumeClaim", sortedStrings(e.pvcs, normalPVC), sortedStrings(theirs, normalPVC))
}

// rows indexes the workload rows by kind/name.
func rows(e *expanded) map[string]index.WorkloadExpansion {
	out := map[string]index.WorkloadExpansion{}
	for _, r := range e.exp.Workloads {
		out[r.Kind+"/"+r.Name] = r
	}
	return out
}

type rowWant struct{ desired, existing, created int }

func checkRows(t *testing.T, e *expanded, want map[string]rowWant) {
	t.Helper()
	got := rows(e)
	if len(got) != len(want) {
		t.Errorf("%d workload rows, want %d: %+v", len(got), len(want), e.exp.Workloads)
	}
	for k, w := range want {
		r, ok := got[k]
		if !ok {
			t.Errorf("no row for %s", k)
			continue
		}
		if g := (rowWant{r.Desired, r.Existing, r.Created}); g != w {
			t.Errorf("%s: desired/existing/created %v, want %v", k, g, w)
		}
	}
}

// TestExpandDeployment: a Deployment whose current ReplicaSet exists with 2
// of its 5 pods gets 3 more from that ReplicaSet (found by template
// equality, the old ReplicaSet of the rollout left alone); a manifest's
// Deployment gets the ReplicaSet named by the hash of its defaulted
// template; a ReplicationController adopts an orphan and adds the other.
func TestExpandDeployment(t *testing.T) {
	e := expandFile(t, "deploy", 1)
	u := readUpstream(t, "deploy")
	compareUpstream(t, e, u)
	checkRows(t, e, map[string]rowWant{
		"Deployment/web":               {5, 2, 3},
		"Deployment/api":               {2, 0, 2},
		"ReplicationController/legacy": {2, 1, 1},
	})
	// The hashes upstream computed name the ReplicaSets.
	if u.hashes["web"] != "76544c7f9" || u.hashes["api"] != "5b778c79bb" {
		t.Fatalf("upstream hashes %v", u.hashes)
	}
	for _, p := range e.pods {
		if p.Labels["app"] == "web" && p.OwnerReferences[0].Name != "web-"+u.hashes["web"] {
			t.Errorf("pod %s owned by %s", p.Name, p.OwnerReferences[0].Name)
		}
	}
	if len(e.rss) != 1 || e.rss[0].Name != "api-"+u.hashes["api"] {
		t.Errorf("created ReplicaSets %v", e.rss)
	}
	// The created ReplicaSet joins the workloads (default spreading finds it).
	rs := e.in.Workloads[len(e.in.Workloads)-1]
	if rs.Kind != index.KindReplicaSet || rs.Name != "api-5b778c79bb" || rs.Selector.MatchLabels["pod-template-hash"] != "5b778c79bb" {
		t.Errorf("workload added: %+v", rs)
	}
}

// TestExpandDaemonSet: a DaemonSet gets one pod on every node its
// controller would run it on and that lacks one, pinned there by a
// matchFields term, with the DaemonSet tolerations; the nodes are the ones
// NodeShouldRunDaemonPod accepts.
func TestExpandDaemonSet(t *testing.T) {
	e := expandFile(t, "daemonset", 1)
	u := readUpstream(t, "daemonset")
	compareUpstream(t, e, u)
	// The node index made for the DaemonSets is handed on when asked
	// for, for the input's own nodes.
	if e.exp.Nodes != nil {
		t.Errorf("Expansion.Nodes made without ExpandOptions.NodeIndex")
	}
	in, err := Load([]string{filepath.Join("testdata", "expand", "daemonset.yaml")}, Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range in.Nodes { // images for the image table to index
		in.Nodes[i].Images = []index.NodeImage{{Names: []string{fmt.Sprintf("img:%d", i%3), "common:1"}, Size: int64(i+1) << 20}}
	}
	exp, err := Expand(in, ExpandOptions{Seed: 1, AdmissionDefaults: true, NodeIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	if ni := exp.Nodes; ni == nil || len(ni.Nodes) != len(in.Nodes) || &ni.Nodes[0] != &in.Nodes[0] {
		t.Fatalf("Expansion.Nodes is not a node index of the input's nodes")
	} else if got := ni.NodeByName[in.Nodes[len(in.Nodes)-1].Name]; got != index.NodeID(len(in.Nodes)-1) {
		t.Errorf("Expansion.Nodes: the last node has id %d", got)
	}
	want, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	c, err := index.BuildOn(in, exp.Nodes)
	if err != nil {
		t.Fatal(err)
	}
	if c.Syms != exp.Nodes.Syms {
		t.Errorf("BuildOn did not take the expansion's node index")
	}
	if len(c.Images.Size) != 4 || !reflect.DeepEqual(c.Images, want.Images) {
		t.Errorf("BuildOn on the expansion's node index: image table %v, Build's %v", c.Images.ID, want.Images.ID)
	}
	// Eligibility, node by node, against NodeShouldRunDaemonPod.
	x := planned(t, "daemonset")
	for _, ds := range []string{"agent", "net"} {
		c := x.find(t, index.KindDaemonSet, ds)
		for node, run := range u.runs[ds] {
			if got := c.eligible.Contains(nodeIndex(e.in, node)); got != run {
				t.Errorf("DaemonSet %s on node %s: runs %t, upstream %t", ds, node, got, run)
			}
		}
		if len(u.runs[ds]) != len(e.in.Nodes) {
			t.Fatalf("upstream judged %d nodes", len(u.runs[ds]))
		}
	}
	checkRows(t, e, map[string]rowWant{
		"DaemonSet/agent": {7, 2, 5}, // has-pod and has-pending hold one
		"DaemonSet/net":   {8, 0, 8},
	})
	// The hash upstream computed labels the pods.
	for _, p := range e.pods {
		if h := u.hashes[p.OwnerReferences[0].Name]; p.Labels[labelRevisionHash] != h || h == "" {
			t.Errorf("pod %s: revision %q, upstream %q", p.Name, p.Labels[labelRevisionHash], h)
		}
	}
}

// planned loads an input and plans its expansion, for the controllers'
// state (Expand does not keep it).
func planned(t *testing.T, name string) *expander {
	t.Helper()
	in, err := Load([]string{filepath.Join("testdata", "expand", name+".yaml")}, Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	x := newExpander(in, ExpandOptions{Seed: 1, AdmissionDefaults: true})
	if err := x.prepare(); err != nil {
		t.Fatal(err)
	}
	return x
}

func (x *expander) find(t *testing.T, kind, name string) *ctl {
	t.Helper()
	for _, c := range x.ctls {
		if c.w.Kind == kind && c.w.Name == name {
			return c
		}
	}
	t.Fatalf("no %s %s", kind, name)
	return nil
}

func nodeIndex(in *index.Input, name string) uint32 {
	for i, n := range in.Nodes {
		if n.Name == name {
			return uint32(i)
		}
	}
	return ^uint32(0)
}

// TestExpandStatefulSet: the missing ordinals of [start, start+replicas)
// are created, named <set>-<ordinal>, with the pod-name and pod-index
// labels, hostname, subdomain and the claims of the volumeClaimTemplates
// (whose PersistentVolumeClaims are written too); such pods stay pending
// as unsupported: volumes.
func TestExpandStatefulSet(t *testing.T) {
	e := expandFile(t, "statefulset", 1)
	u := readUpstream(t, "statefulset")
	compareUpstream(t, e, u)
	checkRows(t, e, map[string]rowWant{
		"StatefulSet/db":    {4, 1, 3},
		"StatefulSet/cache": {2, 0, 2},
	})
	var names []string
	for _, p := range e.pods {
		names = append(names, p.Name)
	}
	if want := []string{"db-3", "db-5", "db-6", "cache-0", "cache-1"}; !reflect.DeepEqual(names, want) {
		t.Errorf("created %v, want %v", names, want)
	}
	if len(e.pvcs) != 6 {
		t.Errorf("%d claims, want 6", len(e.pvcs))
	}
	for _, p := range e.in.Pods {
		if p.Owner != nil && p.Owner.Name == "db" && p.NodeName == "" && p.Unsupported != "volumes" {
			t.Errorf("pod %s: unsupported %q, want volumes", p.Name, p.Unsupported)
		}
	}
	if r := rows(e)["StatefulSet/db"]; !strings.Contains(r.Note, "unsupported: volumes") {
		t.Errorf("db's note %q", r.Note)
	}
	// A manifest's revision is the one the controller would name.
	c := &ctl{w: &index.Workload{Name: "cache", CollisionCount: -1}, stored: true,
		tmpl: e.in.Workloads[slices.IndexFunc(e.in.Workloads, func(w index.Workload) bool { return w.Name == "cache" })].Template}
	x := &expander{}
	if err := x.revision(c); err != nil || c.hash != "cache-dcb846dc7" {
		t.Errorf("revision %q (%v), upstream cache-dcb846dc7", c.hash, err)
	}
}

// TestExpandJob: an Indexed Job with indexes 0, 2 and 3 succeeded and 1
// running creates indexes 4 and 5 (parallelism 3); a NonIndexed one with 4
// of 5 completions one pod; one without completions its parallelism; a
// suspended or finished one nothing.
func TestExpandJob(t *testing.T) {
	e := expandFile(t, "job", 1)
	u := readUpstream(t, "job")
	compareUpstream(t, e, u)
	checkRows(t, e, map[string]rowWant{
		"Job/idx":    {3, 1, 2},
		"Job/plain":  {1, 0, 1},
		"Job/queue":  {3, 0, 3},
		"Job/paused": {0, 0, 0},
		"Job/done":   {0, 0, 0},
	})
	var idx []string
	for _, p := range e.pods {
		if ix, ok := p.Annotations[labelCompletionIndex]; ok {
			idx = append(idx, ix)
		}
	}
	if !reflect.DeepEqual(idx, []string{"4", "5"}) {
		t.Errorf("indexes created %v, want [4 5]", idx)
	}
}

// TestExpandDeterministic: the same input and seed give the same objects;
// another seed gives other names.
func TestExpandDeterministic(t *testing.T) {
	names := func(seed uint64) []string {
		var out []string
		for _, f := range []string{"deploy", "daemonset", "statefulset", "job"} {
			e := expandFile(t, f, seed)
			for _, p := range e.in.Pods {
				out = append(out, p.Name)
			}
		}
		return out
	}
	a, b, c := names(7), names(7), names(8)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two expansions with seed 7 differ")
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("seeds 7 and 8 gave the same names")
	}
}

// labelKeysYAML has controllers whose pods' own labels feed their
// pod-relative terms (matchLabelKeys, mismatchLabelKeys): per-pod labels
// there make Expand convert each pod.
const labelKeysYAML = `
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: zk, namespace: ns}
spec:
  replicas: 3
  selector: {matchLabels: {app: zk}}
  template:
    metadata: {labels: {app: zk}}
    spec:
      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway,
        labelSelector: {matchLabels: {app: zk}}, matchLabelKeys: [apps.kubernetes.io/pod-index]}]
      containers: [{name: zk, image: zk, resources: {requests: {cpu: 100m}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      priorityClassName: missing-class
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 10
            podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [pod-template-hash]}
      containers: [{name: web, image: web, resources: {requests: {cpu: 100m}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: shard, namespace: ns}
spec:
  completions: 4
  parallelism: 4
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {job-name: shard}}, mismatchLabelKeys: [batch.kubernetes.io/job-completion-index]}
      containers: [{name: s, image: s, resources: {requests: {cpu: 100m}}}]
`

// TestExpandClonesConvert: every created pod equals the conversion (and
// admission) of its own JSON, whichever way Expand made it: a copy of its
// workload's first pod with its own name, uid, labels and node, or (per-pod
// labels under matchLabelKeys, a pod admission rejects) its own conversion.
func TestExpandClonesConvert(t *testing.T) {
	dir := t.TempDir()
	extra := filepath.Join(dir, "labelkeys.yaml")
	if err := os.WriteFile(extra, []byte(labelKeysYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := [][]string{{extra}}
	for _, f := range []string{"deploy", "daemonset", "statefulset", "job"} {
		inputs = append(inputs, []string{filepath.Join("testdata", "expand", f+".yaml")})
	}
	for _, paths := range inputs {
		in, err := Load(paths, Options{AdmissionDefaults: true})
		if err != nil {
			t.Fatal(err)
		}
		x := newExpander(in, ExpandOptions{Seed: 3, AdmissionDefaults: true})
		exp, err := Expand(in, x.opts)
		if err != nil {
			t.Fatal(err)
		}
		cv := &converter{intern: newInterner()}
		adm := newAdmitter(in.PriorityClasses, true)
		checked := 0
		for _, g := range exp.gens {
			for k := range g.c.slots {
				v := g.values(k)
				raw := g.pod.fill(nil, &v)
				want, hasPrio, err := x.convertPod(g.c, cv, raw)
				if err != nil {
					t.Fatalf("%s: %v", raw, err)
				}
				adm.admit(&want, hasPrio)
				got := in.Pods[g.first+k]
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s pod %d (%s): made\n%+v\nits JSON converts to\n%+v", g.c.w.Name, k, want.Name, got, want)
				}
				checked++
			}
		}
		if checked == 0 {
			t.Fatalf("%v: nothing created", paths)
		}
	}
}

// TestExpandErrors: a template its pods cannot be made from, or a count
// API validation rejects, is an error naming the file, line, controller
// and field; a controller that cannot create pods (no template, no
// selector) and CronJobs are warnings.
func TestExpandErrors(t *testing.T) {
	errs := []struct{ name, yaml, want string }{
		{"bad quantity in a manifest's template", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: x, resources: {requests: {cpu: abc}}}]}
`, `in.yaml:2: Deployment shop/web: spec.template.spec.containers[0].resources.requests.cpu: invalid quantity "abc"`},
		{"bad toleration in a DaemonSet's template", `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system, uid: u1}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {tolerations: [{key: k, operator: Sometimes}], containers: [{name: a, image: a}]}
`, `in.yaml:2: DaemonSet kube-system/agent: spec.template.spec.tolerations[0].operator: unknown toleration operator "Sometimes"`},
		{"negative replicas", `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {replicas: -2, selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: c}]}}}
`, `in.yaml:2: StatefulSet default/db: spec.replicas: must be greater than or equal to 0, not -2`},
		{"more pods than kplace holds", `
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: big, namespace: x}
spec: {replicas: 2000000000, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: c}]}}}
`, `in.yaml:2: ReplicaSet x/big: it would create 2000000000 pods, more than the 5000000 kplace holds (with the other controllers' 0)`},
		{"indexed Job without completions", `
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec: {parallelism: 2, completionMode: Indexed, template: {spec: {containers: [{name: c, image: c}]}}}
`, `in.yaml:2: Job default/j: spec.completions: required when completionMode is Indexed`},
		{"negative completions", `
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec: {completions: -5, template: {spec: {containers: [{name: c, image: c}]}}}
`, `in.yaml:2: Job default/j: spec.completions: must be greater than or equal to 0, not -5`},
		{"ordinals past 2^31-1", `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {replicas: 10, ordinals: {start: 2147483643}, selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: c}]}}}
`, `in.yaml:2: StatefulSet default/db: spec.ordinals.start: 2147483643 plus 10 replicas: ordinals past 2147483647, more than kplace numbers`},
		{"claim template without a name", `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {replicas: 1, volumeClaimTemplates: [{metadata: {name: data}}, null], selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: c}]}}}
`, `in.yaml:2: StatefulSet default/db: spec.volumeClaimTemplates[1].metadata.name: required`},
		{"claim templates of one name", `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {replicas: 1, volumeClaimTemplates: [{metadata: {name: data}}, {metadata: {name: data}}], selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: c}]}}}
`, `in.yaml:2: StatefulSet default/db: spec.volumeClaimTemplates[1].metadata.name: duplicate name "data"`},
		{"completions -1 (not unset)", `
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec: {completions: -1, template: {spec: {containers: [{name: c, image: c}]}}}
`, `in.yaml:2: Job default/j: spec.completions: must be greater than or equal to 0, not -1`},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			in, err := loadYAML(t, tc.yaml, Options{})
			if err == nil {
				_, err = Expand(in, ExpandOptions{Seed: 1})
			}
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
				t.Fatalf("error %v, want one ending %q", err, tc.want)
			}
		})
	}
	in, err := loadYAML(t, `
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec: {schedule: "0 0 * * *", jobTemplate: {spec: {template: {spec: {containers: [{name: c, image: c}]}}}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: bare}
spec: {replicas: 2, selector: {matchLabels: {a: b}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: nosel}
spec: {replicas: 2, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: c}]}}}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := Expand(in, ExpandOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1 CronJob(s) skipped: a CronJob has nothing to place until it fires (the Jobs it made are expanded)",
		"ReplicaSet default/bare: no spec.template: creates no pods",
		"ReplicaSet default/nosel: no spec.selector (or an empty one): creates no pods",
	}
	if !reflect.DeepEqual(exp.Warnings, want) || exp.Pods != 0 {
		t.Errorf("warnings %q, %d pods; want %q and none", exp.Warnings, exp.Pods, want)
	}
}

// TestExpandAllocsPerPod: making a controller's pods allocates per
// controller, not per pod (names and uids share an arena, a DaemonSet's
// node terms a slab): a Deployment and a Job of 2,000 pods allocate about
// what they allocate with 20.
func TestExpandAllocsPerPod(t *testing.T) {
	allocs := func(replicas int) float64 {
		in, err := loadYAML(t, fmt.Sprintf(`
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: %[1]d
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: web, resources: {requests: {cpu: 10m}}}]}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: work, namespace: shop}
spec: {parallelism: %[1]d, completions: %[1]d, template: {spec: {restartPolicy: Never, containers: [{name: c, image: w}]}}}
`, replicas), Options{AdmissionDefaults: true})
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(5, func() {
			run := *in
			run.Pods, run.Workloads, run.Namespaces = slices.Clip(in.Pods), slices.Clip(in.Workloads), slices.Clip(in.Namespaces)
			if exp, err := Expand(&run, ExpandOptions{Seed: 1, AdmissionDefaults: true}); err != nil || exp.Pods != 2*replicas {
				t.Fatalf("%v, %d pods", err, exp.Pods)
			}
		})
	}
	few, many := allocs(20), allocs(2000)
	if many > few+30 {
		t.Errorf("2 × 2,000 pods take %.0f allocations, 2 × 20 take %.0f: per-pod allocations", many, few)
	}
}

// FuzzExpand expands whatever loads: no panic, an error is an *Error
// naming a controller, and what is created is well formed (named, owned,
// in the input's order after its pods).
func FuzzExpand(f *testing.F) {
	for _, name := range []string{"deploy", "daemonset", "statefulset", "job"} {
		b, err := os.ReadFile(filepath.Join("testdata", "expand", name+".yaml"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(labelKeysYAML))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		var in *index.Input
		var err error
		loaded := make(chan struct{})
		go func() {
			defer close(loaded)
			in, err = loadBytes(data, Options{AdmissionDefaults: true, Parallelism: 1})
		}()
		select {
		case <-loaded:
		case <-time.After(5 * time.Second):
			t.Fatalf("no load after 5s of %q", data)
		}
		if err != nil {
			return
		}
		// Bound the work: fuzzed counts can ask for billions of pods.
		for _, w := range in.Workloads {
			if w.Replicas > 1000 || w.Parallelism > 1000 || w.OrdinalsStart > 1000 {
				return
			}
		}
		n := len(in.Pods)
		var exp *Expansion
		done := make(chan struct{})
		go func() {
			defer close(done)
			exp, err = Expand(in, ExpandOptions{Seed: 1, AdmissionDefaults: true})
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("no expansion after 5s of %q", data)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind == "" {
				t.Fatalf("error %v (%T) does not name a controller", err, err)
			}
			return
		}
		if len(in.Pods)-n+in.OtherScheduler < exp.Pods-countOther(exp) {
			t.Fatalf("%d pods created, Input.Pods grew by %d", exp.Pods, len(in.Pods)-n)
		}
		for _, p := range in.Pods[n:] {
			if p.Name == "" || p.UID != "" || p.Owner == nil {
				t.Fatalf("created pod %+v", p)
			}
		}
		if err := exp.EachObject(func(obj []byte) error {
			if !json.Valid(obj) {
				return fmt.Errorf("invalid JSON %s", obj)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
}

// countOther counts the pods created for another scheduler (not in the
// batch).
func countOther(e *Expansion) int {
	n := 0
	for _, g := range e.gens {
		if g.first < 0 {
			n += len(g.c.slots)
		}
	}
	return n
}
