package index

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// maxLowThresholds bounds the priorities with O(1) lower-priority sums: each
// costs one int64 per node and resource.
const maxLowThresholds = 32

// initLow picks the thresholds (the priorities in use, the most common ones
// when there are too many) and sizes Low and MaxOne; nothing when no
// pending pod may preempt. Every resource column must exist.
func (c *Cluster) initLow() {
	for i := range c.Pods {
		if p := &c.Pods[i]; p.NodeName == "" && p.Rejected == "" && p.PreemptionPolicy != PreemptNever {
			c.sizeLow()
			return
		}
	}
}

// sizeLow picks the thresholds and sizes Low and MaxOne (empty sums).
func (c *Cluster) sizeLow() {
	// Every priority in use is a threshold, so sums "up to a victim's
	// priority" exist as well as "below the preemptor's".
	// Runs of one priority counted at once: a workload's pods follow
	// each other (two million pods at 100,000 nodes).
	count := map[int32]int{}
	run, runPrio := 0, int32(0)
	for i := range c.Pods {
		if p := &c.Pods[i]; p.Rejected == "" {
			if p.Priority != runPrio && run > 0 {
				count[runPrio] += run
				run = 0
			}
			run, runPrio = run+1, p.Priority
		}
	}
	if run > 0 {
		count[runPrio] += run
	}
	prios := make([]int32, 0, len(count))
	for pr := range count {
		prios = append(prios, pr)
	}
	if len(prios) > maxLowThresholds {
		slices.SortFunc(prios, func(a, b int32) int {
			if c := cmp.Compare(count[b], count[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		prios = prios[:maxLowThresholds]
	}
	slices.Sort(prios)
	c.LowPrio = prios
	if len(prios) == 0 {
		return
	}
	c.lowLive = len(prios)
	c.Low = make([][]int64, len(prios)*len(c.ResNames))
	c.MaxOne = make([][]int64, len(prios)*len(c.ResNames))
	for i := range c.Low {
		c.Low[i] = make([]int64, len(c.Nodes))
		c.MaxOne[i] = make([]int64, len(c.Nodes))
	}
	c.latest = make([][]int64, len(prios))
	for j := range c.latest {
		col := make([]int64, len(c.Nodes))
		for n := range col {
			col[n] = math.MinInt64
		}
		c.latest[j] = col
	}
	c.lowFrom = make([]uint8, len(c.Pods))
	c.startOf = make([]int64, len(c.Pods))
	c.prioOf = make([]int32, len(c.Pods))
	c.bound.off = make([]int32, len(c.Pods))
	c.bound.n = make([]uint8, len(c.Pods))
	c.bound.vals = make([]ResVal, 0, 2*len(c.Pods))
	from, fromPrio := uint8(0), int32(0)
	for i := range c.Pods {
		p := &c.Pods[i]
		c.startOf[i], c.prioOf[i] = StartOf(p), p.Priority
		if i == 0 || p.Priority != fromPrio {
			from, fromPrio = uint8(sort.Search(len(prios), func(j int) bool { return prios[j] > p.Priority })), p.Priority
		}
		c.lowFrom[i] = from
	}
}

// addLow adds (sign 1) or removes (-1) pod p's demand d on node n to the
// lower-priority sums of every threshold above its priority.
func (c *Cluster) addLow(p PodID, n NodeID, d *Demand, sign int64) {
	if c.Low == nil {
		return
	}
	if sign > 0 {
		c.bound.record(p, d.Req)
	}
	c.addLowSums(p, n, d, sign)
}

// addLowSums is addLow but for the recorded requests.
func (c *Cluster) addLowSums(p PodID, n NodeID, d *Demand, sign int64) {
	if c.Low == nil {
		return
	}
	nres := len(c.ResNames)
	for j := int(c.lowFrom[p]); j < c.lowLive; j++ {
		col := c.Low[j*nres:]
		col[ResPods][n] += sign
		for _, rv := range d.Req {
			col[rv.Res][n] += sign * rv.Val
		}
		if sign > 0 {
			one := c.MaxOne[j*nres:]
			for _, rv := range d.Req {
				one[rv.Res][n] = max(one[rv.Res][n], rv.Val)
			}
		}
	}
	if j, ok := c.prioThreshold(p); ok && sign > 0 { // Unbind: dropLatest
		c.latest[j][n] = max(c.latest[j][n], c.startOf[p])
	}
}

// prioThreshold returns the threshold whose priority is pod p's, when
// there is one and its latest start is kept up to date.
func (c *Cluster) prioThreshold(p PodID) (int, bool) {
	j := int(c.lowFrom[p]) - 1
	return j, j >= 0 && j < c.lowLive && c.LowPrio[j] == c.Pods[p].Priority
}

// dropLatest brings the latest start of pod p's priority on node n up to
// date after p left n.
func (c *Cluster) dropLatest(p PodID, n NodeID) {
	j, ok := c.prioThreshold(p)
	if !ok || c.startOf[p] < c.latest[j][n] {
		return
	}
	// From the dense columns, not the pod records.
	latest := int64(math.MinInt64)
	for _, q := range c.PodsOn[n] {
		if c.prioOf[q] == c.prioOf[p] {
			latest = max(latest, c.startOf[q])
		}
	}
	c.latest[j][n] = latest
}

// StartOf is pod p's start as kube-scheduler's preemption compares it: a
// pod without a start time counts as started now, after every other.
func StartOf(p *Pod) int64 {
	if p.StartUnix == 0 {
		return math.MaxInt64
	}
	return p.StartUnix
}

// LatestStart returns the latest start (StartOf) of node n's pods of
// priority LowPrio[j], math.MinInt64 when it has none. j must be a
// threshold Bind and Unbind keep up to date (see KeepLowUpTo).
func (c *Cluster) LatestStart(j int, n NodeID) int64 { return c.latest[j][n] }

// KeepLowUpTo stops keeping the sums of the thresholds above priority prio
// up to date: a solver calls it when no preemptor of higher priority is
// left (its queue runs in priority order), and must not read those sums
// afterwards. Every Bind of a low-priority pod otherwise adds its requests
// to the sums of every threshold above it. It never widens the set.
func (c *Cluster) KeepLowUpTo(prio int32) {
	live := sort.Search(len(c.LowPrio), func(j int) bool { return c.LowPrio[j] > prio })
	c.lowLive = min(c.lowLive, live)
}

// MaxRequest returns at least the largest request of resource r by one pod
// of priority below LowPrio[j] on node n (the largest ever bound there).
func (c *Cluster) MaxRequest(j int, r int32, n NodeID) int64 {
	return c.MaxOne[j*len(c.ResNames)+int(r)][n]
}

// LowIndex returns the threshold index of preemptor priority prio, or -1
// when prio has no O(1) sums (then LowerRequested scans the node).
func (c *Cluster) LowIndex(prio int32) int {
	j, ok := slices.BinarySearch(c.LowPrio, prio)
	if !ok {
		return -1
	}
	return j
}

// LowerRequested returns what pods of priority below prio request of
// resource r on node n; j is LowIndex(prio).
func (c *Cluster) LowerRequested(j int, prio int32, r int32, n NodeID) int64 {
	if j >= 0 {
		return c.Low[j*len(c.ResNames)+int(r)][n]
	}
	var sum int64
	for _, q := range c.PodsOn[n] {
		pp := &c.Pods[q]
		if pp.Priority >= prio {
			continue
		}
		if r == ResPods {
			sum++
			continue
		}
		if v, ok := pp.Requests.Get(c.ResNames[r]); ok && Checked(c.ResNames[r]) {
			sum += v
		}
	}
	return sum
}

// boundReqs holds, when some pod may preempt, the requests each pod was
// last bound with: vals[off[p]-1:][:n[p]] (off 0: never bound).
type boundReqs struct {
	off  []int32
	n    []uint8
	vals []ResVal
}

func (b *boundReqs) record(p PodID, req []ResVal) {
	b.vals = b.recordIn(b.vals, p, req, 1)
}

// recordIn records p's requests req at the end of vals, one of parts lists
// joined later (offsets count from vals' start), and returns vals.
func (b *boundReqs) recordIn(vals []ResVal, p PodID, req []ResVal, parts int) []ResVal {
	if len(req) > 255 || len(vals)+len(req) >= (1<<31-1)/parts {
		b.off[p] = 0
		return vals
	}
	b.off[p], b.n[p] = int32(len(vals)+1), uint8(len(req))
	return append(vals, req...)
}

// BoundRequests returns the requests, by column, that pod p was last bound
// with (the Demand's Req), when recorded: they are recorded when some
// pending pod may preempt.
func (c *Cluster) BoundRequests(p PodID) ([]ResVal, bool) {
	if c.bound.off == nil || c.bound.off[p] == 0 {
		return nil, false
	}
	off := c.bound.off[p] - 1
	return c.bound.vals[off : off+int32(c.bound.n[p])], true
}
