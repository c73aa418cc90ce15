// Package reference is a slow, obviously right solver built only on the
// rules package and the index types: the pending pods one at a time in
// queue order, every node filtered and scored for each, preemption by a
// dry run on every node. It has the fast solver's batch semantics (the
// seeded tie between equal scores, the PDB accounting, freed room offered
// to the higher priorities first, the retry of the pods left pending after
// evictions, requeued victims, cross-node preemption) so that the two can
// be compared result for result (the differential tests); it is meant for
// clusters of a few hundred nodes.
package reference

import (
	"encoding/json"
	"slices"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
	"k8s.io/apimachinery/pkg/labels"
)

// Config holds the settings that change placements (solver.Config's).
type Config struct {
	Strategy rules.Strategy
	Seed     uint64
	// NoPreemption turns preemption off.
	NoPreemption bool
	// DefaultSpread are the cluster default spread constraints;
	// SystemDefaultSpread says they are kube-scheduler's built-in ones.
	DefaultSpread       []index.SpreadConstraint
	SystemDefaultSpread bool
	// HardPodAffinityWeight and IgnorePreferredTermsOfExistingPods are
	// InterPodAffinityArgs (nil weight: the default).
	HardPodAffinityWeight              *int32
	IgnorePreferredTermsOfExistingPods bool
	// RequeueEvicted puts each victim back in the queue.
	RequeueEvicted bool
	// CrossNodePreemption lets a pod blocked only by a spread skew or
	// required anti-affinity evict pods on other nodes of the constraint's
	// domain (see crossnode.go).
	CrossNodePreemption bool
	// Choose, when set (tests), picks the node of each preemption among
	// the candidates (see Choice) and returns its index; nil takes the
	// best by rules.BetterCandidate.
	Choose func(*Choice) int
	// OrderVictims, when set (tests), may reorder a preemption's victims
	// (most important first) before they are evicted in that order.
	OrderVictims func(preemptor index.PodID, victims []index.PodID)
	// FitNormalisation (tests) normalises the TaintToleration and
	// NodeAffinity scores over the nodes that pass the static filters and
	// fit, before the pod-relative filters, as the fast solver does (a
	// known difference from kube-scheduler, which normalises over the
	// nodes that pass every filter).
	FitNormalisation bool
}

// Choice is one preemption's node choice.
type Choice struct {
	Pod index.PodID
	// Candidates are the nodes where the dry run made room, in node order,
	// and Best the index of the best of them.
	Candidates []rules.Candidate
	Best       int
	// First is set on the first preemption attempt of the pod's placement
	// key in the batch.
	First bool
}

// Commit is one entry of the result, in commit order: a Binding, or (Evict)
// an Eviction.
type Commit struct {
	Evict bool
	Pod   index.PodID
	// Node is the node bound to, or the node an evicted pod leaves.
	Node index.NodeID
	// Score is a Binding's total score on its node; -1 for a preemptor's
	// Binding (it is bound to its nominated node without scoring).
	Score int64
	// Preemptor is, for an Eviction, the pod whose placement needed it.
	Preemptor index.PodID
}

// Pending is a pod left pending: Kind is "unschedulable", "unsupported" or
// "gated", Reason kube-scheduler's words.
type Pending struct {
	Pod          index.PodID
	Kind, Reason string
}

// Pending kinds.
const (
	unschedulable = "unschedulable"
	unsupported   = "unsupported"
	gated         = "gated"
	// reclaimed marks, during a batch, an unschedulable entry whose pod was
	// placed later on freed room (see reclaim.go); none is left in a
	// Result.
	reclaimed = "reclaimed"
)

// Result is the outcome of a batch.
type Result struct {
	Commits []Commit
	// Pending lists the pods left pending, in queue order.
	Pending []Pending
	// Preemptions counts preemptors bound; Retried the pods placed by the
	// retry turn; FitNormalised the scheduling cycles whose maxima
	// Config.FitNormalisation changed.
	Preemptions, Retried, FitNormalised int
}

// state is the batch: the cluster (mutated through index.Cluster's Bind
// and Unbind) and what the batch keeps beside it.
type state struct {
	c   *index.Cluster
	cfg Config
	res *Result
	// tie is each node's seeded tie value.
	tie []uint32
	// nsLabels holds the Namespace objects' labels (absent: no object).
	nsLabels map[string]map[string]string
	hard     int64 // hardPodAffinityWeight
	// demands caches each pod's demand (requests and ports do not change).
	demands map[index.PodID]*index.Demand
	// terms caches bound pods' resolved terms (see termsOf).
	terms map[index.PodID]*podTerms
	// repelTerms and carryTerms are the batch's terms that select other
	// pods, for placement keys (see readyTerms).
	termsReady             bool
	repelTerms, carryTerms []rules.Term
	// carriers lists, per repel term, the pods carrying it.
	carriers [][]index.PodID
	// PDB state, made at the first preemption attempt: each budget's
	// selector (ok: it matches some pod) and its disruptions left.
	pdbReady bool
	pdbSel   []labels.Selector
	pdbOK    []bool
	allowed  []int32
	budgets  map[index.PodID][]int32 // see budgetsOf
	// lastPreempt is the PostFilter message of the latest preemption
	// attempt of each placement key (see keyOf).
	lastPreempt map[string]string
	// requeue holds the evicted pods waiting (RequeueEvicted), in eviction
	// order.
	requeue []queued
	// lastCand is the candidate of the latest node-local preemption.
	lastCand rules.Candidate
	// Reclaim (reclaim.go): the nodes that lost pods to evictions, in
	// order; the placement keys with pods left unschedulable, in order of
	// their first failure, and their state; the log's length and the
	// priority bound at the last reclaim.
	evictedLog []index.NodeID
	failedKeys []string
	reclaims   map[string]*reclaimKey
	lastLog    int
	lastAbove  int32
	// relationalKeys counts the failed keys whose filters read other pods;
	// lastCommits is the commits' count at the last reclaim.
	relationalKeys int
	lastCommits    int
}

// queued is an evicted pod waiting in the queue.
type queued struct {
	pod index.PodID
	seq int
}

// Solve places every pending pod of c and returns the commits and the pods
// left pending. c is updated to the final state.
func Solve(c *index.Cluster, cfg Config) *Result {
	st := &state{c: c, cfg: cfg, res: &Result{}, nsLabels: map[string]map[string]string{},
		hard: rules.HardAffinityWeight(cfg.HardPodAffinityWeight), demands: map[index.PodID]*index.Demand{},
		lastPreempt: map[string]string{}}
	st.tie = make([]uint32, c.NumNodes())
	for n := range st.tie {
		st.tie[n] = rules.NodeTie(cfg.Seed, uint32(n))
	}
	for i := range c.Namespaces {
		st.nsLabels[c.Namespaces[i].Name] = c.Namespaces[i].Labels
	}
	queue := Queue(c)
	evictedSeq := 0
	for qi := 0; ; {
		var pid index.PodID
		switch {
		case len(st.requeue) > 0 && (qi == len(queue) || st.requeuedFirst(queue[qi])):
			pid = st.popRequeue()
		case qi < len(queue):
			pid = queue[qi]
			qi++
		default:
			st.finish()
			return st.res
		}
		p := &c.Pods[pid]
		switch {
		case p.Gated:
			st.res.Pending = append(st.res.Pending, Pending{Pod: pid, Kind: gated, Reason: rules.GatedMessage(p.SchedulingGates)})
			continue
		case p.Unsupported != "":
			st.res.Pending = append(st.res.Pending, Pending{Pod: pid, Kind: unsupported, Reason: rules.UnsupportedMessage(p.Unsupported)})
			continue
		}
		if len(st.evictedLog) > 0 || st.relationalKeys > 0 {
			st.reclaim(p.Priority)
		}
		cy := st.newCycle(pid)
		if n, score, ok := cy.place(); ok {
			st.bind(pid, n)
			st.res.Commits = append(st.res.Commits, Commit{Pod: pid, Node: n, Score: score})
			continue
		}
		if !cfg.NoPreemption && rules.CanPreempt(p.PreemptionPolicy) && !cy.conflict && st.preemptAndBind(cy, &evictedSeq) {
			continue
		}
		st.waitFor(pid, len(st.res.Pending))
	}
}

// preemptAndBind preempts for the cycle's pod, which fits nowhere, and
// binds it on the room its victims freed, once the pods of higher priority
// left unschedulable have had that room (reclaim): when they took some,
// the pod places again, or preempts again when nothing is left for it.
func (st *state) preemptAndBind(cy *cycle, evictedSeq *int) bool {
	c, cfg, pid := st.c, st.cfg, cy.pid
	for {
		n, victims, ok := st.preempt(cy)
		if cfg.CrossNodePreemption {
			local := st.lastCand
			if xc, xv, xok := st.crossPreempt(cy); xok && (!ok || !rules.SameCriteria(&xc, &local) && rules.BetterCandidate(&xc, &local)) {
				n, victims, ok = xc.Node, xv, true
			}
		}
		if !ok {
			return false
		}
		if cfg.OrderVictims != nil {
			cfg.OrderVictims(pid, victims)
		}
		st.logEvictions(victims)
		for _, v := range victims {
			st.res.Commits = append(st.res.Commits, Commit{Evict: true, Pod: v, Node: index.NodeID(c.PodNode[v]), Preemptor: pid})
			st.evict(v)
			if cfg.RequeueEvicted {
				st.requeue = append(st.requeue, queued{pod: v, seq: *evictedSeq})
				*evictedSeq++
			}
		}
		if st.reclaim(cy.p.Priority) == 0 {
			st.bind(pid, n)
			st.res.Commits = append(st.res.Commits, Commit{Pod: pid, Node: n, Score: -1})
			st.res.Preemptions++
			return true
		}
		cy = st.newCycle(pid)
		if n, score, ok := cy.place(); ok {
			st.bind(pid, n)
			st.res.Commits = append(st.res.Commits, Commit{Pod: pid, Node: n, Score: score})
			st.res.Preemptions++
			return true
		}
	}
}

// Queue returns the pending pods in queue order (rules.QueueCompare, then
// input order).
func Queue(c *index.Cluster) []index.PodID {
	q := slices.Clone(c.Pending)
	slices.SortStableFunc(q, func(a, b index.PodID) int {
		pa, pb := &c.Pods[a], &c.Pods[b]
		return rules.QueueCompare(pa.Priority, pa.CreationUnix, pb.Priority, pb.CreationUnix)
	})
	return q
}

// requeuedFirst reports whether the first evicted pod waiting goes before
// pending pod pid: a pending pod that ties with it goes first (it was
// queued before).
func (st *state) requeuedFirst(pid index.PodID) bool {
	t := &st.c.Pods[st.requeue[st.firstRequeued()].pod]
	return rules.QueueCompare(t.Priority, t.CreationUnix, st.c.Pods[pid].Priority, st.c.Pods[pid].CreationUnix) < 0
}

// firstRequeued is the index in st.requeue of the evicted pod to go first:
// queue order, then eviction order.
func (st *state) firstRequeued() int {
	best := 0
	for i := 1; i < len(st.requeue); i++ {
		a, b := &st.c.Pods[st.requeue[i].pod], &st.c.Pods[st.requeue[best].pod]
		if rules.QueueCompare(a.Priority, a.CreationUnix, b.Priority, b.CreationUnix) < 0 {
			best = i
		}
	}
	return best
}

func (st *state) popRequeue() index.PodID {
	i := st.firstRequeued()
	pid := st.requeue[i].pod
	st.requeue = slices.Delete(st.requeue, i, i+1)
	return pid
}

// demand returns pod p's demand (cached).
func (st *state) demand(p index.PodID) *index.Demand {
	d, ok := st.demands[p]
	if !ok {
		dd := st.c.DemandOf(&st.c.Pods[p])
		d = &dd
		st.demands[p] = d
	}
	return d
}

func (st *state) bind(p index.PodID, n index.NodeID) { st.c.Bind(p, n, st.demand(p)) }

func (st *state) unbind(p index.PodID) { st.c.Unbind(p, st.demand(p)) }

// evict unbinds victim v and takes one disruption from every budget it
// matches.
func (st *state) evict(v index.PodID) {
	for _, k := range st.budgetsOf(v) {
		st.allowed[k]--
	}
	st.unbind(v)
}

// readyPDBs computes the budgets' disruptions left, at the batch's first
// preemption attempt: status.disruptionsAllowed, or from the spec with the
// bound matching pods as healthy and every admitted matching pod as
// expected.
func (st *state) readyPDBs() {
	if st.pdbReady {
		return
	}
	st.pdbReady = true
	c := st.c
	st.budgets = map[index.PodID][]int32{}
	st.pdbSel = make([]labels.Selector, len(c.PDBs))
	st.pdbOK = make([]bool, len(c.PDBs))
	st.allowed = make([]int32, len(c.PDBs))
	for k := range c.PDBs {
		st.pdbSel[k], st.pdbOK[k] = rules.PDBSelector(&c.PDBs[k])
		b := &c.PDBs[k]
		if b.DisruptionsAllowed >= 0 {
			st.allowed[k] = b.DisruptionsAllowed
			continue
		}
		healthy, expected := 0, 0
		for q := range c.Pods {
			if c.Pods[q].Rejected != "" || !st.pdbOK[k] || !rules.PDBCovers(b, st.pdbSel[k], &c.Pods[q]) {
				continue
			}
			expected++
			if c.PodNode[q] != index.NoNode {
				healthy++
			}
		}
		st.allowed[k] = rules.SpecAllowed(b, healthy, expected)
	}
}

// budgetsOf lists the budgets covering pod p (cached: neither changes).
func (st *state) budgetsOf(p index.PodID) []int32 {
	if out, ok := st.budgets[p]; ok {
		return out
	}
	var out []int32
	for k := range st.c.PDBs {
		if st.pdbOK[k] && rules.PDBCovers(&st.c.PDBs[k], st.pdbSel[k], &st.c.Pods[p]) {
			out = append(out, int32(k))
		}
	}
	st.budgets[p] = out
	return out
}

// finish gives the pods left unschedulable one more placement turn when
// the batch evicted pods (kube-scheduler requeues them when pods are
// deleted; the turn places, it does not preempt), then writes every
// pending pod's reason from the final state.
func (st *state) finish() {
	res := st.res
	keep := res.Pending[:0]
	for _, pd := range res.Pending {
		if pd.Kind != reclaimed {
			keep = append(keep, pd)
		}
	}
	res.Pending = keep
	if res.Preemptions > 0 {
		keep := res.Pending[:0]
		for _, pd := range res.Pending {
			if pd.Kind == unschedulable {
				if n, score, ok := st.newCycle(pd.Pod).place(); ok {
					st.bind(pd.Pod, n)
					res.Commits = append(res.Commits, Commit{Pod: pd.Pod, Node: n, Score: score})
					res.Retried++
					continue
				}
			}
			keep = append(keep, pd)
		}
		res.Pending = keep
	}
	for i := range res.Pending {
		if pd := &res.Pending[i]; pd.Kind == unschedulable {
			pd.Reason = st.reason(pd.Pod)
		}
	}
}

// reason is the message of a pod that fits nowhere now: the filters'
// counts over the final state, then the PostFilter part of its placement
// key's latest preemption attempt.
func (st *state) reason(pid index.PodID) string {
	c := st.c
	n := c.NumNodes()
	if n == 0 {
		return rules.NoNodesAvailable.String()
	}
	cy := st.newCycle(pid)
	if cy.conflict {
		return rules.ConflictMessage(n)
	}
	counts := map[string]int{}
	for node := range n {
		for _, msg := range cy.filter(index.NodeID(node)).msgs {
			counts[msg]++
		}
	}
	p := &c.Pods[pid]
	post := ""
	switch {
	case st.cfg.NoPreemption:
		post = rules.NoPreemptionMessage()
	case !rules.CanPreempt(p.PreemptionPolicy):
		post = rules.NeverMessage()
	default:
		var ok bool
		if post, ok = st.lastPreempt[st.keyOf(pid)]; !ok {
			post = rules.PreemptionMessage(n, map[string]int{rules.PreemptionNotHelpful.String(): n})
		}
	}
	return rules.FitMessage(n, counts) + " " + post
}

// keyOf is pod pid's placement key: pods with equal keys are placed
// alike, and a preemption's message belongs to its key (the fast solver's
// equivalence class). It holds every field placement reads; labels and
// namespace only as the pod-relative terms read them: which constraints
// the pod's own selectors match, and which terms of other pods select it.
func (st *state) keyOf(pid index.PodID) string {
	st.readyTerms()
	p := &st.c.Pods[pid]
	type relKey struct {
		Namespace    string
		Spread       []index.SpreadConstraint
		Defaulted    bool
		Self         []int32
		Affinity     []index.PodAffinityTerm
		AffSelf      bool
		Anti         []index.PodAffinityTerm
		PrefAff      []index.WeightedPodAffinityTerm
		PrefAnti     []index.WeightedPodAffinityTerm
		Repel, Carry []int
	}
	key := struct {
		Tolerations      []index.Toleration
		NodeSelector     map[string]string
		HasRequired      bool
		RequiredTerms    []index.NodeSelectorTerm
		PreferredTerms   []index.PreferredTerm
		Requests         index.ResourceList
		ScoreCPU         int64
		ScoreMemory      int64
		HostPorts        []index.HostPort
		Priority         int32
		PreemptionPolicy string
		Rel              *relKey
		Images           []string // when nodes list images (ImageLocality)
		ImageContainers  int32
	}{p.Tolerations, p.NodeSelector, p.HasRequired, p.RequiredTerms, p.PreferredTerms, p.Requests, p.ScoreCPU, p.ScoreMemory,
		p.HostPorts, p.Priority, p.PreemptionPolicy, nil, nil, 0}
	if st.c.Images.ID != nil {
		key.Images, key.ImageContainers = p.Images, p.ImageContainers
	}
	rk := &relKey{Namespace: p.Namespace, Affinity: p.Affinity, Anti: p.AntiAffinity, PrefAff: p.PreferredAffinity, PrefAnti: p.PreferredAntiAffinity}
	rk.Spread, rk.Defaulted = st.constraints(p)
	for i := range rk.Spread {
		rk.Self = append(rk.Self, rules.SelfMatch(&rk.Spread[i], p))
	}
	var aff []rules.Term
	for i := range p.Affinity {
		aff = append(aff, rules.IncomingTerm(&p.Affinity[i], st.c.Namespaces))
	}
	rk.AffSelf = rules.MatchesAll(aff, p)
	nsl := st.nsLabels[p.Namespace]
	for i := range st.repelTerms {
		if st.repelTerms[i].Matches(p, nsl) {
			rk.Repel = append(rk.Repel, i)
		}
	}
	if rules.ScoresPod(st.cfg.IgnorePreferredTermsOfExistingPods, p) {
		for i := range st.carryTerms {
			if st.carryTerms[i].Matches(p, nsl) {
				rk.Carry = append(rk.Carry, i)
			}
		}
	}
	if len(rk.Spread) > 0 || len(p.Affinity) > 0 || len(p.AntiAffinity) > 0 || len(p.PreferredAffinity) > 0 ||
		len(p.PreferredAntiAffinity) > 0 || len(rk.Repel) > 0 || len(rk.Carry) > 0 {
		key.Rel = rk
	}
	b, err := json.Marshal(&key)
	if err != nil {
		panic("reference: encoding a placement key: " + err.Error())
	}
	return string(b)
}

// constraints returns p's effective spread constraints (rules.Constraints
// with the cluster defaults and p's default selector).
func (st *state) constraints(p *index.Pod) ([]index.SpreadConstraint, bool) {
	return rules.Constraints(p, st.cfg.DefaultSpread, func() *index.LabelSelector {
		var services []*index.Workload
		var owner *index.Workload
		kind := rules.OwnerKind(p)
		for i := range st.c.Workloads {
			w := &st.c.Workloads[i]
			switch {
			case w.Namespace != p.Namespace:
			case w.Kind == index.KindService:
				services = append(services, w)
			case kind != "" && w.Kind == kind && w.Name == p.Owner.Name && owner == nil:
				owner = w
			}
		}
		return rules.DefaultSelector(p, slices.Values(services), owner)
	})
}

// readyTerms collects, once, the distinct terms of the batch's pods that
// select other pods: required anti-affinity terms (repelTerms), and the
// terms that score others (carryTerms: required affinity at the hard
// weight, preferred affinity, preferred anti-affinity, told apart by
// sign).
func (st *state) readyTerms() {
	if st.termsReady {
		return
	}
	st.termsReady = true
	seen := map[string]int{}
	add := func(list *[]rules.Term, sign string, t *index.PodAffinityTerm) int {
		b, _ := json.Marshal(t)
		k := sign + string(b)
		if i, ok := seen[k]; ok {
			return i
		}
		seen[k] = len(*list)
		*list = append(*list, rules.ExistingTerm(t))
		return len(*list) - 1
	}
	for _, q := range st.c.RelPods {
		p := &st.c.Pods[q]
		for i := range p.AntiAffinity {
			if r := add(&st.repelTerms, "r", &p.AntiAffinity[i]); r == len(st.carriers) {
				st.carriers = append(st.carriers, []index.PodID{q})
			} else if last := st.carriers[r]; last[len(last)-1] != q {
				st.carriers[r] = append(last, q)
			}
		}
		if st.hard > 0 {
			for i := range p.Affinity {
				add(&st.carryTerms, "+", &p.Affinity[i])
			}
		}
		for i := range p.PreferredAffinity {
			add(&st.carryTerms, "+", &p.PreferredAffinity[i].Term)
		}
		for i := range p.PreferredAntiAffinity {
			add(&st.carryTerms, "-", &p.PreferredAntiAffinity[i].Term)
		}
	}
}
