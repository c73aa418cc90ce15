package reference

import (
	"slices"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Cross-node preemption (Config.CrossNodePreemption), kplace's extension
// beyond kube-scheduler: a pod blocked on a node only by a DoNotSchedule
// spread skew, its own required anti-affinity or an existing pod's may
// evict lower-priority pods anywhere in the node's domain of that
// constraint. On each node where the pod fits now and the first
// pod-relative filter that fails is one of those, repeatedly until every
// pod-relative filter passes: the failing constraint's pods in the node's
// domain, least important first and those whose eviction violates no budget
// first, are taken until the skew is within maxSkew (spread) or none is
// left (anti-affinity, where every such pod must be of lower priority).
// The best node by the candidate criteria replaces the node-local
// preemption only when strictly better on them.

// relFail is a pod-relative filter failure: which filter, and which of the
// cycle's constraints (a hard spread constraint, an anti-affinity term, or
// a repel term: an existing pod's anti-affinity term that selects the pod).
type relFail struct {
	kind rules.Reason
	j    int
}

// crossPreempt returns the best cross-node candidate for the cycle's pod and
// its victims (most important first).
func (st *state) crossPreempt(cy *cycle) (rules.Candidate, []index.PodID, bool) {
	repel := st.repelsOf(cy.p)
	if len(cy.hard)+len(cy.anti)+len(repel) == 0 {
		return rules.Candidate{}, nil, false
	}
	c := st.c
	var best rules.Candidate
	var bestVictims []index.PodID
	found := false
	for n := range c.Nodes {
		node := index.NodeID(n)
		if cy.staticFilter(&c.Nodes[n]) != rules.None || !cy.fitsNow(node) {
			continue
		}
		if f := cy.firstRel(node, repel, nil); !crossable(f.kind) {
			continue
		}
		if cand, vs, ok := st.crossEval(cy, node, repel); ok && (!found || rules.BetterCandidate(&cand, &best)) {
			best, bestVictims, found = cand, vs, true
		}
	}
	return best, bestVictims, found
}

func crossable(r rules.Reason) bool {
	return r == rules.SpreadConstraintsMismatch || r == rules.PodAntiAffinityMismatch || r == rules.ExistingAntiAffinityMismatch
}

// fitsNow reports whether the pod passes NodePorts and NodeResourcesFit on
// node n as it is.
func (cy *cycle) fitsNow(n index.NodeID) bool {
	c := cy.st.c
	if rules.PortsFilter(c.Ports[n], cy.d.Ports) != rules.None || !rules.PodsFit(c.Req[index.ResPods][n], c.Alloc[index.ResPods][n]) {
		return false
	}
	for _, rv := range cy.d.Req {
		if !rules.Fits(c.Req[rv.Res][n], rv.Val, c.Alloc[rv.Res][n]) {
			return false
		}
	}
	return true
}

// crossEval takes, on node n, the victims that let the pod pass every
// pod-relative filter there, and returns the candidate.
func (st *state) crossEval(cy *cycle, n index.NodeID, repel []int) (rules.Candidate, []index.PodID, bool) {
	c := st.c
	prio := cy.p.Priority
	taken := map[index.PodID]bool{}
	var vs []index.PodID
	left := map[int32]int32{} // budgets' disruptions left in this evaluation
	violates := func(q index.PodID, take bool) bool {
		v := false
		for _, k := range st.budgetsOf(q) {
			if _, ok := left[k]; !ok {
				left[k] = st.allowed[k]
			}
			if left[k] <= 0 {
				v = true
			}
			if take {
				left[k]--
			}
		}
		return v
	}
	ok := false
	for range len(cy.hard) + len(cy.aff) + len(cy.anti) + len(repel) + 1 {
		f := cy.firstRel(n, repel, taken)
		if f.kind == rules.None {
			ok = true
			break
		}
		if !crossable(f.kind) {
			break
		}
		list, need := cy.domainPods(n, f, repel, taken)
		if f.kind != rules.SpreadConstraintsMismatch && slices.ContainsFunc(list, func(q index.PodID) bool { return !rules.IsVictim(c.Pods[q].Priority, prio) }) {
			break // every pod the term counts must go, and this one cannot
		}
		got := 0
		for pass := 0; pass < 2 && got < need; pass++ {
			for _, q := range list {
				if got == need {
					break
				}
				if taken[q] || !rules.IsVictim(c.Pods[q].Priority, prio) || pass == 0 && violates(q, false) {
					continue
				}
				violates(q, true)
				taken[q] = true
				vs = append(vs, q)
				got++
			}
		}
		if got != need {
			break
		}
	}
	if !ok || len(vs) == 0 {
		return rules.Candidate{}, nil, false
	}
	victims := make([]rules.Victim, len(vs))
	for i, q := range vs {
		victims[i] = rules.Victim{Pod: q, Prio: c.Pods[q].Priority, Start: index.StartOf(&c.Pods[q])}
	}
	rules.SortVictims(victims)
	viol := rules.Violations(len(victims), func(i int) []int32 { return st.budgetsOf(victims[i].Pod) }, st.allowed)
	cand := rules.NewCandidate(n)
	for i, v := range victims {
		cand.AddVictim(v.Prio, v.Start, viol[i])
		vs[i] = v.Pod
	}
	return cand, vs, true
}

// firstRel is the first pod-relative filter node n fails with the taken
// pods gone, in kube-scheduler's order (spread, affinity, anti-affinity,
// existing pods' anti-affinity), each of the cycle's constraints in turn.
func (cy *cycle) firstRel(n index.NodeID, repel []int, taken map[index.PodID]bool) relFail {
	nd := &cy.st.c.Nodes[n]
	for i := range cy.hard {
		h := &cy.hard[i]
		v, ok := nd.Labels[h.sc.TopologyKey]
		if !ok {
			return relFail{rules.SpreadMissingLabel, i}
		}
		counts := cy.spreadCounts(h, taken)
		if !rules.SkewOK(counts[v], h.self, cy.globalMin(h, counts), h.sc.MaxSkew) {
			return relFail{rules.SpreadConstraintsMismatch, i}
		}
	}
	if len(cy.aff) > 0 {
		hasKeys, exist, none := true, true, true
		for _, t := range cy.aff {
			v, ok := nd.Labels[t.Key]
			if !ok {
				hasKeys = false
				break
			}
			if len(cy.podsIn(t.Key, v, taken, func(q *index.Pod) bool { return rules.MatchesAll(cy.aff, q) })) == 0 {
				exist = false
			}
		}
		for _, t := range cy.aff {
			if len(cy.podsIn(t.Key, "", taken, func(q *index.Pod) bool { return rules.MatchesAll(cy.aff, q) })) > 0 {
				none = false
			}
		}
		if !rules.AffinityOK(hasKeys, exist, none, cy.affSelf) {
			return relFail{rules.PodAffinityMismatch, 0}
		}
	}
	for i := range cy.anti {
		t := &cy.anti[i]
		if v, ok := nd.Labels[t.Key]; ok && len(cy.podsIn(t.Key, v, taken, func(q *index.Pod) bool { return t.Matches(q, nil) })) > 0 {
			return relFail{rules.PodAntiAffinityMismatch, i}
		}
	}
	for i, r := range repel {
		key := cy.st.repelTerms[r].Key
		if v, ok := nd.Labels[key]; ok && len(cy.st.carriersIn(r, key, v, taken)) > 0 {
			return relFail{rules.ExistingAntiAffinityMismatch, i}
		}
	}
	return relFail{}
}

// domainPods lists the pods that failure f counts in node n's domain, least
// important first, and how many of them must go.
func (cy *cycle) domainPods(n index.NodeID, f relFail, repel []int, taken map[index.PodID]bool) ([]index.PodID, int) {
	c := cy.st.c
	nd := &c.Nodes[n]
	var list []index.PodID
	need := 0
	switch f.kind {
	case rules.SpreadConstraintsMismatch:
		h := &cy.hard[f.j]
		v := nd.Labels[h.sc.TopologyKey]
		sel, counts := rules.SpreadSelector(h.sc)
		if counts {
			for m := range c.Nodes {
				if cy.eligible(h, index.NodeID(m)) && c.Nodes[m].Labels[h.sc.TopologyKey] == v {
					for _, q := range c.PodsOn[m] {
						if !taken[q] && rules.Counts(sel, cy.p.Namespace, &c.Pods[q]) {
							list = append(list, q)
						}
					}
				}
			}
		}
		counts2 := cy.spreadCounts(h, taken)
		need = int(rules.SkewExcess(counts2[v], h.self, cy.globalMin(h, counts2), h.sc.MaxSkew))
	case rules.PodAntiAffinityMismatch:
		t := &cy.anti[f.j]
		list = cy.podsIn(t.Key, nd.Labels[t.Key], taken, func(q *index.Pod) bool { return t.Matches(q, nil) })
		need = len(list)
	case rules.ExistingAntiAffinityMismatch:
		key := cy.st.repelTerms[repel[f.j]].Key
		list = cy.st.carriersIn(repel[f.j], key, nd.Labels[key], taken)
		need = len(list)
	}
	victims := make([]rules.Victim, len(list))
	for i, q := range list {
		victims[i] = rules.Victim{Pod: q, Prio: c.Pods[q].Priority, Start: index.StartOf(&c.Pods[q])}
	}
	rules.SortVictims(victims)
	for i := range victims { // least important first
		list[len(list)-1-i] = victims[i].Pod
	}
	return list, need
}

// eligible reports whether node m's pods count for hard constraint h.
func (cy *cycle) eligible(h *hardSpread, m index.NodeID) bool {
	nd := &cy.st.c.Nodes[m]
	return rules.HasKeys(nd.Labels, cy.cs, index.DoNotSchedule) && rules.IncludeNode(h.sc, cy.p, nd)
}

// spreadCounts counts constraint h's matching pods per eligible domain,
// the taken pods left out.
func (cy *cycle) spreadCounts(h *hardSpread, taken map[index.PodID]bool) map[string]int32 {
	c := cy.st.c
	out := map[string]int32{}
	sel, counts := rules.SpreadSelector(h.sc)
	for m := range c.Nodes {
		if !cy.eligible(h, index.NodeID(m)) {
			continue
		}
		k := int32(0)
		for _, q := range c.PodsOn[m] {
			if counts && !taken[q] && rules.Counts(sel, cy.p.Namespace, &c.Pods[q]) {
				k++
			}
		}
		out[c.Nodes[m].Labels[h.sc.TopologyKey]] += k
	}
	return out
}

func (cy *cycle) globalMin(h *hardSpread, counts map[string]int32) int32 {
	least, first := int32(0), true
	for _, k := range counts {
		if first || k < least {
			least, first = k, false
		}
	}
	return rules.GlobalMin(least, int32(len(counts)), h.sc.MinDomains)
}

// podsIn lists the bound pods, not taken, that match on nodes whose label
// key is v ("": any value).
func (cy *cycle) podsIn(key, v string, taken map[index.PodID]bool, match func(*index.Pod) bool) []index.PodID {
	c := cy.st.c
	var out []index.PodID
	for m := range c.Nodes {
		got, ok := c.Nodes[m].Labels[key]
		if !ok || v != "" && got != v {
			continue
		}
		for _, q := range c.PodsOn[m] {
			if !taken[q] && match(&c.Pods[q]) {
				out = append(out, q)
			}
		}
	}
	return out
}

// repelsOf lists the repel terms (st.repelTerms) that select pod p, in
// their order.
func (st *state) repelsOf(p *index.Pod) []int {
	st.readyTerms()
	var out []int
	for i := range st.repelTerms {
		if st.repelTerms[i].Matches(p, st.nsLabels[p.Namespace]) {
			out = append(out, i)
		}
	}
	return out
}

// carriersIn lists the bound pods, not taken, carrying repel term r on
// nodes whose label key is v.
func (st *state) carriersIn(r int, key, v string, taken map[index.PodID]bool) []index.PodID {
	c := st.c
	var out []index.PodID
	for _, q := range st.carriers[r] {
		if n := c.PodNode[q]; n != index.NoNode && !taken[q] && c.Nodes[n].Labels[key] == v {
			if _, ok := c.Nodes[n].Labels[key]; ok {
				out = append(out, q)
			}
		}
	}
	return out
}
