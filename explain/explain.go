// Package explain lays out one pod's scheduling cycle per plugin, for
// kplace explain: every node's verdict of each filter plugin with
// kube-scheduler's reason, and for the feasible nodes each score plugin's
// normalised score, its weight and the weighted total, with the node the
// cycle picks. The cycle is the reference solver's (solver/reference),
// built on the rules package; this package names things and writes them
// as a table or JSON.
package explain

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
	"github.com/kplace/kplace/solver/differential"
	"github.com/kplace/kplace/solver/reference"
	"github.com/kplace/kplace/solver/rules"
)

// SummaryAbove is the node count above which a report lists the top nodes
// by score and the per-plugin counts instead of every node (unless
// Options.All).
const SummaryAbove = 200

// TopNodes is how many nodes a summary lists.
const TopNodes = 10

// Options choose what a report holds.
type Options struct {
	// Node, when set, is the one node to detail.
	Node string
	// All lists every node even above SummaryAbove.
	All bool
}

// Report is one pod's explanation.
type Report struct {
	Pod string `json:"pod"` // namespace/name
	// Unbound: the pod was bound and is explained as if pending.
	Unbound bool `json:"unbound,omitempty"`
	// Note says why kube-scheduler would not schedule the pod at all
	// (scheduling gates, an unsupported constraint); "" otherwise.
	Note     string `json:"note,omitempty"`
	Nodes    int    `json:"nodes"`
	Feasible int    `json:"feasible"`
	// Winner is the node the cycle picks and WinnerTotal its total; ""
	// when no node is feasible.
	Winner      string `json:"winner,omitempty"`
	WinnerTotal int64  `json:"winner_total,omitempty"`
	// Message is kube-scheduler's filter message when no node is feasible
	// (no PostFilter part: explain runs no preemption).
	Message string `json:"message,omitempty"`
	// Filters counts each filter plugin's verdicts over every node.
	Filters []FilterCount `json:"filters"`
	// Weights are the score plugins and their weights.
	Weights []PluginWeight `json:"weights"`
	// Rows are the nodes listed: every node (feasible ones first, best
	// first, then the rest in node order), only the top TopNodes by score
	// in a summary, or the one of Options.Node.
	Rows []Row `json:"rows"`
	// Summary is set when Rows lists only the top nodes.
	Summary bool `json:"summary,omitempty"`

	detail bool // one node, in detail (Options.Node)
}

// FilterCount is one filter plugin's verdicts over the nodes: Fails
// counts the nodes it rejects run alone; Status the nodes it is the first
// to reject (kube-scheduler stops there: its FitError counts these), with
// their reasons.
type FilterCount struct {
	Plugin  string         `json:"plugin"`
	Fails   int            `json:"fails"`
	Status  int            `json:"status"`
	Reasons map[string]int `json:"reasons,omitempty"`
}

// PluginWeight is a score plugin and its weight.
type PluginWeight struct {
	Plugin string `json:"plugin"`
	Weight int64  `json:"weight"`
}

// Row is one node.
type Row struct {
	Node     string `json:"node"`
	Feasible bool   `json:"feasible"`
	// Rank is the node's place among the feasible nodes (1: the winner);
	// 0 for an infeasible node.
	Rank int `json:"rank,omitempty"`
	// Status is the first failing plugin and its reasons, kube-scheduler's
	// status for the node; "" when feasible.
	Status  string    `json:"status,omitempty"`
	Filters []Verdict `json:"filters"`
	Scores  []Score   `json:"scores,omitempty"`
	Total   int64     `json:"total,omitempty"`
}

// Verdict is one filter plugin's verdict on a node.
type Verdict struct {
	Plugin  string   `json:"plugin"`
	Pass    bool     `json:"pass"`
	Reasons []string `json:"reasons,omitempty"`
}

// Score is one score plugin's score of a node.
type Score struct {
	Plugin   string `json:"plugin"`
	Score    int64  `json:"score"` // normalised, 0 to 100
	Weight   int64  `json:"weight"`
	Weighted int64  `json:"weighted"`
}

// ErrNoNode is returned for an Options.Node the cluster lacks.
type ErrNoNode struct{ Node string }

func (e ErrNoNode) Error() string { return fmt.Sprintf("node %q not found", e.Node) }

// FindPod returns the pod named ref ("namespace/name", or "name" in the
// default namespace).
func FindPod(c *index.Cluster, ref string) (index.PodID, error) {
	ns, name := "default", ref
	for i := range len(ref) {
		if ref[i] == '/' {
			ns, name = ref[:i], ref[i+1:]
			break
		}
	}
	for i := range c.Pods {
		if p := &c.Pods[i]; p.Namespace == ns && p.Name == name {
			return index.PodID(i), nil
		}
	}
	return 0, fmt.Errorf("pod %s/%s not found in the input", ns, name)
}

// Explain explains pod pid on c under the scheduler's configuration cfg
// (a bound pod is unbound first: c is modified).
func Explain(c *index.Cluster, pid index.PodID, cfg solver.Config, opt Options) (*Report, error) {
	ex := reference.Explain(c, pid, differential.RefConfig(cfg))
	return build(c, ex, opt)
}

// build names ex's nodes and plugins and picks the rows opt asks for.
func build(c *index.Cluster, ex *reference.Explanation, opt Options) (*Report, error) {
	p := &c.Pods[ex.Pod]
	r := &Report{Pod: p.Namespace + "/" + p.Name, Unbound: ex.Unbound, Nodes: len(ex.Nodes), Feasible: ex.Feasible,
		Message: ex.Message, detail: opt.Node != ""}
	switch {
	case p.Gated:
		r.Note = fmt.Sprintf("the pod has scheduling gates %v: kube-scheduler does not schedule it until they are removed", p.SchedulingGates)
	case p.Unsupported != "":
		r.Note = "the pod uses " + p.Unsupported + ", which kplace does not model: it stays pending in a placement"
	}
	for i, s := range ex.Scores {
		r.Weights = append(r.Weights, PluginWeight{Plugin: s, Weight: ex.Weights[i]})
	}
	r.Filters = make([]FilterCount, len(ex.Filters))
	for f, name := range ex.Filters {
		r.Filters[f].Plugin = name
	}
	for i := range ex.Nodes {
		ne := &ex.Nodes[i]
		for f, fails := range ne.Fails {
			if fails != nil {
				r.Filters[f].Fails++
			}
		}
		if ne.First >= 0 {
			fc := &r.Filters[ne.First]
			fc.Status++
			if fc.Reasons == nil {
				fc.Reasons = map[string]int{}
			}
			for _, msg := range ne.Fails[ne.First] {
				fc.Reasons[msg]++
			}
		}
	}
	// Feasible nodes best first, as the cycle ranks them.
	var ranked []index.NodeID
	for i := range ex.Nodes {
		if ex.Nodes[i].Scores != nil {
			ranked = append(ranked, index.NodeID(i))
		}
	}
	sort.Slice(ranked, func(a, b int) bool {
		x, y := &ex.Nodes[ranked[a]], &ex.Nodes[ranked[b]]
		return rules.BetterNode(x.Total, x.Tie, x.Node, y.Total, y.Tie, y.Node)
	})
	rank := make(map[index.NodeID]int, len(ranked))
	for i, n := range ranked {
		rank[n] = i + 1
	}
	if ex.Feasible > 0 {
		if ranked[0] != ex.Best {
			return nil, fmt.Errorf("explain: ranking disagrees with the cycle's pick (%s, %s)", c.Nodes[ranked[0]].Name, c.Nodes[ex.Best].Name)
		}
		r.Winner, r.WinnerTotal = c.Nodes[ex.Best].Name, ex.Nodes[ex.Best].Total
	}
	row := func(n index.NodeID) Row {
		ne := &ex.Nodes[n]
		rw := Row{Node: c.Nodes[n].Name, Feasible: ne.Scores != nil, Rank: rank[n], Total: ne.Total}
		for f, fails := range ne.Fails {
			rw.Filters = append(rw.Filters, Verdict{Plugin: ex.Filters[f], Pass: fails == nil, Reasons: fails})
		}
		if ne.First >= 0 {
			rw.Status = ex.Filters[ne.First] + ": " + strings.Join(ne.Fails[ne.First], ", ")
		}
		for s, v := range ne.Scores {
			rw.Scores = append(rw.Scores, Score{Plugin: ex.Scores[s], Score: v, Weight: ex.Weights[s], Weighted: v * ex.Weights[s]})
		}
		return rw
	}
	switch {
	case opt.Node != "":
		n, ok := c.NodeByName[opt.Node]
		if !ok {
			return nil, ErrNoNode{opt.Node}
		}
		r.Rows = []Row{row(n)}
	case len(ex.Nodes) > SummaryAbove && !opt.All:
		r.Summary = true
		for _, n := range ranked[:min(TopNodes, len(ranked))] {
			r.Rows = append(r.Rows, row(n))
		}
	default:
		for _, n := range ranked {
			r.Rows = append(r.Rows, row(n))
		}
		for i := range ex.Nodes {
			if ex.Nodes[i].Scores == nil {
				r.Rows = append(r.Rows, row(index.NodeID(i)))
			}
		}
	}
	return r, nil
}
