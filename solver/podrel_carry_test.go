package solver

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
)

// Existing pods' affinity terms scoring the incoming pod (kube-scheduler's
// InterPodAffinity processExistingPod): a carrier's preferred affinity term
// adds its weight to its domain, a preferred anti-affinity term subtracts
// it, a required affinity term adds HardPodAffinityWeight (1); only for
// incoming pods the term matches.

func (b *podB) prefAff(w int32, t index.PodAffinityTerm) *podB {
	b.p.PreferredAffinity = append(b.p.PreferredAffinity, index.WeightedPodAffinityTerm{Weight: w, Term: t})
	return b
}

func (b *podB) prefAnti(w int32, t index.PodAffinityTerm) *podB {
	b.p.PreferredAntiAffinity = append(b.p.PreferredAntiAffinity, index.WeightedPodAffinityTerm{Weight: w, Term: t})
	return b
}

// carryNodes: a1 (zone A) is by far the roomiest, so a pod without
// pod-relative scores goes there; b1 and b2 are in zone B.
func carryNodes() []index.Node {
	return []index.Node{
		makeNode("a1").label(zone, "A").alloc("cpu", 64000).alloc("memory", 256<<30).obj(),
		makeNode("b1").label(zone, "B").obj(),
		makeNode("b2").label(zone, "B").obj(),
	}
}

func solveNS(t *testing.T, nodes []index.Node, pods []index.Pod, nss []index.Namespace) (map[string]string, *Result) {
	t.Helper()
	c, err := index.Build(&index.Input{Nodes: nodes, Pods: pods, Namespaces: nss})
	if err != nil {
		t.Fatal(err)
	}
	res := Solve(c, Config{Seed: 1})
	return outcomes(c, res), res
}

func TestCarrierPreferredAffinityAttracts(t *testing.T) {
	t.Parallel()
	api := sel("app", "api")
	for _, tc := range []struct {
		name    string
		carrier index.Pod
		inLabel string // the incoming pod's app label
		want    []string
	}{
		{"zone term attracts a matching pod", makePod("cache").label("app", "cache").on("b1").prefAff(10, term(zone, api)).obj(), "api", []string{"b1", "b2"}},
		{"hostname term attracts to the carrier's node", makePod("cache").label("app", "cache").on("b2").prefAff(1, term(labelHostname, api)).obj(), "api", []string{"b2"}},
		{"a pod the term does not select is not attracted", makePod("cache").label("app", "cache").on("b1").prefAff(10, term(zone, api)).obj(), "web", []string{"a1"}},
		{"without the term the roomiest node wins", makePod("cache").label("app", "cache").on("b1").obj(), "api", []string{"a1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods := []index.Pod{tc.carrier, makePod("in").label("app", tc.inLabel).obj()}
			got, _, _ := solve(t, carryNodes(), pods)
			if !contains(tc.want, got["in"]) {
				t.Errorf("in on %q, want one of %v", got["in"], tc.want)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestCarrierPreferredAntiAffinityRepels(t *testing.T) {
	t.Parallel()
	api := sel("app", "api")
	nodes := carryNodes()
	// The noisy pod on a1 repels api pods from a1 (hostname) or zone A.
	for _, tc := range []struct {
		key  string
		want []string
	}{{labelHostname, []string{"b1", "b2"}}, {zone, []string{"b1", "b2"}}} {
		pods := []index.Pod{
			makePod("noisy").label("app", "noisy").on("a1").prefAnti(5, term(tc.key, api)).obj(),
			makePod("in").label("app", "api").obj(),
			makePod("other").label("app", "other").obj(),
		}
		got, _, _ := solve(t, nodes, pods)
		if !contains(tc.want, got["in"]) {
			t.Errorf("%s: in on %q, want one of %v (noisy's anti-affinity repels it from a1)", tc.key, got["in"], tc.want)
		}
		if got["other"] != "a1" {
			t.Errorf("%s: other on %q, want a1 (noisy's term does not select it)", tc.key, got["other"])
		}
	}
}

// TestCarrierRequiredAffinityWeight: an existing pod's required affinity
// term matching the incoming pod adds HardPodAffinityWeight, 1, to its
// domain.
func TestCarrierRequiredAffinityWeight(t *testing.T) {
	t.Parallel()
	web := makePod("web").label("app", "web").on("b1").affinity(term(zone, sel("app", "cache"))).obj()
	t.Run("attracts a matching pod", func(t *testing.T) {
		got, _, _ := solve(t, carryNodes(), []index.Pod{web, makePod("cache").label("app", "cache").obj()})
		if got["cache"] != "b1" && got["cache"] != "b2" {
			t.Errorf("cache on %q, want zone B (web's required affinity selects it)", got["cache"])
		}
		got, _, _ = solve(t, carryNodes(), []index.Pod{web, makePod("cache").label("app", "other").obj()})
		if got["cache"] != "a1" {
			t.Errorf("unselected pod on %q, want a1", got["cache"])
		}
	})
	// a1 is nearly full, so resources prefer zone B. A pod on a1 whose
	// preferred term (weight w) selects cache too: w = 1 ties with web's
	// required term (both zones score 1, normalised to 0) and resources
	// decide; w = 2 outweighs it.
	nodes := carryNodes()
	nodes[0] = makeNode("a1").label(zone, "A").obj()
	filler := makePod("filler").on("a1").req("cpu", 3000).obj()
	for _, tc := range []struct {
		w    int32
		want []string
	}{{1, []string{"b1", "b2"}}, {2, []string{"a1"}}} {
		friend := makePod("friend").label("app", "friend").on("a1").prefAff(tc.w, term(zone, sel("app", "cache"))).obj()
		got, _, _ := solve(t, nodes, []index.Pod{web, filler, friend, makePod("cache").label("app", "cache").obj()})
		if !contains(tc.want, got["cache"]) {
			t.Errorf("friend weight %d: cache on %q, want one of %v", tc.w, got["cache"], tc.want)
		}
	}
}

func TestCarrierNamespaces(t *testing.T) {
	t.Parallel()
	api := sel("app", "api")
	nss := []index.Namespace{
		{Name: "default", Labels: map[string]string{"team": "web"}},
		{Name: "data", Labels: map[string]string{"team": "data"}},
		{Name: "shop", Labels: map[string]string{"team": "web"}},
	}
	in := func(ns string) index.Pod { return makePod("in").ns(ns).label("app", "api").obj() }
	withNSSel := func(ls *index.LabelSelector) index.PodAffinityTerm {
		return index.PodAffinityTerm{TopologyKey: zone, Selector: api, NamespaceSelector: ls}
	}
	for _, tc := range []struct {
		name string
		term index.PodAffinityTerm
		inNS string
		want []string
	}{
		// The carrier lives in "data"; a term without namespaces selects
		// its own namespace (ingest fills it in).
		{"own namespace: same", term(zone, api, "data"), "data", []string{"b1", "b2"}},
		{"own namespace: other", term(zone, api, "data"), "default", []string{"a1"}},
		{"namespaces list", term(zone, api, "default", "shop"), "shop", []string{"b1", "b2"}},
		{"namespaces list: not listed", term(zone, api, "default", "shop"), "data", []string{"a1"}},
		{"namespaceSelector", withNSSel(sel("team", "web")), "shop", []string{"b1", "b2"}},
		{"namespaceSelector: not selected", withNSSel(sel("team", "web")), "data", []string{"a1"}},
		{"namespaceSelector {}: every namespace", withNSSel(sel()), "data", []string{"b1", "b2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods := []index.Pod{
				makePod("cache").ns("data").label("app", "cache").on("b1").prefAff(10, tc.term).obj(),
				in(tc.inNS),
			}
			got, _ := solveNS(t, carryNodes(), pods, nss)
			if !contains(tc.want, got["in"]) {
				t.Errorf("in (namespace %s) on %q, want one of %v", tc.inNS, got["in"], tc.want)
			}
		})
	}
}

// TestCarrierPlacedInBatch: a carrier placed earlier in the batch scores
// the pods after it; one placed later does not.
func TestCarrierPlacedInBatch(t *testing.T) {
	t.Parallel()
	api := sel("app", "api")
	carrier := makePod("cache").label("app", "cache").selector(zone, "B").prefAff(10, term(labelHostname, api))
	for _, tc := range []struct {
		name             string
		cacheAt, apiAt   int64
		wantSameNode     bool
		wantAPIOnRoomier bool
	}{
		{"carrier first", 1, 2, true, false},
		{"carrier after", 2, 1, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods := []index.Pod{carrier.created(tc.cacheAt).obj(), makePod("api").label("app", "api").created(tc.apiAt).obj()}
			got, _, _ := solve(t, carryNodes(), pods)
			if got["cache"] != "b1" && got["cache"] != "b2" {
				t.Fatalf("cache on %q, want zone B", got["cache"])
			}
			if same := got["api"] == got["cache"]; same != tc.wantSameNode {
				t.Errorf("api on %q, cache on %q: same node %v, want %v", got["api"], got["cache"], same, tc.wantSameNode)
			}
			if tc.wantAPIOnRoomier && got["api"] != "a1" {
				t.Errorf("api on %q, want a1", got["api"])
			}
		})
	}
}

// TestCarrierEvicted: a preemptor evicts the carrier; the pods placed after
// are no longer attracted to its zone.
func TestCarrierEvicted(t *testing.T) {
	t.Parallel()
	api := sel("app", "api")
	nodes := carryNodes()
	carrier := makePod("cache").label("app", "cache").on("b1").req("cpu", 4000).prefAff(10, term(zone, api)).obj()
	big := makePod("big").priority(1000).selector("kubernetes.io/hostname", "b1").req("cpu", 4000).obj()
	in := makePod("in").label("app", "api").created(5).obj()

	got, _, _ := solve(t, nodes, []index.Pod{carrier, in})
	if got["in"] != "b2" {
		t.Fatalf("control: in on %q, want b2 (the carrier on b1 attracts it to zone B)", got["in"])
	}
	got, _, res := solve(t, nodes, []index.Pod{carrier, big, in})
	if res.Preemptions != 1 || got["big"] != "b1" {
		t.Fatalf("big on %q, %d preemptions: want b1 after evicting cache", got["big"], res.Preemptions)
	}
	if got["in"] != "a1" {
		t.Errorf("in on %q, want a1: the evicted carrier no longer attracts it", got["in"])
	}
}

// TestCarrierClassKey: pods that differ only in whether an existing pod's
// term matches them (here through their namespace's labels) are in
// different classes and land differently.
func TestCarrierClassKey(t *testing.T) {
	t.Parallel()
	nss := []index.Namespace{
		{Name: "one", Labels: map[string]string{"team": "web"}},
		{Name: "two", Labels: map[string]string{"team": "data"}},
	}
	term := index.PodAffinityTerm{TopologyKey: zone, Selector: sel("app", "api"), NamespaceSelector: sel("team", "web")}
	var pods []index.Pod
	pods = append(pods, makePod("cache").label("app", "cache").on("b1").prefAff(50, term).obj())
	for i := range 4 {
		ns := []string{"one", "two"}[i%2]
		pods = append(pods, makePod(fmt.Sprintf("api-%d", i)).ns(ns).label("app", "api").created(int64(i)).obj())
	}
	got, _ := solveNS(t, carryNodes(), pods, nss)
	for i := range 4 {
		name := fmt.Sprintf("api-%d", i)
		inB := strings.HasPrefix(got[name], "b")
		if want := i%2 == 0; inB != want {
			t.Errorf("%s on %q: in zone B %v, want %v", name, got[name], inB, want)
		}
	}
}

// TestPropertyAffinityScore checks the counters against a naive
// recomputation of kube-scheduler's InterPodAffinity PreScore/Score (the
// incoming pod's preferred terms over existing pods, and existing pods'
// required and preferred terms over the incoming pod) for every class and
// node, after random binds and evictions.
func TestPropertyAffinityScore(t *testing.T) {
	t.Parallel()
	for seed := range uint64(25) {
		r := rand.New(rand.NewPCG(seed, 11))
		zones := []string{"a", "b", "c"}
		var nodes []index.Node
		for i := range 6 + r.IntN(14) {
			b := makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", 1<<40).alloc("memory", 1<<50).alloc("pods", 1<<20)
			if r.IntN(8) != 0 {
				b.label(zone, zones[r.IntN(len(zones))])
			}
			nodes = append(nodes, b.obj())
		}
		nsNames := []string{"default", "data", "shop"}
		nss := []index.Namespace{
			{Name: "default", Labels: map[string]string{"team": "web"}},
			{Name: "data", Labels: map[string]string{"team": "data"}},
			{Name: "shop", Labels: map[string]string{"team": "web"}},
		}
		apps := []string{"web", "api", "db"}
		randTerm := func(ns string) index.PodAffinityTerm {
			key := []string{zone, labelHostname}[r.IntN(2)]
			var s *index.LabelSelector
			switch r.IntN(8) {
			case 0:
				s = nil // selects no pod
			case 1:
				s = sel() // every pod
			default:
				s = sel("app", apps[r.IntN(len(apps))])
			}
			t := index.PodAffinityTerm{TopologyKey: key, Selector: s}
			switch r.IntN(4) {
			case 0:
				t.NamespaceSelector = sel("team", []string{"web", "data"}[r.IntN(2)])
			case 1:
				t.Namespaces = []string{nsNames[r.IntN(3)], nsNames[r.IntN(3)]}
			default:
				t.Namespaces = []string{ns}
			}
			return t
		}
		randPod := func(name string) *podB {
			ns := nsNames[r.IntN(3)]
			b := makePod(name).ns(ns).label("app", apps[r.IntN(len(apps))])
			for range r.IntN(3) {
				switch r.IntN(3) {
				case 0:
					b.prefAff(int32(1+r.IntN(100)), randTerm(ns))
				case 1:
					b.prefAnti(int32(1+r.IntN(100)), randTerm(ns))
				default:
					if r.IntN(3) == 0 {
						b.affinity(randTerm(ns))
					}
				}
			}
			return b
		}
		var pods []index.Pod
		for i := range 10 + r.IntN(20) {
			pods = append(pods, randPod(fmt.Sprintf("run%d", i)).on(nodes[r.IntN(len(nodes))].Name).obj())
		}
		for i := range 20 + r.IntN(40) {
			pods = append(pods, randPod(fmt.Sprintf("p%d", i)).obj())
		}
		c, err := index.Build(&index.Input{Nodes: nodes, Pods: pods, Namespaces: nss})
		if err != nil {
			t.Fatal(err)
		}
		s, queue, classOf := relSolver(c, seed)
		check := func(step string) {
			t.Helper()
			cand := make([]scored, len(c.Nodes))
			for _, cl := range s.classes {
				p := &c.Pods[cl.rep]
				for n := range cand {
					cand[n] = scored{node: index.NodeID(n), spread: -1}
				}
				if cl.rel != nil {
					s.affinityScores(cl.rel.pref, cand)
				}
				for n := range c.Nodes {
					want := naiveAffinityScore(c, nss, p, n)
					got := cand[n].spread
					if cl.rel == nil {
						got = 0
					}
					if got != want {
						t.Fatalf("seed %d %s: class of %s on %s: score %d, naive %d", seed, step, p.Name, c.Nodes[n].Name, got, want)
					}
					if want != 0 && (cl.rel == nil || !cl.rel.scoresNow(s.rel)) {
						t.Fatalf("seed %d %s: class of %s scores %d on %s but does not score now", seed, step, p.Name, want, c.Nodes[n].Name)
					}
				}
			}
		}
		check("start")
		var bound []index.PodID
		for p := range c.Pods {
			if c.PodNode[p] != index.NoNode {
				bound = append(bound, index.PodID(p))
			}
		}
		for i, pid := range queue {
			n := index.NodeID(r.IntN(len(nodes)))
			d := c.DemandOf(&c.Pods[pid])
			c.Bind(pid, n, &d)
			s.relPlaced(s.classes[classOf[i]], pid, n, 1)
			bound = append(bound, pid)
			if r.IntN(4) == 0 {
				j := r.IntN(len(bound))
				v := bound[j]
				bound = append(bound[:j], bound[j+1:]...)
				vn := index.NodeID(c.PodNode[v])
				dv := c.DemandOf(&c.Pods[v])
				s.relBind(v, vn, -1, nil)
				c.Unbind(v, &dv)
			}
			check(fmt.Sprintf("after %d", i))
		}
	}
}

// relSolver sets a solver up as Solve does before placing: the queue, the
// classes (classOf by queue position) and the pod-relative counters.
func relSolver(c *index.Cluster, seed uint64) (*Solver, []index.PodID, []int32) {
	s := newSolver(c, Config{Seed: seed})
	queue := Queue(c)
	s.rel = newRelState(c, &Config{})
	classOf := s.classify(queue)
	s.countExisting()
	return s, queue, classOf
}

// naiveAffinityScore is kube-scheduler's InterPodAffinity score of node n
// for incoming pod p, before normalisation, from the bound pods.
func naiveAffinityScore(c *index.Cluster, nss []index.Namespace, p *index.Pod, n int) int64 {
	nsLabels := map[string]map[string]string{}
	for _, ns := range nss {
		nsLabels[ns.Name] = ns.Labels
	}
	// matches: term t (of a pod) selects pod q.
	matches := func(t *index.PodAffinityTerm, q *index.Pod) bool {
		nsOK := false
		for _, ns := range t.Namespaces {
			if ns == q.Namespace {
				nsOK = true
			}
		}
		if t.NamespaceSelector != nil && matchLabels(t.NamespaceSelector, nsLabels[q.Namespace]) {
			nsOK = true
		}
		return nsOK && matchLabels(t.Selector, q.Labels)
	}
	sameDomain := func(key string, a, b int) bool {
		va, ok := c.Nodes[a].Labels[key]
		vb, ok2 := c.Nodes[b].Labels[key]
		return ok && ok2 && va == vb
	}
	var score int64
	for q := range c.Pods {
		m := c.PodNode[q]
		if m == index.NoNode {
			continue
		}
		qp := &c.Pods[q]
		add := func(t *index.PodAffinityTerm, to *index.Pod, w int64) {
			if matches(t, to) && sameDomain(t.TopologyKey, int(m), n) {
				score += w
			}
		}
		for _, w := range p.PreferredAffinity {
			add(&w.Term, qp, int64(w.Weight))
		}
		for _, w := range p.PreferredAntiAffinity {
			add(&w.Term, qp, -int64(w.Weight))
		}
		for i := range qp.Affinity {
			add(&qp.Affinity[i], p, 1)
		}
		for _, w := range qp.PreferredAffinity {
			add(&w.Term, p, int64(w.Weight))
		}
		for _, w := range qp.PreferredAntiAffinity {
			add(&w.Term, p, -int64(w.Weight))
		}
	}
	return score
}

// TestPlaceScoredAllocatesNothing pins "no heap allocation per placement"
// for a scoring class: soft spread on zone and hostname, a preferred
// anti-affinity term of its own, and running pods' terms that select it.
func TestPlaceScoredAllocatesNothing(t *testing.T) {
	var nodes []index.Node
	for i := range 300 {
		nodes = append(nodes, makeNode(fmt.Sprintf("n%03d", i)).label(zone, fmt.Sprintf("z%d", i%7)).obj())
	}
	web := sel("app", "web")
	pods := []index.Pod{
		makePod("cache").label("app", "cache").on("n001").prefAff(20, term(zone, web)).obj(),
		makePod("guard").label("app", "guard").on("n002").affinity(term(labelHostname, web)).obj(),
	}
	const n = 1000
	for i := range n {
		pods = append(pods, makePod(fmt.Sprintf("web-%d", i)).label("app", "web").created(int64(i)).
			spread(spread(zone, 1, SA, web), spread(labelHostname, 1, SA, web)).
			prefAnti(50, term(labelHostname, web)).obj())
	}
	c := cluster(t, nodes, pods)
	s, queue, classOf := relSolver(c, 1)
	s.awaitGroups()
	cl := s.classes[classOf[0]]
	if cl.rel == nil || !cl.rel.scoring {
		t.Fatal("not a scoring class")
	}
	s.place(cl, queue[0]) // sizes the scratch
	i := 1
	allocs := testing.AllocsPerRun(300, func() {
		if _, _, ok := s.place(cl, queue[i]); !ok {
			t.Fatal("not placed")
		}
		i++
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per placement, want 0", allocs)
	}
}

// TestInterPodAffinityArgs: hardPodAffinityWeight scales (or, at 0,
// removes) what an existing pod's required affinity term adds;
// ignorePreferredTermsOfExistingPods leaves a pod without preferred terms
// of its own unscored by InterPodAffinity, and scores one that has them as
// before (kube-scheduler v1.36 skips the whole PreScore only then).
func TestInterPodAffinityArgs(t *testing.T) {
	t.Parallel()
	solveCfg := func(cfg Config, pods ...index.Pod) map[string]string {
		t.Helper()
		c, err := index.Build(&index.Input{Nodes: carryNodes(), Pods: pods})
		if err != nil {
			t.Fatal(err)
		}
		return outcomes(c, Solve(c, cfg))
	}
	weight := func(w int32) *int32 { return &w }
	web := makePod("web").label("app", "web").on("b1").affinity(term(zone, sel("app", "cache"))).obj()
	cache := makePod("cache").label("app", "cache").obj()
	for _, tc := range []struct {
		name string
		w    *int32
		want []string
	}{
		{"default weight 1 attracts", nil, []string{"b1", "b2"}},
		{"weight 100 attracts", weight(100), []string{"b1", "b2"}},
		{"weight 0 turns it off: the roomiest node", weight(0), []string{"a1"}},
	} {
		if got := solveCfg(Config{Seed: 1, HardPodAffinityWeight: tc.w}, web, cache); !contains(tc.want, got["cache"]) {
			t.Errorf("%s: cache on %q, want one of %v", tc.name, got["cache"], tc.want)
		}
	}
	// A running pod's preferred term selects cache and api; api also has
	// a preferred anti-affinity term of its own (selecting nothing here).
	carrier := makePod("carrier").label("app", "carrier").on("b2").prefAff(50, term(zone, sel("tier", "back"))).obj()
	plain := makePod("cache").label("app", "cache").label("tier", "back").obj()
	own := makePod("api").label("app", "api").label("tier", "back").prefAnti(10, term(zone, sel("app", "none"))).obj()
	for _, tc := range []struct {
		name   string
		ignore bool
		pod    index.Pod
		want   []string
	}{
		{"counted by default", false, plain, []string{"b1", "b2"}},
		{"ignored for a pod without preferred terms", true, plain, []string{"a1"}},
		{"counted for a pod with preferred terms", true, own, []string{"b1", "b2"}},
	} {
		got := solveCfg(Config{Seed: 1, IgnorePreferredTermsOfExistingPods: tc.ignore}, carrier, tc.pod)
		if !contains(tc.want, got[tc.pod.Name]) {
			t.Errorf("%s: %s on %q, want one of %v", tc.name, tc.pod.Name, got[tc.pod.Name], tc.want)
		}
	}
	// The weight against a preferred term: zone A carries a preferred
	// term of weight 2 (on a nearly full a1), zone B web's required term.
	// At weight 1 zone A wins; at 3 zone B does.
	nodes := carryNodes()
	nodes[0] = makeNode("a1").label(zone, "A").obj()
	filler := makePod("filler").on("a1").req("cpu", 3000).obj()
	friend := makePod("friend").label("app", "friend").on("a1").prefAff(2, term(zone, sel("app", "cache"))).obj()
	for _, tc := range []struct {
		w    *int32
		want []string
	}{{nil, []string{"a1"}}, {weight(1), []string{"a1"}}, {weight(3), []string{"b1", "b2"}}} {
		c, err := index.Build(&index.Input{Nodes: nodes, Pods: []index.Pod{web, filler, friend, cache}})
		if err != nil {
			t.Fatal(err)
		}
		if got := outcomes(c, Solve(c, Config{Seed: 1, HardPodAffinityWeight: tc.w})); !contains(tc.want, got["cache"]) {
			w := "default"
			if tc.w != nil {
				w = fmt.Sprint(*tc.w)
			}
			t.Errorf("hard weight %s: cache on %q, want one of %v", w, got["cache"], tc.want)
		}
	}
	// The ignore flag also drops the required terms' weight for such a pod.
	if got := solveCfg(Config{Seed: 1, IgnorePreferredTermsOfExistingPods: true}, web, cache); got["cache"] != "a1" {
		t.Errorf("ignore: cache on %q, want a1 (the plugin skips it)", got["cache"])
	}
}
