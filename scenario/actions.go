package scenario

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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
		if len(tainteviction.NoExecuteTaints(n.Taints)) > 0 {
			e.tm.NodeUpdated(n.Name, n.Taints, nil, e.now, nil)
		}
	}
	e.changes++
	e.changed = true
	return out, nil
}

// scale sets a workload's replicas: new pods copy its newest pod (until
// workloads are read, a workload without a live pod cannot grow); the
// pods removed are those its controller would pick.
func (e *Engine) scale(st *Step) error {
	cause := int32(st.Index)
	var pods []index.PodID
	for pid := range e.c.Pods {
		p := &e.c.Pods[pid]
		if !e.pods[pid].deleted && p.Namespace == st.Namespace && ownedBy(p, st.Kind, st.Name) {
			pods = append(pods, index.PodID(pid))
		}
	}
	switch n := len(pods); {
	case st.Replicas > n:
		if n == 0 {
			return fmt.Errorf("%s %s/%s has no pod to copy (workloads are not read yet: scale grows a workload from one of its pods)", st.Kind, st.Namespace, st.Name)
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
			if st.Kind == "StatefulSet" {
				for ordinals[st.Name+"-"+strconv.Itoa(next)] {
					next++
				}
				q.Name = st.Name + "-" + strconv.Itoa(next)
				ordinals[q.Name] = true
			} else {
				q.Name = e.newName(st.Namespace, tmpl.Owner.Name+"-")
			}
			e.create(q, cause, -1, "SuccessfulCreate: scale "+st.Kind+" "+st.Name+" to "+strconv.Itoa(st.Replicas))
		}
	case st.Replicas < n:
		e.rankForDeletion(st.Kind, pods)
		for _, pid := range pods[:n-st.Replicas] {
			e.deletePod(pid, delScale, cause)
		}
	}
	return nil
}

// ownedBy reports whether a workload of kind and name controls p (a
// Deployment through its ReplicaSets, named name-HASH).
func ownedBy(p *index.Pod, kind, name string) bool {
	o := p.Owner
	if o == nil {
		return false
	}
	if kind == "Deployment" {
		hash, ok := strings.CutPrefix(o.Name, name+"-")
		return o.Kind == "ReplicaSet" && ok && hash != "" && !strings.Contains(hash, "-")
	}
	return o.Kind == kind && o.Name == name
}

// rankForDeletion orders a workload's pods, the first to delete first:
// a StatefulSet's highest ordinal first; otherwise as the ReplicaSet
// controller ranks them (getPodsToDelete): unscheduled, then on a node
// not Ready, then on a node with more of the workload's pods, then the
// newest.
func (e *Engine) rankForDeletion(kind string, pods []index.PodID) {
	c := e.c
	if kind == "StatefulSet" {
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
		onNode[c.PodNode[p]]++
	}
	key := func(p index.PodID) (int, int, int, int64) {
		n := c.PodNode[p]
		if n == index.NoNode {
			return 0, 0, 0, 0
		}
		ready := 1
		if !e.ready(c.Nodes[n].Name) {
			ready = 0
		}
		return 1, ready, -onNode[n], -c.Pods[p].CreationUnix
	}
	slices.SortStableFunc(pods, func(a, b index.PodID) int {
		a1, a2, a3, a4 := key(a)
		b1, b2, b3, b4 := key(b)
		return cmp.Or(cmp.Compare(a1, b1), cmp.Compare(a2, b2), cmp.Compare(a3, b3), cmp.Compare(a4, b4), cmp.Compare(b, a))
	})
}

// apply adds a file's objects: pods (pending, or bound when they name a
// node), nodes, PodDisruptionBudgets, PriorityClasses, namespaces, and the
// selectors of Services and controllers. The controllers' missing pods are
// not created: a warning counts the controllers.
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
	controllers := map[string]int{}
	for i := range in.Workloads {
		if k := in.Workloads[i].Kind; k != index.KindService {
			controllers[k]++
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(controllers)) {
		e.warn("apply "+path+kind, fmt.Sprintf("%s: %d %s(s) not applied (an applied file's controllers are not expanded: apply their pods)", path, controllers[kind], kind))
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
	e.c.Workloads = append(e.c.Workloads, in.Workloads...)
	var added []*nodeInfo
	if len(in.Nodes) > 0 {
		if added, err = e.addNodes(in.Nodes, cause); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
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
	return added, nil
}
