package solver

import (
	"math/bits"

	"github.com/kplace/kplace/index"
)

// roomLevels files the nodes by free cpu and free memory in levels of a
// sixteenth of a power of two, as bitsets like a group's dense one, so
// that a build's scan visits only the nodes with room for the class: on a
// crowded cluster a class's request fits on a few percent of the nodes,
// scattered (nearly every 64-node word has one), and testing every
// feasible node's free room was most of a build.
//
// cpu[l] holds the nodes whose free cpu is at least the level's floor (0
// for level 0, with a pod slot left; then 2^e times 1, 1 + 1/16, ...,
// 1 + 15/16, rounded up, the small values sharing levels), mem[l]
// likewise for memory; a node is in every level up to its own. A class
// needing c cpu and m memory can fit only nodes of cpu[levelOf(c)] and
// mem[levelOf(m)]: the bits are a superset of the nodes passing
// class.fitsFree, never fewer. A lean fill tests in full only the nodes
// below the level past the request (fitWords), those with at most about
// 1.07 times the request free. Finer levels would test fewer nodes there
// and move more bits per bind (set); with quarters, the tests in
// fitWords were most of its time.
type roomLevels struct {
	cpu, mem [roomLevelCount][]uint64
	// lvl is each node's current levels (cpu, mem; -1: in none).
	lvl [][2]int16
	// deferred: set records the levels alone, and fill files the nodes
	// (a solver's set-up files every node at once).
	deferred bool
}

// roomSub is how many bits of a value past its highest set one pick its
// level within its power of two.
const roomSub = 4

// roomLevelCount is how many levels there are: the last one's floor,
// about 1.94 2^46, is past any cpu in millicores and 64 TiB of memory in
// bytes.
const roomLevelCount = 1 + 47<<roomSub

// levelOf is the highest level whose floor v reaches (-1: v < 0): level 0
// for 0, else 1 + 16 floor(log2 v) + the next four bits of v, capped.
func levelOf(v int64) int {
	switch {
	case v < 0:
		return -1
	case v == 0:
		return 0
	}
	e := bits.Len64(uint64(v)) - 1
	// The roomSub bits after the highest: shifted to the top, then down.
	f := int(uint64(v)<<(63-e)>>(63-roomSub)) & (1<<roomSub - 1)
	return min(1+e<<roomSub+f, roomLevelCount-1)
}

func (r *roomLevels) init(nodes int) {
	words := (nodes + 63) / 64
	all := make([]uint64, 2*roomLevelCount*words) // one block: levels are many
	for l := range roomLevelCount {
		r.cpu[l] = all[2*l*words : (2*l+1)*words : (2*l+1)*words]
		r.mem[l] = all[(2*l+1)*words : (2*l+2)*words : (2*l+2)*words]
	}
	r.lvl = make([][2]int16, nodes)
	for n := range r.lvl {
		r.lvl[n] = [2]int16{-1, -1}
	}
}

// set files node n by its free room f.
func (r *roomLevels) set(n index.NodeID, f nodeFree) {
	cpuL, memL := levelOf(f.cpu), levelOf(f.mem)
	cur := &r.lvl[n]
	if r.deferred {
		cur[0], cur[1] = int16(cpuL), int16(memL)
		return
	}
	w, bit := n>>6, uint64(1)<<(n&63)
	move := func(levels *[roomLevelCount][]uint64, from, to int) {
		for l := to + 1; l <= from; l++ {
			levels[l][w] &^= bit
		}
		for l := from + 1; l <= to; l++ {
			levels[l][w] |= bit
		}
	}
	move(&r.cpu, int(cur[0]), cpuL)
	move(&r.mem, int(cur[1]), memL)
	cur[0], cur[1] = int16(cpuL), int16(memL)
}

// fill files every node by the levels set recorded while deferred, as
// set would have one by one: each node in its own level, then every
// level's bitset joined with the one above (a node sits in every level up
// to its own). Filing 100,000 nodes one by one set about 800 bits each.
func (r *roomLevels) fill() {
	r.deferred = false
	for n, lv := range r.lvl {
		w, bit := n>>6, uint64(1)<<(n&63)
		if lv[0] >= 0 {
			r.cpu[lv[0]][w] |= bit
		}
		if lv[1] >= 0 {
			r.mem[lv[1]][w] |= bit
		}
	}
	for l := roomLevelCount - 2; l >= 0; l-- {
		for _, levels := range [2]*[roomLevelCount][]uint64{&r.cpu, &r.mem} {
			dst, src := levels[l], levels[l+1]
			for w := range dst {
				dst[w] |= src[w]
			}
		}
	}
}

// of returns the level bitsets that hold every node with room for class
// cl: a node missing from either fails fitsFree (requests are never
// negative: ingest rejects them).
func (r *roomLevels) of(cl *class) (cpu, mem []uint64) {
	return r.cpu[max(levelOf(cl.needCPU), 0)], r.mem[max(levelOf(cl.needMem), 0)]
}

// atLeast returns the level bitset of the nodes whose free room (of
// levels) is certainly at least need: the level above need's own (its
// floor is past need), or need's own for need 0; nil when there is none.
func (r *roomLevels) atLeast(need int64, levels *[roomLevelCount][]uint64) []uint64 {
	l := levelOf(need)
	if need > 0 {
		l++
	}
	if l < 0 || l >= roomLevelCount {
		return nil
	}
	return levels[l]
}

// fewer reports whether fewer than limit nodes of dense from word from on
// may have room for class cl.
func (r *roomLevels) fewer(cl *class, dense []uint64, from, limit int) bool {
	cpu, mem := r.of(cl)
	n := 0
	for w := from; w < len(dense); w++ {
		if n += bits.OnesCount64(dense[w] & cpu[w] & mem[w]); n >= limit {
			return false
		}
	}
	return true
}
