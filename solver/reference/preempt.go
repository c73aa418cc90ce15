package reference

import (
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// preempt is DefaultPreemption's dry run on every node for the cycle's pod,
// which fits nowhere: it returns the best candidate node and its victims
// (most important first), and records the PostFilter message under the
// pod's placement key.
func (st *state) preempt(cy *cycle) (index.NodeID, []index.PodID, bool) {
	st.readyPDBs()
	c := st.c
	counts := map[string]int{}
	tried := 0
	var cands []rules.Candidate
	var victims [][]index.PodID
	best := -1
	for n := range c.Nodes {
		node := index.NodeID(n)
		s := cy.filter(node)
		if s.pass() || !s.resolvable {
			continue // not helpful
		}
		cand, vs, fail := st.dryRun(cy, node)
		if fail != nil {
			tried++
			for _, msg := range fail {
				counts[msg]++
			}
			continue
		}
		if best < 0 || rules.BetterCandidate(&cand, &cands[best]) {
			best = len(cands)
		}
		cands, victims = append(cands, cand), append(victims, vs)
	}
	if n := c.NumNodes(); n > tried {
		counts[rules.PreemptionNotHelpful.String()] += n - tried
	}
	key := st.keyOf(cy.pid)
	_, seen := st.lastPreempt[key]
	st.lastPreempt[key] = rules.PreemptionMessage(c.NumNodes(), counts)
	if best < 0 {
		return 0, nil, false
	}
	if st.cfg.Choose != nil {
		best = st.cfg.Choose(&Choice{Pod: cy.pid, Candidates: cands, Best: best, First: !seen})
	}
	st.lastCand = cands[best]
	return cands[best].Node, victims[best], true
}

// dryRun is SelectVictimsOnNode on node n: every pod of lower priority
// removed, the filters again, then the pods reprieved most important
// first, PDB-violating ones first, while the pod still passes every filter.
// It returns the candidate and its victims (most important first), or the
// reasons the node fails with every lower-priority pod removed. The
// cluster and the cycle are left as they were.
func (st *state) dryRun(cy *cycle, n index.NodeID) (rules.Candidate, []index.PodID, []string) {
	c := st.c
	prio := cy.p.Priority
	var vs []rules.Victim
	for _, q := range c.PodsOn[n] {
		if qp := &c.Pods[q]; rules.IsVictim(qp.Priority, prio) {
			vs = append(vs, rules.Victim{Pod: q, Prio: qp.Priority, Start: index.StartOf(qp)})
		}
	}
	if len(vs) == 0 {
		return rules.Candidate{}, nil, []string{rules.NoPreemptionVictims.String()}
	}
	out := func(v index.PodID) {
		st.unbind(v)
		cy.addPod(v, n, -1)
	}
	in := func(v index.PodID) {
		st.bind(v, n)
		cy.addPod(v, n, 1)
	}
	for _, v := range vs {
		out(v.Pod)
	}
	if s := cy.filter(n); !s.pass() {
		for _, v := range vs {
			in(v.Pod)
		}
		return rules.Candidate{}, nil, s.msgs
	}
	rules.SortVictims(vs)
	viol := rules.Violations(len(vs), func(i int) []int32 { return st.budgetsOf(vs[i].Pod) }, st.allowed)
	evicted := make([]bool, len(vs))
	for _, i := range rules.ReprieveOrder(viol) {
		in(vs[i].Pod)
		if !cy.filter(n).pass() {
			out(vs[i].Pod)
			evicted[i] = true
		}
	}
	cand := rules.NewCandidate(n)
	var victims []index.PodID
	for i, v := range vs { // importance order
		if evicted[i] {
			cand.AddVictim(v.Prio, v.Start, viol[i])
			victims = append(victims, v.Pod)
			in(v.Pod)
		}
	}
	return cand, victims, nil
}
