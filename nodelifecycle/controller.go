package nodelifecycle

import (
	"cmp"
	"container/heap"
	"maps"
	"slices"
	"time"

	"github.com/kplace/kplace/index"
)

// Status is a node's Ready condition status.
type Status uint8

// Ready condition statuses.
const (
	ReadyTrue Status = iota
	ReadyFalse
	ReadyUnknown
)

func (s Status) String() string {
	switch s {
	case ReadyFalse:
		return "False"
	case ReadyUnknown:
		return "Unknown"
	}
	return "True"
}

// Taint keys the controller manages.
const (
	TaintUnreachable   = "node.kubernetes.io/unreachable"
	TaintNotReady      = "node.kubernetes.io/not-ready"
	TaintUnschedulable = "node.kubernetes.io/unschedulable"
)

var (
	unreachableNoExec = index.Taint{Key: TaintUnreachable, Effect: index.EffectNoExecute}
	notReadyNoExec    = index.Taint{Key: TaintNotReady, Effect: index.EffectNoExecute}
)

// Cluster is what the controller reads and changes: node taints, and
// where it tells of Ready and zone state changes. Node names are keys.
type Cluster interface {
	// Taints returns the node's taints.
	Taints(node string) []index.Taint
	// SwapTaints adds add (replacing a taint of the same key and effect)
	// and removes the taints matching remove by key and effect
	// (SwapNodeControllerTaint, RemoveTaintOffNode).
	SwapTaints(node string, add, remove []index.Taint)
	// ReadyChanged tells that the node's Ready condition is now ready
	// (posted by the controller, Unknown, or by the kubelet, True). The
	// node update that follows runs the NoSchedule pass: the caller calls
	// SyncNoSchedule.
	ReadyChanged(node string, ready Status)
	// ZoneChanged tells that a zone's state changed (from a state other
	// than Initial).
	ZoneChanged(zone string, from, to ZoneState)
}

// node is the controller's view of one node.
type node struct {
	name     string
	seq      uint64 // node order
	zone     string
	excluded bool
	ready    Status
	alive    bool          // the kubelet posts (the scenario's truth; the controller sees only heartbeats)
	probe    time.Duration // probeTimestamp, for a node that stopped
	added    bool          // not yet observed by a monitor pass
	removed  bool
	// Zone queue membership: inSet (UniqueQueue's set) and queued (in its
	// heap, at hidx).
	inSet, queued bool
	hidx          int
}

// zoneQueue is one zone's RateLimitedTimedQueue.
type zoneQueue struct {
	lim *limiter
	h   nodeHeap
}

// Controller is the node lifecycle controller's state. Not safe for
// concurrent use.
type Controller struct {
	cfg   Config
	cl    Cluster
	nodes map[string]*node
	seq   uint64
	// zones are zoneNoExecuteTainter; states zoneStates.
	zones  map[string]*zoneQueue
	states map[string]ZoneState
	// attention holds the nodes the next monitor pass must look at: added,
	// recovered, or whose condition taints someone else changed.
	attention map[*node]bool
	// stopped lists the nodes whose kubelet stopped and whose Ready
	// condition is not yet Unknown.
	stopped map[*node]bool
	// dirty: something the zone states depend on changed since the last
	// pass.
	dirty bool
}

// New returns a controller with no nodes.
func New(cfg Config, cl Cluster) *Controller {
	return &Controller{cfg: cfg, cl: cl, nodes: map[string]*node{}, zones: map[string]*zoneQueue{},
		states: map[string]ZoneState{}, attention: map[*node]bool{}, stopped: map[*node]bool{}}
}

// Known adds a node the controller already knows when the scenario
// begins: its Ready status and whether its kubelet posts. A node that is
// not Ready and does not post stopped long ago.
func (c *Controller) Known(name string, labels map[string]string, ready Status, alive bool) {
	n := c.add(name, labels, ready, alive)
	// A node already tainted for its condition was queued and taken off
	// its queue long ago (it stays in the queue's set).
	if ready == ReadyFalse && c.hasTaint(n, notReadyNoExec) || ready == ReadyUnknown && c.hasTaint(n, unreachableNoExec) {
		n.inSet = true
	}
	// One whose taints do not match its condition yet (not Ready without
	// the NoExecute taint, or Ready with one) is what upstream's first
	// monitor pass acts on: queued for tainting, or made reachable.
	if !n.inSet && ready != ReadyTrue || ready == ReadyTrue && (c.hasTaint(n, notReadyNoExec) || c.hasTaint(n, unreachableNoExec)) {
		c.attention[n] = true
	}
}

// AddNode adds a node that registers at now (Ready, its kubelet posting).
// The next monitor pass observes it: it removes the unreachable and
// not-ready NoExecute taints the node may carry (markNodeAsReachable).
func (c *Controller) AddNode(name string, labels map[string]string) {
	n := c.add(name, labels, ReadyTrue, true)
	n.added = true
	c.attention[n] = true
}

func (c *Controller) add(name string, labels map[string]string, ready Status, alive bool) *node {
	n := &node{name: name, seq: c.seq, zone: ZoneKey(labels), excluded: Excluded(labels), ready: ready, alive: alive,
		probe: time.Duration(-1 << 62), hidx: -1}
	c.seq++
	c.nodes[name] = n
	c.dirty = true
	return n
}

// RemoveNode removes a node (the Node object is deleted). A queued node
// stays in its zone's queue until the tainting pass takes it (and a token
// with it) and finds it gone.
func (c *Controller) RemoveNode(name string) {
	n := c.nodes[name]
	if n == nil {
		return
	}
	n.removed = true
	delete(c.nodes, name)
	delete(c.attention, n)
	delete(c.stopped, n)
	c.dirty = true
}

// Fail stops the node's kubelet at now: it renewed its lease then for the
// last time, which the controller sees at its first monitor pass at or
// after now.
func (c *Controller) Fail(name string, now time.Duration) {
	n := c.nodes[name]
	if n == nil || !n.alive {
		return
	}
	n.alive = false
	n.probe = ceilTo(now, c.cfg.MonitorPeriod)
	if n.ready != ReadyUnknown {
		c.stopped[n] = true
	}
}

// Recover restarts the node's kubelet at now: it posts Ready=True at once
// (the caller then runs SyncNoSchedule); the next monitor pass removes the
// NoExecute condition taints.
func (c *Controller) Recover(name string) {
	n := c.nodes[name]
	if n == nil || n.alive {
		return
	}
	n.alive = true
	delete(c.stopped, n)
	if n.ready != ReadyTrue {
		n.ready = ReadyTrue
		c.dirty = true
		c.attention[n] = true
		c.cl.ReadyChanged(n.name, ReadyTrue)
	}
}

// TaintsChanged tells the controller that someone else changed the node's
// taints: the next monitor pass looks at it again.
func (c *Controller) TaintsChanged(name string) {
	if n := c.nodes[name]; n != nil {
		c.attention[n] = true
	}
}

// Ready returns the node's Ready condition status.
func (c *Controller) Ready(name string) Status {
	if n := c.nodes[name]; n != nil {
		return n.ready
	}
	return ReadyUnknown
}

// ZoneState returns a zone's state (Initial when unknown).
func (c *Controller) ZoneState(zone string) ZoneState {
	if s, ok := c.states[zone]; ok {
		return s
	}
	return StateInitial
}

// detectAt is the first monitor pass strictly after n's probe time plus
// the grace period.
func (c *Controller) detectAt(n *node) time.Duration {
	p := c.cfg.MonitorPeriod
	d := n.probe + c.cfg.MonitorGracePeriod
	return d - ((d%p)+p)%p + p
}

// NextMonitor returns the first monitor pass at or after now that has
// work; false when none will until something else happens.
func (c *Controller) NextMonitor(now time.Duration) (time.Duration, bool) {
	if c.dirty || len(c.attention) > 0 {
		return ceilTo(now, c.cfg.MonitorPeriod), true
	}
	best, ok := time.Duration(0), false
	for n := range c.stopped {
		if t := max(c.detectAt(n), ceilTo(now, c.cfg.MonitorPeriod)); !ok || t < best {
			best, ok = t, true
		}
	}
	return best, ok
}

// Monitor is one monitorNodeHealth pass at now.
func (c *Controller) Monitor(now time.Duration) {
	// classifyNodes and addPodEvictorForNewZone: every zone of a node has
	// a queue and a state.
	for _, n := range c.sortedNodes() {
		c.zoneOf(n)
	}
	var work []*node
	for n := range c.stopped {
		if now > n.probe+c.cfg.MonitorGracePeriod {
			work = append(work, n)
		}
	}
	for n := range c.attention {
		work = append(work, n)
	}
	slices.SortFunc(work, func(a, b *node) int { return cmp.Compare(a.seq, b.seq) })
	work = slices.Compact(work)
	for _, n := range work {
		delete(c.attention, n)
		if n.added {
			n.added = false
			c.markReachable(n)
		}
		if c.stopped[n] && now > n.probe+c.cfg.MonitorGracePeriod {
			// tryUpdateNodeHealth: the lease is older than the grace period.
			delete(c.stopped, n)
			n.ready = ReadyUnknown
			c.dirty = true
			c.cl.ReadyChanged(n.name, ReadyUnknown)
		}
		c.processTaintBaseEviction(n)
	}
	c.handleDisruption(now)
	c.dirty = false
}

// processTaintBaseEviction is the controller's reaction to n's Ready status.
func (c *Controller) processTaintBaseEviction(n *node) {
	switch n.ready {
	case ReadyFalse:
		if c.hasTaint(n, unreachableNoExec) {
			c.cl.SwapTaints(n.name, []index.Taint{notReadyNoExec}, []index.Taint{unreachableNoExec})
		} else {
			c.markForTainting(n, notReadyNoExec)
		}
	case ReadyUnknown:
		if c.hasTaint(n, notReadyNoExec) {
			c.cl.SwapTaints(n.name, []index.Taint{unreachableNoExec}, []index.Taint{notReadyNoExec})
		} else {
			c.markForTainting(n, unreachableNoExec)
		}
	default:
		c.markReachable(n)
	}
}

// markForTainting queues n unless it already carries tmpl and was queued.
func (c *Controller) markForTainting(n *node, tmpl index.Taint) {
	q := c.zoneOf(n)
	if !c.hasTaint(n, tmpl) {
		q.remove(n)
	}
	q.add(n)
}

// markReachable is markNodeAsReachable: remove both NoExecute condition
// taints and take n off its queue.
func (c *Controller) markReachable(n *node) {
	var drop []index.Taint
	for _, t := range []index.Taint{unreachableNoExec, notReadyNoExec} {
		if c.hasTaint(n, t) {
			drop = append(drop, t)
		}
	}
	if len(drop) > 0 {
		c.cl.SwapTaints(n.name, nil, drop)
	}
	c.zoneOf(n).remove(n)
}

func (c *Controller) hasTaint(n *node, t index.Taint) bool {
	for _, x := range c.cl.Taints(n.name) {
		if x.Key == t.Key && x.Effect == t.Effect {
			return true
		}
	}
	return false
}

// zoneOf returns n's zone queue, made with its zone state on first use
// (addPodEvictorForNewZone; a zone whose state was dropped gets a new
// queue, as upstream).
func (c *Controller) zoneOf(n *node) *zoneQueue {
	q := c.zones[n.zone]
	if _, ok := c.states[n.zone]; !ok || q == nil {
		c.states[n.zone] = StateInitial
		if q != nil {
			for _, m := range q.h {
				m.inSet, m.queued, m.hidx = false, false, -1
			}
			for _, m := range c.nodes {
				if m.zone == n.zone {
					m.inSet = false
					if m.ready != ReadyTrue {
						c.attention[m] = true
					}
				}
			}
		}
		q = &zoneQueue{lim: newLimiter(c.cfg.EvictionRate)}
		c.zones[n.zone] = q
	}
	return q
}

// handleDisruption updates the zone states and their queues' rates.
func (c *Controller) handleDisruption(now time.Duration) {
	ready, notReady := map[string]int{}, map[string]int{}
	for _, n := range c.nodes {
		if n.excluded {
			continue
		}
		if n.ready == ReadyTrue {
			ready[n.zone]++
		} else {
			notReady[n.zone]++
		}
	}
	zones := map[string]bool{}
	for z := range ready {
		zones[z] = true
	}
	for z := range notReady {
		zones[z] = true
	}
	newStates := map[string]ZoneState{}
	allAre := true
	for z := range zones {
		s := ComputeZoneState(ready[z], notReady[z], c.cfg.UnhealthyZoneThreshold)
		allAre = allAre && s == StateFullDisruption
		newStates[z] = s
		if _, had := c.states[z]; !had {
			c.states[z] = StateInitial
		}
	}
	allWas := true
	for _, z := range slices.Sorted(maps.Keys(c.states)) {
		if !zones[z] {
			delete(c.states, z)
			continue
		}
		if c.states[z] != StateFullDisruption {
			allWas = false
			break
		}
	}
	if allAre && allWas {
		return
	}
	if allAre {
		// Master disruption mode: untaint every node, stop tainting.
		for _, n := range c.sortedNodes() {
			c.markReachable(n)
		}
		for _, z := range slices.Sorted(maps.Keys(c.states)) {
			c.zones[z].swapLimiter(0, now)
		}
		for _, z := range slices.Sorted(maps.Keys(c.states)) {
			c.setState(z, StateFullDisruption)
		}
		// Every pass processes every node: the next one queues the nodes
		// that are not Ready again (their limiters accept nothing now).
		for _, n := range c.nodes {
			if n.ready != ReadyTrue {
				c.attention[n] = true
			}
		}
		return
	}
	if allWas {
		// Leaving it: every node's probe is now, every limiter reset.
		for _, n := range c.sortedNodes() {
			n.probe = now
		}
		for _, z := range slices.Sorted(maps.Keys(c.states)) {
			c.setLimiter(z, newStates[z], ready[z]+notReady[z], now)
			c.setState(z, newStates[z])
		}
		return
	}
	for _, z := range slices.Sorted(maps.Keys(c.states)) {
		if s := newStates[z]; c.states[z] != s {
			c.setLimiter(z, s, ready[z]+notReady[z], now)
			c.setState(z, s)
		}
	}
}

func (c *Controller) setState(z string, s ZoneState) {
	old := c.states[z]
	c.states[z] = s
	if old != s && old != StateInitial {
		c.cl.ZoneChanged(z, old, s)
	}
}

// setLimiter is setLimiterInZone.
func (c *Controller) setLimiter(z string, s ZoneState, size int, now time.Duration) {
	if qps, ok := c.cfg.zoneRate(s, size); ok {
		c.zones[z].swapLimiter(qps, now)
	}
}

// swapLimiter is SwapLimiter: a new bucket for another rate, drained when
// the old one had no token left.
func (q *zoneQueue) swapLimiter(qps float32, now time.Duration) {
	if q.lim.rate() == qps {
		return
	}
	next := newLimiter(qps)
	if !next.never && !q.lim.tryAccept(now) {
		next.tryAccept(now)
	}
	q.lim = next
}

// NextTaintPass returns the first tainting pass at or after now at which
// some zone's queue has a node and its limiter a token.
func (c *Controller) NextTaintPass(now time.Duration) (time.Duration, bool) {
	best, ok := time.Duration(0), false
	for _, q := range c.zones {
		if len(q.h) == 0 {
			continue
		}
		if t, can := q.lim.nextAccept(now, EvictionPeriod); can && (!ok || t < best) {
			best, ok = t, true
		}
	}
	return best, ok
}

// TaintPass is one doNoExecuteTaintingPass at now: each zone's queue, in
// zone key order, gives up nodes while its limiter accepts.
func (c *Controller) TaintPass(now time.Duration) {
	for _, z := range slices.Sorted(maps.Keys(c.zones)) {
		q := c.zones[z]
		for len(q.h) > 0 {
			if !q.lim.tryAccept(now) {
				break
			}
			n := q.h[0]
			heap.Pop(&q.h)
			n.queued = false // RemoveFromQueue: it stays in the set
			if n.removed {
				continue // not found: done
			}
			switch n.ready {
			case ReadyFalse:
				c.cl.SwapTaints(n.name, []index.Taint{notReadyNoExec}, []index.Taint{unreachableNoExec})
			case ReadyUnknown:
				c.cl.SwapTaints(n.name, []index.Taint{unreachableNoExec}, []index.Taint{notReadyNoExec})
			}
		}
	}
}

// SyncNoSchedule is doNoScheduleTaintingPass for the Ready condition and
// spec.unschedulable: node.kubernetes.io/not-ready (Ready False) or
// unreachable (Unknown) and node.kubernetes.io/unschedulable (cordoned),
// all NoSchedule, added or removed to match. The caller runs it on every
// update of the node's Ready condition or of its unschedulable flag.
func (c *Controller) SyncNoSchedule(name string, unschedulable bool) {
	n := c.nodes[name]
	if n == nil {
		return
	}
	var want []index.Taint
	switch n.ready {
	case ReadyFalse:
		want = append(want, index.Taint{Key: TaintNotReady, Effect: index.EffectNoSchedule})
	case ReadyUnknown:
		want = append(want, index.Taint{Key: TaintUnreachable, Effect: index.EffectNoSchedule})
	}
	if unschedulable {
		want = append(want, index.Taint{Key: TaintUnschedulable, Effect: index.EffectNoSchedule})
	}
	var have []index.Taint
	for _, t := range c.cl.Taints(name) {
		if t.Effect == index.EffectNoSchedule && (t.Key == TaintUnschedulable || t.Key == TaintNotReady || t.Key == TaintUnreachable) {
			have = append(have, t)
		}
	}
	add, del := taintDiff(want, have), taintDiff(have, want)
	if len(add) > 0 || len(del) > 0 {
		c.cl.SwapTaints(name, add, del)
	}
}

// taintDiff returns the taints of a with no taint of the same key and
// effect in b (taintutils.TaintSetDiff).
func taintDiff(a, b []index.Taint) []index.Taint {
	var out []index.Taint
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y index.Taint) bool { return x.Key == y.Key && x.Effect == y.Effect }) {
			out = append(out, x)
		}
	}
	return out
}

func (c *Controller) sortedNodes() []*node {
	out := make([]*node, 0, len(c.nodes))
	for _, n := range c.nodes {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b *node) int { return cmp.Compare(a.seq, b.seq) })
	return out
}

// add is UniqueQueue.Add: false when n is in the set already.
func (q *zoneQueue) add(n *node) bool {
	if n.inSet {
		return false
	}
	n.inSet, n.queued = true, true
	heap.Push(&q.h, n)
	return true
}

// remove is UniqueQueue.Remove: out of the set and the heap.
func (q *zoneQueue) remove(n *node) {
	if !n.inSet {
		return
	}
	n.inSet = false
	if n.queued {
		heap.Remove(&q.h, n.hidx)
		n.queued = false
	}
}

// nodeHeap orders a zone's queued nodes by node order.
type nodeHeap []*node

func (h nodeHeap) Len() int           { return len(h) }
func (h nodeHeap) Less(i, j int) bool { return h[i].seq < h[j].seq }
func (h nodeHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].hidx, h[j].hidx = i, j
}
func (h *nodeHeap) Push(x any) {
	n := x.(*node)
	n.hidx = len(*h)
	*h = append(*h, n)
}
func (h *nodeHeap) Pop() any {
	old := *h
	n := old[len(old)-1]
	old[len(old)-1] = nil
	n.hidx = -1
	*h = old[:len(old)-1]
	return n
}
