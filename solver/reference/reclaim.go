package reference

import (
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Freed room goes to higher priorities first (the fast solver's
// reclaim.go): kube-scheduler moves its unschedulable pods back to the
// active queue when a pod is deleted, and the active queue pops by
// priority, so the room a preemption's evictions free beyond what the
// preemptor takes is offered first to the pods of higher priority left
// unschedulable. Every node that loses pods to an eviction is logged (once
// per run of victims on it). Before a pod of priority p is placed, and
// before a preemptor of priority p is bound on the room its victims freed,
// each placement key with pods left unschedulable and priority above p
// looks at the nodes logged since it last looked: when one of them passes
// its static filters and has room for its demand, its pods get placement
// turns, in queue order across keys, a key stopping at its first pod that
// does not place.

// reclaimKey is a placement key's part in reclaim: its pending entries
// waiting for room (indexes into Result.Pending, in queue order), the
// evicted nodes it has looked at, a pod of it.
type reclaimKey struct {
	waiting []int
	seen    int
	pod     index.PodID
}

// waitFor records pod pid left unschedulable as pending entry at.
func (st *state) waitFor(pid index.PodID, at int) {
	st.res.Pending = append(st.res.Pending, Pending{Pod: pid, Kind: unschedulable})
	k := st.keyOf(pid)
	rk, ok := st.reclaims[k]
	if !ok {
		if st.reclaims == nil {
			st.reclaims = map[string]*reclaimKey{}
		}
		rk = &reclaimKey{seen: len(st.evictedLog), pod: pid} // it failed with every logged node as it is now
		st.reclaims[k] = rk
		st.failedKeys = append(st.failedKeys, k)
	}
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

// reclaim gives the room freed by evictions to the pods left unschedulable
// with priority above above, and returns how many it placed. A call finds
// nothing new to look at when no node was logged since the last one and
// its bound is not lower.
func (st *state) reclaim(above int32) int {
	if len(st.evictedLog) == st.lastLog && above >= st.lastAbove {
		return 0
	}
	st.lastLog, st.lastAbove = len(st.evictedLog), above
	var hopeful []*reclaimKey
	for _, k := range st.failedKeys {
		rk := st.reclaims[k]
		if len(rk.waiting) == 0 || rk.seen == len(st.evictedLog) || st.c.Pods[rk.pod].Priority <= above {
			continue
		}
		nodes := st.evictedLog[rk.seen:]
		rk.seen = len(st.evictedLog)
		if st.couldUse(rk.pod, nodes) {
			hopeful = append(hopeful, rk)
		}
	}
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
	}
	return placed
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
