package reference

import (
	"slices"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Freed room goes to higher priorities first (the fast solver's
// reclaim.go): kube-scheduler moves its unschedulable pods back to the
// active queue when an event may make them schedulable, and the active
// queue pops by priority, so what an event opens is offered first to the
// pods of higher priority left unschedulable. Every node that loses pods
// to an eviction is logged (once per run of victims on it). Before a pod
// of priority p is placed, and before a preemptor of priority p is bound
// on the room its victims freed, each placement key with pods left
// unschedulable and priority above p looks at what changed since it last
// failed or looked: when one of the nodes logged since passes its static
// filters and has room for its demand, or, for a key whose filters read
// other pods (a DoNotSchedule spread constraint, a required pod affinity
// or anti-affinity term, or another pod's required anti-affinity term
// that matches it), when any pod was bound or evicted since, its pods get
// placement turns, in queue order across keys, a key stopping at its first
// pod that does not place; after each placement the keys look again.

// reclaimKey is a placement key's part in reclaim: its pending entries
// waiting for room (indexes into Result.Pending, in queue order), the
// evicted nodes and the commits it has seen, whether its filters read
// other pods, a pod of it.
type reclaimKey struct {
	waiting    []int
	seen       int
	commits    int
	relational bool
	pod        index.PodID
}

// waitFor records pod pid left unschedulable as pending entry at: it
// failed with every logged node and every pod as they are now.
func (st *state) waitFor(pid index.PodID, at int) {
	st.res.Pending = append(st.res.Pending, Pending{Pod: pid, Kind: unschedulable})
	k := st.keyOf(pid)
	rk, ok := st.reclaims[k]
	if !ok {
		if st.reclaims == nil {
			st.reclaims = map[string]*reclaimKey{}
		}
		cy := st.newCycle(pid)
		rk = &reclaimKey{pod: pid, relational: len(cy.hard) > 0 || len(cy.aff) > 0 || len(cy.anti) > 0 || len(st.repelsOf(cy.p)) > 0}
		st.reclaims[k] = rk
		st.failedKeys = append(st.failedKeys, k)
		if rk.relational {
			st.relationalKeys++
		}
	}
	rk.seen, rk.commits = len(st.evictedLog), len(st.res.Commits)
	rk.waiting = append(rk.waiting, at)
}

// logEvictions logs the nodes victims leave, a node once per run of
// victims on it.
func (st *state) logEvictions(victims []index.PodID) {
	last := index.NodeID(1<<32 - 1)
	for _, v := range victims {
		if n := index.NodeID(st.c.PodNode[v]); n != last {
			st.evictedLog = append(st.evictedLog, n)
			last = n
		}
	}
}

// reclaim gives what changed to the pods left unschedulable with priority
// above above, and returns how many it placed. A call finds nothing new to
// look at when no node was logged and no commit made since the last one
// and its bound is not lower.
func (st *state) reclaim(above int32) int {
	if len(st.evictedLog) == st.lastLog && len(st.res.Commits) == st.lastCommits && above >= st.lastAbove {
		return 0
	}
	st.lastLog, st.lastCommits, st.lastAbove = len(st.evictedLog), len(st.res.Commits), above
	hopeful := st.lookAgain(above, nil)
	placed := 0
	for len(hopeful) > 0 {
		first := 0
		for i := range hopeful {
			if hopeful[i].waiting[0] < hopeful[first].waiting[0] {
				first = i
			}
		}
		rk := hopeful[first]
		at := rk.waiting[0]
		pid := st.res.Pending[at].Pod
		n, score, ok := st.newCycle(pid).place()
		if ok {
			st.bind(pid, n)
			st.res.Commits = append(st.res.Commits, Commit{Pod: pid, Node: n, Score: score})
			st.res.Pending[at].Kind = reclaimed
			rk.waiting = rk.waiting[1:]
			placed++
		}
		if !ok || len(rk.waiting) == 0 {
			hopeful = append(hopeful[:first], hopeful[first+1:]...)
		}
		if ok {
			st.lastCommits = len(st.res.Commits)
			hopeful = st.lookAgain(above, hopeful)
		}
	}
	return placed
}

// lookAgain appends to hopeful the keys, not in it yet, with pods waiting
// and priority above above, that may place now (see reclaim).
func (st *state) lookAgain(above int32, hopeful []*reclaimKey) []*reclaimKey {
	for _, k := range st.failedKeys {
		rk := st.reclaims[k]
		if len(rk.waiting) == 0 || st.c.Pods[rk.pod].Priority <= above || slices.Contains(hopeful, rk) {
			continue
		}
		use := false
		if rk.seen != len(st.evictedLog) {
			nodes := st.evictedLog[rk.seen:]
			rk.seen = len(st.evictedLog)
			use = st.couldUse(rk.pod, nodes)
		}
		if rk.relational && rk.commits != len(st.res.Commits) {
			rk.commits = len(st.res.Commits)
			use = true
		}
		if use {
			hopeful = append(hopeful, rk)
		}
	}
	return hopeful
}

// couldUse reports whether one of nodes passes pod pid's static filters and
// has room for its demand (resources, pod count, host ports).
func (st *state) couldUse(pid index.PodID, nodes []index.NodeID) bool {
	cy := st.newCycle(pid)
	if cy.conflict {
		return false
	}
	for _, n := range nodes {
		if cy.staticFilter(&st.c.Nodes[n]) == rules.None && cy.fitsNow(n) {
			return true
		}
	}
	return false
}
