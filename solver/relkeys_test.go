package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestAnchorCandidates checks the anchor index against every matcher:
// the candidates of a pod hold each matcher that matches it, once. The
// matchers anchor on few keys and on many (the scan of the keys and their
// set), in one namespace, several, or all, or have no matchLabels (the
// scan lists); pods carry anchor labels, other labels, or none.
func TestAnchorCandidates(t *testing.T) {
	t.Parallel()
	checked, all, matched, sets := 0, 0, 0, 0
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		keys := 1 + rng.IntN(3)
		if seed%2 == 1 {
			keys = maxAnchorScan + 1 + rng.IntN(8) // past the scan: the set
		}
		nss := []string{"a", "b", "c"}
		var x anchorIndex
		var ms []matcher
		for id := range 60 {
			ls := &index.LabelSelector{MatchLabels: map[string]string{}}
			for range 1 + rng.IntN(2) {
				ls.MatchLabels[fmt.Sprint("k", rng.IntN(keys))] = fmt.Sprint("v", rng.IntN(3))
			}
			if rng.IntN(6) == 0 { // no matchLabels: listed for a scan
				ls = &index.LabelSelector{MatchExpressions: []index.Requirement{
					{Key: fmt.Sprint("k", rng.IntN(keys)), Operator: index.SelExists}}}
			}
			m := matcher{sel: index.SelectorOf(ls), ls: ls}
			switch rng.IntN(4) {
			case 0:
				m.ns.all = true
				all++
			case 1:
				m.ns.names = []string{nss[0], nss[1]}
			default:
				m.ns.names = []string{nss[rng.IntN(len(nss))]}
			}
			ms = append(ms, m)
			x.add(int32(id), &ms[id])
		}
		if (len(x.keys) > maxAnchorScan) != (x.keySet != nil) {
			t.Fatalf("seed %d: %d anchor keys, key set made %v", seed, len(x.keys), x.keySet != nil)
		}
		if x.keySet != nil {
			sets++
		}
		for range 200 {
			p := &index.Pod{Namespace: nss[rng.IntN(len(nss))], Labels: map[string]string{}}
			for range rng.IntN(5) {
				p.Labels[fmt.Sprint("k", rng.IntN(keys+2))] = fmt.Sprint("v", rng.IntN(3)) // k<keys> and up anchor nothing
			}
			p.Labels["pod-template-hash"] = fmt.Sprint(rng.IntN(1000))
			got := x.candidates(p, nil)
			seen := map[int32]bool{}
			for _, id := range got {
				if seen[id] {
					t.Fatalf("seed %d: pod %v: matcher %d twice in %v", seed, p.Labels, id, got)
				}
				seen[id] = true
			}
			for id := range ms {
				if ms[id].match(p) {
					matched++
					if !seen[int32(id)] {
						t.Fatalf("seed %d: pod %s %v matches matcher %d (%v in %+v), not among the candidates %v",
							seed, p.Namespace, p.Labels, id, ms[id].ls.MatchLabels, ms[id].ns, got)
					}
				}
			}
			checked++
		}
	}
	if all == 0 || matched < 1000 || sets < 10 || sets == 40 {
		t.Fatalf("%d pods checked, %d matches, %d all-namespace matchers, %d key sets: the test no longer exercises them", checked, matched, all, sets)
	}
}
