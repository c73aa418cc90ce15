package ingest

import (
	"math/bits"
	"sync"
)

// The duplicate scan of a snapshot: a snapshot holds millions of objects
// (the realistic 100,000-node export: 2.3 million), and inserting each
// key's hash into one map, as apply does object by object, read the map at
// random on one goroutine while the pods' validation ran on the others.
// The scan hashes the keys on every processor, groups the positions by
// the hash's high bits (each group in input order), and looks for repeats
// group by group, each in a map small enough to stay in cache.

// objKeys gives the key (kind, namespace, name) of the object at each
// position of the input order.
type objKeys func(pos int) (kind, ns, name string)

// firstDuplicate returns the first position (in input order) of an object
// whose key an earlier object has, and the earliest position with that
// key; (-1, -1) when no key repeats. Keys are compared on equal hashes,
// as checkDup compares them.
func firstDuplicate(n int, key objKeys, hash func(kind, ns, name string) uint64, workers int) (dup, first int) {
	workers = max(1, workers)
	const chunk = 1 << 14
	hs := make([]uint64, n)
	eachChunk(n, chunk, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			hs[i] = hash(key(i))
		}
	})
	// Groups of about groupSize positions by the hash's high bits.
	const groupSize = 1 << 13
	shift := uint(64)
	if n > groupSize {
		shift = uint(64 - bits.Len(uint(n/groupSize)))
	}
	groups := 1
	if shift < 64 {
		groups = 1 << (64 - shift)
	}
	group := func(h uint64) int {
		if shift == 64 {
			return 0
		}
		return int(h >> shift)
	}
	start := make([]int32, groups+1)
	for _, h := range hs {
		start[group(h)+1]++
	}
	for g := range groups {
		start[g+1] += start[g]
	}
	order := make([]int32, n)
	next := append([]int32(nil), start[:groups]...)
	for i, h := range hs {
		g := group(h)
		order[next[g]] = int32(i)
		next[g]++
	}
	// Each group's first repeat is its earliest: positions rise within it.
	var mu sync.Mutex
	dup, first = -1, -1
	found := func(p, f int32) {
		mu.Lock()
		if dup < 0 || int(p) < dup {
			dup, first = int(p), int(f)
		}
		mu.Unlock()
	}
	eachChunk(groups, 1, workers, func(lo, hi int) {
		seen := map[uint64]int32{}
		for g := lo; g < hi; g++ {
			clear(seen)
			var byKey map[string]int32 // the keys whose hash another key has
			for _, p := range order[start[g]:start[g+1]] {
				h := hs[p]
				f, ok := seen[h]
				if !ok {
					seen[h] = p
					continue
				}
				kind, ns, name := key(int(p))
				if fk, fns, fname := key(int(f)); fk == kind && fns == ns && fname == name {
					found(p, f)
					break
				}
				full := kind + "\x00" + ns + "\x00" + name
				if f, ok := byKey[full]; ok {
					found(p, f)
					break
				}
				if byKey == nil {
					byKey = map[string]int32{}
				}
				byKey[full] = p
			}
		}
	})
	return dup, first
}

// eachChunk runs f over [0, n) in ranges of size, on workers goroutines
// each taking the next range.
func eachChunk(n, size, workers int, f func(lo, hi int)) {
	forEach((n+size-1)/size, workers, func() func(int) {
		return func(k int) { f(k*size, min((k+1)*size, n)) }
	})
}
