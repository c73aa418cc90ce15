package reference

import (
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Score plugins of the default profile, in its order, with their weights.
const (
	sTaintToleration = iota
	sNodeAffinity
	sNodeResourcesFit
	sPodTopologySpread
	sInterPodAffinity
	sBalancedAllocation
	sImageLocality
	numScores
)

// scoreNames and scoreWeights are the score plugins' names and weights.
var (
	scoreNames = [numScores]string{rules.PluginTaintToleration, rules.PluginNodeAffinity, rules.PluginNodeResourcesFit,
		rules.PluginPodTopologySpread, rules.PluginInterPodAffinity, rules.PluginBalancedAllocation, rules.PluginImageLocality}
	scoreWeights = [numScores]int64{rules.WeightTaintToleration, rules.WeightNodeAffinity, rules.WeightNodeResourcesFit,
		rules.WeightPodTopologySpread, rules.WeightInterPodAffinity, rules.WeightBalancedAllocation, rules.WeightImageLocality}
)

// score returns the default profile's weighted total of every feasible
// node, each normalising plugin normalised over the feasible nodes, as one
// scheduling cycle does.
func (cy *cycle) score(feasible []index.NodeID) []int64 {
	by := cy.scoreBy(feasible)
	out := by[0]
	for s := 1; s < numScores; s++ {
		for i, v := range by[s] {
			out[i] += v
		}
	}
	return out
}

// scoreBy returns each score plugin's weighted, normalised score of every
// feasible node.
func (cy *cycle) scoreBy(feasible []index.NodeID) [numScores][]int64 {
	c := cy.st.c
	p := cy.p
	var by [numScores][]int64
	for s := range by {
		by[s] = make([]int64, len(feasible))
	}
	balCPU, _ := p.Requests.Get(index.NameCPU)
	balMem, _ := p.Requests.Get(index.NameMemory)
	tt := make([]int64, len(feasible))
	na := make([]int64, len(feasible))
	var ttMax, naMax int64
	for i, n := range feasible {
		nd := &c.Nodes[n]
		capCPU, capMem := c.Alloc[index.ResCPU][n], c.Alloc[index.ResMemory][n]
		by[sNodeResourcesFit][i] = rules.WeightNodeResourcesFit * rules.FitScore(cy.st.cfg.Strategy,
			c.ScoreReq[0][n]+cy.d.ScoreCPU, capCPU, c.ScoreReq[1][n]+cy.d.ScoreMem, capMem)
		if rules.Balanced(balCPU, balMem) {
			by[sBalancedAllocation][i] = rules.WeightBalancedAllocation * rules.BalancedScore(c.Req[index.ResCPU][n], c.Req[index.ResMemory][n],
				balCPU, balMem, capCPU, capMem)
		}
		by[sImageLocality][i] = rules.ImageLocalityScore(c, p, n)
		tt[i] = rules.IntolerablePreferNoSchedule(nd.Taints, p.Tolerations)
		na[i] = rules.PreferredAffinityScore(p, nd)
		ttMax, naMax = max(ttMax, tt[i]), max(naMax, na[i])
	}
	if cy.st.cfg.FitNormalisation {
		// The fast solver's maxima: over the nodes that pass the static
		// filters and fit, before the pod-relative filters.
		var fitTT, fitNA int64
		for n := range c.Nodes {
			if nd := &c.Nodes[n]; cy.staticFilter(nd) == rules.None && cy.fitsNow(index.NodeID(n)) {
				fitTT = max(fitTT, rules.IntolerablePreferNoSchedule(nd.Taints, p.Tolerations))
				fitNA = max(fitNA, rules.PreferredAffinityScore(p, nd))
			}
		}
		for i := range feasible { // counted when it changes a score
			if rules.TaintScore(tt[i], fitTT)+rules.AffinityScore(na[i], fitNA) != rules.TaintScore(tt[i], ttMax)+rules.AffinityScore(na[i], naMax) {
				cy.st.res.FitNormalised++
				break
			}
		}
		ttMax, naMax = fitTT, fitNA
	}
	for i := range feasible {
		by[sTaintToleration][i] = rules.TaintScore(tt[i], ttMax)
		by[sNodeAffinity][i] = rules.AffinityScore(na[i], naMax)
	}
	cy.spreadScores(feasible, by[sPodTopologySpread])
	cy.interPodScores(feasible, by[sInterPodAffinity])
	return by
}

// spreadScores adds PodTopologySpread's score (the ScheduleAnyway
// constraints) to out.
func (cy *cycle) spreadScores(feasible []index.NodeID, out []int64) {
	c := cy.st.c
	p := cy.p
	var soft []*index.SpreadConstraint
	for i := range cy.cs {
		if cy.cs[i].WhenUnsatisfiable == index.ScheduleAnyway {
			soft = append(soft, &cy.cs[i])
		}
	}
	if len(soft) == 0 {
		return
	}
	requireAll := rules.RequireAllKeys(index.ScheduleAnyway, cy.defaulted, cy.st.cfg.SystemDefaultSpread)
	hasKeys := func(nd *index.Node) bool { return rules.HasKeys(nd.Labels, cy.cs, index.ScheduleAnyway) }
	ignored := make([]bool, len(feasible))
	scored := 0
	// The domains among the nodes scored (a node lacking the key counts as
	// the domain ""), and each constraint's weight from their number.
	domains := make([]map[string]int64, len(soft))
	for i := range soft {
		domains[i] = map[string]int64{}
	}
	for j, n := range feasible {
		nd := &c.Nodes[n]
		if requireAll && !hasKeys(nd) {
			ignored[j] = true
			continue
		}
		scored++
		for i, sc := range soft {
			if sc.TopologyKey != rules.LabelHostname {
				domains[i][nd.Labels[sc.TopologyKey]] += 0
			}
		}
	}
	weights := make([]float64, len(soft))
	for i, sc := range soft {
		size := len(domains[i])
		if sc.TopologyKey == rules.LabelHostname {
			size = scored
		}
		weights[i] = rules.NormalizingWeight(size)
	}
	// The matching pods per domain, over every node counted.
	for n := range c.Nodes {
		nd := &c.Nodes[n]
		if requireAll && !hasKeys(nd) {
			continue
		}
		for i, sc := range soft {
			if !rules.IncludeNode(sc, p, nd) {
				continue
			}
			v := nd.Labels[sc.TopologyKey]
			if _, ok := domains[i][v]; !ok {
				continue
			}
			domains[i][v] += cy.matching(sc, index.NodeID(n))
		}
	}
	raw := make([]int64, len(feasible))
	lo, hi := int64(-1), int64(0)
	for j, n := range feasible {
		if ignored[j] {
			continue
		}
		nd := &c.Nodes[n]
		var f float64
		for i, sc := range soft {
			v, ok := nd.Labels[sc.TopologyKey]
			if !ok {
				continue
			}
			cnt := domains[i][v]
			if sc.TopologyKey == rules.LabelHostname {
				cnt = cy.matching(sc, n)
			}
			f += rules.ScoreForCount(cnt, sc.MaxSkew, weights[i])
		}
		raw[j] = rules.RoundSpread(f)
		if lo < 0 || raw[j] < lo {
			lo = raw[j]
		}
		hi = max(hi, raw[j])
	}
	for j := range feasible {
		out[j] += rules.SpreadScore(raw[j], lo, hi, ignored[j])
	}
}

// matching counts node n's pods that constraint sc of the cycle's pod
// counts.
func (cy *cycle) matching(sc *index.SpreadConstraint, n index.NodeID) int64 {
	sel, counts := rules.SpreadSelector(sc)
	if !counts {
		return 0
	}
	c := cy.st.c
	var k int64
	for _, q := range c.PodsOn[n] {
		if rules.Counts(sel, cy.p.Namespace, &c.Pods[q]) {
			k++
		}
	}
	return k
}

// interPodScores adds InterPodAffinity's score to out: per topology pair,
// the weights of the pod's preferred terms times the pods they select, and
// of the bound pods' terms that select the pod.
func (cy *cycle) interPodScores(feasible []index.NodeID, out []int64) {
	st := cy.st
	c := st.c
	p := cy.p
	if !rules.ScoresPod(st.cfg.IgnorePreferredTermsOfExistingPods, p) {
		return
	}
	var prefAff, prefAnti []rules.Term
	for i := range p.PreferredAffinity {
		prefAff = append(prefAff, rules.IncomingTerm(&p.PreferredAffinity[i].Term, c.Namespaces))
	}
	for i := range p.PreferredAntiAffinity {
		prefAnti = append(prefAnti, rules.IncomingTerm(&p.PreferredAntiAffinity[i].Term, c.Namespaces))
	}
	topo := map[pair]int64{}
	recorded := false
	for m := range c.Nodes {
		nd := &c.Nodes[m]
		if len(nd.Labels) == 0 {
			continue
		}
		add := func(t *rules.Term, w int64) {
			if v, ok := nd.Labels[t.Key]; ok {
				topo[pair{t.Key, v}] += w
				recorded = true
			}
		}
		for _, q := range c.PodsOn[m] {
			qp := &c.Pods[q]
			for i := range prefAff {
				if prefAff[i].Matches(qp, nil) {
					add(&prefAff[i], int64(p.PreferredAffinity[i].Weight))
				}
			}
			for i := range prefAnti {
				if prefAnti[i].Matches(qp, nil) {
					add(&prefAnti[i], -int64(p.PreferredAntiAffinity[i].Weight))
				}
			}
			if len(qp.Affinity) == 0 && len(qp.PreferredAffinity) == 0 && len(qp.PreferredAntiAffinity) == 0 {
				continue
			}
			qt := st.termsOf(q)
			if st.hard > 0 {
				for i := range qt.aff {
					if qt.aff[i].Matches(p, cy.nsLabels) {
						add(&qt.aff[i], st.hard)
					}
				}
			}
			for i := range qt.prefAff {
				if qt.prefAff[i].Matches(p, cy.nsLabels) {
					add(&qt.prefAff[i], qt.prefAffW[i])
				}
			}
			for i := range qt.prefAnti {
				if qt.prefAnti[i].Matches(p, cy.nsLabels) {
					add(&qt.prefAnti[i], -qt.prefAntW[i])
				}
			}
		}
	}
	if !recorded {
		return // PreScore skips the plugin
	}
	raw := make([]int64, len(feasible))
	var lo, hi int64
	for j, n := range feasible {
		for k, v := range c.Nodes[n].Labels {
			raw[j] += topo[pair{k, v}]
		}
		if j == 0 || raw[j] < lo {
			lo = raw[j]
		}
		if j == 0 || raw[j] > hi {
			hi = raw[j]
		}
	}
	for j := range feasible {
		out[j] += rules.PodAffinityScore(raw[j], lo, hi)
	}
}
