package solver

import (
	"math/bits"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Templates: builds shared by twin classes.
//
// Deployments that differ only in their labels make classes that differ
// only in their pod-relative part: same feasible nodes, same requests, so
// the same score on every node. Each such class would scan every feasible
// node on its first turn, which makes the per-pod cost grow with the
// cluster when deployments are small. Instead, the second class of a twin
// key makes a template: every feasible node that fits, scored, in a heap
// (one per domain for a split class), before any pod-relative filter, kept
// on the group. A twin's build then replays the node changes since the
// template last saw them (pushing the changed nodes' new entries, as sync
// does) and pops the template's best entries through its pod-relative
// filters until it holds as many as a scan would have kept; the live
// entries go back, the stale ones are dropped. The template's next best
// entry becomes the twin's cut. So a build costs the entries it takes and
// the changes since the last twin, not the cluster's size.

// template is the pure (filter-free) entries of every feasible node that
// fits, for one demand of a group and one domain split: a heap per domain,
// or one. Stale entries are dropped as derive meets them.
type template struct {
	cursor       int // Cluster.Changes replayed
	ttMax, naMax int64
	heaps        []nodeHeap
	entries      int
	of           []int32 // node -> heap (the split's domains), nil for one heap
}

// templateBudget caps the entries all templates hold (24 bytes each).
const templateBudget = 16 << 20

// twinKey names what makes two classes of a group score alike: their
// demand and their domain split.
func (s *Solver) twinKey(cl *class) string {
	enc := s.imageEncoder()
	enc.demand(&s.c.Pods[cl.rep])
	if cl.dom != nil {
		enc.str(cl.dom.topo.Key)
	}
	return string(enc.buf)
}

// domKeep is how many entries a split class keeps per domain: a domain
// takes about its share of the class's pods, and a domain that needs more
// is rebuilt alone.
func domKeep(keep, domains int) int {
	return max(4, 2*keep/domains+2)
}

// buildTwin builds cl's heap from its group's template for its twin key,
// made on the second class with that key; false when there is none (the
// caller scans).
func (s *Solver) buildTwin(cl *class, keep int) bool {
	g := cl.g
	key := s.twinKey(cl)
	t, seen := g.tmpl[key]
	if g.tmpl == nil {
		g.tmpl = map[string]*template{}
	}
	if !seen {
		g.tmpl[key] = nil // the first twin scans
		return false
	}
	if t != nil && (t.ttMax != cl.ttMax || t.naMax != cl.naMax || !s.advance(cl, t)) {
		s.tmplEntries -= t.entries
		t = nil
	}
	if t == nil {
		if s.tmplEntries+g.feasCard > templateBudget {
			return false
		}
		t = s.makeTemplate(cl)
		s.templates++
		g.tmpl[key] = t
	}
	s.tmplEntries -= t.entries
	s.twinBuilds++
	s.derive(cl, t, keep)
	s.tmplEntries += t.entries
	return true
}

// makeTemplate scores every feasible node that fits cl, without the
// pod-relative filters.
func (s *Solver) makeTemplate(cl *class) *template {
	t := &template{cursor: len(s.c.Changes), ttMax: cl.ttMax, naMax: cl.naMax}
	t.heaps = []nodeHeap{make(nodeHeap, 0, cl.g.feasCard)}
	if ds := cl.dom; ds != nil {
		t.of = ds.topo.Of
		t.heaps = make([]nodeHeap, len(ds.heaps))
		for d := range t.heaps {
			t.heaps[d] = make(nodeHeap, 0, ds.topo.Size[d])
		}
	}
	gen := s.c.Gen
	for wi, word := range cl.g.dense {
		for ; word != 0; word &= word - 1 {
			n := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			h := 0
			if t.of != nil {
				if h = int(t.of[n]); h < 0 {
					continue
				}
			}
			if s.fits(n, cl) {
				t.heaps[h] = append(t.heaps[h], entry{score: s.score(cl, n), tie: s.hot[n].tie, node: n, gen: gen[n]})
			}
		}
	}
	for _, h := range t.heaps {
		h.init()
		t.entries += len(h)
	}
	return t
}

// advance replays the node changes since t was made or last advanced,
// pushing the changed nodes' new entries; false when starting over is
// cheaper or a normalisation maximum moved.
func (s *Solver) advance(cl *class, t *template) bool {
	c := s.c
	changes := c.Changes[t.cursor:]
	feas := cl.g.feasCard
	if len(changes) > feas || t.entries > 2*feas+1024 {
		return false
	}
	g := cl.g
	for _, ch := range changes {
		n := ch.Node
		if ch.Gen != c.Gen[n] || g.dense[n>>6]&(1<<(n&63)) == 0 {
			continue
		}
		fits := s.fits(n, cl)
		if (g.rawTT != nil || g.rawNA != nil) && s.normalisationChanged(cl, n, fits) {
			return false
		}
		if !fits {
			continue
		}
		h := 0
		if t.of != nil {
			if h = int(t.of[n]); h < 0 {
				continue
			}
		}
		t.heaps[h].push(entry{score: s.score(cl, n), tie: s.hot[n].tie, node: n, gen: ch.Gen})
		t.entries++
	}
	t.cursor = len(c.Changes)
	return true
}

// derive fills cl's heap from t: the best entries that pass the
// pod-relative filters, up to keep, the rejected ones parked. The entries
// are popped from the template and the live ones pushed back; stale ones
// are dropped for good. A split class's domains are left lazy: each takes
// its entries when it first reaches the top (materialize).
func (s *Solver) derive(cl *class, t *template, keep int) {
	rc := cl.rel
	if ds := cl.dom; ds != nil {
		ds.top, ds.aside, ds.entries, ds.tmpl = ds.top[:0], ds.aside[:0], 0, t
		for d := range ds.heaps {
			ds.heaps[d] = ds.heaps[d][:0]
			ds.trunc[d], ds.lazy[d] = false, true
			ds.isAside[d], ds.pos[d] = false, -1
			ds.refresh(int32(d))
		}
		return
	}
	check := func(e entry) (rules.Reason, int) { return relOK, 0 }
	if rc != nil {
		check = func(e entry) (rules.Reason, int) { return s.check(rc, e.node) }
	}
	cl.heap, cl.cut, cl.truncated = s.take(&t.heaps[0], &t.entries, cl.heap[:0], keep, check, rc)
}

// take pops the template heap src until dst holds keep entries that pass
// check (the others parked), pushes the live entries popped back, and
// returns dst with the best entry not taken, if any.
func (s *Solver) take(src *nodeHeap, entries *int, dst nodeHeap, keep int, check func(entry) (rules.Reason, int), rc *relClass) (nodeHeap, entry, bool) {
	gen := s.c.Gen
	popped := s.popped[:0]
	if cap(dst) < keep {
		dst = append(make(nodeHeap, 0, keep), dst...) // grown once, not by doubling
	}
	for len(dst) < keep {
		for len(*src) > 0 && (*src)[0].gen != gen[(*src)[0].node] {
			src.pop()
			*entries--
		}
		if len(*src) == 0 {
			break
		}
		e := (*src)[0]
		src.pop()
		popped = append(popped, e)
		if f, j := check(e); f != relOK {
			rc.park(s, j, e)
			continue
		}
		dst = append(dst, e)
	}
	var rest entry
	more := len(*src) > 0
	if more {
		rest = (*src)[0]
	}
	for _, e := range popped {
		src.push(e)
	}
	s.popped = popped[:0]
	return dst, rest, more
}
