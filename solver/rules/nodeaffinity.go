package rules

// NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity, with
// k8s.io/component-helpers/scheduling/corev1/nodeaffinity): the pod's
// nodeSelector AND its required node affinity (terms ORed, requirements in
// a term ANDed) filter nodes; a PreFilter restricts the nodes to those
// named by matchFields metadata.name In; the preferred terms' weights are
// scored and normalised.

import "github.com/kplace/kplace/index"

// FieldNodeName is the only node field matchFields can name.
const FieldNodeName = index.FieldNodeName

// RequirementValid reports whether a matchExpressions requirement parses
// (labels.NewRequirement: a known operator, a valid key, In and NotIn with
// values, Exists and DoesNotExist without, Gt and Lt with one integer). A
// term holding an invalid requirement matches no node. The definition is
// index.Requirement.Valid, which index's node sets use too.
func RequirementValid(r *index.Requirement) bool { return r.Valid() }

// MatchRequirement reports whether a valid requirement matches a node
// whose label r.Key is value (present: whether it has the label):
// index.Requirement.Matches.
func MatchRequirement(r *index.Requirement, value string, present bool) bool {
	return r.Matches(value, present)
}

// FieldRequirementValid reports whether a matchFields requirement parses:
// In or NotIn with exactly one value (index.Requirement.FieldValid).
func FieldRequirementValid(r *index.Requirement) bool { return r.FieldValid() }

// MatchFieldRequirement reports whether a valid matchFields requirement
// matches the node named name: the only field is metadata.name, any other
// key reads as "" (index.Requirement.MatchesField).
func MatchFieldRequirement(r *index.Requirement, name string) bool { return r.MatchesField(name) }

// EmptyTerm reports whether a term has no requirement: it matches nothing
// (index.EmptyTerm).
func EmptyTerm(t *index.NodeSelectorTerm) bool { return index.EmptyTerm(t) }

// MatchTerm reports whether node nd matches term t: every requirement
// matches; an empty term or one with an invalid requirement matches
// nothing. matchFields are not read for a node without a name.
func MatchTerm(t *index.NodeSelectorTerm, nd *index.Node) bool {
	if EmptyTerm(t) {
		return false
	}
	for i := range t.MatchExpressions {
		r := &t.MatchExpressions[i]
		if !RequirementValid(r) {
			return false
		}
		v, ok := nd.Labels[r.Key]
		if !MatchRequirement(r, v, ok) {
			return false
		}
	}
	for i := range t.MatchFields {
		if !FieldRequirementValid(&t.MatchFields[i]) {
			return false
		}
	}
	if nd.Name == "" {
		return true
	}
	for i := range t.MatchFields {
		if !MatchFieldRequirement(&t.MatchFields[i], nd.Name) {
			return false
		}
	}
	return true
}

// RequiredAffinity reports whether node nd passes p's nodeSelector and
// required node affinity (GetRequiredNodeAffinity(p).Match).
func RequiredAffinity(p *index.Pod, nd *index.Node) bool {
	if !MatchLabelMap(p.NodeSelector, nd.Labels) { // the nodeSelector
		return false
	}
	if !p.HasRequired {
		return true
	}
	for i := range p.RequiredTerms {
		if MatchTerm(&p.RequiredTerms[i], nd) {
			return true
		}
	}
	return false
}

// AffinityFilter is the filter: NodeAffinityMismatch or None.
func AffinityFilter(p *index.Pod, nd *index.Node) Reason {
	if RequiredAffinity(p, nd) {
		return None
	}
	return NodeAffinityMismatch
}

// PreFilterNodeNames is the PreFilter: when every required term names
// nodes through matchFields metadata.name In, the union over the terms of
// each term's intersection of those names (ok); conflict when that union
// is empty (the pod is unschedulable at once).
func PreFilterNodeNames(p *index.Pod) (names map[string]bool, conflict, ok bool) {
	if !p.HasRequired || len(p.RequiredTerms) == 0 {
		return nil, false, false
	}
	union := map[string]bool{}
	for i := range p.RequiredTerms {
		var inter map[string]bool
		for _, r := range p.RequiredTerms[i].MatchFields {
			if r.Key != FieldNodeName || r.Operator != index.SelIn {
				continue
			}
			s := map[string]bool{}
			for _, v := range r.Values {
				if inter == nil || inter[v] {
					s[v] = true
				}
			}
			inter = s
		}
		if inter == nil {
			return nil, false, false
		}
		for v := range inter {
			union[v] = true
		}
	}
	return union, len(union) == 0, true
}

// PreferredAffinityScore is the raw score: the summed weights of p's
// preferred terms that node nd matches (terms of weight 0 and empty terms
// count for nothing).
func PreferredAffinityScore(p *index.Pod, nd *index.Node) int64 {
	var sum int64
	for i := range p.PreferredTerms {
		pt := &p.PreferredTerms[i]
		if pt.Weight != 0 && MatchTerm(&pt.Term, nd) {
			sum += int64(pt.Weight)
		}
	}
	return sum
}

// AffinityScore is the weighted score of a node with raw preferred weight
// sum raw, given the highest raw value over the nodes scored.
func AffinityScore(raw, maxRaw int64) int64 {
	return WeightNodeAffinity * NormalizeScore(raw, maxRaw, false)
}
