package ingest

import (
	"hash/maphash"
	"maps"
	"slices"

	"github.com/kplace/kplace/index"
)

// sharer lets the pods of one workload share what they have in common: a
// ReplicaSet's thousand pods carry the same labels, node selector,
// tolerations, owner, requests and images, and at a million pods separate copies of them were
// a third of the loaded heap. Pods are never changed in place after load
// (what changes a pod, expansion or a scenario, builds a new one), so a
// shared value is safe; slices are shared with their capacity cut to
// their length, so an append copies.
type sharer struct {
	seed   maphash.Seed
	tols   map[uint64][]index.Toleration
	labels map[uint64]map[string]string
	owners map[index.OwnerRef]*index.OwnerRef
	reqs   map[uint64]index.ResourceList
	images map[uint64][]string
}

func newSharer() *sharer {
	return &sharer{
		seed:   maphash.MakeSeed(),
		tols:   map[uint64][]index.Toleration{},
		labels: map[uint64]map[string]string{},
		owners: map[index.OwnerRef]*index.OwnerRef{},
		reqs:   map[uint64]index.ResourceList{},
		images: map[uint64][]string{},
	}
}

// maxShared bounds each table: past it, new values are kept as they are
// (an input of all-distinct pods gains nothing from the tables).
const maxShared = 1 << 20

// share replaces p's fields by equal values seen before.
func (s *sharer) share(p *index.Pod) {
	p.Tolerations = s.tolerations(p.Tolerations)
	if len(p.Labels) > 0 {
		p.Labels = shareValue(s.labels, s.hashLabels(p.Labels), p.Labels, maps.Equal)
	}
	if len(p.NodeSelector) > 0 {
		p.NodeSelector = shareValue(s.labels, s.hashLabels(p.NodeSelector), p.NodeSelector, maps.Equal)
	}
	if len(p.Requests) > 0 {
		p.Requests = shareValue(s.reqs, s.hashRequests(p.Requests), p.Requests, slices.Equal)
	}
	if len(p.Images) > 0 {
		p.Images = shareValue(s.images, s.hashStrings(p.Images), p.Images, slices.Equal)
	}
	if p.Owner != nil {
		if o, ok := s.owners[*p.Owner]; ok {
			p.Owner = o
		} else if len(s.owners) < maxShared {
			s.owners[*p.Owner] = p.Owner
		}
	}
}

// tolerations returns ts, or an equal list seen before.
func (s *sharer) tolerations(ts []index.Toleration) []index.Toleration {
	if len(ts) == 0 {
		return ts
	}
	return shareValue(s.tols, s.hashTolerations(ts), ts, tolerationsEqual)
}

// shareValue returns the value stored under h when it equals v, else
// stores v (when the table has room) and returns it.
func shareValue[V any](m map[uint64]V, h uint64, v V, equal func(a, b V) bool) V {
	if old, ok := m[h]; ok {
		if equal(old, v) {
			return old
		}
		return v // a collision: keep v apart
	}
	if len(m) < maxShared {
		m[h] = clip(v)
	}
	return clip(v)
}

// clip cuts a slice's capacity to its length (an append then copies);
// other values are returned as they are.
func clip[V any](v V) V {
	switch x := any(v).(type) {
	case []index.Toleration:
		return any(slices.Clip(x)).(V)
	case []string:
		return any(slices.Clip(x)).(V)
	case index.ResourceList:
		return any(slices.Clip(x)).(V)
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
	var h maphash.Hash
	h.SetSeed(s.seed)
	for i := range ts {
		t := &ts[i]
		h.WriteString(t.Key)
		h.WriteByte(0)
		h.WriteString(t.Operator)
		h.WriteByte(0)
		h.WriteString(t.Value)
		h.WriteByte(0)
		h.WriteString(t.Effect)
		h.WriteByte(0)
		if t.TolerationSeconds != nil {
			maphash.WriteComparable(&h, *t.TolerationSeconds)
		}
		h.WriteByte(1)
	}
	return h.Sum64()
}

// hashLabels is independent of the map's iteration order: the sum of the
// entries' hashes.
func (s *sharer) hashLabels(m map[string]string) uint64 {
	var sum uint64
	for k, v := range m {
		var h maphash.Hash
		h.SetSeed(s.seed)
		h.WriteString(k)
		h.WriteByte(0)
		h.WriteString(v)
		sum += h.Sum64()
	}
	return sum + uint64(len(m))
}

func (s *sharer) hashRequests(l index.ResourceList) uint64 {
	var h maphash.Hash
	h.SetSeed(s.seed)
	for _, q := range l {
		h.WriteString(q.Name)
		h.WriteByte(0)
		maphash.WriteComparable(&h, q.Value)
	}
	return h.Sum64()
}

func (s *sharer) hashStrings(ss []string) uint64 {
	var h maphash.Hash
	h.SetSeed(s.seed)
	for _, x := range ss {
		h.WriteString(x)
		h.WriteByte(0)
	}
	return h.Sum64()
}
