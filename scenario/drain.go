package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
	"k8s.io/apimachinery/pkg/labels"
)

// pdbModel keeps each PodDisruptionBudget's status as the disruption
// controller keeps it, from the start (an input's status is computed
// again, as the controller would on its next sync): the pods it selects
// (the Eviction API's and the controller's reading of a selector: an empty
// one selects every pod of the namespace), how many exist (expected: bound
// or pending; the controller reads its workloads' scale, which is that
// number while every deleted pod has a replacement), how many are healthy
// (bound on a node whose Ready condition is True: pods are taken as ready
// once bound); desiredHealthy from the spec over expected
// (rules.DesiredHealthy); disruptionsAllowed = healthy - desiredHealthy,
// at least 0.
type pdbModel struct {
	e    *Engine
	sels []labels.Selector // nil: matches nothing
	// anchor finds the budgets through one label their selector requires
	// (namespace, key, value); scan lists, per namespace, the others.
	anchor map[[3]string][]int32
	scan   map[string][]int32
	// of caches each pod's budgets.
	of                map[index.PodID][]int32
	expected, healthy []int
}

func newPDBModel(e *Engine) *pdbModel {
	m := &pdbModel{e: e, anchor: map[[3]string][]int32{}, scan: map[string][]int32{}, of: map[index.PodID][]int32{}}
	c := e.c
	for k := range c.PDBs {
		m.index(k)
	}
	if len(c.PDBs) == 0 {
		return m
	}
	for pid := range c.Pods {
		p := index.PodID(pid)
		if e.pods[p].deleted {
			continue
		}
		for _, k := range m.budgets(p) {
			m.count(k, p, 1)
		}
	}
	return m
}

// index files budget k (its selector, and where budgets finds it).
func (m *pdbModel) index(k int) {
	b := &m.e.c.PDBs[k]
	var sel labels.Selector
	if b.Selector != nil {
		sel = index.SelectorOf(b.Selector)
	}
	m.sels = append(m.sels, sel)
	m.expected, m.healthy = append(m.expected, 0), append(m.healthy, 0)
	if sel == nil {
		return // matches nothing
	}
	if key, ok := anchorOf(b.Selector); ok {
		a := [3]string{b.Namespace, key, b.Selector.MatchLabels[key]}
		m.anchor[a] = append(m.anchor[a], int32(k))
		return
	}
	m.scan[b.Namespace] = append(m.scan[b.Namespace], int32(k))
}

// anchorOf picks the least key of a selector's matchLabels.
func anchorOf(ls *index.LabelSelector) (string, bool) {
	if len(ls.MatchLabels) == 0 {
		return "", false
	}
	return slices.Min(slices.Collect(maps.Keys(ls.MatchLabels))), true
}

// count adds pod p to budget k's counts (d 1) or takes it away (-1).
func (m *pdbModel) count(k int32, p index.PodID, d int) {
	c := m.e.c
	m.expected[k] += d
	if n := c.PodNode[p]; n != index.NoNode && m.e.ready(c.Nodes[n].Name) {
		m.healthy[k] += d
	}
}

// addBudget starts counting a budget applied during the run.
func (m *pdbModel) addBudget(k int) {
	c := m.e.c
	m.index(k)
	for pid := range c.Pods {
		p := index.PodID(pid)
		if m.e.pods[p].deleted || !m.selects(k, &c.Pods[p]) {
			continue
		}
		if ks, ok := m.of[p]; ok {
			m.of[p] = append(ks, int32(k))
		}
		m.count(int32(k), p, 1)
	}
}

func (m *pdbModel) selects(k int, p *index.Pod) bool {
	b := &m.e.c.PDBs[k]
	return m.sels[k] != nil && b.Namespace == p.Namespace && m.sels[k].Matches(labels.Set(p.Labels))
}

// budgets returns pod p's budgets.
func (m *pdbModel) budgets(p index.PodID) []int32 {
	if len(m.sels) == 0 {
		return nil
	}
	if ks, ok := m.of[p]; ok {
		return ks
	}
	var ks []int32
	pod := &m.e.c.Pods[p]
	for key, v := range pod.Labels {
		for _, k := range m.anchor[[3]string{pod.Namespace, key, v}] {
			if m.selects(int(k), pod) {
				ks = append(ks, k)
			}
		}
	}
	for _, k := range m.scan[pod.Namespace] {
		if m.selects(int(k), pod) {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	m.of[p] = ks
	return ks
}

func (m *pdbModel) podAdded(p index.PodID) {
	for _, k := range m.budgets(p) {
		m.expected[k]++
	}
}

func (m *pdbModel) podBound(p index.PodID, n index.NodeID) {
	if m.e.ready(m.e.c.Nodes[n].Name) {
		for _, k := range m.budgets(p) {
			m.healthy[k]++
		}
	}
}

// podGone counts a pod deleted; healthy says it counted as healthy.
func (m *pdbModel) podGone(p index.PodID, healthy bool) {
	for _, k := range m.budgets(p) {
		m.expected[k]--
		if healthy {
			m.healthy[k]--
		}
	}
	delete(m.of, p)
}

// podUnhealthy counts a healthy pod that stops being one (its node gone).
func (m *pdbModel) podUnhealthy(p index.PodID) {
	for _, k := range m.budgets(p) {
		m.healthy[k]--
	}
}

// nodeReady counts the pods of a node whose Ready condition changed.
func (m *pdbModel) nodeReady(n index.NodeID, ready bool) {
	if len(m.sels) == 0 {
		return
	}
	d := -1
	if ready {
		d = 1
	}
	for _, p := range m.e.c.PodsOn[n] {
		for _, k := range m.budgets(p) {
			m.healthy[k] += d
		}
	}
}

// desired is budget k's desiredHealthy.
func (m *pdbModel) desired(k int) int {
	return rules.DesiredHealthy(&m.e.c.PDBs[k], m.expected[k])
}

// allowed is budget k's disruptionsAllowed.
func (m *pdbModel) allowed(k int) int32 { return int32(max(0, m.healthy[k]-m.desired(k))) }

// publish writes every budget's status where the scheduler's preemption
// reads it.
func (m *pdbModel) publish() {
	for k := range m.sels {
		m.e.c.PDBs[k].DisruptionsAllowed = m.allowed(k)
	}
}

// evictResult is the Eviction API's answer.
type evictResult uint8

const (
	evicted evictResult = iota
	tooManyRequests
	refused
)

// evict is the Eviction API (pkg/registry/core/pod/storage/eviction.go)
// for a bound pod: refused when more than one budget selects it; else,
// with a budget, a ready pod (and an unready one unless the budget is
// met) needs disruptionsAllowed > 0, or the answer is 429 with the
// budget's words. An evicted pod is deleted at once.
func (e *Engine) evict(p index.PodID, cause int32) (evictResult, string) {
	ks := e.pdb.budgets(p)
	if len(ks) > 1 {
		return refused, "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
	}
	if len(ks) == 1 {
		k := int(ks[0])
		m := e.pdb
		node := e.c.Nodes[e.c.PodNode[p]].Name
		unhealthyOK := !e.ready(node) && m.healthy[k] >= m.desired(k) && m.desired(k) > 0
		if !unhealthyOK && m.allowed(k) == 0 {
			name := e.c.PDBs[k].Name
			why := fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", name)
			if m.healthy[k] <= m.desired(k) {
				why = fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", name, m.desired(k), m.healthy[k])
			}
			return tooManyRequests, "Cannot evict pod as it would violate the pod's disruption budget. " + why
		}
	}
	e.deletePod(p, delDrain, cause)
	return evicted, ""
}

// drain is one kubectl drain: its nodes cordoned, then drained one after
// another (RunDrain), each node's pods evicted at once and the blocked
// ones retried every EvictRetry until the node's timeout.
type drain struct {
	step    *Step
	nodes   []string
	cur     int
	timeout time.Duration
	// deadline ends the current node's drain (0: none).
	deadline time.Duration
	// waiting holds the pods of the current node still to evict, with the
	// engine's change count at their last refusal.
	waiting map[index.PodID]uint64
	// failed counts the current node's pods not evicted.
	failed int
	// results per node: "drained", or the error.
	results []drainResult
	stalled bool
}

type drainResult struct {
	Node      string  `json:"node"`
	Result    string  `json:"result"`
	StartedS  float64 `json:"started_s"`
	FinishedS float64 `json:"finished_s"`
	Evicted   int     `json:"evicted"`
	Blocked   int     `json:"eviction_refusals"`
}

// startDrain runs a drain step: cordon every node, then drain the first.
func (e *Engine) startDrain(st *Step, nodes []*nodeInfo) {
	d := &drain{step: st, timeout: e.cfg.DrainTimeout}
	if st.Timeout != nil {
		d.timeout = *st.Timeout
	}
	for _, ni := range nodes {
		e.setUnschedulable(ni, true, int32(st.Index))
		d.nodes = append(d.nodes, ni.name)
	}
	e.drains = append(e.drains, d)
	e.drainNode(d)
}

// drainNode starts on d's current node (DeleteOrEvictPods).
func (e *Engine) drainNode(d *drain) {
	for d.cur < len(d.nodes) {
		name := d.nodes[d.cur]
		r := drainResult{Node: name, StartedS: e.now.Seconds()}
		d.results = append(d.results, r)
		ni := e.node(name)
		if ni == nil {
			e.finishNode(d, fmt.Sprintf("nodes %q not found", name))
			continue
		}
		e.tl.add(e.now, "drain-started", "", name, "kubectl drain", int32(d.step.Index))
		var pods []index.PodID
		for _, p := range e.c.PodsOn[ni.id] {
			if o := e.c.Pods[p].Owner; o != nil && (o.Kind == "DaemonSet" || o.Kind == "Node") {
				continue // --ignore-daemonsets; mirror pods are never evicted
			}
			pods = append(pods, p)
		}
		slices.SortFunc(pods, func(a, b index.PodID) int { return strings.Compare(podKey(&e.c.Pods[a]), podKey(&e.c.Pods[b])) })
		d.waiting, d.failed, d.deadline = map[index.PodID]uint64{}, 0, 0
		if d.timeout > 0 {
			d.deadline = e.now + d.timeout
		}
		for _, p := range pods {
			d.waiting[p] = 0
		}
		for _, p := range pods {
			e.tryEvict(d, p)
		}
		if len(d.waiting) > 0 {
			return
		}
		e.finishNode(d, "")
	}
}

// tryEvict is one turn of kubectl's eviction loop for pod p.
func (e *Engine) tryEvict(d *drain, p index.PodID) {
	if _, ok := d.waiting[p]; !ok {
		return
	}
	r := &d.results[len(d.results)-1]
	if e.pods[p].deleted || e.c.PodNode[p] == index.NoNode {
		delete(d.waiting, p) // NotFound: done
		return
	}
	if d.deadline > 0 && e.now >= d.deadline {
		e.tl.add(e.now, "eviction-failed", podKey(&e.c.Pods[p]), r.Node, fmt.Sprintf("global timeout reached: %v", d.timeout), int32(d.step.Index))
		delete(d.waiting, p)
		d.failed++
		return
	}
	res, msg := e.evict(p, int32(d.step.Index))
	switch res {
	case evicted:
		r.Evicted++
		delete(d.waiting, p)
	case tooManyRequests:
		r.Blocked++
		e.rep.blocked(int32(d.step.Index))
		e.tl.add(e.now, "eviction-blocked", podKey(&e.c.Pods[p]), r.Node, msg+fmt.Sprintf(" (will retry after %v)", e.cfg.EvictRetry), int32(d.step.Index))
		d.waiting[p] = e.changes
		e.atRetry(e.now+e.cfg.EvictRetry, func() {
			e.tryEvict(d, p)
			if len(d.waiting) == 0 {
				// The node's last eviction: on to the next node.
				e.finishNode(d, "")
				e.drainNode(d)
			}
		})
	case refused:
		r.Blocked++
		e.rep.blocked(int32(d.step.Index))
		e.tl.add(e.now, "eviction-blocked", podKey(&e.c.Pods[p]), r.Node, msg+" (not retried)", int32(d.step.Index))
		delete(d.waiting, p)
		d.failed++
	}
}

// finishNode ends the current node's drain and moves to the next.
func (e *Engine) finishNode(d *drain, errText string) {
	r := &d.results[len(d.results)-1]
	r.FinishedS = e.now.Seconds()
	switch {
	case errText != "":
		r.Result = errText
	case d.failed > 0:
		r.Result = fmt.Sprintf("error: %d pod(s) not evicted", d.failed)
	default:
		r.Result = "drained"
	}
	e.tl.add(e.now, "drain-finished", "", r.Node, r.Result, int32(d.step.Index))
	d.cur++
}

// stalled reports whether the run can only go on retrying evictions that
// nothing can unblock: the next work is all drain retries, nothing else
// will happen, and nothing changed since each was refused.
func (e *Engine) stalled(t time.Duration) bool {
	if len(e.queue) == 0 || !e.queue[0].retry {
		return false
	}
	if _, ok := e.nlc.NextMonitor(t); ok {
		return false
	}
	if _, ok := e.nlc.NextTaintPass(t); ok {
		return false
	}
	if _, ok := e.tm.Next(); ok {
		return false
	}
	for _, ev := range e.queue {
		if !ev.retry {
			return false
		}
	}
	for _, d := range e.drains {
		if d.deadline > 0 && len(d.waiting) > 0 {
			return false // it ends at its timeout
		}
		for _, seen := range d.waiting {
			if seen != e.changes {
				return false
			}
		}
	}
	return true
}

// endStalled ends the drains that wait forever.
func (e *Engine) endStalled(t time.Duration) {
	e.now = t
	for _, d := range e.drains {
		if len(d.waiting) == 0 || d.cur >= len(d.nodes) {
			continue
		}
		d.stalled = true
		r := &d.results[len(d.results)-1]
		r.FinishedS = t.Seconds()
		r.Result = fmt.Sprintf("stalled: %d eviction(s) blocked by PodDisruptionBudgets with nothing left to unblock them", len(d.waiting))
		e.tl.add(t, "drain-stalled", "", r.Node, r.Result, int32(d.step.Index))
		for _, name := range d.nodes[d.cur+1:] {
			d.results = append(d.results, drainResult{Node: name, Result: "not reached: the drain stalled on " + r.Node})
		}
	}
	e.queue = e.queue[:0]
}

// podGC is the pod garbage collector's orphan handling (gcOrphaned): a
// pass every 20 s; a removed node whose pods it finds is quarantined for
// 40 s, then its pods are deleted.
type podGC struct {
	// quarantine holds each removed node's release time.
	quarantine map[string]time.Duration
	scheduled  bool
}

const (
	gcCheckPeriod  = 20 * time.Second
	quarantineTime = 40 * time.Second
)

// gcSoon schedules the pod GC's next pass.
func (e *Engine) gcSoon() {
	if e.gc.scheduled {
		return
	}
	e.gc.scheduled = true
	p := gcCheckPeriod
	t := (e.now + p - 1) / p * p
	e.at(t, e.gcPass)
}

func (e *Engine) gcPass() {
	e.gc.scheduled = false
	if e.gc.quarantine == nil {
		e.gc.quarantine = map[string]time.Duration{}
	}
	orphans := map[string][]index.PodID{}
	for pid := range e.pods {
		if info := &e.pods[pid]; !info.deleted && info.orphanNode != "" {
			orphans[info.orphanNode] = append(orphans[info.orphanNode], index.PodID(pid))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(orphans)) {
		release, ok := e.gc.quarantine[name]
		if !ok {
			e.gc.quarantine[name] = e.now + quarantineTime
			continue
		}
		if e.now < release {
			continue
		}
		delete(e.gc.quarantine, name)
		cause := int32(-1)
		if ni := e.nodes[name]; ni != nil {
			cause = ni.cause
		}
		for _, pid := range orphans[name] {
			e.deletePod(pid, delPodGC, cause)
		}
		delete(orphans, name)
	}
	if len(orphans) > 0 {
		e.gc.scheduled = true
		e.at(e.now+gcCheckPeriod, e.gcPass)
	}
}
