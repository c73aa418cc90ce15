package solver

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestLeanBucketsMatchFull solves random clusters where default spreading
// and soft constraints make most classes score every node, three ways:
// lean buckets, full bucket fills (Config.noLean) and placeScored's scan
// of every node (Config.oneHeap). All three must give the same commits and
// pending reasons (four clusters of 1,500 to 2,500 nodes, where a fill
// counts on two workers where there are two processors, the others of
// 60 to 260; every other cluster's syncs test their nodes on every
// processor from four nodes on, and half the clusters' syncs read which
// nodes are bare from a bitset from one node on). The clusters have zones of a few dozen
// nodes, nodes lacking the zone or the hostname label, PreferNoSchedule
// taints and preferred node affinity (so the normalisation maxima move),
// workloads
// of one to six replicas behind ReplicaSets and Services, some with their
// own soft or hard constraints or preferred pod affinity, and priorities
// that make pods preempt.
func TestLeanBucketsMatchFull(t *testing.T) {
	t.Parallel()
	fills, refills, syncs := 0, 0, 0
	for seed := range uint64(34) {
		// The last four clusters are big enough for fills on two workers.
		in := defaultSpreadInput(seed, seed >= 30)
		cfg := Config{Seed: seed, DefaultSpread: BuiltinDefaultSpread(), SystemDefaultSpread: true, RequeueEvicted: seed%5 == 4}
		if seed%2 == 1 {
			cfg.sw.minParallelSync = 4 // syncs of a few nodes test them on every processor
		}
		if seed%4 < 2 {
			cfg.sw.minBareBits = 1 // every sync reads which nodes are bare from nonBare's bitset
		}
		cfg.sw.bucketsFrom = 1 // every scoring class on buckets (TestFewNodeClassesMatchBuckets tests the others)
		lean, _ := threeWays(t, seed, in, cfg, func(c *Config) { c.noLean = true })
		fills += lean.leanFills
		refills += lean.bareRefills
		syncs += lean.parallelSyncs
	}
	if fills < 100 || refills < 20 || runtime.GOMAXPROCS(0) > 1 && syncs < 100 {
		t.Fatalf("%d lean fills, %d bare bucket refills, %d syncs on every processor: the test no longer exercises them", fills, refills, syncs)
	}
	t.Logf("%d lean fills, %d bare bucket refills, %d syncs on every processor", fills, refills, syncs)
}

// TestBareBucketsKeepTheBest checks every bare bucket a lean fill or
// refill makes against every node: it holds the best entries of its
// slot's fitting bare nodes by score, tie-break and node, as many as the
// fill keeps (or all of them), its member count is theirs, and its cut is
// no worse than any node it left out. Both strategies are checked.
func TestBareBucketsKeepTheBest(t *testing.T) {
	t.Parallel()
	order := func(a, b entry) int {
		switch {
		case better(&a, &b):
			return -1
		case better(&b, &a):
			return 1
		}
		return 0
	}
	checked, truncated, runs, sparse, dense := 0, 0, 0, 0, 0
	for seed := range uint64(20) {
		in := defaultSpreadInput(seed, seed >= 16)
		cfg := spreadConfig(seed)
		cfg.sw.checkBare = func(s *Solver, cl *class, b *buckets, id int32, keep int) {
			bk := &b.list[id]
			var want []entry
			for n := range index.NodeID(s.c.NumNodes()) {
				if cl.g.dense[n>>6]&(1<<(n&63)) == 0 || !s.fits(n, cl) || !s.isBare(b, n) {
					continue
				}
				pd := int32(0)
				if b.topo != nil {
					pd = b.topo.Of[n] + 1
				}
				if pd+1 == bk.bare && ignoredAt(cl, n) == bk.ignored {
					want = append(want, entry{score: s.score(cl, n), tie: s.ties[n], node: n, gen: s.c.Gen[n]})
				}
			}
			slices.SortFunc(want, order)
			got := slices.SortedFunc(slices.Values(bk.heap), order)
			if bk.members != len(want) || !slices.Equal(got, want[:min(keep, len(want))]) {
				t.Fatalf("seed %d, class of %s: bucket of %d members keeps %v, want %d members and %v",
					seed, s.c.Pods[cl.rep].Name, bk.members, got, len(want), want[:min(keep, len(want))])
			}
			if len(want) > keep {
				truncated++
				if !bk.truncated || better(&want[keep], &bk.cut) {
					t.Fatalf("seed %d, class of %s: cut %+v (truncated %v) below %+v, left out", seed, s.c.Pods[cl.rep].Name, bk.cut, bk.truncated, want[keep])
				}
			}
			checked++
			o := s.orders[b.topo]
			runs += checkOrder(t, s, o)
			// The class's feasible runs, found from its nodes or run by run.
			g := cl.g
			if g.runsOf == o && g.runsMade == o.made {
				for j := range o.runs {
					r := &o.runs[j]
					want := slices.ContainsFunc(o.nodes[r.start:r.start+int32(r.n)], func(n index.NodeID) bool { return g.dense[n>>6]&(1<<(n&63)) != 0 })
					if got := g.runs[j>>6]&(1<<(j&63)) != 0; got != want {
						t.Fatalf("seed %d, class of %s: run %d feasible %v, want %v (%d feasible nodes, %d runs)", seed, s.c.Pods[cl.rep].Name, j, got, want, g.feasCard, len(o.runs))
					}
				}
				if g.feasCard < sparseRuns*len(o.runs) {
					sparse++
				} else {
					dense++
				}
			}
		}
		c, err := index.Build(cloneInput(in))
		if err != nil {
			t.Fatal(err)
		}
		Solve(c, cfg)
	}
	if checked < 2000 || truncated < 200 || runs < 100000 || sparse == 0 || dense == 0 {
		t.Fatalf("%d bare buckets checked, %d truncated, %d full runs, feasible runs from the nodes %d times and run by run %d times: the test no longer exercises them",
			checked, truncated, runs, sparse, dense)
	}
	t.Logf("%d bare buckets checked, %d truncated, %d full runs, feasible runs from the nodes %d times and run by run %d times", checked, truncated, runs, sparse, dense)
}

// checkOrder checks run order o: every node in one run, of its shape and
// domain, the maxima at least its record's (so that runUpper bounds
// shapeUpper on it for any shares), a run's nodes in tie order (highest
// first, then lowest id: scanRuns leaves a run at the first node that
// cannot enter), and within a shape segment the runs as made sorted. It
// returns the number of full runs.
func checkOrder(t *testing.T, s *Solver, o *nodeOrder) int {
	t.Helper()
	if o == nil {
		t.Fatal("a lean scan made no run order for its topology")
	}
	seen := make([]bool, len(s.fitRecs))
	full := 0
	for pd, segs := range o.segs {
		for _, sg := range segs {
			// The runs as made sorted: a node whose record has not moved
			// since comes after every such node of the runs before.
			var last uint64
			for j := sg.lo; j < sg.hi; j++ {
				r := &o.runs[j]
				var most uint64
				for p := r.start; p < r.start+int32(r.n); p++ {
					if n := o.nodes[p]; o.moved[n>>6]&(1<<(n&63)) == 0 {
						f := o.recs[p]
						k := uint64(1<<17-1-(uint32(f.cpu)+uint32(f.mem)))<<32 | uint64(n)
						if k < last {
							t.Fatalf("run %d: node %d (key %x) after a node of key %x in the runs before", j, n, k, last)
						}
						most = max(most, k)
					}
				}
				last = max(last, most)
				if r.shape != sg.shape || r.n == 0 || r.n > runLen {
					t.Fatalf("run %d: shape %d in a segment of %d, %d nodes", j, r.shape, sg.shape, r.n)
				}
				if r.n == runLen {
					full++
				}
				for p := r.start; p < r.start+int32(r.n); p++ {
					n := o.nodes[p]
					if o.pos[n] != p || o.scores[p] != s.hot[n].scoreRec {
						t.Fatalf("node %d at %d: position %d, score record %+v, the node's %+v", n, p, o.pos[n], o.scores[p], s.hot[n].scoreRec)
					}
					f := s.fitRecs[n]
					if seen[n] || o.runOf[n] != j || f.shape != r.shape {
						t.Fatalf("node %d: seen %v, run %d, shape %d, in run %d of shape %d", n, seen[n], o.runOf[n], f.shape, j, r.shape)
					}
					seen[n] = true
					if o.topo != nil && int(o.topo.Of[n])+1 != pd {
						t.Fatalf("node %d of domain %d in the runs of %d", n, o.topo.Of[n], pd-1)
					}
					if f.cpu > r.cpu || f.mem > r.mem || uint32(f.cpu)+uint32(f.mem) > r.sum || f.balCap > r.balCap || f.d < r.dmin || f.d > r.dmax {
						t.Fatalf("node %d: record %+v above its run's maxima %+v", n, f, *r)
					}
					if o.ties[p] != s.ties[n] {
						t.Fatalf("node %d: tie %d at %d, the node's %d", n, o.ties[p], p, s.ties[n])
					}
					if q := p + 1; q < r.start+int32(r.n) && (o.ties[q] > o.ties[p] || o.ties[q] == o.ties[p] && o.nodes[q] < n) {
						t.Fatalf("run %d: node %d (tie %d) after node %d (tie %d): not in tie order", j, o.nodes[q], o.ties[q], n, o.ties[p])
					}
				}
			}
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		t.Fatalf("node %d in no run", i)
	}
	return full
}

// randomDefaultSpreadInput makes a cluster of 60 to 260 nodes in zones
// with pending workloads under default spreading (see
// TestLeanBucketsMatchFull).
func randomDefaultSpreadInput(seed uint64) *index.Input {
	return defaultSpreadInput(seed, false)
}

// spreadConfig is the configuration of the default-spreading tests:
// kube-scheduler's default constraints, and MostAllocated for one seed in
// four.
func spreadConfig(seed uint64) Config {
	cfg := Config{Seed: seed, DefaultSpread: BuiltinDefaultSpread(), SystemDefaultSpread: true}
	if seed%4 == 3 {
		cfg.Strategy = MostAllocated
	}
	return cfg
}

// defaultSpreadInput makes randomDefaultSpreadInput's cluster, or with
// big one of 1,500 to 2,500 nodes of six shapes and four times the pods,
// whose runs (runs.go) are full.
func defaultSpreadInput(seed uint64, big bool) *index.Input {
	r := rand.New(rand.NewPCG(seed, 23))
	zones := []string{"a", "b", "c", "d", "e"}[:2+r.IntN(4)]
	in := &index.Input{}
	nodes := 60 + r.IntN(200)
	if big {
		nodes = 1500 + r.IntN(1000)
	}
	for i := range nodes {
		cpu, mem := int64(2000+r.IntN(6)*1000), int64(4+r.IntN(8))<<30
		if big {
			cpu, mem = (cpu/3000+1)*4000, mem>>32<<33
		}
		b := makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", cpu).alloc("memory", mem).alloc("pods", int64(6+r.IntN(10)))
		if big {
			// Node pools and dedicated nodes, which some groups do not
			// find feasible (whole runs of them).
			b.label("pool", fmt.Sprintf("p%d", r.IntN(3)))
			if r.IntN(10) == 0 {
				b.taint("dedicated", "true", index.EffectNoSchedule)
			}
		}
		if r.IntN(15) != 0 {
			b.label("zone", zones[r.IntN(len(zones))])
		}
		if r.IntN(40) == 0 {
			delete(b.n.Labels, labelHostname)
		}
		if r.IntN(8) == 0 {
			b.taint("spot", "true", index.EffectPreferNoSchedule)
			if r.IntN(2) == 0 {
				b.taint("old", "true", index.EffectPreferNoSchedule)
			}
		}
		if r.IntN(12) == 0 {
			b.label("disk", "ssd") // few: preferring pods fill them, and the maximum falls
		}
		if r.IntN(3) == 0 {
			b.label("gen", "new")
		}
		if r.IntN(2) == 0 {
			b.alloc("ephemeral-storage", int64(1+r.IntN(4))<<30)
		}
		n := b.obj()
		if seed%2 == 1 {
			// Images on some nodes, so that ImageLocality scores some
			// nodes of some classes: a lean class's static scores vary.
			for j, size := range []int64{300 << 20, 700 << 20, 900 << 20} {
				if r.IntN(3) == 0 {
					n.Images = append(n.Images, index.NodeImage{Names: []string{fmt.Sprintf("img%d", j)}, Size: size})
				}
			}
		}
		in.Nodes = append(in.Nodes, n)
	}
	for w := range 40 + r.IntN(60) {
		app := fmt.Sprintf("app%d", w)
		rs := fmt.Sprintf("%s-rs", app)
		owner := &index.OwnerRef{Kind: index.KindReplicaSet, Name: rs, APIVersion: "apps/v1"}
		in.Workloads = append(in.Workloads, index.Workload{Kind: index.KindReplicaSet, Namespace: "default", Name: rs, Selector: sel("app", app)})
		if r.IntN(2) == 0 {
			in.Workloads = append(in.Workloads, index.Workload{Kind: index.KindService, Namespace: "default", Name: app, Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": app}}})
		}
		// Requests from a few shapes, so that classes are often twins.
		cpu := int64(100 * (1 + r.IntN(4)))
		mem := int64(256<<20) * int64(1+r.IntN(3))
		prio := int32(0)
		if r.IntN(4) == 0 {
			prio = int32(100 * (1 + r.IntN(3)))
		}
		tolerates, prefers := r.IntN(3) == 0, r.IntN(2) == 0
		wSSD, wNew := int32(1+r.IntN(50)), int32(1+r.IntN(50))
		// Some request ephemeral storage (half the nodes have none) or a
		// host port (two numbers equal modulo 64): fitsExtra decides.
		eph, port := int64(0), int32(0)
		if r.IntN(5) == 0 {
			eph = int64(512<<20) * int64(1+r.IntN(3))
		}
		if r.IntN(8) == 0 {
			port = []int32{9100, 9164}[r.IntN(2)]
		}
		var own []index.SpreadConstraint
		switch r.IntN(6) {
		case 0:
			own = append(own, spread("zone", int32(1+r.IntN(2)), SA, sel("app", app)))
		case 1:
			own = append(own, spread(labelHostname, 1, SA, sel("app", app)), spread("zone", 2, DNS, sel("app", app)))
		}
		pods := 1 + r.IntN(6) + 30*r.IntN(2)
		pool, dedicated, bare := "", false, false
		if big {
			pods *= 4
			if r.IntN(3) == 0 {
				pool = fmt.Sprintf("p%d", r.IntN(3))
			}
			// Pods without requests count the default non-zero ones in
			// scoring, so a node's score parts can fall below a class's
			// share on nodes it fits (runUpper's clamps).
			dedicated, bare = r.IntN(4) == 0, r.IntN(4) == 0
		}
		for i := range pods {
			b := makePod(fmt.Sprintf("%s-%d", app, i)).label("app", app).priority(prio).created(int64(r.IntN(500)))
			if !bare {
				b.req("cpu", cpu).req("memory", mem)
			}
			if pool != "" {
				b.selector("pool", pool)
			}
			if dedicated {
				b.tol("dedicated", "Exists", "", index.EffectNoSchedule)
			}
			if tolerates {
				b.tol("spot", "Exists", "", index.EffectPreferNoSchedule)
			}
			if prefers {
				b.preferred(wSSD, req("disk", "In", "ssd")).preferred(wNew, req("gen", "In", "new"))
			}
			if eph > 0 {
				b.req("ephemeral-storage", eph)
			}
			if port > 0 {
				b.hostPort(port)
			}
			p := b.obj()
			if im := w % 5; im < 3 {
				p.Images, p.ImageContainers = []string{fmt.Sprintf("img%d", im)}, 1
			}
			p.Owner = owner
			p.Spread = own
			if r.IntN(8) == 0 {
				p.PreferredAffinity = append(p.PreferredAffinity, index.WeightedPodAffinityTerm{Weight: 10, Term: term("zone", sel("app", fmt.Sprintf("app%d", r.IntN(w+1))), "default")})
			}
			if r.IntN(3) == 0 {
				p.NodeName = in.Nodes[r.IntN(len(in.Nodes))].Name // a running replica
			}
			in.Pods = append(in.Pods, p)
		}
	}
	return in
}

// TestFewNodeClassesMatchBuckets: a class feasible on a handful of nodes
// (the pods of a DaemonSet behind a Service, each naming its node; pods
// naming three nodes) scores them all for each pod instead of filling
// buckets (useBuckets); both give the same commits and pending reasons,
// as does placeScored's scan of every node for every class.
func TestFewNodeClassesMatchBuckets(t *testing.T) {
	t.Parallel()
	direct := 0
	for seed := range uint64(12) {
		in := defaultSpreadInput(seed, seed >= 10)
		in.Workloads = append(in.Workloads, index.Workload{Kind: index.KindService, Namespace: "default", Name: "agent", Selector: sel("app", "agent")})
		owner := &index.OwnerRef{Kind: index.KindDaemonSet, Name: "agent", APIVersion: "apps/v1"}
		for i := range in.Nodes {
			name := func(j int) string { return in.Nodes[(i+j)%len(in.Nodes)].Name }
			var p *podB
			switch i % 5 {
			case 0, 1:
				p = makePod("agent-"+name(0)).label("app", "agent").fieldTerm(req("metadata.name", index.SelIn, name(0)))
			case 2:
				p = makePod("agent-"+name(0)).label("app", "agent").on(name(0))
			case 3:
				p = makePod("trio-"+name(0)).label("app", "agent").fieldTerm(req("metadata.name", index.SelIn, name(0), name(7), name(13)))
			default:
				continue
			}
			p.p.Owner = owner
			p.p.Requests = index.ResourceList{{Name: "cpu", Value: 50}, {Name: "memory", Value: 64 << 20}}
			p.p.ScoreCPU, p.p.ScoreMemory = 50, 64<<20
			in.Pods = append(in.Pods, p.obj())
		}
		cfg := Config{Seed: seed, DefaultSpread: BuiltinDefaultSpread(), SystemDefaultSpread: true, RequeueEvicted: seed%4 == 3}
		solveIn := func(cfg Config) *Result { return solveCopy(t, in, cfg) }
		res := solveIn(cfg)
		all := cfg
		all.sw.bucketsFrom = 1
		onBuckets := solveIn(all)
		sameResult(t, seed, res, onBuckets)
		plain := cfg
		plain.oneHeap = true
		sameResult(t, seed, res, solveIn(plain))
		direct += onBuckets.bucketed - res.bucketed
	}
	if direct < 200 {
		t.Fatalf("%d pods placed without buckets that buckets would place: the test no longer exercises the few-node classes", direct)
	}
	t.Logf("%d pods placed without buckets", direct)
}

// solveCopy solves a copy of in under cfg.
func solveCopy(t *testing.T, in *index.Input, cfg Config) *Result {
	t.Helper()
	c, err := index.Build(cloneInput(in))
	if err != nil {
		t.Fatal(err)
	}
	return Solve(c, cfg)
}

// TestAllocFloor: a request's floor holds exactly the nodes whose
// allocatable takes it with nothing requested (equal included), and is
// nil when every node's does; a class's floors are those of its other
// requests that leave some node out.
func TestAllocFloor(t *testing.T) {
	t.Parallel()
	var nodes []index.Node
	for i := range 130 { // three words, the last one partial
		b := makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", 4000).alloc("memory", 8<<30).alloc("ephemeral-storage", 10<<30)
		if i%3 != 0 {
			b.alloc("example.com/gpu", int64(i%3)) // 1 or 2; every third node has none
		}
		nodes = append(nodes, b.obj())
	}
	c := cluster(t, nodes, nil)
	s := newSolver(c, Config{})
	gpu, eph := c.ResIndex["example.com/gpu"], c.ResIndex["ephemeral-storage"]
	for _, want := range []int64{1, 2, 3} {
		f := s.allocFloor(index.ResVal{Res: gpu, Val: want})
		if len(f) != 3 {
			t.Fatalf("gpu %d: %d words, want 3", want, len(f))
		}
		for n := range 130 {
			if in, fits := f[n>>6]&(1<<(n&63)) != 0, int64(n%3) >= want; in != fits {
				t.Fatalf("gpu %d: node n%d (allocatable %d) in the floor: %v", want, n, n%3, in)
			}
		}
		for n := 130; n < 192; n++ {
			if f[n>>6]&(1<<(n&63)) != 0 {
				t.Fatalf("gpu %d: bit %d past the last node set", want, n)
			}
		}
	}
	if f := s.allocFloor(index.ResVal{Res: eph, Val: 10 << 30}); f != nil {
		t.Fatalf("every node takes 10Gi of ephemeral storage, the floor is not nil")
	}
	cl := &class{g: &group{}}
	cl.demand.Req = []index.ResVal{{Res: index.ResCPU, Val: 100}, {Res: eph, Val: 1 << 30}, {Res: gpu, Val: 2}}
	cl.prepare()
	s.classFloors(cl)
	if len(cl.floors) != 1 || &cl.floors[0][0] != &s.allocFloor(index.ResVal{Res: gpu, Val: 2})[0] {
		t.Fatalf("the class's floors: %d, want the gpu request's alone", len(cl.floors))
	}
}
