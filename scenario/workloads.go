package scenario

import (
	"fmt"
	"slices"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
)

// Controllers: the pods a controller of the cluster creates during a run
// (a replacement, a scale-up, a new node's DaemonSet pod, an applied
// controller's pods) are the ones ingest.Expand makes: it is handed the
// controller, the live pods it owns and, for a DaemonSet, the nodes, and
// says what the controller would create from its template now. The engine
// then gives each pod its own name from its seeded generator (the
// controller's generateName and five characters; a StatefulSet's keeps its
// ordinal name), a new uid and the time now.

// wref names a controller.
type wref struct{ kind, ns, name string }

// controllers is what the engine keeps of the cluster's controllers.
type controllers struct {
	// byRef indexes Cluster.Workloads (built on first need).
	byRef map[wref]int
	// owned lists each controller's pods by controller reference, deleted
	// ones included (built on first need, kept by create).
	owned map[wref][]index.PodID
	// proto is the pod a ReplicaSet's or ReplicationController's template
	// gives (its replicas are alike: made once); nil when it gives none.
	proto map[int]*index.Pod
}

// workload returns the cluster's controller of kind ns/name (-1: none).
func (e *Engine) workload(kind, ns, name string) int {
	w := &e.ctl
	if w.byRef == nil {
		w.byRef = make(map[wref]int, len(e.c.Workloads))
		for i := range e.c.Workloads {
			x := &e.c.Workloads[i]
			if x.Kind != index.KindService {
				w.byRef[wref{x.Kind, x.Namespace, x.Name}] = i
			}
		}
	}
	if i, ok := w.byRef[wref{kind, ns, name}]; ok {
		return i
	}
	return -1
}

// addWorkloads appends controllers and Services to the cluster's.
func (e *Engine) addWorkloads(ws []index.Workload) {
	for _, w := range ws {
		e.c.Workloads = append(e.c.Workloads, w)
		if e.ctl.byRef != nil && w.Kind != index.KindService {
			e.ctl.byRef[wref{w.Kind, w.Namespace, w.Name}] = len(e.c.Workloads) - 1
		}
	}
}

// ownedPods returns the live pods whose controller reference names kind
// ns/name, in id order.
func (e *Engine) ownedPods(kind, ns, name string) []index.PodID {
	w := &e.ctl
	if w.owned == nil {
		w.owned = map[wref][]index.PodID{}
		for pid := range e.c.Pods {
			e.own(index.PodID(pid))
		}
	}
	var out []index.PodID
	for _, pid := range w.owned[wref{kind, ns, name}] {
		if !e.pods[pid].deleted {
			out = append(out, pid)
		}
	}
	return out
}

// own records a new pod under its controller (once ownedPods has built
// the index).
func (e *Engine) own(pid index.PodID) {
	if e.ctl.owned == nil {
		return
	}
	p := &e.c.Pods[pid]
	if p.Owner != nil && p.Rejected == "" {
		k := wref{p.Owner.Kind, p.Namespace, p.Owner.Name}
		e.ctl.owned[k] = append(e.ctl.owned[k], pid)
	}
}

// livePod is pod pid as an input pod: bound to its node, if any.
func (e *Engine) livePod(pid index.PodID) index.Pod {
	p := e.c.Pods[pid]
	p.NodeName = e.pods[pid].orphanNode
	if n := e.c.PodNode[pid]; n != index.NoNode {
		p.NodeName = e.c.Nodes[n].Name
	}
	return p
}

// expand runs ingest.Expand over ws, pods and nodes, and returns the pods
// created and the ReplicaSets Deployments of ws would create.
func (e *Engine) expand(ws []index.Workload, pods []index.Pod, nodes []index.Node) ([]index.Pod, []index.Workload, error) {
	in := &index.Input{Workloads: ws, Pods: pods, Nodes: nodes, PriorityClasses: e.c.PriorityClasses,
		Namespaces: slices.Clone(e.c.Namespaces)}
	n0, w0 := len(pods), len(ws)
	exp, err := ingest.Expand(in, ingest.ExpandOptions{Seed: e.cfg.Solve.Seed, AdmissionDefaults: e.cfg.Admission})
	if err != nil {
		return nil, nil, err
	}
	for _, msg := range exp.Warnings {
		e.warn("expand "+msg, msg)
	}
	return in.Pods[n0:], in.Workloads[w0:], nil
}

// controllerPod makes a pod a controller creates now from q (a pod
// ingest.Expand made): a new uid, created now, named by the engine: a
// StatefulSet's keeps its ordinal name, the others take their
// generateName (q's name but its five generated characters) and five
// characters of the seeded generator.
func (e *Engine) controllerPod(q *index.Pod) index.Pod {
	p := e.newPod(q)
	if q.Owner == nil || q.Owner.Kind != index.KindStatefulSet {
		p.Name = e.newName(q.Namespace, q.Name[:max(len(q.Name)-5, 0)])
	}
	return p
}

// fromTemplate appends to dst the pods p's controller creates when p is
// deleted (p is deleted already), and reports whether the controller is
// in the cluster with a template to make them (false: the caller copies
// p).
//
//   - ReplicaSet, ReplicationController: one pod, from the template.
//   - StatefulSet: the pod of p's ordinal (same name), when that ordinal
//     is still one of its replicas.
//   - Job: new pods while its active pods are fewer than its parallelism
//     and its completions are unmet (the Job controller's manageJob).
func (e *Engine) fromTemplate(dst []index.Pod, p *index.Pod) ([]index.Pod, bool) {
	o := p.Owner
	wi := e.workload(o.Kind, p.Namespace, o.Name)
	if wi < 0 || e.c.Workloads[wi].Template == nil {
		return dst, false
	}
	w := e.c.Workloads[wi]
	var made []index.Pod
	var err error
	switch o.Kind {
	case index.KindReplicaSet, index.KindReplicationController:
		if w.Replicas == 0 {
			return dst, true // scaled to zero: nothing to replace
		}
		proto, ok := e.ctl.proto[wi]
		if !ok {
			w.Replicas = 1
			made, _, err = e.expand([]index.Workload{w}, nil, nil)
			if err == nil && len(made) == 1 {
				proto = &made[0]
			}
			if e.ctl.proto == nil {
				e.ctl.proto = map[int]*index.Pod{}
			}
			e.ctl.proto[wi] = proto
		}
		if proto == nil {
			return e.templateFailed(dst, &w, err)
		}
		return append(dst, e.controllerPod(proto)), true
	case index.KindStatefulSet, index.KindJob:
		var live []index.Pod
		for _, pid := range e.ownedPods(o.Kind, p.Namespace, o.Name) {
			live = append(live, e.livePod(pid))
		}
		if made, _, err = e.expand([]index.Workload{w}, live, nil); err != nil {
			return e.templateFailed(dst, &w, err)
		}
		for i := range made {
			if o.Kind == index.KindJob || made[i].Name == p.Name {
				dst = append(dst, e.controllerPod(&made[i]))
			}
		}
		return dst, true
	}
	return dst, false
}

// templateFailed warns that w's template gives no pod: its replacements
// copy the deleted pods.
func (e *Engine) templateFailed(dst []index.Pod, w *index.Workload, err error) ([]index.Pod, bool) {
	msg := fmt.Sprintf("%s %s/%s: its template gives no pod: replacements copy the deleted pods", w.Kind, w.Namespace, w.Name)
	if err != nil {
		msg += " (" + err.Error() + ")"
	}
	e.warn("template "+w.Kind+w.Namespace+"/"+w.Name, msg)
	return dst, false
}

// daemonPods creates the pods the cluster's DaemonSets put on nodes (just
// added): one per node each selects, pinned to it by node affinity, for
// the scheduler to place.
func (e *Engine) daemonPods(nodes []index.Node, cause int32) error {
	for i := range e.c.Workloads {
		w := e.c.Workloads[i]
		if w.Kind != index.KindDaemonSet || w.Template == nil {
			continue
		}
		made, _, err := e.expand([]index.Workload{w}, nil, nodes)
		if err != nil {
			return err
		}
		for k := range made {
			e.create(e.controllerPod(&made[k]), cause, -1, "SuccessfulCreate: DaemonSet "+w.Name)
		}
	}
	return nil
}
