package solver

import "github.com/kplace/kplace/index"

// nodeTable maps nodes to int32 values: open addressing with linear
// probing over a power-of-two table, a slot's key the node plus one (0:
// empty), removals shifting the entries after them back so that no probe
// sequence breaks. A lean class's explicit nodes live in one: a sync adds
// and removes thousands of them, which in a Go map took a fifth of its
// serial time at 100,000 nodes.
type nodeTable struct {
	keys []uint32 // node+1; 0 is an empty slot
	vals []int32
	n    int // entries
}

// minNodeTable is the smallest table made.
const minNodeTable = 64

// slot is node n's home slot in a table of mask+1 slots (Fibonacci
// hashing: node ids are dense, and neighbours must not share a run).
func (t *nodeTable) slot(n index.NodeID, mask uint32) uint32 {
	return uint32((uint64(n)+1)*0x9e3779b97f4a7c15>>32) & mask
}

// set files node n with value v, replacing its value if it has one.
func (t *nodeTable) set(n index.NodeID, v int32) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	mask, k := uint32(len(t.keys)-1), uint32(n)+1
	for i := t.slot(n, mask); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case 0:
			t.keys[i], t.vals[i] = k, v
			t.n++
			return
		case k:
			t.vals[i] = v
			return
		}
	}
}

// take returns node n's value and removes it, or false when n is not
// there.
func (t *nodeTable) take(n index.NodeID) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask, k := uint32(len(t.keys)-1), uint32(n)+1
	i := t.slot(n, mask)
	for t.keys[i] != k {
		if t.keys[i] == 0 {
			return 0, false
		}
		i = (i + 1) & mask
	}
	v := t.vals[i]
	t.n--
	// Shift back each later entry of the run that may not sit past the
	// hole (its home slot is not cyclically in (hole, its slot]).
	for j := (i + 1) & mask; t.keys[j] != 0; j = (j + 1) & mask {
		if h := t.slot(index.NodeID(t.keys[j]-1), mask); (j-h)&mask >= (j-i)&mask {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
		}
	}
	t.keys[i] = 0
	return v, true
}

// grow doubles the table (or makes its first one) and files the entries
// again.
func (t *nodeTable) grow() {
	keys, vals := t.keys, t.vals
	size := max(2*len(keys), minNodeTable)
	t.keys, t.vals, t.n = make([]uint32, size), make([]int32, size), 0
	for i, k := range keys {
		if k != 0 {
			t.set(index.NodeID(k-1), vals[i])
		}
	}
}

// reset empties t, keeping its table unless it is larger than most
// slots.
func (t *nodeTable) reset(most int) {
	if len(t.keys) > most {
		*t = nodeTable{}
		return
	}
	clear(t.keys)
	t.n = 0
}
