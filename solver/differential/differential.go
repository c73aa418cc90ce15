// Package differential runs a batch through the fast solver (solver.Solve)
// and the reference solver (solver/reference) and compares the results:
// the commits in order (each Binding's node and score, each Eviction's pod,
// node and preemptor) and the pending pods with their reasons. It is the
// differential test's engine, shared by solver's and bench's tests.
//
// Three known differences of the fast solver from kube-scheduler are
// absorbed, and counted, so that the comparison goes on past them (each
// has a skipped reproducer test in solver, TestKnownDivergence*):
//
//   - Eviction order. kube-scheduler lists a preemption's victims most
//     important first; the fast solver evicts them in reprieve order (the
//     PodDisruptionBudget-violating ones first). Where a preemption's
//     victims are the same pods, the reference evicts them in the fast
//     solver's order (which also orders them in the queue when evicted
//     pods are requeued).
//   - The preemption node among candidates equal on the first four
//     criteria (PDB violations, highest victim priority, priority sum,
//     victim count). The fast solver compares start times only among the
//     nodes it sampled or evaluated, not a node changed since its
//     candidates were built, nor (with more than 100 candidates) one
//     outside its sample; the reference compares them all. Where the fast
//     solver's node is such an equal candidate, the reference follows it,
//     except at a placement key's first preemption with at most 100
//     candidates, where the fast solver samples them all and must agree.
//   - Normalisation. kube-scheduler normalises the TaintToleration and
//     NodeAffinity scores over the nodes that pass every filter; the fast
//     solver over the nodes that pass the static filters and fit, before
//     the pod-relative filters. The reference normalises as the fast
//     solver does (reference.Config.FitNormalisation).
package differential

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
	"github.com/kplace/kplace/solver/reference"
	"github.com/kplace/kplace/solver/rules"
)

// RefConfig is the reference's configuration for cfg.
func RefConfig(cfg solver.Config) reference.Config {
	st := rules.LeastAllocated
	if cfg.Strategy == solver.MostAllocated {
		st = rules.MostAllocated
	}
	return reference.Config{Strategy: st, Seed: cfg.Seed, NoPreemption: cfg.NoPreemption,
		DefaultSpread: cfg.DefaultSpread, SystemDefaultSpread: cfg.SystemDefaultSpread,
		HardPodAffinityWeight: cfg.HardPodAffinityWeight, IgnorePreferredTermsOfExistingPods: cfg.IgnorePreferredTermsOfExistingPods,
		RequeueEvicted: cfg.RequeueEvicted, CrossNodePreemption: cfg.CrossNodePreemption}
}

// Report is one comparison's outcome.
type Report struct {
	// Diff describes the first difference, "" when there is none.
	Diff string
	// Binds, Evictions and Pending count the fast solver's commits and
	// pending pods compared; Preemptions its preemptors, CrossNode those
	// that evicted on other nodes.
	Binds, Evictions, Pending, Preemptions, CrossNode int
	// Followed counts the preemptions where the reference took the fast
	// solver's node among equal candidates, Reordered those where it
	// took the fast solver's eviction order, Normalised the scheduling
	// cycles where it took the fast solver's normalisation maxima (see the
	// package comment).
	Followed, Reordered, Normalised int
	// Inversion describes the fast solver's first Binding that gave room
	// to a pod while a pod of higher priority it left unschedulable fitted
	// there (see reference.FindInversion), "" when there is none.
	Inversion string
}

// Run solves the batch in (called twice: each solver gets its own
// cluster) with both solvers under cfg and compares them.
func Run(in func() *index.Input, cfg solver.Config) (Report, error) {
	cf, err := index.Build(in())
	if err != nil {
		return Report{}, err
	}
	cr, err := index.Build(in())
	if err != nil {
		return Report{}, err
	}
	fast := solver.Solve(cf, cfg)
	var rep Report
	// The fast solver's preemptions, per preemptor in order (one pod may
	// preempt again when freed room went to pods of higher priority): the
	// victims of each, and its node when they all leave one (-1: across
	// nodes).
	type preemption struct {
		node    int64
		victims []index.PodID
	}
	runs := map[index.PodID][]preemption{}
	for i, cm := range fast.Commits {
		if cm.Action != solver.Evict {
			rep.Binds++
			continue
		}
		rep.Evictions++
		rs := runs[cm.Preemptor]
		if i == 0 || fast.Commits[i-1].Action != solver.Evict || fast.Commits[i-1].Preemptor != cm.Preemptor {
			rs = append(rs, preemption{node: int64(cm.Node)})
		}
		r := &rs[len(rs)-1]
		if r.node != int64(cm.Node) {
			r.node = -1
		}
		r.victims = append(r.victims, cm.Pod)
		runs[cm.Preemptor] = rs
	}
	rep.Pending, rep.CrossNode, rep.Preemptions = len(fast.Pending), fast.CrossNode, fast.Preemptions
	// The reference takes the fast solver's preemptions in the same order:
	// Choose is offered each node-local choice, OrderVictims each
	// preemption done (node-local or across nodes).
	next := map[index.PodID]int{}
	current := func(pod index.PodID) *preemption {
		if rs := runs[pod]; next[pod] < len(rs) {
			return &rs[next[pod]]
		}
		return nil
	}
	rcfg := RefConfig(cfg)
	rcfg.FitNormalisation = true
	rcfg.Choose = func(ch *reference.Choice) int {
		r := current(ch.Pod)
		if r == nil || r.node < 0 || int64(ch.Candidates[ch.Best].Node) == r.node || ch.First && len(ch.Candidates) <= 100 {
			return ch.Best
		}
		for i := range ch.Candidates {
			if int64(ch.Candidates[i].Node) == r.node && sameFour(&ch.Candidates[i], &ch.Candidates[ch.Best]) {
				rep.Followed++
				return i
			}
		}
		return ch.Best
	}
	rcfg.OrderVictims = func(pre index.PodID, vs []index.PodID) {
		r := current(pre)
		next[pre]++
		if r == nil || len(r.victims) != len(vs) || slices.Equal(r.victims, vs) {
			return
		}
		for _, v := range vs {
			if !slices.Contains(r.victims, v) {
				return // other pods: the comparison will tell
			}
		}
		copy(vs, r.victims)
		rep.Reordered++
	}
	ref := reference.Solve(cr, rcfg)
	rep.Normalised = ref.FitNormalised
	rep.Diff = compare(cf, fast, ref)
	ci, err := index.Build(in())
	if err != nil {
		return Report{}, err
	}
	rep.Inversion = Inversion(ci, fast, RefConfig(cfg))
	return rep, nil
}

// Inversion checks the "no priority inversion" property on res, the
// result of a batch on c (the cluster before it; c is modified): it
// describes the first Binding that gave room to a pod while a pod of
// higher priority that res leaves unschedulable passed every filter on
// that node, "" when there is none.
func Inversion(c *index.Cluster, res *solver.Result, cfg reference.Config) string {
	commits := make([]reference.InversionCommit, len(res.Commits))
	for i, cm := range res.Commits {
		commits[i] = reference.InversionCommit{Evict: cm.Action == solver.Evict, Pod: cm.Pod, Node: cm.Node}
	}
	var pending []index.PodID
	for _, pd := range res.Pending {
		if pd.Kind == solver.Unschedulable {
			pending = append(pending, pd.Pod)
		}
	}
	inv, found := reference.FindInversion(c, cfg, commits, pending)
	if !found {
		return ""
	}
	name := func(p index.PodID) string { return c.Pods[p].Namespace + "/" + c.Pods[p].Name }
	return fmt.Sprintf("commit %d binds %s (priority %d) to %s, where %s (priority %d), left unschedulable, passed every filter",
		inv.At, name(inv.Pod), c.Pods[inv.Pod].Priority, c.Nodes[inv.Node].Name, name(inv.Pending), c.Pods[inv.Pending].Priority)
}

// sameFour reports whether two candidates are equal on the first four
// criteria.
func sameFour(a, b *rules.Candidate) bool {
	_, decided := rules.BetterVictims(a, b)
	return !decided
}

// commit is a commit of either solver, as compared.
type commit struct {
	evict     bool
	pod, pre  index.PodID
	node      index.NodeID
	score     int64 // -1: a preemptor's Binding
	preemptor bool
}

// compare describes the first difference between the results, "" when
// there is none.
func compare(c *index.Cluster, fast *solver.Result, ref *reference.Result) string {
	fc := make([]commit, len(fast.Commits))
	for i, cm := range fast.Commits {
		fc[i] = commit{evict: cm.Action == solver.Evict, pod: cm.Pod, pre: cm.Preemptor, node: cm.Node, score: cm.Score}
		if cm.Action == solver.Bind && i > 0 && fast.Commits[i-1].Action == solver.Evict && fast.Commits[i-1].Preemptor == cm.Pod {
			fc[i].score = -1
		}
	}
	rc := make([]commit, len(ref.Commits))
	for i, cm := range ref.Commits {
		rc[i] = commit{evict: cm.Evict, pod: cm.Pod, pre: cm.Preemptor, node: cm.Node, score: cm.Score}
	}
	name := func(p index.PodID) string { return c.Pods[p].Namespace + "/" + c.Pods[p].Name }
	text := func(cm commit) string {
		switch {
		case cm.evict:
			return fmt.Sprintf("evict %s from %s for %s", name(cm.pod), c.Nodes[cm.node].Name, name(cm.pre))
		case cm.score < 0:
			return fmt.Sprintf("bind %s to %s (preemptor)", name(cm.pod), c.Nodes[cm.node].Name)
		}
		return fmt.Sprintf("bind %s to %s score %d", name(cm.pod), c.Nodes[cm.node].Name, cm.score)
	}
	for i := range max(len(fc), len(rc)) {
		var f, r string
		if i < len(fc) {
			f = text(fc[i])
		}
		if i < len(rc) {
			r = text(rc[i])
		}
		if f != r {
			var b strings.Builder
			fmt.Fprintf(&b, "commit %d:\n  fast      %s\n  reference %s", i, f, r)
			for j := max(0, i-3); j < i; j++ {
				fmt.Fprintf(&b, "\n  after     %s", text(fc[j]))
			}
			return b.String()
		}
	}
	for i := range max(len(fast.Pending), len(ref.Pending)) {
		var f, r string
		if i < len(fast.Pending) {
			pd := fast.Pending[i]
			f = fmt.Sprintf("%s %s: %s", name(pd.Pod), pd.Kind, pd.Reason)
		}
		if i < len(ref.Pending) {
			pd := ref.Pending[i]
			r = fmt.Sprintf("%s %s: %s", name(pd.Pod), pd.Kind, pd.Reason)
		}
		if f != r {
			return fmt.Sprintf("pending %d:\n  fast      %s\n  reference %s", i, f, r)
		}
	}
	return ""
}
