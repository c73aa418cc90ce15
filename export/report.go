package export

import (
	"encoding/json"
	"io"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

// Counts summarises a run.
type Counts struct {
	Nodes          int `json:"nodes"`
	BoundBefore    int `json:"bound_before"`
	Pending        int `json:"pending"`
	Placed         int `json:"placed"`
	Unschedulable  int `json:"unschedulable"`
	Unsupported    int `json:"unsupported"`
	Gated          int `json:"gated"`
	Rejected       int `json:"rejected"`
	Evicted        int `json:"evicted"`
	Preemptors     int `json:"preemptors"`
	OtherScheduler int `json:"other_scheduler"`
	// Created counts the pods expansion added to the batch (the input's
	// controllers' missing pods).
	Created  int `json:"created"`
	Finished int `json:"finished"`
	// CrossNode counts the preemptions that evicted pods on other nodes
	// (--cross-node-preemption); Requeued the evicted pods put back in the
	// queue (--requeue-evicted), Replaced those of them placed again (also
	// counted in Placed; those left pending are in Unschedulable and the
	// pending list). Omitted when zero.
	CrossNode int `json:"cross_node,omitempty"`
	Requeued  int `json:"requeued,omitempty"`
	Replaced  int `json:"replaced,omitempty"`
}

// Engine are the solver's internal counters (place --verbose): the
// equivalence classes formed, their distinct static parts (feasible sets),
// the class heaps built and rebuilt.
type Engine struct {
	Classes  int `json:"classes"`
	Groups   int `json:"groups"`
	Rebuilds int `json:"heap_rebuilds"`
	Builds   int `json:"heap_builds"`
}

// EngineOf returns res's internal counters.
func EngineOf(res *solver.Result) *Engine {
	return &Engine{Classes: res.Classes, Groups: res.Groups, Rebuilds: res.Rebuilds, Builds: res.Builds}
}

// EvictedPod is one preemption victim and, with --requeue-evicted, what
// became of it.
type EvictedPod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Node      string `json:"node"`      // the node it was evicted from
	Preemptor string `json:"preemptor"` // namespace/name
	// PlacedOn is the node it was bound to again; empty when it stayed
	// pending (then it is in the pending list, with its reason).
	PlacedOn string `json:"placed_on"`
}

// Timings are phase durations in milliseconds.
type Timings struct {
	Ingest float64 `json:"ingest_ms"`
	// Expand is the expansion of workloads into their missing pods.
	Expand float64 `json:"expand_ms"`
	Index  float64 `json:"index_ms"`
	Solve  float64 `json:"solve_ms"`
	Export float64 `json:"export_ms"`
	Total  float64 `json:"total_ms"`
}

// PodReason is one pod left pending or rejected.
type PodReason struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Owner is the pod's controller as Kind/name, a ReplicaSet replaced
	// by its Deployment when the input holds the ReplicaSet; omitted
	// without one.
	Owner    string `json:"owner,omitempty"`
	Priority int32  `json:"priority"`
	// Requests are the pod's effective requests (init containers and
	// overhead counted) as quantities, by resource name.
	Requests map[string]string `json:"requests,omitempty"`
	Kind     string            `json:"kind"`
	// Reason is kube-scheduler's whole message.
	Reason string `json:"reason"`
}

// Report is the JSON report of a run.
type Report struct {
	Counts  Counts  `json:"counts"`
	Timings Timings `json:"timings"`
	// Engine holds the solver's internal counters; only with --verbose.
	Engine   *Engine     `json:"engine,omitempty"`
	Pending  []PodReason `json:"pending"`
	Rejected []PodReason `json:"rejected"`
	// Rollups count the pending pods by plugin, owner and reason.
	Rollups Rollups `json:"rollups"`
	// Evicted lists every eviction, in commit order, when evicted pods were
	// put back in the queue (--requeue-evicted); omitted otherwise.
	Evicted      []EvictedPod   `json:"evicted,omitempty"`
	SkippedKinds map[string]int `json:"skipped_kinds,omitempty"`
	Warnings     []string       `json:"warnings,omitempty"`
	// Tries lists, with place --tries, every solve of the batch (one seed
	// each) and which one the result is; omitted for a single solve.
	Tries []Try `json:"tries,omitempty"`
	// Workloads lists the input's controllers after expansion (see
	// AddWorkloads); omitted when there are none.
	Workloads []WorkloadReport `json:"workloads,omitempty"`
}

// Try is one solve of a batch with its own tie-breaking seed.
type Try struct {
	Seed    uint64 `json:"seed"`
	Placed  int    `json:"placed"`
	Evicted int    `json:"evicted"`
	Kept    bool   `json:"kept"`
}

// NewReport builds the report of res over c (c in its final state). bound is
// the number of pods bound before the run.
func NewReport(c *index.Cluster, res *solver.Result, bound int, t Timings) *Report {
	r := &Report{
		Counts: Counts{
			Nodes:          c.NumNodes(),
			BoundBefore:    bound,
			Pending:        len(c.Pending),
			Rejected:       len(c.Rejected),
			OtherScheduler: c.OtherScheduler,
			Finished:       c.FinishedPods,
			Preemptors:     res.Preemptions,
			CrossNode:      res.CrossNode,
			Requeued:       res.Requeued,
			Replaced:       res.Replaced,
		},
		Timings:      t,
		Pending:      make([]PodReason, 0, len(res.Pending)),
		Rejected:     make([]PodReason, 0, len(c.Rejected)),
		SkippedKinds: c.SkippedKinds,
		Warnings:     c.Warnings,
	}
	rsOwner := ownerNames(c)
	entry := func(pid index.PodID, kind, reason string) PodReason {
		p := &c.Pods[pid]
		return PodReason{Namespace: p.Namespace, Name: p.Name, Owner: controllerOf(p, rsOwner), Priority: p.Priority,
			Requests: requestsOf(p), Kind: kind, Reason: reason}
	}
	var evictedAt map[index.PodID]int // index in r.Evicted
	if res.Requeued > 0 {
		evictedAt = map[index.PodID]int{}
	}
	for _, cm := range res.Commits {
		switch cm.Action {
		case solver.Bind:
			r.Counts.Placed++
			if i, ok := evictedAt[cm.Pod]; ok {
				r.Evicted[i].PlacedOn = c.Nodes[cm.Node].Name
			}
		case solver.Evict:
			r.Counts.Evicted++
			if evictedAt != nil {
				p, pre := &c.Pods[cm.Pod], &c.Pods[cm.Preemptor]
				evictedAt[cm.Pod] = len(r.Evicted)
				r.Evicted = append(r.Evicted, EvictedPod{Namespace: p.Namespace, Name: p.Name, Node: c.Nodes[cm.Node].Name,
					Preemptor: pre.Namespace + "/" + pre.Name})
			}
		}
	}
	for _, pd := range res.Pending {
		switch pd.Kind {
		case solver.Unschedulable:
			r.Counts.Unschedulable++
		case solver.Unsupported:
			r.Counts.Unsupported++
		case solver.Gated:
			r.Counts.Gated++
		}
		r.Pending = append(r.Pending, entry(pd.Pod, pd.Kind.String(), pd.Reason))
	}
	for _, pid := range c.Rejected {
		r.Rejected = append(r.Rejected, entry(pid, "rejected", c.Pods[pid].Rejected))
	}
	nodes := make([]map[string]int, len(res.Pending))
	for i, pd := range res.Pending {
		nodes[i] = pd.Nodes
	}
	r.Rollups = Rollup(r.Pending, nodes, c.NumNodes())
	return r
}

// TopReasons returns the most frequent pending reasons, most frequent first
// (ties by text), at most k.
func (r *Report) TopReasons(k int) []ReasonCount {
	out := r.Rollups.ByReason
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// Write writes the report as indented JSON.
func (r *Report) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
