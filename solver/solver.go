package solver

import (
	"bytes"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/kplace/kplace/index"
)

// Config tunes a batch.
type Config struct {
	Strategy Strategy
	// Seed drives tie-breaking between equally scored nodes.
	Seed uint64
	// Progress, when set, is called now and then with the number of queued
	// pods processed so far and the total.
	Progress func(done, total int)
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
}

// Solver runs one batch over a cluster. It mutates the cluster.
type Solver struct {
	c       *index.Cluster
	cfg     Config
	classes []*class
	groups  int
	// rebuilds counts heap rebuilds forced by truncation; builds counts
	// every heap build.
	rebuilds, builds int
	buf              []uint32
	scan             []scanner
	// hot holds each node's scoring record (see nodeHot).
	hot []nodeHot
}

// newSolver prepares a solver over c.
func newSolver(c *index.Cluster, cfg Config) *Solver {
	n := c.NumNodes()
	s := &Solver{c: c, cfg: cfg, buf: make([]uint32, 256), hot: make([]nodeHot, n)}
	for i := range s.hot {
		s.hot[i].tie = uint32(mix(cfg.Seed ^ (uint64(i) * 0x9e3779b97f4a7c15)))
		s.refreshNode(index.NodeID(i))
	}
	return s
}

// Solve places every pending pod of c and returns the commits and the pods
// left pending. c is updated to the final state.
func Solve(c *index.Cluster, cfg Config) *Result {
	s := newSolver(c, cfg)
	queue := Queue(c)
	classOf := s.classify(queue)
	res := &Result{Commits: make([]Commit, 0, len(queue)), Classes: len(s.classes)}
	var failed []*class
	var failedAt []int32 // class of each Unschedulable entry of res.Pending, in order
	for i, pid := range queue {
		if cfg.Progress != nil && i&0x3fff == 0 {
			cfg.Progress(i, len(queue))
		}
		p := &c.Pods[pid]
		switch {
		case p.Gated:
			// The SchedulingGates plugin's words.
			res.Pending = append(res.Pending, Pending{Pod: pid, Kind: Gated, Reason: fmt.Sprintf("waiting for scheduling gates: %v", p.SchedulingGates)})
			continue
		case p.Unsupported != "":
			res.Pending = append(res.Pending, Pending{Pod: pid, Kind: Unsupported, Reason: "unsupported: " + p.Unsupported})
			continue
		}
		cl := s.classes[classOf[i]]
		n, score, ok := s.place(cl, pid)
		cl.pods--
		cl.g.pods--
		if ok {
			res.Commits = append(res.Commits, Commit{Action: Bind, Pod: pid, Node: n, Score: score})
		} else {
			if cl.failures == 0 {
				failed = append(failed, cl)
			}
			cl.failures++
			failedAt = append(failedAt, classOf[i])
			res.Pending = append(res.Pending, Pending{Pod: pid, Kind: Unschedulable})
		}
		if cl.pods == 0 {
			cl.heap = nil // release: the class has no pod left
		}
		if cl.g.pods == 0 {
			cl.g.rawTT, cl.g.rawNA, cl.g.dense = nil, nil, nil
		}
	}
	if cfg.Progress != nil {
		cfg.Progress(len(queue), len(queue))
	}
	res.Groups, res.Rebuilds, res.Builds = s.groups, s.rebuilds, s.builds

	// Reasons reflect the final state: pods left pending fit nowhere now.
	for _, cl := range failed {
		cl.reason = s.reason(cl)
	}
	k := 0
	for i := range res.Pending {
		if pd := &res.Pending[i]; pd.Kind == Unschedulable {
			pd.Reason = s.classes[failedAt[k]].reason
			k++
		}
	}
	return res
}

// Queue returns the pending pods in scheduling order: priority descending,
// then creation time ascending, then input order.
func Queue(c *index.Cluster) []index.PodID {
	q := slices.Clone(c.Pending)
	sort.SliceStable(q, func(i, j int) bool {
		a, b := &c.Pods[q[i]], &c.Pods[q[j]]
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		return a.CreationUnix < b.CreationUnix
	})
	return q
}

// classify assigns every queued pod to an equivalence class (-1 for pods that
// are never placed); classes with the same static part share a group.
func (s *Solver) classify(queue []index.PodID) []int32 {
	classOf := make([]int32, len(queue))
	byHash := map[uint64]int32{}
	groups := map[string]*group{}
	var fresh []*group // groups to initialise, with their first pods in reps
	var reps []index.PodID
	var overflow map[string]int32 // hash collisions, practically never used
	var enc keyEncoder
	for i, pid := range queue {
		p := &s.c.Pods[pid]
		if p.Gated || p.Unsupported != "" {
			classOf[i] = -1
			continue
		}
		key, static := enc.encode(p)
		h := xxhash.Sum64(key)
		id, ok := byHash[h]
		switch {
		case ok && bytes.Equal(s.classes[id].key, key):
		case ok:
			if overflow == nil {
				overflow = map[string]int32{}
			}
			if id, ok = overflow[string(key)]; !ok {
				id = s.newClass(pid, key, static, groups, &fresh, &reps)
				overflow[string(key)] = id
			}
		default:
			id = s.newClass(pid, key, static, groups, &fresh, &reps)
			byHash[h] = id
		}
		classOf[i] = id
		s.classes[id].pods++
		s.classes[id].g.pods++
	}
	s.groups = len(groups)
	// Groups only read the index: initialise them on every processor.
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(fresh))
	m := newMemo()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var enc keyEncoder
			for i := w; i < len(fresh); i += workers {
				fresh[i].init(s.c, &s.c.Pods[reps[i]], m, &enc)
			}
		}()
	}
	wg.Wait()
	return classOf
}

func (s *Solver) newClass(pid index.PodID, key []byte, static int, groups map[string]*group, fresh *[]*group, reps *[]index.PodID) int32 {
	p := &s.c.Pods[pid]
	g, ok := groups[string(key[:static])]
	if !ok {
		g = &group{}
		groups[string(key[:static])] = g
		*fresh = append(*fresh, g)
		*reps = append(*reps, pid)
	}
	cl := &class{g: g, rep: pid, key: slices.Clone(key), demand: s.c.DemandOf(p)}
	cl.balCPU, _ = p.Requests.Get(index.NameCPU)
	cl.balMem, _ = p.Requests.Get(index.NameMemory)
	cl.balance = cl.balCPU != 0 || cl.balMem != 0
	s.classes = append(s.classes, cl)
	return int32(len(s.classes) - 1)
}

// place binds pid to the best node of its class, if any fits.
func (s *Solver) place(cl *class, pid index.PodID) (index.NodeID, int64, bool) {
	if cl.g.conflict {
		return 0, 0, false
	}
	if !cl.built {
		s.build(cl)
	} else {
		s.sync(cl)
	}
	gen := s.c.Gen
	for {
		for len(cl.heap) > 0 && cl.heap[0].gen != gen[cl.heap[0].node] {
			cl.heap.pop() // stale: the node changed and sync re-scored it
		}
		if cl.truncated && (len(cl.heap) == 0 || better(&cl.cut, &cl.heap[0])) {
			// A node left out of the truncated heap may be the best now.
			s.rebuilds++
			s.build(cl)
			continue
		}
		break
	}
	if len(cl.heap) == 0 {
		return 0, 0, false
	}
	top := cl.heap[0]
	cl.heap.pop()
	s.c.Bind(pid, top.node, &cl.demand)
	s.refreshNode(top.node)
	return top.node, top.score, true
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
	if feas := cl.g.feasCard; len(changes) > feas || len(cl.heap) > 2*feas+1024 {
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
		if fits {
			cl.heap.push(entry{score: s.score(cl, n), tie: s.hot[n].tie, node: n, gen: ch.Gen})
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
	moved := func(raw []int32, l *levels, level int, maxRaw int64) bool {
		if raw == nil {
			return false
		}
		r := int64(raw[n])
		if fits {
			return r > maxRaw
		}
		return r == maxRaw && level >= 0 && !s.anyFits(l.nodes[level], cl)
	}
	return moved(g.rawTT, g.ttLevels, cl.ttLevel, cl.ttMax) || moved(g.rawNA, g.naLevels, cl.naLevel, cl.naMax)
}

// Reason strings of the filters, as kube-scheduler v1.36 words them.
const (
	msgPreFilterAbsent = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
	msgUnschedulable   = "node(s) were unschedulable"
	msgTaint           = "node(s) had untolerated taint(s)"
	msgAffinity        = "node(s) didn't match Pod's node affinity/selector"
	msgPorts           = "node(s) didn't have free ports for the requested pod ports"
	msgTooManyPods     = "Too many pods"
	msgConflict        = "pod affinity terms conflict"
	msgNoNodes         = "no nodes available to schedule pods"
)

// reason builds the FitError message for a class that fits nowhere now.
func (s *Solver) reason(cl *class) string {
	c := s.c
	n := c.NumNodes()
	if n == 0 {
		return msgNoNodes
	}
	g := cl.g
	if g.conflict {
		return fmt.Sprintf("0/%d nodes are available: %s.", n, msgConflict)
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
	dense := g.denseFeasible(n)
	for wi, word := range dense {
		for ; word != 0; word &= word - 1 {
			node := index.NodeID(wi*64 + bits.TrailingZeros64(word))
			if len(cl.demand.Ports) > 0 && c.PortConflict(node, cl.demand.Ports) {
				ports++
				continue
			}
			if c.Req[index.ResPods][node]+1 > c.Alloc[index.ResPods][node] {
				pods++
			}
			for _, rv := range cl.demand.Req {
				if c.Req[rv.Res][node]+rv.Val > c.Alloc[rv.Res][node] {
					insufficient[rv.Res]++
				}
			}
		}
	}
	add(msgPorts, ports)
	add(msgTooManyPods, pods)
	for r, k := range insufficient {
		add("Insufficient "+c.ResNames[r], k)
	}
	return FitMessage(n, counts)
}

// FitMessage formats "0/N nodes are available: <count reason>, ... ." with
// the parts sorted as strings, as kube-scheduler's FitError does.
func FitMessage(numNodes int, counts map[string]int) string {
	parts := make([]string, 0, len(counts))
	for msg, k := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", k, msg))
	}
	sort.Strings(parts)
	return fmt.Sprintf("0/%d nodes are available: %s.", numNodes, strings.Join(parts, ", "))
}

// mix is splitmix64's finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
