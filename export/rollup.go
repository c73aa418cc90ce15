package export

import (
	"regexp"
	"sort"
	"strings"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
	"k8s.io/apimachinery/pkg/api/resource"
)

// PluginCount is one filter plugin in the by-plugin roll-up, summed over
// the unschedulable pods: the nodes it rejected, the entries of
// kube-scheduler's "0/N nodes are available: ..." messages that name it,
// and the pods it rejected at least one node of.
//
// Nodes and Messages differ only for NodeResourcesFit, whose status on a
// node lists every insufficient resource ("2 Insufficient cpu, 2
// Insufficient memory" can be two nodes): each node fails exactly one
// plugin (the first that rejects it), so its nodes are the pod's nodes
// less those the other plugins rejected.
type PluginCount struct {
	Plugin   string `json:"plugin"`
	Nodes    int    `json:"nodes"`
	Messages int    `json:"messages"`
	Pods     int    `json:"pods"`
}

// OwnerCount is one owner workload in the by-owner roll-up: its pending
// pods and their most frequent reason pattern.
type OwnerCount struct {
	Namespace string `json:"namespace"`
	// Owner is the controller as Kind/name (a ReplicaSet's Deployment
	// when the input holds the ReplicaSet); "" for pods without one.
	Owner string `json:"owner"`
	Pods  int    `json:"pods"`
	// Reason is the most frequent of ReasonPatterns among them.
	Reason string `json:"reason"`
}

// ReasonCount is a reason and how many pending pods it holds back.
type ReasonCount struct {
	Reason string `json:"reason"`
	Pods   int    `json:"pods"`
}

// Rollups are the pending pods counted three ways.
type Rollups struct {
	// ByPlugin: nodes rejected per filter plugin, most nodes first.
	ByPlugin []PluginCount `json:"by_plugin"`
	// ByOwner: pending pods per owner workload, most pods first.
	ByOwner []OwnerCount `json:"by_owner"`
	// ByReason: pending pods per distinct message, most pods first.
	ByReason []ReasonCount `json:"by_reason"`
	// ByPattern: the same with every number written N (ReasonPattern), so
	// that messages differing only in node counts count together.
	ByPattern []ReasonCount `json:"by_pattern"`
}

// number matches a count in a message (not the digits inside a name such
// as hugepages-2Mi or a gate's name).
var number = regexp.MustCompile(`\b[0-9]+\b`)

// available matches the list of a FitError: "are available: A, B, C."
var available = regexp.MustCompile(`are available: .*?\.( |$)`)

// ReasonPattern is a message with every count written N (the "0" of
// "0/N nodes are available" kept) and the entries of each "are available:"
// list sorted again (kube-scheduler sorts them with their counts, so the
// same entries come in an order the counts decide).
func ReasonPattern(reason string) string {
	s := strings.ReplaceAll(number.ReplaceAllString(reason, "N"), "N/N nodes", "0/N nodes")
	return available.ReplaceAllStringFunc(s, func(m string) string {
		body, space := strings.CutSuffix(m, " ")
		list := strings.Split(strings.TrimSuffix(strings.TrimPrefix(body, "are available: "), "."), ", ")
		sort.Strings(list)
		out := "are available: " + strings.Join(list, ", ") + "."
		if space {
			out += " "
		}
		return out
	})
}

// ownerNames maps each ReplicaSet of c that a controller owns
// (namespace/name) to its owner as Kind/name.
func ownerNames(c *index.Cluster) map[[2]string]string {
	m := map[[2]string]string{}
	for i := range c.Workloads {
		w := &c.Workloads[i]
		if w.Kind == index.KindReplicaSet && w.Owner != nil {
			m[[2]string{w.Namespace, w.Name}] = w.Owner.Kind + "/" + w.Owner.Name
		}
	}
	return m
}

// Controllers returns what names a pod's controller in c as Kind/name, a
// ReplicaSet replaced by its owner when c holds the ReplicaSet ("" for a
// pod without one).
func Controllers(c *index.Cluster) func(p *index.Pod) string {
	rsOwner := ownerNames(c)
	return func(p *index.Pod) string { return controllerOf(p, rsOwner) }
}

// controllerOf is pod p's controller as Kind/name, a ReplicaSet replaced by
// its owner (rsOwner, from ownerNames); "" without one.
func controllerOf(p *index.Pod, rsOwner map[[2]string]string) string {
	if p.Owner == nil {
		return ""
	}
	if p.Owner.Kind == index.KindReplicaSet {
		if o, ok := rsOwner[[2]string{p.Namespace, p.Owner.Name}]; ok {
			return o
		}
	}
	return p.Owner.Kind + "/" + p.Owner.Name
}

// requestsOf writes a pod's requests as quantities, by resource name.
func requestsOf(p *index.Pod) map[string]string {
	if len(p.Requests) == 0 {
		return nil
	}
	m := make(map[string]string, len(p.Requests))
	for _, q := range p.Requests {
		m[q.Name] = FormatQuantity(q.Name, q.Value)
	}
	return m
}

// FormatQuantity writes v of resource name (in index's base unit) as a
// Kubernetes quantity: cpu from millicores ("500m", "2"), memory and
// storage in binary units when exact ("1Gi"), counts as plain numbers.
func FormatQuantity(name string, v int64) string {
	switch name {
	case index.NameCPU:
		return resource.NewMilliQuantity(v, resource.DecimalSI).String()
	case index.NameMemory, index.NameEphemeralStorage:
		return resource.NewQuantity(v, resource.BinarySI).String()
	}
	return resource.NewQuantity(v, resource.DecimalSI).String()
}

// Rollup counts pending pods three ways: pending are their report
// entries, nodes (nil, or one per entry) their filter counts
// (solver.Pending.Nodes), numNodes the cluster's node count.
func Rollup(pending []PodReason, nodes []map[string]int, numNodes int) Rollups {
	r := Rollups{ByPlugin: []PluginCount{}, ByOwner: []OwnerCount{}}
	byPlugin := map[string]*PluginCount{}
	for _, counts := range nodes {
		for pl, pc := range PluginNodes(counts, numNodes) {
			sum := byPlugin[pl]
			if sum == nil {
				sum = &PluginCount{Plugin: pl}
				byPlugin[pl] = sum
			}
			sum.Nodes += pc.Nodes
			sum.Messages += pc.Messages
			sum.Pods++
		}
	}
	for _, pc := range byPlugin {
		r.ByPlugin = append(r.ByPlugin, *pc)
	}
	sort.Slice(r.ByPlugin, func(i, j int) bool {
		a, b := r.ByPlugin[i], r.ByPlugin[j]
		return a.Nodes > b.Nodes || a.Nodes == b.Nodes && a.Plugin < b.Plugin
	})
	byReason, byPattern := map[string]int{}, map[string]int{}
	type ownerKey struct{ ns, owner string }
	owners := map[ownerKey]map[string]int{}
	for i := range pending {
		p := &pending[i]
		pat := ReasonPattern(p.Reason)
		byReason[p.Reason]++
		byPattern[pat]++
		k := ownerKey{p.Namespace, p.Owner}
		if owners[k] == nil {
			owners[k] = map[string]int{}
		}
		owners[k][pat]++
	}
	r.ByReason, r.ByPattern = sortCounts(byReason), sortCounts(byPattern)
	for k, pats := range owners {
		top := sortCounts(pats)
		n := 0
		for _, rc := range top {
			n += rc.Pods
		}
		r.ByOwner = append(r.ByOwner, OwnerCount{Namespace: k.ns, Owner: k.owner, Pods: n, Reason: top[0].Reason})
	}
	sort.Slice(r.ByOwner, func(i, j int) bool {
		a, b := r.ByOwner[i], r.ByOwner[j]
		if a.Pods != b.Pods {
			return a.Pods > b.Pods
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Owner < b.Owner
	})
	return r
}

// PluginNodes rolls one pod's message counts (solver.Pending.Nodes: a
// filter message and its nodes) up by plugin, over numNodes nodes (see
// PluginCount; Pods is left zero).
func PluginNodes(counts map[string]int, numNodes int) map[string]PluginCount {
	out := map[string]PluginCount{}
	others := 0
	for msg, k := range counts {
		pl := rules.PluginOfMessage(msg)
		pc := out[pl]
		pc.Plugin = pl
		pc.Messages += k
		pc.Nodes = max(pc.Nodes, k)
		out[pl] = pc
		if pl != rules.PluginNodeResourcesFit {
			others += k
		}
	}
	if pc, ok := out[rules.PluginNodeResourcesFit]; ok {
		// Between its largest message and their sum: every node not
		// rejected by another plugin.
		pc.Nodes = min(max(numNodes-others, pc.Nodes), pc.Messages)
		out[rules.PluginNodeResourcesFit] = pc
	}
	for pl, pc := range out {
		if pl != rules.PluginNodeResourcesFit {
			pc.Nodes = pc.Messages
			out[pl] = pc
		}
	}
	return out
}

// sortCounts lists m most pods first, ties by text.
func sortCounts(m map[string]int) []ReasonCount {
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
	return out
}
