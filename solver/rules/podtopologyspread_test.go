package rules

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// skewOK is the filter over a domain count map, as a PreFilter state holds
// it: the node's domain v, the eligible domains' counts.
func skewOK(counts map[string]int32, v string, self, maxSkew, minDomains int32) bool {
	least := int32(math.MaxInt32)
	for _, k := range counts {
		least = min(least, k)
	}
	return SkewOK(counts[v], self, GlobalMin(least, int32(len(counts)), minDomains), maxSkew)
}

// TestSkewExcess: how many matching pods must leave a domain for the pod
// to pass (zone A of the seed example, [2, 1] with maxSkew 1: 1).
func TestSkewExcess(t *testing.T) {
	for _, tc := range []struct{ count, self, globalMin, maxSkew, want int32 }{
		{2, 1, 1, 1, 1}, {1, 1, 1, 1, 0}, {5, 1, 0, 2, 4}, {0, 0, 3, 1, -4},
	} {
		if got := SkewExcess(tc.count, tc.self, tc.globalMin, tc.maxSkew); got != tc.want {
			t.Errorf("SkewExcess(%d, %d, %d, %d) = %d, want %d", tc.count, tc.self, tc.globalMin, tc.maxSkew, got, tc.want)
		}
		if ok := SkewOK(tc.count, tc.self, tc.globalMin, tc.maxSkew); ok != (tc.want <= 0) {
			t.Errorf("SkewOK(%d, %d, %d, %d) = %v, want %v", tc.count, tc.self, tc.globalMin, tc.maxSkew, ok, tc.want <= 0)
		}
	}
}

// TestSkew runs the seed page's examples through the skew check.
func TestSkew(t *testing.T) {
	zones := map[string]int32{"zoneA": 2, "zoneB": 1} // foo: bar on node1, node2 (zone A) and node3 (zone B)
	nodes := map[string]int32{"node1": 1, "node2": 1, "node3": 1, "node4": 0}
	for _, tc := range []struct {
		name                      string
		cite                      string
		counts                    map[string]int32
		dom                       string
		self, maxSkew, minDomains int32
		want                      bool
	}{
		{"zone A would make [3, 1]", "topology-spread-constraints.uk.txt: Якщо планувальник розмістить цей новий Pod у зоні A", zones, "zoneA", 1, 1, 1, false},
		{"zone B", "topology-spread-constraints.uk.txt: новий Pod може бути розміщений лише на вузлі в зоні B", zones, "zoneB", 1, 1, 1, true},
		{"maxSkew 2 allows zone A", "topology-spread-constraints.uk.txt: Змініть\nmaxSkew", zones, "zoneA", 1, 2, 1, true},
		{"per node: node1", "topology-spread-constraints.uk.txt: новий Pod може бути розміщений лише на вузліnode4", nodes, "node1", 1, 1, 1, false},
		{"per node: node4", "", nodes, "node4", 1, 1, 1, true},
		{"a pod not matching its own selector adds nothing", "topology-spread-constraints.uk.txt: він все ще може бути розміщений на вузлах у зоніB", zones, "zoneA", 0, 1, 1, true},
		{"three zones 2, 2, 1: the global minimum is 1", "topology-spread-constraints.uk.txt: 3 зони з 2, 2 та 1", map[string]int32{"a": 2, "b": 2, "c": 1}, "a", 1, 1, 1, false},
		{"three zones 2, 2, 1: into the least", "", map[string]int32{"a": 2, "b": 2, "c": 1}, "c", 1, 1, 1, true},
		{"fewer domains than minDomains: the minimum is 0", "topology-spread-constraints.uk.txt: Коли кількість прийнятних доменів з відповідними ключами топології менше", zones, "zoneB", 1, 1, 3, false},
		{"as many domains as minDomains", "", zones, "zoneB", 1, 1, 2, true},
		{"no eligible domain", "", map[string]int32{}, "zoneA", 1, 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cites(t, tc.cite)
			if got := skewOK(tc.counts, tc.dom, tc.self, tc.maxSkew, tc.minDomains); got != tc.want {
				t.Errorf("skew check = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSpreadSelector: a nil selector counts nothing and matches nothing;
// an empty one counts nothing but matches the incoming pod itself.
func TestSpreadSelector(t *testing.T) {
	p := &index.Pod{Namespace: "ns", Labels: map[string]string{"foo": "bar"}}
	other := &index.Pod{Namespace: "other", Labels: map[string]string{"foo": "bar"}}
	for _, tc := range []struct {
		name       string
		sel        *index.LabelSelector
		counts     bool
		self       int32
		countsSame bool
	}{
		{"matchLabels", &index.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}}, true, 1, true},
		{"another value", &index.LabelSelector{MatchLabels: map[string]string{"foo": "baz"}}, true, 0, false},
		{"nil", nil, false, 0, false},
		{"empty", &index.LabelSelector{}, false, 1, false},
		{"invalid", &index.LabelSelector{MatchExpressions: []index.Requirement{{Key: "foo", Operator: "In"}}}, false, 0, false},
	} {
		sc := &index.SpreadConstraint{Selector: tc.sel}
		sel, counts := SpreadSelector(sc)
		if counts != tc.counts || SelfMatch(sc, p) != tc.self {
			t.Errorf("%s: counts %v self %d, want %v %d", tc.name, counts, SelfMatch(sc, p), tc.counts, tc.self)
		}
		if counts && Counts(sel, "ns", p) != tc.countsSame {
			t.Errorf("%s: Counts = %v", tc.name, !tc.countsSame)
		}
		if counts && Counts(sel, "ns", other) {
			t.Errorf("%s: a pod of another namespace counts", tc.name)
		}
	}
}

// TestIncludeNode: nodeAffinityPolicy Honor (default) counts only nodes
// passing the pod's required affinity; nodeTaintsPolicy Honor only nodes
// whose taints it tolerates.
func TestIncludeNode(t *testing.T) {
	p := &index.Pod{NodeSelector: map[string]string{"disk": "ssd"}}
	ssd := &index.Node{Name: "a", Labels: map[string]string{"disk": "ssd"}}
	hdd := &index.Node{Name: "b", Labels: map[string]string{"disk": "hdd"}}
	tainted := &index.Node{Name: "c", Labels: map[string]string{"disk": "ssd"}, Taints: []index.Taint{{Key: "k", Effect: "NoSchedule"}}}
	honor := &index.SpreadConstraint{NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore}
	ignore := &index.SpreadConstraint{NodeAffinityPolicy: index.PolicyIgnore, NodeTaintsPolicy: index.PolicyIgnore}
	taints := &index.SpreadConstraint{NodeAffinityPolicy: index.PolicyIgnore, NodeTaintsPolicy: index.PolicyHonor}
	for _, tc := range []struct {
		sc   *index.SpreadConstraint
		nd   *index.Node
		want bool
	}{
		{honor, ssd, true}, {honor, hdd, false}, {ignore, hdd, true}, {honor, tainted, true}, {taints, tainted, false}, {taints, hdd, true},
	} {
		if got := IncludeNode(tc.sc, p, tc.nd); got != tc.want {
			t.Errorf("IncludeNode(%+v, %s) = %v, want %v", *tc.sc, tc.nd.Name, got, tc.want)
		}
	}
}

// TestDefaultConstraints: the built-in defaults apply to a pod with no
// constraints of its own that a Service or controller selects, with their
// selectors ANDed.
func TestDefaultConstraints(t *testing.T) {
	cites(t, "topology-spread-constraints.uk.txt: topologyKey: zone")
	sel := func(m map[string]string) *index.LabelSelector { return &index.LabelSelector{MatchLabels: m} }
	wl := []index.Workload{
		{Kind: index.KindService, Namespace: "ns", Name: "svc", Selector: sel(map[string]string{"app": "web"})},
		{Kind: index.KindService, Namespace: "ns", Name: "other", Selector: sel(map[string]string{"app": "db"})},
		{Kind: index.KindService, Namespace: "ns", Name: "empty", Selector: sel(map[string]string{})},
		{Kind: index.KindReplicaSet, Namespace: "ns", Name: "rs", Selector: &index.LabelSelector{MatchLabels: map[string]string{"tier": "front"},
			MatchExpressions: []index.Requirement{{Key: "track", Operator: "NotIn", Values: []string{"canary"}}}}},
		{Kind: index.KindService, Namespace: "elsewhere", Name: "svc", Selector: sel(map[string]string{"zone": "x"})},
	}
	web := map[string]string{"app": "web", "tier": "front"}
	// The callers look the pod's Services and owner up; here, by a scan.
	defaultSelector := func(p *index.Pod) *index.LabelSelector {
		var services []*index.Workload
		var owner *index.Workload
		for i := range wl {
			w := &wl[i]
			if w.Namespace != p.Namespace {
				continue
			}
			if w.Kind == index.KindService {
				services = append(services, w)
			} else if k := OwnerKind(p); k == w.Kind && w.Name == p.Owner.Name {
				owner = w
			}
		}
		return DefaultSelector(p, slices.Values(services), owner)
	}
	for _, tc := range []struct {
		name string
		p    index.Pod
		want string
	}{
		{"service and ReplicaSet", index.Pod{Namespace: "ns", Labels: web, Owner: &index.OwnerRef{Kind: "ReplicaSet", Name: "rs", APIVersion: "apps/v1"}},
			"&{map[app:web tier:front] [{track NotIn [canary]}]}"},
		{"service alone", index.Pod{Namespace: "ns", Labels: web}, "&{map[app:web] []}"},
		{"owner of another group", index.Pod{Namespace: "ns", Labels: web, Owner: &index.OwnerRef{Kind: "ReplicaSet", Name: "rs", APIVersion: "extensions/v1beta1"}},
			"&{map[app:web] []}"},
		{"nothing selects it", index.Pod{Namespace: "ns", Labels: map[string]string{"app": "batch"}}, "<nil>"},
	} {
		if got := fmt.Sprint(defaultSelector(&tc.p)); got != tc.want {
			t.Errorf("%s: DefaultSelector = %s, want %s", tc.name, got, tc.want)
		}
	}
	own := index.Pod{Namespace: "ns", Labels: web, Spread: []index.SpreadConstraint{{MaxSkew: 1, TopologyKey: "zone"}}}
	if cs, defaulted := Constraints(&own, BuiltinDefaultConstraints(), func() *index.LabelSelector { return defaultSelector(&own) }); defaulted || len(cs) != 1 {
		t.Errorf("a pod's own constraints replace the defaults: %v %v", cs, defaulted)
	}
	p := index.Pod{Namespace: "ns", Labels: web}
	cs, defaulted := Constraints(&p, BuiltinDefaultConstraints(), func() *index.LabelSelector { return defaultSelector(&p) })
	if !defaulted || len(cs) != 2 || cs[0].TopologyKey != LabelHostname || cs[0].MaxSkew != 3 || cs[1].TopologyKey != LabelZone || cs[1].MaxSkew != 5 ||
		cs[0].WhenUnsatisfiable != index.ScheduleAnyway || fmt.Sprint(cs[1].Selector) != "&{map[app:web] []}" {
		t.Errorf("built-in defaults: %+v %v", cs, defaulted)
	}
	lone := index.Pod{Namespace: "ns"}
	if cs, _ := Constraints(&lone, BuiltinDefaultConstraints(), func() *index.LabelSelector { return defaultSelector(&lone) }); cs != nil {
		t.Errorf("defaults without a default selector: %+v", cs)
	}
	if !RequireAllKeys(index.DoNotSchedule, true, true) || RequireAllKeys(index.ScheduleAnyway, true, true) || !RequireAllKeys(index.ScheduleAnyway, false, true) || !RequireAllKeys(index.ScheduleAnyway, true, false) {
		t.Error("RequireAllKeys: only the built-in soft defaults score nodes lacking a key")
	}
}

// TestSpreadScore: per constraint count * log(domains + 2) + maxSkew - 1,
// rounded, then reversed min-max normalised (weight 2); ignored nodes 0.
func TestSpreadScore(t *testing.T) {
	w := NormalizingWeight(3) // three domains: log 5
	if math.Abs(w-math.Log(5)) > 1e-12 {
		t.Fatalf("NormalizingWeight(3) = %v", w)
	}
	// Two domains of counts 4 and 1, maxSkew 1.
	hi, lo := RoundSpread(ScoreForCount(4, 1, w)), RoundSpread(ScoreForCount(1, 1, w))
	if hi != 6 || lo != 2 {
		t.Fatalf("raw scores %d and %d, want 6 and 2", hi, lo)
	}
	for _, tc := range []struct {
		s, lo, hi int64
		ignored   bool
		want      int64
	}{
		{6, 2, 6, false, 2 * (100 * 2 / 6)}, // the fuller domain
		{2, 2, 6, false, 200},               // the emptier one scores most
		{0, 0, 0, false, 200},               // every node at 0
		{5, 2, 6, true, 0},                  // a node lacking a key
	} {
		if got := SpreadScore(tc.s, tc.lo, tc.hi, tc.ignored); got != tc.want {
			t.Errorf("SpreadScore(%d, %d, %d, %v) = %d, want %d", tc.s, tc.lo, tc.hi, tc.ignored, got, tc.want)
		}
	}
	if ScoreForCount(0, 3, w) != 2 {
		t.Error("maxSkew - 1 is added to every count")
	}
}

// TestHasKeys: a node counts for a pod's constraints of one action only
// when it has every one of their keys.
func TestHasKeys(t *testing.T) {
	cites(t, "topology-spread-constraints.uk.txt: Вузли, у яких відсутній будь-який з цихtopologyKey")
	cs := []index.SpreadConstraint{{TopologyKey: "zone", WhenUnsatisfiable: index.DoNotSchedule}, {TopologyKey: "node", WhenUnsatisfiable: index.DoNotSchedule},
		{TopologyKey: "rack", WhenUnsatisfiable: index.ScheduleAnyway}}
	if !HasKeys(map[string]string{"zone": "a", "node": "n1"}, cs, index.DoNotSchedule) {
		t.Error("a node with both hard keys")
	}
	if HasKeys(map[string]string{"zone": "a"}, cs, index.DoNotSchedule) {
		t.Error("a node lacking one hard key")
	}
	if HasKeys(map[string]string{"zone": "a", "node": "n1"}, cs, index.ScheduleAnyway) {
		t.Error("a node lacking the soft key")
	}
}
