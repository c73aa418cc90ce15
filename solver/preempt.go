package solver

import (
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
	return rules.PortsConflict(s.c.DemandOf(&s.c.Pods[q]).Ports, ports)
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
	slackPods := rules.Slack(c.Req[index.ResPods][n]-lowPods, 1, c.Alloc[index.ResPods][n])
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
			s.relMove(vic[i].Pod, n, -1)
		}
		f, _ := s.check(rc, n)
		if f != relOK || !exact {
			for i := range vic {
				s.relMove(vic[i].Pod, n, 1)
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
			buf := append(s.pre.victimBuf[:0], ps.vics[top.vic-1:top.vic-1+top.Count]...)
			s.pre.victimBuf = buf
			if s.cfg.sw.checkChoice != nil {
				s.cfg.sw.checkChoice(s, cl, prio, top)
			}
			return top, buf, true
		}
		fresh, mask := s.evalNode(cl, prio, top.Node, true)
		if mask != 0 {
			ps.setMask(top.Node, mask) // cannot happen with an unchanged node; be safe
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
			cand, mask := s.evalNode(cl, prio, b.Node, true)
			ps.setMask(b.Node, mask)
			if mask == 0 {
				ps.heap.push(cand)
			}
			continue
		}
		b.sample, b.Start = true, s.startBound(b.Node, b.MaxPrio, prio)
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
	return cand.Node, true
}
