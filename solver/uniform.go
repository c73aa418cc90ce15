package solver

import (
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Uniform spreading.
//
// Most workloads of a real cluster are small and new: a Deployment of one
// replica that no pod of the cluster matches yet. Default spreading
// applies to its pod (its Service and ReplicaSet select it), so the class
// scores on buckets, and a lean fill costs a pass over every feasible node
// to count the candidates per domain and keep each domain's best.
//
// None of that can matter for such a pod. With no pod counted by any of
// its soft constraints, each constraint adds maxSkew - 1 on every node
// that has its key, whatever the constraint's weight (the weight
// multiplies the count, 0), so where every feasible node has every key
// (and none is ignored) every candidate has the same raw score and the
// normalised PodTopologySpread score is the plugin's full weight on each.
// Its scoring terms score nothing, and its filters (DoNotSchedule
// constraints, required anti-affinity, affinity to its own pods) pass on
// every node with their keys. The pod then goes to its best node by the
// other scores alone: one best entry, found over the lean scans' run
// order, whose bounds pass over most runs whole (runs.go). A class whose
// pods are not all placed this way (more than one pod left, or any pod
// counted) fills as before.

// uniformSpread reports whether the next pod of cl, a scoring class on
// buckets, scores the same PodTopologySpread score on every candidate,
// nothing else pod-relative, and passes the pod-relative filters on every
// feasible node: cl has one pod left, no counter it reads counts a pod,
// and every feasible node has every spread key (none is ignored) and every
// key of its DoNotSchedule constraints and required affinity terms, which
// pass at counts of 0 (the skew is the pod's own; the pod must match its
// own affinity terms), as required anti-affinity does.
func (s *Solver) uniformSpread(cl *class) bool {
	rc := cl.rel
	if cl.pods != 1 || cl.failures != 0 || cl.buckets != nil || s.cfg.noLean || s.cfg.sw.noUniform || len(rc.soft) == 0 {
		return false
	}
	counted := func(ids []int32) bool {
		for _, id := range ids {
			if s.rel.counters[id].total != 0 {
				return true
			}
		}
		return false
	}
	// Scoring terms score nothing at 0 (see placeBuckets); anti-affinity
	// and the running pods' terms reject nothing.
	if counted(rc.aff) || counted(rc.anti) || counted(rc.repel) {
		return false
	}
	for _, pr := range rc.pref {
		if s.rel.counters[pr.ctr].total != 0 {
			return false
		}
	}
	dense := cl.g.dense
	for _, h := range rc.hard {
		// At counts of 0 the skew is the pod's own, 1: within any maxSkew.
		if k := s.rel.counters[h.ctr]; k.total != 0 || !within(dense, s.keyNodes(k.topo.Key)) {
			return false
		}
	}
	if len(rc.aff) > 0 && !rules.AffinityOK(true, false, true, rc.affSelf) {
		return false
	}
	for _, id := range rc.aff {
		if !within(dense, s.keyNodes(s.rel.counters[id].topo.Key)) {
			return false
		}
	}
	for _, h := range rc.soft {
		k := s.rel.counters[h.ctr]
		var has []uint64
		if h.hostname {
			has = s.hostnameNodes()
		} else {
			has = s.keyNodes(k.topo.Key)
		}
		if k.total != 0 || !within(dense, has) {
			return false
		}
	}
	// A node is ignored for lacking a soft key (eligibleOf): none is.
	return true
}

// within reports whether every node of a is in b.
func within(a, b []uint64) bool {
	for i, w := range a {
		if w&^b[i] != 0 {
			return false
		}
	}
	return true
}

// uniformAdd is the PodTopologySpread score every candidate of a class
// that uniformSpread accepts gets: each soft constraint's contribution at
// a count of 0 (the weight multiplies the count: it cannot matter), over
// a single raw score.
func uniformAdd(rc *relClass) int64 {
	var f float64
	for _, h := range rc.soft {
		f += rules.ScoreForCount(0, h.maxSkew, 0)
	}
	x := rules.RoundSpread(f)
	return rules.SpreadScore(x, x, x, false)
}

// placeUniform binds the pod pid of class cl, which uniformSpread accepts,
// on its best fitting node (searched over the run order for topology t)
// and returns the node and its score; false, binding nothing, when no
// feasible node fits. The static scores must be prepared (prepareStatic).
func (s *Solver) placeUniform(cl *class, pid index.PodID, t *index.Topology) (index.NodeID, int64, bool) {
	top := s.topInRuns(cl, t, 1)
	if len(top.heap) == 0 {
		return 0, 0, false
	}
	best := top.heap[0]
	top.reset()
	s.uniformPlaced++
	s.bindPod(pid, best.node, &cl.demand)
	return best.node, best.score + uniformAdd(cl.rel), true
}

// topInRuns returns the best keep entries (score, tie-break, node) of the
// nodes of cl's group that fit it, and the cut, over the runs of the
// order for topology t in every domain, on every worker (scanRuns, testing
// the fit of the nodes that may enter). The result is the first
// scanner's; reset it once read.
func (s *Solver) topInRuns(cl *class, t *index.Topology, keep int) *topK {
	shares := s.shapeShares(cl)
	o := s.orderFor(t)
	feas := s.feasibleRuns(cl.g, o)
	bufs := s.segBufs(2)
	all := bufs[1][:0]
	for pd := range o.segs {
		bufs[0] = classSegs(o, pd, shares, feas, bufs[0])
		all = append(all, bufs[0]...)
	}
	bufs[1] = all
	ws := s.scanners(cl.g.feasCard)
	for i := range ws {
		ws[i].barSlots(1)
		ws[i].resetBarSlot(0)
	}
	s.classFloors(cl) // before the workers read them
	sc := runScan{fit: cl.g.dense, np: s.noNodes(), lazy: true, room: s.roomTestOf(cl), shares: shares}
	s.eachWorker(len(ws), func(i int) { s.scanRuns(cl, &sc, o, all, 0, ws, keep, i) })
	return mergeTops(ws, 0, keep)
}

// noNodes returns an empty bitset over the cluster's nodes (read only).
func (s *Solver) noNodes() []uint64 {
	if s.emptyWords == nil {
		s.emptyWords = make([]uint64, (s.c.NumNodes()+63)/64)
	}
	return s.emptyWords
}
