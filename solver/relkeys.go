package solver

import (
	"reflect"
	"slices"
	"unsafe"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
	"k8s.io/apimachinery/pkg/labels"
)

// How a class finds its counters: the keys of its terms and constraints,
// the anchor index from a pod to the counters it feeds, and the carry and
// repel counters of existing pods' terms (see podrel.go).

// anchorIndex finds counters through one label their (first) selector
// requires; scan lists those with no matchLabels. Namespace "" stands for
// every namespace.
type anchorIndex struct {
	byLabel map[pdbLabel][]int32
	scan    map[string][]int32
	// keys are the anchor keys byLabel holds, and all whether it holds
	// any for every namespace: a pod's other labels (a pod-template-hash,
	// a pod name) and the lookups for every namespace are left out
	// without hashing them.
	keys   []string
	keySet map[string]struct{}
	all    bool
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
	if ok && !x.anchors(k) {
		x.keys = append(x.keys, k)
		if len(x.keys) > maxAnchorScan {
			if x.keySet == nil {
				x.keySet = make(map[string]struct{}, 2*len(x.keys))
				for _, a := range x.keys {
					x.keySet[a] = struct{}{}
				}
			}
			x.keySet[k] = struct{}{}
		}
	}
	for _, ns := range nss {
		if ok {
			x.all = x.all || ns == ""
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
		if !x.anchors(k) {
			continue
		}
		out = append(out, x.byLabel[pdbLabel{p.Namespace, k, v}]...)
		if x.all {
			out = append(out, x.byLabel[pdbLabel{"", k, v}]...)
		}
	}
	out = append(out, x.scan[p.Namespace]...)
	return append(out, x.scan[""]...)
}

// anchors reports whether k is an anchor key of x. Selectors anchor on
// a handful of keys (app, app.kubernetes.io/name): a scan of them costs
// less than a lookup; past maxAnchorScan keys they are looked up in
// keySet (add keeps it). It only reads x: encoders call it in parallel.
func (x *anchorIndex) anchors(k string) bool {
	if x.keySet == nil {
		return slices.Contains(x.keys, k)
	}
	_, ok := x.keySet[k]
	return ok
}

// maxAnchorScan is the anchor keys up to which anchors scans them.
const maxAnchorScan = 8

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
	if e.rels == nil {
		return r.encodeRelOf(e, p, scratch)
	}
	// The queue holds a workload's pods mostly in a row: the last pod's
	// entry first.
	k := relMemoKeyOf(p)
	if !e.lastSet || k != e.lastRel {
		m, ok := e.rels[k]
		if !ok {
			at := len(e.buf)
			ids := r.encodeRelOf(e, p, scratch)
			m = relMemo{enc: string(e.buf[at:]), ids: slices.Clone(ids)}
			e.rels[k] = m
			e.lastRel, e.lastMemo, e.lastSet = k, m, true
			return ids
		}
		e.lastRel, e.lastMemo, e.lastSet = k, m, true
	}
	e.buf = append(e.buf, e.lastMemo.enc...)
	return append(scratch[:0], e.lastMemo.ids...)
}

// relMemoKey is everything encodeRel reads of a pod: its namespace, labels
// (by the map's identity: ingest shares equal maps, so the pods of one
// workload have one), owner, and its own constraints and affinity terms
// (by the slices' identity: ingest shares equal ones too). Pods with equal
// keys encode alike while the pod-relative state stays as it is.
type relMemoKey struct {
	spreadKey
	spread                              *index.SpreadConstraint
	aff, anti                           *index.PodAffinityTerm
	paff, panti                         *index.WeightedPodAffinityTerm
	nSpread, nAff, nAnti, nPaff, nPanti int
}

// relMemo is one memoized encodeRel: the bytes it wrote and the counters
// it returned.
type relMemo struct {
	enc string
	ids []int32
}

func relMemoKeyOf(p *index.Pod) relMemoKey {
	k := relMemoKey{spreadKey: spreadKey{ns: p.Namespace, labels: reflect.ValueOf(p.Labels).UnsafePointer()},
		spread: unsafe.SliceData(p.Spread), nSpread: len(p.Spread),
		aff: unsafe.SliceData(p.Affinity), nAff: len(p.Affinity),
		anti: unsafe.SliceData(p.AntiAffinity), nAnti: len(p.AntiAffinity),
		paff: unsafe.SliceData(p.PreferredAffinity), nPaff: len(p.PreferredAffinity),
		panti: unsafe.SliceData(p.PreferredAntiAffinity), nPanti: len(p.PreferredAntiAffinity)}
	if o := p.Owner; o != nil {
		k.kind, k.api, k.name = o.Kind, o.APIVersion, o.Name
	}
	return k
}

// encodeRelOf is encodeRel without the memo.
func (r *relState) encodeRelOf(e *keyEncoder, p *index.Pod, scratch []int32) []int32 {
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
		if nodes, few := k.elig.few(); few {
			if r.onNode == nil {
				r.onNode = slices.Repeat([][]int32{nil}, r.c.NumNodes())
			}
			for _, n := range nodes {
				r.onNode[n] = append(r.onNode[n], id)
			}
		} else {
			r.feed.add(id, &k.match[0])
		}
	}
	return id
}

// fewElig is the most nodes a counter may count on for the pods of those
// nodes to feed it (relState.onNode) instead of every pod its selector
// matches. A DaemonSet pod's spread constraints count on the one node its
// node affinity names; fed through the label index, each such counter
// would be offered every pod of the Service in front of the DaemonSet, on
// every node, to turn all but one away (eligible).
const fewElig = 8
