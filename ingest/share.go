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
	// last holds the values the previous pod got.
	last struct {
		tols   []index.Toleration
		sel    map[string]string
		reqs   index.ResourceList
		images []string
		owner  *index.OwnerRef
	}
}

func newSharer() *sharer {
	return &sharer{
		seed:      maphash.MakeSeed(),
		tols:      map[uint64][]index.Toleration{},
		selectors: map[uint64]map[string]string{},
		owners:    map[index.OwnerRef]*index.OwnerRef{},
		reqs:      map[uint64]index.ResourceList{},
		images:    map[uint64][]string{},
	}
}

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
			l.sel = shareValue(s.selectors, s.hashLabels(p.NodeSelector), p.NodeSelector, maps.Equal)
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
			l.images = shareValue(s.images, s.hashStrings(p.Images), slices.Clip(p.Images), slices.Equal)
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
func (s *sharer) hashLabels(m map[string]string) uint64 {
	var sum uint64
	for k, v := range m {
		sum += maphash.String(s.seed, k)*31 + maphash.String(s.seed, v)
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

func (s *sharer) hashStrings(ss []string) uint64 {
	h := uint64(len(ss))
	for _, x := range ss {
		h = h*prime + maphash.String(s.seed, x)
	}
	return h
}
