package index

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
)

// NodeID is a dense node id, stable for the life of a Cluster.
type NodeID = uint32

// PodID indexes Cluster.Pods.
type PodID = int32

// NoNode marks a pod that is not bound.
const NoNode = -1

// ResVal is one requested amount of the resource with column index Res.
type ResVal struct {
	Res int32
	Val int64
}

// PortKey is a host port in use or requested.
type PortKey struct {
	IP    string // "0.0.0.0" for the wildcard
	Proto string
	Port  int32
}

// Conflicts reports whether two host ports clash: same protocol and port,
// and the same IP or either one the wildcard.
func (a PortKey) Conflicts(b PortKey) bool {
	return a.Port == b.Port && a.Proto == b.Proto &&
		(a.IP == b.IP || a.IP == wildcardIP || b.IP == wildcardIP)
}

const wildcardIP = "0.0.0.0"

// Demand is what one pod takes from a node, resolved to column indexes. The
// solver computes it once per equivalence class.
type Demand struct {
	Req []ResVal // resources with a non-zero request, in column order
	// ScoreCPU and ScoreMem are the non-zero requests used to score the pod
	// as the incoming one; AddCPU and AddMem are what it adds to its node's
	// non-zero totals once bound (they differ only with pod-level
	// resources).
	ScoreCPU, ScoreMem int64
	AddCPU, AddMem     int64
	Ports              []PortKey
}

// Change is one entry of the node change log: node n reached generation Gen.
type Change struct {
	Node NodeID
	Gen  uint32
}

// Cluster is the indexed cluster. Fields are exported for the solver to read;
// mutate only through Bind and Unbind.
type Cluster struct {
	Syms *Symbols

	// Nodes, in input order; NodeID i is Nodes[i].
	Nodes      []Node
	NodeByName map[string]NodeID

	All           *roaring.Bitmap
	Unschedulable *roaring.Bitmap
	// Images are the nodes' images (see images.go).
	Images Images
	// imagesDone is closed once Images are indexed (IndexImagesAsync).
	imagesDone chan struct{}
	// LabelKV maps KV(key, value) to the nodes carrying that label.
	LabelKV map[uint64]*roaring.Bitmap
	// LabelKey maps a label key to the nodes carrying it with any value.
	LabelKey map[Sym]*roaring.Bitmap
	// KeyValues lists the distinct values of each label key, sorted by id.
	KeyValues map[Sym][]Sym
	// Taints are the distinct taints; TaintNodes[i] holds the nodes with
	// Taints[i]; NodeTaints[n] lists indexes into Taints.
	Taints     []Taint
	TaintNodes []*roaring.Bitmap
	NodeTaints [][]int32

	// Resource columns. ResNames[r] names column r; Alloc[r][n] and Req[r][n]
	// are node n's allocatable and requested amounts of it.
	ResNames []string
	ResIndex map[string]int32
	Alloc    [][]int64
	Req      [][]int64
	// ScoreReq holds the scheduler's non-zero requested cpu (0) and memory (1).
	ScoreReq [2][]int64
	// Ports holds the host ports in use per node (nil for most nodes).
	Ports [][]PortKey

	Pods    []Pod
	PodNode []int32 // node of each pod, NoNode when not bound
	PodsOn  [][]PodID
	// Pending lists the admitted, ungated and gated pods that wait for this
	// scheduler, in input order. Rejected pods are in Rejected.
	Pending  []PodID
	Rejected []PodID
	// RelPods lists, in input order, the pods with pod-relative terms
	// (topology spread, pod affinity or anti-affinity, required or
	// preferred), whatever their state; MinPriority is the lowest priority
	// of any pod (MaxInt32 without pods). Both spare a solve a pass over
	// every pod record.
	RelPods     []PodID
	MinPriority int32

	PriorityClasses []PriorityClass
	PDBs            []PDB
	Namespaces      []Namespace
	// Workloads are the Services and controllers whose selectors feed
	// default topology spreading.
	Workloads []Workload

	// LowPrio lists, ascending, the priorities of the pods (at most
	// maxLowThresholds of them, the most common); Low[j*len(ResNames)+r][n]
	// is what pods of priority below LowPrio[j] request of resource r on
	// node n, kept up to date by Bind and Unbind, so "would the pod fit if
	// every lower-priority pod left" is O(1) per node. lowFrom[p] is the
	// first threshold above pod p's priority.
	LowPrio []int32
	Low     [][]int64
	lowFrom []uint8
	// startOf and prioOf are each pod's StartOf and priority, dense, for
	// dropLatest (with Low).
	startOf []int64
	prioOf  []int32
	// lowLive is how many thresholds, from the lowest, Bind and Unbind
	// keep up to date (see KeepLowUpTo).
	lowLive int
	// MaxOne[j*len(ResNames)+r][n] bounds from above the largest request
	// of resource r by one pod of priority below LowPrio[j] on node n.
	MaxOne [][]int64
	// latest[j][n] is the latest start (StartOf) of node n's pods of
	// priority LowPrio[j] (math.MinInt64: none), for j below lowLive.
	latest [][]int64
	// bound records the requests each pod was bound with (see
	// BoundRequests).
	bound boundReqs

	// Gen is each node's generation, bumped on every Bind or Unbind.
	Gen []uint32
	// Changes logs every node change in order.
	Changes []Change
	// Static logs the changes of node taints and cordons (SetTaints,
	// SetUnschedulable) with what the node had before.
	Static []StaticChange

	// topo memoises the domain maps (see Topology).
	topo topologies

	// Warnings are non-fatal oddities found while building.
	Warnings []string
	// Skipped counts from ingest.
	SkippedKinds   map[string]int
	OtherScheduler int
	FinishedPods   int
}

// KV packs a label key and value into one map key.
func KV(k, v Sym) uint64 { return uint64(k)<<32 | uint64(v) }

// Build indexes in. It takes ownership of in's slices.
func Build(in *Input) (*Cluster, error) { return BuildOn(in, nil) }

// BuildOn is Build taking nodes, a NodeIndex of in.Nodes made before (by
// expansion), for its node index instead of indexing the nodes again; with
// nodes nil, or made of other nodes, it indexes them. nodes is taken over.
func BuildOn(in *Input, nodes *Cluster) (*Cluster, error) {
	n := len(in.Nodes)
	if uint64(n) > 1<<31 {
		return nil, fmt.Errorf("index: %d nodes is more than supported", n)
	}
	reuse := nodes != nil && len(nodes.Nodes) == n && (n == 0 || &nodes.Nodes[0] == &in.Nodes[0])
	if !reuse {
		nodes = &Cluster{Syms: NewSymbols(), NodeByName: make(map[string]NodeID, n), All: roaring.New(),
			Unschedulable: roaring.New(), LabelKV: map[uint64]*roaring.Bitmap{}, LabelKey: map[Sym]*roaring.Bitmap{},
			KeyValues: map[Sym][]Sym{}, NodeTaints: make([][]int32, n)}
	}
	c := &Cluster{
		Syms:            nodes.Syms,
		Nodes:           in.Nodes,
		NodeByName:      nodes.NodeByName,
		All:             nodes.All,
		Unschedulable:   nodes.Unschedulable,
		LabelKV:         nodes.LabelKV,
		LabelKey:        nodes.LabelKey,
		KeyValues:       nodes.KeyValues,
		NodeTaints:      nodes.NodeTaints,
		Taints:          nodes.Taints,
		TaintNodes:      nodes.TaintNodes,
		ResIndex:        map[string]int32{},
		Pods:            in.Pods,
		PriorityClasses: in.PriorityClasses,
		PDBs:            in.PDBs,
		Namespaces:      in.Namespaces,
		Workloads:       in.Workloads,
		SkippedKinds:    in.SkippedKinds,
		OtherScheduler:  in.OtherScheduler,
		FinishedPods:    in.FinishedPods,
	}
	for _, name := range []string{NameCPU, NameMemory, NameEphemeralStorage, NamePods} {
		c.resColumn(name)
	}
	c.Ports = make([][]PortKey, n)
	c.PodsOn = make([][]PodID, n)
	c.Changes = make([]Change, 0, len(in.Pods)+1024)
	c.Gen = make([]uint32, n)
	// The image table reads the nodes alone and nothing below reads it.
	if reuse && nodes.imagesDone != nil {
		defer func() {
			<-nodes.imagesDone
			c.Images = nodes.Images
		}()
	} else {
		var images sync.WaitGroup
		images.Go(c.indexImages)
		defer images.Wait()
	}
	if !reuse {
		if err := c.indexNodes(); err != nil {
			return nil, err
		}
	}
	empty, firstEmpty := 0, ""
	for i := range in.Nodes {
		if len(in.Nodes[i].Allocatable) == 0 {
			if empty++; empty == 1 {
				firstEmpty = in.Nodes[i].Name
			}
		}
		for _, q := range in.Nodes[i].Allocatable {
			r := c.resColumn(q.Name)
			c.Alloc[r][i] = q.Value
		}
	}
	switch {
	case n == 0:
		c.Warnings = append(c.Warnings, "the input holds no nodes: no pod can be placed")
	case empty > 0:
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d node(s) have neither status.allocatable nor status.capacity (the first: %s): no pod fits on them", empty, firstEmpty))
	}
	// Pods-by-node lists are cut from one slab, each with room for the
	// node's pod capacity, so binding a pod does not allocate.
	var slabSize int64
	for i := range in.Nodes {
		slabSize += min(max(c.Alloc[ResPods][i], 0), 1024)
	}
	slab := make([]PodID, slabSize)
	var off int64
	for i := range in.Nodes {
		k := min(max(c.Alloc[ResPods][i], 0), 1024)
		c.PodsOn[i] = slab[off : off : off+k]
		off += k
	}
	c.ScoreReq[0] = make([]int64, n)
	c.ScoreReq[1] = make([]int64, n)
	c.PodNode = make([]int32, len(in.Pods))
	var last ResourceList
	for i := range in.Pods {
		// Every requested resource gets a column. Ingest shares the
		// requests of a workload's pods: a list just seen adds none.
		rq := in.Pods[i].Requests
		if sameList(rq, last) {
			continue
		}
		for _, q := range rq {
			c.resColumn(q.Name)
		}
		last = rq
	}
	c.initLow()
	c.MinPriority = math.MaxInt32
	c.boundNodes(in.Pods)
	c.bindAll(in.Pods)
	for i := range in.Pods {
		p := &in.Pods[i]
		pid := PodID(i)
		c.MinPriority = min(c.MinPriority, p.Priority)
		if len(p.Spread) > 0 || len(p.Affinity) > 0 || len(p.PreferredAffinity) > 0 || len(p.AntiAffinity) > 0 || len(p.PreferredAntiAffinity) > 0 {
			c.RelPods = append(c.RelPods, pid)
		}
		switch {
		case p.NodeName != "":
			if c.PodNode[i] == NoNode {
				c.Warnings = append(c.Warnings, fmt.Sprintf("pod %s/%s is bound to unknown node %q: ignored", p.Namespace, p.Name, p.NodeName))
			}
		case p.Rejected != "":
			c.Rejected = append(c.Rejected, pid)
		default:
			c.Pending = append(c.Pending, pid)
		}
	}
	if len(c.Rejected) > 0 {
		// Most often an export without its PriorityClasses.
		p := &in.Pods[c.Rejected[0]]
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d pending pod(s) rejected at admission (the first, %s/%s: %s): export the PriorityClasses they name with them",
			len(c.Rejected), p.Namespace, p.Name, p.Rejected))
	}
	c.Changes = c.Changes[:0] // the initial state is generation 0 everywhere
	for i := range c.Gen {
		c.Gen[i] = 0
	}
	return c, nil
}

// boundNodes sets PodNode to the node each of pods names (NoNode: none, or
// one unknown), on every processor: an export holds about as many running
// pods as pending ones, a million lookups by name at 100,000 nodes (0.3 s).
func (c *Cluster) boundNodes(pods []Pod) {
	const chunk = 16384
	chunks := (len(pods) + chunk - 1) / chunk
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), chunks)) {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= chunks {
					return
				}
				for i := k * chunk; i < min((k+1)*chunk, len(pods)); i++ {
					c.PodNode[i] = NoNode
					if name := pods[i].NodeName; name != "" {
						if nid, ok := c.NodeByName[name]; ok {
							c.PodNode[i] = int32(nid)
						}
					}
				}
			}
		})
	}
	wg.Wait()
}

// bindAll binds each pod of pods to the node boundNodes found for it, as
// Bind does but for the change log (the state Build returns is generation
// 0 everywhere). The nodes are split among the processors, each binding
// the pods of its nodes in input order (a million running pods at 100,000
// nodes: 0.7 s on one); each records the pods' requests in a list of its
// own, the lists joined after.
func (c *Cluster) bindAll(pods []Pod) {
	workers := 1
	if len(c.Nodes) >= minParallelBind {
		workers = runtime.GOMAXPROCS(0)
	}
	vals := make([][]ResVal, workers)
	vals[0] = c.bound.vals[:0] // the first worker's list starts the joined one
	part := func(n int32) int { return int(n) * workers / len(c.Nodes) }
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var d Demand
			var from *Pod // the pod d's requests and ports were resolved for
			for i := range pods {
				if n := c.PodNode[i]; n != NoNode && part(n) == w {
					if p := &pods[i]; from != nil && sameList(p.Requests, from.Requests) && sameList(p.HostPorts, from.HostPorts) {
						// Ingest shares a workload's lists: only the
						// scoring and non-zero requests are the pod's.
						d.ScoreCPU, d.ScoreMem, d.AddCPU, d.AddMem = p.ScoreCPU, p.ScoreMemory, p.NonZeroCPU, p.NonZeroMemory
					} else {
						c.demandInto(&d, p)
						from = p
					}
					if c.Low != nil {
						vals[w] = c.bound.recordIn(vals[w], PodID(i), d.Req, workers)
					}
					c.addTo(PodID(i), NodeID(n), &d)
				}
			}
		})
	}
	wg.Wait()
	if c.Low == nil {
		return
	}
	// The other workers' offsets count from the start of their own lists.
	c.bound.vals = vals[0]
	base := make([]int32, workers)
	for w := 1; w < workers; w++ {
		base[w] = int32(len(c.bound.vals))
		c.bound.vals = append(c.bound.vals, vals[w]...)
	}
	if workers == 1 {
		return
	}
	for i := range pods {
		if n := c.PodNode[i]; n != NoNode && c.bound.off[i] != 0 {
			c.bound.off[i] += base[part(n)]
		}
	}
}

// sameList reports whether a and b are the same list: both empty, or the
// same elements in memory (ingest shares equal lists between pods).
func sameList[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// minParallelBind is the nodes from which Build binds on every processor.
const minParallelBind = 4096

// NodeIndex indexes nodes alone: a Cluster whose node names, labels,
// taints and unschedulable nodes are indexed (what the node filters read:
// RequiredNodes, UntoleratedNodes), without resources or pods.
func NodeIndex(nodes []Node) (*Cluster, error) {
	c := &Cluster{Syms: NewSymbols(), Nodes: nodes, NodeByName: make(map[string]NodeID, len(nodes)),
		All: roaring.New(), Unschedulable: roaring.New(), LabelKV: map[uint64]*roaring.Bitmap{},
		LabelKey: map[Sym]*roaring.Bitmap{}, KeyValues: map[Sym][]Sym{}, NodeTaints: make([][]int32, len(nodes))}
	if err := c.indexNodes(); err != nil {
		return nil, err
	}
	return c, nil
}

// indexNodes indexes c.Nodes' names, labels, taints and unschedulable
// flags.
func (c *Cluster) indexNodes() error {
	taintIdx := map[Taint]int32{}
	keyBuf := make([]string, 0, 16)
	for i := range c.Nodes {
		nd := &c.Nodes[i]
		id := NodeID(i)
		if _, dup := c.NodeByName[nd.Name]; dup {
			return fmt.Errorf("index: duplicate node %q", nd.Name)
		}
		c.NodeByName[nd.Name] = id
		c.All.Add(id)
		if nd.Unschedulable {
			c.Unschedulable.Add(id)
		}
		keyBuf = keyBuf[:0]
		for k := range nd.Labels {
			keyBuf = append(keyBuf, k)
		}
		sort.Strings(keyBuf) // deterministic symbol ids
		for _, k := range keyBuf {
			ks, vs := c.Syms.Intern(k), c.Syms.Intern(nd.Labels[k])
			bmOf(c.LabelKey, ks).Add(id)
			kv := KV(ks, vs)
			b, ok := c.LabelKV[kv]
			if !ok {
				b = roaring.New()
				c.LabelKV[kv] = b
				c.KeyValues[ks] = append(c.KeyValues[ks], vs)
			}
			b.Add(id)
		}
		for _, t := range nd.Taints {
			ti, ok := taintIdx[t]
			if !ok {
				ti = int32(len(c.Taints))
				taintIdx[t] = ti
				c.Taints = append(c.Taints, t)
				c.TaintNodes = append(c.TaintNodes, roaring.New())
			}
			c.TaintNodes[ti].Add(id)
			c.NodeTaints[i] = append(c.NodeTaints[i], ti)
		}
	}
	for k := range c.KeyValues {
		vs := c.KeyValues[k]
		sort.Slice(vs, func(a, b int) bool { return vs[a] < vs[b] })
	}
	return nil
}

func bmOf[K comparable](m map[K]*roaring.Bitmap, k K) *roaring.Bitmap {
	b, ok := m[k]
	if !ok {
		b = roaring.New()
		m[k] = b
	}
	return b
}

// resColumn returns the column of resource name, adding it if new.
func (c *Cluster) resColumn(name string) int32 {
	if r, ok := c.ResIndex[name]; ok {
		return r
	}
	r := int32(len(c.ResNames))
	c.ResIndex[name] = r
	c.ResNames = append(c.ResNames, name)
	c.Alloc = append(c.Alloc, make([]int64, len(c.Nodes)))
	c.Req = append(c.Req, make([]int64, len(c.Nodes)))
	return r
}

// NumNodes is the number of nodes.
func (c *Cluster) NumNodes() int { return len(c.Nodes) }

// DemandOf resolves p's requests to columns. Every resource p requests must
// already have a column (Build makes one for each).
func (c *Cluster) DemandOf(p *Pod) Demand {
	var d Demand
	c.demandInto(&d, p)
	return d
}

// demandInto is DemandOf into d, reusing its slices' room (Build binds a
// million running pods through one Demand).
func (c *Cluster) demandInto(d *Demand, p *Pod) {
	*d = Demand{ScoreCPU: p.ScoreCPU, ScoreMem: p.ScoreMemory, AddCPU: p.NonZeroCPU, AddMem: p.NonZeroMemory, Req: d.Req[:0], Ports: d.Ports[:0]}
	for _, q := range p.Requests {
		if q.Value == 0 || !Checked(q.Name) {
			continue
		}
		r, ok := c.ResIndex[q.Name]
		if !ok {
			panic("index: resource without column: " + q.Name)
		}
		d.Req = append(d.Req, ResVal{Res: r, Val: q.Value})
	}
	slices.SortFunc(d.Req, func(a, b ResVal) int { return cmp.Compare(a.Res, b.Res) })
	for _, hp := range p.HostPorts {
		ip := hp.HostIP
		if ip == "" {
			ip = wildcardIP
		}
		proto := hp.Protocol
		if proto == "" {
			proto = "TCP"
		}
		d.Ports = append(d.Ports, PortKey{IP: ip, Proto: proto, Port: hp.Port})
	}
}

// Bind places pod p on node n with demand d.
func (c *Cluster) Bind(p PodID, n NodeID, d *Demand) {
	if c.Low != nil {
		c.bound.record(p, d.Req)
	}
	c.addTo(p, n, d)
	c.PodNode[p] = int32(n)
	c.touch(n)
}

// addTo adds pod p, of demand d, to node n's state: what Bind changes but
// the pod's node, its recorded requests and the change log.
func (c *Cluster) addTo(p PodID, n NodeID, d *Demand) {
	c.Req[ResPods][n]++
	for _, rv := range d.Req {
		c.Req[rv.Res][n] += rv.Val
	}
	c.ScoreReq[0][n] += d.AddCPU
	c.ScoreReq[1][n] += d.AddMem
	if len(d.Ports) > 0 {
		c.Ports[n] = append(c.Ports[n], d.Ports...)
	}
	c.addLowSums(p, n, d, 1)
	c.PodsOn[n] = append(c.PodsOn[n], p)
}

// Unbind removes pod p, bound with demand d, from its node.
func (c *Cluster) Unbind(p PodID, d *Demand) {
	if c.PodNode[p] == NoNode {
		return
	}
	n := NodeID(c.PodNode[p])
	c.Req[ResPods][n]--
	for _, rv := range d.Req {
		c.Req[rv.Res][n] -= rv.Val
	}
	c.ScoreReq[0][n] -= d.AddCPU
	c.ScoreReq[1][n] -= d.AddMem
	c.addLow(p, n, d, -1)
	for _, hp := range d.Ports {
		ports := c.Ports[n]
		for i := range ports {
			if ports[i] == hp {
				c.Ports[n] = append(ports[:i], ports[i+1:]...)
				break
			}
		}
	}
	on := c.PodsOn[n]
	for i, q := range on {
		if q == p {
			c.PodsOn[n] = append(on[:i], on[i+1:]...)
			break
		}
	}
	if c.Low != nil {
		c.dropLatest(p, n)
	}
	c.PodNode[p] = NoNode
	c.touch(n)
}

func (c *Cluster) touch(n NodeID) {
	c.Gen[n]++
	c.Changes = append(c.Changes, Change{Node: n, Gen: c.Gen[n]})
}

// LabelNodes returns the nodes labelled key=value, or nil.
func (c *Cluster) LabelNodes(key, value string) *roaring.Bitmap {
	ks, ok := c.Syms.Lookup(key)
	if !ok {
		return nil
	}
	vs, ok := c.Syms.Lookup(value)
	if !ok {
		return nil
	}
	return c.LabelKV[KV(ks, vs)]
}

// KeyNodes returns the nodes carrying label key, or nil.
func (c *Cluster) KeyNodes(key string) *roaring.Bitmap {
	ks, ok := c.Syms.Lookup(key)
	if !ok {
		return nil
	}
	return c.LabelKey[ks]
}

// KeyNodesWhere returns the union of nodes whose value for key satisfies
// keep (used for Gt and Lt).
func (c *Cluster) KeyNodesWhere(key string, keep func(value string) bool) *roaring.Bitmap {
	out := roaring.New()
	ks, ok := c.Syms.Lookup(key)
	if !ok {
		return out
	}
	for _, vs := range c.KeyValues[ks] {
		if keep(c.Syms.String(vs)) {
			out.Or(c.LabelKV[KV(ks, vs)])
		}
	}
	return out
}

// Checked reports whether NodeResourcesFit checks a request for resource
// name: cpu, memory, ephemeral-storage and the scalar resources (extended and
// prefixed names containing '/', hugepages-*, attachable-volumes-*). Other
// names (including "pods") are not checked.
func Checked(name string) bool {
	switch name {
	case NameCPU, NameMemory, NameEphemeralStorage:
		return true
	}
	return strings.Contains(name, "/") || strings.HasPrefix(name, "hugepages-") ||
		strings.HasPrefix(name, "attachable-volumes-")
}

// ParseLabelInt parses a label value for Gt/Lt the way the scheduler does
// (base-10 int64).
func ParseLabelInt(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}
