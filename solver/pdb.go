package solver

import (
	"reflect"
	"runtime"
	"slices"
	"unsafe"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/labels"
)

// pdbState holds the PodDisruptionBudgets' allowed disruptions during a
// batch: from status.disruptionsAllowed when the input has it (a live
// export), otherwise computed from the spec as the disruption controller
// would, with the bound matching pods as the healthy ones and every
// matching pod (bound or pending) as the expected ones. Evicting a victim
// takes one disruption from every budget it matches.
type pdbState struct {
	pdbs []index.PDB
	sels []labels.Selector // nil: matches nothing (nil, empty or invalid selector)
	// single marks the valid selectors made of one matchLabels pair: a pod
	// found through that anchor label matches them.
	single  []bool
	allowed []int32
	// byLabel finds budgets through one label their selector requires
	// (namespace, key, value); scan lists, per namespace, those whose
	// selector requires no label value (expressions only).
	byLabel map[pdbLabel][]int32
	scan    map[string][]int32
	// anchors lists the label keys byLabel uses, each once.
	anchors []string
	// ofPod caches the budgets of the pods asked about (victims, and
	// pods matching more budgets than a victim-list entry keeps).
	ofPod map[index.PodID][]int32
	memo  budgetMemo // of's
}

// pdbs returns the batch's PDB state, built on first use (its budget index
// possibly begun at the start of the batch, see startPDBs); nil when the
// input has no PDBs.
func (s *Solver) pdbs() *pdbState {
	if s.pdb != nil || len(s.c.PDBs) == 0 {
		return s.pdb
	}
	c := s.c
	var pd *pdbState
	if s.pdbIndex != nil {
		pd = <-s.pdbIndex
		s.pdbIndex = nil
	} else {
		pd = newPDBIndex(c.PDBs)
	}
	pd.allowed = make([]int32, len(c.PDBs))
	var pending []int32 // budgets computed from the spec
	for i := range c.PDBs {
		if a := c.PDBs[i].DisruptionsAllowed; a >= 0 {
			pd.allowed[i] = a
		} else {
			pending = append(pending, int32(i))
		}
	}
	if len(pending) > 0 {
		healthy := make([]int, len(c.PDBs))
		expected := make([]int, len(c.PDBs))
		var memo budgetMemo
		var buf []int32
		for p := range c.Pods {
			if c.Pods[p].Rejected != "" {
				continue
			}
			buf = pd.matchMemo(&c.Pods[p], buf[:0], &memo)
			for _, k := range buf {
				if c.PDBs[k].DisruptionsAllowed >= 0 {
					continue
				}
				expected[k]++
				if c.PodNode[p] != index.NoNode {
					healthy[k]++
				}
			}
		}
		for _, k := range pending {
			pd.allowed[k] = specAllowed(&c.PDBs[k], healthy[k], expected[k])
		}
	}
	s.pre.local = make([]int32, len(c.PDBs))
	s.pre.stamp = make([]uint32, len(c.PDBs))
	s.pdb = pd
	return pd
}

// startPDBs begins the budgets' index (newPDBIndex) on another goroutine,
// for a batch that may preempt: the first preemption then finds it made,
// or made in part while the batch placed its first pods. The index reads
// only the budgets, which nothing changes during a batch.
func (s *Solver) startPDBs() {
	if len(s.c.PDBs) == 0 || s.pdb != nil || s.pdbIndex != nil {
		return
	}
	ch := make(chan *pdbState, 1)
	s.pdbIndex = ch
	pdbs := s.c.PDBs
	go func() { ch <- newPDBIndex(pdbs) }()
}

// newPDBIndex makes the budgets' selectors (validated by apimachinery, on
// every processor; those of one matchLabels pair without its regular
// expressions, see singleSelector) and the index that finds a pod's
// budgets through its labels; allowed disruptions come later (see pdbs).
func newPDBIndex(pdbs []index.PDB) *pdbState {
	pd := &pdbState{pdbs: pdbs, byLabel: map[pdbLabel][]int32{}, scan: map[string][]int32{}, ofPod: map[index.PodID][]int32{}}
	pd.sels = make([]labels.Selector, len(pdbs))
	inRanges(runtime.GOMAXPROCS(0), len(pdbs), func(_, lo, hi int) {
		keys := map[string]bool{} // label key -> valid
		for i := lo; i < hi; i++ {
			ls := pdbs[i].Selector
			switch {
			case ls == nil || len(ls.MatchLabels) == 0 && len(ls.MatchExpressions) == 0:
			case len(ls.MatchLabels) == 1 && len(ls.MatchExpressions) == 0:
				pd.sels[i] = singleSelector(ls.MatchLabels, keys)
			default:
				pd.sels[i] = selectorOf(ls)
			}
		}
	})
	for i := range pdbs {
		b := &pdbs[i]
		sel := pd.sels[i]
		pd.single = append(pd.single, sel != nil && len(b.Selector.MatchLabels) == 1 && len(b.Selector.MatchExpressions) == 0)
		if sel == nil {
			continue // matches nothing
		}
		if k, ok := anchorKey(b.Selector); ok {
			l := pdbLabel{ns: b.Namespace, key: k, value: b.Selector.MatchLabels[k]}
			pd.byLabel[l] = append(pd.byLabel[l], int32(i))
			if !slices.Contains(pd.anchors, k) {
				pd.anchors = append(pd.anchors, k)
			}
		} else {
			pd.scan[b.Namespace] = append(pd.scan[b.Namespace], int32(i))
		}
	}
	return pd
}

// selectorOf converts a label selector with k8s.io/apimachinery (see
// index.SelectorOf).
func selectorOf(ls *index.LabelSelector) labels.Selector { return index.SelectorOf(ls) }

// singleSelector is selectorOf for a selector of one matchLabels pair,
// the common budget, without apimachinery's regular expressions: the key
// checked once per distinct key (keys caches content.IsLabelKey's
// verdicts), the value by index.ValidLabelValue.
func singleSelector(ml map[string]string, keys map[string]bool) labels.Selector {
	for k, v := range ml {
		ok, seen := keys[k]
		if !seen {
			ok = len(content.IsLabelKey(k)) == 0
			keys[k] = ok
		}
		if !ok || !index.ValidLabelValue(v) {
			return nil
		}
		return labels.SelectorFromValidatedSet(labels.Set{k: v})
	}
	return nil
}

// specAllowed is the disruption controller's disruptionsAllowed from a
// PDB's spec: healthy minus desired healthy, at least 0. maxUnavailable
// wins over minAvailable; percentages scale the expected count, rounding up.
func specAllowed(b *index.PDB, healthy, expected int) int32 {
	return rules.SpecAllowed(b, healthy, expected)
}

// of returns the budgets pod p matches (cached).
func (pd *pdbState) of(s *Solver, p index.PodID) []int32 {
	if out, ok := pd.ofPod[p]; ok {
		return out
	}
	out := pd.matchMemo(&s.c.Pods[p], nil, &pd.memo)
	pd.ofPod[p] = out
	return out
}

// pdbLabel is a namespace and one label.
type pdbLabel struct{ ns, key, value string }

// anchorKey picks the matchLabels key a selector is indexed by: the least
// key, for determinism.
func anchorKey(ls *index.LabelSelector) (string, bool) {
	best, ok := "", false
	for k := range ls.MatchLabels {
		if !ok || k < best {
			best, ok = k, true
		}
	}
	return best, ok
}

// match appends to out the budgets whose selector matches pod p, in budget
// order.
func (pd *pdbState) match(p *index.Pod, out []int32) []int32 {
	if len(p.Labels) == 0 {
		return out // a pod without labels matches no budget
	}
	set := labels.Set(p.Labels)
	start := len(out)
	// Through the pod's labels that are anchors: look the fewer up.
	if len(pd.anchors) <= len(p.Labels) {
		for _, k := range pd.anchors {
			if v, ok := p.Labels[k]; ok {
				out = pd.matchAnchor(p, set, k, v, out)
			}
		}
	} else {
		for k, v := range p.Labels {
			out = pd.matchAnchor(p, set, k, v, out)
		}
	}
	for _, b := range pd.scan[p.Namespace] {
		if pd.sels[b].Matches(set) {
			out = append(out, b)
		}
	}
	slices.Sort(out[start:])
	return out
}

// budgetMemo remembers pdbState.match's answers by namespace and labels
// map: the pods of one template share one labels map (ingest and the
// snapshot reader share equal ones), so most pods are answered without
// reading their labels, the slow part of matching every bound pod (their
// maps lie all over memory). A small direct-mapped table: pods sharing a
// map mostly come together, and pods that share none cost a probe and a
// store. One per goroutine.
type budgetMemo struct {
	slots [memoSlots]memoSlot
}

const memoSlots = 256

type memoSlot struct {
	key  memoKey
	n    int32    // budgets: inl[:n], or more when n > len(inl)
	inl  [2]int32 // the common case without an allocation
	more []int32
}

type memoKey struct {
	ns     string
	labels unsafe.Pointer // the map's identity
}

// matchMemo is match through memo m.
func (pd *pdbState) matchMemo(p *index.Pod, out []int32, m *budgetMemo) []int32 {
	if len(p.Labels) == 0 {
		return out
	}
	k := memoKey{p.Namespace, reflect.ValueOf(p.Labels).UnsafePointer()}
	sl := &m.slots[(uintptr(k.labels)>>4^uintptr(len(k.ns)))%memoSlots]
	if sl.key != k {
		start := len(out)
		out = pd.match(p, out)
		got := out[start:]
		sl.key, sl.n = k, int32(len(got))
		if len(got) <= len(sl.inl) {
			copy(sl.inl[:], got)
		} else {
			sl.more = append(sl.more[:0], got...)
		}
		return out
	}
	if int(sl.n) <= len(sl.inl) {
		return append(out, sl.inl[:sl.n]...)
	}
	return append(out, sl.more...)
}

// matchAnchor appends to out the budgets anchored at pod p's label k=v
// whose selector matches the pod's labels set.
func (pd *pdbState) matchAnchor(p *index.Pod, set labels.Set, k, v string, out []int32) []int32 {
	for _, b := range pd.byLabel[pdbLabel{p.Namespace, k, v}] {
		if pd.single[b] || pd.sels[b].Matches(set) {
			out = append(out, b)
		}
	}
	return out
}

// evicted takes one disruption from each of a victim's budgets and returns
// those it leaves with none (exhausted now).
func (pd *pdbState) evicted(budgets []int32) []int32 {
	var out []int32
	for _, k := range budgets {
		pd.allowed[k]--
		if pd.allowed[k] == 0 {
			out = append(out, k)
		}
	}
	return out
}
