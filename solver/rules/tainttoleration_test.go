package rules

import (
	"testing"

	"github.com/kplace/kplace/index"
)

func tol(key, op, value, effect string) index.Toleration {
	return index.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
}

// TestTolerates covers the match of a toleration list against one taint,
// with the seed pages' examples.
func TestTolerates(t *testing.T) {
	key1 := index.Taint{Key: "key1", Value: "value1", Effect: index.EffectNoSchedule}
	for _, tc := range []struct {
		name  string
		cite  string
		tols  []index.Toleration
		taint index.Taint
		want  bool
	}{
		{"equal value and effect", "taints-and-tolerations.uk.txt: kubectl taint nodes node1 key1=value1:NoSchedule",
			[]index.Toleration{tol("key1", "Equal", "value1", "NoSchedule")}, key1, true},
		{"exists with effect", `taints-and-tolerations.uk.txt: operator: "Exists"`,
			[]index.Toleration{tol("key1", "Exists", "", "NoSchedule")}, key1, true},
		{"operator defaults to Equal", "taints-and-tolerations.uk.txt: Типово значення для operator є Equal.",
			[]index.Toleration{tol("key1", "", "value1", "NoSchedule")}, key1, true},
		{"Equal with another value", "", []index.Toleration{tol("key1", "Equal", "value2", "NoSchedule")}, key1, false},
		{"another effect", "", []index.Toleration{tol("key1", "Equal", "value1", "NoExecute")}, key1, false},
		{"empty key with Exists matches every key", "taints-and-tolerations.ja.txt: 空の`key`かつ`operator`が`Exists`だとvalueとeffectは関係なくすべてのキーにマッチします",
			[]index.Toleration{tol("", "Exists", "", "")}, key1, true},
		{"empty effect matches every effect", "taints-and-tolerations.ja.txt: 空の`effect`は`key`が一致するすべてにマッチします",
			[]index.Toleration{tol("key1", "Exists", "", "")}, index.Taint{Key: "key1", Effect: index.EffectNoExecute}, true},
		{"another key", "", []index.Toleration{tol("key2", "Exists", "", "")}, key1, false},
		{"unknown operator", "", []index.Toleration{tol("key1", "Gt", "value1", "")}, key1, false},
		{"any of several", "", []index.Toleration{tol("key2", "Exists", "", ""), tol("key1", "Exists", "", "")}, key1, true},
		{"none", "", nil, key1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cites(t, tc.cite)
			if got := Tolerates(tc.tols, &tc.taint); got != tc.want {
				t.Errorf("Tolerates = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFirstToleration: the taint manager reads the first toleration (in
// the pod's order) that tolerates a taint.
func TestFirstToleration(t *testing.T) {
	taint := index.Taint{Key: "node.kubernetes.io/unreachable", Effect: index.EffectNoExecute}
	tols := []index.Toleration{tol("other", "Exists", "", ""), tol("", "Exists", "", "NoExecute"), tol("node.kubernetes.io/unreachable", "Exists", "", "NoExecute")}
	if got := FirstToleration(tols, &taint); got != 1 {
		t.Errorf("FirstToleration = %d, want 1", got)
	}
	if got := FirstToleration(tols[:1], &taint); got != -1 {
		t.Errorf("FirstToleration without a match = %d, want -1", got)
	}
}

// TestTaintFilter: NoSchedule and NoExecute taints must all be tolerated;
// PreferNoSchedule ones never filter. The seed's three-taint example: the
// pod tolerating the first two cannot be scheduled.
func TestTaintFilter(t *testing.T) {
	cites(t, "taints-and-tolerations.uk.txt: kubectl taint nodes node1 key2=value2:NoSchedule")
	threeTaints := []index.Taint{{Key: "key1", Value: "value1", Effect: "NoSchedule"}, {Key: "key1", Value: "value1", Effect: "NoExecute"}, {Key: "key2", Value: "value2", Effect: "NoSchedule"}}
	twoTols := []index.Toleration{tol("key1", "Equal", "value1", "NoSchedule"), tol("key1", "Equal", "value1", "NoExecute")}
	for _, tc := range []struct {
		name   string
		taints []index.Taint
		tols   []index.Toleration
		want   Reason
	}{
		{"seed: the third taint is not tolerated", threeTaints, twoTols, UntoleratedTaint},
		{"seed: all three tolerated", threeTaints, append(twoTols, tol("key2", "Exists", "", "")), None},
		{"PreferNoSchedule does not filter", []index.Taint{{Key: "k", Effect: "PreferNoSchedule"}}, nil, None},
		{"NoExecute filters", []index.Taint{{Key: "k", Effect: "NoExecute"}}, nil, UntoleratedTaint},
		{"no taints", nil, nil, None},
	} {
		if got := TaintFilter(tc.taints, tc.tols); got != tc.want {
			t.Errorf("%s: TaintFilter = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTaintScore: untolerated PreferNoSchedule taints, counted only
// against tolerations with an empty or PreferNoSchedule effect, and
// normalised in reverse (weight 3).
func TestTaintScore(t *testing.T) {
	taints := []index.Taint{{Key: "a", Effect: "PreferNoSchedule"}, {Key: "b", Effect: "PreferNoSchedule"}, {Key: "c", Effect: "NoSchedule"}}
	for _, tc := range []struct {
		tols []index.Toleration
		want int64
	}{
		{nil, 2},
		{[]index.Toleration{tol("a", "Exists", "", "")}, 1},
		{[]index.Toleration{tol("a", "Exists", "", "PreferNoSchedule")}, 1},
		{[]index.Toleration{tol("a", "Exists", "", "NoSchedule")}, 2}, // a NoSchedule toleration does not count
		{[]index.Toleration{tol("", "Exists", "", "")}, 0},
	} {
		if got := IntolerablePreferNoSchedule(taints, tc.tols); got != tc.want {
			t.Errorf("IntolerablePreferNoSchedule(%v) = %d, want %d", tc.tols, got, tc.want)
		}
	}
	for _, tc := range []struct{ raw, max, want int64 }{{0, 0, 300}, {0, 2, 300}, {1, 2, 150}, {2, 2, 0}, {1, 3, 201}} {
		if got := TaintScore(tc.raw, tc.max); got != tc.want {
			t.Errorf("TaintScore(%d, %d) = %d, want %d", tc.raw, tc.max, got, tc.want)
		}
	}
}

// TestUnschedulableFilter: a cordon is the taint
// node.kubernetes.io/unschedulable:NoSchedule.
func TestUnschedulableFilter(t *testing.T) {
	cites(t, "taints-and-tolerations.uk.txt: node.kubernetes.io/unschedulable: Вузол не піддається плануванню.")
	for _, tc := range []struct {
		unsched bool
		tols    []index.Toleration
		want    Reason
	}{
		{false, nil, None},
		{true, nil, NodeUnschedulable},
		{true, []index.Toleration{tol(TaintNodeUnschedulable, "Exists", "", "NoSchedule")}, None},
		{true, []index.Toleration{tol(TaintNodeUnschedulable, "Exists", "", "NoExecute")}, NodeUnschedulable},
		{true, []index.Toleration{tol("", "Exists", "", "")}, None},
	} {
		if got := UnschedulableFilter(tc.unsched, tc.tols); got != tc.want {
			t.Errorf("UnschedulableFilter(%v, %v) = %v, want %v", tc.unsched, tc.tols, got, tc.want)
		}
	}
}
