package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
)

// preemptionInput is a random cluster made for preemption: nodes of a few
// shapes nearly full of pods of several priorities (some under
// PodDisruptionBudgets, some holding a host port, some without a start
// time), and deployments of higher-priority pending pods, some restricted
// to a zone.
func preemptionInput(r *rand.Rand) *index.Input {
	return preemptionInputSized(r, 64+r.IntN(200), 10+r.IntN(30))
}

// preemptionInputSized is preemptionInput with nNodes nodes and nDeploy
// deployments.
func preemptionInputSized(r *rand.Rand, nNodes, nDeploy int) *index.Input {
	zones := []string{"a", "b", "c"}
	var nodes []index.Node
	for i := range nNodes {
		b := makeNode(fmt.Sprintf("n%d", i)).alloc("cpu", int64(2000+r.IntN(4)*1000)).alloc("memory", int64(2+r.IntN(4))<<30).
			alloc("pods", int64(4+r.IntN(12))).label("zone", zones[r.IntN(3)])
		if r.IntN(10) == 0 {
			b.alloc("example.com/gpu", 2)
		}
		if r.IntN(20) == 0 {
			b.unschedulable()
		}
		nodes = append(nodes, b.obj())
	}
	runPrios := []int32{-5, 0, 0, 10, 10, 10, 100, 1000}
	var pods []index.Pod
	for i, nd := range nodes {
		cpu, mem := nd.Allocatable[0].Value, nd.Allocatable[1].Value
		slots := nd.Allocatable[2].Value
		for k := int64(0); k < slots && cpu > 300 && mem > 256<<20; k++ {
			if r.IntN(12) == 0 {
				break // leave some room now and then
			}
			c := min(cpu, int64(100+r.IntN(8)*100))
			m := min(mem, int64(1+r.IntN(6))<<27)
			cpu, mem = cpu-c, mem-m
			b := makePod(fmt.Sprintf("run%d-%d", i, k)).req("cpu", c).req("memory", m).priority(runPrios[r.IntN(len(runPrios))]).
				label("app", fmt.Sprint(r.IntN(6))).on(nd.Name)
			if r.IntN(6) != 0 {
				b.started(int64(1000 + r.IntN(40)))
			}
			if r.IntN(30) == 0 {
				b.hostPort(8080)
			}
			pods = append(pods, b.obj())
		}
	}
	for d := range nDeploy {
		spec := makePod("spec").req("cpu", int64(200+r.IntN(12)*150)).req("memory", int64(1+r.IntN(8))<<27).priority([]int32{10, 50, 500, 2000}[r.IntN(4)])
		if r.IntN(3) == 0 {
			spec.selector("zone", zones[r.IntN(3)])
		}
		if r.IntN(12) == 0 {
			spec.hostPort(8080)
		}
		if r.IntN(15) == 0 {
			spec.req("example.com/gpu", 1)
		}
		if r.IntN(15) == 0 {
			spec.never()
		}
		for k := range 1 + r.IntN(25) {
			p := spec.p
			p.Name, p.UID = fmt.Sprintf("d%d-%d", d, k), fmt.Sprintf("u%d-%d", d, k)
			p.CreationUnix = int64(d)
			pods = append(pods, p)
		}
	}
	var pdbs []index.PDB
	for a := range 6 {
		if r.IntN(2) == 0 {
			pdbs = append(pdbs, index.PDB{Namespace: "default", Name: fmt.Sprint("pdb", a),
				Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprint(a)}}, DisruptionsAllowed: int32(r.IntN(4))})
		}
	}
	return &index.Input{Nodes: nodes, Pods: pods, PDBs: pdbs}
}

// TestLazyBoundsMatchEager places random preemption batches twice, with
// nodes bounded block by block as the heap needs them and with every node
// bounded at each build: the commits and reasons must be the same.
func TestLazyBoundsMatchEager(t *testing.T) {
	t.Parallel()
	lazyMatchesEager(t, 5, func(sw *switches, eager bool) { sw.eagerBounds = eager })
}

// lazyMatchesEager places 60 random preemption batches (preemptionInput,
// PCG stream) with set(sw, false) and with set(sw, true): the commits and the
// pending pods with their reasons must be the same, and the batches must
// evict at least 500 pods in all.
func lazyMatchesEager(t *testing.T, stream uint64, set func(sw *switches, eager bool)) {
	t.Helper()
	evictions := 0
	for seed := range uint64(60) {
		var runs [2]*Result
		for i, eager := range []bool{false, true} {
			cfg := Config{Seed: seed}
			set(&cfg.sw, eager)
			in := preemptionInput(rand.New(rand.NewPCG(seed, stream)))
			c, err := index.Build(in)
			if err != nil {
				t.Fatal(err)
			}
			runs[i] = Solve(c, cfg)
		}
		lazy, eager := runs[0], runs[1]
		if !slices.Equal(lazy.Commits, eager.Commits) {
			t.Fatalf("seed %d: commits differ (%d lazy, %d eager)", seed, len(lazy.Commits), len(eager.Commits))
		}
		if !slices.EqualFunc(lazy.Pending, eager.Pending, samePending) {
			t.Fatalf("seed %d: pending pods or reasons differ", seed)
		}
		for _, cm := range lazy.Commits {
			if cm.Action == Evict {
				evictions++
			}
		}
	}
	if evictions < 500 {
		t.Errorf("only %d evictions: the test does not exercise preemption", evictions)
	}
}

// TestColumnarVerdictsMatchEvalNode places random preemption batches with the
// column verdicts of columnar classes (columnarVerdicts) and with every node
// evaluated in full, lazily and eagerly bounded: the commits and reasons
// (their per-node preemption counts) must be the same.
func TestColumnarVerdictsMatchEvalNode(t *testing.T) {
	t.Parallel()
	reasons := map[string]bool{}
	for seed := range uint64(40) {
		for _, eager := range []bool{false, true} {
			var runs [2]*Result
			var c *index.Cluster
			for i, off := range []bool{false, true} {
				in := preemptionInputSized(rand.New(rand.NewPCG(seed, 9)), 60, 40)
				var err error
				if c, err = index.Build(in); err != nil {
					t.Fatal(err)
				}
				runs[i] = Solve(c, Config{Seed: seed, sw: switches{eagerBounds: eager, noColumnarVerdicts: off}})
			}
			if !slices.Equal(runs[0].Commits, runs[1].Commits) {
				t.Fatalf("seed %d eager %v: commits differ", seed, eager)
			}
			if !slices.EqualFunc(runs[0].Pending, runs[1].Pending, samePending) {
				for i := range runs[0].Pending {
					if a, b := runs[0].Pending[i], runs[1].Pending[i]; !samePending(a, b) {
						t.Fatalf("seed %d eager %v: pending %s:\n got %s\nwant %s", seed, eager, c.Pods[a.Pod].Name, a.Reason, b.Reason)
					}
				}
				t.Fatalf("seed %d eager %v: pending pods differ", seed, eager)
			}
			for _, pd := range runs[0].Pending {
				_, after, _ := strings.Cut(pd.Reason, "preemption: ")
				for _, part := range []string{"Too many pods", "Insufficient cpu", "Insufficient memory", "No preemption victims", "not helpful"} {
					if strings.Contains(after, part) {
						reasons[part] = true
					}
				}
			}
		}
	}
	// The batches must reach the verdicts columnarVerdicts gives (Too many
	// pods only arises on an overcommitted node).
	for _, part := range []string{"Insufficient cpu", "Insufficient memory", "No preemption victims", "not helpful"} {
		if !reasons[part] {
			t.Errorf("no preemption reason names %q: the test does not exercise it", part)
		}
	}
}

// TestKeptVictimsMatchEvaluation places random preemption batches with the
// victims kept from a columnar class's evaluation of the node it takes and
// with that node evaluated again: the commits and reasons must be the
// same (a kept evaluation is only used while the node and its budgets are
// unchanged, see settle).
func TestKeptVictimsMatchEvaluation(t *testing.T) {
	t.Parallel()
	lazyMatchesEager(t, 37, func(sw *switches, eager bool) { sw.noVictimCache = eager })
}

// TestListUpkeepMatchesRebuild places random preemption batches with the
// node pod lists kept up to date on every bind and eviction and with them
// rebuilt after each change: the commits and reasons must be the same.
func TestListUpkeepMatchesRebuild(t *testing.T) {
	t.Parallel()
	lazyMatchesEager(t, 41, func(sw *switches, eager bool) { sw.noListUpkeep = eager })
}

// samePending compares two pending entries by pod, kind and reason (the
// per-node counts follow from the reason).
func samePending(a, b Pending) bool {
	return a.Pod == b.Pod && a.Kind == b.Kind && a.Reason == b.Reason
}
