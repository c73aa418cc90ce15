package live

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kplace/kplace/live/livetest"
)

// uid is a created pod's uid.
func uid(p *corev1.Pod) string { return string(p.UID) }

// TestBindOrder applies preemptions in order against a real API server:
// a Binding after Evictions on its node waits until the victims are gone
// (not merely accepted), also when it is another pod's than the
// preemptor's (reclaim) or the preemptor is bound elsewhere; a Binding on
// another node does not wait; an Eviction a PodDisruptionBudget refuses
// (429) is retried with backoff until the budget allows it.
func TestBindOrder(t *testing.T) {
	e := newEnv(t)
	k := e.s.Client(t)
	ns, A, B, C := e.ns, e.node("a"), e.node("b"), e.node("c")
	db := map[string]string{"app": "db"}
	pods := livetest.Create(t, k, livetest.Namespace(ns),
		livetest.Node(A, 2000, "4Gi", nil), livetest.Node(B, 2000, "4Gi", nil), livetest.Node(C, 2000, "4Gi", nil),
		livetest.Pod(ns, "v1", 1500, A, 30, db), // terminates for the Kubelet's delay
		livetest.Pod(ns, "v2", 1500, B, 0, db),
		livetest.Pod(ns, "x", 1000, "", 0, nil), livetest.Pod(ns, "p1", 1000, "", 0, nil),
		livetest.Pod(ns, "free1", 100, "", 0, nil), livetest.Pod(ns, "p2", 1000, "", 0, nil),
		livetest.PDB(ns, "db", "db", 0))
	livetest.SetBudget(t, k, ns, "db", 0) // refuses until the test lets it
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kubelet := livetest.RunKubelet(ctx, t, k, ns, time.Second)
	_, plan := e.writeResult(t, "result.json",
		eviction(ns, "v1", uid(pods["v1"]), A, "p1"),
		binding(ns, "x", uid(pods["x"]), A), // reclaim: a higher-priority pod takes the room p1 freed
		binding(ns, "p1", uid(pods["p1"]), C),
		binding(ns, "free1", uid(pods["free1"]), B),
		eviction(ns, "v2", uid(pods["v2"]), B, "p2"),
		binding(ns, "p2", uid(pods["p2"]), B),
	)
	// The budget allows the evictions once the first one was refused.
	go func() {
		for ctx.Err() == nil {
			if len(requests(e.audit(t), "eviction", "v1", 429)) > 0 {
				livetest.SetBudget(t, k, ns, "db", 2)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	rep, err := Bind(ctx, e.client(t, 100), plan, BindOptions{Concurrency: 4, Backoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Counts; !rep.Applied() || c.Bound != 4 || c.Evicted != 2 || c.Retried < 1 {
		t.Fatalf("counts %+v, failures %+v", c, rep.Failures)
	}
	for pod, want := range map[string]string{"x": A, "p1": C, "free1": B, "p2": B} {
		if got, err := livetest.NodeOf(k, ns, pod); err != nil || got != want {
			t.Errorf("%s on %q (%v), want %s", pod, got, err, want)
		}
	}
	for _, v := range []string{"v1", "v2"} {
		if _, err := livetest.NodeOf(k, ns, v); !apierrors.IsNotFound(err) {
			t.Errorf("victim %s still there (%v)", v, err)
		}
	}
	evs := e.audit(t)
	ev1 := requests(evs, "eviction", "v1", 0)
	if len(ev1) < 2 || ev1[0].ResponseStatus.Code != 429 || ev1[len(ev1)-1].ResponseStatus.Code != 201 {
		t.Fatalf("v1's evictions: want 429 then 201, got %+v", ev1)
	}
	evicted := ev1[len(ev1)-1].StageTimestamp
	gone := kubelet.DeletedAt("v1")
	if gone.IsZero() || gone.Sub(evicted) < 900*time.Millisecond {
		t.Fatalf("v1 evicted at %v, deleted at %v: the kubelet should hold it a second", evicted, gone)
	}
	one := func(pod string) livetest.AuditEvent {
		bs := requests(evs, "binding", pod, 0)
		if len(bs) != 1 || bs[0].ResponseStatus.Code != 201 {
			t.Fatalf("%s: want one accepted binding request, got %+v", pod, bs)
		}
		return bs[0]
	}
	for _, pod := range []string{"x", "p1"} {
		if got := one(pod).RequestReceived; got.Before(gone) {
			t.Errorf("%s was bound at %v, before v1 was gone (%v)", pod, got, gone)
		}
	}
	if got := one("free1").RequestReceived; !got.Before(evicted) {
		t.Errorf("free1 (another node) was bound at %v, not before v1's eviction was accepted (%v)", got, evicted)
	}
	ev2 := requests(evs, "eviction", "v2", 201)
	if len(ev2) != 1 || one("p2").RequestReceived.Before(ev2[0].StageTimestamp) {
		t.Errorf("p2 bound before v2's eviction (%+v)", ev2)
	}
}

// TestBindBudgetRefuses: an Eviction a budget keeps refusing fails after
// the retries; what needed it is not applied (the Bindings on its node,
// its preemptor's Binding, the preemptor's other Evictions and what waits
// on those), while an unrelated Binding is.
func TestBindBudgetRefuses(t *testing.T) {
	e := newEnv(t)
	k := e.s.Client(t)
	ns, A, B, C := e.ns, e.node("a"), e.node("b"), e.node("c")
	pods := livetest.Create(t, k, livetest.Namespace(ns),
		livetest.Node(A, 2000, "4Gi", nil), livetest.Node(B, 2000, "4Gi", nil), livetest.Node(C, 2000, "4Gi", nil),
		livetest.Pod(ns, "v1", 1500, A, 0, map[string]string{"app": "db"}),
		livetest.Pod(ns, "v3", 1500, B, 0, nil),
		livetest.Pod(ns, "x", 1000, "", 0, nil), livetest.Pod(ns, "p1", 1000, "", 0, nil),
		livetest.Pod(ns, "y", 1000, "", 0, nil), livetest.Pod(ns, "w", 1000, "", 0, nil),
		livetest.PDB(ns, "db", "db", 1))
	livetest.SetBudget(t, k, ns, "db", 0)
	_, plan := e.writeResult(t, "result.json",
		eviction(ns, "v1", uid(pods["v1"]), A, "p1"),
		binding(ns, "x", uid(pods["x"]), A),
		eviction(ns, "v3", uid(pods["v3"]), B, "p1"), // the same preemptor, another node (cross-node)
		binding(ns, "p1", uid(pods["p1"]), A),
		binding(ns, "y", uid(pods["y"]), B),
		binding(ns, "w", uid(pods["w"]), C),
	)
	rep, err := Bind(context.Background(), e.client(t, 100), plan, BindOptions{Retries: 2, Backoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Failures {
		got[f.Name] = f.Reason
	}
	want := map[string]string{"v1": ReasonBudget, "x": ReasonBlocked, "v3": ReasonBlocked, "p1": ReasonBlocked, "y": ReasonBlocked}
	if len(got) != len(want) || rep.Applied() || rep.Counts.Bound != 1 {
		t.Fatalf("failures %v, want %v (counts %+v)", got, want, rep.Counts)
	}
	for pod, reason := range want {
		if got[pod] != reason {
			t.Errorf("%s: %q, want %q", pod, got[pod], reason)
		}
	}
	if n, err := livetest.NodeOf(k, ns, "w"); err != nil || n != C {
		t.Errorf("w on %q (%v), want %s", n, err, C)
	}
	evs := e.audit(t)
	if v1 := requests(evs, "eviction", "v1", 429); len(v1) != 3 || len(requests(evs, "eviction", "v1", 0)) != 3 {
		t.Errorf("v1: %d refused eviction requests of %d, want 3 of 3 (1 + 2 retries)", len(v1), len(requests(evs, "eviction", "v1", 0)))
	}
	for _, pod := range []string{"v3"} {
		if len(requests(evs, "eviction", pod, 0)) != 0 {
			t.Errorf("%s was evicted for a preemptor that cannot be bound", pod)
		}
	}
	for _, pod := range []string{"x", "p1", "y"} {
		if len(requests(evs, "binding", pod, 0)) != 0 {
			t.Errorf("%s: a binding was sent though it needed a refused eviction", pod)
		}
	}
	if p, err := k.CoreV1().Pods(ns).Get(context.Background(), "v3", metav1.GetOptions{}); err != nil || p.DeletionTimestamp != nil {
		t.Errorf("v3 should run untouched: %v", err)
	}
}

// dying is a pending pod that a finalizer keeps once deleted.
func dying(ns string) *corev1.Pod {
	p := livetest.Pod(ns, "dying", 100, "", 0, nil)
	p.Finalizers = []string{"kplace.io/test"}
	return p
}

// TestBindWaitTimeout: a victim still there when WaitTimeout has passed
// after its accepted Eviction (it terminates, and no kubelet ends it) is
// reported "victim not gone"; the Binding that needed its room is not
// sent ("blocked"), while one on another node is.
func TestBindWaitTimeout(t *testing.T) {
	e := newEnv(t)
	k := e.s.Client(t)
	ns, A, B := e.ns, e.node("a"), e.node("b")
	pods := livetest.Create(t, k, livetest.Namespace(ns), livetest.Node(A, 2000, "4Gi", nil), livetest.Node(B, 2000, "4Gi", nil),
		livetest.Pod(ns, "v", 1500, A, 600, nil), // terminating for ten minutes
		livetest.Pod(ns, "p", 1000, "", 0, nil), livetest.Pod(ns, "q", 1000, "", 0, nil))
	_, plan := e.writeResult(t, "result.json",
		eviction(ns, "v", uid(pods["v"]), A, "p"),
		binding(ns, "p", uid(pods["p"]), A),
		binding(ns, "q", uid(pods["q"]), B),
	)
	t0 := time.Now()
	rep, err := Bind(context.Background(), e.client(t, 100), plan, BindOptions{WaitTimeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	got := map[string]string{}
	for _, f := range rep.Failures {
		got[f.Name] = f.Reason
	}
	if len(got) != 2 || got["v"] != ReasonVictimStays || got["p"] != ReasonBlocked || rep.Counts.Bound != 1 || rep.Applied() {
		t.Fatalf("failures %v, want v %q and p %q; counts %+v", got, ReasonVictimStays, ReasonBlocked, rep.Counts)
	}
	if took < 1500*time.Millisecond || took > 10*time.Second {
		t.Errorf("the run took %v: want the wait timeout (1.5s) and a last look at most 5s later", took)
	}
	evs := e.audit(t)
	if len(requests(evs, "eviction", "v", 201)) != 1 || len(requests(evs, "binding", "p", 0)) != 0 {
		t.Errorf("want v's eviction accepted and no binding sent for p: %+v", evs)
	}
	for pod, node := range map[string]string{"p": "", "q": B} {
		if n, err := livetest.NodeOf(k, ns, pod); err != nil || n != node {
			t.Errorf("%s on %q (%v), want %q", pod, n, err, node)
		}
	}
	if v, err := k.CoreV1().Pods(ns).Get(context.Background(), "v", metav1.GetOptions{}); err != nil || v.DeletionTimestamp == nil {
		t.Errorf("v should be terminating: %v", err)
	}
}

// TestBindPerPodFailures: each per-pod failure is reported with its
// reason and stops nothing else: a pod deleted between plan and bind, a
// pod replaced by another of the same name (uid mismatch: the new one is
// not bound), a pod bound elsewhere, a node that is gone, a pod being
// deleted (a finalizer holds it), a victim replaced (its Eviction's uid precondition fails, and the Binding that
// needed it is not applied); a pod already bound where the result wants
// it counts as applied.
func TestBindPerPodFailures(t *testing.T) {
	e := newEnv(t)
	k := e.s.Client(t)
	ctx := context.Background()
	ns, A, B := e.ns, e.node("a"), e.node("b")
	pods := livetest.Create(t, k, livetest.Namespace(ns), livetest.Node(A, 4000, "4Gi", nil), livetest.Node(B, 4000, "4Gi", nil),
		livetest.Pod(ns, "gone", 100, "", 0, nil), livetest.Pod(ns, "swapped", 100, "", 0, nil),
		livetest.Pod(ns, "elsewhere", 100, "", 0, nil), livetest.Pod(ns, "here", 100, "", 0, nil),
		livetest.Pod(ns, "nonode", 100, "", 0, nil), livetest.Pod(ns, "vswap", 100, A, 0, nil),
		livetest.Pod(ns, "after", 100, "", 0, nil), livetest.Pod(ns, "ok", 100, "", 0, nil), dying(ns))
	_, plan := e.writeResult(t, "result.json",
		binding(ns, "gone", uid(pods["gone"]), A),
		binding(ns, "swapped", uid(pods["swapped"]), A),
		binding(ns, "elsewhere", uid(pods["elsewhere"]), A),
		binding(ns, "here", uid(pods["here"]), A),
		binding(ns, "nonode", uid(pods["nonode"]), e.node("ghost")),
		eviction(ns, "vswap", uid(pods["vswap"]), A, "after"),
		binding(ns, "after", uid(pods["after"]), A),
		binding(ns, "ok", uid(pods["ok"]), B),
		binding(ns, "dying", uid(pods["dying"]), B),
	)
	// Between plan and bind, the cluster moves on.
	del := func(name string) {
		if err := k.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
	}
	del("gone")
	del("dying") // its finalizer keeps it, terminating
	t.Cleanup(func() {
		k.CoreV1().Pods(ns).Patch(ctx, "dying", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	del("swapped")
	del("vswap")
	livetest.Create(t, k, livetest.Pod(ns, "swapped", 100, "", 0, nil), livetest.Pod(ns, "vswap", 100, A, 0, nil))
	for pod, node := range map[string]string{"elsewhere": B, "here": A} {
		b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: ns}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
		if err := k.CoreV1().Pods(ns).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Bind(ctx, e.client(t, 100), plan, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Failures {
		got[f.Name] = f.Reason
	}
	want := map[string]string{"gone": ReasonPodGone, "swapped": ReasonUIDChanged, "elsewhere": ReasonBoundElse,
		"nonode": ReasonNodeGone, "vswap": ReasonUIDChanged, "after": ReasonBlocked, "dying": ReasonTerminating}
	if len(got) != len(want) || rep.Counts.Bound != 1 || rep.Counts.AlreadyBound != 1 || rep.Applied() {
		t.Fatalf("failures %v, want %v; counts %+v", got, want, rep.Counts)
	}
	for pod, reason := range want {
		if got[pod] != reason {
			t.Errorf("%s: %q, want %q", pod, got[pod], reason)
		}
	}
	for pod, node := range map[string]string{"swapped": "", "elsewhere": B, "here": A, "nonode": "", "vswap": A, "after": "", "ok": B, "dying": ""} {
		if n, err := livetest.NodeOf(k, ns, pod); err != nil || n != node {
			t.Errorf("%s on %q (%v), want %q", pod, n, err, node)
		}
	}
}

// TestBindServerDryRun: with a server-side dry run every request is
// checked by the API server (admission, the budget, the binding's
// preconditions) and nothing changes: the pods stay pending, the victim
// runs, the budget keeps its disruptions; a request the server refuses
// is still reported.
func TestBindServerDryRun(t *testing.T) {
	e := newEnv(t)
	k := e.s.Client(t)
	ctx := context.Background()
	ns, A, B := e.ns, e.node("a"), e.node("b")
	pods := livetest.Create(t, k, livetest.Namespace(ns), livetest.Node(A, 2000, "4Gi", nil), livetest.Node(B, 2000, "4Gi", nil),
		livetest.Pod(ns, "v", 1500, A, 30, map[string]string{"app": "db"}),
		livetest.Pod(ns, "p", 1000, "", 0, nil), livetest.Pod(ns, "q", 100, "", 0, nil), livetest.Pod(ns, "r", 100, B, 0, nil),
		livetest.PDB(ns, "db", "db", 0))
	livetest.SetBudget(t, k, ns, "db", 1)
	_, plan := e.writeResult(t, "result.json",
		eviction(ns, "v", uid(pods["v"]), A, "p"),
		binding(ns, "p", uid(pods["p"]), A),
		binding(ns, "q", uid(pods["q"]), B),
		binding(ns, "r", uid(pods["r"]), A), // bound to B already: refused even in a dry run
	)
	rep, err := Bind(ctx, e.client(t, 100), plan, BindOptions{DryRun: true, WaitTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Counts; !rep.DryRun || c.Evicted != 1 || c.Bound != 2 || len(rep.Failures) != 1 || rep.Failures[0].Name != "r" ||
		rep.Failures[0].Reason != ReasonBoundElse {
		t.Fatalf("counts %+v, failures %+v", c, rep.Failures)
	}
	evs := e.audit(t)
	if len(requests(evs, "eviction", "v", 201)) != 1 || len(requests(evs, "binding", "p", 201)) != 1 || len(requests(evs, "binding", "q", 201)) != 1 {
		t.Errorf("the dry-run requests did not reach the server: %+v", evs)
	}
	for pod, node := range map[string]string{"p": "", "q": "", "r": B, "v": A} {
		if n, err := livetest.NodeOf(k, ns, pod); err != nil || n != node {
			t.Errorf("%s on %q (%v) after a dry run, want %q", pod, n, err, node)
		}
	}
	if v, _ := k.CoreV1().Pods(ns).Get(ctx, "v", metav1.GetOptions{}); v == nil || v.DeletionTimestamp != nil {
		t.Error("the dry run deleted the victim")
	}
	if pdb, err := k.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "db", metav1.GetOptions{}); err != nil || pdb.Status.DisruptionsAllowed != 1 {
		t.Errorf("the dry run spent the budget: %+v %v", pdb.Status, err)
	}
}

// TestBindCrashResume kills a bind process (SIGKILL) midway and resumes
// from its journal, some of whose last records are dropped (as if the
// process had died between a request and its record): the resumed run
// sends nothing for what the journal holds, finds on the server what was
// applied but not recorded (a Binding already there, a victim gone)
// without applying it again, and applies the rest. Every pod ends on its
// planned node; the audit log shows each Binding and each Eviction
// accepted exactly once.
func TestBindCrashResume(t *testing.T) {
	e := newEnv(t)
	k := e.s.Client(t)
	ns := e.ns
	objs := []any{livetest.Namespace(ns)}
	const nodes, npods = 8, 160
	for i := range nodes {
		objs = append(objs, livetest.Node(e.node(string(rune('a'+i))), 64000, "64Gi", nil))
	}
	objs = append(objs, livetest.Pod(ns, "v0", 100, e.node("a"), 0, nil), livetest.Pod(ns, "v1", 100, e.node("b"), 0, nil))
	for i := range npods {
		objs = append(objs, livetest.Pod(ns, podName(i), 100, "", 0, nil))
	}
	pods := livetest.Create(t, k, objs...)
	items := []string{eviction(ns, "v0", uid(pods["v0"]), e.node("a"), podName(0)), eviction(ns, "v1", uid(pods["v1"]), e.node("b"), podName(1))}
	want := map[string]string{}
	for i := range npods {
		node := e.node(string(rune('a' + i%nodes)))
		want[podName(i)] = node
		items = append(items, binding(ns, podName(i), uid(pods[podName(i)]), node))
	}
	result, plan := e.writeResult(t, "result.json", items...)
	journal := result + ".journal"

	child := startHelper(t, e, result, journal)
	eventually(t, 60*time.Second, "the journal to hold 60 records", func() bool { return len(journalRecords(t, journal)) >= 60 })
	child.Process.Kill()
	child.Wait()
	recs := journalRecords(t, journal)
	if len(recs) >= len(items)+2 {
		t.Fatalf("the helper finished (%d records) before it was killed", len(recs))
	}
	// Drop the Evictions' records and the last three Bindings'.
	kept, dropped := []journalRecord{}, map[string]bool{}
	for i, r := range recs {
		if r.Kind == "Eviction" || i >= len(recs)-3 {
			dropped[r.Name] = true
		} else {
			kept = append(kept, r)
		}
	}
	rewriteJournal(t, journal, kept)

	c := e.client(t, 200)
	if _, err := Bind(context.Background(), c, plan, BindOptions{Journal: journal}); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("an existing journal without Resume: %v", err)
	}
	_, other := e.writeResult(t, "other.json", items[1:]...)
	if _, err := Bind(context.Background(), c, other, BindOptions{Journal: journal, Resume: true}); err == nil || !strings.Contains(err.Error(), "another result") {
		t.Fatalf("a journal of another result: %v", err)
	}
	rep, err := Bind(context.Background(), c, plan, BindOptions{Journal: journal, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	cn := rep.Counts
	if !rep.Applied() || cn.FromJournal != len(kept) || cn.AlreadyGone != 2 || cn.AlreadyBound < 3 ||
		cn.FromJournal+cn.Bound+cn.AlreadyBound+cn.Evicted+cn.AlreadyGone != len(items) {
		t.Fatalf("resume after %d records (%d kept): counts %+v, failures %+v", len(recs), len(kept), cn, rep.Failures)
	}
	t.Logf("killed after %d journal records, %d kept; resumed: %+v", len(recs), len(kept), cn)
	for pod, node := range want {
		if n, err := livetest.NodeOf(k, ns, pod); err != nil || n != node {
			t.Errorf("%s on %q (%v), want %s", pod, n, err, node)
		}
	}
	evs := e.audit(t)
	inJournal := map[string]bool{}
	for _, r := range kept {
		inJournal[r.Name] = true
	}
	for pod := range want {
		all, ok := requests(evs, "binding", pod, 0), requests(evs, "binding", pod, 201)
		switch {
		case len(ok) != 1:
			t.Errorf("%s: %d accepted bindings, want exactly 1", pod, len(ok))
		case inJournal[pod] && len(all) != 1:
			t.Errorf("%s: in the journal, yet the resumed run sent its binding again (%d requests)", pod, len(all))
		case dropped[pod] && len(all) != 2:
			t.Errorf("%s: applied but not in the journal: want the resumed run's one request refused, got %d requests", pod, len(all))
		}
	}
	for _, v := range []string{"v0", "v1"} {
		if got := requests(evs, "eviction", v, 0); len(got) != 1 || got[0].ResponseStatus.Code != 201 {
			t.Errorf("%s: eviction requests %+v, want the first run's one, accepted", v, got)
		}
	}
}

// journalRecords reads a journal's complete records (not its header).
func journalRecords(t *testing.T, path string) []journalRecord {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []journalRecord
	lines := strings.Split(string(b), "\n")
	for _, l := range lines[1 : len(lines)-1] { // the header; a line not ended yet
		var r journalRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("journal line %q: %v", l, err)
		}
		out = append(out, r)
	}
	return out
}

// rewriteJournal keeps a journal's header and writes recs after it.
func rewriteJournal(t *testing.T, path string, recs []journalRecord) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := b[:strings.IndexByte(string(b), '\n')+1]
	for _, r := range recs {
		line, _ := json.Marshal(r)
		out = append(append(out, line...), '\n')
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func podName(i int) string { return "pod-" + string(rune('a'+i/26%26)) + string(rune('a'+i%26)) }

// TestBindQPS: every request waits for the client-side rate limit: 30
// Bindings (and the two node lists: every node, the cordoned ones) at 10
// requests a second, burst 1, take about 3 s, and no second holds more
// than the limit.
func TestBindQPS(t *testing.T) {
	e := newEnv(t)
	k := e.s.Client(t)
	objs := []any{livetest.Namespace(e.ns), livetest.Node(e.node("a"), 64000, "64Gi", nil)}
	for i := range 30 {
		objs = append(objs, livetest.Pod(e.ns, podName(i), 10, "", 0, nil))
	}
	pods := livetest.Create(t, k, objs...)
	var items []string
	for i := range 30 {
		items = append(items, binding(e.ns, podName(i), uid(pods[podName(i)]), e.node("a")))
	}
	_, plan := e.writeResult(t, "result.json", items...)
	c, err := NewClient(Config{Kubeconfig: e.s.Kubeconfig, QPS: 10, Burst: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Bind(context.Background(), c, plan, BindOptions{Concurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Applied() || rep.Requests != 32 || rep.Seconds < 2.9 || rep.QPS > 11 || rep.PeakQPS > 11 {
		t.Errorf("%d requests in %.2fs (%.1f/s, peak %d in one second): want 32 in at least 3 s, at most 10 a second",
			rep.Requests, rep.Seconds, rep.QPS, rep.PeakQPS)
	}
}
