package solver

import (
	"math"
	"math/bits"
	"reflect"
	"slices"
	"unsafe"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
	"k8s.io/apimachinery/pkg/labels"
)

// Pod-relative constraints: topology spread and inter-pod (anti-)affinity.
//
// Every constraint that depends on where other pods run is answered from a
// counter: for one topology key, the number of pods matching a selector (in
// a namespace set) per domain, over the nodes eligible for it. Counters are
// shared by every class with the same constraint and updated on every Bind
// and Unbind (one increment per counter the pod matches, found through an
// index by one required label), so a filter check is O(1) per constraint:
//
//   - spread (DoNotSchedule): count(domain) + self - globalMin <= maxSkew,
//     with globalMin kept incrementally from a histogram of the domain
//     counts (counts move by one), or 0 while fewer eligible domains than
//     minDomains exist;
//   - required affinity: every term's domain holds a pod matching all the
//     terms, or no such pod exists anywhere and the pod matches its own
//     terms;
//   - required anti-affinity: no pod matching the term in the domain;
//   - existing pods' required anti-affinity: no pod carrying a term that
//     matches the incoming pod in the term's domain ("repel" counters,
//     counting carriers).
//
// Scores read counters the same way: the incoming pod's preferred terms
// weigh the pods matching them per domain, and existing pods' affinity
// terms that match the incoming pod add the weights of the pods carrying
// them ("carry" counters, one per distinct term and sign, summing the
// carriers' weights).
//
// A class with only such filters keeps its score heap (scores do not depend
// on other pods); a node that fails a pod-relative filter is parked under
// the counter that rejected it and returns to the heap when that counter
// relaxes (a spread minimum rises, a count falls, an affinity domain gets
// its first match). A class with soft pod-relative terms (ScheduleAnyway
// spread, default spreading, preferred pod affinity, or other pods'
// affinity terms that match it) scores every feasible node per pod: those
// scores move with every placement in a domain.

// counter kinds.
const (
	kSpread   = iota // pods matching a spread selector in the pod's namespace
	kAffinity        // pods matching all of a pod's required affinity terms
	kTerm            // pods matching one (anti-)affinity term
	kRepel           // pods carrying one required anti-affinity term
	kCarry           // weights of the pods carrying one scoring affinity term
)

// defaultHardPodAffinityWeight is InterPodAffinityArgs.hardPodAffinityWeight
// at kube-scheduler's default: what an existing pod's required affinity
// term adds to the domain it names for an incoming pod the term matches.
const defaultHardPodAffinityWeight = 1

// nsSet is a namespace set: every namespace, or the names listed (sorted).
type nsSet struct {
	all   bool
	names []string
}

func (s *nsSet) has(ns string) bool { return s.all || slices.Contains(s.names, ns) }

// matcher selects pods by namespace and labels; sel nil matches nothing.
type matcher struct {
	ns  nsSet
	sel labels.Selector
	ls  *index.LabelSelector
}

func (m *matcher) match(p *index.Pod) bool {
	return m.sel != nil && m.ns.has(p.Namespace) && m.sel.Matches(labels.Set(p.Labels))
}

// counter counts matching pods per domain of one topology key.
type counter struct {
	kind uint8
	topo *index.Topology
	// match: the pod must match every matcher (one, except for kAffinity).
	match []matcher
	// elig: the nodes whose pods count (nil: every node with the key).
	elig   []uint64
	counts []int32
	total  int64
	// Spread counters track the minimum over their eligible domains.
	track   bool
	domains int32   // eligible domains
	hist    []int32 // hist[k]: eligible domains holding k pods
	min     int32
	eligDom []bool // shared by counters of equal topology and eligKey
	eligKey string // names elig
	// relax counts changes that may let a node rejected by this counter
	// pass now.
	relax uint32
	// weight: a kCarry counter's sign, +1 (affinity) or -1 (preferred
	// anti-affinity); its counts are sums of weights.
	weight int64
	// counts starts as the pool's shared zeros and becomes the counter's
	// own (owned) at its first change; a dead counter is read by no class
	// any more: it gives its array back and ignores changes.
	pool        *countPool
	owned, dead bool
	// nz lists the domains whose count left 0, in order (some may be back
	// at 0, some listed twice), so that the few nonzero counts of an array
	// of one count per node are found and cleared without a scan; past
	// maxNonzero entries the list is dropped (nzLost) and scans take over.
	nz     []int32
	nzLost bool
}

// maxNonzero bounds a counter's nonzero list: past it (or past a quarter
// of its domains), finding the nonzero counts by a scan costs less.
const maxNonzero = 1 << 16

// countPool lends count arrays by length. A per-node counter (hostname)
// holds one int32 per node: made for every class up front, they cost
// more than placing the class's pods at 100,000 nodes. Counters start on
// a shared array of zeros, take their own when first changed, and give it
// back (cleared) when the last class reading them is done.
type countPool struct {
	zeros map[int][]int32
	free  map[int][][]int32
	made  int // arrays made by take
}

// zero returns the shared all-zero array of length n (never written).
func (p *countPool) zero(n int) []int32 {
	if p.zeros == nil {
		p.zeros, p.free = map[int][]int32{}, map[int][][]int32{}
	}
	z, ok := p.zeros[n]
	if !ok {
		z = make([]int32, n)
		p.zeros[n] = z
	}
	return z
}

// take lends an all-zero array of length n.
func (p *countPool) take(n int) []int32 {
	if f := p.free[n]; len(f) > 0 {
		a := f[len(f)-1]
		p.free[n] = f[:len(f)-1]
		return a
	}
	p.made++
	return make([]int32, n)
}

// give takes back an array lent by take; nz lists every domain whose
// count may be nonzero unless lost (see counter.nz).
func (p *countPool) give(a []int32, nz []int32, lost bool) {
	if lost {
		clear(a)
	} else {
		for _, d := range nz {
			a[d] = 0
		}
	}
	p.free[len(a)] = append(p.free[len(a)], a)
}

// kill marks a counter no class reads any more (see countPool).
func (k *counter) kill() {
	if k.dead {
		return
	}
	if k.owned {
		k.pool.give(k.counts, k.nz, k.nzLost)
		k.counts, k.owned = k.pool.zero(len(k.counts)), false
		k.nz, k.nzLost = k.nz[:0], false
	}
	k.dead = true
}

func (k *counter) eligible(n index.NodeID) bool {
	return k.elig == nil || k.elig[n>>6]&(1<<(n&63)) != 0
}

// apply adds delta pods on node n: +1 or -1 (a carry counter: plus or
// minus a carrier's weight).
func (k *counter) apply(n index.NodeID, delta int32) {
	if k.move(n, delta) {
		k.relax++
	}
}

// move adds delta (+1 or -1) pods on node n and reports whether a node
// this counter rejected may pass now; apply counts that in relax, a
// preemption dry run does not (it restores the counts before it ends).
func (k *counter) move(n index.NodeID, delta int32) bool {
	d := k.topo.Of[n]
	if d < 0 || k.dead || !k.eligible(n) {
		return false
	}
	if !k.owned {
		k.counts, k.owned = k.pool.take(len(k.counts)), true
	}
	old := k.counts[d]
	now := old + delta
	k.counts[d] = now
	k.total += int64(delta)
	if old == 0 && !k.nzLost {
		if len(k.nz) < maxNonzero && len(k.nz) < len(k.counts)/4+64 {
			k.nz = append(k.nz, d)
		} else {
			k.nz, k.nzLost = nil, true
		}
	}
	switch k.kind {
	case kSpread:
		relaxed := delta < 0
		if k.track {
			for int(now) >= len(k.hist) {
				k.hist = append(k.hist, 0)
			}
			k.hist[old]--
			k.hist[now]++
			if delta > 0 && old == k.min && k.hist[old] == 0 {
				k.min = now
				relaxed = true
			}
			if delta < 0 {
				k.min = min(k.min, now)
			}
		}
		return relaxed
	case kAffinity:
		return (delta > 0 && old == 0) || (delta < 0 && k.total == 0)
	}
	return delta < 0 && now == 0
}

// spreadRef is a spread constraint of a class.
type spreadRef struct {
	ctr        int32
	maxSkew    int32
	minDomains int32
	self       int32 // 1 when the pod matches the constraint's selector
	hostname   bool  // soft: counted per node
}

// prefRef is a scoring term of a class: one of its preferred
// (anti-)affinity terms (a kTerm counter), or an existing pod's term that
// matches it (a kCarry counter).
type prefRef struct {
	ctr    int32
	weight int64 // negative for anti-affinity
}

// carryRef is a counter a pod feeds by carrying a term, and by how much.
type carryRef struct {
	ctr int32
	w   int32 // 1 for kRepel; the term's weight for kCarry
}

// relClass is the pod-relative part of a class.
type relClass struct {
	hard       []spreadRef // DoNotSchedule constraints
	soft       []spreadRef // ScheduleAnyway constraints
	requireAll bool        // soft: nodes lacking a soft key are ignored
	softElig   []uint64    // soft: inclusion-policy nodes, nil for all
	aff        []int32     // kAffinity counters, one per term
	affSelf    bool        // the pod matches all its own affinity terms
	anti       []int32     // kTerm counters of required anti-affinity
	repel      []int32     // kRepel counters whose term matches the pod
	carries    []carryRef  // kRepel and kCarry counters of the pod's own terms
	pref       []prefRef
	// deps are the counters the filters read, in check order; parked[j]
	// holds the entries rejected by deps[j], seen[j] its relax count when
	// they were parked.
	deps   []int32
	parked [][]entry
	seen   []uint32
	// scoring: the class may score every node per pod (scoresNow says
	// when it must).
	scoring bool
}

// scoresNow reports whether a pod of the class must be placed by scoring
// every node (placeScored): it has soft spread constraints, or a scoring
// term whose counter is not empty. Otherwise the pod-relative scores are 0
// on every node and the class's heap gives the same node.
func (rc *relClass) scoresNow(r *relState) bool {
	if !rc.scoring {
		return false
	}
	if len(rc.soft) > 0 {
		return true
	}
	for _, pr := range rc.pref {
		if r.counters[pr.ctr].total != 0 {
			return true
		}
	}
	return false
}

// Reasons a node fails a pod-relative filter, in filter order: rules'
// codes, consecutive from relMissingLabel to relExisting (relFailMask
// makes one bit of each; the arrays below fail to compile otherwise).
const (
	relOK           = rules.None
	relMissingLabel = rules.SpreadMissingLabel
	relSpread       = rules.SpreadConstraintsMismatch
	relAffinity     = rules.PodAffinityMismatch
	relAnti         = rules.PodAntiAffinityMismatch
	relExisting     = rules.ExistingAntiAffinityMismatch
)

var _ = [1]struct{}{}[relSpread-relMissingLabel-1]
var _ = [1]struct{}{}[relAffinity-relSpread-1]
var _ = [1]struct{}{}[relAnti-relAffinity-1]
var _ = [1]struct{}{}[relExisting-relAnti-1]

// relState holds the batch's counters.
type relState struct {
	c        *index.Cluster
	counters []*counter
	byKey    map[string]int32
	// feed finds the label-matching counters a pod may feed; repelIdx and
	// carryIdx the repel and carry counters whose term may match an
	// incoming pod.
	feed, repelIdx, carryIdx anchorIndex
	repelOf                  map[string]int32 // repel counter by term key
	carryOf                  map[string]int32 // carry counter by sign and term key
	// eligDoms by topology key and eligKey (see readyMin).
	eligDoms      map[string]eligDoms
	nsLabels      map[string]map[string]string
	defaults      []index.SpreadConstraint
	systemDefault bool
	// Services by one pair of their selector (namespace, key, value) and
	// controllers by kind/namespace/name, for default selectors.
	services map[pdbLabel][]*index.Workload
	owners   map[string]*index.Workload // kind/ns/name
	enc      keyEncoder
	buf      []int32
	// hardWeight and ignorePreferred are InterPodAffinity's arguments
	// (see Config).
	hardWeight      int64
	ignorePreferred bool
	// pool lends the counters' arrays; reads counts, per counter, the
	// references to it from the relClasses of classes not done yet (see
	// holdReads).
	pool  countPool
	reads []int32
	// fed caches podCounters (fedOK marks computed entries).
	fed      [][]carryRef
	fedOK    []bool
	carryBuf []carryRef
	// placeScored's scratch: the soft constraints' weights, a stamp per
	// domain (+1) that domainsAmong marks with epoch, the scoring terms
	// whose counter is not empty.
	weights []float64
	active  []prefRef
	stamp   []uint32
	epoch   uint32
}

// anchorIndex finds counters through one label their (first) selector
// requires; scan lists those with no matchLabels. Namespace "" stands for
// every namespace.
type anchorIndex struct {
	byLabel map[pdbLabel][]int32
	scan    map[string][]int32
}

func (x *anchorIndex) add(id int32, m *matcher) {
	if x.byLabel == nil {
		x.byLabel, x.scan = map[pdbLabel][]int32{}, map[string][]int32{}
	}
	nss := m.ns.names
	if m.ns.all {
		nss = []string{""}
	}
	k, ok := "", false
	if m.ls != nil {
		k, ok = anchorKey(m.ls)
	}
	for _, ns := range nss {
		if ok {
			l := pdbLabel{ns: ns, key: k, value: m.ls.MatchLabels[k]}
			x.byLabel[l] = append(x.byLabel[l], id)
		} else {
			x.scan[ns] = append(x.scan[ns], id)
		}
	}
}

// candidates appends the counters p may match (each at most once).
func (x *anchorIndex) candidates(p *index.Pod, out []int32) []int32 {
	if x.byLabel == nil {
		return out
	}
	for k, v := range p.Labels {
		out = append(out, x.byLabel[pdbLabel{p.Namespace, k, v}]...)
		out = append(out, x.byLabel[pdbLabel{"", k, v}]...)
	}
	out = append(out, x.scan[p.Namespace]...)
	return append(out, x.scan[""]...)
}

// newRelState collects the repel counters (every pod's required
// anti-affinity terms), the carry counters (every pod's affinity terms that
// score for others) and the default-spreading inputs. It returns nil when
// no pod has a pod-relative constraint and no default applies.
func newRelState(c *index.Cluster, cfg *Config) *relState {
	defaults := cfg.DefaultSpread
	r := &relState{c: c, byKey: map[string]int32{}, repelOf: map[string]int32{}, carryOf: map[string]int32{},
		nsLabels: map[string]map[string]string{}, defaults: defaults, systemDefault: cfg.SystemDefaultSpread,
		services: map[pdbLabel][]*index.Workload{}, owners: map[string]*index.Workload{},
		hardWeight: defaultHardPodAffinityWeight, ignorePreferred: cfg.IgnorePreferredTermsOfExistingPods}
	if cfg.HardPodAffinityWeight != nil {
		r.hardWeight = int64(*cfg.HardPodAffinityWeight)
	}
	for i := range c.Namespaces {
		r.nsLabels[c.Namespaces[i].Name] = c.Namespaces[i].Labels
	}
	for i := range c.Workloads {
		w := &c.Workloads[i]
		if w.Kind == index.KindService {
			// Indexed by one pair of the selector (a pod is tried only
			// against the Services one of its labels may select): an
			// export holds thousands of Services per namespace.
			if w.Selector == nil || len(w.Selector.MatchLabels) == 0 {
				continue // selects nothing
			}
			k, _ := anchorKey(w.Selector)
			l := pdbLabel{ns: w.Namespace, key: k, value: w.Selector.MatchLabels[k]}
			r.services[l] = append(r.services[l], w)
		} else {
			r.owners[w.Kind+"/"+w.Namespace+"/"+w.Name] = w
		}
	}
	any := len(c.RelPods) > 0
	for _, pid := range c.RelPods {
		p := &c.Pods[pid]
		for t := range p.AntiAffinity {
			r.repelCounter(&p.AntiAffinity[t])
		}
		r.eachCarry(p, func(t *index.PodAffinityTerm, weight int64) { r.carryCounter(t, weight) })
	}
	// Default constraints apply only to pods a Service or controller
	// selects: without any, they apply to none.
	if !any && (len(defaults) == 0 || len(c.Workloads) == 0) {
		return nil
	}
	return r
}

// repelCounter returns the repel counter of term t, made on first use.
func (r *relState) repelCounter(t *index.PodAffinityTerm) int32 {
	r.enc.buf = r.enc.buf[:0]
	r.enc.affinityTerm(t)
	key := string(r.enc.buf)
	if id, ok := r.repelOf[key]; ok {
		return id
	}
	m := r.matcherOf(t)
	id := int32(len(r.counters))
	r.counters = append(r.counters, &counter{kind: kRepel, topo: r.c.Topology(t.TopologyKey), match: []matcher{m}})
	r.repelOf[key] = id
	r.repelIdx.add(id, &m)
	return id
}

// eachCarry calls f for each of p's terms that score for other pods, with
// the weight it adds per carrying pod (kube-scheduler's processExistingPod):
// required affinity terms the hard weight (none when it is 0), preferred
// affinity terms their weight, preferred anti-affinity terms minus their
// weight.
func (r *relState) eachCarry(p *index.Pod, f func(t *index.PodAffinityTerm, weight int64)) {
	for t := range p.Affinity {
		if r.hardWeight > 0 {
			f(&p.Affinity[t], r.hardWeight)
		}
	}
	for i := range p.PreferredAffinity {
		f(&p.PreferredAffinity[i].Term, int64(p.PreferredAffinity[i].Weight))
	}
	for i := range p.PreferredAntiAffinity {
		f(&p.PreferredAntiAffinity[i].Term, -int64(p.PreferredAntiAffinity[i].Weight))
	}
}

// carryKey encodes the key of the carry counter of term t for a weight of
// that sign into r.enc.buf, and returns the sign.
func (r *relState) carryKey(t *index.PodAffinityTerm, weight int64) int64 {
	sign := int64(1)
	if weight < 0 {
		sign = -1
	}
	r.enc.buf = r.enc.buf[:0]
	r.enc.num(sign)
	r.enc.affinityTerm(t)
	return sign
}

// carryCounter returns the carry counter of term t for a weight of that
// sign, made on first use.
func (r *relState) carryCounter(t *index.PodAffinityTerm, weight int64) int32 {
	sign := r.carryKey(t, weight)
	if id, ok := r.carryOf[string(r.enc.buf)]; ok {
		return id
	}
	key := string(r.enc.buf)
	m := r.matcherOf(t)
	id := int32(len(r.counters))
	r.counters = append(r.counters, &counter{kind: kCarry, topo: r.c.Topology(t.TopologyKey), match: []matcher{m}, weight: sign})
	r.carryOf[key] = id
	r.carryIdx.add(id, &m)
	return id
}

// carriesOf appends the repel and carry counters of p's own terms (a term
// twice, twice): those a bind or eviction of p moves.
func (r *relState) carriesOf(p *index.Pod, out []carryRef) []carryRef {
	for t := range p.AntiAffinity {
		r.enc.buf = r.enc.buf[:0]
		r.enc.affinityTerm(&p.AntiAffinity[t])
		if id, ok := r.repelOf[string(r.enc.buf)]; ok {
			out = append(out, carryRef{ctr: id, w: 1})
		}
	}
	r.eachCarry(p, func(t *index.PodAffinityTerm, weight int64) {
		r.carryKey(t, weight)
		if id, ok := r.carryOf[string(r.enc.buf)]; ok {
			out = append(out, carryRef{ctr: id, w: int32(max(weight, -weight))})
		}
	})
	return out
}

// matcherOf resolves an affinity term's namespaces (namespaceSelector to the
// names of the Namespace objects it selects) and selector.
func (r *relState) matcherOf(t *index.PodAffinityTerm) matcher {
	m := matcher{ls: t.Selector}
	if t.Selector != nil {
		m.sel = selectorOf(t.Selector)
	}
	names := slices.Clone(t.Namespaces)
	if ns := t.NamespaceSelector; ns != nil {
		if len(ns.MatchLabels) == 0 && len(ns.MatchExpressions) == 0 {
			m.ns.all = true
		} else if sel := selectorOf(ns); sel != nil {
			for name, l := range r.nsLabels {
				if sel.Matches(labels.Set(l)) {
					names = append(names, name)
				}
			}
		}
	}
	slices.Sort(names)
	m.ns.names = slices.Compact(names)
	return m
}

// repels appends the repel counters whose term matches p.
func (r *relState) repels(p *index.Pod, out []int32) []int32 {
	return r.matching(&r.repelIdx, p, out)
}

// carried appends the carry counters whose term matches p: the existing
// pods' terms that score p.
func (r *relState) carried(p *index.Pod, out []int32) []int32 {
	if r.ignorePreferred && len(p.PreferredAffinity) == 0 && len(p.PreferredAntiAffinity) == 0 {
		return out // ignorePreferredTermsOfExistingPods: InterPodAffinity skips p
	}
	return r.matching(&r.carryIdx, p, out)
}

// matching appends the counters of x whose (one) matcher matches p, sorted.
// The candidates are gathered and filtered in place, in out.
func (r *relState) matching(x *anchorIndex, p *index.Pod, out []int32) []int32 {
	start := len(out)
	out = x.candidates(p, out)
	keep := start
	for _, id := range out[start:] {
		if r.counters[id].match[0].match(p) {
			out[keep] = id
			keep++
		}
	}
	out = out[:keep]
	slices.Sort(out[start:])
	return append(out[:start], slices.Compact(out[start:])...)
}

// spreadOf returns p's effective spread constraints: its own, or the
// cluster defaults with p's default selector (nil when that is empty).
func (r *relState) spreadOf(p *index.Pod) (cs []index.SpreadConstraint, defaulted bool) {
	if len(p.Spread) > 0 {
		return p.Spread, false
	}
	if len(r.defaults) == 0 {
		return nil, false
	}
	return r.defaultSpread(p)
}

// defaultSpread returns the cluster default constraints with p's default
// selector; nil when that is empty.
func (r *relState) defaultSpread(p *index.Pod) (cs []index.SpreadConstraint, defaulted bool) {
	sel := r.defaultSelector(p)
	if sel == nil {
		return nil, false
	}
	cs = make([]index.SpreadConstraint, len(r.defaults))
	for i, d := range r.defaults {
		d.Selector = sel
		cs[i] = d
	}
	return cs, true
}

// spreadOfMemo is spreadOf through e's memo: the pods of one workload share
// their labels map (ingest shares equal maps), namespace and owner, so
// their default constraints are found once.
func (r *relState) spreadOfMemo(e *keyEncoder, p *index.Pod) ([]index.SpreadConstraint, bool) {
	if len(p.Spread) > 0 || len(r.defaults) == 0 {
		return r.spreadOf(p)
	}
	k := spreadKey{ns: p.Namespace, labels: reflect.ValueOf(p.Labels).UnsafePointer()}
	if o := p.Owner; o != nil {
		k.kind, k.api, k.name = o.Kind, o.APIVersion, o.Name
	}
	if cs, ok := e.spreads[k]; ok {
		return cs, cs != nil
	}
	cs, defaulted := r.defaultSpread(p)
	if e.spreads == nil {
		e.spreads = map[spreadKey][]index.SpreadConstraint{}
	}
	e.spreads[k] = cs
	return cs, defaulted
}

// spreadKey is what a pod's default constraints depend on: its namespace,
// its labels (by the map's identity) and its owner.
type spreadKey struct {
	ns, kind, api, name string
	labels              unsafe.Pointer
}

// matchesSet reports whether pod labels l hold every pair of set, as
// labels.SelectorFromSet(set).Matches(l) does, without making the selector
// (a Service's selector is tried on every pod of its namespace).
func matchesSet(set, l map[string]string) bool { return index.MatchesSet(set, l) }

// defaultSelector is kube-scheduler's DefaultSelector: the selectors of the
// Services selecting p, and of its ReplicationController, ReplicaSet or
// StatefulSet owner, ANDed; nil when that is empty.
func (r *relState) defaultSelector(p *index.Pod) *index.LabelSelector {
	var owner *index.Workload
	if kind := rules.OwnerKind(p); kind != "" {
		owner = r.owners[kind+"/"+p.Namespace+"/"+p.Owner.Name]
	}
	// The Services that may select p: those indexed by one of its labels.
	services := func(yield func(*index.Workload) bool) {
		for k, v := range p.Labels {
			for _, w := range r.services[pdbLabel{ns: p.Namespace, key: k, value: v}] {
				if !yield(w) {
					return
				}
			}
		}
	}
	return rules.DefaultSelector(p, services, owner)
}

// encodeRel appends p's pod-relative key part to e.buf: everything the
// pod-relative filters and scores read of the pod, the repel and carry
// counters matching it included. Read-only on r.
func (r *relState) encodeRel(e *keyEncoder, p *index.Pod, scratch []int32) []int32 {
	cs, defaulted := r.spreadOfMemo(e, p)
	ids := r.repels(p, scratch[:0])
	nRepel := len(ids)
	ids = r.carried(p, ids)
	if len(cs) == 0 && len(p.Affinity) == 0 && len(p.AntiAffinity) == 0 && len(p.PreferredAffinity) == 0 &&
		len(p.PreferredAntiAffinity) == 0 && len(ids) == 0 {
		e.num(0)
		return ids
	}
	e.num(1)
	e.str(p.Namespace)
	set := labels.Set(p.Labels)
	e.num(int64(len(cs)))
	if defaulted {
		e.num(1)
	} else {
		e.num(0)
	}
	for i := range cs {
		sc := &cs[i]
		e.str(sc.TopologyKey)
		e.str(sc.WhenUnsatisfiable)
		e.num(int64(sc.MaxSkew))
		e.num(int64(sc.MinDomains))
		e.str(sc.NodeAffinityPolicy)
		e.str(sc.NodeTaintsPolicy)
		at := len(e.buf)
		e.selector(sc.Selector)
		self := int64(0)
		if sc.Selector != nil {
			if sel := e.cachedSelector(e.buf[at:], sc.Selector); sel != nil && sel.Matches(set) {
				self = 1
			}
		}
		e.num(self)
	}
	e.num(int64(len(p.Affinity)))
	self := int64(0)
	if len(p.Affinity) > 0 {
		self = 1
	}
	for t := range p.Affinity {
		at := len(e.buf)
		e.affinityTerm(&p.Affinity[t])
		m, ok := e.matchers[string(e.buf[at:])]
		if !ok {
			if e.matchers == nil {
				e.matchers = map[string]matcher{}
			}
			m = r.matcherOf(&p.Affinity[t])
			e.matchers[string(e.buf[at:])] = m
		}
		if !m.match(p) {
			self = 0
		}
	}
	e.num(self)
	e.terms(p.AntiAffinity)
	for _, w := range [][]index.WeightedPodAffinityTerm{p.PreferredAffinity, p.PreferredAntiAffinity} {
		e.num(int64(len(w)))
		for i := range w {
			e.num(int64(w[i].Weight))
			e.affinityTerm(&w[i].Term)
		}
	}
	e.num(int64(nRepel))
	for _, id := range ids[:nRepel] {
		e.num(int64(id))
	}
	e.num(int64(len(ids) - nRepel))
	for _, id := range ids[nRepel:] {
		e.num(int64(id))
	}
	return ids
}

// cachedSelector converts ls (encoded as key) once per encoder: pods of a
// workload share their selectors, and conversion validates every value.
func (e *keyEncoder) cachedSelector(key []byte, ls *index.LabelSelector) labels.Selector {
	if sel, ok := e.sels[string(key)]; ok {
		return sel
	}
	if e.sels == nil {
		e.sels = map[string]labels.Selector{}
	}
	sel := selectorOf(ls)
	e.sels[string(key)] = sel
	return sel
}

func (e *keyEncoder) selector(ls *index.LabelSelector) {
	if ls == nil {
		e.num(-1)
		return
	}
	e.labelMap(ls.MatchLabels)
	e.reqs(ls.MatchExpressions)
}

func (e *keyEncoder) affinityTerm(t *index.PodAffinityTerm) {
	e.str(t.TopologyKey)
	e.selector(t.Selector)
	e.num(int64(len(t.Namespaces)))
	for _, ns := range t.Namespaces {
		e.str(ns)
	}
	e.selector(t.NamespaceSelector)
}

func (e *keyEncoder) terms(ts []index.PodAffinityTerm) {
	e.num(int64(len(ts)))
	for i := range ts {
		e.affinityTerm(&ts[i])
	}
}

// counterFor returns the counter of the given kind and key, made (and
// registered for feeding) on first use.
func (r *relState) counterFor(key string, make func() *counter) int32 {
	if id, ok := r.byKey[key]; ok {
		return id
	}
	k := make()
	id := int32(len(r.counters))
	r.counters = append(r.counters, k)
	r.byKey[key] = id
	if len(k.match) > 0 && k.match[0].sel != nil {
		r.feed.add(id, &k.match[0])
	}
	return id
}

// setupClass builds cl's relClass (nil when its pods have no pod-relative
// constraint). The group must be initialised.
func (s *Solver) setupClass(cl *class) {
	r := s.rel
	p := &s.c.Pods[cl.rep]
	cs, defaulted := r.spreadOf(p)
	repel := r.repels(p, nil)
	carried := r.carried(p, nil)
	if len(cs) == 0 && len(p.Affinity) == 0 && len(p.AntiAffinity) == 0 && len(p.PreferredAffinity) == 0 &&
		len(p.PreferredAntiAffinity) == 0 && len(repel) == 0 && len(carried) == 0 {
		return
	}
	rc := &relClass{repel: repel}
	set := labels.Set(p.Labels)
	var enc keyEncoder
	// Spread: eligibility per constraint from the inclusion policies and,
	// for each action's constraints, the nodes carrying all their keys.
	for _, action := range []string{index.DoNotSchedule, index.ScheduleAnyway} {
		var keys []string
		for i := range cs {
			if cs[i].WhenUnsatisfiable == action {
				keys = append(keys, cs[i].TopologyKey)
			}
		}
		if len(keys) == 0 {
			continue
		}
		requireAll := action == index.DoNotSchedule || !defaulted || !r.systemDefault
		for i := range cs {
			sc := &cs[i]
			if sc.WhenUnsatisfiable != action {
				continue
			}
			ref := spreadRef{maxSkew: sc.MaxSkew, minDomains: max(sc.MinDomains, 1)}
			var sel labels.Selector
			if sc.Selector != nil {
				sel = selectorOf(sc.Selector)
			}
			if sel != nil && sel.Matches(set) {
				ref.self = 1
			}
			if sel != nil && sel.Empty() {
				sel = nil // an empty selector counts no pod (countPodsMatchSelector)
			}
			hostname := action == index.ScheduleAnyway && sc.TopologyKey == labelHostname
			var elig []uint64
			eligKey := ""
			if !hostname {
				elig, eligKey = s.spreadEligible(p, sc, keys, requireAll, &enc)
			}
			enc.buf = enc.buf[:0]
			enc.str(p.Namespace)
			enc.selector(sc.Selector)
			enc.str(sc.TopologyKey)
			enc.str(eligKey)
			if hostname {
				enc.str("per-node")
			}
			key := "s" + string(enc.buf)
			track := action == index.DoNotSchedule
			ref.hostname = hostname
			ref.ctr = r.counterFor(key, func() *counter {
				k := &counter{kind: kSpread, elig: elig, eligKey: eligKey, track: track}
				if hostname {
					k.topo = s.perNode()
				} else {
					k.topo = s.c.Topology(sc.TopologyKey)
				}
				if sel != nil {
					k.match = []matcher{{ns: nsSet{names: []string{p.Namespace}}, sel: sel, ls: sc.Selector}}
				}
				return k
			})
			if track {
				r.counters[ref.ctr].track = true
				rc.hard = append(rc.hard, ref)
			} else {
				rc.soft = append(rc.soft, ref)
				rc.requireAll = requireAll
			}
		}
		if action == index.ScheduleAnyway && rc.requireAll {
			rc.softElig = s.keysNodes(keys)
		}
	}
	// Required affinity: one counter per term over the conjunction.
	if len(p.Affinity) > 0 {
		ms := make([]matcher, len(p.Affinity))
		rc.affSelf = true
		enc.buf = enc.buf[:0]
		enc.terms(p.Affinity)
		conj := string(enc.buf)
		for t := range p.Affinity {
			ms[t] = r.matcherOf(&p.Affinity[t])
			if !ms[t].match(p) {
				rc.affSelf = false
			}
		}
		for t := range p.Affinity {
			key := p.Affinity[t].TopologyKey
			rc.aff = append(rc.aff, r.counterFor("a"+key+"\x00"+p.Namespace+"\x00"+conj, func() *counter {
				return &counter{kind: kAffinity, topo: s.c.Topology(key), match: ms}
			}))
		}
	}
	term := func(t *index.PodAffinityTerm) int32 {
		enc.buf = enc.buf[:0]
		enc.affinityTerm(t)
		return r.counterFor("t"+string(enc.buf), func() *counter {
			return &counter{kind: kTerm, topo: s.c.Topology(t.TopologyKey), match: []matcher{r.matcherOf(t)}}
		})
	}
	for t := range p.AntiAffinity {
		rc.anti = append(rc.anti, term(&p.AntiAffinity[t]))
	}
	rc.carries = r.carriesOf(p, []carryRef{})
	for _, w := range p.PreferredAffinity {
		rc.pref = append(rc.pref, prefRef{ctr: term(&w.Term), weight: int64(w.Weight)})
	}
	for _, w := range p.PreferredAntiAffinity {
		rc.pref = append(rc.pref, prefRef{ctr: term(&w.Term), weight: -int64(w.Weight)})
	}
	// Existing pods' terms matching the pod: their counters sum the
	// carrying pods' weights per domain.
	for _, id := range carried {
		rc.pref = append(rc.pref, prefRef{ctr: id, weight: r.counters[id].weight})
	}
	for _, h := range rc.hard {
		rc.deps = append(rc.deps, h.ctr)
	}
	rc.deps = append(rc.deps, rc.aff...)
	rc.deps = append(rc.deps, rc.anti...)
	rc.deps = append(rc.deps, rc.repel...)
	rc.parked = make([][]entry, len(rc.deps))
	rc.seen = make([]uint32, len(rc.deps))
	rc.scoring = len(rc.soft) > 0 || len(rc.pref) > 0
	cl.rel = rc
}

const labelHostname = rules.LabelHostname

// perNode returns the topology whose domains are the nodes themselves.
func (s *Solver) perNode() *index.Topology {
	if s.nodeTopo == nil {
		n := s.c.NumNodes()
		t := &index.Topology{Key: "", Of: make([]int32, n)}
		for i := range t.Of {
			t.Of[i] = int32(i)
		}
		s.nodeTopo = t
	}
	return s.nodeTopo
}

// keysNodes returns the nodes carrying every key, as a bitset.
func (s *Solver) keysNodes(keys []string) []uint64 {
	c := s.c
	d := make([]uint64, (c.NumNodes()+63)/64)
	b := c.All.Clone()
	for _, k := range keys {
		if kb := c.KeyNodes(k); kb != nil {
			b.And(kb)
		} else {
			b.Clear()
		}
	}
	b.WriteDenseTo(d)
	return d
}

// spreadEligible returns the nodes whose pods count for constraint sc of
// pod p (those carrying all keys when requireAll, passing the inclusion
// policies) and a key naming that set.
func (s *Solver) spreadEligible(p *index.Pod, sc *index.SpreadConstraint, keys []string, requireAll bool, enc *keyEncoder) ([]uint64, string) {
	c := s.c
	b := c.All.Clone()
	enc.buf = enc.buf[:0]
	if requireAll {
		for _, k := range keys {
			enc.str(k)
			if kb := c.KeyNodes(k); kb != nil {
				b.And(kb)
			} else {
				b.Clear()
			}
		}
	}
	enc.num(-1)
	m := newMemo()
	if sc.NodeAffinityPolicy != index.PolicyIgnore && (len(p.NodeSelector) > 0 || p.HasRequired) {
		enc.required(p)
		b.And(requiredNodes(c, p, m, &keyEncoder{}))
	}
	enc.num(-1)
	if sc.NodeTaintsPolicy == index.PolicyHonor {
		enc.tolerations(p.Tolerations)
		if ts := m.taintSets(c, p.Tolerations, &keyEncoder{}); ts.bad != nil {
			b.AndNot(ts.bad)
		}
	}
	d := make([]uint64, (c.NumNodes()+63)/64)
	b.WriteDenseTo(d)
	return d, string(enc.buf)
}

// countExisting fills every counter from the bound pods and readies the
// spread minima. Run once, after every class is set up.
func (s *Solver) countExisting() { s.countFrom(0) }

// countFrom fills the counters from index from on (those made since the
// others were filled: see classOfEvicted) from the pods bound now, and
// readies their spread minima.
func (s *Solver) countFrom(from int) {
	r := s.rel
	fresh := r.counters[from:]
	for _, k := range fresh {
		k.pool = &r.pool
		k.counts, k.owned = r.pool.zero(domainCount(k.topo)), false
	}
	c := s.c
	tracked := make([]bool, len(fresh))
	for i, k := range fresh {
		tracked[i], k.track = k.track, false // the histograms are made below
	}
	var refs []carryRef
	for p := range c.Pods {
		n := c.PodNode[p]
		if n == index.NoNode {
			continue
		}
		refs = r.moves(&c.Pods[p], refs[:0])
		for _, cr := range refs {
			if int(cr.ctr) >= from {
				r.counters[cr.ctr].apply(index.NodeID(n), cr.w)
			}
		}
	}
	if from > 0 && r.fedOK != nil {
		clear(r.fedOK) // pods may feed the new counters
	}
	if r.eligDoms == nil {
		r.eligDoms = map[string]eligDoms{}
	}
	for i, k := range fresh {
		k.relax = 0
		if k.track = tracked[i]; k.track {
			k.readyMin(r.eligDoms)
		}
	}
}

// eligDoms is which domains of a topology hold an eligible node, and how
// many; shared (read-only) by the counters of equal topology and eligKey.
type eligDoms struct {
	dom []bool
	n   int32
}

// readyMin makes a spread counter's histogram and minimum over its
// eligible domains from its counts.
func (k *counter) readyMin(shared map[string]eligDoms) {
	key := k.topo.Key + "\x00" + k.eligKey
	if e, ok := shared[key]; ok {
		k.eligDom, k.domains = e.dom, e.n
	} else {
		k.domains = 0
		k.eligDom = make([]bool, len(k.counts))
		for n, d := range k.topo.Of {
			if d >= 0 && k.eligible(index.NodeID(n)) && !k.eligDom[d] {
				k.eligDom[d] = true
				k.domains++
			}
		}
		if shared != nil {
			shared[key] = eligDoms{k.eligDom, k.domains}
		}
	}
	k.hist = k.hist[:0]
	if k.total == 0 { // no pod counted: every eligible domain at 0
		k.hist, k.min = append(k.hist, k.domains), 0
		return
	}
	k.min = math.MaxInt32
	for d, e := range k.eligDom {
		if !e {
			continue
		}
		v := k.counts[d]
		for int(v) >= len(k.hist) {
			k.hist = append(k.hist, 0)
		}
		k.hist[v]++
		k.min = min(k.min, v)
	}
	if k.domains == 0 {
		k.min = 0
	}
}

// domainCount is the number of domains of t (one per node for perNode).
func domainCount(t *index.Topology) int {
	if t.Key == "" {
		return len(t.Of)
	}
	return len(t.Values)
}

// relBind updates the counters for pod p bound to (delta 1) or removed from
// (-1) node n; carries lists p's repel and carry counters when known (nil:
// derive).
func (s *Solver) relBind(p index.PodID, n index.NodeID, delta int32, carries []carryRef) {
	r := s.rel
	pod := &s.c.Pods[p]
	r.buf = r.feeds(pod, r.buf[:0])
	for _, id := range r.buf {
		r.counters[id].apply(n, delta)
	}
	if carries == nil {
		r.carryBuf = r.carriesOf(pod, r.carryBuf[:0])
		carries = r.carryBuf
	}
	for _, cr := range carries {
		r.counters[cr.ctr].apply(n, delta*cr.w)
	}
}

// feeds appends to out the label-matching counters pod feeds.
func (r *relState) feeds(pod *index.Pod, out []int32) []int32 {
	start := len(out)
	out = r.feed.candidates(pod, out)
	keep := out[:start]
	for _, id := range out[start:] {
		k := r.counters[id]
		ok := true
		for i := range k.match {
			if !k.match[i].match(pod) {
				ok = false
				break
			}
		}
		if ok {
			keep = append(keep, id)
		}
	}
	return keep
}

// moves appends to out every counter a bound pod moves, with its weight:
// those it feeds (1) and those of its own terms (carriesOf).
func (r *relState) moves(pod *index.Pod, out []carryRef) []carryRef {
	r.buf = r.feeds(pod, r.buf[:0])
	for _, id := range r.buf {
		out = append(out, carryRef{ctr: id, w: 1})
	}
	return r.carriesOf(pod, out)
}

// podCounters returns every counter bound pod p moves (see moves),
// computed once per pod: the preemption dry runs move the same pods again
// and again.
func (s *Solver) podCounters(p index.PodID) []carryRef {
	r := s.rel
	if r.fed == nil {
		r.fed = make([][]carryRef, len(s.c.Pods))
		r.fedOK = make([]bool, len(s.c.Pods))
	}
	if !r.fedOK[p] {
		refs := r.moves(&s.c.Pods[p], nil)
		if len(refs) == 0 {
			refs = nil
		}
		r.fed[p], r.fedOK[p] = refs, true
	}
	return r.fed[p]
}

// relMove moves bound pod p's counts on node n by delta without relaxing
// any counter: a preemption dry run, undone before it ends.
func (s *Solver) relMove(p index.PodID, n index.NodeID, delta int32) {
	for _, cr := range s.podCounters(p) {
		s.rel.counters[cr.ctr].move(n, delta*cr.w)
	}
}

// relReprieve adds victim p back on node n for a dry run of class rc and
// reports whether the node still passes rc's pod-relative filters; if not,
// it takes p out again.
func (s *Solver) relReprieve(rc *relClass, p index.PodID, n index.NodeID) bool {
	s.relMove(p, n, 1)
	if f, _ := s.check(rc, n); f != relOK {
		s.relMove(p, n, -1)
		return false
	}
	return true
}

// check runs the pod-relative filters of rc on node n: relOK, or the
// failing filter and the index of the counter in rc.deps (-1 when the
// failure is static: a missing label).
func (s *Solver) check(rc *relClass, n index.NodeID) (rules.Reason, int) {
	return s.checkSkip(rc, n, -1)
}

// checkSkip is check without the hard spread constraint rc.hard[skip]
// (none when skip < 0), which the caller has checked.
func (s *Solver) checkSkip(rc *relClass, n index.NodeID, skip int) (rules.Reason, int) {
	r := s.rel
	j := 0
	for i, h := range rc.hard {
		if i == skip {
			j++
			continue
		}
		k := r.counters[h.ctr]
		d := k.topo.Of[n]
		if d < 0 {
			return relMissingLabel, -1
		}
		if !rules.SkewOK(k.counts[d], h.self, rules.GlobalMin(k.min, k.domains, h.minDomains), h.maxSkew) {
			return relSpread, j
		}
		j++
	}
	if len(rc.aff) > 0 {
		exist, empty := true, true
		for _, id := range rc.aff {
			k := r.counters[id]
			d := k.topo.Of[n]
			if d < 0 {
				return relAffinity, -1
			}
			if k.counts[d] <= 0 {
				exist = false
			}
			if k.total > 0 {
				empty = false
			}
		}
		if !rules.AffinityOK(true, exist, empty, rc.affSelf) {
			return relAffinity, j
		}
	}
	j += len(rc.aff)
	for _, id := range rc.anti {
		k := r.counters[id]
		if d := k.topo.Of[n]; d >= 0 && k.counts[d] > 0 {
			return relAnti, j
		}
		j++
	}
	for _, id := range rc.repel {
		k := r.counters[id]
		if d := k.topo.Of[n]; d >= 0 && k.counts[d] > 0 {
			return relExisting, j
		}
		j++
	}
	return relOK, 0
}

// park sets e aside until counter rc.deps[j] relaxes (j < 0: for good).
func (rc *relClass) park(s *Solver, j int, e entry) {
	if j < 0 {
		return
	}
	if len(rc.parked[j]) == 0 {
		rc.seen[j] = s.rel.counters[rc.deps[j]].relax
	}
	rc.parked[j] = append(rc.parked[j], e)
}

// wake returns to the heap the parked entries whose counter relaxed.
func (s *Solver) wake(cl *class) {
	rc := cl.rel
	gen := s.c.Gen
	for j, id := range rc.deps {
		if len(rc.parked[j]) == 0 {
			continue
		}
		if k := s.rel.counters[id]; k.relax != rc.seen[j] {
			for _, e := range rc.parked[j] {
				if e.gen != gen[e.node] {
					continue
				}
				if cl.dom != nil {
					cl.dom.push(e)
				} else {
					cl.heap.push(e)
				}
			}
			rc.parked[j] = rc.parked[j][:0]
		}
	}
}

// unpark drops every parked entry (a build re-examines every node).
func (rc *relClass) unpark() {
	for j := range rc.parked {
		rc.parked[j] = rc.parked[j][:0]
	}
}

// relPlaced updates the counters for a pod of class cl bound to n.
func (s *Solver) relPlaced(cl *class, p index.PodID, n index.NodeID, delta int32) {
	if s.rel == nil {
		return
	}
	var carries []carryRef
	if cl != nil && cl.rel != nil {
		carries = cl.rel.carries
		if carries == nil {
			carries = []carryRef{}
		}
	}
	s.relBind(p, n, delta, carries)
}

// placeScored places a pod of a scoring class: every feasible node that
// fits and passes the pod-relative filters is scored in full, the
// pod-relative scores normalised over them, as one scheduling cycle does.
// The solver does this on buckets (placeBuckets); the scan below runs with
// Config.oneHeap, as the reference the buckets are tested against.
func (s *Solver) placeScored(cl *class, pid index.PodID) (index.NodeID, int64, bool) {
	rc := cl.rel
	r := s.rel
	if s.useBuckets(cl) {
		if b := cl.buckets; b == nil || !b.lean {
			s.prepareStatic(cl)
		}
		return s.placeBuckets(cl, pid)
	}
	s.prepareStatic(cl)
	cand := s.relCand[:0]
	for wi, word := range cl.g.dense {
		for ; word != 0; word &= word - 1 {
			n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if !s.fits(n, cl) {
				continue
			}
			if f, _ := s.check(rc, n); f != relOK {
				continue
			}
			cand = append(cand, scored{node: n, base: s.score(cl, n)})
		}
	}
	s.relCand = cand
	if len(cand) == 0 {
		return 0, 0, false
	}
	// PodTopologySpread (weight 2).
	if len(rc.soft) > 0 {
		ignored := 0
		if rc.requireAll && rc.softElig != nil {
			for i := range cand {
				if n := cand[i].node; rc.softElig[n>>6]&(1<<(n&63)) == 0 {
					cand[i].ignored = true
					ignored++
				}
			}
		}
		// Each constraint's weight: the log of its domains among the
		// scored nodes (a node lacking the key is one domain, "").
		weights := r.weights[:0]
		for _, h := range rc.soft {
			sz := len(cand) - ignored
			if !h.hostname {
				sz = r.domainsAmong(cand, r.counters[h.ctr].topo)
			}
			weights = append(weights, rules.NormalizingWeight(sz))
		}
		r.weights = weights
		lo, hi := int64(math.MaxInt64), int64(0)
		for i := range cand {
			if cand[i].ignored {
				continue
			}
			n := cand[i].node
			var f float64
			for j, h := range rc.soft {
				k := r.counters[h.ctr]
				var cnt int64
				if h.hostname {
					if !s.hasHostname(n) {
						continue
					}
					cnt = int64(k.counts[n])
				} else {
					d := k.topo.Of[n]
					if d < 0 {
						continue
					}
					cnt = int64(k.counts[d])
				}
				f += rules.ScoreForCount(int64(cnt), h.maxSkew, weights[j])
			}
			v := rules.RoundSpread(f)
			cand[i].spread = v
			lo, hi = min(lo, v), max(hi, v)
		}
		for i := range cand {
			cand[i].base += rules.SpreadScore(cand[i].spread, lo, hi, cand[i].ignored)
		}
	}
	// InterPodAffinity (weight 2): the pod's preferred terms and the
	// existing pods' terms that match it; a term whose counter is empty
	// adds nothing anywhere.
	active := r.active[:0]
	for _, pr := range rc.pref {
		if r.counters[pr.ctr].total != 0 {
			active = append(active, pr)
		}
	}
	r.active = active
	if len(active) > 0 {
		s.affinityScores(active, cand)
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for i := range cand {
			lo, hi = min(lo, cand[i].spread), max(hi, cand[i].spread)
		}
		for i := range cand {
			cand[i].base += rules.PodAffinityScore(cand[i].spread, lo, hi)
		}
	}
	best := -1
	var be entry
	for i := range cand {
		e := entry{score: cand[i].base, tie: s.hot[cand[i].node].tie, node: cand[i].node}
		if best < 0 || better(&e, &be) {
			best, be = i, e
		}
	}
	s.bindPod(pid, be.node, &cl.demand)
	return be.node, be.score, true
}

// domainsAmong counts the domains of topo (-1, a node without the key,
// being one) among the candidates not ignored.
func (r *relState) domainsAmong(cand []scored, topo *index.Topology) int {
	r.newEpoch(topo)
	sz := 0
	for i := range cand {
		if cand[i].ignored {
			continue
		}
		if d := topo.Of[cand[i].node] + 1; r.stamp[d] != r.epoch {
			r.stamp[d] = r.epoch
			sz++
		}
	}
	return sz
}

// newEpoch readies r.stamp to mark topo's domains (+1, so that -1, a node
// without the key, is one) with a fresh r.epoch.
func (r *relState) newEpoch(topo *index.Topology) {
	if need := domainCount(topo) + 1; len(r.stamp) < need {
		r.stamp = make([]uint32, need)
	}
	r.epoch++
	if r.epoch == 0 { // wrapped: no stamp may look current
		clear(r.stamp)
		r.epoch = 1
	}
}

// affinityScores sets each candidate's spread field to its InterPodAffinity
// score before normalisation: each scoring term's weight times the pods it
// counts in the node's domain of the term's key. One term at a time, over
// every candidate.
func (s *Solver) affinityScores(pref []prefRef, cand []scored) {
	for i := range cand {
		cand[i].spread = 0
	}
	for _, pr := range pref {
		k := s.rel.counters[pr.ctr]
		of, counts, w := k.topo.Of, k.counts, pr.weight
		for i := range cand {
			if d := of[cand[i].node]; d >= 0 {
				cand[i].spread += w * int64(counts[d])
			}
		}
	}
}

// scored is a candidate node of a scoring class.
type scored struct {
	node    index.NodeID
	base    int64
	spread  int64
	ignored bool
}

// hasHostname reports whether node n carries the hostname label (a bitset
// made on first use).
func (s *Solver) hasHostname(n index.NodeID) bool {
	return s.hostnameNodes()[n>>6]&(1<<(n&63)) != 0
}

// hostnameNodes returns the bitset of the nodes carrying the hostname
// label, made on first use.
func (s *Solver) hostnameNodes() []uint64 {
	if s.hostnames == nil {
		s.hostnames = s.keysNodes([]string{labelHostname})
	}
	return s.hostnames
}

// relCounts adds, for a class that fits nowhere, the nodes rejected by the
// pod-relative filters (among those passing every other filter) to counts.
func (s *Solver) relCounts(rc *relClass, n index.NodeID, counts map[string]int) bool {
	f, _ := s.check(rc, n)
	if f == relOK {
		return false
	}
	counts[f.String()]++
	return true
}

// eachRead calls f with every counter rc's filters and scores read, once
// per reference.
func (rc *relClass) eachRead(f func(int32)) {
	for _, h := range rc.hard {
		f(h.ctr)
	}
	for _, h := range rc.soft {
		f(h.ctr)
	}
	for _, pr := range rc.pref {
		f(pr.ctr)
	}
	for _, list := range [][]int32{rc.aff, rc.anti, rc.repel, rc.deps} {
		for _, k := range list {
			f(k)
		}
	}
}

// holdReads counts the classes' references to the counters and kills the
// counters no class reads (their changes would be for nothing). Only for a
// batch whose classes are all known up front (not with requeued pods).
func (s *Solver) holdReads() {
	r := s.rel
	r.reads = make([]int32, len(r.counters))
	for _, cl := range s.classes {
		if cl.rel != nil {
			cl.rel.eachRead(func(k int32) { r.reads[k]++ })
		}
	}
	for k, n := range r.reads {
		if n == 0 {
			r.counters[k].kill()
		}
	}
}

// releaseReads drops a finished class's references: a counter no class
// reads any more gives its array back.
func (s *Solver) releaseReads(rc *relClass) {
	r := s.rel
	rc.eachRead(func(k int32) {
		if r.reads[k]--; r.reads[k] == 0 {
			r.counters[k].kill()
		}
	})
}
