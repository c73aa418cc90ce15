package rules

// PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread):
// DoNotSchedule constraints filter (count + self - globalMin <= maxSkew,
// the global minimum taken over the eligible domains, or 0 while there are
// fewer than minDomains of them), ScheduleAnyway constraints score (fewer
// matching pods in the node's domain is better, with a log-size weight per
// constraint and a reversed min-max normalisation). Pods with no
// constraints of their own get the cluster defaults when a Service,
// ReplicaSet, StatefulSet or ReplicationController selects them.

import (
	"iter"
	"math"

	"github.com/kplace/kplace/index"
	"k8s.io/apimachinery/pkg/labels"
)

// LabelHostname is the well-known per-node topology key: soft constraints
// on it are counted per node.
const LabelHostname = "kubernetes.io/hostname"

// LabelZone is the well-known zone topology key.
const LabelZone = "topology.kubernetes.io/zone"

// BuiltinDefaultConstraints are kube-scheduler's built-in default
// constraints (systemDefaulted): hostname maxSkew 3 and zone maxSkew 5,
// both ScheduleAnyway.
func BuiltinDefaultConstraints() []index.SpreadConstraint {
	return []index.SpreadConstraint{
		{MaxSkew: 3, TopologyKey: LabelHostname, WhenUnsatisfiable: index.ScheduleAnyway, MinDomains: 1, NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore},
		{MaxSkew: 5, TopologyKey: LabelZone, WhenUnsatisfiable: index.ScheduleAnyway, MinDomains: 1, NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore},
	}
}

// DefaultSelector is helper.DefaultSelector: the selectors of the Services
// selecting p (services: those of p's namespace, or any superset of those
// selecting p, each once), and of its controller owner (owner: the
// workload OwnerKind names, nil when absent), ANDed; nil when that selects
// nothing in particular (no default constraint applies).
func DefaultSelector(p *index.Pod, services iter.Seq[*index.Workload], owner *index.Workload) *index.LabelSelector {
	out := &index.LabelSelector{MatchLabels: map[string]string{}}
	for w := range services {
		if w.Selector == nil || len(w.Selector.MatchLabels) == 0 {
			continue
		}
		if MatchLabelMap(w.Selector.MatchLabels, p.Labels) { // a Service selects by a label map
			for k, v := range w.Selector.MatchLabels {
				out.MatchLabels[k] = v
			}
		}
	}
	if owner != nil && owner.Selector != nil {
		for k, v := range owner.Selector.MatchLabels {
			out.MatchLabels[k] = v
		}
		out.MatchExpressions = append(out.MatchExpressions, owner.Selector.MatchExpressions...)
	}
	if len(out.MatchLabels) == 0 && len(out.MatchExpressions) == 0 {
		return nil
	}
	return out
}

// OwnerKind is the kind of p's controller owner when its selector feeds
// the default selector: a ReplicationController (v1), ReplicaSet or
// StatefulSet (apps/v1); "" otherwise.
func OwnerKind(p *index.Pod) string {
	o := p.Owner
	switch {
	case o == nil:
	case o.Kind == index.KindReplicationController && o.APIVersion == "v1":
		return o.Kind
	case (o.Kind == index.KindReplicaSet || o.Kind == index.KindStatefulSet) && o.APIVersion == "apps/v1":
		return o.Kind
	}
	return ""
}

// Constraints returns p's effective constraints: its own, or (defaulted)
// the cluster defaults with p's default selector (defaultSelector is called
// only then; nil: no default applies); nil when it has none.
func Constraints(p *index.Pod, defaults []index.SpreadConstraint, defaultSelector func() *index.LabelSelector) (cs []index.SpreadConstraint, defaulted bool) {
	if len(p.Spread) > 0 {
		return p.Spread, false
	}
	if len(defaults) == 0 {
		return nil, false
	}
	sel := defaultSelector()
	if sel == nil {
		return nil, false
	}
	cs = make([]index.SpreadConstraint, len(defaults))
	for i, d := range defaults {
		d.Selector = sel
		cs[i] = d
	}
	return cs, true
}

// RequireAllKeys reports whether nodes lacking one of the keys of a pod's
// constraints of one action are left out (filter: always; score: unless
// the constraints are the built-in defaults).
func RequireAllKeys(action string, defaulted, systemDefaulted bool) bool {
	return action == index.DoNotSchedule || !defaulted || !systemDefaulted
}

// HasKeys reports whether a node with labels l carries the topology key of
// every constraint of cs with the given action.
func HasKeys(l map[string]string, cs []index.SpreadConstraint, action string) bool {
	for i := range cs {
		if cs[i].WhenUnsatisfiable != action {
			continue
		}
		if _, ok := l[cs[i].TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// IncludeNode is matchNodeInclusionPolicies: whether the pods on node nd
// count for constraint sc of pod p (nodeAffinityPolicy Honor: nd passes
// p's required node affinity; nodeTaintsPolicy Honor: p tolerates nd's
// NoSchedule and NoExecute taints).
func IncludeNode(sc *index.SpreadConstraint, p *index.Pod, nd *index.Node) bool {
	if sc.NodeAffinityPolicy != index.PolicyIgnore && !RequiredAffinity(p, nd) {
		return false
	}
	if sc.NodeTaintsPolicy == index.PolicyHonor && TaintFilter(nd.Taints, p.Tolerations) != None {
		return false
	}
	return true
}

// SpreadSelector is the selector of constraint sc and whether it counts
// pods at all: a nil, invalid or empty selector counts none
// (countPodsMatchSelector), although an empty one still matches the
// incoming pod itself (SelfMatch).
func SpreadSelector(sc *index.SpreadConstraint) (labels.Selector, bool) {
	sel, ok := LabelSelector(sc.Selector)
	return sel, ok && !sel.Empty()
}

// SelfMatch is 1 when constraint sc's selector matches the incoming pod's
// own labels, else 0.
func SelfMatch(sc *index.SpreadConstraint, p *index.Pod) int32 {
	if sel, _ := LabelSelector(sc.Selector); sel.Matches(labels.Set(p.Labels)) {
		return 1
	}
	return 0
}

// Counts reports whether pod q, bound on an eligible node, counts for a
// constraint of an incoming pod of namespace ns with selector sel (one
// SpreadSelector counts with).
func Counts(sel labels.Selector, ns string, q *index.Pod) bool {
	return q.Namespace == ns && sel.Matches(labels.Set(q.Labels))
}

// GlobalMin is the minimum the skew is taken against: the least count over
// the eligible domains, or 0 while there are fewer of them than minDomains.
func GlobalMin(least, domains, minDomains int32) int32 {
	if domains < max(minDomains, 1) {
		return 0
	}
	return least
}

// SkewOK is the filter's test of one constraint on a node whose domain
// holds count matching pods: count + self - globalMin <= maxSkew.
func SkewOK(count, self, globalMin, maxSkew int32) bool {
	return SkewExcess(count, self, globalMin, maxSkew) <= 0
}

// SkewExcess is by how many matching pods the domain's count exceeds what
// the skew check allows (count + self - globalMin - maxSkew; at most 0
// when it passes): how many of them must leave for the pod to fit.
func SkewExcess(count, self, globalMin, maxSkew int32) int32 {
	return count + self - globalMin - maxSkew
}

// NormalizingWeight is a soft constraint's weight from the number of its
// domains among the nodes scored (one per node for hostname).
func NormalizingWeight(domains int) float64 { return math.Log(float64(domains + 2)) }

// ScoreForCount is one soft constraint's contribution to a node's raw
// score: its domain's count times the constraint's weight, plus maxSkew-1.
func ScoreForCount(count int64, maxSkew int32, weight float64) float64 {
	return float64(count)*weight + float64(maxSkew-1)
}

// RoundSpread rounds a node's summed contributions to its raw score.
func RoundSpread(f float64) int64 { return int64(math.Round(f)) }

// SpreadScore is the weighted normalised score of a node with raw score s,
// given the least and highest raw scores over the nodes not ignored
// (lo, hi; hi >= 0). An ignored node (lacking a key the score requires)
// scores 0.
func SpreadScore(s, lo, hi int64, ignored bool) int64 {
	switch {
	case ignored:
		return 0
	case hi == 0:
		return WeightPodTopologySpread * MaxNodeScore
	}
	return WeightPodTopologySpread * (MaxNodeScore * (hi + lo - s) / hi)
}
