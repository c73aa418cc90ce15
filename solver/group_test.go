package solver

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestNamedWindowMatchesFullInit sets groups up for pods whose required
// node affinity names nodes (matchFields metadata.name In, as DaemonSet
// pods have), over the named nodes' words and over the whole cluster:
// the feasible set, every filter's rejection count and the score tops
// must be equal. Nodes are cordoned, tainted (NoSchedule, NoExecute,
// PreferNoSchedule) and labelled at random; pods tolerate some taints,
// add node selectors and label expressions, and name one to three nodes
// (some unknown) in one or two terms.
func TestNamedWindowMatchesFullInit(t *testing.T) {
	t.Parallel()
	windows := 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 31))
		var nodes []index.Node
		for i := range 1 + r.IntN(300) {
			b := makeNode(fmt.Sprintf("n%d", i))
			if r.IntN(5) == 0 {
				b.unschedulable()
			}
			switch r.IntN(6) {
			case 0:
				b.taint("dedicated", "gpu", index.EffectNoSchedule)
			case 1:
				b.taint("node.kubernetes.io/not-ready", "", index.EffectNoExecute)
			case 2:
				b.taint("spot", "", index.EffectPreferNoSchedule)
			case 3:
				b.taint("spot", "", index.EffectPreferNoSchedule).taint("old", "", index.EffectPreferNoSchedule)
			}
			if r.IntN(2) == 0 {
				b.label("os", []string{"linux", "windows"}[r.IntN(2)])
			}
			nodes = append(nodes, b.obj())
		}
		c := cluster(t, nodes, nil)
		name := func() string { return fmt.Sprintf("n%d", r.IntN(len(nodes)+2)) } // n<len+1> is unknown
		for range 5 {
			b := makePod("ds")
			if r.IntN(2) == 0 {
				b.tol("dedicated", "Equal", "gpu", "")
			}
			if r.IntN(2) == 0 {
				b.tol("", "Exists", "", index.EffectNoExecute)
			}
			if r.IntN(3) == 0 {
				b.tol("node.kubernetes.io/unschedulable", "Exists", "", index.EffectNoSchedule)
			}
			if r.IntN(3) == 0 {
				b.selector("os", "linux")
			}
			var exprs []index.Requirement
			if r.IntN(3) == 0 {
				exprs = append(exprs, req("os", "NotIn", "windows"))
			}
			for range 1 + r.IntN(2) {
				fields := []index.Requirement{req(fieldNodeName, "In", name())}
				if r.IntN(4) == 0 {
					fields = append(fields, req(fieldNodeName, "In", name()))
				}
				b.p.RequiredTerms = append(b.p.RequiredTerms, index.NodeSelectorTerm{MatchExpressions: exprs, MatchFields: fields})
			}
			b.p.HasRequired = true
			if r.IntN(3) == 0 {
				b.preferred(int32(1+r.IntN(9)), req("os", "In", "linux"))
			}
			p := b.obj()
			var win, full group
			win.initNamed(c, &p, newMemo(), &keyEncoder{}, maxNamedWindow)
			full.initNamed(c, &p, newMemo(), &keyEncoder{}, 0)
			if len(win.dense) != len(full.dense) || !slices.Equal(win.dense, full.dense) || win.feasCard != full.feasCard ||
				win.nAbsent != full.nAbsent || win.nUnsched != full.nUnsched || win.nTaint != full.nTaint || win.nAffinity != full.nAffinity ||
				win.conflict != full.conflict || win.ttTop != full.ttTop || win.naTop != full.naTop {
				t.Fatalf("seed %d, pod %+v:\nwindow %v feas %d absent %d unsched %d taint %d affinity %d conflict %v tops %d %d\nfull   %v feas %d absent %d unsched %d taint %d affinity %d conflict %v tops %d %d",
					seed, p.RequiredTerms, win.nodes(), win.feasCard, win.nAbsent, win.nUnsched, win.nTaint, win.nAffinity, win.conflict, win.ttTop, win.naTop,
					full.nodes(), full.feasCard, full.nAbsent, full.nUnsched, full.nTaint, full.nAffinity, full.conflict, full.ttTop, full.naTop)
			}
			if win.feasCard > 0 {
				windows++
			}
		}
	}
	if windows < 100 {
		t.Fatalf("only %d groups with a feasible node: the test hardly compares anything", windows)
	}
}

// TestCountArrayGivenBackClear moves pods in and out of a per-node counter
// at random, dry-run style, then kills it: the pages it gives back, cleared
// through its nonzero list (or whole when the list overflowed), must be all
// zeros, its table must point at the shared page of zeros only, that page
// must be untouched, and the nonzero list must have named every node left
// nonzero.
func TestCountArrayGivenBackClear(t *testing.T) {
	t.Parallel()
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 3))
		nodes := 64 + r.IntN(2000)
		topo := &index.Topology{Of: make([]int32, nodes)}
		for i := range topo.Of {
			topo.Of[i] = int32(i)
		}
		pool := &countPool{}
		k := &counter{kind: kSpread, topo: topo, pool: pool, counts: pool.zero(nodes)}
		on := make([]int32, nodes)
		for range r.IntN(4 * nodes) {
			n := index.NodeID(r.IntN(nodes))
			if on[n] > 0 && r.IntN(2) == 0 {
				k.move(n, -1)
				on[n]--
			} else {
				k.move(n, 1)
				on[n]++
			}
		}
		if !k.nzLost {
			for n, v := range on {
				if v != 0 && !slices.Contains(k.nz, int32(n)) {
					t.Fatalf("seed %d: node %d holds %d, not in the nonzero list", seed, n, v)
				}
			}
		}
		owned := 0
		for _, pg := range k.counts.pages {
			if pg != pool.zeroPg {
				owned++
			}
		}
		k.kill()
		if len(pool.pages) != owned {
			t.Fatalf("seed %d: %d pages given back; want the %d written", seed, len(pool.pages), owned)
		}
		for _, pg := range pool.pages {
			if i := slices.IndexFunc(pg[:], func(v int32) bool { return v != 0 }); i >= 0 {
				t.Fatalf("seed %d: a page given back holds %d at %d (list lost %v)", seed, pg[i], i, k.nzLost)
			}
		}
		for _, tb := range pool.tables[int32(nodes)] {
			if slices.ContainsFunc(tb, func(pg *countPg) bool { return pg != pool.zeroPg }) {
				t.Fatalf("seed %d: a table given back holds a written page", seed)
			}
		}
		if *pool.zeroPg != (countPg{}) {
			t.Fatalf("seed %d: the shared page of zeros was written", seed)
		}
	}
}

// TestKeyEncoderMemos: a toleration list or label map written again (the
// same one, as the pods of a workload share) writes the bytes it wrote the
// first time, and any other, equal or (a list) sharing its start but
// longer, is written in full: keys stay what they were without the memos.
func TestKeyEncoderMemos(t *testing.T) {
	t.Parallel()
	tols := []index.Toleration{
		{Key: "dedicated", Operator: index.OpEqual, Value: "gpu", Effect: index.EffectNoSchedule},
		{Key: "spot", Operator: index.OpExists, Effect: index.EffectNoExecute},
	}
	fresh := func(ts []index.Toleration) []byte {
		var e keyEncoder
		e.tolerations(ts)
		return e.buf
	}
	var e keyEncoder
	for i, ts := range [][]index.Toleration{tols[:1], tols[:1], slices.Clone(tols[:1]), tols, tols[:1], nil, tols} {
		e.buf = append(e.buf[:0], 'x')
		e.tolerations(ts)
		if want := append([]byte{'x'}, fresh(ts)...); !bytes.Equal(e.buf, want) {
			t.Fatalf("list %d (%d tolerations): wrote %q, want %q", i, len(ts), e.buf, want)
		}
	}
	// Label maps (node selectors) likewise, by the map itself.
	pool := map[string]string{"pool": "gpu", "zone": "a"}
	other := map[string]string{"pool": "gpu", "zone": "b"}
	freshMap := func(m map[string]string) []byte {
		var e keyEncoder
		e.labelMap(m)
		return e.buf
	}
	for i, m := range []map[string]string{pool, pool, other, maps.Clone(pool), pool, nil, {}, pool} {
		e.buf = append(e.buf[:0], 'x')
		e.labelMap(m)
		if want := append([]byte{'x'}, freshMap(m)...); !bytes.Equal(e.buf, want) {
			t.Fatalf("map %d (%v): wrote %q, want %q", i, m, e.buf, want)
		}
	}
}
