package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
	"k8s.io/apimachinery/pkg/labels"
)

// TestPDBMatch checks the budgets found through anchor labels against
// every budget's selector applied to every pod.
func TestPDBMatch(t *testing.T) {
	t.Parallel()
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

// TestBudgetMemo checks matchMemo, which answers by namespace and labels
// map identity, against match on pods sharing a few maps across both
// namespaces, visited in random order (repeats and runs of one map).
func TestBudgetMemo(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 5))
	nss := []string{"default", "other"}
	var pdbs []index.PDB
	for i := range 20 {
		sel := &index.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprint("a", r.IntN(4))}}
		if r.IntN(3) == 0 {
			sel.MatchExpressions = []index.Requirement{{Key: "tier", Operator: "In", Values: []string{"x"}}}
		}
		pdbs = append(pdbs, index.PDB{Namespace: nss[r.IntN(2)], Name: fmt.Sprint("b", i), Selector: sel, DisruptionsAllowed: 1})
	}
	var maps []map[string]string
	for i := range 8 {
		m := map[string]string{"app": fmt.Sprint("a", i%4)}
		if i >= 4 {
			m["tier"] = "x"
		}
		maps = append(maps, m)
	}
	var pods []index.Pod
	for i := range 300 {
		b := makePod(fmt.Sprint("p", i)).on("n")
		b.p.Namespace = nss[r.IntN(2)]
		p := b.obj()
		if r.IntN(10) > 0 {
			p.Labels = maps[r.IntN(len(maps))] // shared, as ingest shares equal maps
		} else {
			p.Labels = map[string]string{"app": fmt.Sprint("a", r.IntN(4))}
		}
		pods = append(pods, p)
	}
	c, err := index.Build(&index.Input{Nodes: []index.Node{makeNode("n").obj()}, Pods: pods, PDBs: pdbs})
	if err != nil {
		t.Fatal(err)
	}
	pd := newSolver(c, Config{}).pdbs()
	// Some map must be matched differently in the two namespaces, or the
	// namespace part of the key is not exercised.
	differs := false
	for _, m := range maps {
		a := pd.match(&index.Pod{Namespace: nss[0], Labels: m}, nil)
		b := pd.match(&index.Pod{Namespace: nss[1], Labels: m}, nil)
		differs = differs || !slices.Equal(a, b)
	}
	if !differs {
		t.Fatal("no map is matched differently in the two namespaces")
	}
	var memo budgetMemo
	for range 3000 {
		p := r.IntN(len(c.Pods))
		for run := r.IntN(3); run >= 0 && p < len(c.Pods); run-- {
			pre := []int32{-1}
			got := pd.matchMemo(&c.Pods[p], pre, &memo)
			want := pd.match(&c.Pods[p], []int32{-1})
			if !slices.Equal(got, want) {
				t.Fatalf("pod %d (%s %v): memo %v, want %v", p, c.Pods[p].Namespace, c.Pods[p].Labels, got, want)
			}
			p++
		}
	}
}

// TestSingleSelectorMatchesApimachinery checks singleSelector against
// selectorOf (apimachinery's conversion) on valid and invalid keys and
// values: the same verdict, the same selector.
func TestSingleSelectorMatchesApimachinery(t *testing.T) {
	t.Parallel()
	keys := []string{"app", "App.v2", "example.com/app", "a/b/c", "/app", "app/", "-app", "app-", "EXAMPLE.com/app", "ex_ample.com/app",
		strings.Repeat("k", 63), strings.Repeat("k", 64), strings.Repeat("d", 254) + "/k", "ä"}
	vals := []string{"", "web", "web-1", "web_1.x", "-web", "web-", "w b", strings.Repeat("v", 63), strings.Repeat("v", 64), "ü"}
	valid := 0
	cache := map[string]bool{}
	for _, k := range keys {
		for _, v := range vals {
			ml := map[string]string{k: v}
			got, want := singleSelector(ml, cache), selectorOf(&index.LabelSelector{MatchLabels: ml})
			if (got == nil) != (want == nil) {
				t.Fatalf("{%q: %q}: singleSelector %v, apimachinery %v", k, v, got, want)
			}
			if got == nil {
				continue
			}
			valid++
			if got.String() != want.String() {
				t.Fatalf("{%q: %q}: singleSelector %q, apimachinery %q", k, v, got, want)
			}
			for _, set := range []labels.Set{{k: v}, {k: v + "x"}, {"other": v}, {k: v, "other": "y"}} {
				if got.Matches(set) != want.Matches(set) {
					t.Fatalf("{%q: %q} on %v: singleSelector %v, apimachinery %v", k, v, set, got.Matches(set), want.Matches(set))
				}
			}
		}
	}
	if valid < 20 || valid == len(keys)*len(vals) {
		t.Errorf("%d of %d selectors valid: the cases do not cover both verdicts", valid, len(keys)*len(vals))
	}
}
