package solver

import (
	"math"
	"slices"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// The dry run's victims: a node's lower-priority pods, split by PDB
// violation into kube-scheduler's reprieve order, and reprieved while the
// preemptor still fits (see preempt.go).

// reprieveSlow is the reprieve test of victim e for a preemptor that
// requests more columns than selectVictims keeps apart: whether e fits
// back, given the slack per column of d.Req (slack, taken from when it
// does), and passes rc's filters back (see selectVictims).
func (s *Solver) reprieveSlow(e *podEnt, d *index.Demand, n index.NodeID, j int, prio int32, slack *[8]int64, rc *relClass) bool {
	c := s.c
	var need [8]int64
	// The victim's requests of the preemptor's columns: both lists are in
	// column order.
	req := s.podReq(e.Pod)
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
			fits = rules.FitsFree(v, slack[ri])
		} else {
			fits = rules.Fits(c.Req[rv.Res][n]-c.LowerRequested(j, prio, rv.Res, n), rv.Val+v, c.Alloc[rv.Res][n])
		}
		if !fits {
			return false
		}
	}
	if e.ports && len(d.Ports) > 0 && s.portsClash(e.Pod, d.Ports) {
		return false
	}
	if rc != nil && !s.relReprieve(rc, e.Pod, n) {
		return false
	}
	for ri := range min(len(d.Req), len(slack)) {
		slack[ri] -= need[ri]
	}
	return true
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
		slack[i] = rules.Slack(c.Req[rv.Res][n]-c.LowerRequested(j, prio, rv.Res, n), rv.Val, c.Alloc[rv.Res][n])
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
	out := evaluated(n, c.Gen[n], s.pgenOf(n))
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
				if (!hasCPU || rules.FitsFree(pcpu[m]-pcpu[i], sCPU)) && (!hasMem || rules.FitsFree(pmem[m]-pmem[i], sMem)) {
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
			out.AddVictim(e.prio, e.start, allViol || e.viol)
			i = lo + 1
		}
		pr.vs = victims
		return out
	}
	viol := sp.viol
	for pass := 0; pass < 2; pass++ {
		for i := range vic {
			e := &vic[i]
			isViol := allViol
			if split {
				if isViol = viol[i]; rules.ReprievePass(isViol) != pass {
					continue
				}
			}
			if rules.FitsFree(1, slackPods) {
				if fast {
					if rules.FitsFree(e.cpu, sCPU) && rules.FitsFree(e.mem, sMem) {
						var vx int64
						if xres >= 0 {
							vx = e.value(s, xres)
						}
						if rules.FitsFree(vx, sX) && !(e.ports && len(ports) > 0 && s.portsClash(e.Pod, ports)) && (rc == nil || s.relReprieve(rc, e.Pod, n)) {
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
			victims = append(victims, e.Pod)
			out.add(e, isViol)
		}
		if !split {
			break
		}
	}
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
			rep = append(rep, splitEnt{start: e.Start, pod: e.Pod, prio: e.Prio, viol: v})
			pcpu, pmem = append(pcpu, pcpu[len(pcpu)-1]+e.cpu), append(pmem, pmem[len(pmem)-1]+e.mem)
		}
		if !split {
			break
		}
	}
	*sp = nodeSplit{gen: gen, pgen: pgen, prio: prio, made: true, off: len(ents) - len(vic), viol: viol, nviol: nviol, rep: rep, pcpu: pcpu, pmem: pmem}
	return sp, vic
}
