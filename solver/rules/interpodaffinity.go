package rules

// InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity, with
// fwk.AffinityTerm): required affinity (each term's domain on the node
// must hold a pod matching all the pod's terms, unless no such pod exists
// anywhere and the pod matches its own terms), required anti-affinity (no
// pod matching a term in the term's domain) and existing pods' required
// anti-affinity (no pod whose term matches the incoming pod in that term's
// domain) filter; preferred terms, both ways, and existing pods' required
// affinity (hardPodAffinityWeight) score, min-max normalised.

import (
	"github.com/kplace/kplace/index"
	"k8s.io/apimachinery/pkg/labels"
)

// Term is a pod (anti-)affinity term resolved for matching pods.
type Term struct {
	Key   string
	sel   labels.Selector
	names map[string]bool
	nsSel labels.Selector
}

// IncomingTerm resolves a term of the pod being scheduled: a non-empty
// namespaceSelector becomes the names of the Namespace objects it selects
// (mergeAffinityTermNamespacesIfNotEmpty); an empty one selects every
// namespace.
func IncomingTerm(t *index.PodAffinityTerm, namespaces []index.Namespace) Term {
	out := ExistingTerm(t)
	if t.NamespaceSelector != nil && !out.nsSel.Empty() {
		for i := range namespaces {
			if out.nsSel.Matches(labels.Set(namespaces[i].Labels)) {
				out.names[namespaces[i].Name] = true
			}
		}
		out.nsSel = labels.Nothing()
	}
	return out
}

// ExistingTerm resolves a term of a bound pod: its namespaceSelector is
// matched against the incoming pod's namespace labels (see Matches).
func ExistingTerm(t *index.PodAffinityTerm) Term {
	out := Term{Key: t.TopologyKey, names: map[string]bool{}}
	out.sel, _ = LabelSelector(t.Selector)
	out.nsSel, _ = LabelSelector(t.NamespaceSelector)
	for _, ns := range t.Namespaces {
		out.names[ns] = true
	}
	return out
}

// Matches reports whether term t selects pod p, whose namespace carries
// labels nsLabels (nil when it has no Namespace object).
func (t *Term) Matches(p *index.Pod, nsLabels map[string]string) bool {
	if !t.names[p.Namespace] && !t.nsSel.Matches(labels.Set(nsLabels)) {
		return false
	}
	return t.sel.Matches(labels.Set(p.Labels))
}

// MatchesAll reports whether p matches every term (false without terms):
// whether p counts for a required affinity, and whether a pod matches its
// own affinity terms.
func MatchesAll(terms []Term, p *index.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(p, nil) {
			return false
		}
	}
	return true
}

// AffinityOK is the required-affinity test of a node: it carries every
// term's key (hasKeys), and every term's domain there holds a pod matching
// all the terms (exist), or no such pod exists anywhere (none) and the pod
// matches its own terms (self).
func AffinityOK(hasKeys, exist, none, self bool) bool {
	return hasKeys && (exist || none && self)
}

// HardAffinityWeight is what an existing pod's required affinity term adds
// to its domain for an incoming pod it matches: InterPodAffinityArgs'
// hardPodAffinityWeight (nil: the default, 1; 0 turns it off).
func HardAffinityWeight(arg *int32) int64 {
	if arg == nil {
		return DefaultHardAffinityWeight
	}
	return int64(*arg)
}

// ScoresPod reports whether the plugin scores pod p at all: with
// ignorePreferredTermsOfExistingPods, only a pod with preferred terms of
// its own.
func ScoresPod(ignorePreferred bool, p *index.Pod) bool {
	return !ignorePreferred || len(p.PreferredAffinity) > 0 || len(p.PreferredAntiAffinity) > 0
}

// PodAffinityScore is the weighted normalised score of a node whose raw score
// (the summed term weights of its domains) is s, given the least and
// highest raw scores over the nodes scored.
func PodAffinityScore(s, lo, hi int64) int64 {
	if hi <= lo {
		return 0
	}
	return WeightInterPodAffinity * int64(float64(MaxNodeScore)*(float64(s-lo)/float64(hi-lo)))
}
