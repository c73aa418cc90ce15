package solver_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
	"github.com/kplace/kplace/solver/differential"
)

// The differential test: the fast solver and the reference solver
// (solver/reference, built only on the rules package) place the same
// batches and must give the same commits (Bindings and Evictions, in
// order, with each Binding's score) and the same pending reasons (see
// package differential). Here the batches are those the property tests
// build; bench's differential test adds every kplace gen profile.

// long runs the differential tests over every seed (go test -long).
var long = flag.Bool("long", false, "run the differential tests over every seed, not a sample")

// seeds returns how many seeds a differential test runs: all with -long,
// else a sample.
func seeds(all, sample uint64) uint64 {
	if *long {
		return all
	}
	return sample
}

// tally sums the reports of a test.
type tally struct {
	runs, binds, evictions, pending, preemptions, cross, followed, reordered, normalised int
}

func (ta *tally) add(r differential.Report) {
	ta.runs++
	ta.binds += r.Binds
	ta.evictions += r.Evictions
	ta.pending += r.Pending
	ta.preemptions += r.Preemptions
	ta.cross += r.CrossNode
	ta.followed += r.Followed
	ta.reordered += r.Reordered
	ta.normalised += r.Normalised
}

// differ compares the solvers on in under cfg and fails the test on the
// first difference.
func differ(t *testing.T, ta *tally, name string, in func() *index.Input, cfg solver.Config) {
	t.Helper()
	rep, err := differential.Run(in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Diff != "" {
		t.Errorf("%s: the fast solver and the reference differ at %s", name, rep.Diff)
	}
	if rep.Inversion != "" {
		t.Errorf("%s: priority inversion: %s", name, rep.Inversion)
	}
	ta.add(rep)
}

func pcg(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// TestDifferentialRandom runs the differential test on the random batches
// of the property tests: static filters, scores, extended resources and
// host ports with both scoring strategies (RandomCluster), DoNotSchedule
// spread and anti-affinity (RandomSpreadCluster), preemption onto nodes
// failing spread and anti-affinity, with and without requeue
// (RandomRelCluster), and preemption under PodDisruptionBudgets on up to
// 264 nodes (PreemptionInput).
func TestDifferentialRandom(t *testing.T) {
	t.Parallel()
	var ta tally
	for seed := range seeds(40, 8) {
		nodes, pods := solver.RandomCluster(pcg(seed, 99))
		for _, cfg := range []solver.Config{{Seed: seed}, {Seed: seed, Strategy: solver.MostAllocated, NoPreemption: true}} {
			differ(t, &ta, fmt.Sprintf("RandomCluster seed %d %v", seed, cfg.Strategy), func() *index.Input {
				return &index.Input{Nodes: nodes, Pods: pods}
			}, cfg)
		}
	}
	for seed := range seeds(30, 6) {
		nodes, pods := solver.RandomSpreadCluster(seed, 10, 40)
		differ(t, &ta, fmt.Sprintf("RandomSpreadCluster seed %d", seed), func() *index.Input {
			return &index.Input{Nodes: nodes, Pods: pods}
		}, solver.Config{Seed: seed, NoPreemption: true})
	}
	for seed := range seeds(40, 8) {
		nodes, pods := solver.RandomRelCluster(pcg(seed, 11))
		for _, cfg := range []solver.Config{{Seed: seed}, {Seed: seed, RequeueEvicted: true}, {Seed: seed, CrossNodePreemption: true},
			{Seed: seed, RequeueEvicted: true, CrossNodePreemption: true}} {
			in := &index.Input{Nodes: nodes, Pods: pods}
			if cfg.CrossNodePreemption {
				in = withBudgets(in)
			}
			differ(t, &ta, fmt.Sprintf("RandomRelCluster seed %d requeue %v cross-node %v", seed, cfg.RequeueEvicted, cfg.CrossNodePreemption), func() *index.Input {
				return solver.CloneInput(in)
			}, cfg)
		}
	}
	for seed := range seeds(60, 6) {
		in := solver.PreemptionInput(pcg(seed, 5))
		differ(t, &ta, fmt.Sprintf("PreemptionInput seed %d", seed), func() *index.Input { return solver.CloneInput(in) }, solver.Config{Seed: seed})
	}
	if ta.binds == 0 || ta.evictions == 0 || ta.pending == 0 || ta.cross == 0 {
		t.Fatalf("the batches bound %d pods, evicted %d (%d preemptions across nodes), left %d pending: they no longer exercise all four",
			ta.binds, ta.evictions, ta.cross, ta.pending)
	}
	t.Logf("%d batches: %d bindings (%d preemptors, %d across nodes), %d evictions, %d pending pods compared; followed the fast solver's node among equal candidates %d times, reordered %d preemptions' evictions, normalised %d cycles as it does",
		ta.runs, ta.binds, ta.preemptions, ta.cross, ta.evictions, ta.pending, ta.followed, ta.reordered, ta.normalised)
}

// withBudgets gives a batch's running pods a tier label, a or b in turn,
// and each tier a budget: none left for tier a, three for tier b. Victims
// in one domain (cross-node preemption takes them there, the ones whose
// eviction violates no budget first) then differ in their budgets.
func withBudgets(in *index.Input) *index.Input {
	out := solver.CloneInput(in)
	for i := range out.Pods {
		if p := &out.Pods[i]; p.NodeName != "" {
			l := map[string]string{"tier": []string{"a", "b"}[i%2]}
			for k, v := range p.Labels {
				l[k] = v
			}
			p.Labels = l
		}
	}
	for i, tier := range []string{"a", "b"} {
		out.PDBs = append(out.PDBs, index.PDB{Namespace: "default", Name: "tier-" + tier, DisruptionsAllowed: int32(3 * i),
			Selector: &index.LabelSelector{MatchLabels: map[string]string{"tier": tier}}})
	}
	return out
}
