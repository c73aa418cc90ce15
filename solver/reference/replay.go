package reference

import (
	"github.com/kplace/kplace/index"
)

// A Replay plays a result's commits on a cluster one at a time and, between
// them, says whether a pod passes every filter on a node of the cluster as
// it is then. It is how a property of a result (any engine's) is checked
// step by step: see Inversion.
type Replay struct {
	st *state
}

// NewReplay starts a replay on c, which it modifies (Bind, Evict). cfg
// gives the default spread constraints and the InterPodAffinity arguments.
func NewReplay(c *index.Cluster, cfg Config) *Replay {
	st := &state{c: c, cfg: cfg, res: &Result{}, nsLabels: map[string]map[string]string{},
		demands: map[index.PodID]*index.Demand{}}
	for i := range c.Namespaces {
		st.nsLabels[c.Namespaces[i].Name] = c.Namespaces[i].Labels
	}
	return &Replay{st: st}
}

// Bind binds pending pod p to node n.
func (r *Replay) Bind(p index.PodID, n index.NodeID) { r.st.bind(p, n) }

// Evict takes bound pod p off its node.
func (r *Replay) Evict(p index.PodID) { r.st.unbind(p) }

// Fits reports whether pending pod p passes every filter on node n: its
// scheduling cycle's PreFilters over the cluster as it is, then the
// filters on n. The resource fit is tried first, alone, as it needs no
// PreFilter state and fails most often.
func (r *Replay) Fits(p index.PodID, n index.NodeID) bool {
	st := r.st
	lone := &cycle{st: st, pid: p, p: &st.c.Pods[p], d: st.demand(p)}
	if !lone.runFilter(fNodeResourcesFit, n).pass() || !lone.runFilter(fNodePorts, n).pass() {
		return false
	}
	cy := st.newCycle(p)
	return !cy.conflict && cy.filter(n).pass()
}

// An InversionCommit is one commit of a result, as Inversion reads it.
type InversionCommit struct {
	Evict bool
	Pod   index.PodID
	Node  index.NodeID
}

// An Inversion is a Binding that gave room to a pod while a pod of higher
// priority, left pending by the batch, passed every filter on that node.
type Inversion struct {
	// At is the Binding's index in the commits; Pod and Node what it
	// binds; Pending the higher-priority pod that fitted there.
	At      int
	Pod     index.PodID
	Node    index.NodeID
	Pending index.PodID
}

// FindInversion replays commits on c (the cluster before the batch; it is
// modified) and returns the first Binding of a pod q on a node n where one
// of pending (the pods the batch left unschedulable) of higher priority
// than q passes every filter just before q is bound: kplace's "no priority
// inversion" property is that there is none. It is checked at each Binding,
// not at the end: kube-scheduler never moves a pod it has placed, so room
// freed piece by piece by several preemptions, each piece too small for a
// pending pod, goes to the preemptors, and that pod may fit at the end if
// they were taken away.
func FindInversion(c *index.Cluster, cfg Config, commits []InversionCommit, pending []index.PodID) (Inversion, bool) {
	r := NewReplay(c, cfg)
	for i, cm := range commits {
		if cm.Evict {
			r.Evict(cm.Pod)
			continue
		}
		q := c.Pods[cm.Pod].Priority
		for _, p := range pending {
			if c.Pods[p].Priority > q && r.Fits(p, cm.Node) {
				return Inversion{At: i, Pod: cm.Pod, Node: cm.Node, Pending: p}, true
			}
		}
		r.Bind(cm.Pod, cm.Node)
	}
	return Inversion{}, false
}
