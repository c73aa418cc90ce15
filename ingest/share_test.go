package ingest

import (
	"reflect"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestSharer: pods with equal node selectors, tolerations, requests, images and
// owner share one copy; unequal ones keep their own; an append to a shared
// list copies it rather than write into another pod's.
func TestSharer(t *testing.T) {
	s := newSharer()
	sec := int64(300)
	mk := func(app string, secs int64) index.Pod {
		v := secs
		return index.Pod{
			NodeSelector: map[string]string{"app": app, "tier": "web"},
			Tolerations:  append(make([]index.Toleration, 0, 4), index.Toleration{Key: "k", Operator: index.OpExists, Effect: index.EffectNoExecute, TolerationSeconds: &v}),
			Requests:     index.ResourceList{{Name: index.NameCPU, Value: 100}},
			Images:       []string{"nginx:1.27"},
			Owner:        &index.OwnerRef{Kind: "ReplicaSet", Name: "web-1", APIVersion: "apps/v1", UID: "u1"},
		}
	}
	a, b, c := mk("web", sec), mk("web", sec), mk("api", sec)
	d := mk("web", 60)
	for _, p := range []*index.Pod{&a, &b, &c, &d} {
		s.share(p)
	}
	if mapID(a.NodeSelector) != mapID(b.NodeSelector) || mapID(a.NodeSelector) == mapID(c.NodeSelector) {
		t.Errorf("node selectors: a and b must share, a and c not")
	}
	if &a.Tolerations[0] != &b.Tolerations[0] || &a.Tolerations[0] == &d.Tolerations[0] {
		t.Errorf("tolerations: a and b must share, a and d (other seconds) not")
	}
	if &a.Requests[0] != &c.Requests[0] || &a.Images[0] != &c.Images[0] || a.Owner != c.Owner {
		t.Errorf("requests, images and owner: equal values must be shared")
	}
	if cap(a.Tolerations) != len(a.Tolerations) {
		t.Fatalf("a shared list has spare capacity %d: an append would write into it", cap(a.Tolerations)-len(a.Tolerations))
	}
	a.Tolerations = append(a.Tolerations, index.Toleration{Key: "x"})
	if len(b.Tolerations) != 1 || &a.Tolerations[0] == &b.Tolerations[0] {
		t.Errorf("append to a's tolerations changed b's")
	}
	if a.NodeSelector["app"] != "web" || c.NodeSelector["app"] != "api" || *d.Tolerations[0].TolerationSeconds != 60 {
		t.Errorf("values changed by sharing")
	}
}

// mapID is a map's identity.
func mapID(m map[string]string) uintptr { return reflect.ValueOf(m).Pointer() }

// termVariants are pods' own spread constraints and pod (anti-)affinity
// terms: variant 0, then variants that each differ from it in one detail
// (none may share its lists), then a copy of variant 0 made apart (it must).
func termVariants() []index.Pod {
	sel := func(v string) *index.LabelSelector {
		return &index.LabelSelector{MatchLabels: map[string]string{"app": v},
			MatchExpressions: []index.Requirement{{Key: "tier", Operator: index.SelIn, Values: []string{"web", "api"}}}}
	}
	term := func() index.PodAffinityTerm {
		return index.PodAffinityTerm{Selector: sel("web"), TopologyKey: "kubernetes.io/hostname", Namespaces: []string{"a"},
			MatchLabelKeys: []string{"pod-template-hash"}}
	}
	base := func() index.Pod {
		return index.Pod{
			Spread: []index.SpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: "DoNotSchedule",
				Selector: sel("web"), MinDomains: 1, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Ignore"}},
			Affinity:              []index.PodAffinityTerm{term()},
			AntiAffinity:          []index.PodAffinityTerm{term()},
			PreferredAffinity:     []index.WeightedPodAffinityTerm{{Weight: 10, Term: term()}},
			PreferredAntiAffinity: []index.WeightedPodAffinityTerm{{Weight: 20, Term: term()}},
		}
	}
	pods := []index.Pod{base()}
	for _, f := range []func(p *index.Pod){
		func(p *index.Pod) { p.Spread[0].MaxSkew = 2 },
		func(p *index.Pod) { p.Spread[0].WhenUnsatisfiable = "ScheduleAnyway" },
		func(p *index.Pod) { p.Spread[0].NodeTaintsPolicy = "Honor" },
		func(p *index.Pod) { p.Spread[0].Selector.MatchLabels["app"] = "api" },
		func(p *index.Pod) { p.Spread[0].Selector.MatchLabels = nil },
		func(p *index.Pod) { p.Spread[0].Selector = nil },
		func(p *index.Pod) { p.Spread[0].MatchLabelKeys = []string{"app"} },
		func(p *index.Pod) { p.Affinity[0].Selector.MatchExpressions[0].Values = []string{"web"} },
		func(p *index.Pod) { p.Affinity[0].Namespaces = []string{"b"} },
		func(p *index.Pod) { p.AntiAffinity[0].TopologyKey = "topology.kubernetes.io/zone" },
		func(p *index.Pod) { p.AntiAffinity[0].NamespaceSelector = &index.LabelSelector{} },
		func(p *index.Pod) { p.AntiAffinity[0].MismatchLabelKeys = []string{"app"} },
		func(p *index.Pod) { p.PreferredAffinity[0].Weight = 11 },
		func(p *index.Pod) {
			p.PreferredAntiAffinity[0].Term.Selector.MatchExpressions[0].Operator = index.SelNotIn
		},
	} {
		p := base()
		f(&p)
		pods = append(pods, p)
	}
	return append(pods, base())
}

// checkTermsShared checks what termVariants' pods hold after sharing: the
// values they were made with (want), the lists of variant 0 and its copy
// shared field by field, the one-detail variants' lists of that field not.
func checkTermsShared(t *testing.T, got, want []index.Pod) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sharing changed the terms")
	}
	fields := []struct {
		name  string
		first func(p *index.Pod) any
	}{
		{"spread", func(p *index.Pod) any { return &p.Spread[0] }},
		{"affinity", func(p *index.Pod) any { return &p.Affinity[0] }},
		{"anti-affinity", func(p *index.Pod) any { return &p.AntiAffinity[0] }},
		{"preferred affinity", func(p *index.Pod) any { return &p.PreferredAffinity[0] }},
		{"preferred anti-affinity", func(p *index.Pod) any { return &p.PreferredAntiAffinity[0] }},
	}
	last := len(got) - 1
	for _, f := range fields {
		if f.first(&got[0]) != f.first(&got[last]) {
			t.Errorf("%s: equal lists not shared", f.name)
		}
		for i := 1; i < last; i++ {
			if f.first(&got[i]) == f.first(&got[0]) && !reflect.DeepEqual(f.first(&want[i]), f.first(&want[0])) {
				t.Errorf("%s: variant %d shares variant 0's list", f.name, i)
			}
		}
	}
	if l := got[last].Spread; cap(l) != len(l) {
		t.Errorf("a shared list has capacity %d past its %d elements: an append would write into it", cap(l), len(l))
	}
}

// TestSharerTerms: the parsers' sharer shares pods' equal spread
// constraints and pod (anti-)affinity lists, and only equal ones.
func TestSharerTerms(t *testing.T) {
	pods, want := termVariants(), termVariants()
	s := newSharer()
	for i := range pods {
		s.share(&pods[i])
	}
	checkTermsShared(t, pods, want)
}
