package tainteviction

import (
	"container/heap"
	"time"
)

// Worker is one scheduled deletion: made at CreatedAt, due at FireAt
// (TimedWorker).
type Worker struct {
	CreatedAt, FireAt time.Duration
}

// Queue is the timed worker queue (TimedWorkerQueue) on a virtual clock:
// at most one worker per key, fired in FireAt order (ties in the order
// they were added; upstream's timers fire in any order). The zero value is
// not usable: make one with NewQueue. Not safe for concurrent use.
type Queue[K comparable] struct {
	byKey map[K]*queued[K]
	h     workerHeap[K]
	seq   uint64
}

type queued[K comparable] struct {
	key K
	w   Worker
	seq uint64
	at  int // index in the heap
}

// NewQueue returns an empty queue.
func NewQueue[K comparable]() *Queue[K] {
	return &Queue[K]{byKey: map[K]*queued[K]{}}
}

// AddWork adds a worker for key unless key already has one (added false:
// AddWork skips existing work). A worker whose fireAt is not after
// createdAt runs at once (createWorker starts it without a timer): fireNow
// is then true and the queue keeps nothing, as v1.36 drops the key once
// the work has run.
func (q *Queue[K]) AddWork(key K, createdAt, fireAt time.Duration) (added, fireNow bool) {
	if _, ok := q.byKey[key]; ok {
		return false, false
	}
	if fireAt-createdAt <= 0 {
		return true, true
	}
	e := &queued[K]{key: key, w: Worker{CreatedAt: createdAt, FireAt: fireAt}, seq: q.seq}
	q.seq++
	q.byKey[key] = e
	heap.Push(&q.h, e)
	return true, false
}

// CancelWork removes key's worker; it reports whether there was one.
func (q *Queue[K]) CancelWork(key K) bool {
	e, ok := q.byKey[key]
	if !ok {
		return false
	}
	delete(q.byKey, key)
	heap.Remove(&q.h, e.at)
	return true
}

// Get returns key's worker (GetWorkerUnsafe).
func (q *Queue[K]) Get(key K) (Worker, bool) {
	e, ok := q.byKey[key]
	if !ok {
		return Worker{}, false
	}
	return e.w, true
}

// Next returns the earliest FireAt; false when the queue is empty.
func (q *Queue[K]) Next() (time.Duration, bool) {
	if len(q.h) == 0 {
		return 0, false
	}
	return q.h[0].w.FireAt, true
}

// PopDue removes and returns the next worker due at or before now.
func (q *Queue[K]) PopDue(now time.Duration) (K, Worker, bool) {
	if len(q.h) == 0 || q.h[0].w.FireAt > now {
		var zero K
		return zero, Worker{}, false
	}
	e := heap.Pop(&q.h).(*queued[K])
	delete(q.byKey, e.key)
	return e.key, e.w, true
}

// Len is the number of workers waiting.
func (q *Queue[K]) Len() int { return len(q.h) }

type workerHeap[K comparable] []*queued[K]

func (h workerHeap[K]) Len() int { return len(h) }
func (h workerHeap[K]) Less(i, j int) bool {
	if h[i].w.FireAt != h[j].w.FireAt {
		return h[i].w.FireAt < h[j].w.FireAt
	}
	return h[i].seq < h[j].seq
}
func (h workerHeap[K]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].at, h[j].at = i, j
}
func (h *workerHeap[K]) Push(x any) {
	e := x.(*queued[K])
	e.at = len(*h)
	*h = append(*h, e)
}
func (h *workerHeap[K]) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}
