package export

import (
	"sort"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

// WorkloadReport is one controller in the report: what expansion found
// and created (index.WorkloadExpansion) and what became of its pending
// pods (those the input held pending and those created).
type WorkloadReport struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Desired   int    `json:"desired"`
	Existing  int    `json:"existing"`
	Created   int    `json:"created"`
	// Placed and Pending split its pending pods: bound by this run, or
	// left pending (unschedulable, unsupported, gated or rejected).
	Placed  int `json:"placed"`
	Pending int `json:"pending"`
	// Reasons rolls the pending pods up by reason, most pods first.
	Reasons []WorkloadReason `json:"reasons,omitempty"`
	Note    string           `json:"note,omitempty"`
}

// WorkloadReason is a pending reason and how many of a workload's pods it
// holds back.
type WorkloadReason struct {
	Reason string `json:"reason"`
	Pods   int    `json:"pods"`
}

// AddWorkloads fills r.Workloads with the controllers of ws, their pods'
// outcomes read from res over c.
func (r *Report) AddWorkloads(c *index.Cluster, res *solver.Result, ws []index.WorkloadExpansion) {
	if len(ws) == 0 {
		return
	}
	placed := make([]bool, len(c.Pods))
	for _, cm := range res.Commits {
		switch cm.Action {
		case solver.Bind:
			placed[cm.Pod] = true
		case solver.Evict:
			placed[cm.Pod] = false
		}
	}
	reason := make(map[index.PodID]string, len(res.Pending)+len(c.Rejected))
	for _, pd := range res.Pending {
		reason[pd.Pod] = pd.Reason
	}
	for _, pid := range c.Rejected {
		reason[pid] = c.Pods[pid].Rejected
	}
	r.Workloads = make([]WorkloadReport, 0, len(ws))
	for i := range ws {
		w := &ws[i]
		row := WorkloadReport{Kind: w.Kind, Namespace: w.Namespace, Name: w.Name, Desired: w.Desired,
			Existing: w.Existing, Created: w.Created, Note: w.Note}
		counts := map[string]int{}
		for _, pid := range w.Pods {
			if placed[pid] {
				row.Placed++
				continue
			}
			row.Pending++
			counts[reason[pid]]++
		}
		for text, n := range counts {
			row.Reasons = append(row.Reasons, WorkloadReason{Reason: text, Pods: n})
		}
		sort.Slice(row.Reasons, func(a, b int) bool {
			x, y := row.Reasons[a], row.Reasons[b]
			return x.Pods > y.Pods || x.Pods == y.Pods && x.Reason < y.Reason
		})
		r.Workloads = append(r.Workloads, row)
	}
}

// NotPlaced returns the workloads with pods left pending, most pending
// first (then in report order).
func (r *Report) NotPlaced() []WorkloadReport {
	var out []WorkloadReport
	for _, w := range r.Workloads {
		if w.Pending > 0 {
			out = append(out, w)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Pending > out[b].Pending })
	return out
}
