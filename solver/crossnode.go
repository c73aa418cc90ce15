package solver

import (
	"math/bits"
	"slices"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Cross-node preemption (Config.CrossNodePreemption), beyond
// kube-scheduler: a pod whose only obstacle on a node is a required
// anti-affinity term (its own, or an existing pod's) or a DoNotSchedule
// spread skew may evict lower-priority pods anywhere in the node's topology
// domain of that constraint, not only on the node.
//
// The nodes tried are those of the class's feasible set where the pod fits
// now (ports, resources) and the first pod-relative filter that fails is
// spread skew, the pod's anti-affinity or existing pods' anti-affinity.
// On such a node, repeatedly, until the node passes every pod-relative
// filter: the failing constraint's domain (the node's value of its
// topology key) gives the victims: for anti-affinity every pod there that
// the term counts (all must have a priority below the preemptor's, or the
// node is given up); for spread the fewest pods that bring the domain's
// count down to the skew allowed (count + self - min <= maxSkew), taken
// among the domain's matching pods of lower priority, least important
// first (priority, then latest start), those whose eviction violates no
// PodDisruptionBudget first. The victims leave the counters
// hypothetically (relMove) before the next check. The node's candidate
// has kube-scheduler's criteria (PDB violations, highest victim priority,
// sum of priorities, count, start of the highest-priority victims); nodes
// whose domains are all the same as an earlier node's give the same
// victims and are skipped (the earlier, lower node id wins ties). The
// best cross-node candidate is used only when it beats kube-scheduler's
// preemption (preempt) on those criteria; on a tie the node-local one
// wins.
//
// Not done: combining the two (evicting on the node for resources and in
// the domain for a constraint), nodes failing a resource or port filter,
// required pod affinity, and constraints of other pods broken by the
// evictions (as in kube-scheduler, evicting pods never re-checks the pods
// that stay).

// crossState is the cross-node scratch of a solver.
type crossState struct {
	// lists caches, for one preemptor, each (counter, domain)'s pods,
	// least important first.
	lists map[[2]int32][]index.PodID
	seen  map[string]bool
	key   []byte
	taken map[index.PodID]bool
	vs    []index.PodID
	best  []index.PodID
	ents  []podEnt
}

// crossPreempt finds the best cross-node candidate for pod pid of class cl
// (see above): the candidate and its victims (most important first, in a
// buffer reused by the next call).
func (s *Solver) crossPreempt(cl *class, pid index.PodID) (candidate, []index.PodID, bool) {
	rc := cl.rel
	if rc == nil || len(rc.hard)+len(rc.anti)+len(rc.repel) == 0 {
		return candidate{}, nil, false
	}
	s.await(cl.g)
	x := &s.cross
	if x.lists == nil {
		x.lists, x.seen, x.taken = map[[2]int32][]index.PodID{}, map[string]bool{}, map[index.PodID]bool{}
	}
	clear(x.lists)
	clear(x.seen)
	prio := s.c.Pods[pid].Priority
	var best candidate
	found := false
	for wi, word := range cl.g.dense {
		for ; word != 0; word &= word - 1 {
			n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if !s.fits(n, cl) {
				continue
			}
			if f, _ := s.check(rc, n); f != relSpread && f != relAnti && f != relExisting {
				continue
			}
			x.key = x.key[:0]
			for _, id := range rc.deps {
				d := s.rel.counters[id].topo.Of[n]
				x.key = append(x.key, byte(d), byte(d>>8), byte(d>>16), byte(d>>24))
			}
			if x.seen[string(x.key)] {
				continue
			}
			x.seen[string(x.key)] = true
			cand, ok := s.crossEval(rc, n, prio)
			if ok && (!found || betterCand(&cand, &best)) {
				best, found = cand, true
				x.best = append(x.best[:0], x.vs...)
			}
		}
	}
	return best, x.best, found
}

// crossEval finds the victims in node n's domains that let the pod (of
// priority prio) pass rc's filters on n, leaving them in s.cross.vs, most
// important first; the counters are as before when it returns.
func (s *Solver) crossEval(rc *relClass, n index.NodeID, prio int32) (candidate, bool) {
	x := &s.cross
	r := s.rel
	vs := x.vs[:0]
	ok := false
	pd := s.pdbs()
	if pd != nil && len(pd.allowed) > 0 {
		s.pre.stampNow++
	}
	for range len(rc.deps) + 1 {
		f, j := s.check(rc, n)
		if f == relOK {
			ok = true
			break
		}
		if f != relSpread && f != relAnti && f != relExisting {
			break
		}
		id := rc.deps[j]
		k := r.counters[id]
		d := k.topo.Of[n]
		need := int(k.counts.at(d))
		if f == relSpread {
			h := &rc.hard[j]
			need = int(rules.SkewExcess(k.counts.at(d), h.self, rules.GlobalMin(k.min, k.domains, h.minDomains), h.maxSkew))
		}
		before := len(vs)
		list := s.domainPods(id, d)
		if f != relSpread && slices.ContainsFunc(list, func(q index.PodID) bool { return !x.taken[q] && s.c.Pods[q].Priority >= prio }) {
			break // every pod the term counts must go, and this one cannot
		}
		for pass := 0; pass < 2 && len(vs)-before < need; pass++ {
			for _, q := range list {
				if len(vs)-before == need {
					break
				}
				if x.taken[q] || s.c.Pods[q].Priority >= prio {
					continue
				}
				if pass == 0 && s.crossViolates(q, false) {
					continue // first the pods whose eviction violates no budget
				}
				s.crossViolates(q, true)
				x.taken[q] = true
				vs = append(vs, q)
				s.relMove(q, index.NodeID(s.c.PodNode[q]), -1)
			}
		}
		if len(vs)-before != need {
			break
		}
	}
	for _, q := range vs {
		s.relMove(q, index.NodeID(s.c.PodNode[q]), 1)
		delete(x.taken, q)
	}
	x.vs = vs
	if !ok || len(vs) == 0 {
		return candidate{}, false
	}
	return s.crossCandidate(n), true
}

// crossViolates reports whether evicting q now violates a budget (one it
// matches has no disruption left in this evaluation); with take it spends
// them.
func (s *Solver) crossViolates(q index.PodID, take bool) bool {
	pd := s.pdbs()
	if pd == nil || len(pd.allowed) == 0 {
		return false
	}
	pr := &s.pre
	v := false
	for _, k := range pd.of(s, q) {
		if pr.stamp[k] != pr.stampNow {
			pr.stamp[k], pr.local[k] = pr.stampNow, pd.allowed[k]
		}
		if pr.local[k] <= 0 {
			v = true
		}
		if take {
			pr.local[k]--
		}
	}
	return v
}

// crossCandidate sorts s.cross.vs most important first and returns the
// candidate for node n with kube-scheduler's criteria over those victims.
func (s *Solver) crossCandidate(n index.NodeID) candidate {
	x := &s.cross
	ents := x.ents[:0]
	for _, q := range x.vs {
		ents = append(ents, s.entOf(q))
	}
	slices.SortFunc(ents, func(a, b podEnt) int {
		if moreImportant(&a, &b) {
			return -1
		}
		return 1
	})
	x.ents = ents
	out := evaluated(n, s.c.Gen[n], s.pgenOf(n))
	pd := s.pdbs()
	if pd != nil && len(pd.allowed) > 0 {
		s.pre.stampNow++
	}
	for i := range ents {
		e := &ents[i]
		x.vs[i] = e.Pod
		out.add(e, s.crossViolates(e.Pod, true))
	}
	return out
}

// domainPods returns the bound pods counter id counts in domain d, least
// important first (cached for one preemptor).
func (s *Solver) domainPods(id int32, d int32) []index.PodID {
	x := &s.cross
	if l, ok := x.lists[[2]int32{id, d}]; ok {
		return l
	}
	k := s.rel.counters[id]
	var ents []podEnt
	one := [1]index.NodeID{index.NodeID(d)} // a per-node domain's node
	members := one[:]
	if k.topo.Key != "" {
		members = k.topo.Members(d)
	}
	for _, m := range members {
		if !k.eligible(m) {
			continue
		}
		for _, q := range s.c.PodsOn[m] {
			if s.movesOn(q, m, id) {
				ents = append(ents, s.entOf(q))
			}
		}
	}
	slices.SortFunc(ents, func(a, b podEnt) int {
		if moreImportant(&b, &a) {
			return -1
		}
		return 1
	})
	l := make([]index.PodID, len(ents))
	for i := range ents {
		l[i] = ents[i].Pod
	}
	x.lists[[2]int32{id, d}] = l
	return l
}
