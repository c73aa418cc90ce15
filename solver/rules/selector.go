package rules

// Label selectors as the plugins read them
// (metav1.LabelSelectorAsSelector): a nil selector selects nothing, an
// empty one everything; an invalid one (ingest rejects them) selects
// nothing here.

import (
	"github.com/kplace/kplace/index"
	"k8s.io/apimachinery/pkg/labels"
)

// LabelSelector converts ls with k8s.io/apimachinery; ok is false for a nil
// or invalid selector (it selects nothing).
func LabelSelector(ls *index.LabelSelector) (sel labels.Selector, ok bool) {
	if ls == nil {
		return labels.Nothing(), false
	}
	if sel = index.SelectorOf(ls); sel == nil {
		return labels.Nothing(), false
	}
	return sel, true
}

// SelectorMatches reports whether ls selects a pod with labels l.
func SelectorMatches(ls *index.LabelSelector, l map[string]string) bool {
	sel, _ := LabelSelector(ls)
	return sel.Matches(labels.Set(l))
}

// MatchLabelMap reports whether labels l hold every pair of set, as
// labels.SelectorFromSet(set).Matches(l) does: a nodeSelector, or a
// Service's selector.
func MatchLabelMap(set, l map[string]string) bool { return index.MatchesSet(set, l) }
