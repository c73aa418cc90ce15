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
	// in marks the counted pods (on the node they are bound to).
	in []bool
	// podsOf lists, per budget, the pods matching it that were bound when
	// the state was made (until the budget is exhausted); maxOn is, per
	// budget, the most of them bound on one node then.
	podsOf [][]index.PodID
	maxOn  []int32

	// gen numbers, per node, the budget changes that may change a dry run
	// there; changed logs those nodes, in order (see budgetsShrink).
	gen     []uint32
	changed []index.NodeID
	// scratch for budgetsShrink
	cnt  []int32
	seen []index.NodeID
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
	// podsOf in one array: counted, then filled, from the budgets makeEnts
	// kept (in pod order) or else from every bound pod's entry.
	sv := &sureViol{}
	count := make([]int32, len(pd.allowed))
	var parts [][]podBudget
	if pr.ents == nil {
		s.makeEnts(!s.cfg.sw.noEntBudgets)
		parts, pr.entBudgets = pr.entBudgets, nil
	}
	if parts != nil {
		for _, part := range parts {
			for _, pb := range part {
				count[pb.budget]++
			}
		}
		sv.podsOf = flatLists(count)
		for _, part := range parts {
			for _, pb := range part {
				sv.podsOf[pb.budget] = append(sv.podsOf[pb.budget], pb.pod)
			}
		}
	} else {
		for q := range c.Pods {
			if c.PodNode[q] != index.NoNode {
				for _, k := range s.podBudgets(index.PodID(q)) {
					count[k]++
				}
			}
		}
		sv.podsOf = flatLists(count)
		for q := range c.Pods {
			if c.PodNode[q] != index.NoNode {
				for _, k := range s.podBudgets(index.PodID(q)) {
					sv.podsOf[k] = append(sv.podsOf[k], index.PodID(q))
				}
			}
		}
	}
	sv.gen = make([]uint32, c.NumNodes())
	sv.cnt = make([]int32, c.NumNodes())
	sv.maxOn = make([]int32, len(pd.allowed))
	for k, pods := range sv.podsOf {
		sv.maxOn[k] = sv.perNode(c, pods, nil)
	}
	pr.sure = sv
	for k, a := range pd.allowed {
		if a <= 0 {
			s.exhausted(int32(k))
		}
	}
}

// flatLists returns empty lists with room for count[k] entries each, in
// one array.
func flatLists(count []int32) [][]index.PodID {
	var total int32
	for _, n := range count {
		total += n
	}
	flat := make([]index.PodID, total)
	lists := make([][]index.PodID, len(count))
	off := int32(0)
	for k, n := range count {
		lists[k] = flat[off : off : off+n]
		off += n
	}
	return lists
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
	}
	for _, q := range sv.podsOf[k] {
		n := c.PodNode[q]
		if n == index.NoNode || sv.in[q] {
			continue
		}
		sv.in[q] = true
		s.sureAdd(q, index.NodeID(n), 1)
	}
	// Not needed any more: the budget has nothing left to lose that
	// changes a dry run (see budgetsShrink).
	sv.podsOf[k] = nil
}

// sureGone takes pod v, evicted from node n, out of the sums.
func (s *Solver) sureGone(v index.PodID, n index.NodeID) {
	sv := s.pre.sure
	if sv == nil || sv.in == nil || !sv.in[v] {
		return
	}
	sv.in[v] = false
	s.sureAdd(v, n, -1)
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

// perNode counts the bound pods of pods per node, calls visit (when not
// nil) with each node holding some and their count, and returns the most
// on one node.
func (sv *sureViol) perNode(c *index.Cluster, pods []index.PodID, visit func(n index.NodeID, count int32)) int32 {
	seen := sv.seen[:0]
	for _, q := range pods {
		if n := c.PodNode[q]; n != index.NoNode {
			if sv.cnt[n] == 0 {
				seen = append(seen, index.NodeID(n))
			}
			sv.cnt[n]++
		}
	}
	var most int32
	for _, n := range seen {
		most = max(most, sv.cnt[n])
		if visit != nil {
			visit(n, sv.cnt[n])
		}
		sv.cnt[n] = 0
	}
	sv.seen = seen
	return most
}

// budgetsShrink records, before victim v's eviction takes one disruption
// from each budget it matches, the nodes where that may change a dry run:
// a node's evaluation depends on budget k only through how many of its m
// pods under k may still go (the first allowed of them, in importance
// order), so going from a to a-1 matters where 1 <= a <= m. Their budget
// generation moves on; the classes evaluate them again (syncCandidates).
// Pods of the batch are never victims (a later preemptor's priority is
// not above theirs): the pods the budget's list holds, those bound before
// the batch, are all that matter.
func (s *Solver) budgetsShrink(budgets []int32) {
	sv := s.pre.sure
	if sv == nil || sv.gen == nil {
		return
	}
	pd := s.pdb
	c := s.c
	for _, k := range budgets {
		a := pd.allowed[k]
		if a < 1 || a > sv.maxOn[k] {
			continue
		}
		sv.perNode(c, sv.podsOf[k], func(n index.NodeID, count int32) {
			if count >= a {
				sv.gen[n]++
				sv.changed = append(sv.changed, n)
			}
		})
	}
}

// pgenOf returns node n's budget generation (0 without budgets).
func (s *Solver) pgenOf(n index.NodeID) uint32 {
	if sv := s.pre.sure; sv != nil && sv.gen != nil {
		return sv.gen[n]
	}
	return 0
}

// budgetChanges returns the length of the budget change log.
func (s *Solver) budgetChanges() int {
	if sv := s.pre.sure; sv != nil {
		return len(sv.changed)
	}
	return 0
}
