package solver

import (
	"fmt"

	"github.com/cespare/xxhash/v2"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Session solves a sequence of batches over one cluster that changes
// between them, as a live cluster does (pods deleted, created, bound;
// taints and cordons changed, through index.Cluster's methods): each batch
// places the pods in c.Pending at that moment, with everything Solve does,
// and gives the same result as Solve on the cluster as it is then.
//
// Between batches it keeps what it derived from the cluster that the
// changes leave valid, so a small batch on a large cluster does not pay
// for the whole cluster again: the records of every node (refreshing the
// nodes in c.Changes since), and, when no pod has pod-relative terms, the
// equivalence classes with their heaps and templates, and their groups'
// static feasibility, brought up to date with the taint and cordon
// changes (c.Static) node by node. A group whose static scores a change
// touches (PreferNoSchedule taints, or a node it scores becoming feasible
// or not) is dropped and made again. A class's heap holds at least
// sessionKeep entries once it is built a second time, and its builds
// visit the nodes by a bound of their score and stop early (levels.go).
// It also keeps the cluster's lower-priority sums whole, where a lone
// Solve narrows them as its queue goes down in priority.
//
// The nodes must stay the same: after nodes are added or removed, build a
// new cluster and a new Session. Not safe for concurrent use.
type Session struct {
	c      *index.Cluster
	cfg    Config
	arrays *nodeArrays
	// s is the last batch's solver when its classes can be kept.
	s *Solver
	// cursor and static are how much of c.Changes and c.Static the kept
	// state has seen.
	cursor, static int
}

// NewSession starts a session over c.
func NewSession(c *index.Cluster, cfg Config) *Session {
	if !cfg.NoPreemption {
		c.EnsureLow()
	}
	return &Session{c: c, cfg: cfg, static: len(c.Static)}
}

// Solve places the pods of c.Pending, as Solve does, and returns the
// result; c is updated.
func (ss *Session) Solve() *Result {
	c := ss.c
	var s *Solver
	switch {
	case ss.arrays == nil:
		s = newSolver(c, ss.cfg)
		s.lv = newBoundLevels(s.hot, s.cfg.Strategy)
	default:
		if len(ss.arrays.hot) != c.NumNodes() {
			panic(fmt.Sprintf("solver: a session over %d nodes given a cluster of %d", len(ss.arrays.hot), c.NumNodes()))
		}
		if s = ss.s; s != nil {
			s.nextBatch()
		} else {
			s = baseSolver(c, ss.cfg)
			s.nodeArrays = *ss.arrays
		}
		for _, ch := range c.Changes[ss.cursor:] {
			if ch.Gen == c.Gen[ch.Node] { // the node's last change
				s.refreshNode(ch.Node)
			}
		}
		if ss.s != nil {
			s.followStatic(c.Static[ss.static:])
		}
	}
	s.session = true
	res := s.solve()
	arrays := s.nodeArrays // not the solver itself: the batch's state goes
	ss.arrays = &arrays
	ss.s = nil
	if s.rel == nil && !ss.cfg.RequeueEvicted {
		ss.s = s
	}
	ss.cursor, ss.static = len(c.Changes), len(c.Static)
	return res
}

// sessionKeep is how many entries a session's class heap holds at least
// from its second build on: a class's next pods come in later batches,
// after other classes took the best nodes, and a deeper heap lasts more of
// them before the next scan (a zone failure at 10,000 nodes: 5,215 builds
// in its first 1,000 batches with 16, 2,630 with 256).
const sessionKeep = 256

// nextBatch readies a kept solver for the next batch: the per-batch state
// goes, the classes and groups stay with their per-batch counts reset.
func (s *Solver) nextBatch() {
	s.rebuilds, s.builds, s.splitClasses, s.twinBuilds, s.templates, s.bucketed = 0, 0, 0, 0, 0, 0
	s.pre = preemption{}
	s.pdb, s.pdbIndex = nil, nil
	s.minPrio = s.c.MinPriority
	s.rel, s.nodeTopo, s.relCand = nil, nil, nil
	s.evictions = 0
	s.cross = crossState{}
	s.reclaims = reclaimState{hopeful: s.reclaims.hopeful[:0]}
	for _, cl := range s.classes {
		if cl != nil { // nil: dropped (followStatic)
			cl.pods, cl.failures, cl.failedAfter, cl.retryFailed, cl.reason, cl.nodes, cl.pre = 0, 0, 0, false, "", nil, nil
			cl.listed, cl.waiting, cl.evSeen = false, cl.waiting[:0], 0
		}
	}
	for _, g := range s.groupOf {
		g.pods, g.failures = 0, 0
	}
}

// forget drops every kept class and group.
func (s *Solver) forget() {
	s.classes, s.classIdx, s.groupOf = nil, keyIndex{}, nil
	s.tmplEntries = 0
}

// Where a group's filters put a node, in kube-scheduler's filter order.
const (
	catAbsent   = iota // outside NodeAffinity's PreFilter names
	catUnsched         // cordoned, not tolerated
	catTaint           // an untolerated NoSchedule or NoExecute taint
	catAffinity        // node selector or required affinity not matched
	catFeasible
)

// category places node n, with taints and cordon unsched, for group g;
// pns counts its untolerated PreferNoSchedule taints.
func (g *group) category(n index.NodeID, taints []index.Taint, unsched bool) (cat int, pns int32) {
	if g.names != nil && !g.names.Contains(n) {
		return catAbsent, 0
	}
	bad := rules.TaintFilter(taints, g.tols) != rules.None
	pns = int32(rules.IntolerablePreferNoSchedule(taints, g.tols))
	switch {
	case unsched && !g.unschedTol:
		return catUnsched, pns
	case bad:
		return catTaint, pns
	case g.aff != nil && g.aff[n>>6]&(1<<(n&63)) == 0,
		g.affNodes != nil && !g.affNodes.Contains(n):
		return catAffinity, pns
	}
	return catFeasible, pns
}

// followStatic brings the kept groups up to date with taint and cordon
// changes: each changed node moves between the filters' counts and in or
// out of the feasible set, as a new group would count it. The node's
// change is in c.Changes, so heaps and templates re-score or drop it. A
// group whose static scores the change touches is dropped.
func (s *Solver) followStatic(log []index.StaticChange) {
	if len(log) == 0 || len(s.groupOf) == 0 {
		return
	}
	c := s.c
	first := map[index.NodeID]*index.StaticChange{} // a node's state at the last batch
	var order []index.NodeID
	for i := range log {
		if _, ok := first[log[i].Node]; !ok {
			first[log[i].Node] = &log[i]
			order = append(order, log[i].Node)
		}
	}
	drop := map[*group]bool{}
	for _, g := range s.groupOf {
		for _, n := range order {
			old := first[n]
			oc, op := g.category(n, old.Taints, old.Unschedulable)
			nc, np := g.category(n, c.Nodes[n].Taints, c.Nodes[n].Unschedulable)
			if oc == nc && op == np {
				continue
			}
			scored := g.rawTT != nil || g.rawNA != nil
			if op != np || scored && (oc == catFeasible) != (nc == catFeasible) {
				drop[g] = true
				break
			}
			g.count(oc, -1)
			g.count(nc, 1)
			if nc == catFeasible {
				g.dense[n>>6] |= 1 << (n & 63)
			} else {
				g.dense[n>>6] &^= 1 << (n & 63)
			}
			g.runsOf = nil // its feasible runs (runs.go) are made again
		}
	}
	if len(drop) == 0 {
		return
	}
	for g := range drop {
		delete(s.groupOf, g.key)
		for k, t := range g.tmpl {
			if t != nil {
				s.tmplEntries -= t.entries
			}
			delete(g.tmpl, k)
		}
	}
	for id, cl := range s.classes {
		if cl != nil && drop[cl.g] {
			s.classIdx.remove(xxhash.Sum64(cl.key), cl.key, int32(id))
			s.classes[id] = nil
		}
	}
}

// count adds d to the count of category cat.
func (g *group) count(cat, d int) {
	switch cat {
	case catUnsched:
		g.nUnsched += d
	case catTaint:
		g.nTaint += d
	case catAffinity:
		g.nAffinity += d
	case catFeasible:
		g.feasCard += d
	}
}

// remove forgets key (hash h), which had id.
func (x *keyIndex) remove(h uint64, key []byte, id int32) {
	if got, ok := x.byHash[h]; ok && got == id {
		delete(x.byHash, h)
		return
	}
	if got, ok := x.overflow[string(key)]; ok && got == id {
		delete(x.overflow, string(key))
	}
}
