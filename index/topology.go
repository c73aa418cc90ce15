package index

import (
	"slices"
	"strings"
	"sync"
)

// Topology is the domain map of one topology key: which domain (label value)
// each node is in. Domain ids are dense, in order of the values' sorted
// strings, so they do not depend on node order.
type Topology struct {
	Key string
	// Of[n] is node n's domain id, -1 when the node lacks the key.
	Of []int32
	// Values[d] is the label value of domain d.
	Values []string
	// Size[d] is the number of nodes in domain d.
	Size []int32
	// members lists the nodes of each domain, domain d's in
	// members[start[d]:start[d+1]], ascending (see Members).
	start   []int32
	members []NodeID
	maxSize int32 // the largest of Size
}

// Singleton reports whether no domain of t holds more than one node (a
// hostname key's).
func (t *Topology) Singleton() bool { return t.maxSize <= 1 }

// Members returns the nodes of domain d in ascending id order. The slice is
// shared and read-only.
func (t *Topology) Members(d int32) []NodeID {
	return t.members[t.start[d]:t.start[d+1]]
}

// topologies memoises Topology per key (see Cluster.Topology).
type topologies struct {
	mu sync.Mutex
	m  map[string]*Topology
}

// Topology returns the domain map of key, built on first use (O(nodes)).
// Safe for concurrent use; the result is read-only.
func (c *Cluster) Topology(key string) *Topology {
	c.topo.mu.Lock()
	defer c.topo.mu.Unlock()
	if t, ok := c.topo.m[key]; ok {
		return t
	}
	if c.topo.m == nil {
		c.topo.m = map[string]*Topology{}
	}
	t := &Topology{Key: key, Of: make([]int32, len(c.Nodes))}
	for i := range t.Of {
		t.Of[i] = -1
	}
	if ks, ok := c.Syms.Lookup(key); ok {
		// Domains in value order (a hostname key has one per node: sort
		// the strings themselves, walk each node set without an iterator).
		type value struct {
			s   string
			sym Sym
		}
		vals := make([]value, len(c.KeyValues[ks]))
		for i, vs := range c.KeyValues[ks] {
			vals[i] = value{c.Syms.String(vs), vs}
		}
		slices.SortFunc(vals, func(a, b value) int { return strings.Compare(a.s, b.s) })
		t.Values = make([]string, len(vals))
		t.Size = make([]int32, len(vals))
		for d, v := range vals {
			t.Values[d] = v.s
			nodes := c.LabelKV[KV(ks, v.sym)]
			t.Size[d] = int32(nodes.GetCardinality())
			t.maxSize = max(t.maxSize, t.Size[d])
			nodes.Iterate(func(n uint32) bool {
				t.Of[n] = int32(d)
				return true
			})
		}
	}
	t.start = make([]int32, len(t.Values)+1)
	for _, d := range t.Of {
		if d >= 0 {
			t.start[d+1]++
		}
	}
	for d := range t.Values {
		t.start[d+1] += t.start[d]
	}
	t.members = make([]NodeID, t.start[len(t.Values)])
	next := slices.Clone(t.start[:len(t.Values)])
	for n, d := range t.Of {
		if d >= 0 {
			t.members[next[d]] = NodeID(n)
			next[d]++
		}
	}
	c.topo.m[key] = t
	return t
}
