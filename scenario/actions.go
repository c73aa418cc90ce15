package scenario

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
	"github.com/kplace/kplace/nodelifecycle"
	"github.com/kplace/kplace/tainteviction"
)

// step runs one scenario step; an error stops the run (stepErr).
func (e *Engine) step(st *Step) {
	if err := e.runStep(st); err != nil {
		e.stepErr = fmt.Errorf("%s: steps[%d] (%s at %v): %w", e.sc.File, st.Index, st.Action, st.At, err)
	}
}

func (e *Engine) runStep(st *Step) error {
	cause := int32(st.Index)
	var nodes []*nodeInfo
	if st.Nodes.Text != "" {
		var err error
		if nodes, err = e.selectNodes(&st.Nodes); err != nil {
			return err
		}
	}
	before := map[string]bool{}
	for _, ni := range nodes {
		before[ni.name] = e.serving(ni)
	}
	var added []*nodeInfo
	switch st.Action {
	case ActTaint:
		for _, ni := range nodes {
			next := slices.DeleteFunc(slices.Clone(e.c.Nodes[ni.id].Taints), func(t index.Taint) bool {
				for _, r := range st.Remove {
					if t.Key == r.Key && (r.Effect == "" || t.Effect == r.Effect) {
						return true
					}
				}
				for _, a := range st.Add {
					if t.Key == a.Key && t.Effect == a.Effect {
						return true
					}
				}
				return false
			})
			e.setTaints(ni, append(next, st.Add...), "kubectl taint", cause)
			e.nlc.TaintsChanged(ni.name)
		}
	case ActCordon, ActUncordon:
		for _, ni := range nodes {
			e.setUnschedulable(ni, st.Action == ActCordon, cause)
		}
	case ActDrain:
		e.startDrain(st, nodes)
	case ActFailNodes:
		for _, ni := range nodes {
			if !ni.alive {
				continue
			}
			ni.alive, ni.cause = false, cause
			e.nlc.Fail(ni.name, e.now)
			e.tl.add(e.now, "node-failed", "", ni.name, "scenario: the kubelet stops posting node status", cause)
			e.changed = true
		}
	case ActRecoverNodes:
		for _, ni := range nodes {
			if ni.alive {
				continue
			}
			ni.alive, ni.cause = true, cause
			e.tl.add(e.now, "node-recovered", "", ni.name, "scenario: the kubelet posts node status again", cause)
			e.nlc.Recover(ni.name)
			e.changed = true
		}
	case ActRemoveNodes:
		remove := map[string]bool{}
		for _, ni := range nodes {
			remove[ni.name] = true
			ni.removed, ni.cause = true, cause
			e.tl.add(e.now, "node-removed", "", ni.name, "scenario: the Node object is deleted", cause)
			e.nlc.RemoveNode(ni.name)
			e.tm.NodeDeleted(ni.name)
		}
		for _, ni := range nodes { // pods of the removed nodes are no more on them
			if e.ready(ni.name) {
				for _, pid := range e.c.PodsOn[ni.id] {
					e.pdb.podUnhealthy(pid)
				}
			}
		}
		if err := e.rebuild(nil, remove); err != nil {
			return err
		}
		e.changes++
		e.changed = true
		e.gcSoon()
	case ActAddNodes:
		tmpl, err := e.template(st)
		if err != nil {
			return err
		}
		prefix := st.NamePrefix
		if prefix == "" {
			prefix = tmpl.Name + "-"
			if tmpl.Name == "" {
				prefix = "node-"
			}
		}
		var fresh []index.Node
		for i := range st.Count {
			n := tmpl
			n.Name = prefix + strconv.Itoa(i)
			n.Labels = map[string]string{}
			for k, v := range tmpl.Labels {
				n.Labels[k] = v
			}
			n.Labels["kubernetes.io/hostname"] = n.Name
			n.Taints = slices.Clone(tmpl.Taints)
			fresh = append(fresh, n)
		}
		if added, err = e.addNodes(fresh, cause); err != nil {
			return err
		}
	case ActScale:
		return e.scale(st)
	case ActApply:
		var err error
		if added, err = e.apply(st); err != nil {
			return err
		}
	}
	lost, gained := map[string]int64{}, map[string]int64{}
	for _, ni := range nodes {
		if b, a := before[ni.name], e.serving(ni); b != a {
			addCapacity(map[bool]map[string]int64{true: gained, false: lost}[a], ni)
		}
	}
	for _, ni := range added {
		if e.serving(ni) {
			addCapacity(gained, ni)
		}
	}
	e.rep.capacity(st, lost, gained, len(nodes)+len(added))
	return nil
}

func addCapacity(m map[string]int64, ni *nodeInfo) {
	m["nodes"]++
	for _, q := range ni.alloc {
		m[q.Name] += q.Value
	}
}

// serving reports whether a node takes pods: it exists, is not cordoned,
// its kubelet posts, and it has no NoSchedule or NoExecute taint it did not
// begin with, the controllers' condition taints aside.
func (e *Engine) serving(ni *nodeInfo) bool {
	if ni.removed || !ni.alive || e.c.Nodes[ni.id].Unschedulable {
		return false
	}
	for _, t := range e.c.Nodes[ni.id].Taints {
		switch {
		case t.Effect == index.EffectPreferNoSchedule:
		case t.Key == nodelifecycle.TaintUnreachable || t.Key == nodelifecycle.TaintNotReady || t.Key == nodelifecycle.TaintUnschedulable:
		case !slices.Contains(ni.initial, t):
			return false
		}
	}
	return true
}

// selectNodes resolves a selector over the nodes there now, in node order.
func (e *Engine) selectNodes(s *Selector) ([]*nodeInfo, error) {
	var out []*nodeInfo
	for i := range e.c.Nodes {
		n := &e.c.Nodes[i]
		if s.Match(n.Name, n.Labels) {
			out = append(out, e.nodes[n.Name])
		}
	}
	if len(out) == 0 {
		if s.Labels == nil {
			return nil, fmt.Errorf("no node named %q", s.Name)
		}
		return nil, fmt.Errorf("no node matches %q", s.Text)
	}
	return out, nil
}

// template reads an addNodes step's Node.
func (e *Engine) template(st *Step) (index.Node, error) {
	var in *index.Input
	var err error
	where := fmt.Sprintf("%s: steps[%d].addNodes.template", e.sc.File, st.Index)
	if st.TemplateFile != "" {
		path := st.TemplateFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(e.sc.Dir, path)
		}
		in, err = ingest.LoadMore([]string{path}, "", nil, e.c.PriorityClasses, ingest.Options{})
		where = path
	} else {
		in, err = ingest.LoadMore(nil, where, st.Template, e.c.PriorityClasses, ingest.Options{})
	}
	if err != nil {
		return index.Node{}, err
	}
	if len(in.Nodes) != 1 {
		return index.Node{}, fmt.Errorf("%s: want one Node, found %d", where, len(in.Nodes))
	}
	return in.Nodes[0], nil
}

// addNodes adds nodes (Ready, kubelets up) and makes the cluster anew.
func (e *Engine) addNodes(fresh []index.Node, cause int32) ([]*nodeInfo, error) {
	for _, n := range fresh {
		if e.node(n.Name) != nil {
			return nil, fmt.Errorf("node %q exists already", n.Name)
		}
	}
	if err := e.rebuild(fresh, nil); err != nil {
		return nil, err
	}
	var out []*nodeInfo
	for _, n := range fresh {
		id := e.c.NodeByName[n.Name]
		ni := &nodeInfo{name: n.Name, id: id, alive: true, initial: slices.Clone(n.Taints), cause: cause, labels: n.Labels, alloc: n.Allocatable}
		e.nodes[n.Name] = ni
		out = append(out, ni)
		e.nlc.AddNode(n.Name, n.Labels)
		e.tl.add(e.now, "node-added", "", n.Name, "scenario: a Node registers", cause)
		// doNoScheduleTaintingPass on the new node: one that registers
		// cordoned gets node.kubernetes.io/unschedulable.
		e.nlc.SyncNoSchedule(n.Name, n.Unschedulable)
		if len(tainteviction.NoExecuteTaints(n.Taints)) > 0 {
			e.tm.NodeUpdated(n.Name, n.Taints, nil, e.now, nil)
		}
	}
	e.changes++
	e.changed = true
	if err := e.daemonPods(fresh, cause); err != nil {
		return nil, err
	}
	return out, nil
}

// scale sets a workload's replicas. New pods come from its template
// (ingest.Expand over the workload and its live pods: a Deployment's
// current ReplicaSet, made when none matches; a StatefulSet's missing
// ordinals); a workload the cluster lacks grows by copies of its newest
// pod. The pods removed are those its controller picks (rankForDeletion).
func (e *Engine) scale(st *Step) error {
	cause := int32(st.Index)
	reason := "SuccessfulCreate: scale " + st.Kind + " " + st.Name + " to " + strconv.Itoa(st.Replicas)
	var pods []index.PodID
	for pid := range e.c.Pods {
		p := &e.c.Pods[pid]
		if !e.pods[pid].deleted && p.Namespace == st.Namespace && ownedBy(p, st.Kind, st.Name) {
			pods = append(pods, index.PodID(pid))
		}
	}
	wi := e.workload(st.Kind, st.Namespace, st.Name)
	if wi >= 0 {
		e.c.Workloads[wi].Replicas = int32(st.Replicas)
		defer e.syncReplicaSets(st)
	}
	switch n := len(pods); {
	case st.Replicas > n && wi >= 0 && e.c.Workloads[wi].Template != nil:
		ws := []index.Workload{e.c.Workloads[wi]}
		if st.Kind == index.KindDeployment {
			for i := range e.c.Workloads {
				if w := &e.c.Workloads[i]; w.Kind == index.KindReplicaSet && w.Namespace == st.Namespace && w.Owner != nil &&
					w.Owner.Kind == index.KindDeployment && w.Owner.Name == st.Name {
					ws = append(ws, *w)
				}
			}
		}
		live := make([]index.Pod, 0, n)
		for _, pid := range pods {
			live = append(live, e.livePod(pid))
		}
		made, rss, err := e.expand(ws, live, nil)
		if err != nil {
			return err
		}
		e.addWorkloads(rss)
		for k := range made {
			e.create(e.controllerPod(&made[k]), cause, -1, reason)
		}
	case st.Replicas > n:
		if n == 0 {
			return fmt.Errorf("%s %s/%s is not in the cluster and has no pod to copy", st.Kind, st.Namespace, st.Name)
		}
		newest := slices.MaxFunc(pods, func(a, b index.PodID) int {
			return cmp.Or(cmp.Compare(e.c.Pods[a].CreationUnix, e.c.Pods[b].CreationUnix), cmp.Compare(a, b))
		})
		tmpl := e.c.Pods[newest]
		ordinals := map[string]bool{}
		for _, pid := range pods {
			ordinals[e.c.Pods[pid].Name] = true
		}
		next := 0
		for range st.Replicas - n {
			q := e.newPod(&tmpl)
			if st.Kind == index.KindStatefulSet {
				for ordinals[st.Name+"-"+strconv.Itoa(next)] {
					next++
				}
				q.Name = st.Name + "-" + strconv.Itoa(next)
				ordinals[q.Name] = true
			} else {
				q.Name = e.newName(st.Namespace, tmpl.Owner.Name+"-")
			}
			e.create(q, cause, -1, reason)
		}
	case st.Replicas < n:
		e.rankForDeletion(st.Kind, pods)
		for _, pid := range pods[:n-st.Replicas] {
			e.deletePod(pid, delScale, cause)
		}
	}
	return nil
}

// syncReplicaSets sets the replicas of a scaled Deployment's ReplicaSets
// to the pods each has now (what the deployment controller converges to).
func (e *Engine) syncReplicaSets(st *Step) {
	if st.Kind != index.KindDeployment {
		return
	}
	for i := range e.c.Workloads {
		w := &e.c.Workloads[i]
		if w.Kind == index.KindReplicaSet && w.Namespace == st.Namespace && w.Owner != nil &&
			w.Owner.Kind == index.KindDeployment && w.Owner.Name == st.Name {
			w.Replicas = int32(len(e.ownedPods(w.Kind, w.Namespace, w.Name)))
		}
	}
}

// ownedBy reports whether a workload of kind and name controls p (a
// Deployment through its ReplicaSets, named name-HASH).
func ownedBy(p *index.Pod, kind, name string) bool {
	o := p.Owner
	if o == nil {
		return false
	}
	if kind == index.KindDeployment {
		hash, ok := strings.CutPrefix(o.Name, name+"-")
		return o.Kind == index.KindReplicaSet && ok && hash != "" && !strings.Contains(hash, "-")
	}
	return o.Kind == kind && o.Name == name
}

// rankForDeletion orders a workload's pods, the first to delete first:
// a StatefulSet's highest ordinal first; otherwise as the ReplicaSet
// controller picks them (getPodsToDelete: activePodsLess, each pod ranked
// by how many of the workload's pods share its node).
func (e *Engine) rankForDeletion(kind string, pods []index.PodID) {
	c := e.c
	if kind == index.KindStatefulSet {
		ord := func(p index.PodID) int {
			s := c.Pods[p].Name
			n, _ := strconv.Atoi(s[strings.LastIndexByte(s, '-')+1:])
			return n
		}
		slices.SortFunc(pods, func(a, b index.PodID) int { return cmp.Compare(ord(b), ord(a)) })
		return
	}
	onNode := map[int32]int{}
	for _, p := range pods {
		if n := c.PodNode[p]; n != index.NoNode {
			onNode[n]++
		}
	}
	rs := make([]rankedPod, len(pods))
	for i, pid := range pods {
		p := &c.Pods[pid]
		r := rankedPod{id: pid, created: p.CreationUnix, uid: p.UID}
		if n := c.PodNode[pid]; n != index.NoNode {
			// Bound pods run; they are ready while their node is (the node
			// lifecycle controller marks a not-ready node's pods not ready),
			// since they started.
			r.assigned, r.ready, r.rank, r.readySince = true, e.ready(c.Nodes[n].Name), onNode[n], p.StartUnix
		}
		rs[i] = r
	}
	now := e.base + int64(e.now/time.Second)
	slices.SortStableFunc(rs, func(a, b rankedPod) int {
		switch {
		case activePodsLess(&a, &b, now):
			return -1
		case activePodsLess(&b, &a, now):
			return 1
		}
		return 0
	})
	for i := range rs {
		pods[i] = rs[i].id
	}
}

// rankedPod is what the ReplicaSet controller ranks a pod by when it
// scales down (times in Unix seconds, 0: unset).
type rankedPod struct {
	id              index.PodID
	assigned, ready bool
	// rank is how many of the controller's pods are on the pod's node.
	rank                int
	readySince, created int64
	uid                 string
}

// activePodsLess is controller.ActivePodsWithRanks.Less (v1.36), the pod
// to delete first being the lesser: unassigned before assigned (every
// assigned pod is Running here), not ready before ready, more of the
// controller's pods on its node first, then, between ready pods, ready
// for less time, then created later, where times compare by their
// base-2 logarithmic age bucket (LogarithmicScaleDown, on since v1.22)
// and the uid breaks ties. The pod-deletion-cost annotation and restart
// counts are not read (every pod counts 0).
func activePodsLess(a, b *rankedPod, now int64) bool {
	if a.assigned != b.assigned {
		return !a.assigned
	}
	if a.ready != b.ready {
		return !a.ready
	}
	if a.rank != b.rank {
		return a.rank > b.rank
	}
	if a.ready && b.ready && a.readySince != b.readySince {
		if d, ok := logRankDiff(a.readySince, b.readySince, now); ok {
			if d == 0 {
				return a.uid < b.uid
			}
			return d < 0
		}
		return afterOrZero(a.readySince, b.readySince)
	}
	if a.created != b.created {
		if d, ok := logRankDiff(a.created, b.created, now); ok {
			if d == 0 {
				return a.uid < b.uid
			}
			return d < 0
		}
		return afterOrZero(a.created, b.created)
	}
	return false
}

// afterOrZero: t1 is after t2, an unset time being after any.
func afterOrZero(t1, t2 int64) bool {
	if t1 == 0 || t2 == 0 {
		return t1 == 0
	}
	return t1 > t2
}

// logRankDiff is logarithmicRankDiff: the difference of the base-2
// logarithms of the ages (in nanoseconds, -1 for an age not above 0) of
// two times at now; false when a time or now is unset.
func logRankDiff(t1, t2, now int64) (int64, bool) {
	if t1 == 0 || t2 == 0 || now == 0 {
		return 0, false
	}
	r := func(t int64) int64 {
		if d := time.Duration(now-t) * time.Second; d > 0 {
			return int64(math.Log2(float64(d)))
		}
		return -1
	}
	return r(t1) - r(t2), true
}

// apply adds a file's objects: pods (pending, or bound when they name a
// node), nodes, PodDisruptionBudgets, PriorityClasses, namespaces,
// Services, and controllers, with the pods they create now.
func (e *Engine) apply(st *Step) ([]*nodeInfo, error) {
	cause := int32(st.Index)
	path := st.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.sc.Dir, path)
	}
	in, err := ingest.LoadMore([]string{path}, "", nil, e.c.PriorityClasses, ingest.Options{AdmissionDefaults: e.cfg.Admission})
	if err != nil {
		return nil, err
	}
	for kind, n := range in.SkippedKinds {
		e.warn("apply "+path+kind, fmt.Sprintf("%s: %d object(s) of kind %s not applied", path, n, kind))
	}
	if in.OtherScheduler > 0 {
		e.warn("apply "+path+" other", fmt.Sprintf("%s: %d pending pod(s) for another scheduler skipped", path, in.OtherScheduler))
	}
	for _, pc := range in.PriorityClasses {
		if i := slices.IndexFunc(e.c.PriorityClasses, func(x index.PriorityClass) bool { return x.Name == pc.Name }); i >= 0 {
			e.c.PriorityClasses[i] = pc
		} else {
			e.c.PriorityClasses = append(e.c.PriorityClasses, pc)
		}
	}
	for _, ns := range in.Namespaces {
		if !slices.ContainsFunc(e.c.Namespaces, func(x index.Namespace) bool { return x.Name == ns.Name }) {
			e.c.Namespaces = append(e.c.Namespaces, ns)
		}
	}
	var added []*nodeInfo
	if len(in.Nodes) > 0 { // the cluster's DaemonSets get pods there
		if added, err = e.addNodes(in.Nodes, cause); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	for i := range in.Workloads {
		w := &in.Workloads[i]
		if w.Kind != index.KindService && e.workload(w.Kind, w.Namespace, w.Name) >= 0 {
			return nil, fmt.Errorf("%s: %s %s/%s exists already", path, w.Kind, w.Namespace, w.Name)
		}
	}
	for _, b := range in.PDBs {
		if slices.ContainsFunc(e.c.PDBs, func(x index.PDB) bool { return x.Namespace == b.Namespace && x.Name == b.Name }) {
			return nil, fmt.Errorf("%s: PodDisruptionBudget %s/%s exists already", path, b.Namespace, b.Name)
		}
		e.c.PDBs = append(e.c.PDBs, b)
		e.pdb.addBudget(len(e.c.PDBs) - 1)
	}
	live := map[string]bool{}
	for pid := range e.c.Pods {
		if !e.pods[pid].deleted {
			live[podKey(&e.c.Pods[pid])] = true
		}
	}
	for _, p := range in.Pods {
		if p.Rejected != "" {
			e.tl.add(e.now, "pod-rejected", podKey(&p), "", p.Rejected, cause)
			continue
		}
		if live[podKey(&p)] {
			return nil, fmt.Errorf("%s: pod %s exists already", path, podKey(&p))
		}
		if p.NodeName != "" && e.node(p.NodeName) == nil {
			return nil, fmt.Errorf("%s: pod %s is bound to node %q, which does not exist", path, podKey(&p), p.NodeName)
		}
		if p.CreationUnix == 0 {
			p.CreationUnix = e.base + int64(e.now.Seconds())
		}
		e.create(p, cause, -1, "apply "+st.File)
	}
	return added, e.applyControllers(in.Workloads, path, cause)
}

// applyControllers adds an applied file's controllers (and Services) and
// creates the pods they create now (ingest.Expand over the cluster's live
// pods and nodes: a ReplicaSet adopts the orphans its selector matches, a
// DaemonSet gets a pod for each node it selects).
func (e *Engine) applyControllers(ws []index.Workload, path string, cause int32) error {
	if !slices.ContainsFunc(ws, func(w index.Workload) bool { return w.Kind != index.KindService }) {
		e.addWorkloads(ws)
		return nil
	}
	// Controllers claim pods of their namespace only; DaemonSets need the
	// nodes.
	nss := map[string]bool{}
	var nodes []index.Node
	for i := range ws {
		nss[ws[i].Namespace] = true
		if ws[i].Kind == index.KindDaemonSet && nodes == nil {
			nodes = slices.Clone(e.c.Nodes)
		}
	}
	var live []index.Pod
	for pid := range e.c.Pods {
		if !e.pods[pid].deleted && nss[e.c.Pods[pid].Namespace] {
			live = append(live, e.livePod(index.PodID(pid)))
		}
	}
	made, rss, err := e.expand(slices.Clone(ws), live, nodes)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	e.addWorkloads(ws)
	e.addWorkloads(rss)
	for k := range made {
		q := &made[k]
		e.create(e.controllerPod(q), cause, -1, "SuccessfulCreate: "+q.Owner.Kind+" "+q.Owner.Name)
	}
	return nil
}
