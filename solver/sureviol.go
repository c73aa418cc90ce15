package solver

import (
	"sort"

	"github.com/kplace/kplace/index"
)

// Sure violations. kube-scheduler reprieves a node's PDB-violating victims
// first, so a pod whose every eviction violates a budget (one it matches
// has no disruption left) stays on the node when it can and other pods go
// instead: the dry run then finds a higher victim priority, or more
// victims, than a bound that lets any lower-priority pod go. On a cluster
// where budgets run out during the batch, most nodes popped on such a
// bound were dry runs for nothing. The solver therefore keeps, per node
// and threshold, the requests of the bound pods matching an exhausted
// budget, and the bounds (nodeBound, blockFloor) take those pods as kept.
//
// Why the bound holds: a node's dry run either evicts some violating pod
// (then it is worse than any bound without violations, and the bound says
// at least one only when the node has no room with those pods kept), or
// reprieves them all, and then its victims are among the other pods below
// the threshold after its highest victim priority: removing all of those
// makes room too. The sums may leave out pods (those bound after they were
// made) but never count a pod that is not bound on that node: a smaller sum
// only loosens the bound.
type sureViol struct {
	// sums[k*nres+r][n]: what the counted pods of priority below
	// index.Cluster.LowPrio[k] request of column r on node n (index.ResPods:
	// how many), as index.Cluster.Low.
	sums [][]int64
	// in marks the counted pods, with the node they were counted on.
	in   []bool
	node []index.NodeID
	// podsOf lists, per budget, the pods matching it that were bound when
	// the state was made.
	podsOf [][]index.PodID
}

// initSure makes the sure-violation state on the batch's first preemption,
// when the input has budgets: every bound pod's budgets are read once (the
// victim-list entries, see entOf), and the pods of the budgets already
// exhausted are counted.
func (s *Solver) initSure() {
	pr := &s.pre
	pr.sureInit = true
	pd := s.pdbs()
	c := s.c
	if pd == nil || len(c.LowPrio) == 0 {
		return
	}
	// podsOf in one array: counted, then filled.
	sv := &sureViol{podsOf: make([][]index.PodID, len(pd.allowed))}
	count := make([]int32, len(pd.allowed)+1)
	for pass := 0; pass < 2; pass++ {
		for q := range c.Pods {
			if c.PodNode[q] == index.NoNode {
				continue
			}
			e := s.entOf(index.PodID(q))
			if e.npdb == 0 {
				continue
			}
			for _, k := range e.budgets(s) {
				if pass == 0 {
					count[k]++
				} else {
					sv.podsOf[k] = append(sv.podsOf[k], index.PodID(q))
				}
			}
		}
		if pass == 0 {
			var total int32
			for _, n := range count {
				total += n
			}
			flat := make([]index.PodID, total)
			off := int32(0)
			for k := range sv.podsOf {
				sv.podsOf[k] = flat[off : off : off+count[k]]
				off += count[k]
			}
		}
	}
	pr.sure = sv
	for k, a := range pd.allowed {
		if a <= 0 {
			s.exhausted(int32(k))
		}
	}
}

// exhausted counts the bound pods of budget k, which has no disruption
// left: evicting any of them violates it from now on (budgets only shrink
// during a batch).
func (s *Solver) exhausted(k int32) {
	sv := s.pre.sure
	if sv == nil {
		return
	}
	c := s.c
	nres := len(c.ResNames)
	if sv.sums == nil {
		sv.sums = make([][]int64, len(c.LowPrio)*nres)
		for i := range sv.sums {
			sv.sums[i] = make([]int64, c.NumNodes())
		}
		sv.in = make([]bool, len(c.Pods))
		sv.node = make([]index.NodeID, len(c.Pods))
	}
	for _, q := range sv.podsOf[k] {
		n := c.PodNode[q]
		if n == index.NoNode || sv.in[q] {
			continue
		}
		sv.in[q], sv.node[q] = true, index.NodeID(n)
		s.sureAdd(q, index.NodeID(n), 1)
	}
	sv.podsOf[k] = nil // counted, or gone: a pod evicted since is not bound again under this budget's count
}

// sureGone takes evicted pod v out of the sums.
func (s *Solver) sureGone(v index.PodID) {
	sv := s.pre.sure
	if sv == nil || sv.in == nil || !sv.in[v] {
		return
	}
	sv.in[v] = false
	s.sureAdd(v, sv.node[v], -1)
}

// sureAdd adds (sign 1) or removes (-1) pod q's requests on node n to the
// sums of every threshold above its priority.
func (s *Solver) sureAdd(q index.PodID, n index.NodeID, sign int64) {
	c := s.c
	nres := len(c.ResNames)
	prio := c.Pods[q].Priority
	from := sort.Search(len(c.LowPrio), func(j int) bool { return c.LowPrio[j] > prio })
	req := s.podReq(q)
	sums := s.pre.sure.sums
	for j := from; j < len(c.LowPrio); j++ {
		col := sums[j*nres:]
		col[index.ResPods][n] += sign
		for _, rv := range req {
			col[rv.Res][n] += sign * rv.Val
		}
	}
}

// sureSums returns the sums of threshold k (nil when none is counted).
func (s *Solver) sureSums(k int) [][]int64 {
	sv := s.pre.sure
	if sv == nil || sv.sums == nil {
		return nil
	}
	nres := len(s.c.ResNames)
	return sv.sums[k*nres : (k+1)*nres]
}
