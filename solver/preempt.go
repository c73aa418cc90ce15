package solver

import (
	"math"
	"math/bits"
	"slices"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Preemption, as kube-scheduler's DefaultPreemption does it, for a pod that
// fits nowhere: a node is a candidate when removing every pod of strictly
// lower priority makes the pod fit; on a candidate the victims are found by
// removing them all and adding back ("reprieving") as many as still leave
// room, PDB-violating ones first, each group most important first; the node
// is the best candidate by fewest PDB violations, lowest highest victim
// priority, smallest sum of victim priorities, fewest victims, latest start
// of the highest-priority victims, then lowest node id.
//
// kube-scheduler dry-runs a random sample of nodes. Here each preempting
// class keeps a heap of all its candidate nodes, keyed first by an O(1)
// lower bound of the first four criteria (from the node's lower-priority
// sums) and evaluated in full lazily, in bound order, so those four are
// optimal over every node; among nodes equal on them, evaluated nodes come
// first and the start time decides between them (a build evaluates the
// best sampleSize). Nodes are bounded block by block, only when a block's
// floor could beat the heap's best (blocks.go), which pops in the same
// order as bounding every node up front. Nodes changed since the class's
// last turn (the cluster's change log) are bounded again. PDB budgets only
// shrink during a batch; a popped candidate evaluated under an older budget
// is evaluated again before it is used.

// Failure bits of a node for a preemptor (the dry-run status). Bits from
// maskRes upward name Insufficient resources by column.
const (
	maskNotHelpful uint64 = 1 << iota // not tried: an unresolvable filter failed (see evalNode)
	maskNoVictims                     // no pod of lower priority
	maskPorts                         // host ports still taken after removing them all
	maskTooMany                       // Too many pods, even after removing them all
	maskRel                           // first pod-relative failure bit, after removing them all (relFailMask)
	_
	_
	_
	_
	maskRes // first "Insufficient <resource>" bit
)

const maxMaskRes = 64 - 9 // resource columns a mask can name

// relFailMask is the failure bit of pod-relative filter result f
// (relMissingLabel to relExisting).
func relFailMask(f rules.Reason) uint64 { return maskRel << (f - relMissingLabel) }

// candidate is a node where preemption makes room, with kube-scheduler's
// node-choice criteria.
type candidate struct {
	sum     int64 // sum of victim priorities, each shifted by 2^31
	start   int64 // earliest start of the highest-priority victims (later is better)
	viol    int32 // victims whose PDB is violated
	maxPrio int32 // highest victim priority
	count   int32 // victims
	node    index.NodeID
	gen     uint32 // node generation when evaluated
	pgen    uint32 // the node's budget generation when evaluated (see sureViol.gen)
	// vic is, for an evaluated node of a columnar class, 1 + the offset of
	// its victims (count of them) in preState.vics; 0 when not kept.
	vic int32
	// exact is false for a lower bound on the first four criteria (start
	// unknown), found in O(1) from the node's lower-priority sums.
	exact bool
	// sample marks a bound of a node a build sampled (see sampleSize); its
	// start is then at least the exact one (see startBound).
	sample bool
}

// tied reports whether c takes part in the start-time tie-break: an
// evaluated node, or the bound of a sampled one.
func (c *candidate) tied() bool { return c.exact || c.sample }

// add counts victim e (viol: its eviction violates a budget) into c's
// criteria.
func (c *candidate) add(e *podEnt, viol bool) { c.addVictim(e.prio, e.start, viol) }

// addVictim counts a victim of priority prio and start time start.
func (c *candidate) addVictim(prio int32, start int64, viol bool) {
	if viol {
		c.viol++
	}
	c.sum += int64(prio) + math.MaxInt32 + 1
	switch {
	case prio > c.maxPrio:
		c.maxPrio, c.start = prio, start
	case prio == c.maxPrio:
		c.start = min(c.start, start)
	}
}

// betterCand orders candidates, best first.
func betterCand(a, b *candidate) bool {
	switch {
	case a.viol != b.viol:
		return a.viol < b.viol
	case a.maxPrio != b.maxPrio:
		return a.maxPrio < b.maxPrio
	case a.sum != b.sum:
		return a.sum < b.sum
	case a.count != b.count:
		return a.count < b.count
	case a.tied() != b.tied():
		return a.tied() // start decides among evaluated and sampled nodes
	case a.start != b.start:
		return a.start > b.start // a sampled node's bound: the latest its start may be
	case a.exact != b.exact:
		return !a.exact // a sampled node before an evaluated one it may tie with
	}
	return a.node < b.node
}

func sameCand(a, b *candidate) bool {
	return a.viol == b.viol && a.maxPrio == b.maxPrio && a.sum == b.sum && a.count == b.count && a.start == b.start
}

type candHeap []candidate

func (h *candHeap) push(c candidate) {
	*h = append(*h, c)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !betterCand(&a[i], &a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *candHeap) pop() {
	a := *h
	n := len(a) - 1
	a[0] = a[n]
	*h = a[:n]
	h.down(0)
}

// init orders the heap in O(n).
func (h candHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h candHeap) down(i int) {
	a, n := h, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && betterCand(&a[r], &a[l]) {
			m = r
		}
		if !betterCand(&a[m], &a[i]) {
			return
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
}

// preState is a class's preemption state.
type preState struct {
	heap   candHeap
	cursor int // next index.Cluster.Changes entry to replay
	// pcursor is the next sureViol.changed entry to replay.
	pcursor int
	built   bool
	// synced counts the feasible nodes' changes replayed since the build.
	synced int
	// blocks holds the blocks of the feasible set with nodes not bounded
	// yet, by floor (see blocks.go); bounded marks the bounded nodes (a
	// bitset like the group's dense), ver numbers each block's latest
	// entry.
	blocks  blockHeap
	bounded []uint64
	ver     []uint32
	keys    []nodeKey // the refined blocks' node bounds (see blockEnt)
	// vics holds the victims of the evaluations in the heap (see
	// candidate.vic), since the build.
	vics []index.PodID
	// maskOf[n] indexes masks: node n's failure bits at its last
	// evaluation (0: a candidate, or outside the group's feasible set).
	maskOf []uint16
	masks  []uint64
	// relSig is the class's relSig at the last build.
	relSig uint64
	// sparse marks a build whose sampleLeast found no node of the least
	// bound in its first words: settle bounds the blocks by their own
	// floors, not scanLeast.
	sparse bool
}

// relSig sums the relax counts of the counters cl's pod-relative filters
// read (0 without them): it changes when a node those filters rejected may
// pass now, although the node itself did not change.
func (s *Solver) relSig(cl *class) uint64 {
	if cl.rel == nil {
		return 0
	}
	var sum uint64
	for _, id := range cl.rel.deps {
		sum += uint64(s.rel.counters[id].relax)
	}
	return sum
}

func (ps *preState) setMask(n index.NodeID, m uint64) {
	id := slices.Index(ps.masks, m)
	if id < 0 {
		id = len(ps.masks)
		ps.masks = append(ps.masks, m)
	}
	ps.maskOf[n] = uint16(id)
}

// preemption holds the solver-wide preemption state.
type preemption struct {
	// dem caches bound pods' demands: demOff[p] is 1 + the offset of pod
	// p's requests in demVals (0: not computed), demLen their number.
	demOff  []int32
	demLen  []uint8
	demVals []index.ResVal
	// lists holds each node's pods in importance order (see nodePods).
	lists []nodeList
	// onStamp marks pods while a list is brought up to date (onNow and
	// onNow+1 are the current marks).
	onStamp []uint32
	onNow   uint32

	// ents caches each bound pod's list entry (podEnt.made marks those
	// made), see entOf.
	ents []podEnt
	// entBudgets holds, per makeEnts worker, the budgets of the pods its
	// entries were made for, in pod order (nil when it left some pod to
	// entOf); initSure takes them.
	entBudgets [][]podBudget

	// sure counts the pods whose eviction surely violates a budget, for
	// the bounds (see sureviol.go); made on the first preemption.
	sure     *sureViol
	sureInit bool

	// splits keeps each node's latest PDB split (see splitOf).
	splits []nodeSplit

	// scratch
	cols      []resCols
	vs        []index.PodID
	local     []int32 // per PDB: budget left in one node's evaluation (valid when stamped)
	stamp     []uint32
	stampNow  uint32
	victimBuf []index.PodID
	sample    []candidate
	refloor   []int32
	// blockMark marks the blocks refloored in one sync (markNow).
	blockMark []uint32
	markNow   uint32
	// spare holds the states finished classes gave back (newPreState).
	spare  []*preState
	pdbBuf []int32
	memo   budgetMemo // entOf's
}

// reprieveSlow is the reprieve test of victim e for a preemptor that
// requests more columns than selectVictims keeps apart: whether e fits
// back, given the slack per column of d.Req (slack, taken from when it
// does), and passes rc's filters back (see selectVictims).
func (s *Solver) reprieveSlow(e *podEnt, d *index.Demand, n index.NodeID, j int, prio int32, slack *[8]int64, rc *relClass) bool {
	c := s.c
	var need [8]int64
	// The victim's requests of the preemptor's columns: both lists are in
	// column order.
	req := s.podReq(e.pod)
	q := 0
	for ri, rv := range d.Req {
		for q < len(req) && req[q].Res < rv.Res {
			q++
		}
		var v int64
		if q < len(req) && req[q].Res == rv.Res {
			v = req[q].Val
		}
		fits := false
		if ri < len(slack) {
			need[ri] = v
			fits = v <= slack[ri]
		} else {
			fits = rules.Fits(c.Req[rv.Res][n]-c.LowerRequested(j, prio, rv.Res, n), rv.Val+v, c.Alloc[rv.Res][n])
		}
		if !fits {
			return false
		}
	}
	if e.ports && len(d.Ports) > 0 && s.portsClash(e.pod, d.Ports) {
		return false
	}
	if rc != nil && !s.relReprieve(rc, e.pod, n) {
		return false
	}
	for ri := range min(len(d.Req), len(slack)) {
		slack[ri] -= need[ri]
	}
	return true
}

// podReq returns bound pod p's requests by column: those it was bound
// with, or DemandOf's Req (cached) when the index has not recorded them.
func (s *Solver) podReq(p index.PodID) []index.ResVal {
	if req, ok := s.c.BoundRequests(p); ok {
		return req
	}
	pr := &s.pre
	if pr.demOff == nil {
		pr.demOff = make([]int32, len(s.c.Pods))
		pr.demLen = make([]uint8, len(s.c.Pods))
	}
	if off := pr.demOff[p]; off > 0 {
		return pr.demVals[off-1 : int(off-1)+int(pr.demLen[p])]
	}
	off := len(pr.demVals)
	vals := pr.demVals
	for _, q := range s.c.Pods[p].Requests {
		if q.Value == 0 {
			continue
		}
		var r int32
		switch q.Name {
		case index.NameCPU:
			r = index.ResCPU
		case index.NameMemory:
			r = index.ResMemory
		default:
			if !index.Checked(q.Name) {
				continue
			}
			var ok bool
			if r, ok = s.c.ResIndex[q.Name]; !ok {
				panic("solver: resource without column: " + q.Name)
			}
		}
		// Insert in column order.
		i := len(vals)
		vals = append(vals, index.ResVal{})
		for ; i > off && vals[i-1].Res > r; i-- {
			vals[i] = vals[i-1]
		}
		if i > off && vals[i-1].Res == r {
			// A column twice: take DemandOf's order as it is.
			d := s.c.DemandOf(&s.c.Pods[p])
			vals = append(vals[:off], d.Req...)
			break
		}
		vals[i] = index.ResVal{Res: r, Val: q.Value}
	}
	pr.demVals = vals
	pr.demOff[p], pr.demLen[p] = int32(off+1), uint8(len(vals)-off)
	return vals[off:]
}

// demandOf is bound pod p's whole demand, for Unbind.
func (s *Solver) demandOf(p index.PodID) index.Demand {
	pp := &s.c.Pods[p]
	d := index.Demand{Req: s.podReq(p), AddCPU: pp.NonZeroCPU, AddMem: pp.NonZeroMemory}
	if len(pp.HostPorts) > 0 {
		d.Ports = s.c.DemandOf(pp).Ports
	}
	return d
}

// portsClash reports whether pod q's host ports clash with ports.
func (s *Solver) portsClash(q index.PodID, ports []index.PortKey) bool {
	if len(s.c.Pods[q].HostPorts) == 0 {
		return false
	}
	for _, a := range s.c.DemandOf(&s.c.Pods[q]).Ports {
		for _, b := range ports {
			if a.Conflicts(b) {
				return true
			}
		}
	}
	return false
}

// evalNode dry-runs preemption of class cl (priority prio) on node n, a node
// of the class's feasible set that the pod does not fit now. It returns the
// candidate, or the failure bits. With exact the candidate is evaluated in
// full and its victims are left in s.pre.vs, most important first;
// otherwise it is a lower bound (see lowerBound).
//
// As in kube-scheduler, a node is tried only when the first filter it fails
// is resolvable by removing pods: NodePorts, NodeResourcesFit (unless a
// request exceeds the node's allocatable), PodTopologySpread's skew, the
// pod's own required anti-affinity or existing pods' anti-affinity; a
// missing topology label or unmatched required pod affinity is not. The dry
// run then removes every lower-priority pod and runs the filters again,
// pod-relative ones included (the victims leave the counters
// hypothetically, see relMove).
func (s *Solver) evalNode(cl *class, prio int32, n index.NodeID, exact bool) (candidate, uint64) {
	c := s.c
	d := &cl.demand
	// NodePorts runs before NodeResourcesFit: a port clash makes the node a
	// preemption target whatever the resources; otherwise a request above
	// the node's allocatable makes it unresolvable.
	clash := len(d.Ports) > 0 && rules.PortsConflict(c.Ports[n], d.Ports)
	if !clash {
		for _, rv := range d.Req {
			if rules.Unresolvable(rv.Val, c.Alloc[rv.Res][n]) {
				return candidate{}, maskNotHelpful
			}
		}
	}
	rc := cl.rel
	if rc != nil && len(rc.deps) == 0 {
		rc = nil // no pod-relative filter
	}
	if rc != nil && !clash && s.fits(n, cl) {
		// Only a pod-relative filter can fail: the first one decides.
		if f, _ := s.check(rc, n); f == relOK || f == relMissingLabel || f == relAffinity {
			return candidate{}, maskNotHelpful
		}
	}
	j := c.LowIndex(prio)
	lowPods := c.LowerRequested(j, prio, index.ResPods, n)
	if lowPods == 0 {
		return candidate{}, maskNoVictims
	}
	// Every lower-priority pod removed: the filters again. Without a clash
	// with the node's ports in use (every bound pod's), no pod clashes.
	if clash {
		for _, q := range c.PodsOn[n] {
			if c.Pods[q].Priority >= prio && s.portsClash(q, d.Ports) {
				return candidate{}, maskPorts
			}
		}
	}
	var mask uint64
	slackPods := c.Alloc[index.ResPods][n] - (c.Req[index.ResPods][n] - lowPods) - 1
	if !rules.PodsFit(c.Req[index.ResPods][n]-lowPods, c.Alloc[index.ResPods][n]) {
		mask |= maskTooMany
	}
	for _, rv := range d.Req {
		if !rules.Fits(c.Req[rv.Res][n]-c.LowerRequested(j, prio, rv.Res, n), rv.Val, c.Alloc[rv.Res][n]) {
			mask |= maskRes << min(rv.Res, maxMaskRes-1)
		}
	}
	if mask != 0 {
		return candidate{}, mask
	}
	if rc != nil {
		vic := lowerSuffix(s.nodePods(n), prio)
		for i := range vic {
			s.relMove(vic[i].pod, n, -1)
		}
		f, _ := s.check(rc, n)
		if f != relOK || !exact {
			for i := range vic {
				s.relMove(vic[i].pod, n, 1)
			}
		}
		if f != relOK {
			return candidate{}, relFailMask(f)
		}
	}
	if !exact {
		b := s.lowerBound(cl, prio, n, j)
		if s.cfg.sw.checkBound != nil && rc == nil {
			s.cfg.sw.checkBound(cl, b, s.selectVictims(cl, prio, n, j, slackPods, nil))
		}
		return b, 0
	}
	// With rc, the lower-priority pods are out of the counters:
	// selectVictims reprieves into them and puts the victims back.
	return s.selectVictims(cl, prio, n, j, slackPods, rc), 0
}

// lowerBound bounds node n's criteria from below without looking at its
// pods (see nodeBound); j >= 0 is the preemptor's threshold.
func (s *Solver) lowerBound(cl *class, prio int32, n index.NodeID, j int) candidate {
	out := candidate{node: n, gen: s.c.Gen[n], pgen: s.pgenOf(n), maxPrio: math.MinInt32, count: 1}
	if j < 0 {
		return out // no sums for this priority: the weakest bound
	}
	k := s.nodeBound(cl, n, j)
	out.viol, out.maxPrio, out.count, out.sum = k.viol(), k.maxPrio(), k.count(), k.sum(s.minPrio)
	return out
}

// nodeBound bounds node n's first four criteria from below in O(1) from
// its lower-priority sums, for class cl at threshold j >= 0: the highest
// victim priority is at least the lowest priority p such that removing
// every pod below the next priority in use makes room, keeping the pods
// whose eviction surely violates a budget (sureviol.go); when nothing
// makes room with those kept, a violation is certain and the pods are not
// kept. The victims are at least as many as any one resource's deficit
// needs, given the largest request of a pod below that next priority; each
// victim adds at least the lowest priority in use to the sum.
func (s *Solver) nodeBound(cl *class, n index.NodeID, j int) nodeKey {
	d := &cl.demand
	if len(d.Req) > maxBlockRes {
		return s.nodeBoundSlow(cl, n, j)
	}
	// What the pods below a threshold must free on n, per column (the pod
	// count first): the demand fits once they are gone when they free at
	// least that much (fitsAtNode with the node's columns read once).
	c := s.c
	nres := len(c.ResNames)
	var need [maxBlockRes + 1]int64
	var col [maxBlockRes + 1]int32
	need[0], col[0] = c.Req[index.ResPods][n]+1-c.Alloc[index.ResPods][n], index.ResPods
	for i, rv := range d.Req {
		need[i+1], col[i+1] = c.Req[rv.Res][n]+rv.Val-c.Alloc[rv.Res][n], rv.Res
	}
	ncol := len(d.Req) + 1
	fitsAt := func(k int, sure [][]int64) bool {
		low := c.Low[k*nres : (k+1)*nres]
		for i := range ncol {
			freed := low[col[i]][n]
			if sure != nil {
				freed -= sure[col[i]][n]
			}
			if freed < need[i] {
				return false
			}
		}
		return true
	}
	k, viol := s.boundThreshold(cl, n, j, fitsAt)
	// finishKey, from the deficits above.
	maxPrio := int32(math.MinInt32)
	if k > 0 && k <= j {
		maxPrio = c.LowPrio[k-1]
	}
	one := min(k, j)
	count := need[0]
	for i := 1; i < ncol; i++ {
		if deficit := need[i]; deficit > 0 {
			if m := c.MaxOne[one*nres+int(col[i])][n]; m > 0 {
				count = max(count, (deficit+m-1)/m)
			}
		}
	}
	return makeKey(viol, maxPrio, int32(max(1, min(count, math.MaxInt32))))
}

// nodeBoundSlow is nodeBound for a demand of more columns than it keeps
// apart.
func (s *Solver) nodeBoundSlow(cl *class, n index.NodeID, j int) nodeKey {
	d := &cl.demand
	k, viol := s.boundThreshold(cl, n, j, func(k int, sure [][]int64) bool { return s.fitsAtNode(d, n, k, sure) })
	return s.finishKey(cl, n, j, k, viol)
}

// boundThreshold is nodeBound's first threshold at which node n fits
// (j+1: none) and whether a violation is certain, given fitsAt (the
// surely violating pods kept when sure is not nil).
func (s *Solver) boundThreshold(cl *class, n index.NodeID, j int, fitsAt func(k int, sure [][]int64) bool) (int, int32) {
	var viol int32
	k := s.firstThreshold(cl)
	for k <= j && !fitsAt(k, nil) {
		k++
	}
	if sj := s.sureSums(j); k <= j && sj != nil && sj[index.ResPods][n] > 0 {
		kv := k
		for kv <= j && !fitsAt(kv, s.sureSums(kv)) {
			kv++
		}
		if kv > j {
			viol = 1
		} else {
			k = kv
		}
	}
	return k, viol
}

// fitsAtNode reports whether demand d fits node n once every pod below
// threshold k is removed, except, when sure is not nil (threshold k's sums
// of sureViol), the pods whose eviction surely violates a budget.
func (s *Solver) fitsAtNode(d *index.Demand, n index.NodeID, k int, sure [][]int64) bool {
	c := s.c
	nres := len(c.ResNames)
	low := c.Low[k*nres : (k+1)*nres]
	var kept int64
	if sure != nil {
		kept = sure[index.ResPods][n]
	}
	if !rules.PodsFit(c.Req[index.ResPods][n]-low[index.ResPods][n]+kept, c.Alloc[index.ResPods][n]) {
		return false
	}
	for _, rv := range d.Req {
		if sure != nil {
			kept = sure[rv.Res][n]
		}
		if !rules.Fits(c.Req[rv.Res][n]-low[rv.Res][n]+kept, rv.Val, c.Alloc[rv.Res][n]) {
			return false
		}
	}
	return true
}

// startBound bounds from above the start kube-scheduler's fifth criterion
// reads on node n (the earliest start of the victims of the highest
// priority) when that priority is maxPrio, for a preemptor of priority
// prio: the latest start of the node's pods of priority maxPrio, kept by
// the index. MinInt64 when it has none: the node's highest victim priority
// is then not maxPrio.
func (s *Solver) startBound(n index.NodeID, maxPrio, prio int32) int64 {
	if maxPrio >= prio {
		return math.MaxInt64 // no bound on the priority: no bound on the start
	}
	j := s.c.LowIndex(maxPrio)
	if j < 0 {
		return math.MinInt64 // no pod of that priority
	}
	return s.c.LatestStart(j, n)
}

// firstThreshold is the first threshold the bounds try for class cl: 1
// when no pod is below the lowest one (removing them frees nothing) and
// the class is columnar (no host ports, no pod-relative filter: its pod fits
// no node of its feasible set as it is, or it would not preempt), else 0.
func (s *Solver) firstThreshold(cl *class) int {
	c := s.c
	if len(cl.demand.Ports) == 0 && (cl.rel == nil || len(cl.rel.deps) == 0) && len(c.LowPrio) > 0 && c.LowPrio[0] <= s.minPrio {
		return 1
	}
	return 0
}

// finishKey completes node n's bound for class cl (threshold j) from k,
// the first threshold at which it fits (j+1: none), and viol.
func (s *Solver) finishKey(cl *class, n index.NodeID, j, k int, viol int32) nodeKey {
	c := s.c
	d := &cl.demand
	maxPrio := int32(math.MinInt32)
	if k > 0 && k <= j {
		maxPrio = c.LowPrio[k-1]
	}
	// Every victim is below LowPrio[k] when the highest is LowPrio[k-1].
	one := min(k, j)
	count := rules.Deficit(c.Req[index.ResPods][n], 1, c.Alloc[index.ResPods][n])
	for _, rv := range d.Req {
		if deficit := rules.Deficit(c.Req[rv.Res][n], rv.Val, c.Alloc[rv.Res][n]); deficit > 0 {
			if m := c.MaxRequest(one, rv.Res, n); m > 0 {
				count = max(count, (deficit+m-1)/m)
			}
		}
	}
	return makeKey(viol, maxPrio, int32(max(1, min(count, math.MaxInt32))))
}

// selectVictims finds the minimal victims on candidate node n by reprieve
// and returns the node's criteria; the victims are left in s.pre.vs, in
// eviction order.
//
// rc, when not nil, is the class's pod-relative part, with every
// lower-priority pod of n moved out of its counters: a victim is
// reprieved only if the node still passes rc's filters with it back, and
// the victims are moved back in before returning.
func (s *Solver) selectVictims(cl *class, prio int32, n index.NodeID, j int, slackPods int64, rc *relClass) candidate {
	c := s.c
	d := &cl.demand
	pr := &s.pre
	sp, vic := s.splitOf(n, prio) // most important first
	// Slack on the node with every lower-priority pod gone and the
	// preemptor placed, for the resources the preemptor requests (the only
	// ones NodeResourcesFit checks). The common case, cpu, memory and at
	// most one other column, keeps them apart; slack[] serves the others.
	var slack [8]int64
	for i, rv := range d.Req[:min(len(d.Req), len(slack))] {
		slack[i] = c.Alloc[rv.Res][n] - (c.Req[rv.Res][n] - c.LowerRequested(j, prio, rv.Res, n)) - rv.Val
	}
	sCPU, sMem, sX := int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64)
	hasCPU, hasMem, xres, fast := false, false, int32(-1), len(d.Req) <= len(slack)
	for i, rv := range d.Req[:min(len(d.Req), len(slack))] {
		switch {
		case rv.Res == index.ResCPU:
			sCPU, hasCPU = slack[i], true
		case rv.Res == index.ResMemory:
			sMem, hasMem = slack[i], true
		case xres < 0:
			sX, xres = slack[i], rv.Res
		default:
			fast = false
		}
	}
	out := candidate{node: n, gen: c.Gen[n], pgen: s.pgenOf(n), maxPrio: math.MinInt32, start: math.MaxInt64, exact: true}
	victims := pr.vs[:0]
	// Reprieve, most important first: the violating victims first when
	// only some violate, then the others.
	split := sp.nviol > 0 && sp.nviol < len(vic)
	allViol := sp.nviol > 0 && !split
	ports := d.Ports
	if fast && xres < 0 && len(ports) == 0 && rc == nil && !s.cfg.sw.noRunReprieve {
		// The common case, cpu and memory only, from the split alone: the
		// pods reprieved one by one while they fit are, from each victim
		// on, the longest run whose sums fit (requests are not negative),
		// found by bisection; the pod after the run is the next victim.
		pcpu, pmem := sp.pcpu, sp.pmem
		for i, n := 0, len(sp.rep); i < n; {
			lo, hi := i, i+int(min(max(slackPods, 0), int64(n-i)))
			for lo < hi {
				m := int(uint(lo+hi+1) >> 1)
				if (!hasCPU || pcpu[m]-pcpu[i] <= sCPU) && (!hasMem || pmem[m]-pmem[i] <= sMem) {
					lo = m
				} else {
					hi = m - 1
				}
			}
			if lo > i {
				slackPods -= int64(lo - i)
				if hasCPU {
					sCPU -= pcpu[lo] - pcpu[i]
				}
				if hasMem {
					sMem -= pmem[lo] - pmem[i]
				}
			}
			if lo == n {
				break
			}
			e := &sp.rep[lo]
			victims = append(victims, e.pod)
			out.addVictim(e.prio, e.start, allViol || e.viol)
			i = lo + 1
		}
		out.count = int32(len(victims))
		pr.vs = victims
		return out
	}
	viol := sp.viol
	for pass := 0; pass < 2; pass++ {
		for i := range vic {
			e := &vic[i]
			isViol := allViol
			if split {
				if isViol = viol[i]; isViol != (pass == 0) {
					continue
				}
			}
			if slackPods >= 1 {
				if fast {
					if e.cpu <= sCPU && e.mem <= sMem {
						var vx int64
						if xres >= 0 {
							vx = e.value(s, xres)
						}
						if vx <= sX && !(e.ports && len(ports) > 0 && s.portsClash(e.pod, ports)) && (rc == nil || s.relReprieve(rc, e.pod, n)) {
							slackPods--
							if hasCPU {
								sCPU -= e.cpu
							}
							if hasMem {
								sMem -= e.mem
							}
							if xres >= 0 {
								sX -= vx
							}
							continue
						}
					}
				} else if s.reprieveSlow(e, d, n, j, prio, &slack, rc) {
					slackPods--
					continue
				}
			}
			victims = append(victims, e.pod)
			out.add(e, isViol)
		}
		if !split {
			break
		}
	}
	out.count = int32(len(victims))
	pr.vs = victims
	if rc != nil {
		for _, v := range victims {
			s.relMove(v, n, 1)
		}
	}
	return out
}

// nodeSplit is a node's victims for one preemptor priority in reprieve
// order (see splitOf), as of the node's generation and budget generation.
type nodeSplit struct {
	gen, pgen uint32
	prio      int32
	made      bool
	off       int // the victims' offset in the node's list (nodePods)
	// viol marks the victims whose eviction violates a budget (empty
	// without budgets), nviol counts them.
	viol  []bool
	nviol int
	// rep lists the victims in reprieve order, most important first but
	// the violating ones before the others when only some violate;
	// pcpu[k] and pmem[k] sum the cpu and memory requests of the first k
	// of them. selectVictims' common case reads only these.
	rep        []splitEnt
	pcpu, pmem []int64
}

// splitEnt is a victim in a split's reprieve order.
type splitEnt struct {
	start int64
	pod   index.PodID
	prio  int32
	viol  bool
}

// splitOf returns node n's pods below prio (most important first) and
// their split: the PDB split, the budgets counted down over them in order,
// and the reprieve order it makes. It depends only on the node's pods and
// the budgets, so it is kept per node until the node or its budget
// generation changes (pgenOf): a node is mostly dry-run by several classes
// between two of its changes. The split is the cache's: read only.
func (s *Solver) splitOf(n index.NodeID, prio int32) (*nodeSplit, []podEnt) {
	pr := &s.pre
	if pr.splits == nil {
		pr.splits = make([]nodeSplit, s.c.NumNodes())
	}
	sp := &pr.splits[n]
	ents := s.nodePods(n)
	gen, pgen := s.c.Gen[n], s.pgenOf(n)
	if sp.made && sp.gen == gen && sp.pgen == pgen && sp.prio == prio && !s.cfg.sw.noSplitCache {
		return sp, ents[sp.off:]
	}
	vic := lowerSuffix(ents, prio)
	viol := slices.Grow(sp.viol[:0], len(vic))
	nviol := 0
	if pd := s.pdbs(); pd != nil && len(pd.allowed) > 0 {
		pr.stampNow++
		for i := range vic {
			v := false
			if vic[i].npdb > 0 {
				bs := vic[i].budgets(s)
				for _, k := range bs {
					if pr.stamp[k] != pr.stampNow {
						pr.stamp[k], pr.local[k] = pr.stampNow, pd.allowed[k]
					}
				}
				v = rules.CountDown(pr.local, bs)
			}
			viol = append(viol, v)
			if v {
				nviol++
			}
		}
	}
	rep := slices.Grow(sp.rep[:0], len(vic))
	pcpu, pmem := append(slices.Grow(sp.pcpu[:0], len(vic)+1), 0), append(slices.Grow(sp.pmem[:0], len(vic)+1), 0)
	split := nviol > 0 && nviol < len(vic)
	for pass := 0; pass < 2; pass++ {
		for i := range vic {
			e := &vic[i]
			v := nviol > 0 && viol[i]
			if split && rules.ReprievePass(v) != pass {
				continue
			}
			rep = append(rep, splitEnt{start: e.start, pod: e.pod, prio: e.prio, viol: v})
			pcpu, pmem = append(pcpu, pcpu[len(pcpu)-1]+e.cpu), append(pmem, pmem[len(pmem)-1]+e.mem)
		}
		if !split {
			break
		}
	}
	*sp = nodeSplit{gen: gen, pgen: pgen, prio: prio, made: true, off: len(ents) - len(vic), viol: viol, nviol: nviol, rep: rep, pcpu: pcpu, pmem: pmem}
	return sp, vic
}

// preempt tries to make room for pod pid of class cl by evicting
// lower-priority pods; on success it returns the chosen candidate (its
// node and criteria) and the victims (in s.pre.victimBuf, most important
// first).
func (s *Solver) preempt(cl *class, pid index.PodID) (candidate, []index.PodID, bool) {
	prio := s.c.Pods[pid].Priority
	if !s.pre.sureInit {
		s.initSure()
	}
	ps := cl.pre
	if ps == nil {
		ps = s.newPreState(len(cl.g.dense))
		cl.pre = ps
	}
	// A pod-relative counter that relaxed may let nodes pass that failed
	// before without changing them: evaluate every node again.
	if sig := s.relSig(cl); !ps.built || len(s.c.Changes)-ps.cursor+s.budgetChanges()-ps.pcursor > cl.g.feasCard || sig != ps.relSig {
		ps.relSig = sig
		s.buildCandidates(cl, ps, prio)
	} else {
		s.syncCandidates(cl, ps, prio)
	}
	// A columnar class's evaluation depends only on the node and the budgets,
	// both unchanged for an entry settle keeps: its victims are kept with
	// it. Others are evaluated again when taken (pod-relative counters may
	// have moved).
	columnar := s.columnarCols(cl, s.c.LowIndex(prio)) != nil && !s.cfg.sw.noVictimCache
	for s.settle(cl, ps, prio) {
		top := ps.heap[0]
		ps.heap.pop()
		if top.exact && top.vic > 0 {
			buf := append(s.pre.victimBuf[:0], ps.vics[top.vic-1:top.vic-1+top.count]...)
			s.pre.victimBuf = buf
			if s.cfg.sw.checkChoice != nil {
				s.cfg.sw.checkChoice(s, cl, prio, top)
			}
			return top, buf, true
		}
		fresh, mask := s.evalNode(cl, prio, top.node, true)
		if mask != 0 {
			ps.setMask(top.node, mask) // cannot happen with an unchanged node; be safe
			continue
		}
		if !top.exact || !sameCand(&fresh, &top) {
			// A bound, or a PDB budget shrank since: rank the node by its
			// evaluation.
			if columnar {
				fresh.vic = int32(len(ps.vics)) + 1
				ps.vics = append(ps.vics, s.pre.vs...)
			}
			ps.heap.push(fresh)
			continue
		}
		// s.pre.vs holds the victims of this evaluation.
		buf := append(s.pre.victimBuf[:0], s.pre.vs...)
		s.pre.victimBuf = buf
		if s.cfg.sw.checkChoice != nil {
			s.cfg.sw.checkChoice(s, cl, prio, top)
		}
		return top, buf, true
	}
	return candidate{}, nil, false
}

// newPreState returns an empty preemption state for a class whose feasible
// bitset has nb words: one a finished class gave back (see releasePre), its
// buffers reused, or a new one. A batch of many preempting classes then
// does not take fresh memory (and its page faults) for each.
func (s *Solver) newPreState(nb int) *preState {
	pr := &s.pre
	if k := len(pr.spare); k > 0 {
		ps := pr.spare[k-1]
		pr.spare = pr.spare[:k-1]
		if len(ps.bounded) == nb {
			clear(ps.maskOf)
			clear(ps.bounded)
			clear(ps.ver)
			*ps = preState{heap: ps.heap[:0], blocks: ps.blocks[:0], bounded: ps.bounded, ver: ps.ver, keys: ps.keys[:0],
				maskOf: ps.maskOf, masks: append(ps.masks[:0], 0), vics: ps.vics[:0]}
			return ps
		}
	}
	return &preState{maskOf: make([]uint16, s.c.NumNodes()), masks: []uint64{0}, bounded: make([]uint64, nb), ver: make([]uint32, nb),
		blocks: make(blockHeap, 0, nb)}
}

// releasePre gives back the preemption state of a class with no pod left
// and no failure (its failure bits name no pending pod).
func (s *Solver) releasePre(ps *preState) {
	s.pre.spare = append(s.pre.spare, ps)
}

// sampleSize is how many of the best nodes by bound a build samples:
// kube-scheduler's minimum number of dry-run candidates. Among nodes equal
// in the first four criteria the latest start decides over the sampled
// (and otherwise evaluated) ones. A sampled node is evaluated in full only
// when its bound, with the latest start its victims may have, reaches the
// heap's top, before any evaluated node it may tie with is taken (see
// betterCand): one whose bound is worse than the node taken could not have
// beaten it.
const sampleSize = 100

// buildCandidates queues every block of the class's feasible set by floor
// and samples the best sampleSize nodes by bound (bounding the blocks that
// may hold them). A class that has failed before bounds every node now:
// its failure bits then describe every node as of its last turn, as its
// reason must (see preemptionMessage).
func (s *Solver) buildCandidates(cl *class, ps *preState, prio int32) {
	c := s.c
	ps.heap = ps.heap[:0]
	ps.blocks = ps.blocks[:0]
	ps.keys = ps.keys[:0]
	ps.vics = ps.vics[:0]
	clear(ps.bounded)
	ps.synced, ps.sparse = 0, false
	sample := s.pre.sample[:0]
	least := false // the sample is the first nodes of the least bound
	if cl.failures > 0 || s.cfg.sw.eagerBounds {
		s.boundAll(cl, ps, prio)
	} else {
		j := c.LowIndex(prio)
		var floor candidate
		sample, least, floor = s.sampleLeast(cl, ps, prio, j, sample)
		s.pushBlocks(cl, ps, j, floor)
	}
	for !least && len(sample) < sampleSize && s.settle(cl, ps, prio) && !ps.heap[0].exact {
		sample = append(sample, ps.heap[0])
		ps.heap.pop()
	}
	for _, b := range sample {
		if s.cfg.sw.eagerSample {
			cand, mask := s.evalNode(cl, prio, b.node, true)
			ps.setMask(b.node, mask)
			if mask == 0 {
				ps.heap.push(cand)
			}
			continue
		}
		b.sample, b.start = true, s.startBound(b.node, b.maxPrio, prio)
		ps.heap.push(b)
	}
	s.pre.sample = sample
	ps.built = true
	ps.cursor, ps.pcursor = len(c.Changes), s.budgetChanges()
}

// syncCandidates bounds again the nodes changed since the class's last
// turn, or floors their blocks again when not bounded yet. After more
// changes than the feasible set could have left entries for (see
// maxSynced), it builds again.
func (s *Solver) syncCandidates(cl *class, ps *preState, prio int32) {
	c := s.c
	dense := cl.g.dense
	refloor := s.pre.refloor[:0]
	for _, ch := range c.Changes[ps.cursor:] {
		n := ch.Node
		if ch.Gen != c.Gen[n] || dense[n>>6]&(1<<(n&63)) == 0 {
			continue
		}
		ps.synced++
		if ps.isBounded(n) {
			s.evalInto(cl, ps, prio, n)
		} else if b := int32(n >> 6); len(refloor) == 0 || refloor[len(refloor)-1] != b {
			refloor = append(refloor, b)
		}
	}
	ps.cursor = len(c.Changes)
	if sv := s.pre.sure; sv != nil {
		// Nodes whose evaluation a shrinking budget may have changed.
		for _, n := range sv.changed[ps.pcursor:] {
			if dense[n>>6]&(1<<(n&63)) == 0 {
				continue
			}
			ps.synced++
			if ps.isBounded(n) {
				s.evalInto(cl, ps, prio, n)
			} else {
				refloor = append(refloor, int32(n>>6))
			}
		}
		ps.pcursor = len(sv.changed)
	}
	if len(refloor) > 0 {
		// The floors of the blocks not bounded yet may have dropped: each
		// block once, in any order (the block heap's order is total).
		pr := &s.pre
		if len(pr.blockMark) < len(dense) {
			pr.blockMark = make([]uint32, len(dense))
		}
		if pr.markNow++; pr.markNow == 0 {
			clear(pr.blockMark) // wrapped around
			pr.markNow = 1
		}
		j := c.LowIndex(prio)
		for _, b := range refloor {
			if pr.blockMark[b] != pr.markNow {
				pr.blockMark[b] = pr.markNow
				s.pushBlock(cl, ps, j, int(b))
			}
		}
	}
	s.pre.refloor = refloor
	if ps.synced > maxSynced(cl.g.feasCard) {
		s.buildCandidates(cl, ps, prio) // mostly stale entries
	}
}

// maxSynced is how many changes of a class's feasible nodes a sync replays
// before the class builds again: the heap then may hold more stale entries
// than live ones.
func maxSynced(feasCard int) int { return 3*feasCard + 1024 }

func (s *Solver) evalInto(cl *class, ps *preState, prio int32, n index.NodeID) {
	cand, mask := s.evalNode(cl, prio, n, false)
	ps.setMask(n, mask)
	if mask == 0 {
		ps.heap.push(cand)
	}
}

// evict unbinds victim v from its node and spends its PDB budgets.
func (s *Solver) evict(v index.PodID) {
	s.evictions++
	d := s.demandOf(v)
	n := index.NodeID(s.c.PodNode[v])
	if s.rel != nil {
		s.relBind(v, n, -1, nil)
	}
	s.c.Unbind(v, &d)
	s.listGone(v, n)
	s.refreshNode(n)
	if pd := s.pdbs(); pd != nil {
		s.sureGone(v, n)
		budgets := s.podBudgets(v)
		s.budgetsShrink(budgets)
		for _, k := range pd.evicted(budgets) {
			s.exhausted(k)
		}
	}
}

// preemptionMessage is the PostFilter part of a failed class's reason.
func (s *Solver) preemptionMessage(cl *class) string {
	c := s.c
	p := &c.Pods[cl.rep]
	switch {
	case s.cfg.NoPreemption:
		return rules.NoPreemptionMessage()
	case p.PreemptionPolicy == index.PreemptNever:
		return rules.NeverMessage()
	}
	ps := cl.pre
	counts := map[string]int{}
	n := c.NumNodes()
	tried := 0
	if ps != nil {
		// Nodes per failure mask first, then the words per mask.
		perMask := make([]int, len(ps.masks))
		for wi, word := range cl.g.dense {
			for ; word != 0; word &= word - 1 {
				perMask[ps.maskOf[wi*64+bits.TrailingZeros64(word)]]++
			}
		}
		for id, k := range perMask {
			m := ps.masks[id]
			if k == 0 || m&maskNotHelpful != 0 || m == 0 {
				continue
			}
			tried += k
			switch {
			case m&maskNoVictims != 0:
				counts[msgNoVictims] += k
			case m&maskPorts != 0:
				counts[msgPorts] += k
			case m&(maskRes-maskRel) != 0:
				for f := relMissingLabel; f <= relExisting; f++ {
					if m&relFailMask(f) != 0 {
						counts[f.String()] += k
					}
				}
			default:
				if m&maskTooMany != 0 {
					counts[msgTooManyPods] += k
				}
				for r := 0; r < maxMaskRes && r < len(c.ResNames); r++ {
					if m&(maskRes<<r) != 0 {
						counts[rules.InsufficientResource(c.ResNames[r])] += k
					}
				}
			}
		}
	}
	if n > tried {
		counts[msgNotHelpful] += n - tried
	}
	return rules.PreemptionMessage(n, counts)
}

// preemptFor makes room for pod pid of class cl by preemption:
// kube-scheduler's (preempt) or, with Config.CrossNodePreemption, a
// cross-node one when it is strictly better (crossPreempt). It evicts the
// victims, records their commits (each with the node it leaves), puts them
// back in the queue with Config.RequeueEvicted, and returns the node.
func (s *Solver) preemptFor(cl *class, pid index.PodID, res *Result, rq *requeueHeap) (index.NodeID, bool) {
	cand, victims, ok := s.preempt(cl, pid)
	if s.cfg.CrossNodePreemption && cl.rel != nil {
		if xc, xv, xok := s.crossPreempt(cl, pid); xok && (!ok || !sameCand(&xc, &cand) && betterCand(&xc, &cand)) {
			cand, victims, ok = xc, xv, true
			res.CrossNode++
		}
	}
	if !ok {
		return 0, false
	}
	s.reclaims.logEvictions(s.c, victims)
	for _, v := range victims {
		res.Commits = append(res.Commits, Commit{Action: Evict, Pod: v, Node: index.NodeID(s.c.PodNode[v]), Preemptor: pid})
		s.evict(v)
		if s.cfg.RequeueEvicted {
			rq.push(&s.c.Pods[v], v, res.Requeued)
			res.Requeued++
		}
	}
	return cand.node, true
}
