package index

import (
	"slices"
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
}

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
		vals := slices.Clone(c.KeyValues[ks])
		slices.SortFunc(vals, func(a, b Sym) int {
			sa, sb := c.Syms.String(a), c.Syms.String(b)
			switch {
			case sa < sb:
				return -1
			case sa > sb:
				return 1
			}
			return 0
		})
		for d, vs := range vals {
			t.Values = append(t.Values, c.Syms.String(vs))
			nodes := c.LabelKV[KV(ks, vs)]
			t.Size = append(t.Size, int32(nodes.GetCardinality()))
			it := nodes.Iterator()
			for it.HasNext() {
				t.Of[it.Next()] = int32(d)
			}
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
