package index

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// Node matching: the NodeAffinity filter's nodeSelector and required node
// affinity, and the TaintToleration filter's untolerated taints, as sets of
// nodes. The solver builds its feasible sets from these; expansion asks
// them which nodes a DaemonSet runs on.

// FieldNodeName is the one field a matchFields requirement can name.
const FieldNodeName = "metadata.name"

// Tolerates reports whether any of tols tolerates taint.
func Tolerates(tols []Toleration, taint *Taint) bool { return FirstToleration(tols, taint) >= 0 }

// FirstToleration returns the index of the first toleration of tols that
// tolerates taint, -1 when none does (the toleration the taint manager
// reads the tolerationSeconds of).
func FirstToleration(tols []Toleration, taint *Taint) int {
	for i := range tols {
		if tols[i].ToleratesTaint(taint) {
			return i
		}
	}
	return -1
}

// Filters reports whether the TaintToleration filter reads taint t: its
// effect is NoSchedule or NoExecute (PreferNoSchedule is only scored).
func (t *Taint) Filters() bool {
	return t.Effect == EffectNoSchedule || t.Effect == EffectNoExecute
}

var selOps = map[string]selection.Operator{
	SelIn: selection.In, SelNotIn: selection.NotIn,
	SelExists: selection.Exists, SelDoesNotExist: selection.DoesNotExist,
	SelGt: selection.GreaterThan, SelLt: selection.LessThan,
}

// Valid reports whether a matchExpressions requirement parses
// (labels.NewRequirement: a known operator, a valid key, In and NotIn with
// values, Exists and DoesNotExist without, Gt and Lt with one integer). A
// term holding an invalid requirement matches no node.
func (r *Requirement) Valid() bool {
	op, ok := selOps[r.Operator]
	if !ok {
		return false
	}
	_, err := labels.NewRequirement(r.Key, op, r.Values)
	return err == nil
}

// Matches reports whether a valid requirement matches a node whose label
// r.Key is value (present: whether it has the label).
func (r *Requirement) Matches(value string, present bool) bool {
	switch r.Operator {
	case SelIn:
		return present && slices.Contains(r.Values, value)
	case SelNotIn:
		return !present || !slices.Contains(r.Values, value)
	case SelExists:
		return present
	case SelDoesNotExist:
		return !present
	case SelGt, SelLt:
		if !present || len(r.Values) != 1 {
			return false
		}
		got, ok := ParseLabelInt(value)
		if !ok {
			return false
		}
		want, ok := ParseLabelInt(r.Values[0])
		if !ok {
			return false
		}
		if r.Operator == SelGt {
			return got > want
		}
		return got < want
	}
	return false
}

// ByListing reports whether Matches' verdict on a node with the label
// depends only on whether its value is one of r.Values (every operator but
// Gt and Lt), so that one unlisted value answers for all.
func (r *Requirement) ByListing() bool {
	return r.Operator != SelGt && r.Operator != SelLt
}

// FieldValid reports whether a matchFields requirement parses: In or
// NotIn with exactly one value.
func (r *Requirement) FieldValid() bool {
	return len(r.Values) == 1 && (r.Operator == SelIn || r.Operator == SelNotIn)
}

// MatchesField reports whether a valid matchFields requirement matches the
// node named name: the only field is metadata.name, any other key reads as
// "".
func (r *Requirement) MatchesField(name string) bool {
	got := ""
	if r.Key == FieldNodeName {
		got = name
	}
	return (got == r.Values[0]) == (r.Operator == SelIn)
}

// UntoleratedNodes returns the nodes carrying a taint the TaintToleration
// filter reads (Taint.Filters) that no toleration of tols tolerates; nil
// when there are none. Each distinct taint is asked once.
func (c *Cluster) UntoleratedNodes(tols []Toleration) *roaring.Bitmap {
	var bad *roaring.Bitmap
	for i := range c.Taints {
		t := &c.Taints[i]
		if !t.Filters() || Tolerates(tols, t) {
			continue
		}
		if bad == nil {
			bad = roaring.New()
		}
		bad.Or(c.TaintNodes[i])
	}
	return bad
}

// RequiredNodes returns the nodes matching p's nodeSelector and required
// node affinity (every nodeSelector pair, and any required term), a set of
// its own (the caller may change it). term gives a term's nodes (a
// caller's cache of TermNodes, not changed); nil means TermNodes.
func (c *Cluster) RequiredNodes(p *Pod, term func(t *NodeSelectorTerm) *roaring.Bitmap) *roaring.Bitmap {
	if term == nil {
		term = c.TermNodes
	}
	// The terms first: their union is a set of its own, often of few
	// nodes (a DaemonSet pod's names one), which spares a copy of All.
	var out *roaring.Bitmap
	if p.HasRequired {
		out = roaring.New()
		for i := range p.RequiredTerms {
			t := &p.RequiredTerms[i]
			if EmptyTerm(t) {
				continue // matches nothing
			}
			out.Or(term(t))
		}
	} else {
		out = c.All.Clone()
	}
	for k, v := range p.NodeSelector {
		b := c.LabelNodes(k, v)
		if b == nil {
			return roaring.New()
		}
		out.And(b)
	}
	return out
}

// EmptyTerm reports whether t has no requirement (it matches no node).
func EmptyTerm(t *NodeSelectorTerm) bool {
	return len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0
}

// TermNodes returns the nodes matching every requirement of t.
func (c *Cluster) TermNodes(t *NodeSelectorTerm) *roaring.Bitmap {
	// The fields first: a metadata.name In field (every DaemonSet pod's
	// term has one) leaves one node to intersect, not the cluster.
	var out *roaring.Bitmap
	for i := range t.MatchFields {
		f := c.fieldNodes(&t.MatchFields[i]) // a bitmap of its own
		if out == nil {
			out = f
		} else {
			out.And(f)
		}
	}
	named := out != nil // the fields named the nodes
	if out == nil {
		out = c.All.Clone()
	}
	for i := range t.MatchExpressions {
		r := &t.MatchExpressions[i]
		switch {
		case out.IsEmpty():
			return out
		case named && out.GetCardinality() <= fewNodes:
			// A few named nodes: ask each.
			if !r.Valid() {
				return roaring.New()
			}
			for _, n := range out.ToArray() {
				if v, ok := c.Nodes[n].Labels[r.Key]; !r.Matches(v, ok) {
					out.Remove(n)
				}
			}
		default:
			out.And(c.exprNodes(r))
		}
	}
	return out
}

// fewNodes is how many nodes named by a term's fields TermNodes asks one
// by one rather than by the distinct values of a key.
const fewNodes = 8

// exprNodes evaluates one label requirement by Requirement.Matches: once
// for the nodes without the key and, for the nodes with it, once per
// distinct value; when the verdict depends only on whether the value is
// listed (Requirement.ByListing), once per listed value and once for all
// the others. An invalid requirement matches nothing, as the scheduler's
// parse error does.
func (c *Cluster) exprNodes(r *Requirement) *roaring.Bitmap {
	if !r.Valid() {
		return roaring.New()
	}
	var out *roaring.Bitmap
	has := c.KeyNodes(r.Key)
	if !r.ByListing() {
		out = c.KeyNodesWhere(r.Key, func(v string) bool { return r.Matches(v, true) })
	} else {
		out = roaring.New()
		listed := roaring.New()
		for _, v := range r.Values {
			if b := c.LabelNodes(r.Key, v); b != nil {
				listed.Or(b)
				if r.Matches(v, true) {
					out.Or(b)
				}
			}
		}
		if other, ok := c.unlistedValue(r); ok && r.Matches(other, true) {
			out.Or(roaring.AndNot(has, listed))
		}
	}
	if r.Matches("", false) {
		if has != nil {
			out.Or(roaring.AndNot(c.All, has))
		} else {
			out.Or(c.All)
		}
	}
	return out
}

// unlistedValue returns a value of label r.Key on some node that r does
// not list; ok is false when every node's value is listed.
func (c *Cluster) unlistedValue(r *Requirement) (string, bool) {
	ks, ok := c.Syms.Lookup(r.Key)
	if !ok {
		return "", false
	}
	for _, vs := range c.KeyValues[ks] {
		if v := c.Syms.String(vs); !slices.Contains(r.Values, v) {
			return v, true
		}
	}
	return "", false
}

// fieldNodes evaluates a matchFields requirement by
// Requirement.MatchesField. A valid one names one value, so that every node
// but the one of that name reads the same: that node is asked, and one
// other for all the rest.
func (c *Cluster) fieldNodes(r *Requirement) *roaring.Bitmap {
	out := roaring.New()
	if !r.FieldValid() {
		return out
	}
	named, ok := c.NodeByName[r.Values[0]]
	other := NodeID(0)
	if ok && named == 0 {
		other = 1
	}
	if int(other) < len(c.Nodes) && r.MatchesField(c.Nodes[other].Name) {
		out.Or(c.All)
		if ok {
			out.Remove(named)
		}
	}
	if ok && r.MatchesField(c.Nodes[named].Name) {
		out.Add(named)
	}
	return out
}
