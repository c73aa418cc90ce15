package reference

import (
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Explanation is one pod's scheduling cycle laid out per plugin: every
// node's verdict of each filter plugin, run alone (not only the first
// that fails, as kube-scheduler stops at), and for the nodes that pass
// them all each score plugin's normalised score and the weighted total.
// It is kube-scheduler-simulator's per-plugin view.
type Explanation struct {
	Pod index.PodID
	// Unbound is set when the pod was bound: it was taken off its node
	// and explained as if pending.
	Unbound bool
	// Conflict: NodeAffinity's PreFilter rejects the pod (its required
	// terms name no node in common), so no filter runs; Message is then
	// rules.ConflictMessage.
	Conflict bool
	// Filters are the filter plugins in kube-scheduler's order; Scores
	// the score plugins and Weights their weights.
	Filters []string
	Scores  []string
	Weights []int64
	// Nodes holds every node, in node order.
	Nodes []NodeExplanation
	// Feasible counts the nodes that pass every filter.
	Feasible int
	// Best is the node the cycle picks (the highest total, ties by the
	// seeded tie value, then the lower id); valid when Feasible > 0.
	Best index.NodeID
	// Message is kube-scheduler's "0/N nodes are available: ..." filter
	// part when no node is feasible (without the PostFilter part:
	// explain runs no preemption).
	Message string
}

// NodeExplanation is one node's verdicts.
type NodeExplanation struct {
	Node index.NodeID
	// Fails holds, per filter plugin (Explanation.Filters' order), its
	// reasons on the node; nil when it passes.
	Fails [][]string
	// First is the first failing plugin (the node's status in
	// kube-scheduler's FitError), -1 when the node is feasible.
	First int
	// Scores are, for a feasible node, each score plugin's normalised
	// score (0 to 100; Explanation.Scores' order); nil otherwise. Total
	// is their sum weighted by Explanation.Weights.
	Scores []int64
	Total  int64
	// Tie is the node's seeded tie value (cfg.Seed).
	Tie uint32
}

// Explain runs pod pid's scheduling cycle on c as it is, per plugin. A
// bound pod is first unbound (c is modified). cfg holds the scheduler's
// settings (its preemption fields are not read).
func Explain(c *index.Cluster, pid index.PodID, cfg Config) *Explanation {
	st := &state{c: c, cfg: cfg, res: &Result{}, nsLabels: map[string]map[string]string{},
		hard: rules.HardAffinityWeight(cfg.HardPodAffinityWeight), demands: map[index.PodID]*index.Demand{}}
	for i := range c.Namespaces {
		st.nsLabels[c.Namespaces[i].Name] = c.Namespaces[i].Labels
	}
	ex := &Explanation{Pod: pid, Filters: filterNames[:], Scores: scoreNames[:], Weights: scoreWeights[:]}
	if c.PodNode[pid] != index.NoNode {
		st.unbind(pid)
		ex.Unbound = true
	}
	cy := st.newCycle(pid)
	ex.Conflict = cy.conflict
	ex.Nodes = make([]NodeExplanation, c.NumNodes())
	var feasible []index.NodeID
	counts := map[string]int{}
	for n := range ex.Nodes {
		ne := &ex.Nodes[n]
		ne.Node, ne.First, ne.Tie = index.NodeID(n), -1, rules.NodeTie(cfg.Seed, uint32(n))
		ne.Fails = make([][]string, numFilters)
		for f := range numFilters {
			if s := cy.runFilter(f, ne.Node); !s.pass() {
				ne.Fails[f] = s.msgs
				if ne.First < 0 {
					ne.First = f
				}
			}
		}
		// NodeAffinity's PreFilter result comes before every filter.
		if cy.names != nil && !cy.names[c.Nodes[n].Name] {
			ne.First = fNodeAffinity
		}
		if ne.First < 0 && !cy.conflict {
			feasible = append(feasible, ne.Node)
			continue
		}
		for _, msg := range ne.Fails[ne.First] {
			counts[msg]++
		}
	}
	ex.Feasible = len(feasible)
	switch {
	case c.NumNodes() == 0:
		ex.Message = rules.NoNodesAvailable.String()
	case cy.conflict:
		ex.Message = rules.ConflictMessage(c.NumNodes())
	case len(feasible) == 0:
		ex.Message = rules.FitMessage(c.NumNodes(), counts)
	default:
		by := cy.scoreBy(feasible)
		best := -1
		for i, n := range feasible {
			ne := &ex.Nodes[n]
			ne.Scores = make([]int64, numScores)
			for s := range numScores {
				ne.Scores[s] = by[s][i] / scoreWeights[s]
				ne.Total += by[s][i]
			}
			if best < 0 || rules.BetterNode(ne.Total, ne.Tie, n, ex.Nodes[feasible[best]].Total, ex.Nodes[feasible[best]].Tie, feasible[best]) {
				best = i
			}
		}
		ex.Best = feasible[best]
	}
	return ex
}
