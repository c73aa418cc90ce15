// Package htmlreport writes a placement run as one self-contained HTML
// page: utilisation per zone and node pool before and after, pending pods
// by reason, plugin and workload, preemptions, and the skew of the spread
// constraints. Charts are inline SVG drawn here (html/template): the page
// loads nothing, runs no script, and aggregates (never one bar per node),
// so its size depends on the groups and reasons, not the cluster's size.
package htmlreport

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/scenario"
	"github.com/kplace/kplace/solver"
	"github.com/kplace/kplace/solver/rules"
)

// Zone label keys, most specific first.
var zoneKeys = []string{"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"}

// PoolKeys are the node pool labels the page groups by: the first that
// at least half the nodes carry (the managed services' pool labels, then
// common hand-made ones), else the instance type.
var PoolKeys = []string{
	"cloud.google.com/gke-nodepool",
	"eks.amazonaws.com/nodegroup",
	"karpenter.sh/nodepool",
	"kubernetes.azure.com/agentpool",
	"agentpool",
	"node-pool",
	"nodepool",
	"pool",
	"node.kubernetes.io/instance-type",
}

// GPU is the resource the page shows beside cpu and memory when a node
// has it.
const GPU = "nvidia.com/gpu"

// maxGroups is how many zones or pools get their own bars; the rest are
// summed into one "other" group.
const maxGroups = 24

// Usage is the requests and allocatable of the nodes per group, for cpu,
// memory and (when present) GPU: a cluster's state reduced to a few
// numbers, taken before and after a solve.
type Usage struct {
	// ZoneKey and PoolKey are the labels grouped by ("" when no node has
	// one).
	ZoneKey, PoolKey string
	Zones, Pools     []Group
	// Resources are the resource names measured, in order.
	Resources []string
}

// Group is one zone or pool.
type Group struct {
	Name  string
	Nodes int
	// Alloc and Req hold, per Usage.Resources, the allocatable and the
	// requests of the pods bound.
	Alloc, Req []int64
}

// Measure reduces c's nodes to their usage per zone and pool.
func Measure(c *index.Cluster) Usage {
	u := Usage{ZoneKey: commonKey(c, zoneKeys), PoolKey: commonKey(c, PoolKeys)}
	cols := []int32{index.ResCPU, index.ResMemory}
	u.Resources = []string{index.NameCPU, index.NameMemory}
	if r, ok := c.ResIndex[GPU]; ok {
		cols = append(cols, r)
		u.Resources = append(u.Resources, GPU)
	}
	group := func(key string) []Group {
		at := map[string]int{}
		var out []Group
		for n := range c.Nodes {
			name := "(none)"
			if v, ok := c.Nodes[n].Labels[key]; ok {
				name = v
			}
			i, ok := at[name]
			if !ok {
				i = len(out)
				at[name] = i
				out = append(out, Group{Name: name, Alloc: make([]int64, len(cols)), Req: make([]int64, len(cols))})
			}
			g := &out[i]
			g.Nodes++
			for j, r := range cols {
				g.Alloc[j] += c.Alloc[r][n]
				g.Req[j] += c.Req[r][n]
			}
		}
		sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
		return fold(out)
	}
	if u.ZoneKey != "" {
		u.Zones = group(u.ZoneKey)
	}
	if u.PoolKey != "" {
		u.Pools = group(u.PoolKey)
	}
	return u
}

// fold keeps the maxGroups-1 largest groups (by nodes) and sums the rest
// into "other", in name order.
func fold(gs []Group) []Group {
	if len(gs) <= maxGroups {
		return gs
	}
	bySize := append([]Group(nil), gs...)
	sort.SliceStable(bySize, func(a, b int) bool { return bySize[a].Nodes > bySize[b].Nodes })
	keep, rest := bySize[:maxGroups-1], bySize[maxGroups-1:]
	other := Group{Name: fmt.Sprintf("other (%d)", len(rest)), Alloc: make([]int64, len(rest[0].Alloc)), Req: make([]int64, len(rest[0].Req))}
	for _, g := range rest {
		other.Nodes += g.Nodes
		for j := range g.Alloc {
			other.Alloc[j] += g.Alloc[j]
			other.Req[j] += g.Req[j]
		}
	}
	sort.Slice(keep, func(a, b int) bool { return keep[a].Name < keep[b].Name })
	return append(keep, other)
}

// commonKey is the first of keys that at least half of c's nodes carry
// ("" when none does).
func commonKey(c *index.Cluster, keys []string) string {
	for _, k := range keys {
		n := 0
		for i := range c.Nodes {
			if _, ok := c.Nodes[i].Labels[k]; ok {
				n++
			}
		}
		if n > 0 && 2*n >= len(c.Nodes) {
			return k
		}
	}
	return ""
}

// Preemption is one eviction: the victim, its node and the pod that
// needed the room.
type Preemption struct {
	Preemptor, Victim, Node string
	VictimPriority          int32
	PreemptorPriority       int32
}

// maxPreemptions is how many evictions the page lists.
const maxPreemptions = 100

// preemptions lists res's evictions in commit order, at most
// maxPreemptions, and the count of the rest.
func preemptions(c *index.Cluster, res *solver.Result) ([]Preemption, int) {
	var out []Preemption
	rest := 0
	for _, cm := range res.Commits {
		if cm.Action != solver.Evict {
			continue
		}
		if len(out) == maxPreemptions {
			rest++
			continue
		}
		v, p := &c.Pods[cm.Pod], &c.Pods[cm.Preemptor]
		out = append(out, Preemption{Preemptor: p.Namespace + "/" + p.Name, Victim: v.Namespace + "/" + v.Name,
			Node: c.Nodes[cm.Node].Name, VictimPriority: v.Priority, PreemptorPriority: p.Priority})
	}
	return out, rest
}

// Skew is one spread constraint of the batch's pods, aggregated over the
// pods that carry it: the matching pods per domain after the run.
type Skew struct {
	Namespace, TopologyKey, Selector string
	MaxSkew                          int32
	Hard                             bool // DoNotSchedule
	// Pods counts the batch's pods that carry the constraint.
	Pods int
	// Domains counts the domains (values of TopologyKey among the nodes);
	// Min and Max the matching pods in the emptiest and fullest.
	Domains  int
	Min, Max int
}

// Value is the constraint's skew, Max - Min.
func (s Skew) Value() int { return s.Max - s.Min }

// maxSkews is how many distinct constraints are measured (those carried
// by the most pods).
const maxSkews = 200

// skews measures the spread constraints of pods (their own, not the
// cluster defaults) on c's state: the maxSkews carried by the most pods,
// and how many distinct constraints there were.
func skews(c *index.Cluster, pods []index.PodID) ([]Skew, int) {
	type key struct {
		ns, topo, sel string
		maxSkew       int32
		hard          bool
	}
	type entry struct {
		sc   *index.SpreadConstraint
		pods int
	}
	seen := map[key]*entry{}
	var order []key
	for _, pid := range pods {
		p := &c.Pods[pid]
		for i := range p.Spread {
			sc := &p.Spread[i]
			k := key{p.Namespace, sc.TopologyKey, selectorText(sc.Selector), sc.MaxSkew, sc.WhenUnsatisfiable == index.DoNotSchedule}
			e := seen[k]
			if e == nil {
				e = &entry{sc: sc}
				seen[k] = e
				order = append(order, k)
			}
			e.pods++
		}
	}
	total := len(order)
	sort.SliceStable(order, func(a, b int) bool { return seen[order[a]].pods > seen[order[b]].pods })
	order = order[:min(len(order), maxSkews)]
	// Pods by namespace: a constraint counts the pods of its own.
	byNS := map[string][]index.PodID{}
	for _, k := range order {
		byNS[k.ns] = nil
	}
	for pid := range c.Pods {
		if _, ok := byNS[c.Pods[pid].Namespace]; ok && c.PodNode[pid] != index.NoNode {
			byNS[c.Pods[pid].Namespace] = append(byNS[c.Pods[pid].Namespace], index.PodID(pid))
		}
	}
	out := make([]Skew, 0, len(order))
	for _, k := range order {
		e := seen[k]
		s := Skew{Namespace: k.ns, TopologyKey: k.topo, Selector: k.sel, MaxSkew: k.maxSkew, Hard: k.hard, Pods: e.pods}
		dom := map[string]int{}
		for n := range c.Nodes {
			if v, ok := c.Nodes[n].Labels[k.topo]; ok {
				dom[v] += 0
			}
		}
		sel, counts := rules.SpreadSelector(e.sc)
		if counts {
			for _, q := range byNS[k.ns] {
				if v, ok := c.Nodes[c.PodNode[q]].Labels[k.topo]; ok && rules.Counts(sel, k.ns, &c.Pods[q]) {
					dom[v]++
				}
			}
		}
		s.Domains = len(dom)
		first := true
		for _, m := range dom {
			if first || m < s.Min {
				s.Min = m
			}
			if first || m > s.Max {
				s.Max = m
			}
			first = false
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.Value()-int(x.MaxSkew) != y.Value()-int(y.MaxSkew) {
			return x.Value()-int(x.MaxSkew) > y.Value()-int(y.MaxSkew)
		}
		return x.Pods > y.Pods
	})
	return out, total
}

// selectorText writes a label selector for the page.
func selectorText(s *index.LabelSelector) string {
	if s == nil {
		return "(none)"
	}
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for _, k := range keys {
		if out != "" {
			out += ","
		}
		out += k + "=" + s.MatchLabels[k]
	}
	for _, r := range s.MatchExpressions {
		if out != "" {
			out += ","
		}
		out += fmt.Sprintf("%s %s %v", r.Key, r.Operator, r.Values)
	}
	if out == "" {
		return "(all)"
	}
	return out
}

// Card is one headline number.
type Card struct {
	Name  string
	Value int
}

// Page is everything the page shows.
type Page struct {
	Title         string
	Cards         []Card
	Before, After Usage
	// Rollups are the pending pods' roll-ups (ByPlugin may be empty);
	// Pending counts the pending pods.
	Rollups     export.Rollups
	Pending     int
	Preemptions []Preemption
	MorePreempt int
	Skews       []Skew
	// SkewTotal counts the distinct constraints (Skews holds at most
	// maxSkews of them).
	SkewTotal int
	Warnings  []string
	// TotalMS is the run's wall time.
	TotalMS float64
}

// Build gathers the page of a placement: before is Measure of the
// cluster before the solve, c the cluster after it, res the result, rep
// its report.
func Build(title string, before Usage, c *index.Cluster, res *solver.Result, rep *export.Report) *Page {
	k := rep.Counts
	p := &Page{Title: title, Before: before, After: Measure(c), Rollups: rep.Rollups, Pending: len(rep.Pending),
		Warnings: rep.Warnings, TotalMS: rep.Timings.Total,
		Cards: []Card{{"nodes", k.Nodes}, {"bound before", k.BoundBefore}, {"pending", k.Pending}, {"placed", k.Placed},
			{"unschedulable", k.Unschedulable}, {"evicted", k.Evicted}}}
	p.Preemptions, p.MorePreempt = preemptions(c, res)
	p.Skews, p.SkewTotal = skews(c, c.Pending)
	return p
}

// BuildScenario gathers the page of a what-if run (kplace simulate):
// before is Measure of the cluster at the start, c the cluster at the
// end, res the scheduler's Bindings and Evictions of the run
// (scenario.Engine.Replay), rep the run's report.
func BuildScenario(title string, before Usage, c *index.Cluster, res *solver.Result, rep *scenario.Report) *Page {
	p := &Page{Title: title, Before: before, After: Measure(c), Pending: len(rep.PendingPods), Warnings: rep.Warnings,
		TotalMS: rep.Timings.Total,
		Cards: []Card{{"nodes at start", rep.Nodes}, {"pods at start", rep.Pods}, {"displaced", rep.Displaced},
			{"placed again", rep.Replaced}, {"placed", rep.Placed}, {"pending at end", rep.Pending}}}
	owner := export.Controllers(c)
	byName := map[string]index.PodID{}
	for pid := range c.Pods {
		byName[c.Pods[pid].Namespace+"/"+c.Pods[pid].Name] = index.PodID(pid)
	}
	pending := make([]export.PodReason, 0, len(rep.PendingPods))
	var pods []index.PodID
	for _, pp := range rep.PendingPods {
		ns, name, _ := strings.Cut(pp.Pod, "/")
		e := export.PodReason{Namespace: ns, Name: name, Reason: pp.Reason}
		if pid, ok := byName[pp.Pod]; ok {
			e.Owner = owner(&c.Pods[pid])
			pods = append(pods, pid)
		}
		pending = append(pending, e)
	}
	p.Rollups = export.Rollup(pending, nil, c.NumNodes())
	for _, cm := range res.Commits {
		if cm.Action == solver.Bind {
			pods = append(pods, cm.Pod)
		}
	}
	p.Preemptions, p.MorePreempt = preemptions(c, res)
	p.Skews, p.SkewTotal = skews(c, pods)
	return p
}
