package solver

import (
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Preemption candidates: a node's criteria in kube-scheduler's node-choice
// order, and the heap they are taken from (see preempt.go).

// candidate is a node where preemption makes room: kube-scheduler's
// node-choice criteria (rules.Candidate, whose AddVictim and ordering it
// uses) and the solver's own state beside them.
type candidate struct {
	rules.Candidate
	gen  uint32 // node generation when evaluated
	pgen uint32 // the node's budget generation when evaluated (see sureViol.gen)
	// vic is, for an evaluated node of a columnar class, 1 + the offset of
	// its victims (Count of them) in preState.vics; 0 when not kept.
	vic int32
	// exact is false for a lower bound on the first four criteria (Start
	// unknown), found in O(1) from the node's lower-priority sums.
	exact bool
	// sample marks a bound of a node a build sampled (see sampleSize); its
	// Start is then at least the exact one (see startBound).
	sample bool
}

// evaluated is node n's candidate, with generations gen and pgen, before
// any victim is added (see rules.NewCandidate).
func evaluated(n index.NodeID, gen, pgen uint32) candidate {
	return candidate{Candidate: rules.NewCandidate(n), gen: gen, pgen: pgen, exact: true}
}

// bound is a lower bound of a candidate on the first four criteria, from
// a node key: victims' violations, highest priority, count and sum (see
// nodeKey).
func bound(viol, maxPrio, count int32, sum int64) candidate {
	return candidate{Candidate: rules.Candidate{Viol: viol, MaxPrio: maxPrio, Count: count, Sum: sum}}
}

// tied reports whether c takes part in the start-time tie-break: an
// evaluated node, or the bound of a sampled one.
func (c *candidate) tied() bool { return c.exact || c.sample }

// add counts victim e (viol: its eviction violates a budget) into c's
// criteria.
func (c *candidate) add(e *podEnt, viol bool) { c.AddVictim(e.Prio, e.Start, viol) }

// betterCand orders candidates, best first: rules.BetterVictims, then, the
// start being known only for evaluated and sampled nodes (tied),
// rules.BetterStart among them; a sampled node's bound before an evaluated
// node it may tie with; then the lower node id.
func betterCand(a, b *candidate) bool {
	if better, ok := rules.BetterVictims(&a.Candidate, &b.Candidate); ok {
		return better
	}
	if a.tied() != b.tied() {
		return a.tied()
	}
	if better, ok := rules.BetterStart(&a.Candidate, &b.Candidate); ok {
		return better // a sampled node's bound: the latest its start may be
	}
	if a.exact != b.exact {
		return !a.exact
	}
	return a.Node < b.Node
}

func sameCand(a, b *candidate) bool { return rules.SameCriteria(&a.Candidate, &b.Candidate) }

// Hand-written rather than the generic heap (binheap.go): with it for
// candidates, blocks and keys, BenchmarkPreemption took 7% more CPU
// (median of 5 interleaved runs of 30 solves, GOMAXPROCS=1: 1.54 s, 1.65 s).
type candHeap []candidate

func (h *candHeap) push(c candidate) {
	*h = append(*h, c)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !betterCand(&a[i], &a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *candHeap) pop() {
	a := *h
	n := len(a) - 1
	a[0] = a[n]
	*h = a[:n]
	h.down(0)
}

func (h candHeap) down(i int) {
	a, n := h, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && betterCand(&a[r], &a[l]) {
			m = r
		}
		if !betterCand(&a[m], &a[i]) {
			return
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
}
