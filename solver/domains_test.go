package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestSplitAndTemplatesMatchOneHeap solves random spread clusters twice, with
// the domain-split heaps and templates and with one scanned heap per class,
// and asserts the same commits (node, victims, order) and the same pending
// reasons: both must pick the best node that passes every filter. Larger
// clusters make classes split by zone (8 or more nodes per zone) and many
// twins; priorities make some pods preempt, some runs requeue evicted pods
// or preempt across nodes.
func TestSplitAndTemplatesMatchOneHeap(t *testing.T) {
	t.Parallel()
	split, twins := 0, 0
	for seed := range uint64(40) {
		minNodes, span := 10, 40
		if seed%2 == 1 {
			minNodes, span = 60, 200
		}
		nodes, pods := randomSpreadCluster(seed, minNodes, span)
		r := rand.New(rand.NewPCG(seed, 99))
		for i := range pods {
			if pods[i].NodeName == "" && r.IntN(3) == 0 {
				pods[i].Priority = int32(100 * (1 + r.IntN(3)))
			}
		}
		cfg := Config{Seed: seed, RequeueEvicted: seed%4 == 3, CrossNodePreemption: seed%3 == 2}
		res := Solve(cluster(t, nodes, pods), cfg)
		cfg.oneHeap = true
		plain := Solve(cluster(t, nodes, pods), cfg)
		sameResult(t, seed, res, plain)
		split += res.splitClasses
		twins += res.twinBuilds
	}
	// The comparison means something only if both mechanisms ran.
	if split == 0 || twins == 0 {
		t.Fatalf("split classes %d, template builds %d: the test no longer exercises them", split, twins)
	}
	t.Logf("split classes %d, template builds %d", split, twins)
}

// TestTopologyMembers checks the per-domain node lists the split heaps
// rebuild from.
func TestTopologyMembers(t *testing.T) {
	t.Parallel()
	c := cluster(t, []index.Node{
		makeNode("n0").label("zone", "b").obj(), makeNode("n1").obj(),
		makeNode("n2").label("zone", "a").obj(), makeNode("n3").label("zone", "b").obj(),
	}, nil)
	tp := c.Topology("zone")
	if !slices.Equal(tp.Values, []string{"a", "b"}) {
		t.Fatalf("values %v", tp.Values)
	}
	if got := tp.Members(0); !slices.Equal(got, []index.NodeID{2}) {
		t.Fatalf("zone a: %v", got)
	}
	if got := tp.Members(1); !slices.Equal(got, []index.NodeID{0, 3}) {
		t.Fatalf("zone b: %v", got)
	}
}

// TestBucketsMatchOneHeap compares bucketed scoring with placeScored's scan
// (Config.oneHeap) on random clusters where pods also have ScheduleAnyway
// constraints and preferred (anti-)affinity, and running pods carry
// preferred and required affinity terms that select pending pods: the same
// commits and pending reasons, as the buckets must pick the node the scan
// picks.
func TestBucketsMatchOneHeap(t *testing.T) {
	t.Parallel()
	bucketed := 0
	for seed := range uint64(40) {
		minNodes, span := 10, 40
		if seed%2 == 1 {
			minNodes, span = 60, 150
		}
		nodes, pods := randomSpreadCluster(seed, minNodes, span)
		r := rand.New(rand.NewPCG(seed, 5))
		apps := []string{"web", "api", "db", "cache", "batch"}
		keys := []string{"zone", "kubernetes.io/hostname"}
		for i := range pods {
			p := &pods[i]
			if p.NodeName != "" {
				if r.IntN(4) == 0 {
					w := index.WeightedPodAffinityTerm{Weight: int32(1 + r.IntN(100)), Term: term(keys[r.IntN(2)], sel("app", apps[r.IntN(len(apps))]), p.Namespace)}
					p.PreferredAffinity = append(p.PreferredAffinity, w)
				}
				if r.IntN(6) == 0 {
					p.Affinity = append(p.Affinity, term(keys[r.IntN(2)], sel("app", apps[r.IntN(len(apps))]), p.Namespace))
				}
				continue
			}
			for j := range p.Spread {
				if r.IntN(2) == 0 {
					p.Spread[j].WhenUnsatisfiable = index.ScheduleAnyway
				}
			}
			if r.IntN(3) == 0 {
				w := index.WeightedPodAffinityTerm{Weight: int32(1 + r.IntN(100)), Term: term(keys[r.IntN(2)], sel("app", p.Labels["app"]), p.Namespace)}
				if r.IntN(2) == 0 {
					p.PreferredAntiAffinity = append(p.PreferredAntiAffinity, w)
				} else {
					p.PreferredAffinity = append(p.PreferredAffinity, w)
				}
			}
			if r.IntN(3) == 0 {
				p.Priority = int32(100 * (1 + r.IntN(3)))
			}
		}
		cfg := Config{Seed: seed, RequeueEvicted: seed%4 == 3}
		res := Solve(cluster(t, nodes, pods), cfg)
		cfg.oneHeap = true
		plain := Solve(cluster(t, nodes, pods), cfg)
		sameResult(t, seed, res, plain)
		bucketed += res.bucketed
	}
	if bucketed == 0 {
		t.Fatal("no pod was placed on buckets: the test no longer exercises them")
	}
	t.Logf("%d pods placed on buckets", bucketed)
}

// sameResult fails unless res and plain hold the same commits and pending
// pods with the same reasons.
func sameResult(t *testing.T, seed uint64, res, plain *Result) {
	t.Helper()
	if !slices.Equal(res.Commits, plain.Commits) {
		for i := range min(len(res.Commits), len(plain.Commits)) {
			if res.Commits[i] != plain.Commits[i] {
				t.Fatalf("seed %d: commit %d differs: %+v, plain %+v", seed, i, res.Commits[i], plain.Commits[i])
			}
		}
		t.Fatalf("seed %d: %d commits, plain %d", seed, len(res.Commits), len(plain.Commits))
	}
	if fmt.Sprint(res.Pending) != fmt.Sprint(plain.Pending) {
		t.Fatalf("seed %d: pending differs:\n%v\nbare:\n%v", seed, res.Pending, plain.Pending)
	}
}

// TestCountArraysReused places 20 deployments one after the other, each
// spread by zone and hostname over 2,000 nodes: a counter takes its array
// when its class starts placing and gives it back when the class is done,
// so a handful of arrays serve all 40 counters, and every placement kept
// the hostname skew (one pod per node per deployment).
func TestCountArraysReused(t *testing.T) {
	t.Parallel()
	c, err := index.Build(spreadInput(2000, 5, 20*300))
	if err != nil {
		t.Fatal(err)
	}
	res := Solve(c, Config{Seed: 1})
	if len(res.Commits) != 6000 || len(res.Pending) != 0 {
		t.Fatalf("placed %d, pending %d; want 6000, 0", len(res.Commits), len(res.Pending))
	}
	if res.countArrays > 4 {
		t.Errorf("%d count arrays made for 40 counters; want at most 4 (reused)", res.countArrays)
	}
	seen := map[[2]index.NodeID]bool{} // (deployment, node)
	for _, cm := range res.Commits {
		key := [2]index.NodeID{index.NodeID(cm.Pod / 300), cm.Node}
		if seen[key] {
			t.Fatalf("pod %d: a second pod of its deployment on node %d", cm.Pod, cm.Node)
		}
		seen[key] = true
	}
}
