package solver

import (
	"math"
	"slices"

	"github.com/kplace/kplace/index"
	"k8s.io/apimachinery/pkg/labels"
)

// The counters: per-domain counts of the pods matching a term or a
// constraint, with their arrays and the spread minimum (see podrel.go).

// nsSet is a namespace set: every namespace, or the names listed (sorted).
type nsSet struct {
	all   bool
	names []string
}

func (s *nsSet) has(ns string) bool { return s.all || slices.Contains(s.names, ns) }

// matcher selects pods by namespace and labels; sel nil matches nothing.
type matcher struct {
	ns  nsSet
	sel labels.Selector
	ls  *index.LabelSelector
}

func (m *matcher) match(p *index.Pod) bool {
	return m.sel != nil && m.ns.has(p.Namespace) && m.sel.Matches(labels.Set(p.Labels))
}

// counter counts matching pods per domain of one topology key.
type counter struct {
	kind uint8
	topo *index.Topology
	// match: the pod must match every matcher (one, except for kAffinity).
	match []matcher
	// elig: the nodes whose pods count (no words: every node with the
	// key).
	elig   eligSet
	counts countArr
	total  int64
	// Spread counters track the minimum over their eligible domains.
	track   bool
	domains int32   // eligible domains
	hist    []int32 // hist[k]: eligible domains holding k pods
	min     int32
	eligDom []bool // shared by counters of equal topology and eligKey
	eligKey string // names elig
	// relax counts changes that may let a node rejected by this counter
	// pass now; each is also counted in *watch when a class left
	// unschedulable reads the counter (see reclaim.go).
	relax uint32
	watch *uint64
	// weight: a kCarry counter's sign, +1 (affinity) or -1 (preferred
	// anti-affinity); its counts are sums of weights.
	weight int64
	// counts starts as the pool's shared zeros and becomes the counter's
	// own (owned) at its first change; a dead counter is read by no class
	// any more: it gives its array back and ignores changes.
	pool        *countPool
	owned, dead bool
	// nz lists the domains whose count left 0, in order (some may be back
	// at 0, some listed twice), so that the few nonzero counts of an array
	// of one count per node are found and cleared without a scan; past
	// maxNonzero entries the list is dropped (nzLost) and scans take over.
	nz     []int32
	nzLost bool
}

// maxNonzero bounds a counter's nonzero list: past it (or past a quarter
// of its domains), finding the nonzero counts by a scan costs less.
const maxNonzero = 1 << 16

// Count arrays are cut in pages of countPage counts.
const (
	countShift = 8
	countPage  = 1 << countShift
)

// countPg is one page of a count array.
type countPg = [countPage]int32

// countArr holds a counter's counts, one per domain, in pages: a page whose
// counts never left 0 is the pool's shared page of zeros. A per-node
// (hostname) counter holds one count per node, and the pods it counts
// mostly sit on a few of 100,000 nodes: a dense array would take 400 KB,
// where the pages of the nodes holding its pods take a few KB.
type countArr struct {
	pages []*countPg
	n     int32 // domains
}

// at returns the count of domain d (0 <= d < n).
func (a *countArr) at(d int32) int32 { return a.pages[d>>countShift][d&(countPage-1)] }

// countPool lends count arrays. A per-node counter (hostname) holds one
// int32 per node: made for every class up front, they cost more than
// placing the class's pods at 100,000 nodes. Counters start on a shared
// array of zero pages, take their own table of pages when first changed,
// and their own page when they first change a count in it; they give both
// back (cleared) when the last class reading them is done.
type countPool struct {
	zeroPg *countPg
	zeros  map[int32][]*countPg // shared tables of zero pages, by domains
	tables map[int32][][]*countPg
	pages  []*countPg // free pages, all zero
	made   int        // tables made by take
}

// zero returns the shared all-zero array of n domains (never written).
func (p *countPool) zero(n int) countArr {
	if p.zeros == nil {
		p.zeroPg, p.zeros, p.tables = new(countPg), map[int32][]*countPg{}, map[int32][][]*countPg{}
	}
	z, ok := p.zeros[int32(n)]
	if !ok {
		z = p.table(n)
		p.zeros[int32(n)] = z
	}
	return countArr{pages: z, n: int32(n)}
}

// table makes a table of n domains' pages, every one the zero page.
func (p *countPool) table(n int) []*countPg {
	t := make([]*countPg, (n+countPage-1)/countPage)
	for i := range t {
		t[i] = p.zeroPg
	}
	return t
}

// take lends an all-zero array of n domains (its pages the zero page).
func (p *countPool) take(n int32) countArr {
	if f := p.tables[n]; len(f) > 0 {
		t := f[len(f)-1]
		p.tables[n] = f[:len(f)-1]
		return countArr{pages: t, n: n}
	}
	p.made++
	return countArr{pages: p.table(int(n)), n: n}
}

// page returns a page to write domain d's count in: a's own, or a
// fresh all-zero one put in place of the zero page.
func (p *countPool) page(a *countArr, d int32) *countPg {
	pg := a.pages[d>>countShift]
	if pg == p.zeroPg {
		if k := len(p.pages); k > 0 {
			pg = p.pages[k-1]
			p.pages = p.pages[:k-1]
		} else {
			pg = new(countPg)
		}
		a.pages[d>>countShift] = pg
	}
	return pg
}

// give takes back an array lent by take; nz lists every domain whose
// count may be nonzero unless lost (see counter.nz).
func (p *countPool) give(a countArr, nz []int32, lost bool) {
	if !lost {
		for _, d := range nz {
			a.pages[d>>countShift][d&(countPage-1)] = 0
		}
	}
	for i, pg := range a.pages {
		if pg != p.zeroPg {
			if lost {
				clear(pg[:])
			}
			p.pages = append(p.pages, pg)
			a.pages[i] = p.zeroPg
		}
	}
	p.tables[a.n] = append(p.tables[a.n], a.pages)
}

// kill marks a counter no class reads any more (see countPool).
func (k *counter) kill() {
	if k.dead {
		return
	}
	if k.owned {
		k.pool.give(k.counts, k.nz, k.nzLost)
		k.counts, k.owned = k.pool.zero(int(k.counts.n)), false
		k.nz, k.nzLost = k.nz[:0], false
	}
	k.dead = true
}

func (k *counter) eligible(n index.NodeID) bool {
	return k.elig.words == nil || k.elig.has(n)
}

// apply adds delta pods on node n: +1 or -1 (a carry counter: plus or
// minus a carrier's weight).
func (k *counter) apply(n index.NodeID, delta int32) {
	if k.move(n, delta) {
		k.relax++
		if k.watch != nil {
			*k.watch++
		}
	}
}

// move adds delta (+1 or -1) pods on node n and reports whether a node
// this counter rejected may pass now; apply counts that in relax, a
// preemption dry run does not (it restores the counts before it ends).
func (k *counter) move(n index.NodeID, delta int32) bool {
	d := k.topo.Of[n]
	if d < 0 || k.dead || !k.eligible(n) {
		return false
	}
	if !k.owned {
		k.counts, k.owned = k.pool.take(k.counts.n), true
	}
	pg := k.pool.page(&k.counts, d)
	old := pg[d&(countPage-1)]
	now := old + delta
	pg[d&(countPage-1)] = now
	k.total += int64(delta)
	if old == 0 && !k.nzLost {
		if len(k.nz) < maxNonzero && len(k.nz) < int(k.counts.n)/4+64 {
			k.nz = append(k.nz, d)
		} else {
			k.nz, k.nzLost = nil, true
		}
	}
	switch k.kind {
	case kSpread:
		relaxed := delta < 0
		if k.track {
			for int(now) >= len(k.hist) {
				k.hist = append(k.hist, 0)
			}
			k.hist[old]--
			k.hist[now]++
			if delta > 0 && old == k.min && k.hist[old] == 0 {
				k.min = now
				relaxed = true
			}
			if delta < 0 {
				k.min = min(k.min, now)
			}
		}
		return relaxed
	case kAffinity:
		return (delta > 0 && old == 0) || (delta < 0 && k.total == 0)
	}
	return delta < 0 && now == 0
}

// eligDoms is which domains of a topology hold an eligible node, and how
// many; shared (read-only) by the counters of equal topology and eligKey.
type eligDoms struct {
	dom []bool
	n   int32
}

// readyMin makes a spread counter's histogram and minimum over its
// eligible domains from its counts.
func (k *counter) readyMin(shared map[string]eligDoms) {
	key := k.topo.Key + "\x00" + k.eligKey
	if e, ok := shared[key]; ok {
		k.eligDom, k.domains = e.dom, e.n
	} else {
		k.domains = 0
		k.eligDom = make([]bool, k.counts.n)
		for n, d := range k.topo.Of {
			if d >= 0 && k.eligible(index.NodeID(n)) && !k.eligDom[d] {
				k.eligDom[d] = true
				k.domains++
			}
		}
		if shared != nil {
			shared[key] = eligDoms{k.eligDom, k.domains}
		}
	}
	k.hist = k.hist[:0]
	if k.total == 0 { // no pod counted: every eligible domain at 0
		k.hist, k.min = append(k.hist, k.domains), 0
		return
	}
	k.min = math.MaxInt32
	for d, e := range k.eligDom {
		if !e {
			continue
		}
		v := k.counts.at(int32(d))
		for int(v) >= len(k.hist) {
			k.hist = append(k.hist, 0)
		}
		k.hist[v]++
		k.min = min(k.min, v)
	}
	if k.domains == 0 {
		k.min = 0
	}
}

// domainCount is the number of domains of t (one per node for perNode).
func domainCount(t *index.Topology) int {
	if t.Key == "" {
		return len(t.Of)
	}
	return len(t.Values)
}
