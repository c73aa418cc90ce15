package solver

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// podEnt is one bound pod in a node's importance-ordered list (see
// nodePods): what the preemption dry run reads of it, kept beside its
// neighbours so that a dry run does not chase the pods' records.
type podEnt struct {
	rules.Victim       // the pod, its priority and start (index.StartOf)
	cpu, mem     int64 // requests of the cpu and memory columns
	xval         int64 // request of column xres, the first past cpu and memory (-1: none)
	xres         int32
	more         bool  // the pod requests more columns past xres
	npdb         uint8 // budgets the pod matches: pdb[:npdb], or pdbState.of past len(pdb)
	ports        bool  // the pod has host ports
	made         bool  // the entry is made (see entOf)
	pdb          [2]int32
}

// value returns the request of column r (past cpu and memory) of e's pod.
func (e *podEnt) value(s *Solver, r int32) int64 {
	switch {
	case e.xres == r:
		return e.xval
	case e.more:
		for _, rv := range s.podReq(e.Pod) {
			if rv.Res == r {
				return rv.Val
			}
		}
	}
	return 0
}

// moreImportant orders a node's pods as kube-scheduler's victim selection
// does (rules.MoreImportant).
func moreImportant(a, b *podEnt) bool { return rules.MoreImportant(&a.Victim, &b.Victim) }

// nodeList is a node's bound pods, most important first, as of generation
// gen.
type nodeList struct {
	ents  []podEnt
	gen   uint32
	valid bool
}

// nodePods returns node n's bound pods, most important first, brought up
// to date when the node changed since. Pods of priority below a
// preemptor's are a suffix of it, in the order selectVictims wants them.
func (s *Solver) nodePods(n index.NodeID) []podEnt {
	pr := &s.pre
	if pr.lists == nil {
		pr.lists = make([]nodeList, s.c.NumNodes())
	}
	c := s.c
	l := &pr.lists[n]
	if l.valid && l.gen == c.Gen[n] {
		return l.ents
	}
	on := c.PodsOn[n]
	ents := l.ents[:0]
	if cap(ents) < len(on) {
		ents = make([]podEnt, 0, len(on)+len(on)/4+2)
	}
	if !l.valid {
		for _, q := range on {
			ents = insertEnt(ents, s.entOf(q))
		}
	} else {
		// Keep the entries of the pods still bound here (stamped now), and
		// add the pods not kept (still stamped after the kept ones are
		// stamped again).
		if pr.onStamp == nil {
			pr.onStamp = make([]uint32, len(c.Pods))
		}
		if pr.onNow += 2; pr.onNow < 2 {
			clear(pr.onStamp) // wrapped around
			pr.onNow = 2
		}
		now := pr.onNow
		for _, q := range on {
			pr.onStamp[q] = now
		}
		for _, e := range l.ents {
			if pr.onStamp[e.Pod] == now {
				pr.onStamp[e.Pod] = now + 1
				ents = append(ents, e)
			}
		}
		for _, q := range on {
			if pr.onStamp[q] == now {
				ents = insertEnt(ents, s.entOf(q))
			}
		}
	}
	l.ents, l.gen, l.valid = ents, c.Gen[n], true
	return ents
}

// bindPod binds pod p to node n with demand d, and keeps the node's pod
// list, when up to date before, up to date.
func (s *Solver) bindPod(p index.PodID, n index.NodeID, d *index.Demand) {
	c := s.c
	gen := c.Gen[n]
	c.Bind(p, n, d)
	if pr := &s.pre; pr.lists != nil && !s.cfg.sw.noListUpkeep {
		if l := &pr.lists[n]; l.valid && l.gen == gen {
			l.ents, l.gen = insertEnt(l.ents, s.entOf(p)), c.Gen[n]
		}
	}
	s.portMasks[n] |= portMask(d.Ports) // the mask of the node's ports, with the pod's
	s.refreshUse(n)
}

// listGone takes pod p, just unbound from node n, out of the node's pod
// list when it was up to date before.
func (s *Solver) listGone(p index.PodID, n index.NodeID) {
	pr := &s.pre
	if pr.lists == nil || s.cfg.sw.noListUpkeep {
		return
	}
	l := &pr.lists[n]
	if !l.valid || l.gen != s.c.Gen[n]-1 {
		return
	}
	for i := range l.ents {
		if l.ents[i].Pod == p {
			l.ents = append(l.ents[:i], l.ents[i+1:]...)
			l.gen = s.c.Gen[n]
			return
		}
	}
}

// insertEnt inserts e into ents in importance order.
func insertEnt(ents []podEnt, e podEnt) []podEnt {
	i := len(ents)
	ents = append(ents, e)
	for ; i > 0 && moreImportant(&e, &ents[i-1]); i-- {
		ents[i] = ents[i-1]
	}
	ents[i] = e
	return ents
}

// entOf returns bound pod q's entry for nodePods. An entry depends only on
// the pod and the requests it was bound with, so each is made once; the
// first call makes those of every pod bound then, on every processor, in
// pod order.
func (s *Solver) entOf(q index.PodID) podEnt {
	pr := &s.pre
	if pr.ents == nil {
		s.makeEnts(false)
	}
	if !pr.ents[q].made {
		var buf []int32
		pr.ents[q], buf = s.podEntOf(q, s.pre.pdbBuf[:0], &s.pre.memo)
		s.pre.pdbBuf = buf
	}
	return pr.ents[q]
}

// makeEnts makes the entries of the pods bound now, in parallel; with
// keep, it also keeps their budgets in pod order for initSure
// (entBudgets), unless it leaves some bound pod to entOf.
func (s *Solver) makeEnts(keep bool) {
	c := s.c
	pr := &s.pre
	pr.ents = make([]podEnt, len(c.Pods))
	s.pdbs() // built before the workers read it
	workers := runtime.GOMAXPROCS(0)
	parts := make([][]podBudget, workers)
	var skipped atomic.Bool
	inRanges(workers, len(c.Pods), func(w, lo, hi int) {
		var buf []int32
		var memo budgetMemo
		var part []podBudget
		for q := lo; q < hi; q++ {
			if c.PodNode[q] == index.NoNode {
				continue
			}
			if _, ok := c.BoundRequests(index.PodID(q)); !ok {
				skipped.Store(true)
				continue // podReq would fill its cache: left to entOf
			}
			pr.ents[q], buf = s.podEntOf(index.PodID(q), buf[:0], &memo)
			if keep {
				for _, k := range buf {
					part = append(part, podBudget{pod: index.PodID(q), budget: k})
				}
			}
		}
		parts[w] = part
	})
	if keep && !skipped.Load() {
		pr.entBudgets = parts
	}
}

// podBudget is a bound pod and one budget it matches.
type podBudget struct {
	pod    index.PodID
	budget int32
}

// inRanges runs f over [0, n) split in workers ranges, at once: worker w
// takes [lo, hi).
func inRanges(workers, n int, f func(w, lo, hi int)) {
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w, lo, hi)
		}()
	}
	wg.Wait()
}

// podEntOf describes bound pod q for nodePods; buf is scratch for its
// budgets, returned for reuse. With the pod's bound requests recorded in
// the index it only reads the solver, so workers may call it at once.
func (s *Solver) podEntOf(q index.PodID, buf []int32, memo *budgetMemo) (podEnt, []int32) {
	pp := &s.c.Pods[q]
	req := s.podReq(q)
	e := podEnt{Victim: rules.Victim{Pod: q, Prio: pp.Priority, Start: index.StartOf(pp)}, ports: len(pp.HostPorts) > 0, made: true}
	e.xres = -1
	for _, rv := range req {
		switch {
		case rv.Res == index.ResCPU:
			e.cpu = rv.Val
		case rv.Res == index.ResMemory:
			e.mem = rv.Val
		case e.xres < 0:
			e.xres, e.xval = rv.Res, rv.Val
		default:
			e.more = true
		}
	}
	if pd := s.pdb; pd != nil && pp.NodeName != "" {
		// The entry keeps two budgets; budgets looks more up again. A
		// pod of the batch is never a victim (every later preemptor's
		// priority is at most its own): its budgets are never read.
		buf = pd.matchMemo(pp, buf, memo)
		e.npdb = uint8(min(len(buf), 255))
		copy(e.pdb[:], buf)
	}
	return e, buf
}

// budgets returns the budgets e's pod matches.
func (e *podEnt) budgets(s *Solver) []int32 {
	if int(e.npdb) <= len(e.pdb) {
		return e.pdb[:e.npdb]
	}
	return s.pdb.of(s, e.Pod)
}

// podBudgets returns the budgets bound pod p matches, from its entry (see
// entOf): for a victim, without matching its labels again.
func (s *Solver) podBudgets(p index.PodID) []int32 {
	s.entOf(p)
	return s.pre.ents[p].budgets(s)
}

// lowerSuffix returns the pods of ents (most important first) with
// priority below prio.
func lowerSuffix(ents []podEnt, prio int32) []podEnt {
	lo, hi := 0, len(ents)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ents[m].Prio >= prio {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return ents[lo:]
}
