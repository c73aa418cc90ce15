package solver

import (
	"math/bits"
	"reflect"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
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
	// feed finds the label-matching counters a pod may feed, but for those
	// counting on few nodes: onNode lists them by node (nil: none; see
	// fewElig). repelIdx and carryIdx find the repel and carry counters
	// whose term may match an incoming pod.
	feed, repelIdx, carryIdx anchorIndex
	onNode                   [][]int32
	repelOf                  map[string]int32 // repel counter by term key
	carryOf                  map[string]int32 // carry counter by sign and term key
	// eligDoms by topology key and eligKey (see readyMin); eligSets the
	// spread eligibility bitsets by eligKey (see spreadEligible); keySets
	// the soft constraints' nodes by their keys (sharedKeysNodes).
	eligDoms      map[string]eligDoms
	eligSets      map[string]eligSet
	keySets       map[string][]uint64
	nsLabels      map[string]map[string]string
	defaults      []index.SpreadConstraint
	systemDefault bool
	// Services by one pair of their selector (namespace, key, value) and
	// controllers by kind/namespace/name, for default selectors.
	services map[pdbLabel][]*index.Workload
	owners   map[string]*index.Workload // kind/ns/name
	enc      keyEncoder
	// setup is setupClass's encoder, kept for its memos: the classes of
	// one workload (a DaemonSet's pods, one per node) share their default
	// constraints, and classes share selectors.
	setup keyEncoder
	buf   []int32
	// feedMemo caches feeds by a pod's label map (see feeds) for feedN
	// counters: a counter added empties it.
	feedMemo map[uintptr]feedEntry
	feedIDs  []int32
	feedN    int
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

// newRelState collects the repel counters (every pod's required
// anti-affinity terms), the carry counters (every pod's affinity terms that
// score for others) and the default-spreading inputs. It returns nil when
// no pod has a pod-relative constraint and no default applies.
func newRelState(c *index.Cluster, cfg *Config) *relState {
	defaults := cfg.DefaultSpread
	r := &relState{c: c, byKey: map[string]int32{}, repelOf: map[string]int32{}, carryOf: map[string]int32{}, feedMemo: map[uintptr]feedEntry{},
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

// setupAsync runs setupClass on another goroutine: first on the classes
// made before, then on those sent on the returned channel, in order (the
// counters are numbered in that order), until it is closed; s.setupDone
// is closed then. classify makes the classes meanwhile: at 100,000 nodes
// the two take about 0.3 s each, one processor apiece. setupClass reads
// the index, a class's first pod and the relState alone, which nothing
// else writes until the solve waits for it.
func (s *Solver) setupAsync(made []*class) chan []*class {
	ch := make(chan []*class, 64)
	done := make(chan struct{})
	s.setupDone = done
	go func() {
		defer close(done)
		for _, cl := range made {
			s.setupClass(cl)
		}
		for cls := range ch {
			for _, cl := range cls {
				s.setupClass(cl)
			}
		}
	}()
	return ch
}

// setupClass builds cl's relClass (nil when its pods have no pod-relative
// constraint).
func (s *Solver) setupClass(cl *class) {
	r := s.rel
	p := &s.c.Pods[cl.rep]
	enc := &r.setup
	cs, defaulted := r.spreadOfMemo(enc, p)
	repel := r.repels(p, nil)
	carried := r.carried(p, nil)
	if len(cs) == 0 && len(p.Affinity) == 0 && len(p.AntiAffinity) == 0 && len(p.PreferredAffinity) == 0 &&
		len(p.PreferredAntiAffinity) == 0 && len(repel) == 0 && len(carried) == 0 {
		return
	}
	rc := &relClass{repel: repel}
	set := labels.Set(p.Labels)
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
				enc.buf = enc.buf[:0]
				enc.selector(sc.Selector)
				sel = enc.cachedSelector(enc.buf, sc.Selector)
			}
			if sel != nil && sel.Matches(set) {
				ref.self = 1
			}
			if sel != nil && sel.Empty() {
				sel = nil // an empty selector counts no pod (countPodsMatchSelector)
			}
			hostname := action == index.ScheduleAnyway && sc.TopologyKey == labelHostname
			var elig eligSet
			eligKey := ""
			if !hostname {
				elig, eligKey = s.spreadEligible(p, sc, keys, requireAll, enc)
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
			rc.softElig = s.sharedKeysNodes(keys, enc)
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

// sharedKeysNodes is keysNodes made once per list of keys: the classes
// with equal soft keys share the (read-only) bitset.
func (s *Solver) sharedKeysNodes(keys []string, enc *keyEncoder) []uint64 {
	enc.buf = enc.buf[:0]
	for _, k := range keys {
		enc.str(k)
	}
	r := s.rel
	if d, ok := r.keySets[string(enc.buf)]; ok {
		return d
	}
	d := s.keysNodes(keys)
	if r.keySets == nil {
		r.keySets = map[string][]uint64{}
	}
	r.keySets[string(enc.buf)] = d
	return d
}

// spreadEligible returns the nodes whose pods count for constraint sc of
// pod p (those carrying all keys when requireAll, passing the inclusion
// policies) and a key naming that set. The set is made once per key and
// shared (read-only) by every counter and class with that key: at 100,000
// nodes a bitset per class would cost 12.5 KB each. It spans the words
// from its first node to its last: a DaemonSet's pods have a set each, of
// the one node their affinity names.
func (s *Solver) spreadEligible(p *index.Pod, sc *index.SpreadConstraint, keys []string, requireAll bool, enc *keyEncoder) (eligSet, string) {
	c := s.c
	affinity := sc.NodeAffinityPolicy != index.PolicyIgnore && (len(p.NodeSelector) > 0 || p.HasRequired)
	taints := sc.NodeTaintsPolicy == index.PolicyHonor
	enc.buf = enc.buf[:0]
	if requireAll {
		for _, k := range keys {
			enc.str(k)
		}
	}
	enc.num(-1)
	if affinity {
		enc.required(p)
	}
	enc.num(-1)
	if taints {
		enc.tolerations(p.Tolerations)
	}
	key := string(enc.buf)
	r := s.rel
	if d, ok := r.eligSets[key]; ok {
		return d, key
	}
	m := newMemo()
	var b *roaring.Bitmap
	if affinity {
		b = requiredNodes(c, p, m, &keyEncoder{}) // a set of its own
	} else {
		b = c.All.Clone()
	}
	if requireAll {
		for _, k := range keys {
			if kb := c.KeyNodes(k); kb != nil {
				b.And(kb)
			} else {
				b.Clear()
			}
		}
	}
	if taints {
		if ts := m.taintSets(c, p.Tolerations, &keyEncoder{}); ts.bad != nil {
			b.AndNot(ts.bad)
		}
	}
	e := windowOf(b, (c.NumNodes()+63)/64)
	if r.eligSets == nil {
		r.eligSets = map[string]eligSet{}
	}
	r.eligSets[key] = e
	return e, key
}

// eligSet is a bitset of nodes over the cluster's words [lo, lo+len(words)).
type eligSet struct {
	lo    int32
	words []uint64
}

// has reports whether node n is in e.
func (e *eligSet) has(n index.NodeID) bool {
	w := int(n>>6) - int(e.lo)
	return uint(w) < uint(len(e.words)) && e.words[w]&(1<<(n&63)) != 0
}

// few returns e's nodes when there are at most fewElig (no words: every
// node, never few).
func (e *eligSet) few() ([]index.NodeID, bool) {
	if e.words == nil {
		return nil, false
	}
	var nodes []index.NodeID
	for wi, w := range e.words {
		for ; w != 0; w &= w - 1 {
			if len(nodes) == fewElig {
				return nil, false
			}
			nodes = append(nodes, index.NodeID((int(e.lo)+wi)*64+bits.TrailingZeros64(w)))
		}
	}
	return nodes, true
}

// windowOf writes b out over the words from its first node to its last,
// or over all the cluster's words when that spans half of them.
func windowOf(b *roaring.Bitmap, words int) eligSet {
	if b.IsEmpty() {
		return eligSet{words: []uint64{0}}
	}
	lo, hi := int(b.Minimum()>>6), int(b.Maximum()>>6)+1
	if 2*(hi-lo) >= words {
		d := make([]uint64, words)
		b.WriteDenseTo(d)
		return eligSet{words: d}
	}
	d := make([]uint64, hi-lo)
	for it := b.Iterator(); it.HasNext(); {
		n := int(it.Next())
		d[n>>6-lo] |= 1 << (n & 63)
	}
	return eligSet{lo: int32(lo), words: d}
}

// countExisting fills every counter from the bound pods and readies the
// spread minima, once classify's classes are set up (setupAsync). Run
// once, after classify.
func (s *Solver) countExisting() {
	if s.setupDone != nil {
		<-s.setupDone
	}
	s.countFrom(0)
}

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
		r.buf = r.nodeFeeds(&c.Pods[p], index.NodeID(n), r.buf[:0])
		for _, id := range r.buf {
			if int(id) >= from {
				r.counters[id].apply(index.NodeID(n), 1)
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

// relBind updates the counters for pod p bound to (delta 1) or removed from
// (-1) node n; carries lists p's repel and carry counters when known (nil:
// derive).
func (s *Solver) relBind(p index.PodID, n index.NodeID, delta int32, carries []carryRef) {
	r := s.rel
	pod := &s.c.Pods[p]
	r.buf = r.feeds(pod, r.buf[:0])
	r.buf = r.nodeFeeds(pod, n, r.buf)
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

// feedEntry is the counters the pods of one namespace and label map feed.
type feedEntry struct {
	ns      string
	labels  map[string]string // held, so that its address is not reused
	off, to int32             // the counters: feedIDs[off:to]
}

// feedMemoMax bounds the label maps feedMemo holds (pods with labels of
// their own, a StatefulSet's, fill it for nothing): a full memo starts
// over.
const feedMemoMax = 1 << 16

// feeds appends to out the label-matching counters pod feeds. Ingest's
// parsers give equal label maps to pods with equal labels (the pods of a
// ReplicaSet or a DaemonSet), so the answer is remembered per label map,
// found by its address, until a counter is added.
func (r *relState) feeds(pod *index.Pod, out []int32) []int32 {
	if r.feedN != len(r.counters) {
		clear(r.feedMemo)
		r.feedIDs = r.feedIDs[:0]
		r.feedN = len(r.counters)
	}
	key := uintptr(reflect.ValueOf(pod.Labels).UnsafePointer())
	e, seen := r.feedMemo[key]
	if seen && e.ns == pod.Namespace {
		return append(out, r.feedIDs[e.off:e.to]...)
	}
	start := len(out)
	out = r.matchFeeds(pod, out)
	if !seen {
		if len(r.feedMemo) == feedMemoMax {
			// Full: start over, so that the label maps of the pods
			// placed now (a workload's, in a row) are remembered.
			clear(r.feedMemo)
			r.feedIDs = r.feedIDs[:0]
		}
		off := len(r.feedIDs)
		r.feedIDs = append(r.feedIDs, out[start:]...)
		r.feedMemo[key] = feedEntry{ns: pod.Namespace, labels: pod.Labels, off: int32(off), to: int32(len(r.feedIDs))}
	}
	return out
}

// matchFeeds appends to out the label-matching counters pod feeds, found
// through the anchor index and each counter's selectors.
func (r *relState) matchFeeds(pod *index.Pod, out []int32) []int32 {
	start := len(out)
	out = r.feed.candidates(pod, out)
	keep := out[:start]
	for _, id := range out[start:] {
		if r.counters[id].matches(pod) {
			keep = append(keep, id)
		}
	}
	return keep
}

// nodeFeeds appends to out the counters that count on few nodes, n among
// them, and that pod on n feeds (see fewElig).
func (r *relState) nodeFeeds(pod *index.Pod, n index.NodeID, out []int32) []int32 {
	if r.onNode == nil {
		return out
	}
	for _, id := range r.onNode[n] {
		if r.counters[id].matches(pod) {
			out = append(out, id)
		}
	}
	return out
}

// matches reports whether pod matches every matcher of k.
func (k *counter) matches(pod *index.Pod) bool {
	for i := range k.match {
		if !k.match[i].match(pod) {
			return false
		}
	}
	return true
}

// moves appends to out every counter a bound pod moves, with its weight,
// but for those that count on few nodes (nodeFeeds): those it feeds (1)
// and those of its own terms (carriesOf).
func (r *relState) moves(pod *index.Pod, out []carryRef) []carryRef {
	r.buf = r.feeds(pod, r.buf[:0])
	for _, id := range r.buf {
		out = append(out, carryRef{ctr: id, w: 1})
	}
	return r.carriesOf(pod, out)
}

// podCounters returns the counters bound pod p moves whatever its node
// (see moves), computed once per pod: the preemption dry runs move the
// same pods again and again.
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
	r := s.rel
	for _, cr := range s.podCounters(p) {
		r.counters[cr.ctr].move(n, delta*cr.w)
	}
	r.buf = r.nodeFeeds(&s.c.Pods[p], n, r.buf[:0])
	for _, id := range r.buf {
		r.counters[id].move(n, delta)
	}
}

// movesOn reports whether pod p, bound on node n, moves counter id.
func (s *Solver) movesOn(p index.PodID, n index.NodeID, id int32) bool {
	if slices.ContainsFunc(s.podCounters(p), func(cr carryRef) bool { return cr.ctr == id }) {
		return true
	}
	r := s.rel
	return r.onNode != nil && slices.Contains(r.onNode[n], id) && r.counters[id].matches(&s.c.Pods[p])
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
