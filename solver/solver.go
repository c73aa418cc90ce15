package solver

import (
	"bytes"
	"cmp"
	"maps"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// Config tunes a batch.
type Config struct {
	Strategy Strategy
	// Seed drives tie-breaking between equally scored nodes.
	Seed uint64
	// Progress, when set, is called now and then with the number of queued
	// pods processed so far and the total.
	Progress func(done, total int)
	// Commits, when set, is handed the batch's commits as they are made,
	// in order, in slices of about commitBatch (the last one shorter)
	// before Solve returns: a writer may write them while the solve goes
	// on. The commits handed over are final, and their slices stay valid.
	Commits func([]Commit)
	// NoPreemption turns preemption off: a pod that fits nowhere stays
	// pending (as with kube-scheduler's DefaultPreemption disabled).
	NoPreemption bool
	// DefaultSpread are the cluster default topology spread constraints,
	// applied to pods with none of their own that a Service, ReplicaSet,
	// StatefulSet or ReplicationController selects (nil: none).
	// SystemDefaultSpread says they are kube-scheduler's built-in ones
	// (then soft constraints do not ignore nodes lacking a key).
	DefaultSpread       []index.SpreadConstraint
	SystemDefaultSpread bool
	// HardPodAffinityWeight is InterPodAffinityArgs.hardPodAffinityWeight:
	// what an existing pod's required affinity term adds to the nodes of
	// its domain for an incoming pod the term matches (0 to 100; 0 turns
	// that off); nil: kube-scheduler's default, 1.
	HardPodAffinityWeight *int32
	// IgnorePreferredTermsOfExistingPods is InterPodAffinityArgs' flag:
	// InterPodAffinity does not score a pod without preferred
	// (anti-)affinity terms of its own (existing pods' terms then count
	// for nothing).
	IgnorePreferredTermsOfExistingPods bool
	// oneHeap turns off domain-split heaps and templates (for the tests that
	// compare them with the one-heap scan).
	oneHeap bool
	// noReclaim leaves freed room to the queue's order (for the test that
	// shows what reclaim prevents).
	noReclaim bool
	// noLean fills every scoring class's buckets with all its fitting
	// nodes (the reference for lean buckets, lean.go).
	noLean bool
	// sw turns other accelerations off and sets hooks, for tests.
	sw switches
	// RequeueEvicted puts each preemption victim back in the queue at its
	// own priority (see requeue.go): it may be placed again in the same
	// batch, by placement or preemption. Off, a victim stays evicted.
	RequeueEvicted bool
	// CrossNodePreemption lets a pod blocked only by a required
	// anti-affinity or DoNotSchedule spread constraint evict lower-priority
	// pods on other nodes of the node's topology domain (see crossnode.go);
	// kube-scheduler never does.
	CrossNodePreemption bool
}

// BuiltinDefaultSpread are kube-scheduler's built-in default constraints.
func BuiltinDefaultSpread() []index.SpreadConstraint {
	return rules.BuiltinDefaultConstraints()
}

// Action is what a commit does.
type Action uint8

// Actions.
const (
	Bind Action = iota
	Evict
)

// Commit is one entry of the result, in commit order.
type Commit struct {
	Action Action
	Pod    index.PodID
	Node   index.NodeID
	// Score is the chosen node's total score (Bind only).
	Score int64
	// Preemptor is, for an Evict, the pending pod whose placement needed
	// the eviction; its Bind follows its evictions. Unused for a Bind.
	// Node is, for an Evict, the node the victim leaves: the preemptor's,
	// except for a cross-node preemption.
	Preemptor index.PodID
}

// PendingKind says why a pod stays pending.
type PendingKind uint8

// Pending kinds.
const (
	// Unschedulable: no node passes the filters.
	Unschedulable PendingKind = iota
	// Unsupported: the pod uses a hard constraint the engine cannot honour.
	Unsupported
	// Gated: the pod has scheduling gates.
	Gated
	// reclaimedPending marks, during a batch, an Unschedulable entry whose
	// pod was placed later (see reclaim.go); none is left in a Result.
	reclaimedPending PendingKind = 255
)

func (k PendingKind) String() string {
	switch k {
	case Unsupported:
		return "unsupported"
	case Gated:
		return "gated"
	}
	return "unschedulable"
}

// Pending is a pod left pending and the reason, in kube-scheduler's words.
type Pending struct {
	Pod    index.PodID
	Kind   PendingKind
	Reason string
	// Nodes is, for an Unschedulable pod, the filter part of Reason as
	// counts: each filter message and how many nodes failed with it (the
	// "0/N nodes are available: ..." histogram). Nil for the other kinds
	// and for a pod every node rejects at PreFilter. Shared by the pods of
	// one class: read only.
	Nodes map[string]int
}

// Result is the outcome of a batch.
type Result struct {
	Commits []Commit
	// Pending lists the pods left pending, in queue order.
	Pending []Pending
	// Classes is the number of equivalence classes formed; Groups the
	// number of distinct static parts (feasible sets) among them.
	Classes, Groups int
	// Rebuilds counts class heaps rebuilt because their truncated part may
	// have held the best node; Builds counts every heap build (each one
	// scans the class's feasible nodes).
	Rebuilds, Builds int
	// splitClasses and twinBuilds count the classes with domain-split heaps
	// and the builds taken from a template (for tests); templates the
	// templates made; bucketed the pods placed on buckets.
	splitClasses, twinBuilds, templates, bucketed int
	// countArrays counts the counter arrays made (see countPool);
	// leanFills and bareRefills the lean bucket fills and the bare
	// buckets rescanned, parallelSyncs the lean syncs that tested their
	// nodes on every processor (lean.go).
	countArrays, leanFills, bareRefills, parallelSyncs int
	// uniformPlaced counts the pods placeUniform placed, runBuilds the
	// builds over a run order.
	uniformPlaced, runBuilds int
	// Preemptions counts pods bound after evicting lower-priority pods;
	// Retried counts pods placed on their second turn (see retry);
	// Reclaimed the pods placed on room that evictions freed after they
	// had failed (see reclaim.go).
	Preemptions, Retried, Reclaimed int
	// CrossNode counts the preemptions that evicted pods on other nodes
	// (Config.CrossNodePreemption).
	CrossNode int
	// Requeued counts the victims put back in the queue
	// (Config.RequeueEvicted); Replaced those of them bound again.
	Requeued, Replaced int
}

// Solver runs one batch over a cluster. It mutates the cluster.
type Solver struct {
	c       *index.Cluster
	cfg     Config
	classes []*class
	groups  int
	// rebuilds counts heap rebuilds forced by truncation; builds counts
	// every heap build; levelStops the level-ordered builds that stopped
	// before the last cell (for tests).
	rebuilds, builds, levelStops int
	// splitClasses, twinBuilds, templates and bucketed: see Result.
	splitClasses, twinBuilds, templates, bucketed int
	buf                                           []uint32
	scan                                          []scanner
	// procs is GOMAXPROCS as the solve started: asking the runtime
	// takes the scheduler's lock, which the helpers' yields contend for,
	// and the lean syncs ask before every pod.
	procs int
	// nodeArrays holds what the solver derives from each node's columns.
	nodeArrays
	// session: the solve is one of a Session's (see session.go).
	session bool
	// fitA and fitS turn a requested fraction into NodeResourcesFit's
	// per-resource share: a + s*fraction (see upper).
	fitA, fitS float32
	// initWG counts the group initialisers still running; lead holds a
	// token per group set up and not yet waited for, unbounded lifts that
	// limit (see initGroups). ahead are the ImageLocality columns they
	// make when no group may start (imagesAhead), in queue order.
	initWG    sync.WaitGroup
	lead      chan struct{}
	unbounded chan struct{}
	ahead     []*imageCol
	// waiting is set while placement waits for a group (await).
	waiting atomic.Bool
	// zeros stands in for a missing raw score column.
	zeros []int32
	// pre and pdb hold the preemption state (see preempt.go, pdb.go).
	pre preemption
	pdb *pdbState
	// pdbIndex delivers the budgets' index begun by startPDBs.
	pdbIndex chan *pdbState
	// minPrio is the lowest priority of any pod (for preemption bounds).
	minPrio int32
	// rel holds the pod-relative counters (nil when no pod needs them);
	// nodeTopo is the per-node topology; relCand a scoring scratch list;
	// setupDone is closed once classify's classes are set up (setupAsync).
	rel       *relState
	setupDone chan struct{}
	nodeTopo  *index.Topology
	relCand   []scored
	// tmplEntries counts the entries of all templates; popped is
	// take's scratch (template.go).
	tmplEntries int
	popped      []entry
	// placeBuckets' scratch (buckets.go).
	liveBuckets []int32
	// lean buckets' scratch (lean.go).
	leanFills, bareRefills int
	parallelSyncs          int // lean syncs that tested their nodes on every processor
	uniformPlaced          int // pods placeUniform placed (uniform.go)
	runBuilds              int // builds over a run order (build)
	emptyWords             []uint64
	leanTouched            []index.NodeID
	syncNodes              []index.NodeID
	syncFlags              []uint8
	npBuf                  []uint64
	segBuf                 [][]shapeSeg
	// ImageLocality columns by image list, and their scratch (images.go).
	imageCols            map[string]*imageCol
	freeCols             []imageScores // columns no class reads (see dropImages)
	imgScratch           imageScratch
	noImages             []uint8 // a column of zeros
	keyBits              map[string][]uint64
	windows              windowPool // the window groups' bitsets (see slicePool)
	raws                 rawPool    // the groups' preferred node affinity columns (see slicePool)
	domMasks             map[*index.Topology][][]uint64
	hostnames            []uint64 // see hasHostname
	bucketAdd, bucketRaw []int64
	fillBuf              []entry
	// classIdx and groupOf find classes and groups by key, for evicted pods
	// put back in the queue (classOfEvicted); renc and rscratch encode them.
	classIdx keyIndex
	groupOf  map[string]*group
	renc     keyEncoder
	rscratch []int32
	// evictions counts the evictions so far (see retry).
	evictions int
	// reclaims offers freed room to higher priorities first (reclaim.go).
	reclaims reclaimState
	// cross is the cross-node preemption scratch (see crossnode.go).
	cross crossState
}

// nodeArrays are the per-node records a solver derives from the cluster's
// columns (refreshNode).
type nodeArrays struct {
	// hot holds each node's scoring record (see nodeHot).
	hot []nodeHot
	// bounds holds each node's pruning record (see nodeBound) and bound
	// its class-independent bound alone, for the first pruning stage.
	bounds []nodeBound
	bound  []int16
	// fitRecs holds each node's shape record (see shapes.go; nil until
	// the first lean scan), orders the nodes in runs per topology
	// (runs.go; orderList the same orders, for noteRec to walk, and
	// orderMakes counts their makes), shapes the shape ids and shares the
	// shares of the class being scanned; minCPU and minMem are the least
	// cpu and memory capacities the nodes have had (see shapeShares);
	// portMasks holds each node's host ports in use as a mask (portMask);
	// ties each node's tie-break hash (nodeHot.tie), for the scans that
	// read it alone.
	fitRecs    []fitRec
	orders     map[*index.Topology]*nodeOrder
	orderMakes int
	orderList  []*nodeOrder
	// poolOf numbers each node's pool (nodePools), the part of the run
	// orders' keys between shape and free room; poolIDs numbers the taint
	// and cordon sets seen.
	poolOf         []uint8
	poolIDs        map[string]uint8
	shapes         shapeTable
	shares         []shapeShare
	minCPU, minMem int64
	portMasks      []uint64
	allocFloors    map[index.ResVal][]uint64 // see allocFloor
	leanFree       []*leanState              // see takeLean
	heapFree       []nodeHeap                // see dropBuckets
	listFree       [][]bucket                // see dropBuckets
	ties           []uint32
	// free holds each node's free cpu and memory (see nodeFree); room
	// the nodes by how much of each is free (see roomLevels).
	free []nodeFree
	room roomLevels
	// lv files the nodes by bound, for a session's builds (nil outside
	// sessions; see levels.go).
	lv *boundLevels
}

// newSolver prepares a solver over c.
func newSolver(c *index.Cluster, cfg Config) *Solver {
	s := baseSolver(c, cfg)
	n := c.NumNodes()
	s.nodeArrays = nodeArrays{hot: make([]nodeHot, n), bounds: make([]nodeBound, n), bound: make([]int16, n), free: make([]nodeFree, n),
		portMasks: make([]uint64, n), minCPU: math.MaxInt64, minMem: math.MaxInt64, ties: make([]uint32, n)}
	s.room.init(n)
	s.room.deferred = true
	for i := range s.hot {
		s.hot[i].tie = rules.NodeTie(cfg.Seed, uint32(i))
		s.ties[i] = s.hot[i].tie
		s.refreshNode(index.NodeID(i))
	}
	s.room.fill()
	return s
}

// baseSolver is a solver over c without its node records.
func baseSolver(c *index.Cluster, cfg Config) *Solver {
	s := &Solver{c: c, cfg: cfg, buf: make([]uint32, 256)}
	s.minPrio = c.MinPriority
	s.renc = s.imageEncoder()
	s.fitA, s.fitS = 1, -1
	if cfg.Strategy == MostAllocated {
		s.fitA, s.fitS = 0, 1
	}
	return s
}

// Solve places every pending pod of c and returns the commits and the pods
// left pending. c is updated to the final state.
func Solve(c *index.Cluster, cfg Config) *Result {
	return newSolver(c, cfg).solve()
}

// solve runs the batch.
func (s *Solver) solve() *Result {
	c, cfg := s.c, s.cfg
	s.procs = runtime.GOMAXPROCS(0)
	if !cfg.NoPreemption && c.Low != nil {
		s.startPDBs() // some pending pod may preempt
	}
	queue := Queue(c)
	s.rel = newRelState(c, &cfg)
	if s.rel != nil && len(s.classes) > 0 {
		s.forget() // a session's classes have no pod-relative part
	}
	classOf := s.classify(queue)
	if s.rel != nil {
		s.countExisting()
		if !cfg.RequeueEvicted {
			s.holdReads()
		}
	}
	res := &Result{Commits: make([]Commit, 0, len(queue))}
	var failedAt []int32 // class of each Unschedulable entry of res.Pending, in order
	// The queue, merged with the evicted pods put back in it (requeue).
	var rq requeueHeap
	qi := 0
	handed := 0 // commits handed to cfg.Commits
	keptLow := int32(math.MaxInt32)
	if cfg.NoPreemption {
		keptLow = math.MinInt32
		if !s.session {
			c.KeepLowUpTo(keptLow)
		}
	}
queue:
	for done := 0; ; done++ {
		if cfg.Progress != nil && done&0x3fff == 0 {
			cfg.Progress(done, len(queue)+res.Requeued)
		}
		var pid index.PodID
		var cid int32
		switch {
		case len(rq) > 0 && (qi == len(queue) || rq.before(&c.Pods[queue[qi]])):
			pid = rq.pop().pod
			cid = s.classOfEvicted(pid)
		case qi < len(queue):
			pid, cid = queue[qi], classOf[qi]
			qi++
		default:
			break queue
		}
		if cfg.Commits != nil && len(res.Commits)-handed >= commitBatch {
			cfg.Commits(res.Commits[handed:len(res.Commits):len(res.Commits)])
			handed = len(res.Commits)
		}
		p := &c.Pods[pid]
		if p.Priority < keptLow && !s.session {
			// No preemptor above p's priority is left (the queue runs in
			// priority order, evicted pods included): the sums above it
			// need no upkeep (a session's next batch may need them).
			keptLow = p.Priority
			c.KeepLowUpTo(keptLow)
		}
		switch {
		case p.Gated:
			// The SchedulingGates plugin's words.
			res.Pending = append(res.Pending, Pending{Pod: pid, Kind: Gated, Reason: rules.GatedMessage(p.SchedulingGates)})
			continue
		case p.Unsupported != "":
			res.Pending = append(res.Pending, Pending{Pod: pid, Kind: Unsupported, Reason: rules.UnsupportedMessage(p.Unsupported)})
			continue
		}
		cl := s.classes[cid]
		if len(s.reclaims.evicted) > 0 || len(s.reclaims.relational) > 0 {
			s.reclaim(res, p.Priority)
		}
		n, score, ok := s.place(cl, pid)
		if !ok && !cfg.NoPreemption && p.PreemptionPolicy != index.PreemptNever && !cl.g.conflict {
			n, score, ok = s.preemptAndBind(cl, pid, res, &rq)
		}
		cl.pods--
		cl.g.pods--
		if ok {
			res.Commits = append(res.Commits, Commit{Action: Bind, Pod: pid, Node: n, Score: score})
		} else {
			s.waitFor(cl, len(res.Pending))
			cl.failures++
			cl.failedAfter = s.evictions
			cl.g.failures++
			failedAt = append(failedAt, cid)
			res.Pending = append(res.Pending, Pending{Pod: pid, Kind: Unschedulable})
		}
		if cfg.RequeueEvicted || s.session {
			continue // an evicted pod may join any class later, a session's next batch too: keep them all
		}
		if cl.pods == 0 && cl.failures == 0 {
			if cl.rel != nil {
				s.releaseReads(cl.rel)
			}
			s.dropBuckets(cl)
			cl.heap, cl.dom, cl.buckets, cl.rawTT, cl.rawNA = nil, nil, nil, nil, nil // release: the class has no pod left
			s.dropImages(cl)
			if cl.pre != nil {
				s.releasePre(cl.pre) // never failed: no reason reads its failure bits
				cl.pre = nil
			}
		}
		if cl.g.pods == 0 && cl.g.failures == 0 {
			// Done: no pod of the group is left to place or to explain.
			cl.g.release()
		}
	}
	failedAt = dropReclaimed(res, failedAt)
	if res.Preemptions > 0 {
		s.retry(res, &failedAt)
	}
	if res.Requeued > 0 {
		evicted := map[index.PodID]bool{}
		for _, cm := range res.Commits {
			if cm.Action == Evict {
				evicted[cm.Pod] = true
			} else if evicted[cm.Pod] {
				res.Replaced++
			}
		}
	}
	if cfg.Commits != nil && len(res.Commits) > handed {
		cfg.Commits(res.Commits[handed:len(res.Commits):len(res.Commits)])
	}
	s.awaitGroups() // groups of classes that never reached place, if any
	if cfg.Progress != nil {
		cfg.Progress(len(queue)+res.Requeued, len(queue)+res.Requeued)
	}
	res.Classes, res.Groups, res.Rebuilds, res.Builds = len(s.classes), s.groups, s.rebuilds, s.builds
	res.splitClasses, res.twinBuilds, res.templates, res.bucketed = s.splitClasses, s.twinBuilds, s.templates, s.bucketed
	if s.rel != nil {
		res.countArrays = s.rel.pool.made
	}
	res.leanFills, res.bareRefills, res.parallelSyncs = s.leanFills, s.bareRefills, s.parallelSyncs
	res.uniformPlaced, res.runBuilds = s.uniformPlaced, s.runBuilds

	// Reasons reflect the final state: pods left pending fit nowhere now.
	// Reasons only read the cluster: compute them on every processor.
	failed := slices.DeleteFunc(s.reclaims.failed, func(cl *class) bool { return cl.failures == 0 })
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(failed))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(failed); i += workers {
				failed[i].reason, failed[i].nodes = s.reason(failed[i])
			}
		}()
	}
	wg.Wait()
	k := 0
	for i := range res.Pending {
		if pd := &res.Pending[i]; pd.Kind == Unschedulable {
			cl := s.classes[failedAt[k]]
			pd.Reason, pd.Nodes = cl.reason, cl.nodes
			k++
		}
	}
	return res
}

// retry gives the pods left unschedulable one more placement turn, in
// queue order, once the batch is over: evictions may have freed more than
// their preemptors took (kube-scheduler requeues unschedulable pods when
// pods are deleted). A retry only places; it does not preempt again.
func (s *Solver) retry(res *Result, failedAt *[]int32) {
	k, keep, keepAt := 0, res.Pending[:0], (*failedAt)[:0]
	for _, pd := range res.Pending {
		if pd.Kind != Unschedulable {
			keep = append(keep, pd)
			continue
		}
		id := (*failedAt)[k]
		k++
		cl := s.classes[id]
		if cl.retryFailed || cl.rel == nil && cl.failedAfter == s.evictions {
			// Only evictions make room: a class without pod-relative
			// constraints that failed after the last one, or failed
			// again in this turn (which only binds), fails again.
			keep = append(keep, pd)
			keepAt = append(keepAt, id)
			continue
		}
		if n, score, ok := s.place(cl, pd.Pod); ok {
			res.Commits = append(res.Commits, Commit{Action: Bind, Pod: pd.Pod, Node: n, Score: score})
			cl.failures--
			cl.g.failures--
			res.Retried++
			continue
		}
		keep = append(keep, pd)
		keepAt = append(keepAt, id)
		cl.retryFailed = cl.rel == nil
	}
	res.Pending, *failedAt = keep, keepAt
}

// Queue returns the pending pods in scheduling order: priority descending,
// then creation time ascending, then input order.
func Queue(c *index.Cluster) []index.PodID {
	type key struct {
		prio     int32
		pos      int32
		creation int64
	}
	keys := make([]key, len(c.Pending))
	for i, pid := range c.Pending {
		p := &c.Pods[pid]
		keys[i] = key{prio: p.Priority, pos: int32(i), creation: p.CreationUnix}
	}
	order := func(a, b key) int {
		if c := rules.QueueCompare(a.prio, a.creation, b.prio, b.creation); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos) // input order: the sort is stable
	}
	q := make([]index.PodID, len(keys))
	if len(keys) < 1<<16 || runtime.GOMAXPROCS(0) < 2 {
		slices.SortFunc(keys, order)
		for i, k := range keys {
			q[i] = c.Pending[k.pos]
		}
		return q
	}
	// A long queue (a million pods at 100,000 nodes: 150 ms on one): the
	// halves sorted on two processors, then merged (the order is total:
	// no two keys are equal).
	lo, hi := keys[:len(keys)/2], keys[len(keys)/2:]
	var wg sync.WaitGroup
	wg.Go(func() { slices.SortFunc(lo, order) })
	slices.SortFunc(hi, order)
	wg.Wait()
	for i := range q {
		if len(hi) == 0 || len(lo) > 0 && order(lo[0], hi[0]) < 0 {
			q[i], lo = c.Pending[lo[0].pos], lo[1:]
		} else {
			q[i], hi = c.Pending[hi[0].pos], hi[1:]
		}
	}
	return q
}

// classify assigns every queued pod to an equivalence class (-1 for pods that
// are never placed); classes with the same static part share a group.
func (s *Solver) classify(queue []index.PodID) []int32 {
	parts, encs := s.encodeAll(queue)
	classOf := make([]int32, len(queue))
	classes := &s.classIdx
	if s.groupOf == nil {
		s.groupOf = map[string]*group{}
	}
	groups := s.groupOf
	var fresh []*group // groups to initialise, with their first pods in reps
	var reps []index.PodID
	first := len(s.classes) // the classes made here
	var setup chan []*class
	if s.rel != nil {
		// setupClass asks again for the default constraints of each
		// class's first pod, and for their selectors: the encoders found
		// and parsed them all.
		st := &s.rel.setup
		for _, ke := range encs {
			st.spreads = mergeInto(st.spreads, ke.enc.spreads)
			st.sels = mergeInto(st.sels, ke.enc.sels)
		}
		setup = s.setupAsync(s.classes[:first:first])
	}
	for _, part := range parts {
		made := len(s.classes)
		// The range's distinct keys, in queue order: ranges follow the
		// queue, so classes are created in order of first appearance.
		ids := make([]int32, len(part.keys))
		for j := range part.keys {
			pk := &part.keys[j]
			key := part.key(int32(j))
			ids[j] = classes.find(pk.hash, key, func(id int32) []byte { return s.classes[id].key }, func() int32 {
				return s.newClass(pk.pod, key, pk.static, groups, &fresh, &reps)
			})
		}
		for j, k := range part.keyOf {
			i := part.start + j
			if k < 0 {
				classOf[i] = -1
				continue
			}
			id := ids[k]
			classOf[i] = id
			s.classes[id].pods++
			s.classes[id].g.pods++
		}
		if setup != nil && len(s.classes) > made {
			setup <- s.classes[made:len(s.classes):len(s.classes)]
		}
	}
	if setup != nil {
		close(setup)
	}
	s.groups = len(groups)
	s.imagesAhead(first)
	s.initGroups(fresh, reps)
	return classOf
}

// initGroups initialises the groups in the background, in the order the
// queue first needs them, on every processor: place waits for its group
// (await), so group set-up overlaps the placement loop's serial stretches.
// Group set-up only reads the parts of the index placement never changes
// (labels, taints, cordons, the nodes' images: the initialisers also make
// the image columns listed ahead, see imagesAhead).
//
// The initialisers run at most groupLead groups ahead of the groups
// placement has waited for: a group holds bitsets of the cluster's size,
// and an export whose DaemonSet pods are pending has a group per node.
// Held there, they make columns.
func (s *Solver) initGroups(fresh []*group, reps []index.PodID) {
	for _, g := range fresh {
		g.ready = make(chan struct{})
	}
	var next, nextCol atomic.Int64
	ahead := s.ahead
	m := newMemo()
	m.windows, m.raws = &s.windows, &s.raws
	workers := min(runtime.GOMAXPROCS(0), len(fresh))
	lead := groupLead
	if s.cfg.sw.groupLead > 0 {
		lead = s.cfg.sw.groupLead
	}
	s.lead = make(chan struct{}, lead)
	s.unbounded = make(chan struct{})
	s.initWG.Add(workers)
	for range workers {
		go func() {
			defer s.initWG.Done()
			var enc keyEncoder
			var sc imageScratch
			// column makes the next column ahead, if any is left.
			column := func() bool {
				k := int(nextCol.Add(1)) - 1
				if k >= len(ahead) {
					return false
				}
				if ref := ahead[k]; ref.state.CompareAndSwap(0, 1) {
					ref.imageScores, ref.max = imageColumn(s.c, &s.c.Pods[ref.rep], &sc, nil)
					ref.made = true
					close(ref.ahead)
				}
				return true
			}
			for {
				// A token first, then the next group: the groups holding
				// tokens are then the first ones placement has not waited
				// for, so it never waits on a group stuck behind them.
				// Without a token, a column meanwhile: columns never
				// hold a group up (the group every Deployment without
				// affinity shares has thousands, a quarter second at
				// 100,000 nodes), and placement takes back one it needs
				// first (settle).
				select {
				case s.lead <- struct{}{}:
				case <-s.unbounded:
				default:
					if column() {
						continue
					}
					select {
					case s.lead <- struct{}{}:
					case <-s.unbounded:
					}
				}
				i := int(next.Add(1)) - 1
				if i >= len(fresh) {
					for column() {
					}
					return
				}
				fresh[i].init(s.c, &s.c.Pods[reps[i]], m, &enc)
				close(fresh[i].ready)
				if s.waiting.Load() {
					// Placement waits. The token it freed woke this
					// goroutine on placement's processor, where it
					// runs once placement waits: the other
					// processor's helper yields to the global queue
					// only, so it never takes it. Hand the processor
					// back and go on from the global queue, where
					// the helper's yields let it run. Otherwise the
					// initialisers ran a lead's worth of groups there
					// each time (DaemonSet pods' one-node groups: at
					// 100,000 nodes, 0.1-0.4 s of waits in all).
					runtime.Gosched()
				}
			}
		}()
	}
}

// groupLead is how many groups the initialisers may run ahead.
const groupLead = 512

// await waits until g is initialised, with waiting set while it does (see
// initGroups); the first wait on a group lets the initialisers run one
// group further.
func (s *Solver) await(g *group) {
	select {
	case <-g.ready:
	default:
		s.waiting.Store(true)
		<-g.ready
		s.waiting.Store(false)
	}
	if !g.awaited {
		g.awaited = true
		select {
		case <-s.lead:
		default: // set up without a token (after awaitGroups)
		}
	}
}

// awaitGroups waits until every group is initialised, whether placement
// waited for it or not.
func (s *Solver) awaitGroups() {
	if s.unbounded != nil {
		select {
		case <-s.unbounded:
		default:
			close(s.unbounded)
		}
	}
	s.initWG.Wait()
}

// keyRange holds the distinct placement keys of one range of the queue,
// found by one processor: keyOf maps each pod of the range to its key
// (-1 for pods never placed).
type keyRange struct {
	start int
	buf   []byte
	keys  []rangeKey
	keyOf []int32
}

type rangeKey struct {
	begin, end int // the key is buf[begin:end]
	static     int // length of its static part
	hash       uint64
	pod        index.PodID // the first pod with the key
}

// encodeAll cuts the queue into ranges of keyChunk pods and finds the
// distinct keys of each, every processor taking the next range in turn.
// Distinct keys crowd some stretches of the queue (the many small
// workloads of one priority), and encoding a new key costs far more than
// finding a known one: with the queue cut in one range per processor, the
// realistic 100,000-node export's first half held 117,637 distinct keys
// and its second 15,161, and one processor worked alone most of the time.
func (s *Solver) encodeAll(queue []index.PodID) (parts []keyRange, encs []*keyEncoding) {
	parts = make([]keyRange, (len(queue)+keyChunk-1)/keyChunk)
	workers := max(1, min(runtime.GOMAXPROCS(0), len(parts)))
	encs = make([]*keyEncoding, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ke := s.newKeyEncoding()
			for {
				r := int(next.Add(1)) - 1
				if r >= len(parts) {
					break
				}
				lo, hi := r*keyChunk, min((r+1)*keyChunk, len(queue))
				parts[r] = ke.distinctKeys(s, queue[lo:hi], lo)
			}
			encs[w] = ke
		}()
	}
	wg.Wait()
	return parts, encs
}

// mergeInto adds src's entries to dst, or returns src when dst is nil.
func mergeInto[K comparable, V any](dst, src map[K]V) map[K]V {
	if dst == nil {
		return src
	}
	maps.Copy(dst, src)
	return dst
}

// commitBatch is about how many commits Config.Commits takes at a time.
const commitBatch = 8192

// keyChunk is the most pods of a range of encodeAll.
const keyChunk = 8192

// keyEncoding is a processor's state across the ranges it encodes: its
// memos of encodings.
type keyEncoding struct {
	enc     keyEncoder
	scratch []int32
}

func (s *Solver) newKeyEncoding() *keyEncoding {
	ke := &keyEncoding{enc: s.imageEncoder()}
	if !s.cfg.sw.noRelMemo {
		ke.enc.rels = map[relMemoKey]relMemo{}
	}
	return ke
}

// distinctKeys returns the distinct keys of pods, the queue's range from
// start, with a fresh encoding.
func (s *Solver) distinctKeys(pods []index.PodID, start int) keyRange {
	return s.newKeyEncoding().distinctKeys(s, pods, start)
}

func (ke *keyEncoding) distinctKeys(s *Solver, pods []index.PodID, start int) keyRange {
	enc := &ke.enc
	kr := keyRange{start: start, keyOf: make([]int32, len(pods))}
	var seen keyIndex
	last := int32(-1) // the key of the pod before, when it had one
	for j, pid := range pods {
		p := &s.c.Pods[pid]
		if p.Gated || p.Unsupported != "" {
			kr.keyOf[j] = -1
			continue
		}
		key, static := enc.encode(p)
		if s.rel != nil {
			ke.scratch = s.rel.encodeRel(enc, p, ke.scratch)
			key = enc.buf
		}
		// The pods of a workload mostly follow each other in the queue:
		// the key of the one before needs no hash and no lookup.
		if last >= 0 && bytes.Equal(key, kr.key(last)) {
			kr.keyOf[j] = last
			continue
		}
		h := xxhash.Sum64(key)
		last = seen.find(h, key, kr.key, func() int32 {
			return kr.add(key, static, h, pid)
		})
		kr.keyOf[j] = last
	}
	return kr
}

// keyIndex finds ids by key through the key's hash; keys are compared on a
// hit, and the rare keys whose hash is taken by another key go to a map by
// the whole key.
type keyIndex struct {
	byHash   map[uint64]int32
	overflow map[string]int32
}

// find returns the id of key (hash h), calling add to create it when new;
// keyOf returns the key of an existing id.
func (x *keyIndex) find(h uint64, key []byte, keyOf func(int32) []byte, add func() int32) int32 {
	if x.byHash == nil {
		x.byHash = map[uint64]int32{}
	}
	id, ok := x.byHash[h]
	switch {
	case !ok:
		id = add()
		x.byHash[h] = id
	case !bytes.Equal(keyOf(id), key):
		if x.overflow == nil {
			x.overflow = map[string]int32{}
		}
		if id, ok = x.overflow[string(key)]; !ok {
			id = add()
			x.overflow[string(key)] = id
		}
	}
	return id
}

// key returns key id of the range.
func (kr *keyRange) key(id int32) []byte { return kr.buf[kr.keys[id].begin:kr.keys[id].end] }

func (kr *keyRange) add(key []byte, static int, h uint64, pid index.PodID) int32 {
	begin := len(kr.buf)
	kr.buf = append(kr.buf, key...)
	kr.keys = append(kr.keys, rangeKey{begin: begin, end: len(kr.buf), static: static, hash: h, pod: pid})
	return int32(len(kr.keys) - 1)
}

func (s *Solver) newClass(pid index.PodID, key []byte, static int, groups map[string]*group, fresh *[]*group, reps *[]index.PodID) int32 {
	p := &s.c.Pods[pid]
	g, ok := groups[string(key[:static])]
	if !ok {
		g = &group{key: string(key[:static])}
		groups[string(key[:static])] = g
		*fresh = append(*fresh, g)
		*reps = append(*reps, pid)
	}
	cl := &class{g: g, rep: pid, key: slices.Clone(key), demand: s.c.DemandOf(p)}
	cl.imgRef = s.imageRef(p) // the column itself comes with the class's static scores (classImages)
	cl.balCPU, _ = p.Requests.Get(index.NameCPU)
	cl.balMem, _ = p.Requests.Get(index.NameMemory)
	cl.prepare()
	s.classes = append(s.classes, cl)
	return int32(len(s.classes) - 1)
}

// place binds pid to the best node of its class, if any fits.
func (s *Solver) place(cl *class, pid index.PodID) (index.NodeID, int64, bool) {
	s.await(cl.g)
	if cl.g.conflict {
		return 0, 0, false
	}
	rc := cl.rel
	if rc != nil && rc.scoresNow(s.rel) {
		n, score, ok := s.placeScored(cl, pid)
		if ok {
			s.relPlaced(cl, pid, n, 1)
		}
		return n, score, ok
	}
	if !cl.built {
		s.splitDomains(cl)
		s.build(cl)
	} else {
		s.sync(cl)
		if rc != nil {
			s.wake(cl)
		}
	}
	if cl.dom != nil {
		top, ok := s.placeDom(cl)
		if !ok {
			return 0, 0, false
		}
		s.bindTop(cl, pid, top)
		return top.node, top.score, true
	}
	gen := s.c.Gen
	for {
		for len(cl.heap) > 0 && cl.heap[0].gen != gen[cl.heap[0].node] {
			cl.heap.pop() // stale: the node changed and sync re-scored it
		}
		if cl.truncated && (len(cl.heap) == 0 || better(&cl.cut, &cl.heap[0])) {
			// A node left out of the truncated heap may be the best now.
			s.rebuilds++
			cl.scanOnly = true
			s.build(cl)
			continue
		}
		if rc != nil && len(cl.heap) > 0 {
			// The pod-relative filters, on the best node only: a node
			// that fails waits for its counter to relax.
			if f, j := s.check(rc, cl.heap[0].node); f != relOK {
				rc.park(s, j, cl.heap[0])
				cl.heap.pop()
				continue
			}
		}
		break
	}
	if len(cl.heap) == 0 {
		return 0, 0, false
	}
	top := cl.heap[0]
	cl.heap.pop()
	s.bindTop(cl, pid, top)
	return top.node, top.score, true
}

// bindTop binds pid to the node of its class's chosen entry.
func (s *Solver) bindTop(cl *class, pid index.PodID, top entry) {
	s.bindPod(pid, top.node, &cl.demand)
	if s.rel != nil {
		s.relPlaced(cl, pid, top.node, 1)
	}
}

// sync re-scores the class's nodes changed since its last turn.
func (s *Solver) sync(cl *class) {
	c := s.c
	changes := c.Changes[cl.cursor:]
	if len(changes) == 0 {
		return
	}
	// Replaying more changes than the class has nodes costs more than
	// starting over; so does a heap grown mostly stale.
	held := len(cl.heap)
	if cl.dom != nil {
		held = cl.dom.entries
	}
	if feas := cl.g.feasCard; len(changes) > feas || held > 2*feas+1024 {
		s.build(cl)
		return
	}
	g := cl.g
	dense := g.dense
	for _, ch := range changes {
		n := ch.Node
		if ch.Gen != c.Gen[n] || dense[n>>6]&(1<<(n&63)) == 0 {
			continue
		}
		fits := s.fits(n, cl)
		if (g.rawTT != nil || g.rawNA != nil) && s.normalisationChanged(cl, n, fits) {
			s.build(cl)
			return
		}
		if !fits {
			continue
		}
		e := entry{score: s.score(cl, n), tie: s.hot[n].tie, node: n, gen: ch.Gen}
		if cl.dom == nil {
			cl.heap.push(e)
		} else if cl.dom.topo.Of[n] >= 0 {
			cl.dom.push(e)
		}
	}
	cl.cursor = len(c.Changes)
}

// normalisationChanged reports whether node n's change moved the class's
// TaintToleration or NodeAffinity maximum over the fitting nodes (then every
// score of the class must be redone): a higher value now fits, or n held the
// maximum and no node of that level fits any more.
func (s *Solver) normalisationChanged(cl *class, n index.NodeID, fits bool) bool {
	g := cl.g
	moved := func(raw []int32, maxRaw int64) bool {
		if raw == nil {
			return false
		}
		r := int64(raw[n])
		if fits {
			return r > maxRaw
		}
		return r == maxRaw && maxRaw > 0 && !s.fitsAt(cl, raw, int32(maxRaw))
	}
	return moved(g.rawTT, cl.ttMax) || moved(g.rawNA, cl.naMax)
}

// Reason strings of the filters and of the preemption dry run, as
// kube-scheduler v1.36 words them: rules.Reason's String (the
// pod-relative filters' codes are rules.Reason themselves: relSpread...).
var (
	msgPreFilterAbsent = rules.NodeAffinityPreFilter.String()
	msgUnschedulable   = rules.NodeUnschedulable.String()
	msgTaint           = rules.UntoleratedTaint.String()
	msgAffinity        = rules.NodeAffinityMismatch.String()
	msgPorts           = rules.NodePortsConflict.String()
	msgTooManyPods     = rules.TooManyPods.String()
	msgNoNodes         = rules.NoNodesAvailable.String()
	msgNotHelpful      = rules.PreemptionNotHelpful.String()
	msgNoVictims       = rules.NoPreemptionVictims.String()
)

// reason builds the FitError message for a class that fits nowhere now,
// and its filter part as counts (nil when no node was filtered).
func (s *Solver) reason(cl *class) (string, map[string]int) {
	c := s.c
	n := c.NumNodes()
	if n == 0 {
		return msgNoNodes, nil
	}
	g := cl.g
	if g.conflict {
		// PreFilter rejected the pod: no preemption (and no PostFilter
		// message we can vouch for).
		return rules.ConflictMessage(n), nil
	}
	counts := map[string]int{}
	add := func(msg string, k int) {
		if k > 0 {
			counts[msg] += k
		}
	}
	add(msgPreFilterAbsent, g.nAbsent)
	add(msgUnschedulable, g.nUnsched)
	add(msgTaint, g.nTaint)
	add(msgAffinity, g.nAffinity)
	// Per-node dynamic filters, counted per resource column.
	var ports, pods int
	insufficient := make([]int, len(c.ResNames))
	dense := g.dense
	if len(cl.demand.Ports) == 0 && cl.rel == nil {
		// Every node is counted under each filter it fails: one column
		// at a time.
		pods = countOver(dense, c.Req[index.ResPods], 1, c.Alloc[index.ResPods])
		for _, rv := range cl.demand.Req {
			insufficient[rv.Res] += countOver(dense, c.Req[rv.Res], rv.Val, c.Alloc[rv.Res])
		}
		dense = nil
	}
	for wi, word := range dense {
		for ; word != 0; word &= word - 1 {
			node := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if len(cl.demand.Ports) > 0 && rules.PortsConflict(c.Ports[node], cl.demand.Ports) {
				ports++
				continue
			}
			fails := false
			if !rules.PodsFit(c.Req[index.ResPods][node], c.Alloc[index.ResPods][node]) {
				pods++
				fails = true
			}
			for _, rv := range cl.demand.Req {
				if !rules.Fits(c.Req[rv.Res][node], rv.Val, c.Alloc[rv.Res][node]) {
					insufficient[rv.Res]++
					fails = true
				}
			}
			if !fails && cl.rel != nil {
				s.relCounts(cl.rel, node, counts)
			}
		}
	}
	add(msgPorts, ports)
	add(msgTooManyPods, pods)
	for r, k := range insufficient {
		add(rules.InsufficientResource(c.ResNames[r]), k)
	}
	return FitMessage(n, counts) + " " + s.preemptionMessage(cl), counts
}

// countOver counts the nodes n of dense where req[n]+v > alloc[n].
func countOver(dense []uint64, req []int64, v int64, alloc []int64) int {
	k := 0
	for wi, word := range dense {
		for ; word != 0; word &= word - 1 {
			if n := wi*64 + bits.TrailingZeros64(word); !rules.Fits(req[n], v, alloc[n]) {
				k++
			}
		}
	}
	return k
}

// FitMessage formats "0/N nodes are available: <count reason>, ... ." with
// the parts sorted as strings, as kube-scheduler's FitError does.
func FitMessage(numNodes int, counts map[string]int) string {
	return rules.FitMessage(numNodes, counts)
}
