package solver

import (
	"testing"

	"github.com/kplace/kplace/index"
)

// Test builders in the style of kube-scheduler's st.MakePod()/MakeNode().

type nodeB struct{ n index.Node }

func makeNode(name string) *nodeB {
	return &nodeB{n: index.Node{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name},
		Allocatable: index.ResourceList{{Name: "cpu", Value: 4000}, {Name: "memory", Value: 16 << 30}, {Name: "pods", Value: 110}}}}
}

func (b *nodeB) label(k, v string) *nodeB { b.n.Labels[k] = v; return b }
func (b *nodeB) taint(k, v, effect string) *nodeB {
	b.n.Taints = append(b.n.Taints, index.Taint{Key: k, Value: v, Effect: effect})
	return b
}
func (b *nodeB) unschedulable() *nodeB { b.n.Unschedulable = true; return b }
func (b *nodeB) alloc(name string, v int64) *nodeB {
	for i := range b.n.Allocatable {
		if b.n.Allocatable[i].Name == name {
			b.n.Allocatable[i].Value = v
			return b
		}
	}
	b.n.Allocatable = append(b.n.Allocatable, index.Quantity{Name: name, Value: v})
	return b
}
func (b *nodeB) obj() index.Node { return b.n }

type podB struct{ p index.Pod }

func makePod(name string) *podB {
	return &podB{p: index.Pod{Namespace: "default", Name: name, UID: "uid-" + name,
		SchedulerName: "default-scheduler", PreemptionPolicy: index.PreemptLowerPriority,
		ScoreCPU: 100, ScoreMemory: 200 << 20, NonZeroCPU: 100, NonZeroMemory: 200 << 20}}
}

func (b *podB) req(name string, v int64) *podB {
	b.p.Requests = append(b.p.Requests, index.Quantity{Name: name, Value: v})
	switch name {
	case "cpu":
		b.p.ScoreCPU, b.p.NonZeroCPU = v, v
	case "memory":
		b.p.ScoreMemory, b.p.NonZeroMemory = v, v
	}
	return b
}
func (b *podB) tol(key, op, value, effect string) *podB {
	b.p.Tolerations = append(b.p.Tolerations, index.Toleration{Key: key, Operator: op, Value: value, Effect: effect})
	return b
}
func (b *podB) selector(k, v string) *podB {
	if b.p.NodeSelector == nil {
		b.p.NodeSelector = map[string]string{}
	}
	b.p.NodeSelector[k] = v
	return b
}

// term adds a required node affinity term of expressions "key op values...".
func (b *podB) term(reqs ...index.Requirement) *podB {
	b.p.HasRequired = true
	b.p.RequiredTerms = append(b.p.RequiredTerms, index.NodeSelectorTerm{MatchExpressions: reqs})
	return b
}
func (b *podB) fieldTerm(reqs ...index.Requirement) *podB {
	b.p.HasRequired = true
	b.p.RequiredTerms = append(b.p.RequiredTerms, index.NodeSelectorTerm{MatchFields: reqs})
	return b
}
func (b *podB) preferred(w int32, reqs ...index.Requirement) *podB {
	b.p.PreferredTerms = append(b.p.PreferredTerms, index.PreferredTerm{Weight: w, Term: index.NodeSelectorTerm{MatchExpressions: reqs}})
	return b
}
func (b *podB) hostPort(port int32) *podB {
	b.p.HostPorts = append(b.p.HostPorts, index.HostPort{Port: port, Protocol: "TCP"})
	return b
}
func (b *podB) priority(p int32) *podB     { b.p.Priority = p; return b }
func (b *podB) created(unix int64) *podB   { b.p.CreationUnix = unix; return b }
func (b *podB) on(node string) *podB       { b.p.NodeName = node; return b }
func (b *podB) unsupported(f string) *podB { b.p.Unsupported = f; return b }
func (b *podB) gated(gates ...string) *podB {
	b.p.Gated, b.p.SchedulingGates = true, gates
	return b
}
func (b *podB) obj() index.Pod { return b.p }
func req(key, op string, values ...string) index.Requirement {
	return index.Requirement{Key: key, Operator: op, Values: values}
}

// cluster builds an indexed cluster.
func cluster(t testing.TB, nodes []index.Node, pods []index.Pod) *index.Cluster {
	t.Helper()
	c, err := index.Build(&index.Input{Nodes: nodes, Pods: pods})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// outcome is what happened to one pod, for table comparisons: the node name
// or the pending reason.
func outcomes(c *index.Cluster, res *Result) map[string]string {
	out := map[string]string{}
	for _, cm := range res.Commits {
		if cm.Action == Bind {
			out[c.Pods[cm.Pod].Name] = c.Nodes[cm.Node].Name
		}
	}
	for _, pd := range res.Pending {
		out[c.Pods[pd.Pod].Name] = pd.Reason
	}
	return out
}

// solve builds and solves with default settings.
func solve(t testing.TB, nodes []index.Node, pods []index.Pod) (map[string]string, *index.Cluster, *Result) {
	t.Helper()
	c := cluster(t, nodes, pods)
	res := Solve(c, Config{Seed: 1})
	return outcomes(c, res), c, res
}

// has reports whether node n is in the group's feasible set.
func (g *group) has(n int) bool { return g.dense[n>>6]&(1<<(n&63)) != 0 }

// nodes lists the group's feasible nodes in order.
func (g *group) nodes() []int {
	var out []int
	for n := range len(g.dense) * 64 {
		if g.has(n) {
			out = append(out, n)
		}
	}
	return out
}
