package solver

import (
	"math"
	"slices"

	"github.com/kplace/kplace/index"
)

// Freed room goes to higher priorities first.
//
// kube-scheduler moves its unschedulable pods back to the active queue when
// an event may make them schedulable (its queueing hints): a pod deleted
// frees room, a pod added may satisfy a required pod affinity or raise a
// spread constraint's minimum, a pod deleted may lift an anti-affinity
// conflict or lower a domain's count. The active queue pops by priority,
// so what such an event opens is offered to the pending pods of higher
// priority before any pod of lower priority is tried, even to pods that
// may not preempt (preemptionPolicy Never): the room a preemption's
// evictions free beyond what the preemptor takes (victims are whole pods),
// and the nodes a lower-priority pod's placement makes feasible for a pod
// whose affinity needs it. A preemptor whose room a higher-priority pod
// took tries again: it places if room is left, else it preempts again.
//
// The batch does the same, without a rescan. Every node that loses a pod
// to eviction is logged (evicted), and every relaxation of a counter that
// a class left unschedulable reads in its pod-relative filters is counted
// (watch). Before a pod of priority p is placed, and before a preemptor of
// priority p is bound on the room its victims freed, every class with pods
// left unschedulable and priority above p looks at what changed since it
// last failed or looked: if one of the nodes logged since is statically
// feasible for it and has room for its demand, or a counter its filters
// read relaxed (relSig moved), its pods get a placement turn (the exact
// placement decides). The turns go in queue order across classes (a
// pending pod's index in Result.Pending is its queue position), a class
// stopping at its first pod that does not place (its other pods are
// alike); a placement that relaxes watched counters makes the classes that
// read them look again. The property this keeps (the "no priority
// inversion" test, reference.FindInversion): before the batch ends, no
// room is given to a pod while a pod of higher priority left
// unschedulable passes every filter there.

// reclaimState logs the evicted nodes and the classes waiting for room.
type reclaimState struct {
	// evicted lists the nodes that lost pods to eviction, in order.
	evicted []index.NodeID
	// failed lists the classes that left a pod unschedulable, in order of
	// their first failure; relational those of them whose pod-relative
	// filters read counters (class.rel.deps).
	failed, relational []*class
	// watch counts the relaxations of the counters relational classes
	// read (counter.watch points here).
	watch uint64
	// A reclaim found nothing new to look at when no node was logged and
	// no watched counter relaxed since the last one, and its priority
	// bound was not lower (the queue runs in priority order, so the bound
	// never rises).
	lastLog   int
	lastWatch uint64
	lastAbove int32
	hopeful   []*class // scratch
}

// logEvictions records that the nodes of victims lost pods (a node once
// per run of victims on it).
func (r *reclaimState) logEvictions(c *index.Cluster, victims []index.PodID) {
	last := index.NodeID(math.MaxUint32)
	for _, v := range victims {
		if n := index.NodeID(c.PodNode[v]); n != last {
			r.evicted = append(r.evicted, n)
			last = n
		}
	}
}

// waitFor records that pending entry at of res.Pending is cl's pod left
// unschedulable: it failed with every logged node and every counter as
// they are now.
func (s *Solver) waitFor(cl *class, at int) {
	r := &s.reclaims
	relational := watchesCounters(cl)
	if !cl.listed {
		cl.listed = true
		r.failed = append(r.failed, cl)
		if relational {
			r.relational = append(r.relational, cl)
			for _, id := range cl.rel.deps {
				s.rel.counters[id].watch = &r.watch
			}
		}
	}
	cl.evSeen = len(r.evicted)
	if relational {
		cl.relSeen = s.relSig(cl)
	}
	cl.waiting = append(cl.waiting, int32(at))
}

// reclaim gives the room freed by evictions, and the nodes that
// pod-relative changes may let pass, to the pods left unschedulable with
// priority above above, in queue order, and returns how many it placed.
// Placed pods' pending entries are marked reclaimedPending.
func (s *Solver) reclaim(res *Result, above int32) int {
	r := &s.reclaims
	if s.cfg.noReclaim {
		return 0
	}
	newLog, newWatch, lower := len(r.evicted) != r.lastLog, r.watch != r.lastWatch, above < r.lastAbove
	if !newLog && !newWatch && !lower {
		return 0
	}
	r.lastLog, r.lastWatch, r.lastAbove = len(r.evicted), r.watch, above
	look := r.relational
	if newLog || lower {
		look = r.failed
	}
	hopeful := s.lookAgain(look, above, r.hopeful[:0])
	placed := 0
	for len(hopeful) > 0 {
		first := 0
		for i := 1; i < len(hopeful); i++ {
			if hopeful[i].waiting[0] < hopeful[first].waiting[0] {
				first = i
			}
		}
		cl := hopeful[first]
		at := cl.waiting[0]
		pid := res.Pending[at].Pod
		n, score, ok := s.place(cl, pid)
		if ok {
			res.Commits = append(res.Commits, Commit{Action: Bind, Pod: pid, Node: n, Score: score})
			res.Pending[at].Kind = reclaimedPending
			res.Reclaimed++
			cl.waiting = cl.waiting[1:]
			cl.failures--
			cl.g.failures--
			placed++
		}
		if !ok || len(cl.waiting) == 0 {
			hopeful[first] = hopeful[len(hopeful)-1]
			hopeful = hopeful[:len(hopeful)-1]
		}
		if ok && r.watch != r.lastWatch {
			// The placement relaxed counters that waiting classes read.
			r.lastWatch = r.watch
			hopeful = s.lookAgain(r.relational, above, hopeful)
		}
	}
	r.hopeful = hopeful[:0]
	return placed
}

// watchesCounters reports whether cl's pod-relative filters read counters
// (rel.deps): their relaxations may let it place.
func watchesCounters(cl *class) bool { return cl.rel != nil && len(cl.rel.deps) > 0 }

// lookAgain appends to hopeful the classes of list, not in it yet, with
// pods waiting and priority above above, that may place now: one of the
// nodes logged since they last looked is statically feasible and has room
// for their demand, or a counter their pod-relative filters read relaxed.
func (s *Solver) lookAgain(list []*class, above int32, hopeful []*class) []*class {
	r := &s.reclaims
	for _, cl := range list {
		if len(cl.waiting) == 0 || s.c.Pods[cl.rep].Priority <= above || slices.Contains(hopeful, cl) {
			continue
		}
		use := false
		if cl.evSeen != len(r.evicted) {
			nodes := r.evicted[cl.evSeen:]
			cl.evSeen = len(r.evicted)
			use = s.couldUse(cl, nodes)
		}
		if watchesCounters(cl) {
			if sig := s.relSig(cl); sig != cl.relSeen {
				cl.relSeen = sig
				use = true
			}
		}
		if use {
			hopeful = append(hopeful, cl)
		}
	}
	return hopeful
}

// couldUse reports whether one of nodes is statically feasible for cl and
// has room for its demand (resources, pod count, host ports).
func (s *Solver) couldUse(cl *class, nodes []index.NodeID) bool {
	if cl.g.conflict {
		return false
	}
	dense := cl.g.dense
	for _, n := range nodes {
		if dense[n>>6]&(1<<(n&63)) != 0 && s.fits(n, cl) {
			return true
		}
	}
	return false
}

// dropReclaimed removes the pending entries that reclaim placed, and their
// classes from failedAt (the class of each Unschedulable entry, in order).
func dropReclaimed(res *Result, failedAt []int32) []int32 {
	if res.Reclaimed == 0 {
		return failedAt
	}
	k, keep, keepAt := 0, res.Pending[:0], failedAt[:0]
	for _, pd := range res.Pending {
		switch pd.Kind {
		case Unschedulable:
			keepAt = append(keepAt, failedAt[k])
			k++
		case reclaimedPending:
			k++
			continue
		}
		keep = append(keep, pd)
	}
	res.Pending = keep
	return keepAt
}

// preemptAndBind preempts for pid, which fits nowhere, and binds it on the
// room its victims freed, once the pods of higher priority left
// unschedulable have had that room (reclaim). When they took some, pid
// places again, or preempts again if nothing is left for it.
func (s *Solver) preemptAndBind(cl *class, pid index.PodID, res *Result, rq *requeueHeap) (index.NodeID, int64, bool) {
	prio := s.c.Pods[pid].Priority
	for {
		n, ok := s.preemptFor(cl, pid, res, rq)
		if !ok {
			return 0, 0, false
		}
		if s.reclaim(res, prio) == 0 {
			score := s.score(cl, n)
			s.bindPod(pid, n, &cl.demand)
			s.relPlaced(cl, pid, n, 1)
			res.Preemptions++
			return n, score, true
		}
		if n, score, ok := s.place(cl, pid); ok {
			res.Preemptions++
			return n, score, true
		}
	}
}
