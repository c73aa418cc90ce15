package index

import (
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
)

// Changes between batches. A what-if engine keeps one Cluster across many
// batches and changes it the way a live cluster changes: pods created,
// deleted, bound; taints and cordons set. These keep every index (taint
// bitmaps, pods by node, the lower-priority sums) as Build would make it
// for the same nodes and pods. They are not safe for concurrent use, nor
// during a solve.

// StaticChange is a change of a node's taints or cordon, and what the
// node had before it.
type StaticChange struct {
	Node          NodeID
	Taints        []Taint
	Unschedulable bool
}

func (c *Cluster) logStatic(n NodeID) {
	c.Static = append(c.Static, StaticChange{Node: n, Taints: c.Nodes[n].Taints, Unschedulable: c.Nodes[n].Unschedulable})
}

// SetTaints replaces node n's taints.
func (c *Cluster) SetTaints(n NodeID, taints []Taint) {
	c.logStatic(n)
	for _, ti := range c.NodeTaints[n] {
		c.TaintNodes[ti].Remove(n)
	}
	own := c.NodeTaints[n][:0]
	for _, t := range taints {
		ti := int32(slices.Index(c.Taints, t))
		if ti < 0 {
			ti = int32(len(c.Taints))
			c.Taints = append(c.Taints, t)
			c.TaintNodes = append(c.TaintNodes, roaring.New())
		}
		c.TaintNodes[ti].Add(n)
		own = append(own, ti)
	}
	c.NodeTaints[n] = own
	c.Nodes[n].Taints = slices.Clone(taints)
	c.touch(n)
}

// SetUnschedulable sets node n's spec.unschedulable (cordon, uncordon).
func (c *Cluster) SetUnschedulable(n NodeID, v bool) {
	c.logStatic(n)
	c.Nodes[n].Unschedulable = v
	if v {
		c.Unschedulable.Add(n)
	} else {
		c.Unschedulable.Remove(n)
	}
	c.touch(n)
}

// AddPod appends pod p, unbound, and returns its id. The caller binds it
// (Bind) or lists it in Pending for the next batch; a pod the API server
// would reject is not to be added. A resource no pod or node had before
// gets a column (the lower-priority sums are then made again).
func (c *Cluster) AddPod(p Pod) PodID {
	pid := PodID(len(c.Pods))
	c.Pods = append(c.Pods, p)
	c.PodNode = append(c.PodNode, NoNode)
	c.MinPriority = min(c.MinPriority, p.Priority)
	if len(p.Spread) > 0 || len(p.Affinity) > 0 || len(p.PreferredAffinity) > 0 || len(p.AntiAffinity) > 0 || len(p.PreferredAntiAffinity) > 0 {
		c.RelPods = append(c.RelPods, pid)
	}
	columns := len(c.ResNames)
	for _, q := range p.Requests {
		c.resColumn(q.Name)
	}
	if c.Low == nil {
		return pid
	}
	if len(c.ResNames) != columns {
		c.Low = nil
		c.EnsureLow()
		return pid
	}
	c.lowFrom = append(c.lowFrom, uint8(sort.Search(len(c.LowPrio), func(j int) bool { return c.LowPrio[j] > p.Priority })))
	c.startOf = append(c.startOf, StartOf(&c.Pods[pid]))
	c.prioOf = append(c.prioOf, p.Priority)
	c.bound.off = append(c.bound.off, 0)
	c.bound.n = append(c.bound.n, 0)
	return pid
}

// EnsureLow makes the lower-priority sums preemption reads, every
// threshold up to date, from the pods bound now: when Build did not (no
// pending pod could preempt then) or a solve narrowed them (KeepLowUpTo).
// A solver that calls KeepLowUpTo narrows them again.
func (c *Cluster) EnsureLow() {
	if c.Low != nil && c.lowLive == len(c.LowPrio) {
		return
	}
	c.Low = nil
	c.sizeLow()
	if c.Low == nil {
		return
	}
	for p, n := range c.PodNode {
		if n != NoNode {
			d := c.DemandOf(&c.Pods[p])
			c.addLow(PodID(p), NodeID(n), &d, 1)
		}
	}
}

// SetStart sets pod p's status.startTime (Unix seconds, 0: none), as the
// kubelet does once the pod runs.
func (c *Cluster) SetStart(p PodID, unix int64) {
	if c.Low == nil || c.PodNode[p] == NoNode {
		c.Pods[p].StartUnix = unix
		if c.Low != nil {
			c.startOf[p] = StartOf(&c.Pods[p])
		}
		return
	}
	// The latest start per node and priority: take the pod off and put
	// it back with its new start.
	n := NodeID(c.PodNode[p])
	d := c.DemandOf(&c.Pods[p])
	c.Unbind(p, &d)
	c.Pods[p].StartUnix = unix
	c.startOf[p] = StartOf(&c.Pods[p])
	c.Bind(p, n, &d)
}
