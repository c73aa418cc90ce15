package scenario

import (
	"slices"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/nodelifecycle"
	"github.com/kplace/kplace/solver"
	"github.com/kplace/kplace/tainteviction"
)

// How a pod went.
type delKind uint8

const (
	delTaintManager delKind = iota // the taint manager deleted it
	delDrain                       // kubectl drain evicted it
	delPreempted                   // the scheduler preempted it
	delPodGC                       // its node was removed
	delScale                       // its workload was scaled down
)

// event and reason of each kind, as Kubernetes names them.
var delEvent = [...]struct{ event, reason string }{
	delTaintManager: {"pod-deleted", "TaintManagerEviction"},
	delDrain:        {"pod-evicted", "EvictionByEvictionAPI"},
	delPreempted:    {"pod-preempted", "PreemptionByScheduler"},
	delPodGC:        {"pod-deleted", "DeletionByPodGC"},
	delScale:        {"pod-deleted", "SuccessfulDelete"},
}

// node returns the live node named name, nil when it is not there.
func (e *Engine) node(name string) *nodeInfo {
	if ni := e.nodes[name]; ni != nil && !ni.removed {
		return ni
	}
	return nil
}

// ready reports whether a node's Ready condition is True.
func (e *Engine) ready(name string) bool { return e.nlc.Ready(name) == nodelifecycle.ReadyTrue }

// setTaints gives a node new taints (by reason, for cause), logs the
// change and tells the taint manager when its NoExecute taints changed.
func (e *Engine) setTaints(ni *nodeInfo, taints []index.Taint, reason string, cause int32) {
	old := e.c.Nodes[ni.id].Taints
	var added, removed []index.Taint
	for _, t := range old {
		if !slices.Contains(taints, t) {
			removed = append(removed, t)
		}
	}
	for _, t := range taints {
		if !slices.Contains(old, t) {
			added = append(added, t)
		}
	}
	if len(added) == 0 && len(removed) == 0 {
		return
	}
	oldNoExec := tainteviction.NoExecuteTaints(old)
	e.c.SetTaints(ni.id, taints)
	for _, t := range removed {
		e.tl.taint(e.now, "taint-removed", ni.name, TaintString(t), reason, cause)
	}
	for _, t := range added {
		e.tl.taint(e.now, "taint-added", ni.name, TaintString(t), reason, cause)
	}
	e.changes++
	e.changed = true
	if !slices.Equal(oldNoExec, tainteviction.NoExecuteTaints(taints)) {
		ni.cause = cause
		var pods []tainteviction.Pod[index.PodID]
		for _, pid := range e.c.PodsOn[ni.id] {
			pods = append(pods, tainteviction.Pod[index.PodID]{Key: pid, Tolerations: e.c.Pods[pid].Tolerations})
		}
		for _, ch := range e.tm.NodeUpdated(ni.name, taints, pods, e.now, nil) {
			e.taintOutcome(ch, ni.name)
		}
	}
}

// taintOutcome acts on what the taint manager decided for a pod on node.
func (e *Engine) taintOutcome(ch tainteviction.Change[index.PodID], node string) {
	cause := int32(-1)
	if ni := e.nodes[node]; ni != nil {
		cause = ni.cause
	}
	switch ch.Outcome {
	case tainteviction.DeleteNow:
		e.deletePod(ch.Key, delTaintManager, cause)
	case tainteviction.Scheduled:
		e.workerCause[ch.Key] = cause
	case tainteviction.Cancelled:
		delete(e.workerCause, ch.Key)
		e.tl.add(e.now, "deletion-cancelled", podKey(&e.c.Pods[ch.Key]), node, "TaintManagerEviction", cause)
	}
}

// setUnschedulable cordons or uncordons a node; the node lifecycle
// controller then sets the node.kubernetes.io/unschedulable taint.
func (e *Engine) setUnschedulable(ni *nodeInfo, v bool, cause int32) {
	if e.c.Nodes[ni.id].Unschedulable == v {
		return
	}
	e.c.SetUnschedulable(ni.id, v)
	ev := "node-uncordoned"
	if v {
		ev = "node-cordoned"
	}
	reason := "NodeSchedulable"
	if v {
		reason = "NodeNotSchedulable"
	}
	e.tl.add(e.now, ev, "", ni.name, reason, cause)
	e.changes++
	e.changed = true
	ni.cause = cause
	e.nlc.SyncNoSchedule(ni.name, v)
}

// deletePod deletes a pod (bound or pending) the way how says.
func (e *Engine) deletePod(pid index.PodID, how delKind, cause int32) {
	if e.pods[pid].deleted {
		return
	}
	node := e.pods[pid].orphanNode
	if n := e.c.PodNode[pid]; n != index.NoNode {
		node = e.c.Nodes[n].Name
		e.pdb.podGone(pid, e.ready(node))
		d := e.c.DemandOf(&e.c.Pods[pid])
		e.c.Unbind(pid, &d)
	} else {
		e.pdb.podGone(pid, false)
	}
	e.gone(pid, node, how, "", cause)
}

// deleteUnbound records the deletion of a pod the scheduler has already
// taken off node (a preemption victim).
func (e *Engine) deleteUnbound(pid index.PodID, node string, how delKind, detail string, cause int32) {
	if e.pods[pid].deleted {
		return
	}
	e.pdb.podGone(pid, e.ready(node))
	e.gone(pid, node, how, detail, cause)
}

// gone finishes a deletion: the pod is gone from the API, its work
// cancelled, and its controller makes a replacement.
func (e *Engine) gone(pid index.PodID, node string, how delKind, detail string, cause int32) {
	info := &e.pods[pid]
	info.deleted = true
	delete(e.pending, pid)
	e.tm.PodDeleted(pid)
	delete(e.workerCause, pid)
	e.changes++
	e.changed = true
	reason := delEvent[how].reason
	if detail != "" {
		reason += ": " + detail
	}
	p := e.c.Pods[pid]
	e.tl.add(e.now, delEvent[how].event, podKey(&p), node, reason, cause)
	if how == delScale {
		return
	}
	e.rep.displaced(pid, how, cause)
	// The buffer is taken while in use: a replacement bound at once can be
	// deleted (and replaced) inside create.
	qs := e.replacementsOf(e.repl[:0], &p)
	e.repl = nil
	if len(qs) == 0 {
		e.rep.lost(cause)
	}
	for i, q := range qs {
		if i == 0 {
			e.create(q, cause, pid, "SuccessfulCreate: replaces "+podKey(&p))
		} else { // a Job short of its parallelism makes up the rest too
			e.create(q, cause, -1, "SuccessfulCreate: Job "+p.Owner.Name+" below its parallelism")
		}
	}
	e.repl = qs[:0]
}

// create adds a pod made during the run (pending, or bound when it names
// a node).
func (e *Engine) create(q index.Pod, cause int32, replaces index.PodID, reason string) index.PodID {
	node := q.NodeName
	q.NodeName = ""
	pid := e.c.AddPod(q)
	e.pods = append(e.pods, podInfo{cause: cause, replaces: replaces})
	e.own(pid)
	if e.names != nil {
		e.names[podKey(&q)] = true
	}
	e.changes++
	e.changed = true
	e.tl.add(e.now, "pod-created", podKey(&q), "", reason, cause)
	e.pdb.podAdded(pid)
	e.rep.created(pid)
	if ni := e.node(node); ni != nil {
		d := e.c.DemandOf(&e.c.Pods[pid])
		e.c.Bind(pid, ni.id, &d)
		e.pdb.podBound(pid, ni.id)
		e.tl.add(e.now, "pod-bound", podKey(&q), node, "NodeName", cause)
		ch := e.tm.PodUpdated(tainteviction.Pod[index.PodID]{Key: pid, Tolerations: q.Tolerations}, node, e.now)
		e.taintOutcome(ch, node)
	} else {
		e.pending[pid] = true
	}
	return pid
}

// lifecycleView is the engine as the node lifecycle controller sees the
// cluster.
type lifecycleView Engine

func (v *lifecycleView) Taints(name string) []index.Taint {
	e := (*Engine)(v)
	if ni := e.node(name); ni != nil {
		return e.c.Nodes[ni.id].Taints
	}
	return nil
}

func (v *lifecycleView) SwapTaints(name string, add, remove []index.Taint) {
	e := (*Engine)(v)
	ni := e.node(name)
	if ni == nil {
		return
	}
	next := slices.DeleteFunc(slices.Clone(e.c.Nodes[ni.id].Taints), func(t index.Taint) bool {
		for _, r := range append(slices.Clip(remove), add...) {
			if t.Key == r.Key && t.Effect == r.Effect {
				return true
			}
		}
		return false
	})
	e.setTaints(ni, append(next, add...), "NodeLifecycleController", ni.cause)
}

func (v *lifecycleView) ReadyChanged(name string, ready nodelifecycle.Status) {
	e := (*Engine)(v)
	ni := e.node(name)
	if ni == nil {
		return
	}
	if ready == nodelifecycle.ReadyTrue {
		e.tl.add(e.now, "node-ready", "", name, "KubeletReady", ni.cause)
	} else {
		e.tl.add(e.now, "node-not-ready", "", name, "NodeStatusUnknown: Kubelet stopped posting node status.", ni.cause)
	}
	e.pdb.nodeReady(ni.id, ready == nodelifecycle.ReadyTrue)
	e.changes++
	e.nlc.SyncNoSchedule(name, e.c.Nodes[ni.id].Unschedulable)
}

func (v *lifecycleView) ZoneChanged(zone string, from, to nodelifecycle.ZoneState) {
	e := (*Engine)(v)
	e.tl.zone(e.now, nodelifecycle.ZoneName(zone), string(to))
}

// rebuild makes the cluster anew after nodes were added or removed: the
// same pods in the same order (ids stay), bound where they are, the nodes
// of remove gone (their pods orphaned), add appended.
func (e *Engine) rebuild(add []index.Node, remove map[string]bool) error {
	c := e.c
	in := &index.Input{PriorityClasses: c.PriorityClasses, PDBs: c.PDBs, Namespaces: c.Namespaces, Workloads: c.Workloads,
		SkippedKinds: c.SkippedKinds, OtherScheduler: c.OtherScheduler, FinishedPods: c.FinishedPods}
	for i := range c.Nodes {
		if !remove[c.Nodes[i].Name] {
			in.Nodes = append(in.Nodes, c.Nodes[i])
		}
	}
	in.Nodes = append(in.Nodes, add...)
	exists := map[string]bool{}
	for i := range in.Nodes {
		exists[in.Nodes[i].Name] = true
	}
	in.Pods = slices.Clone(c.Pods)
	var rebound []index.PodID
	for i := range in.Pods {
		p, info := &in.Pods[i], &e.pods[i]
		p.NodeName = ""
		if info.deleted {
			continue
		}
		name := info.orphanNode
		if n := c.PodNode[i]; n != index.NoNode {
			name = c.Nodes[n].Name
		}
		if exists[name] {
			p.NodeName = name
			if info.orphanNode != "" { // its node is back: bound to it again
				info.orphanNode = ""
				rebound = append(rebound, index.PodID(i))
			}
		} else {
			info.orphanNode = name // its node is gone: the pod GC will delete it
		}
	}
	nc, err := index.Build(in)
	if err != nil {
		return err
	}
	e.c = nc
	for i := range nc.Nodes {
		if ni := e.nodes[nc.Nodes[i].Name]; ni != nil {
			ni.id = index.NodeID(i)
		}
	}
	e.sess = solver.NewSession(nc, e.cfg.Solve)
	for _, pid := range rebound {
		e.pdb.podBound(pid, index.NodeID(nc.PodNode[pid]))
	}
	return nil
}
