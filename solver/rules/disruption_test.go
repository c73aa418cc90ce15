package rules

import (
	"testing"

	"github.com/kplace/kplace/index"
)

// TestSpecAllowed: the disruption controller's disruptionsAllowed from a
// budget's spec.
func TestSpecAllowed(t *testing.T) {
	for _, tc := range []struct {
		minAvail, maxUnavail string
		healthy, expected    int
		want                 int32
	}{
		{"2", "", 5, 5, 3},
		{"", "1", 5, 5, 1},
		{"50%", "", 3, 4, 1},  // desired 2
		{"", "30%", 4, 4, 2},  // ceil(1.2) = 2 unavailable: desired 2
		{"5", "", 3, 5, 0},    // never below 0
		{"2", "1", 5, 5, 1},   // maxUnavailable wins
		{"", "", 3, 3, 3},     // no bound
		{"", "100%", 0, 3, 0}, // nothing healthy
	} {
		b := &index.PDB{MinAvailable: tc.minAvail, MaxUnavailable: tc.maxUnavail}
		if got := SpecAllowed(b, tc.healthy, tc.expected); got != tc.want {
			t.Errorf("SpecAllowed(min %q max %q, %d/%d) = %d, want %d", tc.minAvail, tc.maxUnavail, tc.healthy, tc.expected, got, tc.want)
		}
	}
}

// TestPDBCovers: same namespace, a pod with labels, a valid non-empty
// selector that matches.
func TestPDBCovers(t *testing.T) {
	app := &index.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	pod := &index.Pod{Namespace: "ns", Labels: map[string]string{"app": "x"}}
	for _, tc := range []struct {
		name string
		b    index.PDB
		p    *index.Pod
		want bool
	}{
		{"matches", index.PDB{Namespace: "ns", Selector: app}, pod, true},
		{"another namespace", index.PDB{Namespace: "other", Selector: app}, pod, false},
		{"nil selector", index.PDB{Namespace: "ns"}, pod, false},
		{"empty selector", index.PDB{Namespace: "ns", Selector: &index.LabelSelector{}}, pod, false},
		{"a pod without labels", index.PDB{Namespace: "ns", Selector: &index.LabelSelector{MatchExpressions: []index.Requirement{{Key: "app", Operator: "DoesNotExist"}}}}, &index.Pod{Namespace: "ns"}, false},
	} {
		sel, ok := PDBSelector(&tc.b)
		if got := ok && PDBCovers(&tc.b, sel, tc.p); got != tc.want {
			t.Errorf("%s: covers = %v, want %v", tc.name, got, tc.want)
		}
	}
}
