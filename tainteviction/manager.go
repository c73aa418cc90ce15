package tainteviction

import (
	"time"

	"github.com/kplace/kplace/index"
)

// Pod is what the manager reads of a pod: the key its work goes by (the
// caller's choice: a pod's namespace/name upstream) and its tolerations.
type Pod[K comparable] struct {
	Key         K
	Tolerations []index.Toleration
}

// Outcome is what processing a pod did to its scheduled deletion.
type Outcome uint8

// Outcomes.
const (
	// Unchanged: nothing was scheduled or cancelled (no work, or the
	// existing worker was kept).
	Unchanged Outcome = iota
	// DeleteNow: the pod is to be deleted at once (a taint it does not
	// tolerate, or a toleration of 0 seconds or less).
	DeleteNow
	// Scheduled: a worker was added; Change.FireAt says when it fires.
	Scheduled
	// Cancelled: a scheduled deletion was cancelled (the pod tolerates
	// the taints forever now, or the taints are gone).
	Cancelled
)

// Change is the outcome for one pod.
type Change[K comparable] struct {
	Key     K
	Outcome Outcome
	FireAt  time.Duration // Scheduled only
}

// Manager is the taint manager's state: the NoExecute taints of each
// tainted node (taintedNodes) and the timed worker queue. Node keys N and
// pod keys K are the caller's. Not safe for concurrent use.
type Manager[N, K comparable] struct {
	tainted map[N][]index.Taint
	queue   *Queue[K]
}

// NewManager returns a manager with no tainted node and no work.
func NewManager[N, K comparable]() *Manager[N, K] {
	return &Manager[N, K]{tainted: map[N][]index.Taint{}, queue: NewQueue[K]()}
}

// NodeUpdated is handleNodeUpdate: node's taints are now taints (all of
// them; only the NoExecute ones count) and pods are the pods bound to it.
// The caller calls it when the node's NoExecute taints change (NodeUpdated
// skips updates that leave them equal) and when a node appears. It
// appends to out the change for each pod, in pods' order, and returns it.
func (m *Manager[N, K]) NodeUpdated(node N, taints []index.Taint, pods []Pod[K], now time.Duration, out []Change[K]) []Change[K] {
	noExec := NoExecuteTaints(taints)
	if len(noExec) == 0 {
		delete(m.tainted, node)
	} else {
		m.tainted[node] = noExec
	}
	if len(pods) == 0 {
		return out
	}
	if len(noExec) == 0 {
		// All taints were removed: cancel every eviction of the node.
		for _, p := range pods {
			if m.queue.CancelWork(p.Key) {
				out = append(out, Change[K]{Key: p.Key, Outcome: Cancelled})
			}
		}
		return out
	}
	for _, p := range pods {
		out = append(out, m.process(p, noExec, now))
	}
	return out
}

// NodeDeleted forgets a deleted node's taints (handleNodeUpdate on a node
// that is gone). Work already scheduled for its pods stays.
func (m *Manager[N, K]) NodeDeleted(node N) { delete(m.tainted, node) }

// PodUpdated is handlePodUpdate for a pod now bound to node (a pod added,
// bound, or whose tolerations changed): nothing when the node has no
// NoExecute taints, else processPodOnNode.
func (m *Manager[N, K]) PodUpdated(p Pod[K], node N, now time.Duration) Change[K] {
	taints, ok := m.tainted[node]
	if !ok {
		return Change[K]{Key: p.Key}
	}
	return m.process(p, taints, now)
}

// PodDeleted cancels a deleted pod's work (handlePodUpdate of a pod that
// is gone); it reports whether there was any.
func (m *Manager[N, K]) PodDeleted(key K) bool { return m.queue.CancelWork(key) }

// Scheduled returns pod key's pending deletion.
func (m *Manager[N, K]) Scheduled(key K) (Worker, bool) { return m.queue.Get(key) }

// Next returns when the next scheduled deletion fires.
func (m *Manager[N, K]) Next() (time.Duration, bool) { return m.queue.Next() }

// Due removes and returns the next deletion due at or before now: the
// caller deletes that pod (deletePodHandler).
func (m *Manager[N, K]) Due(now time.Duration) (K, Worker, bool) { return m.queue.PopDue(now) }

// Tainted returns the NoExecute taints the manager knows for node.
func (m *Manager[N, K]) Tainted(node N) []index.Taint { return m.tainted[node] }

// process is processPodOnNode with taints non-empty.
func (m *Manager[N, K]) process(p Pod[K], taints []index.Taint, now time.Duration) Change[K] {
	q := m.queue
	all, used := MatchingTolerations(taints, p.Tolerations)
	if !all {
		// Cancel the scheduled work, if any: the pod goes at once.
		q.CancelWork(p.Key)
		q.AddWork(p.Key, now, now)
		return Change[K]{Key: p.Key, Outcome: DeleteNow}
	}
	least := MinTolerationTime(used)
	if least < 0 {
		if q.CancelWork(p.Key) {
			return Change[K]{Key: p.Key, Outcome: Cancelled}
		}
		return Change[K]{Key: p.Key}
	}
	start, trigger := now, now+least
	if w, ok := q.Get(p.Key); ok {
		start = w.CreatedAt
		if start+least < trigger {
			return Change[K]{Key: p.Key} // keep the earlier schedule
		}
		q.CancelWork(p.Key)
	}
	if _, fireNow := q.AddWork(p.Key, start, trigger); fireNow {
		return Change[K]{Key: p.Key, Outcome: DeleteNow}
	}
	return Change[K]{Key: p.Key, Outcome: Scheduled, FireAt: trigger}
}
