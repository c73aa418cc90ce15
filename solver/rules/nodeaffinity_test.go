package rules

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

func req(key, op string, values ...string) index.Requirement {
	return index.Requirement{Key: key, Operator: op, Values: values}
}

func exprs(rs ...index.Requirement) index.NodeSelectorTerm {
	return index.NodeSelectorTerm{MatchExpressions: rs}
}

// TestMatchTerm covers every operator, invalid requirements (the term then
// matches nothing), matchFields and the empty term.
func TestMatchTerm(t *testing.T) {
	nd := &index.Node{Name: "node1", Labels: map[string]string{"zone": "zoneA", "gen": "5", "disk": "ssd"}}
	for _, tc := range []struct {
		name string
		term index.NodeSelectorTerm
		want bool
	}{
		{"In", exprs(req("zone", "In", "zoneB", "zoneA")), true},
		{"In other values", exprs(req("zone", "In", "zoneB")), false},
		{"In missing key", exprs(req("rack", "In", "r1")), false},
		{"NotIn", exprs(req("zone", "NotIn", "zoneC")), true},
		{"NotIn listed", exprs(req("zone", "NotIn", "zoneA")), false},
		{"NotIn missing key", exprs(req("rack", "NotIn", "r1")), true},
		{"Exists", exprs(req("disk", "Exists")), true},
		{"DoesNotExist", exprs(req("disk", "DoesNotExist")), false},
		{"DoesNotExist missing", exprs(req("rack", "DoesNotExist")), true},
		{"Gt", exprs(req("gen", "Gt", "4")), true},
		{"Gt equal", exprs(req("gen", "Gt", "5")), false},
		{"Lt", exprs(req("gen", "Lt", "6")), true},
		{"Lt on a non-integer label", exprs(req("zone", "Lt", "6")), false},
		{"ANDed", exprs(req("zone", "In", "zoneA"), req("gen", "Gt", "7")), false},
		{"invalid: In without values", exprs(req("zone", "In")), false},
		{"invalid: NotIn without values", exprs(req("zone", "NotIn")), false},
		{"invalid: Exists with values", exprs(req("disk", "Exists", "ssd")), false},
		{"invalid: Gt with a non-integer", exprs(req("gen", "Gt", "four")), false},
		{"invalid: Gt with two values", exprs(req("gen", "Gt", "1", "2")), false},
		{"invalid: unknown operator", exprs(req("zone", "Equals", "zoneA")), false},
		{"invalid: bad key", exprs(req("bad key", "Exists")), false},
		{"fields In", index.NodeSelectorTerm{MatchFields: []index.Requirement{req("metadata.name", "In", "node1")}}, true},
		{"fields In another", index.NodeSelectorTerm{MatchFields: []index.Requirement{req("metadata.name", "In", "node2")}}, false},
		{"fields NotIn", index.NodeSelectorTerm{MatchFields: []index.Requirement{req("metadata.name", "NotIn", "node2")}}, true},
		{"fields other key reads empty", index.NodeSelectorTerm{MatchFields: []index.Requirement{req("spec.x", "In", "")}}, true},
		{"fields two values are invalid", index.NodeSelectorTerm{MatchFields: []index.Requirement{req("metadata.name", "In", "node1", "node2")}}, false},
		{"fields and expressions", index.NodeSelectorTerm{MatchExpressions: []index.Requirement{req("zone", "In", "zoneA")}, MatchFields: []index.Requirement{req("metadata.name", "In", "node1")}}, true},
		{"empty term", index.NodeSelectorTerm{}, false},
	} {
		if got := MatchTerm(&tc.term, nd); got != tc.want {
			t.Errorf("%s: MatchTerm = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRequiredAffinity: nodeSelector AND the ORed required terms; the
// seed's example excludes zone C with NotIn.
func TestRequiredAffinity(t *testing.T) {
	cites(t, "topology-spread-constraints.uk.txt: operator: NotIn")
	zone := func(z string) *index.Node {
		return &index.Node{Name: "n-" + z, Labels: map[string]string{"zone": z, "disk": "ssd"}}
	}
	notC := index.Pod{HasRequired: true, RequiredTerms: []index.NodeSelectorTerm{exprs(req("zone", "NotIn", "zoneC"))}}
	for _, tc := range []struct {
		name string
		p    index.Pod
		nd   *index.Node
		want bool
	}{
		{"seed: zone A passes NotIn zoneC", notC, zone("zoneA"), true},
		{"seed: zone C fails NotIn zoneC", notC, zone("zoneC"), false},
		{"no affinity", index.Pod{}, zone("zoneC"), true},
		{"nodeSelector", index.Pod{NodeSelector: map[string]string{"disk": "ssd"}}, zone("zoneC"), true},
		{"nodeSelector mismatch", index.Pod{NodeSelector: map[string]string{"disk": "hdd"}}, zone("zoneA"), false},
		{"nodeSelector AND terms", index.Pod{NodeSelector: map[string]string{"disk": "ssd"}, HasRequired: true,
			RequiredTerms: []index.NodeSelectorTerm{exprs(req("zone", "In", "zoneB"))}}, zone("zoneA"), false},
		{"terms ORed", index.Pod{HasRequired: true, RequiredTerms: []index.NodeSelectorTerm{exprs(req("zone", "In", "zoneB")), exprs(req("zone", "In", "zoneA"))}}, zone("zoneA"), true},
		{"required with no terms matches nothing", index.Pod{HasRequired: true}, zone("zoneA"), false},
		{"an empty term matches nothing", index.Pod{HasRequired: true, RequiredTerms: []index.NodeSelectorTerm{{}}}, zone("zoneA"), false},
	} {
		if got := RequiredAffinity(&tc.p, tc.nd); got != tc.want {
			t.Errorf("%s: RequiredAffinity = %v, want %v", tc.name, got, tc.want)
		}
		want := NodeAffinityMismatch
		if tc.want {
			want = None
		}
		if got := AffinityFilter(&tc.p, tc.nd); got != want {
			t.Errorf("%s: AffinityFilter = %v, want %v", tc.name, got, want)
		}
	}
}

// TestRequiredAffinityAgainstComponentHelpers compares RequiredAffinity
// with k8s.io/component-helpers' GetRequiredNodeAffinity on random pods
// and nodes.
func TestRequiredAffinityAgainstComponentHelpers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := []string{"zone", "gen", "disk", "bad key"}
	values := []string{"a", "b", "1", "7", "x y", ""}
	ops := []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bogus"}
	randReq := func(fields bool) index.Requirement {
		rq := index.Requirement{Key: keys[r.IntN(len(keys))], Operator: ops[r.IntN(len(ops))]}
		if fields {
			rq.Key = []string{"metadata.name", "spec.x"}[r.IntN(2)]
			rq.Operator = []string{"In", "NotIn", "Exists"}[r.IntN(3)]
		}
		for range r.IntN(3) {
			v := values[r.IntN(len(values))]
			if fields {
				v = []string{"n1", "n2", ""}[r.IntN(3)]
			}
			rq.Values = append(rq.Values, v)
		}
		return rq
	}
	for i := range 20000 {
		nd := &index.Node{Name: []string{"n1", "n2"}[r.IntN(2)], Labels: map[string]string{}}
		for _, k := range keys[:3] {
			if r.IntN(3) != 0 {
				nd.Labels[k] = values[r.IntN(len(values))]
			}
		}
		p := &index.Pod{}
		if r.IntN(3) == 0 {
			p.NodeSelector = map[string]string{keys[r.IntN(3)]: values[r.IntN(len(values))]}
		}
		if r.IntN(4) != 0 {
			p.HasRequired = true
			for range r.IntN(3) {
				var term index.NodeSelectorTerm
				for range r.IntN(3) {
					term.MatchExpressions = append(term.MatchExpressions, randReq(false))
				}
				for range r.IntN(2) {
					term.MatchFields = append(term.MatchFields, randReq(true))
				}
				p.RequiredTerms = append(p.RequiredTerms, term)
			}
		}
		vp := &v1.Pod{Spec: v1.PodSpec{NodeSelector: p.NodeSelector}}
		if p.HasRequired {
			ns := &v1.NodeSelector{}
			for _, term := range p.RequiredTerms {
				ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, v1.NodeSelectorTerm{MatchExpressions: v1Reqs(term.MatchExpressions), MatchFields: v1Reqs(term.MatchFields)})
			}
			vp.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: ns}}
		}
		vn := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: nd.Name, Labels: maps.Clone(nd.Labels)}}
		want, _ := nodeaffinity.GetRequiredNodeAffinity(vp).Match(vn)
		if got := RequiredAffinity(p, nd); got != want {
			t.Fatalf("case %d: pod %+v on node %+v: RequiredAffinity = %v, component-helpers %v", i, p, nd, got, want)
		}
	}
}

func v1Reqs(rs []index.Requirement) []v1.NodeSelectorRequirement {
	var out []v1.NodeSelectorRequirement
	for _, rq := range rs {
		out = append(out, v1.NodeSelectorRequirement{Key: rq.Key, Operator: v1.NodeSelectorOperator(rq.Operator), Values: rq.Values})
	}
	return out
}

// TestPreFilterNodeNames: the union over terms of the intersection of each
// term's metadata.name In sets; no restriction unless every term has one;
// a conflict when the union is empty.
func TestPreFilterNodeNames(t *testing.T) {
	field := func(rs ...index.Requirement) index.NodeSelectorTerm { return index.NodeSelectorTerm{MatchFields: rs} }
	for _, tc := range []struct {
		name     string
		terms    []index.NodeSelectorTerm
		want     string
		conflict bool
		ok       bool
	}{
		{"one term", []index.NodeSelectorTerm{field(req("metadata.name", "In", "a", "b"))}, "map[a:true b:true]", false, true},
		{"intersection within a term", []index.NodeSelectorTerm{field(req("metadata.name", "In", "a", "b"), req("metadata.name", "In", "b", "c"))}, "map[b:true]", false, true},
		{"union over terms", []index.NodeSelectorTerm{field(req("metadata.name", "In", "a")), field(req("metadata.name", "In", "c"))}, "map[a:true c:true]", false, true},
		{"conflict", []index.NodeSelectorTerm{field(req("metadata.name", "In", "a"), req("metadata.name", "In", "b"))}, "map[]", true, true},
		{"a term without names", []index.NodeSelectorTerm{field(req("metadata.name", "In", "a")), exprs(req("zone", "Exists"))}, "map[]", false, false},
		{"NotIn restricts nothing", []index.NodeSelectorTerm{field(req("metadata.name", "NotIn", "a"))}, "map[]", false, false},
	} {
		p := &index.Pod{HasRequired: true, RequiredTerms: tc.terms}
		names, conflict, ok := PreFilterNodeNames(p)
		if got := fmt.Sprint(names); ok != tc.ok || conflict != tc.conflict || ok && got != tc.want {
			t.Errorf("%s: PreFilterNodeNames = %s %v %v, want %s %v %v", tc.name, got, conflict, ok, tc.want, tc.conflict, tc.ok)
		}
	}
	if _, _, ok := PreFilterNodeNames(&index.Pod{}); ok {
		t.Error("a pod without required affinity is restricted")
	}
}

// TestPreferredAffinityScore: the weights of the matching preferred terms,
// normalised by the highest (weight 2).
func TestPreferredAffinityScore(t *testing.T) {
	p := &index.Pod{PreferredTerms: []index.PreferredTerm{
		{Weight: 30, Term: exprs(req("disk", "In", "ssd"))},
		{Weight: 70, Term: exprs(req("zone", "In", "zoneA"))},
		{Weight: 0, Term: exprs(req("zone", "Exists"))},
		{Weight: 50, Term: index.NodeSelectorTerm{}},
	}}
	for _, tc := range []struct {
		labels map[string]string
		want   int64
	}{
		{map[string]string{"disk": "ssd", "zone": "zoneA"}, 100},
		{map[string]string{"disk": "ssd"}, 30},
		{map[string]string{"zone": "zoneB"}, 0},
	} {
		if got := PreferredAffinityScore(p, &index.Node{Name: "n", Labels: tc.labels}); got != tc.want {
			t.Errorf("PreferredAffinityScore(%v) = %d, want %d", tc.labels, got, tc.want)
		}
	}
	for _, tc := range []struct{ raw, max, want int64 }{{30, 100, 60}, {100, 100, 200}, {0, 0, 0}, {1, 3, 66}} {
		if got := AffinityScore(tc.raw, tc.max); got != tc.want {
			t.Errorf("AffinityScore(%d, %d) = %d, want %d", tc.raw, tc.max, got, tc.want)
		}
	}
}
