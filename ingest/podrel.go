package ingest

import (
	"fmt"
	"slices"

	"github.com/kplace/kplace/index"
)

// Pod relations: topology spread constraints and pod (anti-)affinity, with
// the defaults kube-scheduler applies and the label-key merging the API
// server does at admission. Bound pods get them too: their anti-affinity
// repels incoming pods.

// podRelations converts spec.topologySpreadConstraints and
// spec.affinity.podAffinity / podAntiAffinity into p.
func (c *objCtx) podRelations(s *wireSpec, p *index.Pod) error {
	var err error
	if p.Spread, err = c.spread(s.TopologySpreadConstraints, p.Labels); err != nil {
		return err
	}
	a := s.Affinity
	if a == nil {
		return nil
	}
	p.Affinity = c.podAffinityTerms(a.PodAffinity.Required, p.Labels)
	p.PreferredAffinity = c.weightedPodAffinityTerms(a.PodAffinity.Preferred, p.Labels)
	p.AntiAffinity = c.podAffinityTerms(a.PodAntiAffinity.Required, p.Labels)
	p.PreferredAntiAffinity = c.weightedPodAffinityTerms(a.PodAntiAffinity.Preferred, p.Labels)
	return nil
}

// spread converts topology spread constraints with kube-scheduler's
// defaults: an unset whenUnsatisfiable (which API validation refuses but
// hand-written inputs omit) is DoNotSchedule, minDomains 1, the node
// inclusion policies Honor and Ignore; matchLabelKeys are merged into the
// selector. validSpread checks the result; only a minDomains set with
// ScheduleAnyway is checked here, where its presence is known.
func (c *objCtx) spread(ws []wireSpread, labels map[string]string) ([]index.SpreadConstraint, error) {
	if len(ws) == 0 {
		return nil, nil
	}
	out := make([]index.SpreadConstraint, len(ws))
	for i := range ws {
		w := &ws[i]
		sc := index.SpreadConstraint{MaxSkew: w.MaxSkew, TopologyKey: w.TopologyKey,
			WhenUnsatisfiable: w.WhenUnsatisfiable, MinDomains: 1, MatchLabelKeys: w.MatchLabelKeys,
			NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore}
		if sc.WhenUnsatisfiable == "" {
			sc.WhenUnsatisfiable = index.DoNotSchedule
		}
		if w.MinDomains != nil {
			if sc.WhenUnsatisfiable != index.DoNotSchedule {
				return nil, c.errf(fmt.Sprintf("spec.topologySpreadConstraints[%d].minDomains", i),
					"may only be set when whenUnsatisfiable is %s, not %s", index.DoNotSchedule, sc.WhenUnsatisfiable)
			}
			sc.MinDomains = *w.MinDomains
		}
		if v := w.NodeAffinityPolicy; v != nil {
			sc.NodeAffinityPolicy = *v
		}
		if v := w.NodeTaintsPolicy; v != nil {
			sc.NodeTaintsPolicy = *v
		}
		if sc.Selector = selector(w.LabelSelector); sc.Selector != nil {
			mergeLabelKeys(sc.Selector, w.MatchLabelKeys, index.SelIn, labels)
		}
		out[i] = sc
	}
	return out, nil
}

// podAffinityTerms converts required pod (anti-)affinity terms.
func (c *objCtx) podAffinityTerms(ws []wirePodAffinityTerm, labels map[string]string) []index.PodAffinityTerm {
	if len(ws) == 0 {
		return nil
	}
	out := make([]index.PodAffinityTerm, len(ws))
	for i := range ws {
		out[i] = c.podAffinityTerm(&ws[i], labels)
	}
	return out
}

// weightedPodAffinityTerms converts preferred pod (anti-)affinity terms.
func (c *objCtx) weightedPodAffinityTerms(ws []wireWeightedPodAffinityTerm, labels map[string]string) []index.WeightedPodAffinityTerm {
	if len(ws) == 0 {
		return nil
	}
	out := make([]index.WeightedPodAffinityTerm, len(ws))
	for i := range ws {
		out[i] = index.WeightedPodAffinityTerm{Weight: ws[i].Weight, Term: c.podAffinityTerm(&ws[i].Term, labels)}
	}
	return out
}

// podAffinityTerm converts one term: matchLabelKeys and mismatchLabelKeys
// are merged into its labelSelector as the API server does at admission
// (validPodAffinityTerm checks them first: a key in both fails); a term
// without namespaces and namespaceSelector selects the pod's own
// namespace.
func (c *objCtx) podAffinityTerm(w *wirePodAffinityTerm, labels map[string]string) index.PodAffinityTerm {
	t := index.PodAffinityTerm{TopologyKey: w.TopologyKey, Namespaces: w.Namespaces,
		MatchLabelKeys: w.MatchLabelKeys, MismatchLabelKeys: w.MismatchLabelKeys,
		Selector: selector(w.LabelSelector), NamespaceSelector: selector(w.NamespaceSelector)}
	if t.Selector != nil {
		mergeLabelKeys(t.Selector, t.MatchLabelKeys, index.SelIn, labels)
		mergeLabelKeys(t.Selector, t.MismatchLabelKeys, index.SelNotIn, labels)
	}
	if len(t.Namespaces) == 0 && t.NamespaceSelector == nil {
		t.Namespaces = []string{c.ns}
	}
	return t
}

// mergeLabelKeys ANDs "key op (value)" into sel for each key the pod's
// labels carry (keys it lacks are skipped), as the API server's
// applyLabelKeysToLabelSelector does. A requirement the selector already
// has is not added again: a pod read back from a cluster carries the
// merged selector already, and a repeated requirement selects the same.
func mergeLabelKeys(sel *index.LabelSelector, keys []string, op string, labels map[string]string) {
	for _, k := range keys {
		v, ok := labels[k]
		if !ok {
			continue
		}
		if slices.ContainsFunc(sel.MatchExpressions, func(r index.Requirement) bool {
			return r.Key == k && r.Operator == op && len(r.Values) == 1 && r.Values[0] == v
		}) {
			continue
		}
		sel.MatchExpressions = append(sel.MatchExpressions, index.Requirement{Key: k, Operator: op, Values: []string{v}})
	}
}
