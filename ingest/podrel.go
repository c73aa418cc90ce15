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
	const aff, anti = "spec.affinity.podAffinity", "spec.affinity.podAntiAffinity"
	if p.Affinity, err = c.podAffinityTerms(a.PodAffinity.Required, aff, p.Labels); err != nil {
		return err
	}
	if p.PreferredAffinity, err = c.weightedPodAffinityTerms(a.PodAffinity.Preferred, aff, p.Labels); err != nil {
		return err
	}
	if p.AntiAffinity, err = c.podAffinityTerms(a.PodAntiAffinity.Required, anti, p.Labels); err != nil {
		return err
	}
	p.PreferredAntiAffinity, err = c.weightedPodAffinityTerms(a.PodAntiAffinity.Preferred, anti, p.Labels)
	return err
}

func validSpreadAction(s string) bool { return s == index.DoNotSchedule || s == index.ScheduleAnyway }

func validInclusionPolicy(s string) bool { return s == index.PolicyHonor || s == index.PolicyIgnore }

// spread converts topology spread constraints, rejecting what API
// validation (validateTopologySpreadConstraints) rejects: maxSkew below 1,
// an empty topologyKey, an unknown whenUnsatisfiable or node inclusion
// policy, minDomains below 1 or with ScheduleAnyway, two constraints with
// the same topologyKey and whenUnsatisfiable, matchLabelKeys without a
// labelSelector. An unset whenUnsatisfiable, which API validation refuses
// but hand-written inputs omit, is taken as DoNotSchedule.
func (c *objCtx) spread(ws []wireSpread, labels map[string]string) ([]index.SpreadConstraint, error) {
	if len(ws) == 0 {
		return nil, nil
	}
	const base = "spec.topologySpreadConstraints"
	out := make([]index.SpreadConstraint, len(ws))
	for i := range ws {
		w := &ws[i]
		at := lazyPath{name: base, idx: i}
		f := func(sub string) string { return at.String() + sub } // errors only
		sc := index.SpreadConstraint{MaxSkew: w.MaxSkew, TopologyKey: w.TopologyKey,
			WhenUnsatisfiable: w.WhenUnsatisfiable, MinDomains: 1, MatchLabelKeys: w.MatchLabelKeys,
			NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore}
		if sc.MaxSkew < 1 {
			return nil, c.errf(f(".maxSkew"), "must be at least 1, found %d", sc.MaxSkew)
		}
		if sc.TopologyKey == "" {
			return nil, c.errf(f(".topologyKey"), "missing")
		}
		if sc.WhenUnsatisfiable == "" {
			sc.WhenUnsatisfiable = index.DoNotSchedule
		} else if !validSpreadAction(sc.WhenUnsatisfiable) {
			return nil, c.errf(f(".whenUnsatisfiable"), "unknown action %q (want %s or %s)",
				sc.WhenUnsatisfiable, index.DoNotSchedule, index.ScheduleAnyway)
		}
		if w.MinDomains != nil {
			if *w.MinDomains < 1 {
				return nil, c.errf(f(".minDomains"), "must be at least 1, found %d", *w.MinDomains)
			}
			if sc.WhenUnsatisfiable != index.DoNotSchedule {
				return nil, c.errf(f(".minDomains"), "may only be set when whenUnsatisfiable is %s, not %s",
					index.DoNotSchedule, sc.WhenUnsatisfiable)
			}
			sc.MinDomains = *w.MinDomains
		}
		if v := w.NodeAffinityPolicy; v != nil {
			if !validInclusionPolicy(*v) {
				return nil, c.errf(f(".nodeAffinityPolicy"), "unknown policy %q (want %s or %s)", *v, index.PolicyHonor, index.PolicyIgnore)
			}
			sc.NodeAffinityPolicy = *v
		}
		if v := w.NodeTaintsPolicy; v != nil {
			if !validInclusionPolicy(*v) {
				return nil, c.errf(f(".nodeTaintsPolicy"), "unknown policy %q (want %s or %s)", *v, index.PolicyHonor, index.PolicyIgnore)
			}
			sc.NodeTaintsPolicy = *v
		}
		for j := range out[:i] {
			if out[j].TopologyKey == sc.TopologyKey && out[j].WhenUnsatisfiable == sc.WhenUnsatisfiable {
				return nil, c.errf(f(""), "same topologyKey and whenUnsatisfiable (%s, %s) as %s[%d]",
					sc.TopologyKey, sc.WhenUnsatisfiable, base, j)
			}
		}
		var err error
		if sc.Selector, err = c.selector(w.LabelSelector, &lazyPath{up: &at, name: ".labelSelector", idx: -1}, true); err != nil {
			return nil, err
		}
		if len(w.MatchLabelKeys) > 0 {
			if sc.Selector == nil {
				return nil, c.errf(f(".matchLabelKeys"), "must not be set when labelSelector is not set")
			}
			mergeLabelKeys(sc.Selector, w.MatchLabelKeys, index.SelIn, labels)
		}
		out[i] = sc
	}
	return out, nil
}

// podAffinityTerms converts required pod (anti-)affinity terms; base is
// the field path of the PodAffinity or PodAntiAffinity.
func (c *objCtx) podAffinityTerms(ws []wirePodAffinityTerm, base string, labels map[string]string) ([]index.PodAffinityTerm, error) {
	if len(ws) == 0 {
		return nil, nil
	}
	out := make([]index.PodAffinityTerm, len(ws))
	root := lazyPath{name: base, idx: -1}
	for i := range ws {
		var err error
		at := lazyPath{up: &root, name: ".requiredDuringSchedulingIgnoredDuringExecution", idx: i}
		if out[i], err = c.podAffinityTerm(&ws[i], &at, labels); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// weightedPodAffinityTerms converts preferred pod (anti-)affinity terms;
// weights must be in 1..100 (ValidateWeightedPodAffinityTerms).
func (c *objCtx) weightedPodAffinityTerms(ws []wireWeightedPodAffinityTerm, base string, labels map[string]string) ([]index.WeightedPodAffinityTerm, error) {
	if len(ws) == 0 {
		return nil, nil
	}
	out := make([]index.WeightedPodAffinityTerm, len(ws))
	root := lazyPath{name: base, idx: -1}
	for i := range ws {
		w := &ws[i]
		at := lazyPath{up: &root, name: ".preferredDuringSchedulingIgnoredDuringExecution", idx: i}
		if w.Weight < 1 || w.Weight > 100 {
			return nil, c.errf(at.String()+".weight", "must be in the range 1-100, found %d", w.Weight)
		}
		t, err := c.podAffinityTerm(&w.Term, &lazyPath{up: &at, name: ".podAffinityTerm", idx: -1}, labels)
		if err != nil {
			return nil, err
		}
		out[i] = index.WeightedPodAffinityTerm{Weight: w.Weight, Term: t}
	}
	return out, nil
}

// podAffinityTerm converts one term: the topologyKey is required;
// matchLabelKeys and mismatchLabelKeys need a labelSelector and may not
// share a key (ValidateMatchLabelKeysAndMismatchLabelKeys), and are merged
// into it as the API server does at admission; a term without namespaces
// and namespaceSelector selects the pod's own namespace.
func (c *objCtx) podAffinityTerm(w *wirePodAffinityTerm, at *lazyPath, labels map[string]string) (index.PodAffinityTerm, error) {
	t := index.PodAffinityTerm{TopologyKey: w.TopologyKey, Namespaces: w.Namespaces,
		MatchLabelKeys: w.MatchLabelKeys, MismatchLabelKeys: w.MismatchLabelKeys}
	var err error
	if t.Selector, err = c.selector(w.LabelSelector, &lazyPath{up: at, name: ".labelSelector", idx: -1}, true); err != nil {
		return t, err
	}
	if t.NamespaceSelector, err = c.selector(w.NamespaceSelector, &lazyPath{up: at, name: ".namespaceSelector", idx: -1}, true); err != nil {
		return t, err
	}
	if t.TopologyKey == "" {
		return t, c.errf(at.String()+".topologyKey", "missing")
	}
	if t.Selector == nil {
		if len(t.MatchLabelKeys) > 0 {
			return t, c.errf(at.String()+".matchLabelKeys", "must not be set when labelSelector is not set")
		}
		if len(t.MismatchLabelKeys) > 0 {
			return t, c.errf(at.String()+".mismatchLabelKeys", "must not be set when labelSelector is not set")
		}
	}
	for i, k := range t.MatchLabelKeys {
		if slices.Contains(t.MismatchLabelKeys, k) {
			return t, c.errf(fmt.Sprintf("%s.matchLabelKeys[%d]", at.String(), i), "%q is also in mismatchLabelKeys", k)
		}
	}
	if t.Selector != nil {
		mergeLabelKeys(t.Selector, t.MatchLabelKeys, index.SelIn, labels)
		mergeLabelKeys(t.Selector, t.MismatchLabelKeys, index.SelNotIn, labels)
	}
	if len(t.Namespaces) == 0 && t.NamespaceSelector == nil {
		t.Namespaces = []string{c.ns}
	}
	return t, nil
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
