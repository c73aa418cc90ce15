package solver

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestRoomLevels files random free rooms (none, negative, zero, small,
// huge) again and again and checks every level's bits against the
// definition, that a class's level words hold every node passing
// fitsFree, and fewer's count of them.
func TestRoomLevels(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 9))
	const nodes = 200
	var rl roomLevels
	rl.init(nodes)
	free := make([]nodeFree, nodes)
	for i := range free {
		free[i] = nodeFree{cpu: math.MinInt64, mem: math.MinInt64} // as init files them: in no level
	}
	value := func() int64 {
		switch r.IntN(6) {
		case 0:
			return math.MinInt64
		case 1:
			return -r.Int64N(5000)
		case 2:
			return 0
		case 3:
			return r.Int64N(4000)
		case 4:
			return r.Int64N(1 << 40)
		}
		return math.MaxInt64 - r.Int64N(10)
	}
	// The least value of level l: 2^e times 1 + f/sub for the level's
	// step f of sub, rounded up (the small levels have no value of their
	// own).
	floor := func(l int) int64 {
		if l == 0 {
			return 0
		}
		const sub = 1 << roomSub
		e, f := int64(l-1)/sub, int64(l-1)%sub
		return ((sub+f)<<e + sub - 1) / sub
	}
	for round := range 3000 {
		n := index.NodeID(r.IntN(nodes))
		free[n] = nodeFree{cpu: value(), mem: value()}
		rl.set(n, free[n])
		if round%50 != 0 {
			continue
		}
		for l := range roomLevelCount {
			for m := range nodes {
				in := func(b []uint64) bool { return b[m>>6]&(1<<(m&63)) != 0 }
				if want := free[m].cpu >= floor(l); in(rl.cpu[l]) != want {
					t.Fatalf("round %d: node %d cpu %d in level %d: %v, want %v", round, m, free[m].cpu, l, in(rl.cpu[l]), want)
				}
				if want := free[m].mem >= floor(l); in(rl.mem[l]) != want {
					t.Fatalf("round %d: node %d mem %d in level %d: %v, want %v", round, m, free[m].mem, l, in(rl.mem[l]), want)
				}
			}
		}
		for range 20 {
			cl := &class{needCPU: max(0, value()), needMem: max(0, value())}
			cpu, mem := rl.of(cl)
			inLevels := 0
			for m := range nodes {
				in := (cpu[m>>6]&mem[m>>6])&(1<<(m&63)) != 0
				if cl.fitsFree(&free[m]) && !in {
					t.Fatalf("node %d (free %+v) fits class (cpu %d, mem %d) but is not in its levels", m, free[m], cl.needCPU, cl.needMem)
				}
				if in {
					inLevels++
				}
			}
			dense := make([]uint64, (nodes+63)/64)
			for m := range nodes {
				dense[m>>6] |= 1 << (m & 63)
			}
			for _, limit := range []int{1, inLevels, inLevels + 1, nodes} {
				if got, want := rl.fewer(cl, dense, 0, limit), inLevels < limit; got != want {
					t.Fatalf("fewer(limit %d) = %v with %d nodes in the levels", limit, got, inLevels)
				}
			}
			// From the second word on: the nodes of the first left out.
			from, inFrom := min(1, len(dense)), 0
			for m := 64 * from; m < nodes; m++ {
				if (cpu[m>>6]&mem[m>>6])&(1<<(m&63)) != 0 {
					inFrom++
				}
			}
			for _, limit := range []int{1, inFrom, inFrom + 1} {
				if got, want := rl.fewer(cl, dense, from, limit), inFrom < limit; got != want {
					t.Fatalf("fewer(from %d, limit %d) = %v with %d nodes in the levels from there", from, limit, got, inFrom)
				}
			}
		}
	}
}

// TestRoomLevelsFill: filing every node at once (deferred, then fill)
// gives the levels and bitsets that filing them one by one gives, for
// free room of every kind (none, a pod slot left and nothing else, small
// and huge values), on 1,000 nodes (the last word partly used); then both
// move on alike.
func TestRoomLevelsFill(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(2, 8))
	value := func() int64 {
		switch r.IntN(5) {
		case 0:
			return math.MinInt64 // no pod slot
		case 1:
			return 0
		case 2:
			return r.Int64N(1 << 10)
		case 3:
			return r.Int64N(1 << 40)
		}
		return math.MaxInt64 - r.Int64N(1<<20)
	}
	const nodes = 1000
	var one, bulk roomLevels
	one.init(nodes)
	bulk.init(nodes)
	bulk.deferred = true
	for n := range nodes {
		f := nodeFree{cpu: value(), mem: value()}
		one.set(index.NodeID(n), f)
		bulk.set(index.NodeID(n), f)
	}
	bulk.fill()
	same := func(step string) {
		t.Helper()
		if !slices.Equal(one.lvl, bulk.lvl) {
			t.Fatalf("%s: levels differ", step)
		}
		for l := range roomLevelCount {
			if !slices.Equal(one.cpu[l], bulk.cpu[l]) || !slices.Equal(one.mem[l], bulk.mem[l]) {
				t.Fatalf("%s: level %d's bitsets differ", step, l)
			}
		}
	}
	same("filed")
	for range 2000 {
		n, f := index.NodeID(r.IntN(nodes)), nodeFree{cpu: value(), mem: value()}
		one.set(n, f)
		bulk.set(n, f)
	}
	same("moved")
}
