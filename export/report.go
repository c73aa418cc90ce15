package export

import (
	"encoding/json"
	"io"
	"sort"

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
	Classes  int `json:"classes"`
	Groups   int `json:"groups"`
	Rebuilds int `json:"heap_rebuilds"`
	Builds   int `json:"heap_builds"`
	// CrossNode counts the preemptions that evicted pods on other nodes
	// (--cross-node-preemption); Requeued the evicted pods put back in the
	// queue (--requeue-evicted), Replaced those of them placed again (also
	// counted in Placed; those left pending are in Unschedulable and the
	// pending list). Omitted when zero.
	CrossNode int `json:"cross_node,omitempty"`
	Requeued  int `json:"requeued,omitempty"`
	Replaced  int `json:"replaced,omitempty"`
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
	Kind      string `json:"kind"`
	Reason    string `json:"reason"`
}

// Report is the JSON report of a run.
type Report struct {
	Counts   Counts      `json:"counts"`
	Timings  Timings     `json:"timings"`
	Pending  []PodReason `json:"pending"`
	Rejected []PodReason `json:"rejected"`
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
			Classes:        res.Classes,
			Groups:         res.Groups,
			Rebuilds:       res.Rebuilds,
			Builds:         res.Builds,
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
		p := &c.Pods[pd.Pod]
		switch pd.Kind {
		case solver.Unschedulable:
			r.Counts.Unschedulable++
		case solver.Unsupported:
			r.Counts.Unsupported++
		case solver.Gated:
			r.Counts.Gated++
		}
		r.Pending = append(r.Pending, PodReason{Namespace: p.Namespace, Name: p.Name, Kind: pd.Kind.String(), Reason: pd.Reason})
	}
	for _, pid := range c.Rejected {
		p := &c.Pods[pid]
		r.Rejected = append(r.Rejected, PodReason{Namespace: p.Namespace, Name: p.Name, Kind: "rejected", Reason: p.Rejected})
	}
	return r
}

// TopReasons returns the most frequent pending reasons, most frequent first
// (ties by text), at most k.
func (r *Report) TopReasons(k int) []ReasonCount {
	m := map[string]int{}
	for _, p := range r.Pending {
		m[p.Reason]++
	}
	out := make([]ReasonCount, 0, len(m))
	for reason, n := range m {
		out = append(out, ReasonCount{Reason: reason, Pods: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pods != out[j].Pods {
			return out[i].Pods > out[j].Pods
		}
		return out[i].Reason < out[j].Reason
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// ReasonCount is a reason and how many pods it holds back.
type ReasonCount struct {
	Reason string
	Pods   int
}

// Write writes the report as indented JSON.
func (r *Report) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
