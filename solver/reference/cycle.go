package reference

import (
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
	"k8s.io/apimachinery/pkg/labels"
)

// A cycle is one pod's scheduling cycle over the cluster as it is: the
// PreFilter state (spread counts per domain, pod-affinity counts per
// topology pair), kept up to date through addPod when a preemption dry run
// takes pods off a node and puts them back, as kube-scheduler's
// PreFilterExtensions do.
type cycle struct {
	st  *state
	pid index.PodID
	p   *index.Pod
	d   *index.Demand
	// nsLabels are the labels of p's namespace (nil without a Namespace
	// object): existing pods' namespaceSelectors are matched against them.
	nsLabels map[string]string
	// names is NodeAffinity's PreFilter node-name set (nil: all nodes);
	// conflict: its terms name no node in common.
	names    map[string]bool
	conflict bool
	// cs are p's effective spread constraints; hard its DoNotSchedule ones.
	cs        []index.SpreadConstraint
	defaulted bool
	hard      []hardSpread
	// Required pod (anti-)affinity: the pod's terms, whether it matches its
	// own affinity terms, and the counts per topology pair of the pods
	// matching all affinity terms (aff), matching each anti-affinity term
	// (anti), and of existing pods' anti-affinity terms matching p
	// (existing).
	aff, anti           []rules.Term
	affSelf             bool
	affN, antiN, existN map[pair]int64
	// static caches each node's verdict of the filters that read no pod
	// (PreFilter names, NodeUnschedulable, TaintToleration, NodeAffinity),
	// +1 (None: 0 means not computed yet).
	static []rules.Reason
}

// pair is a topology pair: a label key and a value.
type pair struct{ key, value string }

// hardSpread is one DoNotSchedule constraint in a cycle.
type hardSpread struct {
	sc   *index.SpreadConstraint
	sel  labels.Selector // the selector as written (AddPod matches with it)
	self int32
	// dom holds the matching pods per domain (label value) over the
	// eligible nodes; every eligible domain has an entry.
	dom map[string]int32
}

// status is a node's filter outcome: the first failing filter's reasons
// (none: the node passes) and whether preemption may resolve it.
type status struct {
	msgs       []string
	resolvable bool
}

func (s status) pass() bool { return len(s.msgs) == 0 }

func fail(r rules.Reason) status {
	return status{msgs: []string{r.String()}, resolvable: rules.Resolvable(r)}
}

// podTerms are a bound pod's terms as other pods' cycles read them.
type podTerms struct {
	anti, aff          []rules.Term
	prefAff, prefAnti  []rules.Term
	prefAffW, prefAntW []int64
}

// termsOf returns pod q's resolved terms (cached: a pod's terms do not
// change).
func (st *state) termsOf(q index.PodID) *podTerms {
	if st.terms == nil {
		st.terms = map[index.PodID]*podTerms{}
	}
	if t, ok := st.terms[q]; ok {
		return t
	}
	p := &st.c.Pods[q]
	t := &podTerms{}
	for i := range p.AntiAffinity {
		t.anti = append(t.anti, rules.ExistingTerm(&p.AntiAffinity[i]))
	}
	for i := range p.Affinity {
		t.aff = append(t.aff, rules.ExistingTerm(&p.Affinity[i]))
	}
	for i := range p.PreferredAffinity {
		t.prefAff = append(t.prefAff, rules.ExistingTerm(&p.PreferredAffinity[i].Term))
		t.prefAffW = append(t.prefAffW, int64(p.PreferredAffinity[i].Weight))
	}
	for i := range p.PreferredAntiAffinity {
		t.prefAnti = append(t.prefAnti, rules.ExistingTerm(&p.PreferredAntiAffinity[i].Term))
		t.prefAntW = append(t.prefAntW, int64(p.PreferredAntiAffinity[i].Weight))
	}
	st.terms[q] = t
	return t
}

// newCycle runs the PreFilters for pod pid on the cluster as it is.
func (st *state) newCycle(pid index.PodID) *cycle {
	c := st.c
	p := &c.Pods[pid]
	cy := &cycle{st: st, pid: pid, p: p, d: st.demand(pid), nsLabels: st.nsLabels[p.Namespace]}
	if names, conflict, ok := rules.PreFilterNodeNames(p); ok {
		cy.names, cy.conflict = names, conflict
	}
	cy.cs, cy.defaulted = st.constraints(p)
	for i := range cy.cs {
		sc := &cy.cs[i]
		if sc.WhenUnsatisfiable != index.DoNotSchedule {
			continue
		}
		h := hardSpread{sc: sc, self: rules.SelfMatch(sc, p), dom: map[string]int32{}}
		h.sel, _ = rules.LabelSelector(sc.Selector)
		cy.hard = append(cy.hard, h)
	}
	for i := range p.Affinity {
		cy.aff = append(cy.aff, rules.IncomingTerm(&p.Affinity[i], c.Namespaces))
	}
	for i := range p.AntiAffinity {
		cy.anti = append(cy.anti, rules.IncomingTerm(&p.AntiAffinity[i], c.Namespaces))
	}
	cy.affSelf = rules.MatchesAll(cy.aff, p)
	cy.affN, cy.antiN, cy.existN = map[pair]int64{}, map[pair]int64{}, map[pair]int64{}
	for n := range c.Nodes {
		nd := &c.Nodes[n]
		// PodTopologySpread's PreFilter: the pods matching each constraint
		// per domain over the eligible nodes.
		if len(cy.hard) > 0 && rules.HasKeys(nd.Labels, cy.cs, index.DoNotSchedule) {
			for i := range cy.hard {
				h := &cy.hard[i]
				if !rules.IncludeNode(h.sc, p, nd) {
					continue
				}
				k := int32(0)
				if sel, counts := rules.SpreadSelector(h.sc); counts {
					for _, q := range c.PodsOn[n] {
						if rules.Counts(sel, p.Namespace, &c.Pods[q]) {
							k++
						}
					}
				}
				h.dom[nd.Labels[h.sc.TopologyKey]] += k
			}
		}
		// InterPodAffinity's PreFilter: every bound pod counted in.
		for _, q := range c.PodsOn[n] {
			cy.interPod(q, index.NodeID(n), 1)
		}
	}
	return cy
}

// addPod adds (delta 1) or removes (-1) bound pod q on node n from the
// cycle's PreFilter state (the PreFilterExtensions a preemption dry run
// calls).
func (cy *cycle) addPod(q index.PodID, n index.NodeID, delta int32) {
	c := cy.st.c
	nd := &c.Nodes[n]
	qp := &c.Pods[q]
	if len(cy.hard) > 0 && qp.Namespace == cy.p.Namespace && rules.HasKeys(nd.Labels, cy.cs, index.DoNotSchedule) {
		for i := range cy.hard {
			h := &cy.hard[i]
			if h.sel.Matches(labels.Set(qp.Labels)) && rules.IncludeNode(h.sc, cy.p, nd) {
				h.dom[nd.Labels[h.sc.TopologyKey]] += delta
			}
		}
	}
	cy.interPod(q, n, int64(delta))
}

// interPod counts bound pod q on node n (delta) into the pod-affinity
// counts.
func (cy *cycle) interPod(q index.PodID, n index.NodeID, delta int64) {
	c := cy.st.c
	nd := &c.Nodes[n]
	qp := &c.Pods[q]
	add := func(m map[pair]int64, key string) {
		if v, ok := nd.Labels[key]; ok {
			m[pair{key, v}] += delta
		}
	}
	if len(qp.AntiAffinity) > 0 {
		for _, t := range cy.st.termsOf(q).anti {
			if t.Matches(cy.p, cy.nsLabels) {
				add(cy.existN, t.Key)
			}
		}
	}
	if rules.MatchesAll(cy.aff, qp) {
		for _, t := range cy.aff {
			add(cy.affN, t.Key)
		}
	}
	for _, t := range cy.anti {
		if t.Matches(qp, nil) {
			add(cy.antiN, t.Key)
		}
	}
}

// none reports whether every count of m is zero.
func none(m map[pair]int64) bool {
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

// Filter plugins of the default profile that kplace models, in
// kube-scheduler's order (the volume plugins are not modelled: a pod with
// volumes is unsupported).
const (
	fNodeUnschedulable = iota
	fNodeName
	fTaintToleration
	fNodeAffinity
	fNodePorts
	fNodeResourcesFit
	fPodTopologySpread
	fInterPodAffinity
	numFilters
)

// filterNames are the plugins' names, by index.
var filterNames = [numFilters]string{rules.PluginNodeUnschedulable, rules.PluginNodeName, rules.PluginTaintToleration,
	rules.PluginNodeAffinity, rules.PluginNodePorts, rules.PluginNodeResourcesFit, rules.PluginPodTopologySpread,
	rules.PluginInterPodAffinity}

// filter runs the filters on node n, in kube-scheduler's order, and returns
// the first failure.
func (cy *cycle) filter(n index.NodeID) status {
	c := cy.st.c
	nd := &c.Nodes[n]
	if cy.static == nil {
		cy.static = make([]rules.Reason, c.NumNodes())
	}
	if cy.static[n] == 0 {
		cy.static[n] = cy.staticFilter(nd) + 1
	}
	if r := cy.static[n] - 1; r != rules.None {
		return fail(r)
	}
	for f := fNodePorts; f < numFilters; f++ {
		if s := cy.runFilter(f, n); !s.pass() {
			return s
		}
	}
	return status{}
}

// runFilter runs filter plugin f alone on node n. NodeAffinity includes
// its PreFilter's node names; NodeName always passes (a pending pod has
// no spec.nodeName).
func (cy *cycle) runFilter(f int, n index.NodeID) status {
	c := cy.st.c
	nd := &c.Nodes[n]
	p := cy.p
	switch f {
	case fNodeUnschedulable:
		return failIf(rules.UnschedulableFilter(nd.Unschedulable, p.Tolerations))
	case fTaintToleration:
		return failIf(rules.TaintFilter(nd.Taints, p.Tolerations))
	case fNodeAffinity:
		if cy.names != nil && !cy.names[nd.Name] {
			return fail(rules.NodeAffinityPreFilter)
		}
		return failIf(rules.AffinityFilter(p, nd))
	case fNodePorts:
		return failIf(rules.PortsFilter(c.Ports[n], cy.d.Ports))
	case fNodeResourcesFit:
		// Every insufficient resource.
		var fit status
		if !rules.PodsFit(c.Req[index.ResPods][n], c.Alloc[index.ResPods][n]) {
			fit.msgs = append(fit.msgs, rules.TooManyPods.String())
		}
		fit.resolvable = true
		for _, rv := range cy.d.Req {
			if !rules.Fits(c.Req[rv.Res][n], rv.Val, c.Alloc[rv.Res][n]) {
				fit.msgs = append(fit.msgs, rules.InsufficientResource(c.ResNames[rv.Res]))
				if rules.Unresolvable(rv.Val, c.Alloc[rv.Res][n]) {
					fit.resolvable = false
				}
			}
		}
		if fit.pass() {
			return status{}
		}
		return fit
	case fPodTopologySpread:
		for i := range cy.hard {
			h := &cy.hard[i]
			v, ok := nd.Labels[h.sc.TopologyKey]
			if !ok {
				return fail(rules.SpreadMissingLabel)
			}
			least, first := int32(0), true
			for _, k := range h.dom {
				if first || k < least {
					least, first = k, false
				}
			}
			min := rules.GlobalMin(least, int32(len(h.dom)), h.sc.MinDomains)
			if !rules.SkewOK(h.dom[v], h.self, min, h.sc.MaxSkew) {
				return fail(rules.SpreadConstraintsMismatch)
			}
		}
	case fInterPodAffinity:
		if len(cy.aff) > 0 {
			hasKeys, exist := true, true
			for _, t := range cy.aff {
				v, ok := nd.Labels[t.Key]
				if !ok {
					hasKeys = false
					break
				}
				if cy.affN[pair{t.Key, v}] <= 0 {
					exist = false
				}
			}
			if !rules.AffinityOK(hasKeys, exist, none(cy.affN), cy.affSelf) {
				return fail(rules.PodAffinityMismatch)
			}
		}
		for _, t := range cy.anti {
			if v, ok := nd.Labels[t.Key]; ok && cy.antiN[pair{t.Key, v}] > 0 {
				return fail(rules.PodAntiAffinityMismatch)
			}
		}
		for k, v := range nd.Labels {
			if cy.existN[pair{k, v}] > 0 {
				return fail(rules.ExistingAntiAffinityMismatch)
			}
		}
	}
	return status{}
}

// failIf is fail(r), or a pass for rules.None.
func failIf(r rules.Reason) status {
	if r == rules.None {
		return status{}
	}
	return fail(r)
}

// staticFilter runs the filters that read no pod on node nd: NodeAffinity's
// PreFilter names, NodeUnschedulable, TaintToleration, NodeAffinity.
func (cy *cycle) staticFilter(nd *index.Node) rules.Reason {
	p := cy.p
	if cy.names != nil && !cy.names[nd.Name] {
		return rules.NodeAffinityPreFilter
	}
	if r := rules.UnschedulableFilter(nd.Unschedulable, p.Tolerations); r != rules.None {
		return r
	}
	if r := rules.TaintFilter(nd.Taints, p.Tolerations); r != rules.None {
		return r
	}
	return rules.AffinityFilter(p, nd)
}

// place filters every node and, when some pass, returns the best by total
// score (ties: rules.BetterNode's seeded tie value, then the lower id).
func (cy *cycle) place() (index.NodeID, int64, bool) {
	if cy.conflict {
		return 0, 0, false
	}
	var feasible []index.NodeID
	for n := range cy.st.c.Nodes {
		if cy.filter(index.NodeID(n)).pass() {
			feasible = append(feasible, index.NodeID(n))
		}
	}
	if len(feasible) == 0 {
		return 0, 0, false
	}
	scores := cy.score(feasible)
	best := 0
	tie := cy.st.tie
	for i := 1; i < len(feasible); i++ {
		a, b := feasible[i], feasible[best]
		if rules.BetterNode(scores[i], tie[a], a, scores[best], tie[b], b) {
			best = i
		}
	}
	return feasible[best], scores[best], true
}
