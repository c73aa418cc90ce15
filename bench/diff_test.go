package bench

import (
	"flag"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
	"github.com/kplace/kplace/solver/differential"
)

// long runs the differential test over every seed (go test -long).
var long = flag.Bool("long", false, "run the differential test over every seed and size, not a sample")

// TestDifferentialProfiles is the differential test on generated clusters:
// for every kplace gen profile, small clusters over several seeds are
// placed by the fast solver and by the reference solver (solver/reference)
// under the CLI's settings (see variant), and must give the same commits
// and pending reasons (see package differential). Short: 7 seeds per
// profile (3 for the realistic one), 60 nodes and 240 pending pods; -long:
// 20 seeds per profile at 40 nodes / 160 pods and at 100 nodes / 500 pods.
func TestDifferentialProfiles(t *testing.T) {
	type size struct{ nodes, pods int }
	sizes, nseeds := []size{{60, 240}}, uint64(7)
	if *long {
		sizes, nseeds = []size{{40, 160}, {100, 500}}, 20
	}
	var binds, evictions, pending, cross, followed, reordered, normalised, runs int
	for _, prof := range Profiles() {
		n := nseeds
		if prof == realisticName && !*long {
			n = 3 // its full objects take ten times as long to write and read
		}
		for _, sz := range sizes {
			for seed := uint64(1); seed <= n; seed++ {
				gc := GenConfig{Profile: prof, Nodes: sz.nodes, Pods: sz.pods, Running: -1, Seed: seed}
				in := loadGenerated(t, gc)
				cfg := variant(seed)
				rep, err := differential.Run(func() *index.Input { return cloneInput(in) }, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if rep.Diff != "" {
					t.Errorf("%s %d nodes %d pods seed %d: the fast solver and the reference differ at %s", prof, sz.nodes, sz.pods, seed, rep.Diff)
				}
				if rep.Inversion != "" {
					t.Errorf("%s %d nodes %d pods seed %d: priority inversion: %s", prof, sz.nodes, sz.pods, seed, rep.Inversion)
				}
				runs++
				binds += rep.Binds
				evictions += rep.Evictions
				pending += rep.Pending
				cross += rep.CrossNode
				followed += rep.Followed
				reordered += rep.Reordered
				normalised += rep.Normalised
			}
		}
	}
	if binds == 0 || evictions == 0 || pending == 0 {
		t.Fatalf("the clusters bound %d pods, evicted %d, left %d pending: they no longer exercise all three", binds, evictions, pending)
	}
	t.Logf("%d clusters: %d bindings, %d evictions (%d preemptions across nodes), %d pending pods compared; followed the fast solver's node among equal candidates %d times, reordered %d preemptions' evictions, normalised %d cycles as it does",
		runs, binds, evictions, cross, pending, followed, reordered, normalised)
}

// variant is the solver configuration of a seed: the CLI's defaults
// (kube-scheduler's built-in default spreading, LeastAllocated, preemption
// on), or one of its flags' other settings, in turn (requeue with
// cross-node preemption, which only bench's clusters combine with budgets).
func variant(seed uint64) solver.Config {
	cfg := solver.Config{Seed: seed, DefaultSpread: solver.BuiltinDefaultSpread(), SystemDefaultSpread: true}
	switch seed % 6 {
	case 1:
		cfg.Strategy = solver.MostAllocated
	case 2:
		cfg.RequeueEvicted, cfg.CrossNodePreemption = true, true
	case 3:
		cfg.NoPreemption = true
	case 4:
		w := int32(5)
		cfg.HardPodAffinityWeight, cfg.IgnorePreferredTermsOfExistingPods = &w, true
	case 5:
		// A configured default: hard zone spreading, not the built-in one.
		cfg.DefaultSpread = []index.SpreadConstraint{{MaxSkew: 2, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: index.DoNotSchedule,
			MinDomains: 1, NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore}}
		cfg.SystemDefaultSpread = false
	}
	return cfg
}

// cloneInput copies in's top-level slices: index.Build takes ownership of
// them.
func cloneInput(in *index.Input) *index.Input {
	out := *in
	out.Nodes = append([]index.Node(nil), in.Nodes...)
	out.Pods = append([]index.Pod(nil), in.Pods...)
	out.PDBs = append([]index.PDB(nil), in.PDBs...)
	out.PriorityClasses = append([]index.PriorityClass(nil), in.PriorityClasses...)
	out.Namespaces = append([]index.Namespace(nil), in.Namespaces...)
	out.Workloads = append([]index.Workload(nil), in.Workloads...)
	return &out
}
