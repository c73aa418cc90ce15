package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kplace/kplace/live/livetest"
)

// snapshotKinds is what kplace snapshot reads, as kubectl names them.
const snapshotKinds = "namespaces,priorityclasses,nodes,poddisruptionbudgets,services,deployments,replicasets,statefulsets,daemonsets,jobs,replicationcontrollers,pods"

// TestLiveSnapshotPlaceBind: a cluster made through the API with every
// kind kplace reads; kplace snapshot writes what kubectl get -o json
// prints (item by item) and a snapshot place reads the same way; place
// --kubeconfig places the live cluster as place -f does its snapshot; a
// server-side dry run changes nothing; kplace bind applies the result
// (two preemptions: Evictions, then the Bindings that need them), after
// which kubectl get pods -o wide agrees with the result file; a second
// run refuses the existing journal and, with --resume, applies nothing
// again.
func TestLiveSnapshotPlaceBind(t *testing.T) {
	s := livetest.Shared(t)
	k := s.Client(t)
	dir := t.TempDir()
	ns := "e2e"
	makeE2ECluster(t, k, ns)
	kc := "--kubeconfig=" + s.Kubeconfig

	snapJSON, snapZst, snapArrow := filepath.Join(dir, "c.json"), filepath.Join(dir, "c.json.zst"), filepath.Join(dir, "c.arrow")
	for _, out := range []string{snapJSON, snapZst, snapArrow} {
		if code, errs := runCapture(t, "snapshot", kc, "--page-size=3", "-o", out); code != 0 {
			t.Fatalf("snapshot -o %s: exit %d: %s", out, code, errs)
		} else if !strings.Contains(errs, "LIST pages") {
			t.Errorf("snapshot summary: %s", errs)
		}
	}
	compareWithKubectl(t, s, snapJSON)

	results := map[string]string{}
	for name, in := range map[string][]string{"json": {"-f", snapJSON}, "zst": {"-f", snapZst}, "arrow": {"-f", snapArrow}, "live": {kc}} {
		out := filepath.Join(dir, name+".result.json")
		if code, errs := runCapture(t, append([]string{"place", "-q", "-o", out}, in...)...); code != 0 {
			t.Fatalf("place %v: exit %d: %s", in, code, errs)
		}
		b, _ := os.ReadFile(out)
		results[name] = string(b)
	}
	for name, r := range results {
		if r != results["json"] {
			t.Errorf("place from %s differs from place from the .json snapshot:\n%s\n%s", name, r, results["json"])
		}
	}
	result := filepath.Join(dir, "json.result.json")
	want := resultBindings(t, result)
	if n := strings.Count(results["json"], `"kind":"Eviction"`); n != 2 || len(want) != 8 {
		t.Fatalf("want 2 Evictions and 8 Bindings, got:\n%s", results["json"])
	}

	before := podNodes(t, k, ns)
	if code, errs := runCapture(t, "bind", "-f", result, kc, "--dry-run=server", "-q"); code != 0 {
		t.Fatalf("bind --dry-run=server: exit %d: %s", code, errs)
	}
	if after := podNodes(t, k, ns); !reflect.DeepEqual(after, before) {
		t.Fatalf("a dry run changed the pods: %v -> %v", before, after)
	}
	report := filepath.Join(dir, "bind.report.json")
	code, errs := runCapture(t, "bind", "-f", result, kc, "--report", report)
	if code != 0 {
		t.Fatalf("bind: exit %d: %s", code, errs)
	}
	var rep struct {
		Counts   map[string]int
		Failures []any
		Requests int
	}
	if b, err := os.ReadFile(report); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("report: %v", err)
	}
	if rep.Counts["bound"] != 8 || rep.Counts["evicted"] != 2 || len(rep.Failures) != 0 || rep.Requests == 0 {
		t.Errorf("report %+v", rep)
	}
	checkPodsWide(t, s, k, ns, want, before)

	if code, errs := runCapture(t, "bind", "-q", "-f", result, kc); code != 1 || !strings.Contains(errs, "--resume") {
		t.Errorf("bind again without --resume: exit %d: %s", code, errs)
	}
	code, errs = runCapture(t, "bind", "-f", result, kc, "--resume")
	if code != 0 || !strings.Contains(errs, "from journal         10") {
		t.Errorf("bind --resume after a complete run: exit %d: %s", code, errs)
	}
}

// TestLiveBindFailureExit: a Binding that cannot be applied makes kplace
// bind exit 1 and names the pod and the reason in the summary and the
// report.
func TestLiveBindFailureExit(t *testing.T) {
	s := livetest.Shared(t)
	k := s.Client(t)
	ns := "e2e-fail"
	pods := livetest.Create(t, k, livetest.Namespace(ns), livetest.Node("e2e-fail-n", 1000, "1Gi", nil),
		livetest.Pod(ns, "ok", 100, "", 0, nil))
	dir := t.TempDir()
	result := filepath.Join(dir, "r.jsonl")
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"ok","namespace":%q,"uid":%q},"target":{"kind":"Node","name":"e2e-fail-n"}}
{"apiVersion":"v1","kind":"Binding","metadata":{"name":"missing","namespace":%q},"target":{"kind":"Node","name":"e2e-fail-n"}}
`, ns, pods["ok"].UID, ns)
	if err := os.WriteFile(result, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.json")
	code, errs := runCapture(t, "bind", "-f", result, "--kubeconfig", s.Kubeconfig, "--report", report)
	if code != 1 || !strings.Contains(errs, "Binding "+ns+"/missing: pod gone") || !strings.Contains(errs, "not applied           1") {
		t.Errorf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(report)
	if !strings.Contains(string(b), `"reason": "pod gone"`) || !strings.Contains(string(b), `"bound": 1`) {
		t.Errorf("report:\n%s", b)
	}
	if n, err := livetest.NodeOf(k, ns, "ok"); err != nil || n != "e2e-fail-n" {
		t.Errorf("ok on %q (%v)", n, err)
	}
}

// TestLiveBindInterrupt: SIGINT stops kplace bind, which still writes its
// report (every item not applied named: not attempted, or interrupted
// during its request) and its summary, then exits 130; the journal holds
// what was applied, and --resume applies the rest (finding bound the
// interrupted Bindings the server took).
func TestLiveBindInterrupt(t *testing.T) {
	s := livetest.Shared(t)
	k := s.Client(t)
	ns := "e2e-sigint"
	objs := []any{livetest.Namespace(ns), livetest.Node("e2e-sigint-n", 64000, "64Gi", nil)}
	for i := range 40 {
		objs = append(objs, livetest.Pod(ns, fmt.Sprintf("p%d", i), 10, "", 0, nil))
	}
	pods := livetest.Create(t, k, objs...)
	dir := t.TempDir()
	result := filepath.Join(dir, "r.jsonl")
	var body strings.Builder
	for i := range 40 {
		name := fmt.Sprintf("p%d", i)
		fmt.Fprintf(&body, `{"apiVersion":"v1","kind":"Binding","metadata":{"name":%q,"namespace":%q,"uid":%q},"target":{"kind":"Node","name":"e2e-sigint-n"}}`+"\n", name, ns, pods[name].UID)
	}
	if err := os.WriteFile(result, []byte(body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.json")
	cmd := kplaceCmd("bind", "-f", result, "--kubeconfig", s.Kubeconfig, "--qps", "10", "--burst", "1", "--report", report)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The journal exists once the run has begun (its signals are its own
	// by then): a second later, some Bindings are sent and most are not.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(result + ".journal"); err == nil {
			break
		} else if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no journal after 30 s: %s", stderr.String())
		}
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d (%v), want 130: %s", code, err, stderr.String())
	}
	var rep struct {
		Counts   map[string]int
		Failures []struct{ Name, Reason string }
	}
	if b, err := os.ReadFile(report); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("no report after SIGINT (%v): %s", err, stderr.String())
	}
	bound, interrupted, notAttempted := 0, 0, 0
	for i := range 40 {
		if n, err := livetest.NodeOf(k, ns, fmt.Sprintf("p%d", i)); err == nil && n != "" {
			bound++
		}
	}
	for _, f := range rep.Failures {
		switch f.Reason {
		case "interrupted":
			interrupted++
		case "not attempted":
			notAttempted++
		}
	}
	reported := rep.Counts["bound"]
	if reported == 0 || notAttempted == 0 || reported+interrupted+notAttempted != 40 || bound < reported || bound > reported+interrupted {
		t.Errorf("%d pods bound; report: bound %d, interrupted %d, not attempted %d, %d failures", bound, reported, interrupted, notAttempted, len(rep.Failures))
	}
	if !strings.Contains(stderr.String(), "interrupt: stopping, then reporting") || !strings.Contains(stderr.String(), "not attempted") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	code, errs := runCapture(t, "bind", "-f", result, "--kubeconfig", s.Kubeconfig, "--resume")
	if code != 0 || !strings.Contains(errs, fmt.Sprintf("%-14s %8d", "from journal", reported)) {
		t.Errorf("bind --resume: exit %d: %s", code, errs)
	}
	for i := range 40 {
		if n, err := livetest.NodeOf(k, ns, fmt.Sprintf("p%d", i)); err != nil || n != "e2e-sigint-n" {
			t.Errorf("after --resume: p%d on %q (%v)", i, n, err)
		}
	}
}

// makeE2ECluster makes six nodes in two zones, each half full of a
// low-priority pod (grace 0, under a budget that allows their eviction),
// a Service over the web pods, every workload kind (wanting no pods, so
// that expansion adds none), and pending pods: six small web pods and two
// large high-priority ones that must preempt.
func makeE2ECluster(t *testing.T, k kubernetes.Interface, ns string) {
	ctx := context.Background()
	objs := []any{livetest.Namespace(ns)}
	for i := range 6 {
		objs = append(objs, livetest.Node(fmt.Sprintf("e2e-n%d", i), 4000, "8Gi", map[string]string{"topology.kubernetes.io/zone": fmt.Sprintf("z%d", i%2)}))
	}
	for i := range 6 {
		objs = append(objs, livetest.Pod(ns, fmt.Sprintf("filler-%d", i), 3000, fmt.Sprintf("e2e-n%d", i), 0, map[string]string{"app": "filler"}))
	}
	objs = append(objs, livetest.PDB(ns, "filler", "filler", 1))
	for i := range 6 {
		objs = append(objs, livetest.Pod(ns, fmt.Sprintf("web-%d", i), 500, "", 0, map[string]string{"app": "web"}))
	}
	for _, pc := range []*schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "e2e-high"}, Value: 1000}} {
		if _, err := k.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		p := livetest.Pod(ns, fmt.Sprintf("big-%d", i), 3500, "", 0, map[string]string{"app": "big"})
		p.Spec.PriorityClassName = "e2e-high"
		objs = append(objs, p)
	}
	livetest.Create(t, k, objs...)
	livetest.SetBudget(t, k, ns, "filler", 6)
	zero, one := int32(0), int32(1)
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "idle"}}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "idle"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
	dsTmpl := *tmpl.DeepCopy()
	dsTmpl.Spec.NodeSelector = map[string]string{"no-such-label": "x"}
	suspend := true
	for _, create := range []func() error{
		func() error {
			_, err := k.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
				Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := k.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "idle"},
				Spec: appsv1.DeploymentSpec{Replicas: &zero, Selector: sel, Template: tmpl}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := k.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "idle-rs"},
				Spec: appsv1.ReplicaSetSpec{Replicas: &zero, Selector: sel, Template: tmpl}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := k.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "idle-sts"},
				Spec: appsv1.StatefulSetSpec{Replicas: &zero, Selector: sel, Template: tmpl, ServiceName: "web"}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := k.AppsV1().DaemonSets(ns).Create(ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "idle-ds"},
				Spec: appsv1.DaemonSetSpec{Selector: sel, Template: dsTmpl}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			jt := *tmpl.DeepCopy()
			jt.Spec.RestartPolicy = corev1.RestartPolicyNever
			jt.Labels = nil
			_, err := k.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "idle-job"},
				Spec: batchv1.JobSpec{Suspend: &suspend, Parallelism: &one, Template: jt}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := k.CoreV1().ReplicationControllers(ns).Create(ctx, &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "idle-rc"},
				Spec: corev1.ReplicationControllerSpec{Replicas: &zero, Selector: map[string]string{"app": "idle"}, Template: &tmpl}}, metav1.CreateOptions{})
			return err
		},
	} {
		if err := create(); err != nil {
			t.Fatal(err)
		}
	}
}

// kubectl is the kubectl the tests compare with, "" when none.
func kubectl() string { return livetest.Kubectl() }

// runKubectl runs kubectl on the server and returns its stdout.
func runKubectl(t *testing.T, s *livetest.Server, args ...string) []byte {
	cmd := exec.Command(kubectl(), append([]string{"--kubeconfig", s.Kubeconfig}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl %v: %v: %s", args, err, stderr.Bytes())
	}
	return out
}

// compareWithKubectl checks that the snapshot holds, object for object,
// what kubectl get -o json prints for the same kinds.
func compareWithKubectl(t *testing.T, s *livetest.Server, snapshot string) {
	if kubectl() == "" {
		fmt.Fprintln(os.Stderr, "\n*** kubectl not found (PATH, $KPLACE_KUBECTL, shared/apiserver/bin): the snapshot is not compared with kubectl get -o json ***")
		t.Log("kubectl not found: snapshot not compared with kubectl get -o json")
		return
	}
	type obj = map[string]any
	index := func(b []byte) map[string]obj {
		var list struct{ Items []obj }
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatal(err)
		}
		out := map[string]obj{}
		for _, it := range list.Items {
			m := it["metadata"].(obj)
			out[fmt.Sprint(it["apiVersion"], " ", it["kind"], " ", m["namespace"], "/", m["name"])] = it
		}
		return out
	}
	ours, _ := os.ReadFile(snapshot)
	mine, theirs := index(ours), index(runKubectl(t, s, "get", snapshotKinds, "-A", "-o", "json"))
	if len(mine) != len(theirs) {
		t.Errorf("snapshot has %d objects, kubectl %d", len(mine), len(theirs))
	}
	for key, want := range theirs {
		if got, ok := mine[key]; !ok {
			t.Errorf("kubectl shows %s, the snapshot does not", key)
		} else if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("%s differs:\nsnapshot %s\nkubectl  %s", key, g, w)
		}
	}
}

// resultBindings reads a result's Bindings: pod "namespace/name" -> node.
func resultBindings(t *testing.T, path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []struct {
			Kind     string
			Metadata struct{ Name, Namespace string }
			Target   struct{ Name string }
		}
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, it := range list.Items {
		if it.Kind == "Binding" {
			out[it.Metadata.Namespace+"/"+it.Metadata.Name] = it.Target.Name
		}
	}
	return out
}

// podNodes is every pod of ns: "namespace/name" -> spec.nodeName.
func podNodes(t *testing.T, k kubernetes.Interface, ns string) map[string]string {
	l, err := k.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range l.Items {
		out[p.Namespace+"/"+p.Name] = p.Spec.NodeName
	}
	return out
}

// checkPodsWide: after a bind, kubectl get pods -o wide (and client-go)
// show every bound pod on its planned node, the other pods where they
// were, and the evicted ones gone.
func checkPodsWide(t *testing.T, s *livetest.Server, k kubernetes.Interface, ns string, bound, before map[string]string) {
	want := map[string]string{}
	for pod, node := range before {
		want[pod] = node
	}
	for pod, node := range bound {
		want[pod] = node
	}
	for pod, node := range before {
		if node != "" && strings.HasPrefix(pod, ns+"/filler-") {
			delete(want, pod) // candidates for eviction: checked below
		}
	}
	got := podNodes(t, k, ns)
	evicted := 0
	for pod := range before {
		if _, ok := got[pod]; !ok {
			evicted++
		}
	}
	for pod, node := range got {
		if strings.HasPrefix(pod, ns+"/filler-") {
			continue
		}
		if want[pod] != node {
			t.Errorf("client-go: %s on %q, want %q", pod, node, want[pod])
		}
	}
	if evicted != 2 {
		t.Errorf("%d pods evicted, want 2", evicted)
	}
	if kubectl() == "" {
		fmt.Fprintln(os.Stderr, "\n*** kubectl not found: pods compared through client-go only ***")
		return
	}
	out := runKubectl(t, s, "get", "pods", "-n", ns, "-o", "wide", "--no-headers")
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line) // NAME READY STATUS RESTARTS AGE IP NODE NOMINATED-NODE READINESS-GATES
		if len(f) < 7 {
			t.Fatalf("kubectl get pods -o wide: %q", line)
		}
		pod, node := ns+"/"+f[0], f[6]
		if node == "<none>" {
			node = ""
		}
		if got[pod] != node {
			t.Errorf("kubectl: %s on %q, client-go says %q", pod, node, got[pod])
		}
		if w, ok := bound[pod]; ok {
			seen++
			if node != w {
				t.Errorf("kubectl: %s on %q, the result binds it to %q", pod, node, w)
			}
		}
	}
	if seen != len(bound) {
		t.Errorf("kubectl shows %d of the result's %d bound pods", seen, len(bound))
	}
}
