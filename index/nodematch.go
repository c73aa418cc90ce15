package index

import "github.com/RoaringBitmap/roaring/v2"

// Node matching: the NodeAffinity filter's nodeSelector and required node
// affinity, and the TaintToleration filter's untolerated taints, as sets of
// nodes. The solver builds its feasible sets from these; expansion asks
// them which nodes a DaemonSet runs on.

// FieldNodeName is the one field a matchFields requirement can name.
const FieldNodeName = "metadata.name"

// Tolerates reports whether any of tols tolerates taint.
func Tolerates(tols []Toleration, taint *Taint) bool {
	for i := range tols {
		if tols[i].ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// UntoleratedNodes returns the nodes carrying a NoSchedule or NoExecute
// taint that no toleration of tols tolerates (TaintToleration's filter);
// nil when there are none.
func (c *Cluster) UntoleratedNodes(tols []Toleration) *roaring.Bitmap {
	var bad *roaring.Bitmap
	for i := range c.Taints {
		t := &c.Taints[i]
		if t.Effect != EffectNoSchedule && t.Effect != EffectNoExecute || Tolerates(tols, t) {
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
// node affinity (every nodeSelector pair, and any required term). term
// gives a term's nodes (a caller's cache of TermNodes); nil means
// TermNodes.
func (c *Cluster) RequiredNodes(p *Pod, term func(t *NodeSelectorTerm) *roaring.Bitmap) *roaring.Bitmap {
	if term == nil {
		term = c.TermNodes
	}
	out := c.All.Clone()
	for k, v := range p.NodeSelector {
		b := c.LabelNodes(k, v)
		if b == nil {
			return roaring.New()
		}
		out.And(b)
	}
	if p.HasRequired {
		terms := roaring.New()
		for i := range p.RequiredTerms {
			t := &p.RequiredTerms[i]
			if EmptyTerm(t) {
				continue // matches nothing
			}
			terms.Or(term(t))
		}
		out.And(terms)
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
	if out == nil {
		out = c.All.Clone()
	}
	for i := range t.MatchExpressions {
		if out.IsEmpty() {
			return out
		}
		out.And(c.exprNodes(&t.MatchExpressions[i]))
	}
	return out
}

// exprNodes evaluates one label requirement. Invalid requirements (In with no
// values, Gt with a non-integer) match nothing, as the scheduler's parse
// error does.
func (c *Cluster) exprNodes(r *Requirement) *roaring.Bitmap {
	switch r.Operator {
	case SelIn, SelNotIn:
		if len(r.Values) == 0 {
			return roaring.New()
		}
		in := roaring.New()
		for _, v := range r.Values {
			if b := c.LabelNodes(r.Key, v); b != nil {
				in.Or(b)
			}
		}
		if r.Operator == SelIn {
			return in
		}
		return roaring.AndNot(c.All, in)
	case SelExists, SelDoesNotExist:
		if len(r.Values) != 0 {
			return roaring.New()
		}
		has := c.KeyNodes(r.Key)
		if r.Operator == SelExists {
			if has == nil {
				return roaring.New()
			}
			return has
		}
		if has == nil {
			return c.All
		}
		return roaring.AndNot(c.All, has)
	case SelGt, SelLt:
		if len(r.Values) != 1 {
			return roaring.New()
		}
		want, ok := ParseLabelInt(r.Values[0])
		if !ok {
			return roaring.New()
		}
		gt := r.Operator == SelGt
		return c.KeyNodesWhere(r.Key, func(v string) bool {
			got, ok := ParseLabelInt(v)
			if !ok {
				return false
			}
			if gt {
				return got > want
			}
			return got < want
		})
	}
	return roaring.New()
}

// fieldNodes evaluates a matchFields requirement as the scheduler's field
// selector does: In and NotIn with exactly one value (anything else is a
// parse error and the term matches nothing), against the node's only field,
// metadata.name.
func (c *Cluster) fieldNodes(r *Requirement) *roaring.Bitmap {
	if len(r.Values) != 1 || (r.Operator != SelIn && r.Operator != SelNotIn) {
		return roaring.New()
	}
	named := roaring.New()
	if r.Key == FieldNodeName {
		if id, ok := c.NodeByName[r.Values[0]]; ok {
			named.Add(id)
		}
	} else if r.Values[0] == "" {
		named = c.All.Clone() // an absent field reads as ""
	}
	if r.Operator == SelIn {
		return named
	}
	return roaring.AndNot(c.All, named)
}
