package index

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// SelectorOf converts a label selector with k8s.io/apimachinery; an invalid
// one gives nil (it matches nothing, as in kube-scheduler; a controller with
// one creates no pods).
func SelectorOf(ls *LabelSelector) labels.Selector {
	m := &metav1.LabelSelector{MatchLabels: ls.MatchLabels}
	for _, r := range ls.MatchExpressions {
		m.MatchExpressions = append(m.MatchExpressions, metav1.LabelSelectorRequirement{Key: r.Key, Operator: metav1.LabelSelectorOperator(r.Operator), Values: r.Values})
	}
	sel, err := metav1.LabelSelectorAsSelector(m)
	if err != nil {
		return nil
	}
	return sel
}

// MatchesSet reports whether labels l hold every pair of set, as
// labels.SelectorFromSet(set).Matches(l) does, without making the selector.
func MatchesSet(set, l map[string]string) bool {
	for k, v := range set {
		if got, ok := l[k]; !ok || got != v {
			return false
		}
	}
	return true
}
