package rules

// NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable): a
// cordoned node (spec.unschedulable) takes only pods tolerating the taint
// node.kubernetes.io/unschedulable:NoSchedule.

import "github.com/kplace/kplace/index"

// TaintNodeUnschedulable is the key of the taint a cordon stands for.
const TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"

// UnschedulableTaint is the taint a cordoned node is checked as.
var UnschedulableTaint = index.Taint{Key: TaintNodeUnschedulable, Effect: index.EffectNoSchedule}

// UnschedulableFilter is the filter: NodeUnschedulable for a cordoned node
// whose cordon the pod does not tolerate, else None.
func UnschedulableFilter(unschedulable bool, tols []index.Toleration) Reason {
	if unschedulable && !Tolerates(tols, &UnschedulableTaint) {
		return NodeUnschedulable
	}
	return None
}
