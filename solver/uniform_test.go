package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestUniformMatchesFill solves random clusters shaped like a real
// cluster's many small workloads (most of them one fresh replica behind a
// ReplicaSet and often a Service, so that default spreading applies and
// counts no pod) three ways: with placeUniform, without it (every scoring
// class fills its buckets) and with placeScored's scan of every node for
// every pod (Config.oneHeap). All three must give the same commits and
// pending reasons. The clusters mix what moves the other scores (images,
// PreferNoSchedule taints, preferred node affinity, nodes of two sizes and
// strategies), pods that find no room (and preempt), workloads with
// running replicas or several pending ones, a preferred pod affinity term
// that scores once its target runs, workloads with spread constraints of
// their own (soft, or hard beside soft), required pod anti-affinity or
// affinity (to their own pods, another workload's or a tier's), and in some
// clusters nodes without a zone (then a group holding one is not
// uniform) or without a hostname.
func TestUniformMatchesFill(t *testing.T) {
	t.Parallel()
	uniform, others := 0, 0
	for seed := range uint64(24) {
		in := freshWorkloads(seed, false)
		cfg := spreadConfig(seed)
		cfg.sw.bucketsFrom = 1
		res, fill := threeWays(t, seed, in, cfg, func(c *Config) { c.sw.noUniform = true })
		if fill.uniformPlaced != 0 {
			t.Fatalf("seed %d: %d pods placed uniformly with placeUniform off", seed, fill.uniformPlaced)
		}
		uniform += res.uniformPlaced
		others += res.bucketed - res.uniformPlaced
	}
	if uniform < 300 || others < 300 {
		t.Fatalf("%d pods placed uniformly, %d other pods on buckets: the test no longer exercises both", uniform, others)
	}
	t.Logf("%d pods placed uniformly, %d other pods on buckets", uniform, others)
}

// freshWorkloads is TestUniformMatchesFill's cluster for seed; big
// clusters (TestRunBuildsMatchScan) have 1,100 to 1,600 nodes and pods
// of no workload besides, some of them requesting ephemeral storage or a
// host port.
func freshWorkloads(seed uint64, big bool) *index.Input {
	r := rand.New(rand.NewPCG(seed, 31))
	zones := []string{"a", "b", "c", "d"}[:1+r.IntN(4)]
	in := &index.Input{}
	nodes := 150 + r.IntN(300)
	if big {
		nodes = 1100 + r.IntN(500)
	}
	for i := range nodes {
		cpu, mem := int64(4000), int64(16)<<30
		if r.IntN(3) == 0 {
			cpu, mem = 8000, 32<<30
		}
		b := makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", cpu).alloc("memory", mem).alloc("pods", int64(8+r.IntN(20)))
		if seed%5 != 4 || r.IntN(20) != 0 {
			b.label("topology.kubernetes.io/zone", zones[r.IntN(len(zones))])
		}
		if seed%5 == 3 && r.IntN(25) == 0 {
			delete(b.n.Labels, labelHostname)
		}
		if r.IntN(8) == 0 {
			b.taint("spot", "true", index.EffectPreferNoSchedule)
		}
		if r.IntN(5) == 0 {
			b.label("disk", "ssd")
		}
		if r.IntN(10) == 0 {
			b.taint("gpu", "true", index.EffectNoSchedule)
		}
		if big && r.IntN(2) == 0 {
			b.alloc("ephemeral-storage", int64(1+r.IntN(4))<<30)
		}
		n := b.obj()
		for j := range 3 {
			if r.IntN(4) == 0 {
				n.Images = append(n.Images, index.NodeImage{Names: []string{fmt.Sprintf("img%d", j)}, Size: int64(200+300*j) << 20})
			}
		}
		in.Nodes = append(in.Nodes, n)
	}
	for w := range 150 + r.IntN(150) {
		app := fmt.Sprintf("app%d", w)
		rs := app + "-rs"
		owner := &index.OwnerRef{Kind: index.KindReplicaSet, Name: rs, APIVersion: "apps/v1"}
		in.Workloads = append(in.Workloads, index.Workload{Kind: index.KindReplicaSet, Namespace: "default", Name: rs, Selector: sel("app", app)})
		if r.IntN(3) != 0 {
			in.Workloads = append(in.Workloads, index.Workload{Kind: index.KindService, Namespace: "default", Name: app, Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": app}}})
		}
		// Most workloads are one pending replica; some have more, some
		// have replicas running already.
		pending, running := 1, 0
		switch r.IntN(6) {
		case 0:
			pending = 2 + r.IntN(4)
		case 1:
			running = 1 + r.IntN(2)
		}
		cpu, mem := int64(250*(1+r.IntN(6))), int64(512<<20)*int64(1+r.IntN(4))
		prio := int32(0)
		if r.IntN(5) == 0 {
			prio = 1000
		}
		tolerates, prefers, img := r.IntN(3) == 0, r.IntN(3) == 0, r.IntN(4)
		affine := w > 0 && r.IntN(10) == 0
		tier := "" // one workload in four has a tier
		if r.IntN(4) == 0 {
			tier = []string{"web", "db", "batch"}[r.IntN(3)]
		}
		var own []index.SpreadConstraint
		var anti, aff []index.PodAffinityTerm
		switch r.IntN(10) {
		case 0:
			// Its own soft constraints: nodes lacking a key are ignored.
			own = []index.SpreadConstraint{spread("topology.kubernetes.io/zone", int32(1+r.IntN(3)), SA, sel("app", app)), spread(labelHostname, 1, SA, sel("app", app))}
		case 1:
			// A DoNotSchedule constraint beside a soft one: it passes
			// every node with its key while no pod counts.
			hard := sel("app", app)
			if tier != "" {
				hard = sel("tier", tier) // counts other workloads' pods
			}
			own = []index.SpreadConstraint{spread("topology.kubernetes.io/zone", 1, DNS, hard), spread(labelHostname, 1, SA, sel("app", app))}
		case 2:
			anti = []index.PodAffinityTerm{term(labelHostname, sel("app", app), "default")}
		case 3:
			// Affinity to its own pods passes anywhere for the first;
			// to another workload's, only where one runs.
			target := app
			if w > 0 && r.IntN(2) == 0 {
				target = fmt.Sprintf("app%d", r.IntN(w))
			}
			aff = []index.PodAffinityTerm{term("topology.kubernetes.io/zone", sel("app", target), "default")}
		case 4:
			// Terms over a tier: they match the pod itself and count
			// other workloads' pods, which default spreading does not.
			if tier == "" {
				break
			}
			if r.IntN(2) == 0 {
				aff = []index.PodAffinityTerm{term(labelHostname, sel("tier", tier), "default")}
			} else {
				anti = []index.PodAffinityTerm{term(labelHostname, sel("tier", tier), "default")}
			}
		}
		for i := range pending + running {
			b := makePod(fmt.Sprintf("%s-%d", app, i)).label("app", app).priority(prio)
			if tier != "" {
				b.label("tier", tier)
			}
			b.created(int64(w*10+i)).req("cpu", cpu).req("memory", mem)
			if tolerates {
				b.tol("spot", "Exists", "", index.EffectPreferNoSchedule)
			}
			if prefers {
				b.preferred(int32(1+r.IntN(60)), req("disk", "In", "ssd"))
			}
			if i < running {
				b.on(in.Nodes[r.IntN(len(in.Nodes))].Name)
			}
			p := b.obj()
			if img < 3 {
				p.Images, p.ImageContainers = []string{fmt.Sprintf("img%d", img)}, 1
			}
			if affine {
				// Scores once a pod of the target workload runs.
				p.PreferredAffinity = []index.WeightedPodAffinityTerm{{Weight: 20, Term: term("topology.kubernetes.io/zone", sel("app", fmt.Sprintf("app%d", r.IntN(w))), "default")}}
			}
			p.Owner = owner
			p.Spread, p.AntiAffinity, p.Affinity = own, anti, aff
			in.Pods = append(in.Pods, p)
		}
	}
	if !big {
		return in
	}
	// Pods of no workload: no default spreading, a heap per class.
	for j := range 20 + r.IntN(30) {
		pending := 1 + r.IntN(8)
		if r.IntN(3) == 0 {
			pending = 20 + r.IntN(60) // past a build's 16 entries
		}
		cpu, mem := int64(250*(1+r.IntN(8))), int64(512<<20)*int64(1+r.IntN(6))
		eph, port, prefers := r.IntN(5) == 0, r.IntN(8) == 0, r.IntN(3) == 0
		prio := int32(r.IntN(3) * 500)
		for i := range pending {
			b := makePod(fmt.Sprintf("solo%d-%d", j, i)).priority(prio).created(int64(r.IntN(3000))).req("cpu", cpu).req("memory", mem)
			if eph {
				b.req("ephemeral-storage", 1<<30)
			}
			if port {
				b.hostPort(9100)
			}
			if prefers {
				b.preferred(30, req("disk", "In", "ssd"))
			}
			in.Pods = append(in.Pods, b.obj())
		}
	}
	return in
}

// TestRunBuildsMatchScan solves clusters of over a thousand nodes where
// lean classes keep a run order and other classes have no pod-relative
// part, so that their builds search the run order (topInRuns), with
// those builds scanning every feasible node instead (scanScore) and with
// placeScored's scan of every node for every pod. All three must give the
// same commits and pending reasons.
func TestRunBuildsMatchScan(t *testing.T) {
	t.Parallel()
	builds, rebuilds := 0, 0
	for seed := range uint64(8) {
		in := freshWorkloads(seed, true)
		cfg := spreadConfig(seed)
		res, other := threeWays(t, seed, in, cfg, func(c *Config) { c.sw.noRunBuilds = true })
		if other.runBuilds != 0 {
			t.Fatalf("seed %d: %d run builds with them off", seed, other.runBuilds)
		}
		builds += res.runBuilds
		rebuilds += res.Rebuilds
	}
	if builds < 100 || rebuilds < 10 {
		t.Fatalf("%d run builds, %d rebuilds: the test no longer exercises them", builds, rebuilds)
	}
	t.Logf("%d run builds, %d rebuilds", builds, rebuilds)
}

// threeWays solves in under cfg, under cfg changed by off, and with
// placeScored's scan of every node for every pod (Config.oneHeap), fails
// unless all three give the same commits and pending reasons, and returns
// the first two results.
func threeWays(t *testing.T, seed uint64, in *index.Input, cfg Config, off func(*Config)) (res, other *Result) {
	t.Helper()
	res = solveCopy(t, in, cfg)
	alt := cfg
	off(&alt)
	other = solveCopy(t, in, alt)
	sameResult(t, seed, res, other)
	plain := cfg
	plain.oneHeap = true
	sameResult(t, seed, res, solveCopy(t, in, plain))
	return res, other
}
