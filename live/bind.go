package live

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

// BindOptions tune Bind. Zero values take the defaults named.
type BindOptions struct {
	// Concurrency is the most items in flight at once (default 16).
	Concurrency int
	// DryRun sends every request with dryRun=All: the API server checks
	// and admits each one and persists nothing. Victims are then not
	// waited for.
	DryRun bool
	// Journal is the journal file ("" keeps none); Resume continues an
	// existing one (see the package doc).
	Journal string
	Resume  bool
	// Retries is how many times a request is sent again after a 429
	// (a PodDisruptionBudget refusing an eviction included), a 5xx, a
	// timeout or a transport error (default 8). Backoff is the first wait
	// (default 500ms), doubled each time up to MaxBackoff (default 30s),
	// with 10% jitter, and never shorter than the server's Retry-After.
	Retries    int
	Backoff    time.Duration
	MaxBackoff time.Duration
	// WaitTimeout is how long the Bindings that need a victim's room wait
	// for it to be gone once its Eviction is accepted (default 5m).
	WaitTimeout time.Duration
	// Progress, when set, is called with the items finished so far.
	Progress func(done, total int)
}

func (o *BindOptions) defaults() {
	if o.Concurrency <= 0 {
		o.Concurrency = 16
	}
	if o.Retries < 0 {
		o.Retries = 0
	} else if o.Retries == 0 {
		o.Retries = 8
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.WaitTimeout <= 0 {
		o.WaitTimeout = 5 * time.Minute
	}
}

// Failure reasons of a BindReport.
const (
	ReasonPodGone       = "pod gone"
	ReasonUIDChanged    = "uid changed"
	ReasonBoundElse     = "already bound elsewhere"
	ReasonTerminating   = "pod being deleted"
	ReasonNodeGone      = "node gone"
	ReasonNodeCordoned  = "node cordoned"
	ReasonBudget        = "refused by a disruption budget"
	ReasonVictimStays   = "victim not gone"
	ReasonBlocked       = "blocked"
	ReasonPreemptorGone = "preemptor gone or bound"
	ReasonAPIError      = "api error"
	ReasonNotAttempted  = "not attempted"
	ReasonInterrupted   = "interrupted"
	ReasonJournalFailed = "journal write failed"
)

// BindReport is what Bind did.
type BindReport struct {
	Files  []string   `json:"files"`
	DryRun bool       `json:"dry_run"`
	Counts BindCounts `json:"counts"`
	// Failures lists every item not applied, in commit order.
	Failures []BindFailure `json:"failures"`
	// Requests is every HTTP request sent (reads included); Seconds the
	// run's wall time; QPS their ratio; PeakQPS the most sent in one
	// second; QPSLimit and Burst the client-side limit they were held to.
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"seconds"`
	QPS      float64 `json:"qps"`
	PeakQPS  int     `json:"peak_qps"`
	QPSLimit float32 `json:"qps_limit"`
	Burst    int     `json:"burst"`
}

// BindCounts counts outcomes.
type BindCounts struct {
	Items     int `json:"items"`
	Bindings  int `json:"bindings"`
	Evictions int `json:"evictions"`
	// Bound: Bindings applied by this run (accepted, with DryRun);
	// AlreadyBound: found on the server as the result wants them.
	Bound        int `json:"bound"`
	AlreadyBound int `json:"already_bound"`
	// Evicted: Evictions accepted by this run whose victims are gone (with
	// DryRun: accepted); AlreadyGone: victims gone before their Eviction.
	Evicted     int `json:"evicted"`
	AlreadyGone int `json:"already_gone"`
	// FromJournal: items an earlier run applied, skipped.
	FromJournal int `json:"from_journal"`
	// Failed: items not applied (Failures lists them).
	Failed int `json:"failed"`
	// Retried: requests sent again after a retryable error.
	Retried int `json:"retried"`
}

// BindFailure is an item not applied.
type BindFailure struct {
	Seq       int    `json:"seq"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Node      string `json:"node,omitempty"`
	Reason    string `json:"reason"`
	Message   string `json:"message,omitempty"`
}

// Applied reports whether everything was applied.
func (r *BindReport) Applied() bool { return r.Counts.Failed == 0 }

// item states.
const (
	stTodo    uint8 = iota // not started
	stRunning              // with a worker
	stWaiting              // evicted, waiting for the victim to be gone
	stDone
)

// binder is one Bind run. mu guards the scheduling state.
type binder struct {
	c     *Client
	plan  *Plan
	opts  BindOptions
	jr    *journal
	nodes map[string]bool // nil: not checked (no Binding to apply)
	// cordoned holds the nodes marked unschedulable when the run began.
	cordoned map[string]bool

	mu        sync.Mutex
	cond      *sync.Cond
	state     []uint8
	pending   []int32 // unresolved dependencies
	parked    []bool  // passed by the cursor while pending
	blocked   []int32 // the failed Eviction that blocks the item, -1 if none
	acceptDep [][]int32
	orderDep  [][]int32 // Evictions after it in its namespace: they go once it is accepted or has failed
	goneDep   [][]int32
	released  []int32
	cursor    int
	finished  int
	stopped   bool

	rep      BindReport
	failures map[int]BindFailure
	// bindingOf is the Binding item of each preemptor the result binds;
	// preempting holds, per preemptor, why it no longer needs the room
	// ("" when it still does), once read.
	bindingOf  map[string]int32
	preempting map[string]string
	resumed    bool
	poll       *poller
}

// Bind applies plan through c in dependency order and reports every
// outcome. The error is for what stops the whole run (a journal that
// cannot be read or written, the cluster's nodes that cannot be listed);
// a pod that cannot be bound or evicted is a failure in the report, never
// an error. When ctx ends, items not finished are reported "not attempted"
// and the journal lets a later run resume.
func Bind(ctx context.Context, c *Client, plan *Plan, opts BindOptions) (*BindReport, error) {
	opts.defaults()
	start := time.Now()
	req0 := c.Requests()
	n := len(plan.Items)
	b := &binder{c: c, plan: plan, opts: opts, state: make([]uint8, n), pending: make([]int32, n),
		parked: make([]bool, n), blocked: make([]int32, n), acceptDep: make([][]int32, n), orderDep: make([][]int32, n), goneDep: make([][]int32, n),
		failures: map[int]BindFailure{}, bindingOf: map[string]int32{}, preempting: map[string]string{}}
	b.cond = sync.NewCond(&b.mu)
	b.rep.Files, b.rep.DryRun, b.rep.QPSLimit, b.rep.Burst = plan.Files, opts.DryRun, c.QPS, c.Burst
	b.rep.Counts.Items = n
	for i := range plan.Items {
		b.blocked[i] = -1
		if plan.Items[i].Op == OpEvict {
			b.rep.Counts.Evictions++
		} else {
			b.rep.Counts.Bindings++
		}
	}
	var js *journalState
	if opts.Journal != "" {
		var err error
		if b.jr, js, err = openJournal(opts.Journal, plan, opts.DryRun, opts.Resume); err != nil {
			return nil, err
		}
		// A resumed run looks before it sends an Eviction again, even
		// when the journal holds no record: the run that wrote it may
		// have died after a request and before its record.
		b.resumed = opts.Resume
	}
	err := b.prepare(ctx, js)
	if err == nil {
		b.run(ctx, js)
	}
	if cerr := b.jr.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("journal %s: %w", opts.Journal, cerr)
	} else if err != nil && b.jr != nil && b.jr.fresh {
		// Nothing was sent (prepare only reads): a journal of this run
		// would only make the next one ask for --resume.
		os.Remove(opts.Journal)
	}
	if err != nil {
		return nil, err
	}
	b.rep.Failures = []BindFailure{} // [] in JSON when none failed
	for i := range plan.Items {
		if f, ok := b.failures[i]; ok {
			b.rep.Failures = append(b.rep.Failures, f)
		} else if b.state[i] != stDone {
			it := &plan.Items[i]
			f := BindFailure{Seq: i, Kind: it.Op.String(), Namespace: it.Namespace, Name: it.Name,
				Node: it.Node, Reason: ReasonNotAttempted, Message: "the run stopped first"}
			if b.state[i] == stWaiting {
				f.Reason, f.Message = ReasonVictimStays, "the run stopped before the victim was gone (its Eviction was accepted)"
			}
			b.rep.Failures = append(b.rep.Failures, f)
		}
	}
	b.rep.Counts.Failed = len(b.rep.Failures)
	_, b.rep.PeakQPS = c.RateStats()
	b.rep.Requests = c.Requests() - req0
	b.rep.Seconds = time.Since(start).Seconds()
	if b.rep.Seconds > 0 {
		b.rep.QPS = float64(b.rep.Requests) / b.rep.Seconds
	}
	return &b.rep, nil
}

// prepare finds what the result leaves unsaid (the node of an Eviction
// without kplace.io/node), lists the nodes, and builds the dependencies.
func (b *binder) prepare(ctx context.Context, js *journalState) error {
	items := b.plan.Items
	needNodes := false
	for i := range items {
		it := &items[i]
		if js != nil && (js.bound[i] || js.gone[i]) {
			continue
		}
		if it.Op == OpBind {
			needNodes = true
		} else if it.Node == "" {
			pod, err := b.getPod(ctx, it)
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return fmt.Errorf("%s: find the node of Eviction %s: %w", it.Src, it.Key(), err)
			case it.UID == "" || string(pod.UID) == it.UID:
				it.Node = pod.Spec.NodeName
			}
		}
	}
	if needNodes {
		var err error
		if b.nodes, err = b.listNodes(ctx, ""); err != nil {
			return err
		}
		// Cordoned since the result was made (drained, say): kube-scheduler
		// would not bind there, and neither does a binder.
		if b.cordoned, err = b.listNodes(ctx, "spec.unschedulable=true"); err != nil {
			return err
		}
	}
	b.link()
	return nil
}

// listNodes returns the names of the nodes the field selector picks (""
// every node), in pages of 500, metadata only.
func (b *binder) listNodes(ctx context.Context, fields string) (map[string]bool, error) {
	names := map[string]bool{}
	cont := ""
	for {
		l, err := b.c.Meta.Resource(corev1.SchemeGroupVersion.WithResource("nodes")).List(ctx, metav1.ListOptions{Limit: 500, Continue: cont, FieldSelector: fields})
		if err != nil {
			return nil, fmt.Errorf("list nodes: %w", err)
		}
		for i := range l.Items {
			names[l.Items[i].Name] = true
		}
		if cont = l.Continue; cont == "" {
			return names, nil
		}
	}
}

// link computes each item's dependencies: the Evictions before it on its
// node, and those before it whose preemptor is its pod (a Binding) or its
// own preemptor (an Eviction). A Binding waits for them to be gone, an
// Eviction for them to be accepted.
func (b *binder) link() {
	onNode := map[string][]int32{}
	ofPre := map[string][]int32{}
	lastInNS := map[string]int32{}
	seen := make([]int32, len(b.plan.Items)) // stamp: dependency already counted for item i+1
	for i := range b.plan.Items {
		it := &b.plan.Items[i]
		pre := it.Key()
		if it.Op == OpEvict {
			pre = it.Preemptor
		} else {
			b.bindingOf[pre] = int32(i)
		}
		add := func(d int32) {
			if seen[d] == int32(i)+1 {
				return
			}
			seen[d] = int32(i) + 1
			b.pending[i]++
			if it.Op == OpEvict {
				b.acceptDep[d] = append(b.acceptDep[d], int32(i))
			} else {
				b.goneDep[d] = append(b.goneDep[d], int32(i))
			}
		}
		if it.Node != "" {
			for _, d := range onNode[it.Node] {
				add(d)
			}
		}
		if pre != "" {
			for _, d := range ofPre[pre] {
				add(d)
			}
		}
		if it.Op == OpEvict {
			// Evictions of a namespace go in commit order: a budget
			// (namespaced) shared by two preemptors' victims then goes to
			// the earlier, as kplace planned, not to whichever request
			// the server took first. A failure does not block the later
			// one (it may be under another budget).
			if d, ok := lastInNS[it.Namespace]; ok && seen[d] != int32(i)+1 {
				seen[d] = int32(i) + 1
				b.pending[i]++
				b.orderDep[d] = append(b.orderDep[d], int32(i))
			}
			lastInNS[it.Namespace] = int32(i)
			if it.Node != "" {
				onNode[it.Node] = append(onNode[it.Node], int32(i))
			}
			if it.Preemptor != "" {
				ofPre[it.Preemptor] = append(ofPre[it.Preemptor], int32(i))
			}
		}
	}
}

// run applies the plan: what the journal shows done is resolved first,
// then workers take items as their dependencies allow.
func (b *binder) run(ctx context.Context, js *journalState) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.poll = newPoller(b)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); b.poll.run(ctx) }()
	b.mu.Lock()
	if js != nil {
		for i := range b.plan.Items {
			switch {
			case js.bound[i] || js.gone[i]:
				b.rep.Counts.FromJournal++
				b.finishLocked(i)
				if b.plan.Items[i].Op == OpEvict {
					b.resolveAcceptedLocked(i, -1)
					b.resolveLocked(b.goneDep[i], -1)
				}
			case js.evicted[i]:
				b.state[i] = stWaiting
				b.resolveAcceptedLocked(i, -1)
				b.poll.add(i, types.UID(b.plan.Items[i].UID))
			}
		}
	}
	b.mu.Unlock()
	go func() {
		<-ctx.Done()
		b.mu.Lock()
		b.stopped = true
		b.cond.Broadcast()
		b.mu.Unlock()
	}()
	for range b.opts.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := b.next()
				if !ok {
					return
				}
				if b.plan.Items[i].Op == OpEvict {
					b.evict(ctx, i)
				} else {
					b.bind(ctx, i)
				}
			}
		}()
	}
	b.mu.Lock()
	for b.finished < len(b.plan.Items) && !b.stopped {
		b.cond.Wait()
	}
	b.mu.Unlock()
	cancel()
	wg.Wait()
}

// next hands out the next item whose dependencies are resolved: one
// released from waiting first, else the next in commit order; false when
// the run is over.
func (b *binder) next() (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		if b.stopped || b.finished == len(b.plan.Items) {
			return 0, false
		}
		if b.jr != nil && b.jr.failed() {
			b.stopped = true
			b.cond.Broadcast()
			return 0, false
		}
		if len(b.released) > 0 {
			i := int(b.released[0])
			b.released = b.released[1:]
			b.state[i] = stRunning
			return i, true
		}
		for b.cursor < len(b.plan.Items) {
			i := b.cursor
			b.cursor++
			if b.state[i] != stTodo {
				continue
			}
			if b.pending[i] > 0 {
				b.parked[i] = true
				continue
			}
			b.state[i] = stRunning
			return i, true
		}
		b.cond.Wait()
	}
}

// resolveLocked settles one dependency of each item in deps; failed >= 0
// is the Eviction whose failure blocks them.
func (b *binder) resolveLocked(deps []int32, failed int) {
	for _, d := range deps {
		if failed >= 0 && b.blocked[d] < 0 {
			b.blocked[d] = int32(failed)
		}
		b.pending[d]--
		if b.pending[d] == 0 && b.parked[d] && b.state[d] == stTodo {
			b.released = append(b.released, d)
			// Broadcast: run waits on cond too, and a Signal that woke it
			// instead of a worker would leave d unapplied for ever.
			b.cond.Broadcast()
		}
	}
}

// resolveAcceptedLocked settles what waits on Eviction i's acceptance,
// now that it is accepted (failed < 0) or has failed (failed = i): its
// dependents on the same node or preemptor are blocked by a failure, the
// later Evictions of its namespace are not.
func (b *binder) resolveAcceptedLocked(i, failed int) {
	b.resolveLocked(b.acceptDep[i], failed)
	b.resolveLocked(b.orderDep[i], -1)
}

// finishLocked marks item i done.
func (b *binder) finishLocked(i int) {
	b.state[i] = stDone
	b.finished++
	if b.opts.Progress != nil {
		b.opts.Progress(b.finished, len(b.plan.Items))
	}
	if b.finished == len(b.plan.Items) {
		b.cond.Broadcast()
	}
}

// fail records item i as not applied and, for an Eviction, blocks what
// waits on it.
func (b *binder) fail(i int, reason, msg string) {
	it := &b.plan.Items[i]
	b.jr.add(journalRecord{Seq: i, Event: evFailed, Kind: it.Op.String(), Namespace: it.Namespace, Name: it.Name, Node: it.Node, Reason: reason})
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures[i] = BindFailure{Seq: i, Kind: it.Op.String(), Namespace: it.Namespace, Name: it.Name, Node: it.Node, Reason: reason, Message: msg}
	wasWaiting := b.state[i] == stWaiting // accepted: its Evictions-dependents went on
	b.finishLocked(i)
	if it.Op == OpEvict {
		if !wasWaiting {
			b.resolveAcceptedLocked(i, i)
		}
		b.resolveLocked(b.goneDep[i], i)
	}
}

// blockedBy says why item i cannot go, or "".
func (b *binder) blockedBy(i int) string {
	b.mu.Lock()
	d := b.blocked[i]
	b.mu.Unlock()
	if d < 0 {
		return ""
	}
	e := &b.plan.Items[d]
	b.mu.Lock()
	f := b.failures[int(d)]
	b.mu.Unlock()
	return fmt.Sprintf("the Eviction of %s (item %d) it waits for was not applied (%s)", e.Key(), d, f.Reason)
}

// bind applies one Binding.
func (b *binder) bind(ctx context.Context, i int) {
	it := &b.plan.Items[i]
	if why := b.blockedBy(i); why != "" {
		b.fail(i, ReasonBlocked, why)
		return
	}
	if !b.nodes[it.Node] {
		b.fail(i, ReasonNodeGone, fmt.Sprintf("node %q does not exist", it.Node))
		return
	}
	if b.cordoned[it.Node] {
		b.fail(i, ReasonNodeCordoned, fmt.Sprintf("node %q is cordoned (spec.unschedulable)", it.Node))
		return
	}
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: it.Name, Namespace: it.Namespace, UID: types.UID(it.UID)},
		Target:     corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: it.Node},
	}
	opts := &metav1.CreateOptions{}
	if b.opts.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	for attempt := 0; ; attempt++ {
		err := b.retry(ctx, func() error {
			return b.c.Kube.CoreV1().RESTClient().Post().Namespace(it.Namespace).Resource("pods").Name(it.Name).
				SubResource("binding").VersionedParams(opts, scheme.ParameterCodec).Body(binding).MaxRetries(0).Do(ctx).Error()
		})
		if b.interrupted(ctx, i, err) {
			return
		}
		switch {
		case err == nil:
			b.done(i, evBound, &b.rep.Counts.Bound)
			return
		case apierrors.IsNotFound(err):
			b.fail(i, ReasonPodGone, err.Error())
			return
		case apierrors.IsConflict(err):
			// Why: the pod of that name is another one, is terminating, or
			// is bound already (by an earlier run that died before its
			// journal said so, or by someone else).
			pod, gerr := b.getPod(ctx, it)
			switch {
			case apierrors.IsNotFound(gerr):
				b.fail(i, ReasonPodGone, err.Error())
			case gerr != nil:
				b.fail(i, ReasonAPIError, gerr.Error())
			case it.UID != "" && string(pod.UID) != it.UID:
				b.fail(i, ReasonUIDChanged, fmt.Sprintf("the result has uid %s, the pod now %s", it.UID, pod.UID))
			case pod.DeletionTimestamp != nil:
				b.fail(i, ReasonTerminating, err.Error())
			case pod.Spec.NodeName == it.Node:
				b.done(i, evBound, &b.rep.Counts.AlreadyBound)
			case pod.Spec.NodeName != "":
				b.fail(i, ReasonBoundElse, fmt.Sprintf("bound to node %q", pod.Spec.NodeName))
			case attempt < b.opts.Retries:
				continue // a conflict that went away: send it again
			default:
				b.fail(i, ReasonAPIError, err.Error())
			}
			return
		default:
			b.fail(i, ReasonAPIError, err.Error())
			return
		}
	}
}

// evict applies one Eviction.
func (b *binder) evict(ctx context.Context, i int) {
	it := &b.plan.Items[i]
	if why := b.blockedBy(i); why != "" {
		b.fail(i, ReasonBlocked, why)
		return
	}
	victim := types.UID(it.UID)
	if b.resumed || victim == "" {
		// After a crash it may have been sent already: look before sending
		// it again. Without a uid in the result, the victim's is read here
		// to tell it gone from a new pod of the same name.
		pod, err := b.getPod(ctx, it)
		switch {
		case apierrors.IsNotFound(err) || err == nil && victim != "" && pod.UID != victim:
			b.evictedGone(i, &b.rep.Counts.AlreadyGone)
			return
		case err == nil && victim == "":
			victim = pod.UID
		}
		if err == nil && pod.DeletionTimestamp != nil {
			b.accepted(i, victim)
			return
		}
	}
	// The victim is there: evict it only for a preemptor that still
	// needs the room.
	if why := b.preemptorGone(ctx, it); why != "" {
		b.fail(i, ReasonPreemptorGone, why)
		return
	}
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: it.Name, Namespace: it.Namespace}}
	if it.DeleteOptions != nil {
		ev.DeleteOptions = it.DeleteOptions.DeepCopy()
	}
	if b.opts.DryRun {
		if ev.DeleteOptions == nil {
			ev.DeleteOptions = &metav1.DeleteOptions{}
		}
		ev.DeleteOptions.DryRun = []string{metav1.DryRunAll}
	}
	err := b.retry(ctx, func() error {
		return b.c.Kube.PolicyV1().RESTClient().Post().AbsPath("/api/v1").Namespace(it.Namespace).Resource("pods").Name(it.Name).
			SubResource("eviction").Body(ev).MaxRetries(0).Do(ctx).Error()
	})
	if b.interrupted(ctx, i, err) {
		return
	}
	switch {
	case err == nil:
		b.accepted(i, victim)
	case apierrors.IsNotFound(err):
		b.evictedGone(i, &b.rep.Counts.AlreadyGone)
	case apierrors.IsConflict(err):
		// The uid precondition: the pod of that name is not the victim.
		b.fail(i, ReasonUIDChanged, err.Error())
	case apierrors.IsTooManyRequests(err) && budgetRefusal(err):
		b.fail(i, ReasonBudget, err.Error())
	default:
		b.fail(i, ReasonAPIError, err.Error())
	}
}

// preemptorGone says why the preemptor of Eviction it no longer needs the
// room, or "": it is gone, replaced (another uid than the result's
// Binding has), being deleted, or bound already. It is read once per
// preemptor (its Evictions go one after another).
func (b *binder) preemptorGone(ctx context.Context, it *Item) string {
	if it.Preemptor == "" {
		return ""
	}
	b.mu.Lock()
	why, known := b.preempting[it.Preemptor]
	bi, hasBinding := b.bindingOf[it.Preemptor]
	b.mu.Unlock()
	if known {
		return why
	}
	ns, name, _ := strings.Cut(it.Preemptor, "/")
	pre := &Item{Namespace: ns, Name: name}
	if hasBinding {
		pre = &b.plan.Items[bi]
	}
	pod, err := b.getPod(ctx, pre)
	switch {
	case apierrors.IsNotFound(err):
		why = "preemptor " + it.Preemptor + " is gone"
	case err != nil:
		return "" // unknown: the Eviction goes as planned
	case pre.UID != "" && string(pod.UID) != pre.UID:
		why = fmt.Sprintf("preemptor %s was replaced (uid %s, the result's %s)", it.Preemptor, pod.UID, pre.UID)
	case pod.DeletionTimestamp != nil:
		why = "preemptor " + it.Preemptor + " is being deleted"
	case pod.Spec.NodeName != "":
		why = fmt.Sprintf("preemptor %s is bound already (to node %q)", it.Preemptor, pod.Spec.NodeName)
	}
	b.mu.Lock()
	b.preempting[it.Preemptor] = why
	b.mu.Unlock()
	return why
}

// budgetRefusal tells a 429 of a PodDisruptionBudget (its status cause
// says so) from one of the API server's own throttling (priority and
// fairness), which is no budget's.
func budgetRefusal(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) || st.Status().Details == nil {
		return false
	}
	for _, c := range st.Status().Details.Causes {
		if c.Type == policyv1.DisruptionBudgetCause {
			return true
		}
	}
	return false
}

// errNotSent is a request not sent: the run was stopped first.
var errNotSent = errors.New("not sent: the run stopped")

// interrupted tells whether item i's request failed because the run was
// stopped (ctx ended). One never sent (stopped before, or while it waited
// for the client's rate limit) is left to be reported not attempted; one
// in flight is recorded interrupted: applied or not, a resumed run finds
// out.
func (b *binder) interrupted(ctx context.Context, i int, err error) bool {
	if err == nil || ctx.Err() == nil {
		return false
	}
	if !errors.Is(err, errNotSent) && !strings.Contains(err.Error(), "client rate limiter Wait returned an error") {
		b.fail(i, ReasonInterrupted, "the run stopped during its request: applied or not, a run with --resume finds out")
	}
	return true
}

// accepted records an accepted Eviction: its Evictions-dependents may go;
// its Bindings-dependents wait for the victim (of uid victim, "" if
// unknown) to be gone (at once with a dry run: nothing is deleted).
func (b *binder) accepted(i int, victim types.UID) {
	it := &b.plan.Items[i]
	if b.opts.DryRun {
		b.evictedGone(i, &b.rep.Counts.Evicted)
		return
	}
	b.jr.add(journalRecord{Seq: i, Event: evEvicted, Kind: it.Op.String(), Namespace: it.Namespace, Name: it.Name, Node: it.Node})
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state[i] = stWaiting
	b.resolveAcceptedLocked(i, -1)
	b.poll.add(i, victim)
}

// evictedGone records a victim gone; count is the outcome's counter.
func (b *binder) evictedGone(i int, count *int) {
	it := &b.plan.Items[i]
	b.jr.add(journalRecord{Seq: i, Event: evGone, Kind: it.Op.String(), Namespace: it.Namespace, Name: it.Name, Node: it.Node})
	b.mu.Lock()
	defer b.mu.Unlock()
	*count++
	wasWaiting := b.state[i] == stWaiting
	b.finishLocked(i)
	if !wasWaiting {
		b.resolveAcceptedLocked(i, -1)
	}
	b.resolveLocked(b.goneDep[i], -1)
}

// done records an applied Binding; count is the outcome's counter.
func (b *binder) done(i int, event string, count *int) {
	it := &b.plan.Items[i]
	b.jr.add(journalRecord{Seq: i, Event: event, Kind: it.Op.String(), Namespace: it.Namespace, Name: it.Name, Node: it.Node})
	b.mu.Lock()
	defer b.mu.Unlock()
	*count++
	b.finishLocked(i)
}

// getPod reads the item's pod from the API server's cache.
func (b *binder) getPod(ctx context.Context, it *Item) (*corev1.Pod, error) {
	var pod *corev1.Pod
	err := b.retry(ctx, func() error {
		var err error
		pod, err = b.c.Kube.CoreV1().Pods(it.Namespace).Get(ctx, it.Name, metav1.GetOptions{ResourceVersion: "0"})
		return err
	})
	return pod, err
}

// retry calls send until it succeeds, fails for good, or Retries are
// spent: a 429, a 5xx, a timeout or a transport error is retried after a
// backoff (at least the server's Retry-After).
func (b *binder) retry(ctx context.Context, send func() error) error {
	wait := b.opts.Backoff
	for attempt := 0; ; attempt++ {
		if attempt == 0 && ctx.Err() != nil {
			return errNotSent
		}
		err := send()
		if err == nil || !retryable(err) || attempt == b.opts.Retries || ctx.Err() != nil {
			return err
		}
		d := wait + time.Duration(rand.Int64N(int64(wait)/10+1))
		if s, ok := apierrors.SuggestsClientDelay(err); ok && time.Duration(s)*time.Second > d {
			d = time.Duration(s) * time.Second
		}
		b.mu.Lock()
		b.rep.Counts.Retried++
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return err
		case <-time.After(d):
		}
		wait = min(2*wait, b.opts.MaxBackoff)
	}
}

// retryable reports whether sending the request again may help.
func retryable(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) // transport errors
	}
	code := st.Status().Code
	return code == 429 || code >= 500 || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err)
}
