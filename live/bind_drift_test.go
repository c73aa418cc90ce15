package live

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kplace/kplace/live/livetest"
)

// TestBindPreemptorAndNodeDrift: between plan and bind a preemptor is
// deleted, another is bound elsewhere, and a node is cordoned. Their
// victims are not evicted (no Eviction is sent: the room is needed by no
// one), the preemptors' Bindings are blocked, and the Binding to the
// cordoned node is refused; the rest is applied.
func TestBindPreemptorAndNodeDrift(t *testing.T) {
	e := newEnv(t)
	k := e.s.Client(t)
	ctx := context.Background()
	ns, A, B, C, D := e.ns, e.node("a"), e.node("b"), e.node("c"), e.node("d")
	pods := livetest.Create(t, k, livetest.Namespace(ns), livetest.Node(A, 2000, "4Gi", nil), livetest.Node(B, 2000, "4Gi", nil),
		livetest.Node(C, 2000, "4Gi", nil), livetest.Node(D, 2000, "4Gi", nil),
		livetest.Pod(ns, "v1", 1500, A, 0, nil), livetest.Pod(ns, "v2", 1500, B, 0, nil),
		livetest.Pod(ns, "p1", 1000, "", 0, nil), livetest.Pod(ns, "p2", 1000, "", 0, nil),
		livetest.Pod(ns, "q", 100, "", 0, nil), livetest.Pod(ns, "ok", 100, "", 0, nil))
	_, plan := e.writeResult(t, "result.json",
		eviction(ns, "v1", uid(pods["v1"]), A, "p1"),
		binding(ns, "p1", uid(pods["p1"]), A),
		eviction(ns, "v2", uid(pods["v2"]), B, "p2"),
		binding(ns, "p2", uid(pods["p2"]), B),
		binding(ns, "q", uid(pods["q"]), C),
		binding(ns, "ok", uid(pods["ok"]), D),
	)
	if err := k.CoreV1().Pods(ns).Delete(ctx, "p1", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	if err := k.CoreV1().Pods(ns).Bind(ctx, bindingTo(ns, "p2", D), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.CoreV1().Nodes().Patch(ctx, C, types.MergePatchType, []byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	rep, err := Bind(ctx, e.client(t, 100), plan, BindOptions{WaitTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]BindFailure{}
	for _, f := range rep.Failures {
		got[f.Name] = f
	}
	want := map[string]string{"v1": ReasonPreemptorGone, "p1": ReasonBlocked, "v2": ReasonPreemptorGone, "p2": ReasonBlocked, "q": ReasonNodeCordoned}
	if len(got) != len(want) || rep.Counts.Bound != 1 || rep.Counts.Evicted != 0 {
		t.Fatalf("failures %+v, want %v; counts %+v", got, want, rep.Counts)
	}
	for pod, reason := range want {
		if got[pod].Reason != reason {
			t.Errorf("%s: %q (%s), want %q", pod, got[pod].Reason, got[pod].Message, reason)
		}
	}
	if m := got["v1"].Message; !strings.Contains(m, "preemptor "+ns+"/p1 is gone") {
		t.Errorf("v1: %q", m)
	}
	if m := got["v2"].Message; !strings.Contains(m, "preemptor "+ns+"/p2 is bound already") {
		t.Errorf("v2: %q", m)
	}
	if m := got["p1"].Message; !strings.Contains(m, "("+ReasonPreemptorGone+")") {
		t.Errorf("p1: %q: want the blocking Eviction's reason", m)
	}
	evs := e.audit(t)
	if n := len(requests(evs, "eviction", "v1", 0)) + len(requests(evs, "eviction", "v2", 0)); n != 0 {
		t.Errorf("%d Evictions sent for victims whose preemptors need no room", n)
	}
	for _, v := range []string{"v1", "v2"} {
		if p, err := k.CoreV1().Pods(ns).Get(ctx, v, metav1.GetOptions{}); err != nil || p.DeletionTimestamp != nil {
			t.Errorf("%s should still run: %v", v, err)
		}
	}
	for pod, node := range map[string]string{"q": "", "ok": D, "p2": D} {
		if n, err := livetest.NodeOf(k, ns, pod); err != nil || n != node {
			t.Errorf("%s on %q (%v), want %q", pod, n, err, node)
		}
	}
}

// TestBindResumeHeaderOnlyJournal: a run that died after sending an
// Eviction and before journaling it leaves a journal of its header only;
// the resumed run looks at the victim (terminating) before sending, and
// sends no second Eviction.
func TestBindResumeHeaderOnlyJournal(t *testing.T) {
	e := newEnv(t)
	k := e.s.Client(t)
	ctx := context.Background()
	ns, A := e.ns, e.node("a")
	pods := livetest.Create(t, k, livetest.Namespace(ns), livetest.Node(A, 2000, "4Gi", nil),
		livetest.Pod(ns, "v", 1500, A, 600, nil), // terminating for ten minutes once evicted
		livetest.Pod(ns, "p", 1000, "", 0, nil))
	path, plan := e.writeResult(t, "result.json", eviction(ns, "v", uid(pods["v"]), A, "p"), binding(ns, "p", uid(pods["p"]), A))
	journal := path + ".journal"
	opts := BindOptions{Journal: journal, WaitTimeout: time.Second}
	if _, err := Bind(ctx, e.client(t, 100), plan, opts); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(b), "\n")
	if err := os.WriteFile(journal, []byte(header+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Resume = true
	rep, err := Bind(ctx, e.client(t, 100), plan, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(requests(e.audit(t), "eviction", "v", 0)); n != 1 {
		t.Errorf("%d Evictions of v sent over the two runs, want 1", n)
	}
	if len(rep.Failures) != 2 || rep.Failures[0].Reason != ReasonVictimStays || rep.Failures[1].Reason != ReasonBlocked {
		t.Errorf("resumed run's failures %+v: want v still there, p blocked", rep.Failures)
	}
}

// TestBindNoJournalLeftWhenNothingSent: a run that stops before sending
// anything (its nodes cannot be listed) leaves no journal behind, so the
// next run needs no --resume.
func TestBindNoJournalLeftWhenNothingSent(t *testing.T) {
	e := newEnv(t)
	path, plan := e.writeResult(t, "result.json", binding(e.ns, "p", "", e.node("a")))
	journal := path + ".journal"
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the node list fails at once
	if _, err := Bind(ctx, e.client(t, 100), plan, BindOptions{Journal: journal}); err == nil {
		t.Fatal("a run whose context ended before it began succeeded")
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal left behind: %v", err)
	}
}

// bindingTo is a Binding of pod ns/name to node, as another scheduler
// would send it.
func bindingTo(ns, name, node string) *corev1.Binding {
	return &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
}

// TestLinkOrdersEvictionsByNamespace: the Evictions of a namespace go in
// commit order (a budget they share goes to the earlier), one waiting for
// the previous one's outcome, which never blocks it; Evictions of other
// namespaces, and Bindings, do not wait for them.
func TestLinkOrdersEvictionsByNamespace(t *testing.T) {
	items := []Item{
		{Op: OpEvict, Namespace: "x", Name: "v0", Node: "n0", Preemptor: "y/p0"},
		{Op: OpEvict, Namespace: "x", Name: "v1", Node: "n1", Preemptor: "y/p1"},
		{Op: OpEvict, Namespace: "z", Name: "v2", Node: "n2", Preemptor: "y/p2"},
		{Op: OpEvict, Namespace: "x", Name: "v3", Node: "n0", Preemptor: "y/p3"}, // on v0's node too
		{Op: OpBind, Namespace: "y", Name: "p1", Node: "n1"},
	}
	n := len(items)
	b := &binder{plan: &Plan{Items: items}, pending: make([]int32, n), parked: make([]bool, n), blocked: make([]int32, n),
		state: make([]uint8, n), acceptDep: make([][]int32, n), orderDep: make([][]int32, n), goneDep: make([][]int32, n),
		bindingOf: map[string]int32{}}
	b.cond = sync.NewCond(&b.mu)
	for i := range b.blocked {
		b.blocked[i] = -1
	}
	b.link()
	if want := []int32{0, 1, 0, 2, 1}; !slices.Equal(b.pending, want) {
		t.Fatalf("dependencies per item %v, want %v", b.pending, want)
	}
	if !slices.Equal(b.orderDep[0], []int32{1}) || !slices.Equal(b.acceptDep[0], []int32{3}) || !slices.Equal(b.orderDep[1], []int32{3}) {
		t.Errorf("v0 orders %v and holds %v; v1 orders %v", b.orderDep[0], b.acceptDep[0], b.orderDep[1])
	}
	// v0 refused (a budget): v1 goes, not blocked; v3 (v0's node) is blocked.
	b.mu.Lock()
	b.resolveAcceptedLocked(0, 0)
	b.mu.Unlock()
	if b.pending[1] != 0 || b.blocked[1] != -1 || b.blocked[3] != 0 {
		t.Errorf("after v0 failed: v1 pending %d blocked %d, v3 blocked %d", b.pending[1], b.blocked[1], b.blocked[3])
	}
}

// TestBudgetRefusal: a 429 is a budget's refusal only when its status
// cause says DisruptionBudget (as the eviction subresource answers); the
// API server's own throttling (a 429 without it) is no budget's.
func TestBudgetRefusal(t *testing.T) {
	throttled := apierrors.NewTooManyRequests("Too many requests, please try again later.", 1)
	budget := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	budget.ErrStatus.Details.Causes = append(budget.ErrStatus.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget pdb needs 1 healthy pods and has 1 currently"})
	if budgetRefusal(throttled) || !budgetRefusal(budget) || budgetRefusal(errors.New("429")) {
		t.Errorf("throttled %t, budget %t", budgetRefusal(throttled), budgetRefusal(budget))
	}
}
