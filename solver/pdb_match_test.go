package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
	"k8s.io/apimachinery/pkg/labels"
)

// TestPDBMatch checks the budgets found through anchor labels against
// every budget's selector applied to every pod.
func TestPDBMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	keys := []string{"app", "tier", "team", "x"}
	vals := []string{"a", "b", "c"}
	nss := []string{"default", "other"}
	var pdbs []index.PDB
	for i := range 60 {
		sel := &index.LabelSelector{}
		for range r.IntN(3) {
			if sel.MatchLabels == nil {
				sel.MatchLabels = map[string]string{}
			}
			sel.MatchLabels[keys[r.IntN(len(keys))]] = vals[r.IntN(len(vals))]
		}
		if r.IntN(3) == 0 {
			ops := []string{"In", "NotIn", "Exists", "DoesNotExist"}
			op := ops[r.IntN(len(ops))]
			var vs []string
			if op == "In" || op == "NotIn" {
				vs = []string{vals[r.IntN(len(vals))]}
			}
			sel.MatchExpressions = append(sel.MatchExpressions, index.Requirement{Key: keys[r.IntN(len(keys))], Operator: op, Values: vs})
		}
		if r.IntN(15) == 0 {
			sel.MatchLabels = map[string]string{"app": "bad value!"} // invalid: matches nothing
		}
		if r.IntN(20) == 0 {
			sel = nil
		}
		pdbs = append(pdbs, index.PDB{Namespace: nss[r.IntN(2)], Name: fmt.Sprint("b", i), Selector: sel, DisruptionsAllowed: 1})
	}
	var pods []index.Pod
	for i := range 400 {
		b := makePod(fmt.Sprint("p", i)).on("n")
		b.p.Namespace = nss[r.IntN(2)]
		for _, k := range keys {
			if r.IntN(2) == 0 {
				b.label(k, vals[r.IntN(len(vals))])
			}
		}
		pods = append(pods, b.obj())
	}
	c, err := index.Build(&index.Input{Nodes: []index.Node{makeNode("n").obj()}, Pods: pods, PDBs: pdbs})
	if err != nil {
		t.Fatal(err)
	}
	s := newSolver(c, Config{})
	pd := s.pdbs()
	matched := 0
	for p := range c.Pods {
		pp := &c.Pods[p]
		var want []int32
		for k := range c.PDBs {
			b := &c.PDBs[k]
			if b.Namespace != pp.Namespace || b.Selector == nil || len(b.Selector.MatchLabels) == 0 && len(b.Selector.MatchExpressions) == 0 {
				continue
			}
			if sel := selectorOf(b.Selector); sel != nil && len(pp.Labels) > 0 && sel.Matches(labels.Set(pp.Labels)) {
				want = append(want, int32(k))
			}
		}
		if got := pd.of(s, index.PodID(p)); !slices.Equal(got, want) {
			t.Fatalf("pod %v: budgets %v, want %v", pp.Labels, got, want)
		}
		matched += len(want)
	}
	if matched < 100 {
		t.Errorf("only %d matches", matched)
	}
}
