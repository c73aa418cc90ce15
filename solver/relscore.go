package solver

import (
	"math"
	"math/bits"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Scoring with pod-relative terms: every fitting node of the class per pod
// (see podrel.go).

// placeScored places a pod of a scoring class: every feasible node that
// fits and passes the pod-relative filters is scored in full, the
// pod-relative scores normalised over them, as one scheduling cycle does.
// The solver does this on buckets (placeBuckets); the scan below runs with
// Config.oneHeap, as the reference the buckets are tested against.
func (s *Solver) placeScored(cl *class, pid index.PodID) (index.NodeID, int64, bool) {
	rc := cl.rel
	r := s.rel
	if s.useBuckets(cl) {
		if b := cl.buckets; b != nil && !b.lean {
			s.prepareStatic(cl) // the maxima may have moved: syncBuckets compares
		}
		return s.placeBuckets(cl, pid)
	}
	s.prepareStatic(cl)
	cand := s.relCand[:0]
	lo, hi := cl.g.span()
	for wi := lo; wi < hi; wi++ {
		for word := cl.g.dense[wi]; word != 0; word &= word - 1 {
			n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if !s.fits(n, cl) {
				continue
			}
			if f, _ := s.check(rc, n); f != relOK {
				continue
			}
			cand = append(cand, scored{node: n, base: s.score(cl, n)})
		}
	}
	s.relCand = cand
	if len(cand) == 0 {
		return 0, 0, false
	}
	// PodTopologySpread (weight 2).
	if len(rc.soft) > 0 {
		ignored := 0
		if rc.requireAll && rc.softElig != nil {
			for i := range cand {
				if n := cand[i].node; rc.softElig[n>>6]&(1<<(n&63)) == 0 {
					cand[i].ignored = true
					ignored++
				}
			}
		}
		// Each constraint's weight: the log of its domains among the
		// scored nodes (a node lacking the key is one domain, "").
		weights := r.weights[:0]
		for _, h := range rc.soft {
			sz := len(cand) - ignored
			if !h.hostname {
				sz = r.domainsAmong(cand, r.counters[h.ctr].topo)
			}
			weights = append(weights, rules.NormalizingWeight(sz))
		}
		r.weights = weights
		lo, hi := int64(math.MaxInt64), int64(0)
		for i := range cand {
			if cand[i].ignored {
				continue
			}
			n := cand[i].node
			var f float64
			for j, h := range rc.soft {
				k := r.counters[h.ctr]
				var cnt int64
				if h.hostname {
					if !s.hasHostname(n) {
						continue
					}
					cnt = int64(k.counts.at(int32(n)))
				} else {
					d := k.topo.Of[n]
					if d < 0 {
						continue
					}
					cnt = int64(k.counts.at(d))
				}
				f += rules.ScoreForCount(int64(cnt), h.maxSkew, weights[j])
			}
			v := rules.RoundSpread(f)
			cand[i].spread = v
			lo, hi = min(lo, v), max(hi, v)
		}
		for i := range cand {
			cand[i].base += rules.SpreadScore(cand[i].spread, lo, hi, cand[i].ignored)
		}
	}
	// InterPodAffinity (weight 2): the pod's preferred terms and the
	// existing pods' terms that match it; a term whose counter is empty
	// adds nothing anywhere.
	active := r.active[:0]
	for _, pr := range rc.pref {
		if r.counters[pr.ctr].total != 0 {
			active = append(active, pr)
		}
	}
	r.active = active
	if len(active) > 0 {
		s.affinityScores(active, cand)
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for i := range cand {
			lo, hi = min(lo, cand[i].spread), max(hi, cand[i].spread)
		}
		for i := range cand {
			cand[i].base += rules.PodAffinityScore(cand[i].spread, lo, hi)
		}
	}
	best := -1
	var be entry
	for i := range cand {
		e := entry{score: cand[i].base, tie: s.hot[cand[i].node].tie, node: cand[i].node}
		if best < 0 || better(&e, &be) {
			best, be = i, e
		}
	}
	s.bindPod(pid, be.node, &cl.demand)
	return be.node, be.score, true
}

// domainsAmong counts the domains of topo (-1, a node without the key,
// being one) among the candidates not ignored.
func (r *relState) domainsAmong(cand []scored, topo *index.Topology) int {
	r.newEpoch(topo)
	sz := 0
	for i := range cand {
		if cand[i].ignored {
			continue
		}
		if d := topo.Of[cand[i].node] + 1; r.stamp[d] != r.epoch {
			r.stamp[d] = r.epoch
			sz++
		}
	}
	return sz
}

// newEpoch readies r.stamp to mark topo's domains (+1, so that -1, a node
// without the key, is one) with a fresh r.epoch.
func (r *relState) newEpoch(topo *index.Topology) {
	if need := domainCount(topo) + 1; len(r.stamp) < need {
		r.stamp = make([]uint32, need)
	}
	r.epoch++
	if r.epoch == 0 { // wrapped: no stamp may look current
		clear(r.stamp)
		r.epoch = 1
	}
}

// affinityScores sets each candidate's spread field to its InterPodAffinity
// score before normalisation: each scoring term's weight times the pods it
// counts in the node's domain of the term's key. One term at a time, over
// every candidate.
func (s *Solver) affinityScores(pref []prefRef, cand []scored) {
	for i := range cand {
		cand[i].spread = 0
	}
	for _, pr := range pref {
		k := s.rel.counters[pr.ctr]
		of, counts, w := k.topo.Of, k.counts, pr.weight
		for i := range cand {
			if d := of[cand[i].node]; d >= 0 {
				cand[i].spread += w * int64(counts.at(d))
			}
		}
	}
}

// scored is a candidate node of a scoring class.
type scored struct {
	node    index.NodeID
	base    int64
	spread  int64
	ignored bool
}

// hasHostname reports whether node n carries the hostname label (a bitset
// made on first use).
func (s *Solver) hasHostname(n index.NodeID) bool {
	return s.hostnameNodes()[n>>6]&(1<<(n&63)) != 0
}

// hostnameNodes returns the bitset of the nodes carrying the hostname
// label, made on first use.
func (s *Solver) hostnameNodes() []uint64 {
	if s.hostnames == nil {
		s.hostnames = s.keysNodes([]string{labelHostname})
	}
	return s.hostnames
}
