package rules

// TaintToleration (pkg/scheduler/framework/plugins/tainttoleration): a node
// is infeasible while one of its NoSchedule or NoExecute taints is not
// tolerated; PreferNoSchedule taints are scored (fewer untolerated ones is
// better, normalised in reverse). The match of one toleration against one
// taint is index.Toleration.ToleratesTaint (k8s.io/api's ToleratesTaint);
// the NoExecute taint manager uses the same match (FirstToleration). Which
// taints the filter reads is index.Taint.Filters.

import "github.com/kplace/kplace/index"

// Tolerates reports whether any of tols tolerates taint
// (v1helper.TolerationsTolerateTaint); index.Tolerates is the definition,
// which index's untolerated-node sets use too.
func Tolerates(tols []index.Toleration, taint *index.Taint) bool { return index.Tolerates(tols, taint) }

// FirstToleration returns the index of the first toleration of tols that
// tolerates taint, -1 when none does. The taint manager reads that
// toleration's tolerationSeconds.
func FirstToleration(tols []index.Toleration, taint *index.Taint) int {
	return index.FirstToleration(tols, taint)
}

// TaintFilter is the filter: UntoleratedTaint when a NoSchedule or
// NoExecute taint of the node is not tolerated, else None.
func TaintFilter(taints []index.Taint, tols []index.Toleration) Reason {
	for i := range taints {
		t := &taints[i]
		if t.Filters() && !Tolerates(tols, t) {
			return UntoleratedTaint
		}
	}
	return None
}

// ToleratesPreferNoSchedule is the scoring match: only tolerations with an
// empty or PreferNoSchedule effect count.
func ToleratesPreferNoSchedule(tols []index.Toleration, taint *index.Taint) bool {
	for i := range tols {
		t := &tols[i]
		if (t.Effect == "" || t.Effect == index.EffectPreferNoSchedule) && t.ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// IntolerablePreferNoSchedule is the raw score: the node's
// PreferNoSchedule taints not tolerated.
func IntolerablePreferNoSchedule(taints []index.Taint, tols []index.Toleration) int64 {
	var n int64
	for i := range taints {
		if IntolerablePreferNoScheduleTaint(&taints[i], tols) {
			n++
		}
	}
	return n
}

// IntolerablePreferNoScheduleTaint reports whether taint t counts in the
// raw score: a PreferNoSchedule taint that tols do not tolerate.
func IntolerablePreferNoScheduleTaint(t *index.Taint, tols []index.Toleration) bool {
	return t.Effect == index.EffectPreferNoSchedule && !ToleratesPreferNoSchedule(tols, t)
}

// TaintScore is the weighted score of a node with raw untolerated
// PreferNoSchedule taints, given the highest raw value over the nodes
// scored.
func TaintScore(raw, maxRaw int64) int64 {
	return WeightTaintToleration * NormalizeScore(raw, maxRaw, true)
}
