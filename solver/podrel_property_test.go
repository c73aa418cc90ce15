package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
)

// naiveState is the cluster as a list of bound pods, for the naive checks.
type naiveState struct {
	c     *index.Cluster
	on    map[index.PodID]int // pod -> node
	usage []map[string]int64  // node -> resource -> requested
}

func matchLabels(ls *index.LabelSelector, l map[string]string) bool {
	if ls == nil {
		return false
	}
	for k, v := range ls.MatchLabels {
		if l[k] != v {
			return false
		}
	}
	return true
}

// naiveSpreadOK checks p's DoNotSchedule constraints on node n from scratch
// (selectors are matchLabels only; nodeSelector is the only affinity).
func (st *naiveState) naiveSpreadOK(p *index.Pod, n int) bool {
	nodes := st.c.Nodes
	hasAll := func(i int) bool {
		for _, sc := range p.Spread {
			if _, ok := nodes[i].Labels[sc.TopologyKey]; !ok {
				return false
			}
		}
		return true
	}
	honors := func(i int) bool {
		for k, v := range p.NodeSelector {
			if nodes[i].Labels[k] != v {
				return false
			}
		}
		return true
	}
	for _, sc := range p.Spread {
		val, ok := nodes[n].Labels[sc.TopologyKey]
		if !ok {
			return false
		}
		counts := map[string]int32{}
		for i := range nodes {
			if hasAll(i) && (sc.NodeAffinityPolicy == index.PolicyIgnore || honors(i)) {
				counts[nodes[i].Labels[sc.TopologyKey]] += 0
			}
		}
		empty := sc.Selector != nil && len(sc.Selector.MatchLabels) == 0
		for q, qn := range st.on {
			pod := &st.c.Pods[q]
			if _, dom := counts[nodes[qn].Labels[sc.TopologyKey]]; !dom || !hasAll(qn) || (sc.NodeAffinityPolicy != index.PolicyIgnore && !honors(qn)) {
				continue
			}
			if !empty && pod.Namespace == p.Namespace && matchLabels(sc.Selector, pod.Labels) {
				counts[nodes[qn].Labels[sc.TopologyKey]]++
			}
		}
		minC := int32(-1)
		for _, v := range counts {
			if minC < 0 || v < minC {
				minC = v
			}
		}
		if int32(len(counts)) < max(sc.MinDomains, 1) || minC < 0 {
			minC = 0
		}
		self := int32(0)
		if matchLabels(sc.Selector, p.Labels) {
			self = 1
		}
		if counts[val]+self-minC > sc.MaxSkew {
			return false
		}
	}
	return true
}

// naiveAntiOK checks p's own required anti-affinity and the existing pods'.
func (st *naiveState) naiveAntiOK(p *index.Pod, n int) bool {
	nodes := st.c.Nodes
	same := func(key string, a, b int) bool {
		va, ok := nodes[a].Labels[key]
		vb, ok2 := nodes[b].Labels[key]
		return ok && ok2 && va == vb
	}
	for q, qn := range st.on {
		pod := &st.c.Pods[q]
		for _, t := range p.AntiAffinity {
			if same(t.TopologyKey, n, qn) && pod.Namespace == p.Namespace && matchLabels(t.Selector, pod.Labels) {
				return false
			}
		}
		for _, t := range pod.AntiAffinity {
			if same(t.TopologyKey, n, qn) && p.Namespace == pod.Namespace && matchLabels(t.Selector, p.Labels) {
				return false
			}
		}
	}
	return true
}

// TestPropertySpreadSkew places random pods with random DoNotSchedule
// spread constraints and hostname anti-affinity, replays the commit order
// and asserts that every placement kept count+self-min <= maxSkew and the
// anti-affinity rules at its moment, and that no pod left pending fits any
// node at the end.
func TestPropertySpreadSkew(t *testing.T) {
	t.Parallel()
	for seed := range uint64(30) {
		nodes, pods := randomSpreadCluster(seed, 10, 40)
		c := cluster(t, nodes, pods)
		res := Solve(c, Config{Seed: seed, NoPreemption: true})

		// Replay on a fresh copy of the initial state.
		c0 := cluster(t, nodes, pods)
		st := &naiveState{c: c0, on: map[index.PodID]int{}}
		for p := range c0.Pods {
			if n := c0.PodNode[p]; n != index.NoNode {
				st.on[index.PodID(p)] = int(n)
			}
		}
		for _, cm := range res.Commits {
			if cm.Action != Bind {
				t.Fatalf("seed %d: unexpected eviction", seed)
			}
			p := &c0.Pods[cm.Pod]
			n := int(cm.Node)
			if !naiveFits(c0, p, n) {
				t.Fatalf("seed %d: %s does not fit %s", seed, p.Name, c0.Nodes[n].Name)
			}
			if !st.naiveSpreadOK(p, n) {
				for _, sc := range p.Spread {
					t.Logf("constraint %+v sel %v", sc, sc.Selector.MatchLabels)
				}
				t.Logf("pod ns %s labels %v nodesel %v", p.Namespace, p.Labels, p.NodeSelector)
				for i := range c0.Nodes {
					var on []string
					for q, qn := range st.on {
						if qn == i {
							on = append(on, c0.Pods[q].Namespace+"/"+c0.Pods[q].Labels["app"])
						}
					}
					t.Logf("node %s labels %v pods %v", c0.Nodes[i].Name, c0.Nodes[i].Labels, on)
				}
				t.Fatalf("seed %d: %s on %s breaks a spread constraint %+v", seed, p.Name, c0.Nodes[n].Name, p.Spread)
			}
			if !st.naiveAntiOK(p, n) {
				t.Fatalf("seed %d: %s on %s breaks anti-affinity", seed, p.Name, c0.Nodes[n].Name)
			}
			d := c0.DemandOf(p)
			c0.Bind(cm.Pod, cm.Node, &d)
			st.on[cm.Pod] = n
		}
		pending := 0
		for _, pd := range res.Pending {
			p := &c0.Pods[pd.Pod]
			pending++
			for n := range c0.Nodes {
				if naiveFits(c0, p, n) && st.naiveSpreadOK(p, n) && st.naiveAntiOK(p, n) {
					t.Fatalf("seed %d: %s left pending (%s) but fits %s", seed, p.Name, pd.Reason, c0.Nodes[n].Name)
				}
			}
		}
		if len(res.Commits) == 0 || (seed == 0 && pending == 0) {
			t.Logf("seed %d: %d placed, %d pending", seed, len(res.Commits), pending)
		}
	}
}

// randomSpreadCluster makes a random cluster for the spread property tests:
// minNodes to minNodes+spanNodes nodes in 2 to 4 zones (a few without a
// zone), running pods, and pending pods of five apps with random
// DoNotSchedule constraints, nodeSelectors and hostname anti-affinity.
func randomSpreadCluster(seed uint64, minNodes, spanNodes int) ([]index.Node, []index.Pod) {
	r := rand.New(rand.NewPCG(seed, 7))
	zones := []string{"a", "b", "c", "d"}[:2+r.IntN(3)]
	var nodes []index.Node
	for i := range minNodes + r.IntN(spanNodes) {
		b := makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", int64(2000+r.IntN(4)*1000)).alloc("pods", int64(4+r.IntN(8)))
		if r.IntN(12) != 0 {
			b.label("zone", zones[r.IntN(len(zones))])
		}
		if r.IntN(3) == 0 {
			b.label("disk", "ssd")
		}
		nodes = append(nodes, b.obj())
	}
	apps := []string{"web", "api", "db", "cache", "batch"}
	var pods []index.Pod
	for i := range len(nodes) {
		pods = append(pods, makePod(fmt.Sprintf("run%d", i)).label("app", apps[r.IntN(len(apps))]).req("cpu", 100).on(nodes[r.IntN(len(nodes))].Name).obj())
	}
	for i := range 100 + r.IntN(400) {
		app := apps[r.IntN(len(apps))]
		b := makePod(fmt.Sprintf("p%d", i)).label("app", app).req("cpu", int64(100+100*r.IntN(5))).created(int64(i))
		if r.IntN(8) == 0 {
			b.ns("other")
		}
		for range 1 + r.IntN(2) {
			key := []string{"zone", "kubernetes.io/hostname"}[r.IntN(2)]
			sc := spread(key, int32(1+r.IntN(3)), DNS, sel("app", app))
			if r.IntN(6) == 0 {
				sc.Selector = sel("app", apps[r.IntN(len(apps))]) // may not match itself
			}
			if r.IntN(5) == 0 {
				sc.MinDomains = int32(1 + r.IntN(6))
			}
			if r.IntN(4) == 0 {
				sc.NodeAffinityPolicy = index.PolicyIgnore
			}
			b.spread(sc)
		}
		if r.IntN(5) == 0 {
			b.selector("disk", "ssd")
		}
		if app == "db" && r.IntN(2) == 0 {
			b.anti(term("kubernetes.io/hostname", sel("app", "db"), b.p.Namespace))
		}
		pods = append(pods, b.obj())
	}
	return nodes, pods
}
