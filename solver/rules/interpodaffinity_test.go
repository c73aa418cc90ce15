package rules

import (
	"testing"

	"github.com/kplace/kplace/index"
)

// TestTermMatches: a term selects pods by namespace (its list, or its
// namespaceSelector) and labels; an incoming pod's namespaceSelector is
// resolved to the Namespace objects it selects, an existing pod's is
// matched against the incoming pod's namespace labels.
func TestTermMatches(t *testing.T) {
	nss := []index.Namespace{{Name: "prod", Labels: map[string]string{"env": "prod"}}, {Name: "dev", Labels: map[string]string{"env": "dev"}}}
	web := &index.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	pod := func(ns string) *index.Pod { return &index.Pod{Namespace: ns, Labels: map[string]string{"app": "web"}} }
	envProd := &index.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	notDev := &index.LabelSelector{MatchExpressions: []index.Requirement{{Key: "env", Operator: "NotIn", Values: []string{"dev"}}}}
	for _, tc := range []struct {
		name     string
		term     index.PodAffinityTerm
		incoming bool
		p        *index.Pod
		nsLabels map[string]string
		want     bool
	}{
		{"own namespace", index.PodAffinityTerm{Selector: web, Namespaces: []string{"prod"}}, true, pod("prod"), nil, true},
		{"another namespace", index.PodAffinityTerm{Selector: web, Namespaces: []string{"prod"}}, true, pod("dev"), nil, false},
		{"labels differ", index.PodAffinityTerm{Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, Namespaces: []string{"prod"}}, true, pod("prod"), nil, false},
		{"nil selector matches nothing", index.PodAffinityTerm{Namespaces: []string{"prod"}}, true, pod("prod"), nil, false},
		{"empty selector matches every pod", index.PodAffinityTerm{Selector: &index.LabelSelector{}, Namespaces: []string{"prod"}}, true, pod("prod"), nil, true},
		{"incoming: namespaceSelector resolved", index.PodAffinityTerm{Selector: web, NamespaceSelector: envProd}, true, pod("prod"), nil, true},
		{"incoming: namespaceSelector other", index.PodAffinityTerm{Selector: web, NamespaceSelector: envProd}, true, pod("dev"), nil, false},
		{"incoming: no Namespace object", index.PodAffinityTerm{Selector: web, NamespaceSelector: notDev}, true, pod("test"), nil, false},
		{"empty namespaceSelector: every namespace", index.PodAffinityTerm{Selector: web, NamespaceSelector: &index.LabelSelector{}}, true, pod("anything"), nil, true},
		{"existing: against the pod's namespace labels", index.PodAffinityTerm{Selector: web, NamespaceSelector: envProd}, false, pod("prod"), map[string]string{"env": "prod"}, true},
		{"existing: no Namespace object, NotIn matches", index.PodAffinityTerm{Selector: web, NamespaceSelector: notDev}, false, pod("test"), nil, true},
		{"namespaces and selector are ORed", index.PodAffinityTerm{Selector: web, Namespaces: []string{"dev"}, NamespaceSelector: envProd}, true, pod("dev"), nil, true},
	} {
		var term Term
		if tc.incoming {
			term = IncomingTerm(&tc.term, nss)
		} else {
			term = ExistingTerm(&tc.term)
		}
		if got := term.Matches(tc.p, tc.nsLabels); got != tc.want {
			t.Errorf("%s: Matches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestAffinityOK: every term's domain holds a pod matching all terms, or
// there is none anywhere and the pod matches its own terms (the first pod
// of a group); a node lacking a term's key fails.
func TestAffinityOK(t *testing.T) {
	for _, tc := range []struct {
		hasKeys, exist, none, self, want bool
	}{
		{true, true, false, false, true},
		{true, false, false, true, false},
		{true, false, true, true, true},
		{true, false, true, false, false},
		{false, true, false, true, false},
		{false, false, true, true, false},
	} {
		if got := AffinityOK(tc.hasKeys, tc.exist, tc.none, tc.self); got != tc.want {
			t.Errorf("AffinityOK(%+v) = %v", tc, got)
		}
	}
	terms := []Term{IncomingTerm(&index.PodAffinityTerm{Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Namespaces: []string{"ns"}}, nil),
		IncomingTerm(&index.PodAffinityTerm{Selector: &index.LabelSelector{MatchLabels: map[string]string{"tier": "front"}}, Namespaces: []string{"ns"}}, nil)}
	if !MatchesAll(terms, &index.Pod{Namespace: "ns", Labels: map[string]string{"app": "web", "tier": "front"}}) ||
		MatchesAll(terms, &index.Pod{Namespace: "ns", Labels: map[string]string{"app": "web"}}) || MatchesAll(nil, &index.Pod{}) {
		t.Error("MatchesAll: a pod must match every term, and no terms match no pod")
	}
}

// TestPodAffinityScore: min-max normalised (weight 2), 0 everywhere when
// all scores are equal; the hard weight and whether the plugin scores.
func TestPodAffinityScore(t *testing.T) {
	for _, tc := range []struct{ s, lo, hi, want int64 }{{5, -5, 5, 200}, {0, -5, 5, 100}, {-5, -5, 5, 0}, {3, 3, 3, 0}, {1, 0, 3, 66}} {
		if got := PodAffinityScore(tc.s, tc.lo, tc.hi); got != tc.want {
			t.Errorf("PodAffinityScore(%d, %d, %d) = %d, want %d", tc.s, tc.lo, tc.hi, got, tc.want)
		}
	}
	zero, five := int32(0), int32(5)
	if HardAffinityWeight(nil) != 1 || HardAffinityWeight(&zero) != 0 || HardAffinityWeight(&five) != 5 {
		t.Error("HardAffinityWeight: the default is 1")
	}
	withPref := &index.Pod{PreferredAntiAffinity: []index.WeightedPodAffinityTerm{{Weight: 1}}}
	if !ScoresPod(false, &index.Pod{}) || ScoresPod(true, &index.Pod{}) || !ScoresPod(true, withPref) {
		t.Error("ScoresPod: with ignorePreferredTermsOfExistingPods only pods with preferred terms are scored")
	}
}
