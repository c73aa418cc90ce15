package solver

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/kplace/kplace/index"
	"k8s.io/apimachinery/pkg/labels"
)

// Well-known names the filters use.
const (
	taintUnschedulable = "node.kubernetes.io/unschedulable"
	fieldNodeName      = "metadata.name"
)

// group is the static part shared by classes: pods equal in tolerations,
// node selector and node affinity have the same feasible nodes, rejection
// counts and static scores.
type group struct {
	feasCard int
	// Rejection counts per static filter, in kube-scheduler's filter order.
	nUnsched, nTaint, nAffinity int
	// nAbsent counts nodes outside NodeAffinity's PreFilterResult
	// (matchFields metadata.name In); conflict is set when the terms' node
	// name sets are disjoint (the pod is unresolvable at PreFilter).
	nAbsent  int
	conflict bool

	// Static scoring inputs: per node, the number of untolerated
	// PreferNoSchedule taints and the sum of the matching preferred terms'
	// weights (dense by node id, nil when the group has none; rawNA only
	// holds feasible nodes).
	rawTT []int32
	rawNA []int32
	// dense is the feasible node set, one bit per node (set by init).
	dense []uint64
	// ttTop and naTop are the highest rawTT and rawNA on feasible nodes.
	ttTop, naTop int32
	pods         int // pods of the group still to be placed
	failures     int // pods of the group left unschedulable
	// tmpl holds the group's templates by twin key (template.go).
	tmpl map[string]*template
	// ready is closed once init has filled the group (see initGroups).
	ready chan struct{}
	// What a session needs to follow changes of node taints and cordons
	// (see session.go): the group's key, its tolerations, whether they
	// tolerate a cordon, and the static sets that do not depend on taints
	// (NodeAffinity's PreFilter names and its filter; nil: every node).
	key        string
	tols       []index.Toleration
	unschedTol bool
	names      *roaring.Bitmap
	aff        []uint64
}

// class is one equivalence class of pending pods: equal in every field that
// affects placement.
type class struct {
	g      *group
	rep    index.PodID // first pod of the class
	key    []byte      // canonical encoding, to confirm hash hits
	demand index.Demand
	pods   int // pods of the class still to be placed

	balCPU  int64 // actual cpu and memory requests, for BalancedAllocation
	balMem  int64
	balance bool // false when the pod requests neither: the plugin skips
	// The requests in float32, for the pruning bound.
	fScoreCPU, fScoreMem, fBalCPU, fBalMem float32
	// needCPU and needMem are the cpu and memory requests, for a build's
	// first fit test (see nodeFree); fullFit is set when the class
	// requests anything else the fit check reads (another resource or
	// host ports).
	needCPU, needMem int64
	fullFit          bool
	// retryFailed: a pod of the class failed in retry; failedAfter: the
	// evictions made before its last failure (see Solver.retry).
	retryFailed bool
	failedAfter int
	// Normalisation maxima of TaintToleration and NodeAffinity over the
	// nodes that fit when the class is (re)built.
	ttMax, naMax int64
	// ttScore[raw] and naScore[raw] are the weighted, normalised scores
	// for raw values up to the group's tops (tables spare a division per
	// node); rawTT and rawNA are the group's raw columns, or zeros.
	ttScore, naScore []int64
	rawTT, rawNA     []int32

	heap nodeHeap
	// cut is the best entry left out of a truncated heap (valid when
	// truncated): while the heap's top beats it, the top is the best node.
	cut       entry
	truncated bool
	// dom replaces heap for a class split by a spread constraint's
	// domains (see domains.go).
	dom    *domSplit
	cursor int // next index.Cluster.Changes entry to replay
	// scanOnly: the class's heap ran dry while truncated, so its builds
	// scan the nodes rather than take a twin's template (template.go).
	scanOnly bool
	built    bool
	reason   string // unschedulable message
	failures int
	// pre is the preemption state, made on the class's first preemption.
	pre *preState
	// rel is the pod-relative part (nil when the class has none).
	rel *relClass
	// buckets holds a scoring class's candidates (see buckets.go).
	buckets *buckets
}

// prepare derives the scoring fields from demand, balCPU and balMem.
func (cl *class) prepare() {
	cl.balance = cl.balCPU != 0 || cl.balMem != 0
	cl.fScoreCPU, cl.fScoreMem = float32(cl.demand.ScoreCPU), float32(cl.demand.ScoreMem)
	cl.fBalCPU, cl.fBalMem = float32(cl.balCPU), float32(cl.balMem)
	cl.needCPU, cl.needMem, cl.fullFit = 0, 0, len(cl.demand.Ports) > 0
	for _, rv := range cl.demand.Req {
		switch rv.Res {
		case index.ResCPU:
			cl.needCPU = rv.Val
		case index.ResMemory:
			cl.needMem = rv.Val
		default:
			cl.fullFit = true
		}
	}
}

// keyEncoder writes the canonical placement key of a pod into a reused buffer.
type keyEncoder struct {
	buf  []byte
	keys []string
	sels map[string]labels.Selector // see cachedSelector
	// matchers caches affinity terms' matchers by encoding (encodeRel).
	matchers map[string]matcher
}

func (e *keyEncoder) str(s string) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *keyEncoder) num(v int64) { e.buf = binary.AppendVarint(e.buf, v) }

// demand writes what decides where p fits and how a node scores for it:
// requests, scoring requests and host ports.
func (e *keyEncoder) demand(p *index.Pod) {
	e.num(int64(len(p.Requests)))
	for _, q := range p.Requests { // ingest emits requests in a stable order
		e.str(q.Name)
		e.num(q.Value)
	}
	e.num(p.ScoreCPU)
	e.num(p.ScoreMemory)
	e.num(int64(len(p.HostPorts)))
	for _, hp := range p.HostPorts {
		e.str(hp.HostIP)
		e.str(hp.Protocol)
		e.num(int64(hp.Port))
	}
}

func (e *keyEncoder) reqs(rs []index.Requirement) {
	e.num(int64(len(rs)))
	for _, r := range rs {
		e.str(r.Key)
		e.str(r.Operator)
		e.num(int64(len(r.Values)))
		for _, v := range r.Values {
			e.str(v)
		}
	}
}

func (e *keyEncoder) term(t *index.NodeSelectorTerm) {
	e.reqs(t.MatchExpressions)
	e.reqs(t.MatchFields)
}

func (e *keyEncoder) tolerations(tols []index.Toleration) {
	e.num(int64(len(tols)))
	for i := range tols {
		t := &tols[i]
		e.str(t.Key)
		e.str(t.Operator)
		e.str(t.Value)
		e.str(t.Effect)
	}
}

// labelMap writes a label map in key order.
func (e *keyEncoder) labelMap(m map[string]string) {
	e.keys = e.keys[:0]
	for k := range m {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys)
	e.num(int64(len(e.keys)))
	for _, k := range e.keys {
		e.str(k)
		e.str(m[k])
	}
}

// required writes p's nodeSelector and required node affinity.
func (e *keyEncoder) required(p *index.Pod) {
	e.labelMap(p.NodeSelector)
	if p.HasRequired {
		e.num(int64(len(p.RequiredTerms)))
		for i := range p.RequiredTerms {
			e.term(&p.RequiredTerms[i])
		}
	} else {
		e.num(-1)
	}
}

// encode returns the canonical key of p and the length of its static part
// (the group key); the slice is reused by the next call.
func (e *keyEncoder) encode(p *index.Pod) ([]byte, int) {
	e.buf = e.buf[:0]
	e.tolerations(p.Tolerations)
	e.required(p)
	e.num(int64(len(p.PreferredTerms)))
	for i := range p.PreferredTerms {
		e.num(int64(p.PreferredTerms[i].Weight))
		e.term(&p.PreferredTerms[i].Term)
	}
	static := len(e.buf)
	e.demand(p)
	// Preemption depends on both: the victims, and whether to try.
	e.num(int64(p.Priority))
	e.str(p.PreemptionPolicy)
	return e.buf, static
}

// tolerates reports whether any of tols tolerates taint.
func tolerates(tols []index.Toleration, taint *index.Taint) bool {
	for i := range tols {
		if tols[i].ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// newGroup computes the static feasibility, rejection counts and scoring
// inputs of p's group.
func newGroup(c *index.Cluster, p *index.Pod) *group {
	g := &group{ready: make(chan struct{})}
	g.init(c, p, newMemo(), &keyEncoder{})
	close(g.ready)
	return g
}

// memo shares what groups compute from the same sub-specs (toleration lists,
// node selector terms): groups differ in their combination far more often
// than in the parts. Safe for concurrent use; values are read-only.
type memo struct {
	mu     sync.Mutex
	taints map[string]*taintSets
	terms  map[string]*roaring.Bitmap
	dense  map[string][]uint64 // terms as bitsets
	// reqDense holds requiredDense's results; all and unsched the
	// cluster's nodes and its cordoned ones as bitsets (made once).
	reqDense     map[string][]uint64
	all, unsched []uint64
}

// taintSets is what a toleration list makes of the cluster's taints.
type taintSets struct {
	bad   *roaring.Bitmap   // nodes with an untolerated NoSchedule/NoExecute taint, nil if none
	pns   []*roaring.Bitmap // nodes with each untolerated PreferNoSchedule taint
	rawTT []int32           // per node count of those, nil if none
	// badDense is bad as a bitset; pns0 pns[0]'s when it is the only one.
	badDense, pns0 []uint64
}

func newMemo() *memo {
	return &memo{taints: map[string]*taintSets{}, terms: map[string]*roaring.Bitmap{}, dense: map[string][]uint64{}, reqDense: map[string][]uint64{}}
}

// denseOf writes b as a bitset over the cluster's nodes.
func denseOf(c *index.Cluster, b *roaring.Bitmap) []uint64 {
	d := make([]uint64, (c.NumNodes()+63)/64)
	b.WriteDenseTo(d)
	return d
}

// clusterSets returns the cluster's nodes and its cordoned ones as bitsets.
func (m *memo) clusterSets(c *index.Cluster) (all, unsched []uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.all == nil {
		m.all, m.unsched = denseOf(c, c.All), denseOf(c, c.Unschedulable)
	}
	return m.all, m.unsched
}

// requiredDense returns the nodes matching p's nodeSelector and required
// node affinity, as a bitset (requiredNodes on bitsets).
func (m *memo) requiredDense(c *index.Cluster, p *index.Pod, enc *keyEncoder) []uint64 {
	enc.buf = enc.buf[:0]
	enc.required(p)
	key := slices.Clone(enc.buf) // termDense reuses enc for the terms
	return memoized(&m.mu, m.reqDense, key, func() []uint64 {
		all, _ := m.clusterSets(c)
		out := slices.Clone(all)
		for k, v := range p.NodeSelector {
			b := c.LabelNodes(k, v)
			if b == nil {
				clear(out)
				return out
			}
			andCount(out, denseOf(c, b))
		}
		if p.HasRequired {
			terms := make([]uint64, len(out))
			for i := range p.RequiredTerms {
				if t := &p.RequiredTerms[i]; !emptyTerm(t) { // an empty term matches nothing
					for w, x := range m.termDense(c, t, enc) {
						terms[w] |= x
					}
				}
			}
			andCount(out, terms)
		}
		return out
	})
}

// andCount keeps in dst the nodes of src and returns how many are left.
func andCount(dst, src []uint64) int {
	k := 0
	for i := range dst {
		dst[i] &= src[i]
		k += bits.OnesCount64(dst[i])
	}
	return k
}

// andNotCount removes src's nodes from dst and returns how many it removed.
func andNotCount(dst, src []uint64) int {
	k := 0
	for i := range dst {
		k += bits.OnesCount64(dst[i] & src[i])
		dst[i] &^= src[i]
	}
	return k
}

func (m *memo) taintSets(c *index.Cluster, tols []index.Toleration, enc *keyEncoder) *taintSets {
	enc.buf = enc.buf[:0]
	enc.tolerations(tols)
	return memoized(&m.mu, m.taints, enc.buf, func() *taintSets {
		ts := &taintSets{}
		for i := range c.Taints {
			t := &c.Taints[i]
			switch t.Effect {
			case index.EffectNoSchedule, index.EffectNoExecute:
				if !tolerates(tols, t) {
					if ts.bad == nil {
						ts.bad = roaring.New()
					}
					ts.bad.Or(c.TaintNodes[i])
				}
			case index.EffectPreferNoSchedule:
				if !toleratesPreferNoSchedule(tols, t) {
					ts.pns = append(ts.pns, c.TaintNodes[i])
				}
			}
		}
		if ts.bad != nil {
			ts.badDense = denseOf(c, ts.bad)
		}
		if len(ts.pns) == 1 {
			ts.pns0 = denseOf(c, ts.pns[0])
		}
		if len(ts.pns) > 0 {
			ts.rawTT = make([]int32, c.NumNodes())
			for _, b := range ts.pns {
				b.Iterate(func(n uint32) bool { ts.rawTT[n]++; return true })
			}
		}
		return ts
	})
}

// term returns the nodes matching t.
func (m *memo) term(c *index.Cluster, t *index.NodeSelectorTerm, enc *keyEncoder) *roaring.Bitmap {
	enc.buf = enc.buf[:0]
	enc.term(t)
	return memoized(&m.mu, m.terms, enc.buf, func() *roaring.Bitmap { return termNodes(c, t) })
}

// termDense returns the nodes matching t as a bitset.
func (m *memo) termDense(c *index.Cluster, t *index.NodeSelectorTerm, enc *keyEncoder) []uint64 {
	enc.buf = enc.buf[:0]
	enc.term(t)
	return memoized(&m.mu, m.dense, enc.buf, func() []uint64 {
		d := make([]uint64, (c.NumNodes()+63)/64)
		termNodes(c, t).WriteDenseTo(d)
		return d
	})
}

// memoized returns m[key], computing it outside the lock on a miss. Two
// goroutines may compute the same key at once; their values are equal and
// the last one is kept.
func memoized[V any](mu *sync.Mutex, m map[string]V, key []byte, compute func() V) V {
	mu.Lock()
	v, ok := m[string(key)]
	mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	mu.Lock()
	m[string(key)] = v
	mu.Unlock()
	return v
}

// init fills g for pod p. It only reads c, so groups may be initialised
// concurrently (each caller with its own encoder).
func (g *group) init(c *index.Cluster, p *index.Pod, m *memo, enc *keyEncoder) {
	// The set algebra runs on bitsets of the cluster's size (a roaring
	// container spans 65,536 nodes whatever the cluster).
	all, unsched := m.clusterSets(c)
	dense := slices.Clone(all)
	total := int(c.All.GetCardinality())

	// NodeAffinity PreFilter: a node-name set when every required term names
	// nodes with matchFields metadata.name In.
	g.tols = p.Tolerations
	unschedTaint := index.Taint{Key: taintUnschedulable, Effect: index.EffectNoSchedule}
	g.unschedTol = tolerates(p.Tolerations, &unschedTaint)
	if names, conflict, ok := preFilterNames(c, p); ok {
		g.names = names
		g.conflict = conflict
		g.nAbsent = total - int(names.GetCardinality())
		andCount(dense, denseOf(c, names))
	}

	// NodeUnschedulable.
	if !c.Unschedulable.IsEmpty() && !g.unschedTol {
		g.nUnsched = andNotCount(dense, unsched)
	}

	// TaintToleration: NoSchedule and NoExecute taints must be tolerated.
	ts := m.taintSets(c, p.Tolerations, enc)
	g.rawTT = ts.rawTT
	if ts.badDense != nil {
		g.nTaint = andNotCount(dense, ts.badDense)
	}

	// NodeAffinity filter: nodeSelector AND required terms.
	feas := 0
	for _, w := range dense {
		feas += bits.OnesCount64(w)
	}
	if len(p.NodeSelector) > 0 || p.HasRequired {
		before := feas
		g.aff = m.requiredDense(c, p, enc)
		feas = andCount(dense, g.aff)
		g.nAffinity = before - feas
	}
	g.dense, g.feasCard = dense, feas

	switch {
	case len(ts.pns) == 1: // the common case needs no pass over the nodes
		for i, w := range dense {
			if w&ts.pns0[i] != 0 {
				g.ttTop = 1
				break
			}
		}
	case len(ts.pns) > 1:
		g.ttTop = topOf(g.rawTT, g.dense)
	}

	// NodeAffinity scoring: the sum of the matching preferred terms'
	// weights, on feasible nodes only (no other node is ever scored).
	terms := 0 // terms matching a feasible node
	for i := range p.PreferredTerms {
		pt := &p.PreferredTerms[i]
		if pt.Weight == 0 || emptyTerm(&pt.Term) {
			continue
		}
		if g.rawNA == nil {
			g.rawNA = make([]int32, c.NumNodes())
		}
		w := pt.Weight
		hit := false
		for wi, word := range m.termDense(c, &pt.Term, enc) {
			word &= g.dense[wi]
			hit = hit || word != 0
			for ; word != 0; word &= word - 1 {
				g.rawNA[wi*64+bits.TrailingZeros64(word)] += w
			}
		}
		if hit {
			terms++
			g.naTop = w // the top when this is the only term that matches
		}
	}
	if terms > 1 {
		g.naTop = topOf(g.rawNA, g.dense)
	}
}

// toleratesPreferNoSchedule applies TaintToleration's scoring rule: only
// tolerations with an empty or PreferNoSchedule effect count.
func toleratesPreferNoSchedule(tols []index.Toleration, taint *index.Taint) bool {
	for i := range tols {
		t := &tols[i]
		if (t.Effect == "" || t.Effect == index.EffectPreferNoSchedule) && t.ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// preFilterNames mirrors NodeAffinity's PreFilter: when every required term
// has matchFields metadata.name In requirements, the union over terms of the
// intersection of their value sets, restricted to existing nodes. ok is
// false when there is no such restriction; conflict is true when the name
// sets are disjoint (decided on names, before unknown nodes are dropped).
func preFilterNames(c *index.Cluster, p *index.Pod) (names *roaring.Bitmap, conflict, ok bool) {
	if !p.HasRequired || len(p.RequiredTerms) == 0 {
		return nil, false, false
	}
	var union map[string]struct{}
	for i := range p.RequiredTerms {
		var inter map[string]struct{}
		for _, r := range p.RequiredTerms[i].MatchFields {
			if r.Key != fieldNodeName || r.Operator != index.SelIn {
				continue
			}
			s := make(map[string]struct{}, len(r.Values))
			for _, v := range r.Values {
				if inter == nil {
					s[v] = struct{}{}
				} else if _, in := inter[v]; in {
					s[v] = struct{}{}
				}
			}
			inter = s
		}
		if inter == nil {
			return nil, false, false
		}
		if union == nil {
			union = map[string]struct{}{}
		}
		for v := range inter {
			union[v] = struct{}{}
		}
	}
	names = roaring.New()
	for v := range union {
		if id, ok := c.NodeByName[v]; ok {
			names.Add(id)
		}
	}
	return names, len(union) == 0, true
}

// requiredNodes returns the nodes matching p's nodeSelector and required node
// affinity.
func requiredNodes(c *index.Cluster, p *index.Pod, m *memo, enc *keyEncoder) *roaring.Bitmap {
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
			if emptyTerm(t) {
				continue // matches nothing
			}
			terms.Or(m.term(c, t, enc))
		}
		out.And(terms)
	}
	return out
}

func emptyTerm(t *index.NodeSelectorTerm) bool {
	return len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0
}

// termNodes returns the nodes matching every requirement of t.
func termNodes(c *index.Cluster, t *index.NodeSelectorTerm) *roaring.Bitmap {
	out := c.All.Clone()
	for i := range t.MatchExpressions {
		out.And(exprNodes(c, &t.MatchExpressions[i]))
		if out.IsEmpty() {
			return out
		}
	}
	for i := range t.MatchFields {
		out.And(fieldNodes(c, &t.MatchFields[i]))
	}
	return out
}

// exprNodes evaluates one label requirement. Invalid requirements (In with no
// values, Gt with a non-integer) match nothing, as the scheduler's parse
// error does.
func exprNodes(c *index.Cluster, r *index.Requirement) *roaring.Bitmap {
	switch r.Operator {
	case index.SelIn, index.SelNotIn:
		if len(r.Values) == 0 {
			return roaring.New()
		}
		in := roaring.New()
		for _, v := range r.Values {
			if b := c.LabelNodes(r.Key, v); b != nil {
				in.Or(b)
			}
		}
		if r.Operator == index.SelIn {
			return in
		}
		return roaring.AndNot(c.All, in)
	case index.SelExists, index.SelDoesNotExist:
		if len(r.Values) != 0 {
			return roaring.New()
		}
		has := c.KeyNodes(r.Key)
		if r.Operator == index.SelExists {
			if has == nil {
				return roaring.New()
			}
			return has
		}
		if has == nil {
			return c.All
		}
		return roaring.AndNot(c.All, has)
	case index.SelGt, index.SelLt:
		if len(r.Values) != 1 {
			return roaring.New()
		}
		want, ok := index.ParseLabelInt(r.Values[0])
		if !ok {
			return roaring.New()
		}
		gt := r.Operator == index.SelGt
		return c.KeyNodesWhere(r.Key, func(v string) bool {
			got, ok := index.ParseLabelInt(v)
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
func fieldNodes(c *index.Cluster, r *index.Requirement) *roaring.Bitmap {
	if len(r.Values) != 1 || (r.Operator != index.SelIn && r.Operator != index.SelNotIn) {
		return roaring.New()
	}
	named := roaring.New()
	if r.Key == fieldNodeName {
		if id, ok := c.NodeByName[r.Values[0]]; ok {
			named.Add(id)
		}
	} else if r.Values[0] == "" {
		named = c.All.Clone() // an absent field reads as ""
	}
	if r.Operator == index.SelIn {
		return named
	}
	return roaring.AndNot(c.All, named)
}
