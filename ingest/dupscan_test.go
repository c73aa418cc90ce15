package ingest

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFirstDuplicate checks the snapshot's duplicate scan against the
// rule itself (the first object, in input order, whose kind, namespace and
// name an earlier object has, and the earliest such object), on random
// key lists with repeats far apart and near, with the loader's hash and
// with one so weak that most keys share a hash with others.
func TestFirstDuplicate(t *testing.T) {
	kinds := []string{kindNode, kindPod, kindPDB, "Deployment"}
	found := 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 11))
		n := 1 + r.IntN(20000)
		if seed%3 == 0 {
			n = 1 + r.IntN(50)
		}
		type objKey struct{ kind, ns, name string }
		keys := make([]objKey, n)
		for i := range keys {
			keys[i] = objKey{kinds[r.IntN(len(kinds))], fmt.Sprintf("ns%d", r.IntN(3)), fmt.Sprintf("o%d", i)}
			if r.IntN(n+1) < 2 { // about two repeats per list
				keys[i] = keys[r.IntN(i+1)]
			}
		}
		wantDup, wantFirst := -1, -1
		at := map[objKey]int{}
		for i, k := range keys {
			if f, ok := at[k]; ok {
				wantDup, wantFirst = i, f
				break
			}
			at[k] = i
		}
		if wantDup >= 0 {
			found++
		}
		key := func(pos int) (string, string, string) { return keys[pos].kind, keys[pos].ns, keys[pos].name }
		hash := newLoader(Options{}).hashKey
		if seed%2 == 0 {
			hash = func(kind, ns, name string) uint64 { // a few hundred values
				return uint64(len(kind)+len(name))<<58 | uint64(name[len(name)-1])<<8 | uint64(len(ns))
			}
		}
		for _, workers := range []int{1, 3} {
			if dup, first := firstDuplicate(n, key, hash, workers); dup != wantDup || first != wantFirst {
				t.Fatalf("seed %d (%d keys, %d workers): duplicate at %d of %d, want %d of %d", seed, n, workers, dup, first, wantDup, wantFirst)
			}
		}
	}
	if found < 50 {
		t.Fatalf("%d lists with a duplicate: the cases do not exercise the scan", found)
	}
}
