package rules

// PodDisruptionBudgets: which pods a budget covers (as DefaultPreemption's
// filterPodsWithPDBViolation reads them) and, for a budget without a
// status, its allowed disruptions as the disruption controller computes
// them (pkg/controller/disruption).

import (
	"math"
	"strconv"
	"strings"

	"github.com/kplace/kplace/index"
	"k8s.io/apimachinery/pkg/labels"
)

// PDBSelector is the selector of budget b; ok is false when it matches no
// pod: nil, empty or invalid.
func PDBSelector(b *index.PDB) (labels.Selector, bool) {
	sel, ok := LabelSelector(b.Selector)
	if !ok || sel.Empty() {
		return labels.Nothing(), false
	}
	return sel, true
}

// PDBCovers reports whether budget b, with selector sel (PDBSelector),
// covers pod p: same namespace, p has labels, and sel matches them.
func PDBCovers(b *index.PDB, sel labels.Selector, p *index.Pod) bool {
	return len(p.Labels) > 0 && b.Namespace == p.Namespace && sel.Matches(labels.Set(p.Labels))
}

// SpecAllowed is a budget's disruptionsAllowed computed from its spec:
// healthy minus desired healthy, at least 0; maxUnavailable wins over
// minAvailable; a percentage scales expected, rounding up.
func SpecAllowed(b *index.PDB, healthy, expected int) int32 {
	return int32(max(0, min(healthy-DesiredHealthy(b, expected), math.MaxInt32)))
}

// DesiredHealthy is the disruption controller's desiredHealthy for budget
// b over expected pods (getExpectedPodCount): expected less maxUnavailable,
// or minAvailable, a percentage of expected rounded up.
func DesiredHealthy(b *index.PDB, expected int) int {
	switch {
	case b.MaxUnavailable != "":
		return max(0, expected-scaled(b.MaxUnavailable, expected))
	case b.MinAvailable != "":
		return scaled(b.MinAvailable, expected)
	}
	return 0
}

// scaled reads an IntOrString: an integer, or a percentage of total rounded
// up. Ingest has validated it.
func scaled(v string, total int) int {
	if pct, ok := strings.CutSuffix(v, "%"); ok {
		p, _ := strconv.Atoi(pct)
		return (p*total + 99) / 100
	}
	n, _ := strconv.Atoi(v)
	return n
}
