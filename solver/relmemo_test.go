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

// shareLike makes pods with equal labels share one map, and pods with
// equal own constraints or affinity terms share one slice, as ingest
// shares equal maps and a workload's pods share their template's terms.
func shareLike(pods []index.Pod) {
	maps := map[string]map[string]string{}
	spreads := map[string][]index.SpreadConstraint{}
	terms := map[string][]index.PodAffinityTerm{}
	weighted := map[string][]index.WeightedPodAffinityTerm{}
	for i := range pods {
		p := &pods[i]
		if k := fmt.Sprint(p.Labels); maps[k] == nil {
			maps[k] = p.Labels
		} else {
			p.Labels = maps[k]
		}
		share := func(s []index.PodAffinityTerm) []index.PodAffinityTerm {
			k := fmt.Sprintf("%#v", s)
			if t, ok := terms[k]; ok {
				return t
			}
			terms[k] = s
			return s
		}
		p.Affinity, p.AntiAffinity = share(p.Affinity), share(p.AntiAffinity)
		for _, w := range []*[]index.WeightedPodAffinityTerm{&p.PreferredAffinity, &p.PreferredAntiAffinity} {
			k := fmt.Sprintf("%#v", *w)
			if t, ok := weighted[k]; ok {
				*w = t
			} else {
				weighted[k] = *w
			}
		}
		k := fmt.Sprintf("%#v", p.Spread)
		if t, ok := spreads[k]; ok {
			p.Spread = t
		} else {
			spreads[k] = p.Spread
		}
	}
}

// TestRelMemoMatchesEncoding checks distinctKeys' memo of the pod-relative
// encoding against encoding every pod: each pending pod gets the same key,
// on random clusters with pod affinity, own and default constraints,
// Services and ReplicaSets, with maps and slices shared as ingest shares
// them (the memo's hits) and, in half, pods of one workload whose labels
// differ or that another owner holds (its misses).
func TestRelMemoMatchesEncoding(t *testing.T) {
	hits := 0
	for seed := range uint64(40) {
		var in *index.Input
		if seed%2 == 0 {
			in = defaultSpreadInput(seed, seed%4 == 0)
		} else {
			nodes, pods := randomRelCluster(rand.New(rand.NewPCG(seed, 7)))
			in = &index.Input{Nodes: nodes, Pods: pods}
		}
		shareLike(in.Pods)
		r := rand.New(rand.NewPCG(seed, 9))
		for i := range in.Pods {
			p := &in.Pods[i]
			switch r.IntN(12) {
			case 0: // same labels, another map: a miss that must encode alike
				p.Labels = maps.Clone(p.Labels)
			case 1: // another pod's owner, same labels
				p.Owner = in.Pods[r.IntN(len(in.Pods))].Owner
			}
		}
		c, err := index.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Seed: seed, DefaultSpread: BuiltinDefaultSpread(), SystemDefaultSpread: true}
		s := newSolver(c, cfg)
		s.rel = newRelState(c, &s.cfg)
		if s.rel == nil {
			t.Fatalf("seed %d: no pod-relative state", seed)
		}
		queue := Queue(c)
		memo := s.distinctKeys(queue, 0)
		s.cfg.sw.noRelMemo = true
		full := s.distinctKeys(queue, 0)
		// Pod by pod: the bytes written and the counters returned.
		em, ef := keyEncoder{rels: map[relMemoKey]relMemo{}}, keyEncoder{}
		for _, pid := range queue {
			p := &c.Pods[pid]
			em.buf, ef.buf = em.buf[:0], ef.buf[:0]
			im, iff := s.rel.encodeRel(&em, p, nil), s.rel.encodeRel(&ef, p, nil)
			if !bytes.Equal(em.buf, ef.buf) || !slices.Equal(im, iff) {
				t.Fatalf("seed %d: pod %s: %x %v with the memo, %x %v without", seed, p.Name, em.buf, im, ef.buf, iff)
			}
		}
		seen := map[relMemoKey]bool{}
		for j, pid := range queue {
			km, kf := memo.keyOf[j], full.keyOf[j]
			if (km < 0) != (kf < 0) {
				t.Fatalf("seed %d: pod %s keyed %d with the memo, %d without", seed, c.Pods[pid].Name, km, kf)
			}
			if km < 0 {
				continue
			}
			a, b := memo.keys[km], full.keys[kf]
			if !bytes.Equal(memo.buf[a.begin:a.end], full.buf[b.begin:b.end]) || a.static != b.static {
				t.Fatalf("seed %d: pod %s: key %x (static %d) with the memo, %x (static %d) without", seed, c.Pods[pid].Name,
					memo.buf[a.begin:a.end], a.static, full.buf[b.begin:b.end], b.static)
			}
			if k := relMemoKeyOf(&c.Pods[pid]); seen[k] {
				hits++
			} else {
				seen[k] = true
			}
		}
		if !slices.Equal(memo.keyOf, full.keyOf) {
			t.Fatalf("seed %d: key ids differ", seed)
		}
	}
	if hits == 0 {
		t.Fatal("no pod found the memo filled: the test does not reach it")
	}
}
