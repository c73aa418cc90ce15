package solver

import (
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// The pod-relative filters on a node, and the parking of the nodes they
// reject (see podrel.go).

// check runs the pod-relative filters of rc on node n: relOK, or the
// failing filter and the index of the counter in rc.deps (-1 when the
// failure is static: a missing label).
func (s *Solver) check(rc *relClass, n index.NodeID) (rules.Reason, int) {
	return s.checkSkip(rc, n, -1)
}

// checkSkip is check without the hard spread constraint rc.hard[skip]
// (none when skip < 0), which the caller has checked.
func (s *Solver) checkSkip(rc *relClass, n index.NodeID, skip int) (rules.Reason, int) {
	r := s.rel
	j := 0
	for i, h := range rc.hard {
		if i == skip {
			j++
			continue
		}
		k := r.counters[h.ctr]
		d := k.topo.Of[n]
		if d < 0 {
			return relMissingLabel, -1
		}
		if !rules.SkewOK(k.counts.at(d), h.self, rules.GlobalMin(k.min, k.domains, h.minDomains), h.maxSkew) {
			return relSpread, j
		}
		j++
	}
	if len(rc.aff) > 0 {
		exist, empty := true, true
		for _, id := range rc.aff {
			k := r.counters[id]
			d := k.topo.Of[n]
			if d < 0 {
				return relAffinity, -1
			}
			if k.counts.at(d) <= 0 {
				exist = false
			}
			if k.total > 0 {
				empty = false
			}
		}
		if !rules.AffinityOK(true, exist, empty, rc.affSelf) {
			return relAffinity, j
		}
	}
	j += len(rc.aff)
	for _, id := range rc.anti {
		k := r.counters[id]
		if d := k.topo.Of[n]; d >= 0 && k.counts.at(d) > 0 {
			return relAnti, j
		}
		j++
	}
	for _, id := range rc.repel {
		k := r.counters[id]
		if d := k.topo.Of[n]; d >= 0 && k.counts.at(d) > 0 {
			return relExisting, j
		}
		j++
	}
	return relOK, 0
}

// park sets e aside until counter rc.deps[j] relaxes (j < 0: for good).
func (rc *relClass) park(s *Solver, j int, e entry) {
	if j < 0 {
		return
	}
	if len(rc.parked[j]) == 0 {
		rc.seen[j] = s.rel.counters[rc.deps[j]].relax
	}
	rc.parked[j] = append(rc.parked[j], e)
}

// wake returns to the heap the parked entries whose counter relaxed.
func (s *Solver) wake(cl *class) {
	rc := cl.rel
	gen := s.c.Gen
	for j, id := range rc.deps {
		if len(rc.parked[j]) == 0 {
			continue
		}
		if k := s.rel.counters[id]; k.relax != rc.seen[j] {
			for _, e := range rc.parked[j] {
				if e.gen != gen[e.node] {
					continue
				}
				if cl.dom != nil {
					cl.dom.push(e)
				} else {
					cl.heap.push(e)
				}
			}
			rc.parked[j] = rc.parked[j][:0]
		}
	}
}

// unpark drops every parked entry (a build re-examines every node).
func (rc *relClass) unpark() {
	for j := range rc.parked {
		rc.parked[j] = rc.parked[j][:0]
	}
}

// relCounts adds, for a class that fits nowhere, the nodes rejected by the
// pod-relative filters (among those passing every other filter) to counts.
func (s *Solver) relCounts(rc *relClass, n index.NodeID, counts map[string]int) bool {
	f, _ := s.check(rc, n)
	if f == relOK {
		return false
	}
	counts[f.String()]++
	return true
}
