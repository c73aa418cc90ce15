package scenario

import (
	"slices"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

// commit is one of the scheduler's Bindings or Evictions, by node name.
type commit struct {
	evict bool
	pod   index.PodID
	node  string
	// preemptor is an eviction's preemptor.
	preemptor index.PodID
}

// State returns the cluster now as a model (what ingest would read from a
// dump of it): the nodes, with their taints and cordons; every pod that
// exists, bound where it runs (a pod of a removed node still names it
// until the pod GC deletes it) or pending; budgets with their status now;
// the classes, namespaces and selectors. Write it with
// export.WriteCluster or ingest.WriteSnapshot to chain runs.
func (e *Engine) State() *index.Input {
	e.pdb.publish()
	in := e.base0()
	for pid := range e.c.Pods {
		info := &e.pods[pid]
		if info.deleted {
			continue
		}
		p := e.c.Pods[pid]
		p.NodeName = info.orphanNode
		if n := e.c.PodNode[pid]; n != index.NoNode {
			p.NodeName = e.c.Nodes[n].Name
		}
		in.Pods = append(in.Pods, p)
	}
	return in
}

func (e *Engine) base0() *index.Input {
	c := e.c
	return &index.Input{Nodes: slices.Clone(c.Nodes), PriorityClasses: slices.Clone(c.PriorityClasses), PDBs: slices.Clone(c.PDBs),
		Namespaces: slices.Clone(c.Namespaces), Workloads: slices.Clone(c.Workloads), SkippedKinds: c.SkippedKinds}
}

// Replay returns what replays the run's placements against the state
// now (for oracle validate): the state with every pod the scheduler bound
// during the run pending again, and the pods it preempted still there;
// and the scheduler's Bindings and Evictions of those pods in commit
// order, over cluster c (the current one). Pods the scheduler placed that
// something else deleted later are left out of both (a preemptor with its
// Evictions), as are placements on nodes removed since. Valid as long as
// no later change made a node refuse a pod placed on it before, or changed
// what its filters counted (a drain after placements, or pods of a failed
// zone that a spread constraint counted, deleted after the placement).
func (e *Engine) Replay() (state *index.Input, c *index.Cluster, res *solver.Result) {
	c = e.c
	keep := make([]bool, len(c.Pods))
	res = &solver.Result{}
	kept := func(cm *commit) bool {
		info := &e.pods[cm.pod]
		_, ok := c.NodeByName[cm.node]
		return ok && (!info.deleted || info.preempted)
	}
	// A preemptor whose Binding is left out (deleted later) takes its
	// Evictions with it: they freed room for a pod the replay lacks.
	bound := map[index.PodID]bool{}
	for i := range e.commits {
		if cm := &e.commits[i]; !cm.evict && kept(cm) {
			bound[cm.pod] = true
		}
	}
	for i := range e.commits {
		cm := &e.commits[i]
		if !kept(cm) || cm.evict && !bound[cm.preemptor] {
			continue
		}
		n := c.NodeByName[cm.node]
		keep[cm.pod] = true
		action := solver.Bind
		if cm.evict {
			action = solver.Evict
		}
		res.Commits = append(res.Commits, solver.Commit{Action: action, Pod: cm.pod, Node: n, Preemptor: cm.preemptor})
	}
	state = e.base0()
	for pid := range c.Pods {
		info := &e.pods[pid]
		if info.deleted && !(info.preempted && keep[pid]) || c.Pods[pid].Rejected != "" {
			continue
		}
		p := c.Pods[pid]
		switch {
		case info.scheduled:
			p.NodeName = ""
		case info.boundAtStart != "":
			p.NodeName = info.boundAtStart
		default:
			p.NodeName = info.orphanNode
		}
		state.Pods = append(state.Pods, p)
	}
	return state, c, res
}

// Cluster returns the engine's cluster as it is now (read only): before
// Run, the state at the start.
func (e *Engine) Cluster() *index.Cluster { return e.c }
