package solver

import (
	"cmp"
	"slices"

	"github.com/kplace/kplace/index"
)

// podEnt is one bound pod in a node's importance-ordered list (see
// nodePods): what the preemption dry run reads of it, kept beside its
// neighbours so that a dry run does not chase the pods' records.
type podEnt struct {
	start int64 // startOf
	pod   index.PodID
	prio  int32
	req   int32 // offset of the pod's requests in preemption.demVals
	nreq  uint8 // their number
	pdb   bool  // the pod matches at least one PodDisruptionBudget
	ports bool  // the pod has host ports
}

// nodeList is a node's bound pods, most important first (priority
// descending, then start ascending, then pod id), as of generation gen.
type nodeList struct {
	ents  []podEnt
	gen   uint32
	valid bool
}

// nodePods returns node n's bound pods, most important first, building
// the list again when the node changed since. Pods of priority below a
// preemptor's are a suffix of it, in the order selectVictims wants them.
func (s *Solver) nodePods(n index.NodeID) []podEnt {
	pr := &s.pre
	if pr.lists == nil {
		pr.lists = make([]nodeList, s.c.NumNodes())
	}
	l := &pr.lists[n]
	if l.valid && l.gen == s.c.Gen[n] {
		return l.ents
	}
	c := s.c
	pd := s.pdbs()
	ents := l.ents[:0]
	for _, q := range c.PodsOn[n] {
		pp := &c.Pods[q]
		s.podReq(q)
		e := podEnt{start: startOf(pp), pod: q, prio: pp.Priority, req: pr.demOff[q] - 1, nreq: pr.demLen[q], ports: len(pp.HostPorts) > 0}
		if pd != nil {
			e.pdb = len(pd.of(s, q)) > 0
		}
		ents = append(ents, e)
	}
	slices.SortFunc(ents, func(a, b podEnt) int {
		if a.prio != b.prio {
			return cmp.Compare(b.prio, a.prio)
		}
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		return cmp.Compare(a.pod, b.pod)
	})
	l.ents, l.gen, l.valid = ents, c.Gen[n], true
	return ents
}

// lowerSuffix returns the pods of ents (most important first) with
// priority below prio.
func lowerSuffix(ents []podEnt, prio int32) []podEnt {
	lo, hi := 0, len(ents)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ents[m].prio >= prio {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return ents[lo:]
}
