package solver

import (
	"encoding/binary"
	"math/bits"
	"reflect"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
	"k8s.io/apimachinery/pkg/labels"
)

// fieldNodeName is the node field NodeAffinity's matchFields may select on.
const fieldNodeName = index.FieldNodeName

// group is the static part shared by classes: pods equal in tolerations,
// node selector and node affinity have the same feasible nodes, rejection
// counts and static scores.
type group struct {
	feasCard int
	// runs has a bit per run of runsOf holding a feasible node, made
	// when runsOf was made runsMade (see feasibleRuns).
	runs     []uint64
	runsOf   *nodeOrder
	runsMade int
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
	// ttNZ and naNZ hold, as bitsets, a superset of the nodes where rawTT
	// and rawNA are not 0 (nil with them): a lean fill counts the others
	// a word at a time.
	ttNZ, naNZ []uint64
	// dense is the feasible node set, one bit per node (set by init).
	dense []uint64
	// ttTop and naTop are the highest rawTT and rawNA on feasible nodes.
	ttTop, naTop int32
	pods         int // pods of the group still to be placed
	failures     int // pods of the group left unschedulable
	// tmpl holds the group's templates by twin key (template.go).
	tmpl map[string]*template
	// ready is closed once init has filled the group (see initGroups);
	// awaited is set when placement first waited for it.
	ready   chan struct{}
	awaited bool
	// What a session needs to follow changes of node taints and cordons
	// (see session.go): the group's key, its tolerations, whether they
	// tolerate a cordon, and the static sets that do not depend on taints
	// (NodeAffinity's PreFilter names and its filter; nil: every node;
	// affNodes instead of aff for a group set up over its named nodes'
	// words).
	key        string
	tols       []index.Toleration
	unschedTol bool
	names      *roaring.Bitmap
	aff        []uint64
	affNodes   *roaring.Bitmap
	// window is the words of dense that may be nonzero for a group set up
	// over its named nodes' words; windows the pool dense came from (nil
	// otherwise): see release.
	window  [2]int32
	windows *windowPool
	raws    *rawPool // the pool rawNA came from, nil if none
}

// span returns the words of dense that may hold a feasible node: the
// window, or all of them.
func (g *group) span() (lo, hi int) {
	if g.windows != nil {
		return int(g.window[0]), int(g.window[1])
	}
	return 0, len(g.dense)
}

// release drops what a group no pod needs any more holds: its static
// score columns, templates and feasible set (given back to their pools).
func (g *group) release() {
	if g.windows != nil && g.dense != nil {
		lo, hi := g.span()
		clear(g.dense[lo:hi]) // the only words set
		g.windows.give(g.dense)
	}
	if g.raws != nil && g.rawNA != nil {
		// Clear from the first to the last word written (naNZ), at once.
		lo, hi := len(g.naNZ), 0
		for wi, w := range g.naNZ {
			if w != 0 {
				lo, hi = min(lo, wi), wi+1
			}
		}
		if lo < hi {
			clear(g.rawNA[lo*64 : min(hi*64, len(g.rawNA))])
		}
		g.raws.give(g.rawNA)
	}
	g.rawTT, g.rawNA, g.ttNZ, g.naNZ, g.tmpl, g.dense, g.windows, g.raws = nil, nil, nil, nil, nil, nil, nil, nil
}

// class is one equivalence class of pending pods: equal in every field that
// affects placement.
type class struct {
	g      *group
	rep    index.PodID // first pod of the class
	key    []byte      // canonical encoding, to confirm hash hits
	demand index.Demand
	// ports has the bit of each host port the class wants (see portMask);
	// extra holds its requests other than cpu and memory (see fitsExtra);
	// floors, for each of those that some node's allocatable cannot take,
	// the nodes whose allocatable can (allocFloor; set once, with
	// floorsMade, by the class's first lean fill).
	ports      uint64
	extra      []index.ResVal
	floors     [][]uint64
	floorsMade bool
	pods       int // pods of the class still to be placed

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
	// listed: the class is in reclaimState.failed; waiting holds the
	// Result.Pending indices of its pods left unschedulable, in queue
	// order, and evSeen how many evicted nodes it has looked at (see
	// reclaim.go).
	listed  bool
	waiting []int32
	evSeen  int
	// relSeen is relSig when the class last looked at pod-relative
	// changes (see reclaim.go).
	relSeen uint64
	// Normalisation maxima of TaintToleration and NodeAffinity over the
	// nodes that fit when the class is (re)built.
	ttMax, naMax int64
	// ttScore[raw] and naScore[raw] are the weighted, normalised scores
	// for raw values up to the group's tops (tables spare a division per
	// node); rawTT and rawNA are the group's raw columns, or zeros.
	ttScore, naScore []int64
	rawTT, rawNA     []int32
	// img holds the class's ImageLocality score per node (images.go), a
	// column of zeros when it is 0 everywhere (then hasImg is false); nil
	// until the class's static scores are first prepared (classImages,
	// with rawTT and rawNA) and once released.
	// imgRef is its column's entry (nil when its pods have no image).
	img    []uint8
	imgNZ  []uint64 // the nodes where img is not 0 (nil without hasImg)
	hasImg bool
	imgRef *imageCol

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
	// nodes is the filter part of reason as counts: message -> nodes.
	nodes    map[string]int
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
	cl.ports, cl.extra = portMask(cl.demand.Ports), nil
	for _, rv := range cl.demand.Req {
		switch rv.Res {
		case index.ResCPU:
			cl.needCPU = rv.Val
		case index.ResMemory:
			cl.needMem = rv.Val
		default:
			cl.fullFit = true
			cl.extra = append(cl.extra, rv)
		}
	}
}

// keyEncoder writes the canonical placement key of a pod into a reused buffer.
type keyEncoder struct {
	buf  []byte
	keys []string
	sels map[string]labels.Selector // see cachedSelector
	// images: demand writes the pod's images (the cluster's nodes list
	// images, so ImageLocality scores them).
	images bool
	// matchers caches affinity terms' matchers by encoding (encodeRel);
	// spreads pods' default constraints (spreadOfMemo).
	matchers map[string]matcher
	spreads  map[spreadKey][]index.SpreadConstraint
	// rels, when not nil, memoizes encodeRel (see relMemoKey): set only
	// where the pod-relative state cannot change (distinctKeys).
	rels     map[relMemoKey]relMemo
	lastRel  relMemoKey // the key of the last pod encoded with rels,
	lastMemo relMemo    // its entry,
	lastSet  bool       // and whether they are set
	// lastTols is the toleration list tolerations last wrote, and
	// tolsBytes what it wrote: the pods of a workload share one list;
	// lastMap and mapBytes likewise for labelMap (node selectors).
	lastTols  []index.Toleration
	tolsBytes []byte
	lastMap   map[string]string
	mapBytes  []byte
}

func (e *keyEncoder) str(s string) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *keyEncoder) num(v int64) { e.buf = binary.AppendVarint(e.buf, v) }

// demand writes what decides where p fits and how a node scores for it:
// requests, scoring requests and host ports.
func (e *keyEncoder) demand(p *index.Pod) {
	if e.images {
		// ImageLocality scores the pod's images (when nodes list images).
		e.num(int64(p.ImageContainers))
		e.num(int64(len(p.Images)))
		for _, im := range p.Images {
			e.str(im)
		}
	}
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
	if len(tols) > 0 && len(tols) == len(e.lastTols) && &tols[0] == &e.lastTols[0] {
		e.buf = append(e.buf, e.tolsBytes...)
		return
	}
	start := len(e.buf)
	e.num(int64(len(tols)))
	for i := range tols {
		t := &tols[i]
		e.str(t.Key)
		e.str(t.Operator)
		e.str(t.Value)
		e.str(t.Effect)
	}
	if len(tols) > 0 {
		e.lastTols, e.tolsBytes = tols, append(e.tolsBytes[:0], e.buf[start:]...)
	}
}

// labelMap writes a label map in key order.
func (e *keyEncoder) labelMap(m map[string]string) {
	if len(m) > 0 && reflect.ValueOf(m).UnsafePointer() == reflect.ValueOf(e.lastMap).UnsafePointer() {
		e.buf = append(e.buf, e.mapBytes...)
		return
	}
	start := len(e.buf)
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
	if len(m) > 0 {
		e.lastMap, e.mapBytes = m, append(e.mapBytes[:0], e.buf[start:]...)
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
	// windows, when set, lends the bitsets of the groups set up over a
	// window of words; raws their rawNA columns (see slicePool).
	windows *windowPool
	raws    *rawPool
}

// slicePool lends zeroed slices of the cluster's size that groups make
// and drop one after the other; a group gives each back zeroed (see
// release). Safe for concurrent use; a nil pool lends new slices.
//
// Two are used. The feasible bitsets of the groups initNamed sets up over
// a window of words (windowPool): an export whose DaemonSet pods are
// pending has a group per node, each with a bitset of which a word or two
// are used; placed one after the other, they would make and drop 12.5 KB
// per pod at 100,000 nodes, and a collection running meanwhile counts them
// live. And the rawNA columns (rawPool), 4 bytes per node for every group
// with preferred node affinity: 2,150 of them, 0.86 GB, on a realistic
// 100,000-node export.
type slicePool[T any] struct {
	mu   sync.Mutex
	free [][]T
}

type (
	windowPool = slicePool[uint64]
	rawPool    = slicePool[int32]
)

// get returns an all-zero slice of n elements.
func (p *slicePool[T]) get(n int) []T {
	if p == nil {
		return make([]T, n)
	}
	p.mu.Lock()
	if k := len(p.free); k > 0 && len(p.free[k-1]) == n {
		x := p.free[k-1]
		p.free = p.free[:k-1]
		p.mu.Unlock()
		return x
	}
	p.mu.Unlock()
	return make([]T, n)
}

// give takes back a slice from get, all zero again.
func (p *slicePool[T]) give(x []T) {
	p.mu.Lock()
	p.free = append(p.free, x)
	p.mu.Unlock()
}

// taintSets is what a toleration list makes of the cluster's taints.
type taintSets struct {
	bad   *roaring.Bitmap   // nodes with an untolerated NoSchedule/NoExecute taint, nil if none
	pns   []*roaring.Bitmap // nodes with each untolerated PreferNoSchedule taint
	rawTT []int32           // per node count of those, nil if none
	// badDense is bad as a bitset; pns0 pns[0]'s when it is the only one,
	// and anyPNS the nodes with any of them (nil when none).
	badDense, pns0, anyPNS []uint64
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
				if t := &p.RequiredTerms[i]; !index.EmptyTerm(t) { // an empty term matches nothing
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
		ts := &taintSets{bad: c.UntoleratedNodes(tols)}
		for i := range c.Taints {
			if rules.IntolerablePreferNoScheduleTaint(&c.Taints[i], tols) {
				ts.pns = append(ts.pns, c.TaintNodes[i])
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
			ts.anyPNS = make([]uint64, (c.NumNodes()+63)/64)
			for _, b := range ts.pns {
				b.Iterate(func(n uint32) bool {
					ts.rawTT[n]++
					ts.anyPNS[n>>6] |= 1 << (n & 63)
					return true
				})
			}
		}
		return ts
	})
}

// term returns the nodes matching t.
func (m *memo) term(c *index.Cluster, t *index.NodeSelectorTerm, enc *keyEncoder) *roaring.Bitmap {
	enc.buf = enc.buf[:0]
	enc.term(t)
	return memoized(&m.mu, m.terms, enc.buf, func() *roaring.Bitmap { return c.TermNodes(t) })
}

// termDense returns the nodes matching t as a bitset.
func (m *memo) termDense(c *index.Cluster, t *index.NodeSelectorTerm, enc *keyEncoder) []uint64 {
	enc.buf = enc.buf[:0]
	enc.term(t)
	return memoized(&m.mu, m.dense, enc.buf, func() []uint64 {
		d := make([]uint64, (c.NumNodes()+63)/64)
		c.TermNodes(t).WriteDenseTo(d)
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

// maxNamedWindow is the most nodes NodeAffinity's PreFilter may name for
// a group to set itself up over their words only (see init).
const maxNamedWindow = 64

// init fills g for pod p. It only reads c, so groups may be initialised
// concurrently (each caller with its own encoder).
func (g *group) init(c *index.Cluster, p *index.Pod, m *memo, enc *keyEncoder) {
	g.initNamed(c, p, m, enc, maxNamedWindow)
}

// initNamed is init with a window when the PreFilter names at most
// maxNamed nodes (0: never, for the tests that compare both).
func (g *group) initNamed(c *index.Cluster, p *index.Pod, m *memo, enc *keyEncoder, maxNamed uint64) {
	// The set algebra runs on bitsets of the cluster's size (a roaring
	// container spans 65,536 nodes whatever the cluster), over the window
	// of words that can hold a feasible node: all of them, or, when
	// NodeAffinity's PreFilter names a few nodes (a DaemonSet pod names
	// one), the words of those nodes, so that a group per node does not
	// cost a pass over the cluster.
	all, unsched := m.clusterSets(c)
	total := int(c.All.GetCardinality())
	var dense []uint64
	lo, hi := 0, len(all)
	g.tols = p.Tolerations
	g.unschedTol = rules.UnschedulableFilter(true, p.Tolerations) == rules.None
	names, conflict, named := preFilterNames(c, p)
	if named && names.GetCardinality() <= maxNamed {
		dense = m.windows.get(len(all))
		lo, hi = len(all), 0
		for it := names.Iterator(); it.HasNext(); {
			n := it.Next() // an existing node: no need to AND with all
			dense[n>>6] |= 1 << (n & 63)
			lo, hi = min(lo, int(n>>6)), max(hi, int(n>>6)+1)
		}
		lo = min(lo, hi)
		g.window = [2]int32{int32(lo), int32(hi)}
		g.windows = m.windows
	} else {
		dense = slices.Clone(all)
		if named {
			andCount(dense, denseOf(c, names))
		}
	}
	if named {
		g.names = names
		g.conflict = conflict
		g.nAbsent = total - int(names.GetCardinality())
	}
	win := dense[lo:hi]

	// NodeUnschedulable.
	if !c.Unschedulable.IsEmpty() && !g.unschedTol {
		g.nUnsched = andNotCount(win, unsched[lo:hi])
	}

	// TaintToleration: NoSchedule and NoExecute taints must be tolerated.
	ts := m.taintSets(c, p.Tolerations, enc)
	g.rawTT, g.ttNZ = ts.rawTT, ts.anyPNS
	if ts.badDense != nil {
		g.nTaint = andNotCount(win, ts.badDense[lo:hi])
	}

	// NodeAffinity filter: nodeSelector AND required terms (a narrow
	// window tests its few nodes against the nodes the terms select;
	// such terms name nodes, and are not worth a bitset each in the memo).
	feas := 0
	for _, w := range win {
		feas += bits.OnesCount64(w)
	}
	if len(p.NodeSelector) > 0 || p.HasRequired {
		before := feas
		if lo > 0 || hi < len(all) {
			// The few named nodes are tested one by one: a bitset of
			// every node the terms select, per group, is quadratic
			// memory when every node has its group (DaemonSets).
			g.affNodes = roaring.New()
			feas = 0
			for i := range win {
				for word := win[i]; word != 0; word &= word - 1 {
					n := uint32((lo+i)*64 + bits.TrailingZeros64(word))
					if rules.RequiredAffinity(p, &c.Nodes[n]) {
						g.affNodes.Add(n)
					} else {
						win[i] &^= 1 << (n & 63)
					}
				}
				feas += bits.OnesCount64(win[i])
			}
		} else {
			g.aff = m.requiredDense(c, p, enc)
			feas = andCount(dense, g.aff)
		}
		g.nAffinity = before - feas
	}
	g.dense, g.feasCard = dense, feas

	switch {
	case len(ts.pns) == 1: // the common case needs no pass over the nodes
		for i, w := range win {
			if w&ts.pns0[lo+i] != 0 {
				g.ttTop = 1
				break
			}
		}
	case len(ts.pns) > 1:
		g.ttTop = topOf(g.rawTT, dense[:hi]) // nothing feasible past hi
	}

	// NodeAffinity scoring: the sum of the matching preferred terms'
	// weights, on feasible nodes only (no other node is ever scored).
	terms := 0 // terms matching a feasible node
	for i := range p.PreferredTerms {
		pt := &p.PreferredTerms[i]
		if pt.Weight == 0 || index.EmptyTerm(&pt.Term) {
			continue
		}
		if g.rawNA == nil {
			g.rawNA, g.raws = m.raws.get(c.NumNodes()), m.raws
			g.naNZ = make([]uint64, len(g.dense))
		}
		w := pt.Weight
		hit := false
		for wi, word := range m.termDense(c, &pt.Term, enc) {
			word &= g.dense[wi]
			g.naNZ[wi] |= word
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

// preFilterNames is NodeAffinity's PreFilter (rules.PreFilterNodeNames)
// restricted to existing nodes. ok is false when there is no such
// restriction; conflict is true when the name sets are disjoint (decided
// on names, before unknown nodes are dropped).
func preFilterNames(c *index.Cluster, p *index.Pod) (names *roaring.Bitmap, conflict, ok bool) {
	union, conflict, ok := rules.PreFilterNodeNames(p)
	if !ok {
		return nil, false, false
	}
	names = roaring.New()
	for v := range union {
		if id, ok := c.NodeByName[v]; ok {
			names.Add(id)
		}
	}
	return names, conflict, true
}

// requiredNodes returns the nodes matching p's nodeSelector and required node
// affinity, each term's nodes from m.
func requiredNodes(c *index.Cluster, p *index.Pod, m *memo, enc *keyEncoder) *roaring.Bitmap {
	return c.RequiredNodes(p, func(t *index.NodeSelectorTerm) *roaring.Bitmap { return m.term(c, t, enc) })
}
