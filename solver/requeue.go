package solver

import (
	"github.com/cespare/xxhash/v2"
	"github.com/kplace/kplace/index"
)

// Requeue (Config.RequeueEvicted). A preemption victim is put back in the
// queue at its own priority, ordered as the queue orders pending pods:
// priority descending, then creation time ascending; a pending pod that
// ties with it on both goes first (it was queued before), and victims that
// tie go in eviction order. Every victim has a priority below its
// preemptor's, so it lands after the pod being placed: the batch visits
// pods in non-increasing priority, and a victim, once placed again, cannot
// be evicted a second time (only a pod of higher priority could evict it,
// and none is left). Placed again, it is an ordinary pending pod: it may
// preempt pods of strictly lower priority than its own.

// requeued is an evicted pod waiting in the queue.
type requeued struct {
	prio     int32
	creation int64
	seq      int32 // eviction order
	pod      index.PodID
}

func (a *requeued) before(b *requeued) bool {
	switch {
	case a.prio != b.prio:
		return a.prio > b.prio
	case a.creation != b.creation:
		return a.creation < b.creation
	}
	return a.seq < b.seq
}

// requeueHeap holds the evicted pods waiting, first in queue order on top
// (binheap.go).
type requeueHeap []requeued

func (h *requeueHeap) push(p *index.Pod, pid index.PodID, seq int) {
	*h = heapPush(*h, requeued{prio: p.Priority, creation: p.CreationUnix, seq: int32(seq), pod: pid})
}

func (h *requeueHeap) pop() requeued {
	top := (*h)[0]
	*h = heapPop(*h)
	return top
}

// before reports whether the heap's top goes before pending pod p.
func (h requeueHeap) before(p *index.Pod) bool {
	t := &h[0]
	if t.prio != p.Priority {
		return t.prio > p.Priority
	}
	return t.creation < p.CreationUnix
}

// classOfEvicted returns the class of evicted pod pid put back in the queue
// (-1 for a pod never placed: gated or unsupported): the class of the
// pending pods equal to it in every placement field, or a new one, set up
// at once (its group and, with pod-relative constraints, its counters
// filled from the bound pods now).
func (s *Solver) classOfEvicted(pid index.PodID) int32 {
	p := &s.c.Pods[pid]
	if p.Gated || p.Unsupported != "" {
		return -1
	}
	e := &s.renc
	key, static := e.encode(p)
	if s.rel != nil {
		s.rscratch = s.rel.encodeRel(e, p, s.rscratch)
		key = e.buf
	}
	var fresh []*group
	var reps []index.PodID
	made := false
	id := s.classIdx.find(xxhash.Sum64(key), key, func(id int32) []byte { return s.classes[id].key }, func() int32 {
		made = true
		return s.newClass(pid, key, static, s.groupOf, &fresh, &reps)
	})
	for i, g := range fresh {
		g.ready = make(chan struct{})
		g.init(s.c, &s.c.Pods[reps[i]], newMemo(), &keyEncoder{})
		close(g.ready)
		s.groups++
	}
	cl := s.classes[id]
	if made && s.rel != nil {
		r := s.rel
		from := len(r.counters)
		tracked := make([]bool, from)
		for i, k := range r.counters {
			tracked[i] = k.track
		}
		s.setupClass(cl)
		if len(r.counters) > from {
			s.countFrom(from)
		}
		for i, k := range r.counters[:from] {
			if k.track && !tracked[i] {
				k.readyMin(r.eligDoms) // a counter the new class's hard constraint now tracks
			}
		}
	}
	cl.pods++
	cl.g.pods++
	return id
}
