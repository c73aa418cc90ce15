package live

import (
	"container/heap"
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Polling intervals of a victim: the first look soon after the Eviction
// (a pod without a grace period is gone at once), then doubling to
// pollMax (a kubelet confirms a pod's end within its grace period, 30 s by
// default).
const (
	pollFirst = 100 * time.Millisecond
	pollMax   = 5 * time.Second
)

// poller waits for evicted victims to be gone: it reads each from the API
// server's cache (resourceVersion 0, cheap for the server) at growing
// intervals, through the client's rate limiter, until the pod is gone or
// replaced by one of another uid, or WaitTimeout has passed.
type poller struct {
	b    *binder
	mu   sync.Mutex
	h    pollHeap
	wake chan struct{}
}

type pollEntry struct {
	due, deadline time.Time
	wait          time.Duration
	i             int
	uid           types.UID // the victim's; "" unknown: any pod of its name counts as the victim
}

type pollHeap []pollEntry

func (h pollHeap) Len() int           { return len(h) }
func (h pollHeap) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h pollHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pollHeap) Push(x any)        { *h = append(*h, x.(pollEntry)) }
func (h *pollHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func newPoller(b *binder) *poller { return &poller{b: b, wake: make(chan struct{}, 1)} }

// add starts waiting for item i's victim.
func (p *poller) add(i int, uid types.UID) {
	now := time.Now()
	p.mu.Lock()
	heap.Push(&p.h, pollEntry{due: now.Add(pollFirst), deadline: now.Add(p.b.opts.WaitTimeout), wait: pollFirst, i: i, uid: uid})
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// run polls until ctx ends.
func (p *poller) run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		p.mu.Lock()
		var e pollEntry
		ready := false
		wait := time.Hour
		if len(p.h) > 0 {
			if d := time.Until(p.h[0].due); d <= 0 {
				e, ready = heap.Pop(&p.h).(pollEntry), true
			} else {
				wait = d
			}
		}
		p.mu.Unlock()
		if !ready {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-p.wake:
			case <-timer.C:
			}
			continue
		}
		p.look(ctx, e)
	}
}

// look reads one victim and settles it or schedules the next look.
func (p *poller) look(ctx context.Context, e pollEntry) {
	b, it := p.b, &p.b.plan.Items[e.i]
	pod, err := b.c.Kube.CoreV1().Pods(it.Namespace).Get(ctx, it.Name, metav1.GetOptions{ResourceVersion: "0"})
	switch {
	case apierrors.IsNotFound(err) || err == nil && e.uid != "" && pod.UID != e.uid:
		b.evictedGone(e.i, &b.rep.Counts.Evicted)
		return
	case ctx.Err() != nil:
		return
	case time.Now().After(e.deadline):
		msg := fmt.Sprintf("still there %s after its Eviction", b.opts.WaitTimeout)
		if err != nil {
			msg += ": " + err.Error()
		}
		b.fail(e.i, ReasonVictimStays, msg)
		return
	}
	e.wait = min(2*e.wait, pollMax)
	e.due = time.Now().Add(e.wait)
	p.mu.Lock()
	heap.Push(&p.h, e)
	p.mu.Unlock()
}
