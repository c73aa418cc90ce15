package ingest

import (
	"hash/maphash"
	"maps"
	"slices"

	"github.com/kplace/kplace/index"
)

// sharer lets the pods of one workload share what they have in common: a
// ReplicaSet's thousand pods carry the same node selector, tolerations,
// owner, requests and images, and at a million pods separate copies of
// them were a third of the loaded heap. Pods are never changed in place after load
// (what changes a pod, expansion or a scenario, builds a new one), so a
// shared value is safe; slices are shared clipped, so an append copies.
type sharer struct {
	seed      maphash.Seed
	tols      map[uint64][]index.Toleration
	selectors map[uint64]map[string]string
	owners    map[index.OwnerRef]*index.OwnerRef
	reqs      map[uint64]index.ResourceList
	images    map[uint64][]string
	terms     termSharer
	// last holds the values the previous pod got.
	last struct {
		tols   []index.Toleration
		sel    map[string]string
		reqs   index.ResourceList
		images []string
		owner  *index.OwnerRef
	}
}

// termSharer shares pods' own topology spread constraints and pod
// (anti-)affinity terms: the pods of a workload carry equal ones, and the
// solver's memo of what a pod's terms make of it (the pod-relative part of
// its class key) knows them by the slices' identity. The terms come with
// matchLabelKeys merged into their selectors, so the pods of a workload
// whose labels such a key names apart keep terms of their own.
type termSharer struct {
	seed     maphash.Seed
	spreads  map[uint64][]index.SpreadConstraint
	terms    map[uint64][]index.PodAffinityTerm
	weighted map[uint64][]index.WeightedPodAffinityTerm
	// last holds the values the previous pod got.
	last struct {
		spread          []index.SpreadConstraint
		aff, anti       []index.PodAffinityTerm
		prefAff, prefAn []index.WeightedPodAffinityTerm
	}
}

func newSharer() *sharer {
	seed := maphash.MakeSeed()
	return &sharer{
		seed:      seed,
		tols:      map[uint64][]index.Toleration{},
		selectors: map[uint64]map[string]string{},
		owners:    map[index.OwnerRef]*index.OwnerRef{},
		reqs:      map[uint64]index.ResourceList{},
		images:    map[uint64][]string{},
		terms:     termSharer{seed: seed},
	}
}

func newTermSharer() *termSharer { return &termSharer{seed: maphash.MakeSeed()} }

// maxShared bounds each table: past it, new values are kept as they are
// (an input of all-distinct pods gains nothing from the tables).
const maxShared = 1 << 20

// share replaces p's fields by equal values seen before. Labels are
// not its business: the parsers share equal label maps already. The pods
// of a workload usually follow each other, so each field is first
// compared with the previous pod's.
func (s *sharer) share(p *index.Pod) {
	l := &s.last
	p.Tolerations = s.tolerations(p.Tolerations)
	if len(p.NodeSelector) > 0 {
		if !maps.Equal(l.sel, p.NodeSelector) {
			l.sel = shareValue(s.selectors, hashLabels(s.seed, p.NodeSelector), p.NodeSelector, maps.Equal)
		}
		p.NodeSelector = l.sel
	}
	if len(p.Requests) > 0 {
		if !slices.Equal(l.reqs, p.Requests) {
			l.reqs = shareValue(s.reqs, s.hashRequests(p.Requests), slices.Clip(p.Requests), slices.Equal)
		}
		p.Requests = l.reqs
	}
	if len(p.Images) > 0 {
		if !slices.Equal(l.images, p.Images) {
			l.images = shareValue(s.images, hashStrings(s.seed, p.Images), slices.Clip(p.Images), slices.Equal)
		}
		p.Images = l.images
	}
	if p.Owner != nil {
		if l.owner == nil || *l.owner != *p.Owner {
			l.owner = p.Owner
			if o, ok := s.owners[*p.Owner]; ok {
				l.owner = o
			} else if len(s.owners) < maxShared {
				s.owners[*p.Owner] = p.Owner
			}
		}
		p.Owner = l.owner
	}
	s.terms.share(p)
}

// share replaces p's own spread constraints and pod (anti-)affinity terms
// by equal lists seen before.
func (s *termSharer) share(p *index.Pod) {
	l := &s.last
	p.Spread = shareList(&s.spreads, &l.spread, p.Spread, spreadEqual, s.hashSpread)
	p.Affinity = shareList(&s.terms, &l.aff, p.Affinity, termEqual, s.hashTerms)
	p.AntiAffinity = shareList(&s.terms, &l.anti, p.AntiAffinity, termEqual, s.hashTerms)
	p.PreferredAffinity = shareList(&s.weighted, &l.prefAff, p.PreferredAffinity, weightedEqual, s.hashWeighted)
	p.PreferredAntiAffinity = shareList(&s.weighted, &l.prefAn, p.PreferredAntiAffinity, weightedEqual, s.hashWeighted)
}

// shareList returns l, or an equal list seen before (in *table, made on
// first use); *last is the list the previous pod got in this field.
func shareList[T any](table *map[uint64][]T, last *[]T, l []T, equal func(a, b T) bool, hash func([]T) uint64) []T {
	if len(l) == 0 {
		return l
	}
	if !slices.EqualFunc(*last, l, equal) {
		if *table == nil {
			*table = map[uint64][]T{}
		}
		*last = shareValue(*table, hash(l), slices.Clip(l), func(a, b []T) bool { return slices.EqualFunc(a, b, equal) })
	}
	return *last
}

func (s *termSharer) hashTerms(ts []index.PodAffinityTerm) uint64 {
	h := uint64(len(ts))
	for i := range ts {
		h = h*prime + s.hashTerm(&ts[i])
	}
	return h
}

func (s *termSharer) hashWeighted(ts []index.WeightedPodAffinityTerm) uint64 {
	h := uint64(len(ts))
	for i := range ts {
		h = (h*prime+uint64(uint32(ts[i].Weight)))*prime + s.hashTerm(&ts[i].Term)
	}
	return h
}

func (s *termSharer) hashSpread(cs []index.SpreadConstraint) uint64 {
	h := uint64(len(cs))
	for i := range cs {
		c := &cs[i]
		h = h*prime + uint64(uint32(c.MaxSkew))<<32 + uint64(uint32(c.MinDomains))
		h = h*prime + maphash.String(s.seed, c.TopologyKey)
		h = h*prime + maphash.String(s.seed, c.WhenUnsatisfiable)
		h = h*prime + maphash.String(s.seed, c.NodeAffinityPolicy)
		h = h*prime + maphash.String(s.seed, c.NodeTaintsPolicy)
		h = h*prime + hashStrings(s.seed, c.MatchLabelKeys)
		h = h*prime + s.hashSelector(c.Selector)
	}
	return h
}

func (s *termSharer) hashTerm(t *index.PodAffinityTerm) uint64 {
	h := maphash.String(s.seed, t.TopologyKey)
	h = h*prime + s.hashSelector(t.Selector)
	h = h*prime + s.hashSelector(t.NamespaceSelector)
	h = h*prime + hashStrings(s.seed, t.Namespaces)
	h = h*prime + hashStrings(s.seed, t.MatchLabelKeys)
	return h*prime + hashStrings(s.seed, t.MismatchLabelKeys)
}

func (s *termSharer) hashSelector(sel *index.LabelSelector) uint64 {
	if sel == nil {
		return 0
	}
	h := 1 + hashLabels(s.seed, sel.MatchLabels)
	for i := range sel.MatchExpressions {
		r := &sel.MatchExpressions[i]
		h = h*prime + maphash.String(s.seed, r.Key)
		h = h*prime + maphash.String(s.seed, r.Operator)
		h = h*prime + hashStrings(s.seed, r.Values)
	}
	return h
}

func spreadEqual(a, b index.SpreadConstraint) bool {
	return a.MaxSkew == b.MaxSkew && a.TopologyKey == b.TopologyKey && a.WhenUnsatisfiable == b.WhenUnsatisfiable &&
		a.MinDomains == b.MinDomains && a.NodeAffinityPolicy == b.NodeAffinityPolicy && a.NodeTaintsPolicy == b.NodeTaintsPolicy &&
		slices.Equal(a.MatchLabelKeys, b.MatchLabelKeys) && selectorEqual(a.Selector, b.Selector)
}

func termEqual(a, b index.PodAffinityTerm) bool {
	return a.TopologyKey == b.TopologyKey && slices.Equal(a.Namespaces, b.Namespaces) &&
		slices.Equal(a.MatchLabelKeys, b.MatchLabelKeys) && slices.Equal(a.MismatchLabelKeys, b.MismatchLabelKeys) &&
		selectorEqual(a.Selector, b.Selector) && selectorEqual(a.NamespaceSelector, b.NamespaceSelector)
}

func weightedEqual(a, b index.WeightedPodAffinityTerm) bool {
	return a.Weight == b.Weight && termEqual(a.Term, b.Term)
}

// selectorEqual reports whether a and b are the same selector (nil only
// equals nil: it matches nothing, an empty selector everything).
func selectorEqual(a, b *index.LabelSelector) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || (a.MatchLabels == nil) != (b.MatchLabels == nil) {
		return false
	}
	return maps.Equal(a.MatchLabels, b.MatchLabels) && slices.EqualFunc(a.MatchExpressions, b.MatchExpressions,
		func(x, y index.Requirement) bool {
			return x.Key == y.Key && x.Operator == y.Operator && slices.Equal(x.Values, y.Values)
		})
}

// tolerations returns ts, or an equal list seen before.
func (s *sharer) tolerations(ts []index.Toleration) []index.Toleration {
	if len(ts) == 0 {
		return ts
	}
	if !tolerationsEqual(s.last.tols, ts) {
		s.last.tols = shareValue(s.tols, s.hashTolerations(ts), slices.Clip(ts), tolerationsEqual)
	}
	return s.last.tols
}

// shareValue returns the value stored under h when it equals v, else
// stores v (when the table has room) and returns it. A slice comes
// clipped (capacity cut to its length): an append to a shared one copies.
func shareValue[V any](m map[uint64]V, h uint64, v V, equal func(a, b V) bool) V {
	if old, ok := m[h]; ok {
		if equal(old, v) {
			return old
		}
		return v // a collision: keep v apart
	}
	if len(m) < maxShared {
		m[h] = v
	}
	return v
}

func tolerationsEqual(a, b []index.Toleration) bool {
	return slices.EqualFunc(a, b, func(x, y index.Toleration) bool {
		if x.Key != y.Key || x.Operator != y.Operator || x.Value != y.Value || x.Effect != y.Effect {
			return false
		}
		if (x.TolerationSeconds == nil) != (y.TolerationSeconds == nil) {
			return false
		}
		return x.TolerationSeconds == nil || *x.TolerationSeconds == *y.TolerationSeconds
	})
}

func (s *sharer) hashTolerations(ts []index.Toleration) uint64 {
	h := uint64(len(ts))
	for i := range ts {
		t := &ts[i]
		h = h*prime + maphash.String(s.seed, t.Key)
		h = h*prime + maphash.String(s.seed, t.Value)
		h = h*prime + uint64(len(t.Operator))<<8 + uint64(len(t.Effect)) // both are enumerations
		if t.TolerationSeconds != nil {
			h = h*prime + uint64(*t.TolerationSeconds) + 1
		}
	}
	return h
}

// prime mixes the parts of a hash.
const prime = 0x100000001b3

// hashLabels is independent of the map's iteration order: a sum over the
// entries.
func hashLabels(seed maphash.Seed, m map[string]string) uint64 {
	var sum uint64
	for k, v := range m {
		sum += maphash.String(seed, k)*31 + maphash.String(seed, v)
	}
	return sum + uint64(len(m))
}

func (s *sharer) hashRequests(l index.ResourceList) uint64 {
	h := uint64(len(l))
	for _, q := range l {
		h = (h*prime+maphash.String(s.seed, q.Name))*prime + uint64(q.Value)
	}
	return h
}

func hashStrings(seed maphash.Seed, ss []string) uint64 {
	h := uint64(len(ss))
	for _, x := range ss {
		h = h*prime + maphash.String(seed, x)
	}
	return h
}
