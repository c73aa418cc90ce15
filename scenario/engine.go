package scenario

import (
	"container/heap"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/nodelifecycle"
	"github.com/kplace/kplace/solver"
	"github.com/kplace/kplace/tainteviction"
)

// Config is how a run behaves besides its scenario.
type Config struct {
	// Solve is the scheduler's configuration (place's flags).
	Solve solver.Config
	// Lifecycle is the node lifecycle controller's (zero:
	// nodelifecycle.DefaultConfig).
	Lifecycle nodelifecycle.Config
	// DrainTimeout is kubectl drain's --timeout for each node (0: none,
	// kubectl's default); a step's own timeout wins.
	DrainTimeout time.Duration
	// EvictRetry is how long kubectl drain waits before retrying a
	// blocked eviction (its EvictErrorRetryDelay, 5 s).
	EvictRetry time.Duration
	// Admission applies the DefaultTolerationSeconds admission plugin to
	// the pods created during the run.
	Admission bool
	// MaxRounds bounds the scheduler runs at one instant (preemption
	// victims and pods deleted as soon as they are bound get replacements
	// that run the scheduler again); 0: 100.
	MaxRounds int
}

// DefaultEvictRetry is kubectl drain's EvictErrorRetryDelay.
const DefaultEvictRetry = 5 * time.Second

// DefaultHorizon is how long after its last step a run without until
// goes on at most: pods the scheduler puts on a node whose NoExecute
// taints they tolerate for a while are deleted, replaced and put there
// again, for ever (as in a live cluster).
const DefaultHorizon = 7 * 24 * time.Hour

// Engine runs a scenario over a cluster. Make one with New; it is not
// safe for concurrent use.
type Engine struct {
	cfg  Config
	sc   *Scenario
	c    *index.Cluster
	sess *solver.Session
	now  time.Duration
	// base is t = 0 in Unix seconds.
	base int64

	tl  *timeline
	tm  *tainteviction.Manager[string, index.PodID]
	nlc *nodelifecycle.Controller
	// pods is the engine's record of each pod (by id; grows with AddPod).
	pods []podInfo
	// nodes by name, removed ones included.
	nodes map[string]*nodeInfo
	// pending holds the live pods waiting for the scheduler.
	pending map[index.PodID]bool
	queue   eventHeap
	seq     uint64
	pdb     *pdbModel
	drains  []*drain
	gc      podGC
	// names holds every pod's namespace/name ever used (made on first
	// need), for new names.
	names map[string]bool
	// nameSeq numbers the names made.
	nameSeq uint64
	// changes counts changes to the cluster (stalled drains read it);
	// changed says something happened at this instant.
	changes uint64
	changed bool
	// commits logs the scheduler's Bindings and Evictions in order.
	commits []commit
	rep     *reportState
	// rounds counts scheduler runs; placed pods bound by them; schedTime
	// is the wall time they took.
	rounds, placed int
	schedTime      time.Duration
	warned         map[string]bool
	warnings       []string
	// stepErr is a step that could not run (the run stops).
	stepErr error
	// workerCause is the step behind each scheduled taint-manager deletion.
	workerCause map[index.PodID]int32
	// ctl is what the engine keeps of the controllers.
	ctl controllers
	// repl is the replacements' buffer.
	repl []index.Pod
}

// podInfo is what the engine knows of a pod beyond the index.
type podInfo struct {
	deleted bool
	// orphanNode is the removed node the pod is bound to (the pod GC
	// deletes it).
	orphanNode string
	// boundAtStart is the pod's node in the input ("" when pending).
	boundAtStart string
	// cause is the step whose change displaced this pod or its
	// predecessor (-1: none).
	cause int32
	// replaces is the pod this one replaces (-1: none).
	replaces index.PodID
	// reported: a pod-pending event was written for this wait.
	reported bool
	reason   string // last pending reason
	// scheduled: bound by the scheduler during the run; preempted:
	// deleted by a preemption.
	scheduled, preempted bool
}

// nodeInfo is what the engine knows of a node by name.
type nodeInfo struct {
	name    string
	id      index.NodeID // in the current cluster (when not removed)
	removed bool
	alive   bool // the kubelet posts (failNodes stops it)
	// initial are the node's taints when the run began; serving compares
	// against them.
	initial []index.Taint
	// cause is the step behind the node's last taint change by the
	// controllers (its failure).
	cause  int32
	labels map[string]string
	alloc  index.ResourceList
}

// event is queued work at a time; ties run in the order queued.
type event struct {
	at  time.Duration
	seq uint64
	run func()
	// retry marks a drain's eviction retry (see stalled).
	retry bool
}

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func (e *Engine) at(t time.Duration, run func()) {
	heap.Push(&e.queue, event{at: t, seq: e.seq, run: run})
	e.seq++
}

func (e *Engine) atRetry(t time.Duration, run func()) {
	heap.Push(&e.queue, event{at: t, seq: e.seq, run: run, retry: true})
	e.seq++
}

// New prepares a run of sc over in (the engine takes ownership of in).
func New(in *index.Input, sc *Scenario, cfg Config) (*Engine, error) {
	if cfg.EvictRetry <= 0 {
		cfg.EvictRetry = DefaultEvictRetry
	}
	if cfg.MaxRounds <= 0 {
		cfg.MaxRounds = 100
	}
	if cfg.Lifecycle == (nodelifecycle.Config{}) {
		cfg.Lifecycle = nodelifecycle.DefaultConfig()
	}
	if cfg.Lifecycle.MonitorPeriod <= 0 {
		return nil, fmt.Errorf("scenario: node monitor period %v: want more than 0", cfg.Lifecycle.MonitorPeriod)
	}
	e := &Engine{cfg: cfg, sc: sc, nodes: map[string]*nodeInfo{}, pending: map[index.PodID]bool{},
		tm: tainteviction.NewManager[string, index.PodID](), warned: map[string]bool{}, workerCause: map[index.PodID]int32{}}
	e.base = startOf(in)
	c, err := index.Build(in)
	if err != nil {
		return nil, err
	}
	e.c = c
	e.pods = make([]podInfo, len(c.Pods))
	for i := range e.pods {
		e.pods[i] = podInfo{cause: -1, replaces: -1}
		if n := c.PodNode[i]; n != index.NoNode {
			e.pods[i].boundAtStart = c.Nodes[n].Name
		}
	}
	for _, pid := range c.Pending {
		e.pending[pid] = true
	}
	for _, pid := range c.Rejected {
		e.pods[pid].deleted = true // never existed
	}
	e.nlc = nodelifecycle.New(cfg.Lifecycle, (*lifecycleView)(e))
	var tainted []*nodeInfo // nodes with NoExecute taints in the input
	for i := range c.Nodes {
		n := &c.Nodes[i]
		ni := &nodeInfo{name: n.Name, id: index.NodeID(i), alive: true, initial: slices.Clone(n.Taints), cause: -1,
			labels: n.Labels, alloc: n.Allocatable}
		ready := nodelifecycle.ReadyTrue
		switch {
		case hasTaint(n.Taints, nodelifecycle.TaintUnreachable, ""):
			ready, ni.alive = nodelifecycle.ReadyUnknown, false
		case hasTaint(n.Taints, nodelifecycle.TaintNotReady, ""):
			ready = nodelifecycle.ReadyFalse
		}
		e.nodes[n.Name] = ni
		e.nlc.Known(n.Name, n.Labels, ready, ni.alive)
		if len(tainteviction.NoExecuteTaints(n.Taints)) > 0 {
			e.tm.NodeUpdated(n.Name, n.Taints, nil, 0, nil) // its taints, known from the start
			tainted = append(tainted, ni)
		}
	}
	e.pdb = newPDBModel(e)
	e.rep = newReportState(e)
	e.sess = solver.NewSession(c, cfg.Solve)
	if len(tainted) > 0 {
		// The taint manager starts as the real one does: every node's
		// NoExecute taints, with the pods bound there (handleNodeUpdate
		// at its start). A pod that does not tolerate them goes at once,
		// one that tolerates them for a while that long after t = 0 (the
		// controller's timers start when it sees the pod).
		e.at(0, func() {
			for _, ni := range tainted {
				var pods []tainteviction.Pod[index.PodID]
				for _, pid := range e.c.PodsOn[ni.id] {
					pods = append(pods, tainteviction.Pod[index.PodID]{Key: pid, Tolerations: e.c.Pods[pid].Tolerations})
				}
				for _, ch := range e.tm.NodeUpdated(ni.name, e.c.Nodes[ni.id].Taints, pods, e.now, nil) {
					e.taintOutcome(ch, ni.name)
				}
			}
		})
	}
	for i := range sc.Steps {
		st := &sc.Steps[i]
		e.at(st.At, func() { e.step(st) })
	}
	return e, nil
}

// startOf is t = 0: the latest time stamp of the input's pods (0 when
// none has one).
func startOf(in *index.Input) int64 {
	var t int64
	for i := range in.Pods {
		t = max(t, in.Pods[i].CreationUnix, in.Pods[i].StartUnix)
	}
	return t
}

// Run runs the scenario to its end, writing the timeline to w (nil: none).
func (e *Engine) Run(w io.Writer) error {
	e.tl = newTimeline(w)
	// The node lifecycle controller's first look: condition and cordon
	// taints that the input lacks (a node not Ready without its NoSchedule
	// taint, a cordoned node without node.kubernetes.io/unschedulable).
	for i := range e.c.Nodes {
		n := &e.c.Nodes[i]
		e.nlc.SyncNoSchedule(n.Name, n.Unschedulable)
	}
	// Pods pending in the input: the scheduler sees them at t = 0.
	e.changed = e.changed || len(e.pending) > 0
	until := e.sc.Until
	if until == 0 {
		until = DefaultHorizon
		if n := len(e.sc.Steps); n > 0 {
			until += e.sc.Steps[n-1].At
		}
	}
	from := time.Duration(0)
	for {
		t, ok := e.next(from)
		if ok && t > until && e.sc.Until == 0 {
			e.warn("horizon", fmt.Sprintf("stopped at %v, %v after the last step, with work left (pods placed on nodes whose NoExecute taints they tolerate for a while are deleted and replaced again and again): set the scenario's until, or kplace simulate --until, to end elsewhere", until, DefaultHorizon))
		}
		if !ok || t > until {
			break
		}
		if e.stalled(t) {
			e.endStalled(t)
			break
		}
		if err := e.instant(t); err != nil {
			return err
		}
		from = t + 1
	}
	if e.sc.Until > 0 && e.now < e.sc.Until {
		e.now = e.sc.Until
	}
	if e.stepErr != nil {
		return e.stepErr
	}
	e.rep.finish()
	return e.tl.flush()
}

// next returns the first instant at or after from with something to do.
func (e *Engine) next(from time.Duration) (time.Duration, bool) {
	best, ok := time.Duration(0), false
	take := func(t time.Duration, has bool) {
		if has && (!ok || t < best) {
			best, ok = max(t, from), true
		}
	}
	if from == 0 && e.changed {
		take(0, true)
	}
	if len(e.queue) > 0 {
		take(e.queue[0].at, true)
	}
	take(e.nlc.NextMonitor(from))
	take(e.nlc.NextTaintPass(from))
	take(e.tm.Next())
	return best, ok
}

// instant does everything due at t.
func (e *Engine) instant(t time.Duration) error {
	e.now = t
	for len(e.queue) > 0 && e.queue[0].at <= t {
		ev := heap.Pop(&e.queue).(event)
		ev.run()
		if err := e.stepErr; err != nil {
			return err
		}
	}
	if m, ok := e.nlc.NextMonitor(t); ok && m == t {
		e.nlc.Monitor(t)
	}
	if p, ok := e.nlc.NextTaintPass(t); ok && p == t {
		e.nlc.TaintPass(t)
	}
	for {
		pid, _, ok := e.tm.Due(t)
		if !ok {
			break
		}
		cause := e.workerCause[pid]
		delete(e.workerCause, pid)
		e.deletePod(pid, delTaintManager, cause)
	}
	e.schedule()
	e.changed = false
	return nil
}

// schedule runs the scheduler while pods are pending and something
// happened at this instant.
func (e *Engine) schedule() {
	for round := 0; e.changed && len(e.pending) > 0; round++ {
		if round == e.cfg.MaxRounds {
			e.warn("scheduler-rounds", fmt.Sprintf("at %s the scheduler ran %d times (pods deleted as soon as they are placed, and replaced): the rest waits for the next instant", fmtT(e.now), round))
			return
		}
		e.changed = false
		batch := make([]index.PodID, 0, len(e.pending))
		for pid := range e.pending {
			batch = append(batch, pid)
		}
		slices.Sort(batch)
		e.rep.pendingNow(batch)
		e.c.Pending = batch
		e.pdb.publish()
		t0 := time.Now()
		res := e.sess.Solve()
		e.schedTime += time.Since(t0)
		e.rounds++
		e.commit(res)
	}
}

// commit applies a scheduler result: evictions, bindings, pods left
// pending.
func (e *Engine) commit(res *solver.Result) {
	c := e.c
	for _, cm := range res.Commits {
		p := &c.Pods[cm.Pod]
		switch cm.Action {
		case solver.Evict:
			pre := &c.Pods[cm.Preemptor]
			e.commits = append(e.commits, commit{evict: true, pod: cm.Pod, node: c.Nodes[cm.Node].Name, preemptor: cm.Preemptor})
			e.pods[cm.Pod].preempted = true
			e.deleteUnbound(cm.Pod, c.Nodes[cm.Node].Name, delPreempted, "preempted by "+pre.Namespace+"/"+pre.Name, e.pods[cm.Preemptor].cause)
		case solver.Bind:
			node := c.Nodes[cm.Node].Name
			e.commits = append(e.commits, commit{pod: cm.Pod, node: node})
			delete(e.pending, cm.Pod)
			info := &e.pods[cm.Pod]
			info.scheduled, info.reported = true, false
			c.SetStart(cm.Pod, e.base+int64(e.now/time.Second))
			e.placed++
			e.changes++
			e.tl.add(e.now, "pod-bound", podKey(p), node, "Scheduled", info.cause)
			e.rep.bound(cm.Pod)
			e.pdb.podBound(cm.Pod, cm.Node)
			ch := e.tm.PodUpdated(tainteviction.Pod[index.PodID]{Key: cm.Pod, Tolerations: p.Tolerations}, node, e.now)
			if ch.Outcome != tainteviction.Unchanged {
				e.warn("churn", fmt.Sprintf("the scheduler puts pods on nodes whose NoExecute taints they tolerate only for a while, and the taint manager then deletes them (%s on %s at %s)", podKey(p), node, fmtT(e.now)))
			}
			e.taintOutcome(ch, node)
		}
	}
	for _, pd := range res.Pending {
		info := &e.pods[pd.Pod]
		info.reason = pd.Reason
		if !info.reported {
			info.reported = true
			e.tl.add(e.now, "pod-pending", podKey(&c.Pods[pd.Pod]), "", pd.Reason, info.cause)
		}
	}
}

func (e *Engine) warn(key, msg string) {
	if !e.warned[key] {
		e.warned[key] = true
		e.warnings = append(e.warnings, msg)
	}
}

func podKey(p *index.Pod) string { return p.Namespace + "/" + p.Name }

func hasTaint(ts []index.Taint, key, effect string) bool {
	return slices.ContainsFunc(ts, func(t index.Taint) bool { return t.Key == key && (effect == "" || t.Effect == effect) })
}

// fmtT writes a virtual time for messages.
func fmtT(t time.Duration) string { return t.String() }
