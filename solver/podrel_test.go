package solver

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
	"k8s.io/apimachinery/pkg/labels"
)

// Builders for pod-relative constraints.

func sel(kv ...string) *index.LabelSelector {
	ls := &index.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		ls.MatchLabels[kv[i]] = kv[i+1]
	}
	return ls
}

func spread(key string, maxSkew int32, when string, s *index.LabelSelector) index.SpreadConstraint {
	return index.SpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when, Selector: s,
		MinDomains: 1, NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore}
}

func (b *podB) spread(cs ...index.SpreadConstraint) *podB {
	b.p.Spread = append(b.p.Spread, cs...)
	return b
}

func term(key string, s *index.LabelSelector, ns ...string) index.PodAffinityTerm {
	if len(ns) == 0 {
		ns = []string{"default"}
	}
	return index.PodAffinityTerm{TopologyKey: key, Selector: s, Namespaces: ns}
}

func (b *podB) affinity(ts ...index.PodAffinityTerm) *podB {
	b.p.Affinity = append(b.p.Affinity, ts...)
	return b
}

func (b *podB) anti(ts ...index.PodAffinityTerm) *podB {
	b.p.AntiAffinity = append(b.p.AntiAffinity, ts...)
	return b
}

func (b *podB) ns(ns string) *podB { b.p.Namespace = ns; return b }

const (
	DNS  = index.DoNotSchedule
	SA   = index.ScheduleAnyway
	zone = "zone"
)

// fooPods are n running pods labelled foo=bar on the given nodes.
func fooPods(nodes ...string) []index.Pod {
	var out []index.Pod
	for i, n := range nodes {
		out = append(out, makePod("running-"+string(rune('a'+i))).label("foo", "bar").on(n).obj())
	}
	return out
}

// seedNodes is the seed page's 4-node cluster: node1, node2 in zoneA,
// node3, node4 in zoneB (the "node" key names the node).
func seedNodes() []index.Node {
	var out []index.Node
	for i, z := range []string{"zoneA", "zoneA", "zoneB", "zoneB"} {
		name := "node" + string(rune('1'+i))
		out = append(out, makeNode(name).label("node", name).label(zone, z).obj())
	}
	return out
}

func zoneOf(nodes []index.Node, name string) string {
	for _, n := range nodes {
		if n.Name == name {
			return n.Labels[zone]
		}
	}
	return ""
}

// TestSeedSpreadExamples runs every example of the seed page's topology
// spread section.
func TestSeedSpreadExamples(t *testing.T) {
	t.Parallel()
	foo := sel("foo", "bar")
	mypod := func() *podB { return makePod("mypod").label("foo", "bar") }

	t.Run("one constraint: zoneB", func(t *testing.T) {
		nodes := seedNodes()
		pods := append(fooPods("node1", "node2", "node3"), mypod().spread(spread(zone, 1, DNS, foo)).obj())
		got, _, _ := solve(t, nodes, pods)
		if z := zoneOf(nodes, got["mypod"]); z != "zoneB" {
			t.Errorf("mypod on %q (zone %q), want zoneB", got["mypod"], z)
		}
	})
	t.Run("maxSkew 2 allows zoneA", func(t *testing.T) {
		// With maxSkew 2 both zones pass; node4 is the emptiest either way,
		// so check the filter through node choice on a cluster where zoneA
		// holds the roomiest node.
		nodes := seedNodes()
		nodes[0].Allocatable[0].Value = 64000
		pods := append(fooPods("node1", "node2", "node3"), mypod().spread(spread(zone, 2, DNS, foo)).obj())
		got, _, _ := solve(t, nodes, pods)
		if got["mypod"] != "node1" {
			t.Errorf("mypod on %q, want node1 (zoneA allowed with maxSkew 2)", got["mypod"])
		}
	})
	t.Run("topologyKey node: node4", func(t *testing.T) {
		pods := append(fooPods("node1", "node2", "node3"), mypod().spread(spread("node", 1, DNS, foo)).obj())
		got, _, _ := solve(t, seedNodes(), pods)
		if got["mypod"] != "node4" {
			t.Errorf("mypod on %q, want node4", got["mypod"])
		}
	})
	t.Run("two constraints: node4 only", func(t *testing.T) {
		nodes := seedNodes()
		nodes[2].Allocatable[0].Value = 64000 // node3 would win on score
		pods := append(fooPods("node1", "node2", "node3"),
			mypod().spread(spread(zone, 1, DNS, foo), spread("node", 1, DNS, foo)).obj())
		got, _, _ := solve(t, nodes, pods)
		if got["mypod"] != "node4" {
			t.Errorf("mypod on %q, want node4", got["mypod"])
		}
	})
	t.Run("conflicting constraints: pending", func(t *testing.T) {
		nodes := []index.Node{
			makeNode("node1").label("node", "node1").label(zone, "zoneA").obj(),
			makeNode("node2").label("node", "node2").label(zone, "zoneA").obj(),
			makeNode("node3").label("node", "node3").label(zone, "zoneB").obj(),
		}
		pods := append(fooPods("node1", "node1", "node3"),
			mypod().spread(spread(zone, 1, DNS, foo), spread("node", 1, DNS, foo)).obj())
		got, _, _ := solve(t, nodes, pods)
		want := "0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints."
		if !strings.HasPrefix(got["mypod"], want) {
			t.Errorf("mypod: %q, want prefix %q", got["mypod"], want)
		}
	})
	t.Run("node affinity NotIn zoneC: zoneB", func(t *testing.T) {
		nodes := append(seedNodes(), makeNode("node5").label("node", "node5").label(zone, "zoneC").obj())
		pods := append(fooPods("node1", "node2", "node3"),
			mypod().spread(spread(zone, 1, DNS, foo)).term(req(zone, index.SelNotIn, "zoneC")).obj())
		got, _, _ := solve(t, nodes, pods)
		if z := zoneOf(nodes, got["mypod"]); z != "zoneB" {
			t.Errorf("mypod on %q (zone %q), want zoneB", got["mypod"], z)
		}
		// Without the affinity, zoneC (0 pods) is the only zone within skew.
		pods[len(pods)-1] = mypod().spread(spread(zone, 1, DNS, foo)).obj()
		got, _, _ = solve(t, nodes, pods)
		if got["mypod"] != "node5" {
			t.Errorf("without affinity: mypod on %q, want node5", got["mypod"])
		}
	})
	t.Run("node lacking the key is skipped", func(t *testing.T) {
		// node1 has no zone label: its two pods do not count, so zoneA
		// (node2, empty) is the minimum; node5 has a typo'd key and is never
		// chosen although it is the roomiest.
		nodes := seedNodes()
		delete(nodes[0].Labels, zone)
		nodes = append(nodes, makeNode("node5").label("zone-typo", "zoneC").alloc("cpu", 64000).obj())
		pods := append(fooPods("node1", "node1", "node3"), mypod().spread(spread(zone, 1, DNS, foo)).obj())
		got, _, _ := solve(t, nodes, pods)
		if got["mypod"] != "node2" {
			t.Errorf("mypod on %q, want node2 (the only zoneA node with the key)", got["mypod"])
		}
	})
	t.Run("selector not matching the pod itself", func(t *testing.T) {
		// The incoming pods carry no foo label: each still goes to zoneB
		// (count 1 + 0 - 1 = 0), and placing it changes no count, so the
		// second goes to zoneB as well.
		nodes := seedNodes()
		pods := append(fooPods("node1", "node2", "node3"),
			makePod("nolabel-1").spread(spread(zone, 0+1, DNS, foo)).obj(),
			makePod("nolabel-2").spread(spread(zone, 1, DNS, foo)).obj())
		// Make zoneA attractive so that only the filter keeps them out.
		nodes[0].Allocatable[0].Value = 64000
		nodes[1].Allocatable[0].Value = 64000
		got, _, _ := solve(t, nodes, pods)
		// count(A)=2, count(B)=1, min 1: A gives 2+0-1 = 1 <= 1, so A is
		// allowed too; self-match 0 means both zones pass.
		if z := zoneOf(nodes, got["nolabel-1"]); z != "zoneA" {
			t.Errorf("nolabel-1 on %q (%s), want zoneA: without self-match the skew check passes there", got["nolabel-1"], z)
		}
		// With a label, mypod must go to zoneB whatever the scores.
		pods = append(fooPods("node1", "node2", "node3"), mypod().spread(spread(zone, 1, DNS, foo)).obj())
		got, _, _ = solve(t, nodes, pods)
		if z := zoneOf(nodes, got["mypod"]); z != "zoneB" {
			t.Errorf("mypod on %q (%s), want zoneB", got["mypod"], z)
		}
	})
}

func TestSpreadMinDomains(t *testing.T) {
	t.Parallel()
	foo := sel("foo", "bar")
	nodes := seedNodes()
	pods := fooPods("node1", "node3")
	c2 := spread(zone, 1, DNS, foo)
	c2.MinDomains = 2
	c3 := spread(zone, 1, DNS, foo)
	c3.MinDomains = 3
	pods = append(pods,
		makePod("min2").label("foo", "bar").spread(c2).created(1).obj(),
	)
	got, _, _ := solve(t, nodes, pods)
	if got["min2"] == "" || strings.HasPrefix(got["min2"], "0/") {
		t.Errorf("minDomains 2 with 2 domains: %q, want placed (global min 1)", got["min2"])
	}
	pods[len(pods)-1] = makePod("min3").label("foo", "bar").spread(c3).obj()
	got, _, _ = solve(t, nodes, pods)
	want := "0/4 nodes are available: 4 node(s) didn't match pod topology spread constraints."
	if !strings.HasPrefix(got["min3"], want) {
		t.Errorf("minDomains 3 with 2 domains: %q, want prefix %q (global min taken as 0)", got["min3"], want)
	}
}

func TestSpreadNodeInclusionPolicies(t *testing.T) {
	t.Parallel()
	foo := sel("foo", "bar")
	nodes := append(seedNodes(), makeNode("node5").label("node", "node5").label(zone, "zoneC").taint("dedicated", "x", NS).obj())
	base := fooPods("node1", "node3")
	run := func(c index.SpreadConstraint, extra func(*podB) *podB) string {
		p := makePod("p").label("foo", "bar").spread(c)
		if extra != nil {
			p = extra(p)
		}
		got, _, _ := solve(t, nodes, append(append([]index.Pod{}, base...), p.obj()))
		return got["p"]
	}
	// nodeTaintsPolicy Ignore (default): zoneC (tainted, 0 pods) is a domain,
	// the global min is 0, zones A and B are over the skew.
	if got := run(spread(zone, 1, DNS, foo), nil); !strings.Contains(got, "4 node(s) didn't match pod topology spread constraints") {
		t.Errorf("taints Ignore: %q, want pending on spread", got)
	}
	// Honor: zoneC is not a domain, global min 1.
	c := spread(zone, 1, DNS, foo)
	c.NodeTaintsPolicy = index.PolicyHonor
	if got := run(c, nil); got != "node2" && got != "node4" {
		t.Errorf("taints Honor: %q, want node2 or node4", got)
	}
	// nodeAffinityPolicy Honor (default) with an affinity excluding zoneC:
	// zoneC is not counted either.
	notC := func(b *podB) *podB { return b.term(req(zone, index.SelNotIn, "zoneC")) }
	if got := run(spread(zone, 1, DNS, foo), notC); got != "node2" && got != "node4" {
		t.Errorf("affinity Honor: %q, want node2 or node4", got)
	}
	// Ignore: zoneC counts (0 pods), so A and B are over the skew and C is
	// excluded by the affinity.
	c = spread(zone, 1, DNS, foo)
	c.NodeAffinityPolicy = index.PolicyIgnore
	if got := run(c, notC); !strings.Contains(got, "didn't match pod topology spread constraints") {
		t.Errorf("affinity Ignore: %q, want pending on spread", got)
	}
}

// TestSpreadMatchLabelKeys: selectors merged with pod-template-hash (as
// ingest merges matchLabelKeys) count only their own revision.
func TestSpreadMatchLabelKeys(t *testing.T) {
	t.Parallel()
	nodes := seedNodes()
	var pods []index.Pod
	for _, n := range []string{"node1", "node2", "node3"} {
		pods = append(pods, makePod("old-"+n).label("app", "web").label("pod-template-hash", "v1").on(n).obj())
	}
	c := spread(zone, 1, DNS, sel("app", "web", "pod-template-hash", "v2"))
	c.MatchLabelKeys = []string{"pod-template-hash"}
	nodes[0].Allocatable[0].Value = 64000
	pods = append(pods, makePod("new").label("app", "web").label("pod-template-hash", "v2").spread(c).obj())
	got, _, _ := solve(t, nodes, pods)
	if got["new"] != "node1" {
		t.Errorf("new on %q, want node1: the old revision's pods do not count", got["new"])
	}
}

// TestDefaultSpread: a ReplicaSet-owned pod with no constraints gets the
// built-in soft defaults and avoids the node holding its siblings, although
// node1 scores better on resources.
func TestDefaultSpread(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("node1").alloc("cpu", 40000).alloc("memory", 160<<30).obj(), makeNode("node2").obj()}
	owner := &index.OwnerRef{Kind: index.KindReplicaSet, Name: "web-1", APIVersion: "apps/v1"}
	var pods []index.Pod
	for i := range 3 {
		p := makePod("sib-"+string(rune('a'+i))).label("app", "web").on("node1").obj()
		p.Owner = owner
		pods = append(pods, p)
	}
	p := makePod("new").label("app", "web").obj()
	p.Owner = owner
	pods = append(pods, p)
	in := &index.Input{Nodes: nodes, Pods: pods, Workloads: []index.Workload{{Kind: index.KindReplicaSet, Namespace: "default", Name: "web-1", Selector: sel("app", "web")}}}
	for _, tc := range []struct {
		defaults []index.SpreadConstraint
		want     string
	}{{nil, "node1"}, {BuiltinDefaultSpread(), "node2"}} {
		c, err := index.Build(cloneInput(in))
		if err != nil {
			t.Fatal(err)
		}
		res := Solve(c, Config{Seed: 1, DefaultSpread: tc.defaults, SystemDefaultSpread: true})
		if got := outcomes(c, res)["new"]; got != tc.want {
			t.Errorf("defaults %v: new on %q, want %q", tc.defaults != nil, got, tc.want)
		}
	}
}

func cloneInput(in *index.Input) *index.Input {
	out := *in
	out.Nodes = append([]index.Node(nil), in.Nodes...)
	out.Pods = append([]index.Pod(nil), in.Pods...)
	return &out
}

func TestPodAntiAffinity(t *testing.T) {
	t.Parallel()
	web := sel("app", "web")
	nodes := []index.Node{makeNode("n1").obj(), makeNode("n2").obj()}
	var pods []index.Pod
	for i := range 3 {
		pods = append(pods, makePod("web-"+string(rune('a'+i))).label("app", "web").created(int64(i)).anti(term("kubernetes.io/hostname", web)).obj())
	}
	got, _, _ := solve(t, nodes, pods)
	if got["web-a"] == got["web-b"] || strings.HasPrefix(got["web-a"], "0/") || strings.HasPrefix(got["web-b"], "0/") {
		t.Errorf("web-a %q web-b %q: want two different nodes", got["web-a"], got["web-b"])
	}
	want := "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."
	if !strings.HasPrefix(got["web-c"], want) {
		t.Errorf("web-c: %q, want prefix %q", got["web-c"], want)
	}
}

func TestExistingPodsAntiAffinity(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").alloc("cpu", 64000).obj(), makeNode("n2").obj()}
	pods := []index.Pod{
		makePod("guard").label("app", "guard").on("n1").anti(term("kubernetes.io/hostname", sel("app", "web"))).obj(),
		makePod("web").label("app", "web").obj(),
		makePod("other").label("app", "other").obj(),
	}
	got, _, _ := solve(t, nodes, pods)
	if got["web"] != "n2" || got["other"] != "n1" {
		t.Errorf("web on %q (want n2: n1's guard repels it), other on %q (want n1)", got["web"], got["other"])
	}
	// Only n1: the reason names the existing pod's rule.
	got, _, _ = solve(t, nodes[:1], pods[:2])
	want := "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules."
	if !strings.HasPrefix(got["web"], want) {
		t.Errorf("web: %q, want prefix %q", got["web"], want)
	}
}

func TestPodAffinity(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{
		makeNode("a1").label(zone, "A").alloc("cpu", 64000).obj(), makeNode("a2").label(zone, "A").obj(),
		makeNode("b1").label(zone, "B").obj(), makeNode("nozone").alloc("cpu", 64000).obj(),
	}
	db := sel("app", "db")
	t.Run("follows the db pod's zone", func(t *testing.T) {
		pods := []index.Pod{
			makePod("db").label("app", "db").on("b1").obj(),
			makePod("api").label("app", "api").affinity(term(zone, db)).obj(),
		}
		got, _, _ := solve(t, nodes, pods)
		if got["api"] != "b1" {
			t.Errorf("api on %q, want b1", got["api"])
		}
	})
	t.Run("no match anywhere: pending", func(t *testing.T) {
		pods := []index.Pod{makePod("api").label("app", "api").affinity(term(zone, db)).obj()}
		got, _, _ := solve(t, nodes, pods)
		want := "0/4 nodes are available: 4 node(s) didn't match pod affinity rules."
		if !strings.HasPrefix(got["api"], want) {
			t.Errorf("api: %q, want prefix %q", got["api"], want)
		}
	})
	t.Run("first pod of a self-matching group lands anywhere with the key", func(t *testing.T) {
		cache := sel("app", "cache")
		pods := []index.Pod{
			makePod("cache-1").label("app", "cache").created(1).affinity(term(zone, cache)).obj(),
			makePod("cache-2").label("app", "cache").created(2).affinity(term(zone, cache)).obj(),
		}
		got, _, _ := solve(t, nodes, pods)
		if got["cache-1"] != "a1" {
			t.Errorf("cache-1 on %q, want a1 (the roomiest node with a zone)", got["cache-1"])
		}
		if zoneOf(nodes, got["cache-2"]) != "A" {
			t.Errorf("cache-2 on %q, want zone A with cache-1", got["cache-2"])
		}
	})
	t.Run("namespaces and namespaceSelector", func(t *testing.T) {
		pods := []index.Pod{
			makePod("db").ns("data").label("app", "db").on("b1").obj(),
			makePod("same-ns").label("app", "api").affinity(term(zone, db)).obj(),
			makePod("listed").label("app", "api").affinity(term(zone, db, "data")).obj(),
		}
		bySel := makePod("by-selector").label("app", "api").obj()
		bySel.Affinity = []index.PodAffinityTerm{{TopologyKey: zone, Selector: db, NamespaceSelector: sel("team", "data")}}
		pods = append(pods, bySel)
		in := &index.Input{Nodes: nodes, Pods: pods, Namespaces: []index.Namespace{{Name: "data", Labels: map[string]string{"team": "data"}}}}
		c, err := index.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		got := outcomes(c, Solve(c, Config{Seed: 1}))
		if !strings.Contains(got["same-ns"], "didn't match pod affinity rules") {
			t.Errorf("same-ns: %q, want pending (db is in another namespace)", got["same-ns"])
		}
		if got["listed"] != "b1" || got["by-selector"] != "b1" {
			t.Errorf("listed on %q, by-selector on %q: want b1", got["listed"], got["by-selector"])
		}
	})
}

func TestPreferredPodAffinity(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{
		makeNode("a1").label(zone, "A").alloc("cpu", 64000).obj(),
		makeNode("b1").label(zone, "B").obj(),
	}
	db := sel("app", "db")
	pods := []index.Pod{
		makePod("db").label("app", "db").on("b1").obj(),
		makePod("near").label("app", "api").obj(),
		makePod("far").label("app", "api").obj(),
	}
	pods[1].PreferredAffinity = []index.WeightedPodAffinityTerm{{Weight: 100, Term: term(zone, db)}}
	pods[2].PreferredAntiAffinity = []index.WeightedPodAffinityTerm{{Weight: 100, Term: term(zone, db)}}
	got, _, _ := solve(t, nodes, pods)
	if want := map[string]string{"near": "b1", "far": "a1"}; got["near"] != want["near"] || got["far"] != want["far"] {
		t.Errorf("got %v, want near on b1, far on a1", maps.Clone(got))
	}
}

// TestMatchesSetAgainstLabels compares matchesSet with apimachinery's
// labels.SelectorFromSet(set).Matches on random sets and label maps.
func TestMatchesSetAgainstLabels(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 4))
	keys, vals := []string{"app", "tier", "x", "k8s.io/name"}, []string{"a", "b", ""}
	randMap := func(n int) map[string]string {
		m := map[string]string{}
		for range n {
			m[keys[r.IntN(len(keys))]] = vals[r.IntN(len(vals))]
		}
		return m
	}
	matched := 0
	for range 20000 {
		set, l := randMap(1+r.IntN(3)), randMap(r.IntN(5))
		want := labels.SelectorFromSet(set).Matches(labels.Set(l))
		if got := matchesSet(set, l); got != want {
			t.Fatalf("set %v labels %v: %v, labels says %v", set, l, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 1000 {
		t.Errorf("only %d matches: the sets do not exercise matching", matched)
	}
}

// TestFeedsMemo: feeds, which remembers the counters the pods of one
// label map feed, gives what matching every pod against the counters gives
// (in the same order): for pods that share a label map as ingest's parsers
// make them, for pods with labels of their own, for a pod of another
// namespace holding the same map, and after a counter is added.
func TestFeedsMemo(t *testing.T) {
	t.Parallel()
	for seed := range uint64(6) {
		in := randomDefaultSpreadInput(seed)
		shared := map[string]map[string]string{}
		for i := range in.Pods {
			if i%5 == 4 {
				continue // labels of its own
			}
			k := fmt.Sprint(in.Pods[i].Labels)
			if m, ok := shared[k]; ok {
				in.Pods[i].Labels = m
			} else {
				shared[k] = in.Pods[i].Labels
			}
		}
		last := &in.Pods[len(in.Pods)-1]
		last.Namespace, last.Labels = "elsewhere", in.Pods[0].Labels
		c, err := index.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		s, _, _ := relSolver(c, seed)
		r := s.rel
		check := func(when string) {
			t.Helper()
			for p := range c.Pods {
				pod := &c.Pods[p]
				for range 2 { // the second call takes the remembered answer
					got, want := r.feeds(pod, []int32{-1}), r.matchFeeds(pod, []int32{-1})
					if !slices.Equal(got, want) {
						t.Fatalf("seed %d %s: pod %s feeds %v, matching gives %v", seed, when, pod.Name, got, want)
					}
				}
			}
		}
		check("")
		if len(r.feedMemo) == 0 || len(r.feedMemo) >= len(c.Pods) {
			t.Fatalf("seed %d: %d label sets remembered for %d pods: the test does not share any", seed, len(r.feedMemo), len(c.Pods))
		}
		// A counter added that every pod of the first one's app feeds.
		app := c.Pods[0].Labels["app"]
		r.counterFor("test-"+app, func() *counter {
			return &counter{kind: kSpread, topo: s.perNode(), match: []matcher{{ns: nsSet{names: []string{c.Pods[0].Namespace}},
				sel: labels.SelectorFromSet(labels.Set{"app": app}), ls: &index.LabelSelector{MatchLabels: map[string]string{"app": app}}}}}
		})
		check("after a counter was added")
		if got := r.feeds(&c.Pods[0], nil); !slices.Contains(got, int32(len(r.counters)-1)) {
			t.Fatalf("seed %d: pod %s does not feed the counter added for its app: %v", seed, c.Pods[0].Name, got)
		}
	}
}

// TestFewNodeCounters: the spread counters of pods pinned to one node or
// a few (a DaemonSet's pods under a Service: default spreading honours
// their node affinity, so they count on their own nodes only) are fed by
// the pods of those nodes, the others through the label index; either way
// every spread counter holds what a direct count of the bound pods gives,
// after the existing pods are counted and after binds and dry-run moves.
func TestFewNodeCounters(t *testing.T) {
	t.Parallel()
	var nodes []index.Node
	for i := range 300 {
		nodes = append(nodes, makeNode(fmt.Sprintf("n%d", i)).label("topology.kubernetes.io/zone", fmt.Sprintf("z%d", i%3)).obj())
	}
	name := func(i int) string { return nodes[i].Name }
	var pods []index.Pod
	for i := range 300 {
		if i%4 != 3 {
			pods = append(pods, makePod(fmt.Sprintf("agent-run-%d", i)).label("app", "agent").on(name(i)).obj())
		}
		if i%37 == 0 {
			pods = append(pods, makePod(fmt.Sprintf("agent-new-%d", i)).label("app", "agent").fieldTerm(req("metadata.name", index.SelIn, name(i))).obj())
		}
	}
	// Two and three nodes: still few (the two in one word past the first,
	// the three spanning the cluster). Two zones: fed through the label
	// index.
	pods = append(pods, makePod("agent-two").label("app", "agent").fieldTerm(req("metadata.name", index.SelIn, name(130), name(134))).obj(),
		makePod("agent-three").label("app", "agent").fieldTerm(req("metadata.name", index.SelIn, name(1), name(150), name(298))).obj(),
		makePod("agent-many").label("app", "agent").term(req("topology.kubernetes.io/zone", index.SelIn, "z0", "z1")).obj(),
		makePod("other").label("app", "other").on(name(4)).obj())
	in := &index.Input{Nodes: nodes, Pods: pods, Workloads: []index.Workload{{Kind: index.KindService, Namespace: "default", Name: "agent", Selector: sel("app", "agent")}}}
	c, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	s := newSolver(c, Config{Seed: 1})
	s.rel = newRelState(c, &Config{DefaultSpread: BuiltinDefaultSpread(), SystemDefaultSpread: true})
	s.classify(Queue(c))
	s.countExisting()
	r := s.rel
	check := func(when string, extra map[index.PodID]int32) {
		t.Helper()
		few, many := 0, 0
		for id, k := range r.counters {
			if k.kind != kSpread || k.elig.words == nil {
				continue
			}
			if _, ok := k.elig.few(); ok {
				few++
			} else {
				many++
			}
			want := make([]int32, domainCount(k.topo))
			if len(want) < 2 {
				t.Fatalf("%s: counter %d (%s) has %d domains", when, id, k.topo.Key, len(want))
			}
			for p := range c.Pods {
				n, ok := extra[index.PodID(p)]
				if !ok {
					n = c.PodNode[p]
				}
				if n == index.NoNode {
					continue
				}
				if d := k.topo.Of[n]; d >= 0 && k.eligible(index.NodeID(n)) && k.matches(&c.Pods[p]) {
					want[d]++
				}
			}
			for d := range want {
				if got := k.counts.at(int32(d)); got != want[d] {
					t.Fatalf("%s: counter %d (%s) counts %d in domain %d, the bound pods %d", when, id, k.topo.Key, got, d, want[d])
				}
			}
		}
		if few < 10 || many < 1 {
			t.Fatalf("%s: %d counters on few nodes, %d on many: the test misses a path", when, few, many)
		}
	}
	check("existing pods", nil)
	moved := map[index.PodID]int32{}
	for p := range c.Pods {
		pod := &c.Pods[p]
		if c.PodNode[p] != index.NoNode || !strings.HasPrefix(pod.Name, "agent-new-") {
			continue
		}
		n := c.NodeByName[pod.RequiredTerms[0].MatchFields[0].Values[0]]
		s.relBind(index.PodID(p), n, 1, nil)
		moved[index.PodID(p)] = int32(n)
		check("after binding "+pod.Name, moved)
	}
	// A dry run moves a running pod off its node and back.
	for p := range c.Pods {
		if c.Pods[p].Name != "agent-run-148" {
			continue
		}
		n := index.NodeID(c.PodNode[p])
		s.relMove(index.PodID(p), n, -1)
		moved[index.PodID(p)] = index.NoNode
		check("in a dry run", moved)
		s.relMove(index.PodID(p), n, 1)
		delete(moved, index.PodID(p))
		check("after a dry run", moved)
	}
}

// TestFeedsMemoStartsOver: past feedMemoMax label maps the memo starts
// over, so the last pods' maps are remembered, and every answer is still
// matchFeeds'.
func TestFeedsMemoStartsOver(t *testing.T) {
	t.Parallel()
	in := randomDefaultSpreadInput(1)
	c, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := relSolver(c, 1)
	r := s.rel
	base := c.Pods[0]
	before := len(r.feedMemo) // the bound pods' maps
	for i := range feedMemoMax + 100 {
		pod := base
		pod.Labels = maps.Clone(base.Labels)
		pod.Labels["pod-name"] = fmt.Sprint(i) // a StatefulSet pod's labels of its own
		got, want := r.feeds(&pod, nil), r.matchFeeds(&pod, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("pod %d feeds %v, matching gives %v", i, got, want)
		}
		if len(r.feedMemo) > feedMemoMax {
			t.Fatalf("pod %d: %d label maps remembered", i, len(r.feedMemo))
		}
		if _, ok := r.feedMemo[uintptr(reflect.ValueOf(pod.Labels).UnsafePointer())]; !ok {
			t.Fatalf("pod %d: its label map is not remembered (%d are)", i, len(r.feedMemo))
		}
	}
	if n := len(r.feedMemo); n > before+100 {
		t.Fatalf("%d label maps remembered, %d before and 65,636 more: the memo did not start over", n, before)
	}
}
