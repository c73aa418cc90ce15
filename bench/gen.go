// Package bench generates synthetic clusters for benchmarks and tests: a
// kubectl-style JSON v1 List shaped like an export of a production cluster
// (nodes of several instance types over zones of unequal size, tainted pools,
// deployments of heavy-tailed size, priority classes), with a configurable
// number of pending pods for the engine to place.
//
// Output is deterministic: the same GenConfig always yields the same bytes.
// Generation streams: memory is O(nodes), never O(pods).
package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// GenConfig describes a synthetic cluster.
type GenConfig struct {
	Profile string // one of Profiles() ("" means "mixed")
	Nodes   int    // number of nodes
	Pods    int    // number of PENDING pods
	Running int    // number of already-bound (running) pods, spread over nodes; -1 = profile default
	Seed    uint64
	// Zones is the number of zones (topology.kubernetes.io/zone values);
	// 0 means the profile's default (5). Only the spread, anti-affinity
	// and spread-bench profiles honour it; the others always use the five
	// zones of unequal size.
	Zones int
	// PendingAs is what the realistic profile writes for the pods its
	// controllers created and the scheduler has not bound: PendingAsPods
	// ("" too) or PendingAsWorkloads. Other profiles take only the default.
	PendingAs string
}

// Profiles returns the names of the known profiles.
func Profiles() []string {
	out := make([]string, len(profiles), len(profiles)+1)
	for i := range profiles {
		out[i] = profiles[i].name
	}
	return append(out, realisticName)
}

// DefaultRunning is the number of running pods a profile gets for the given
// node count when GenConfig.Running is -1: about 30% of nodes*10.
func DefaultRunning(nodes int) int { return nodes * 3 }

// pcgStream is the second PCG word; the seed is the first.
const pcgStream = 0x6b706c6163652e31 // "kplace.1"

// baseUnix is the creation time of the first workload (2024-06-01T00:00:00Z).
const baseUnix = 1717200000

// maxNodes bounds the node count: cloud node names are a bijection on 24 bits.
const maxNodes = 1 << 24

// Generate writes a kubectl-style JSON v1 List to w. Items come in this
// order: PriorityClasses, Namespaces, Nodes, running pods (spec.nodeName set,
// status.phase Running, placed within node allocatable), pending pods. One
// item per line. Output is streamed through a bufio.Writer; memory is
// O(nodes).
func Generate(cfg GenConfig, w io.Writer) error {
	if cfg.Profile == "" {
		cfg.Profile = "mixed"
	}
	prof, err := cfg.check()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	fill := prof.fill > 0 && cfg.Running == -1
	if cfg.Running == -1 {
		cfg.Running = DefaultRunning(cfg.Nodes)
		if prof.runPerNode > 0 {
			cfg.Running = prof.runPerNode * cfg.Nodes
		}
	}
	if cfg.Running > 0 && cfg.Nodes == 0 {
		return errors.New("bench: running pods need at least one node")
	}
	g := &gen{
		cfg:  cfg,
		prof: prof,
		r:    rand.New(rand.NewPCG(cfg.Seed, pcgStream)),
		bw:   bufio.NewWriterSize(w, 1<<20),
		buf:  make([]byte, 0, 64<<10),
	}
	g.fill = fill
	g.zones = zones
	if cfg.Zones > 0 && prof.zonesFlag {
		g.zones = zoneTable(cfg.Zones)
	}
	g.uidSalt = splitmix(cfg.Seed ^ 0x75696473) // "uids"
	g.clock = baseUnix
	run := g.run
	if prof == &realisticProfile {
		run = func() error { return generateRealistic(g) }
	}
	if err := run(); err != nil {
		return err
	}
	return g.bw.Flush()
}

// ---------------------------------------------------------------------------
// Static tables: zones, instance types, pools, namespaces, priority classes.

// ---------------------------------------------------------------------------
// Profiles and features.
//
// A pending deployment starts from a base template (namespace, labels,
// containers with realistic resources, admission-default tolerations,
// priority). Each profile then has a few axes; for every deployment one
// feature is drawn per axis (by weight) and applied to the template. To add a
// new kind of constraint to a profile (topology spread, pod affinity,
// volumes, scheduling gates), add the field to podTemplate, render it in
// renderTemplate, write a feature that sets it and list it in an axis.

// ---------------------------------------------------------------------------
// Generator state.

type node struct {
	name       string
	ip         uint32 // low 24 bits of 10.x.y.z
	typ        uint8
	pool       uint8
	zone       uint16
	noZone     bool  // no zone labels (a node the cloud provider did not label)
	gen        uint8 // kplace.io/generation
	ssd        bool
	oldKubelet bool
	cordoned   bool
	cond       uint8 // condNone, condNotReady, condMemoryPressure
	created    int64
	taints     []taint

	usedCPU, usedMem, usedGPU, usedFPGA int64
	usedPods                            int32
}

const (
	condNone = iota
	condNotReady
	condMemoryPressure
)

func (n *node) it() *instanceType { return &instanceTypes[n.typ] }

type gen struct {
	cfg  GenConfig
	prof *profile
	r    *rand.Rand
	bw   *bufio.Writer
	buf  []byte
	err  error

	items     int
	uidSalt   uint64
	uidCount  uint64
	clock     int64
	groupSeq  int
	nodes     []node
	poolNodes [numPools][]int32

	maxAllocCPU, maxAllocMem int64
	noRoom                   noRoom
	// fill: running pods fill the cluster to prof.fill (see profile).
	fill bool

	// tight sizing (profile.tight)
	budgetCPU, budgetMem float64
	meanCPU, meanMem     float64 // initial budget per pending pod
	pendingLeft          int

	zones     []weighted[string] // zone names and weights (zones unless Config.Zones is honoured)
	zoneNodes [][]int32          // nodes with a zone label, by zone

	rel relState // pod topology spread and pod (anti-)affinity profiles

	tpl podTemplate
	rt  rendered
	nb  []byte // scratch: pod name
	lbl []kv   // scratch: node labels
}

// ---------------------------------------------------------------------------
// Randomness helpers.

type weighted[T any] struct {
	v T
	w int
}

func pick[T any](r *rand.Rand, cs []weighted[T]) T {
	total := 0
	for _, c := range cs {
		total += c.w
	}
	x := r.IntN(total)
	for _, c := range cs {
		if x < c.w {
			return c.v
		}
		x -= c.w
	}
	return cs[len(cs)-1].v
}

func pickIdx(r *rand.Rand, ws []int) int {
	total := 0
	for _, w := range ws {
		total += w
	}
	x := r.IntN(total)
	for i, w := range ws {
		if x < w {
			return i
		}
		x -= w
	}
	return len(ws) - 1
}

func pickFeature(r *rand.Rand, fs []feature) *feature {
	total := 0
	for i := range fs {
		total += fs[i].weight
	}
	x := r.IntN(total)
	for i := range fs {
		if x < fs[i].weight {
			return &fs[i]
		}
		x -= fs[i].weight
	}
	return &fs[len(fs)-1]
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// replicas draws a deployment size from a Pareto(alpha=1.1) distribution
// truncated to [1, 2000]: a long tail of large deployments. Its scale grows
// with the cluster so that big snapshots hold a few thousand deployments, as
// large production clusters do, rather than hundreds of thousands (scale 1,
// mean about 6, up to 15,000 pending pods; scale pods/15,000 beyond).
func (g *gen) replicas() int {
	u := 1 - g.r.Float64() // (0,1]
	x := max(1, float64(g.cfg.Pods)/15000) * math.Pow(u, -1/1.1)
	if x > 2000 {
		return 2000
	}
	return int(x)
}

// appendUID appends a deterministic RFC 4122 v4-shaped uid. The node field is
// a bijection of a counter, so uids never repeat within one output.
func (g *gen) appendUID(b []byte) []byte {
	c := g.uidCount
	g.uidCount++
	return appendUIDOf(b, g.uidSalt, c)
}

func (g *gen) randSafe(n int) string {
	var b [16]byte
	for i := 0; i < n; i++ {
		b[i] = safeAlphabet[g.r.IntN(len(safeAlphabet))]
	}
	return string(b[:n])
}

// ---------------------------------------------------------------------------
// JSON helpers.

// ---------------------------------------------------------------------------
// Quantities.

// ---------------------------------------------------------------------------
// Pod template.

type port struct {
	name                    string
	containerPort, hostPort int32
}

type container struct {
	name, image   string
	req, lim      []res
	ports         []port
	restartAlways bool // native sidecar (init container with restartPolicy Always)
}

type toleration struct {
	key, op, value, effect string
	seconds                int64
	hasSeconds             bool
}

type selReq struct {
	key, op string
	values  []string
}

type selTerm struct {
	exprs, fields []selReq
}

type prefTerm struct {
	weight int32
	term   selTerm
}

// podTemplate is one deployment's pod template (its ReplicaSet), plus the
// bookkeeping to name its pods.
type podTemplate struct {
	ns       *namespace
	deploy   string
	hash     string
	rsName   string
	rsUID    string
	created  int64
	nameOff  int64 // offset of the pod name suffixes: the ReplicaSet's creation time
	first    int   // index of the first pod written (a scale-up continues the ReplicaSet's names)
	replicas int
	labels   []kv

	priorityClass string // "" with hasPriority false: raw manifest, admission not applied

	nodeSelector []kv
	required     []selTerm
	preferred    []prefTerm
	tolerations  []toleration

	initContainers []container
	containers     []container
	runtimeClass   string
	overhead       []res

	// spread is spec.topologySpreadConstraints; affReq, antiReq, affPref
	// and antiPref the pod affinity and anti-affinity terms (gen_podrel.go).
	spread            []spreadConstraint
	affReq, antiReq   []podAffTerm
	affPref, antiPref []weightedAffTerm
	// Future constraint kinds (volumes, schedulingGates) go here.
}

func (t *podTemplate) reset() {
	*t = podTemplate{
		labels:         t.labels[:0],
		nodeSelector:   t.nodeSelector[:0],
		tolerations:    t.tolerations[:0],
		initContainers: t.initContainers[:0],
		containers:     t.containers[:0],
	}
}

func (t *podTemplate) main() *container { return &t.containers[0] }

// rendered holds the pre-rendered, per-deployment parts of a pod.
type rendered struct {
	metaTail []byte // after uid: creationTimestamp, labels, ownerReferences, closing metadata
	specA    []byte // spec keys sorting before nodeName
	specB    []byte // spec keys after nodeName, before tolerations (leading comma)
	tols     []byte // tolerations, comma-separated, no brackets
	spread   []byte // ,"topologySpreadConstraints":[...] or nothing
	qos      string
}

// ---------------------------------------------------------------------------
// Main flow.

func (g *gen) run() error {
	g.buildNodes()
	g.write([]byte(`{"apiVersion":"v1","kind":"List","metadata":{},"items":[`))
	g.writePriorityClasses()
	g.writeNamespaces()
	for i := range g.nodes {
		g.writeNode(&g.nodes[i])
	}
	if g.err != nil {
		return g.err
	}
	if err := g.writeRunning(); err != nil {
		return err
	}
	g.writePending()
	g.write([]byte("\n]}\n"))
	return g.err
}

func (g *gen) write(b []byte) {
	if g.err != nil {
		return
	}
	_, g.err = g.bw.Write(b)
}

// beginItem starts a new item in g.buf.
func (g *gen) beginItem() {
	g.buf = g.buf[:0]
	if g.items > 0 {
		g.buf = append(g.buf, ',')
	}
	g.buf = append(g.buf, '\n')
	g.items++
}

func (g *gen) endItem() { g.write(g.buf) }

func (g *gen) writePriorityClasses() {
	for _, pc := range priorityClasses {
		if pc.only != "" && pc.only != g.prof.name {
			continue
		}
		g.beginItem()
		b := append(g.buf, `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":`...)
		b = appendStr(b, pc.name)
		b = append(b, `,"uid":"`...)
		b = g.appendUID(b)
		b = append(b, `","creationTimestamp":"`...)
		b = appendTime(b, baseUnix-400*86400)
		b = append(b, `"},"value":`...)
		b = strconv.AppendInt(b, int64(pc.value), 10)
		if pc.globalDefault {
			b = append(b, `,"globalDefault":true`...)
		}
		b = append(b, `,"preemptionPolicy":`...)
		if pc.never {
			b = appendStr(b, "Never")
		} else {
			b = appendStr(b, "PreemptLowerPriority")
		}
		b = append(b, `,"description":`...)
		b = appendStr(b, pc.desc)
		g.buf = append(b, '}')
		g.endItem()
	}
}

func (g *gen) writeNamespaces() {
	for _, ns := range namespaces {
		g.beginItem()
		b := append(g.buf, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":`...)
		b = appendStr(b, ns.name)
		b = append(b, `,"uid":"`...)
		b = g.appendUID(b)
		b = append(b, `","creationTimestamp":"`...)
		b = appendTime(b, baseUnix-400*86400)
		b = append(b, `","labels":{`...)
		if g.prof.nsEnv {
			b = append(b, `"env":`...)
			b = appendStr(b, nsEnv(ns.name))
			b = append(b, ',')
		}
		b = append(b, `"kubernetes.io/metadata.name":`...)
		b = appendStr(b, ns.name)
		if ns.team != "" {
			b = append(b, `,"team":`...)
			b = appendStr(b, ns.team)
		}
		b = append(b, `}},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}`...)
		g.buf = b
		g.endItem()
	}
}

// ---------------------------------------------------------------------------
// Nodes.

func (g *gen) buildNodes() {
	n := g.cfg.Nodes
	g.nodes = make([]node, n)
	ipMul := uint64(0x9e3779b1)
	ipOff := splitmix(g.cfg.Seed^0x6970) & 0xffffff
	onprem := 0
	zoneW := make([]int, len(g.zones))
	for i := range g.zones {
		zoneW[i] = g.zones[i].w
	}
	g.zoneNodes = make([][]int32, len(g.zones))
	var nameBuf []byte
	for i := range g.nodes {
		nd := &g.nodes[i]
		p := pickIdx(g.r, g.prof.pools)
		pl := &pools[p]
		nd.pool = uint8(p)
		nd.typ = uint8(pick(g.r, pl.types))
		zw := pl.zones
		if len(zw) != len(zoneW) {
			zw = zoneW
		}
		if g.prof.evenZones {
			nd.zone = uint16(i % len(g.zones))
		} else {
			nd.zone = uint16(pickIdx(g.r, zw))
		}
		nd.gen = uint8(pick(g.r, []weighted[int]{{1, 5}, {2, 10}, {3, 30}, {4, 35}, {5, 20}}))
		nd.ssd = g.chance(0.3)
		nd.oldKubelet = g.chance(0.2)
		nd.created = baseUnix - 86400 - int64(g.r.IntN(90*86400))
		nd.ip = uint32((uint64(i)*ipMul + ipOff) & 0xffffff)
		nameBuf = nameBuf[:0]
		if nd.it().onprem {
			nameBuf = append(nameBuf, "bm-dc1-r"...)
			nameBuf = strconv.AppendInt(nameBuf, int64(onprem/40), 10)
			nameBuf = append(nameBuf, "-n"...)
			nameBuf = strconv.AppendInt(nameBuf, int64(onprem%40), 10)
			onprem++
		} else {
			nameBuf = append(nameBuf, "ip-10-"...)
			nameBuf = appendIPDashed(nameBuf, nd.ip)
			nameBuf = append(nameBuf, ".ec2.internal"...)
		}
		nd.name = string(nameBuf)
		nd.taints = pl.taints[:len(pl.taints):len(pl.taints)]
		switch x := g.r.Float64(); {
		case x < 0.01:
			nd.cordoned = true
			nd.taints = append(nd.taints, taint{key: "node.kubernetes.io/unschedulable", effect: "NoSchedule"})
		case x < 0.0125:
			nd.cond = condNotReady
			nd.taints = append(nd.taints, taint{key: "node.kubernetes.io/not-ready", effect: "NoExecute",
				timeAdded: fmtTime(baseUnix + int64(g.r.IntN(86400)))})
		case x < 0.015:
			nd.cond = condMemoryPressure
			nd.taints = append(nd.taints, taint{key: "node.kubernetes.io/memory-pressure", effect: "NoSchedule"})
		}
		if g.prof.noZoneShare > 0 && g.chance(g.prof.noZoneShare) {
			nd.noZone = true
		}
		if !nd.noZone {
			g.zoneNodes[nd.zone] = append(g.zoneNodes[nd.zone], int32(i))
		}
		g.poolNodes[p] = append(g.poolNodes[p], int32(i))
		it := nd.it()
		g.maxAllocCPU = max(g.maxAllocCPU, it.allocCPU)
		g.maxAllocMem = max(g.maxAllocMem, it.allocMem)
	}
}

const (
	ephCapacity    = 104845292 * ki
	ephAllocatable = 95551679124
)

// nodeLabels appends nd's labels to lbl, sorted by key.
func (g *gen) nodeLabels(nd *node, lbl []kv) []kv {
	it := nd.it()
	pl := &pools[nd.pool]
	zone := g.zones[nd.zone].v
	genStr := strconv.Itoa(int(nd.gen))
	lbl = append(lbl,
		kv{"beta.kubernetes.io/arch", it.arch},
		kv{"beta.kubernetes.io/instance-type", it.name},
		kv{"beta.kubernetes.io/os", "linux"},
		kv{"failure-domain.beta.kubernetes.io/region", region},
		kv{"failure-domain.beta.kubernetes.io/zone", zone},
		kv{"kplace.io/generation", genStr},
		kv{"kubernetes.io/arch", it.arch},
		kv{"kubernetes.io/hostname", nd.name},
		kv{"kubernetes.io/os", "linux"},
		kv{"node.kubernetes.io/instance-type", it.name},
		kv{"pool", pl.name},
		kv{"topology.kubernetes.io/region", region},
		kv{"topology.kubernetes.io/zone", zone},
	)
	if nd.noZone {
		lbl = slices.DeleteFunc(lbl, func(l kv) bool {
			return l.k == "failure-domain.beta.kubernetes.io/zone" || l.k == "topology.kubernetes.io/zone"
		})
	}
	if !it.onprem {
		ct := "ON_DEMAND"
		if pl.spot {
			ct = "SPOT"
		}
		lbl = append(lbl, kv{"eks.amazonaws.com/capacityType", ct})
	}
	if nd.ssd {
		lbl = append(lbl, kv{"kplace.io/local-ssd", "true"})
	}
	if it.gpuProduct != "" {
		lbl = append(lbl, kv{"nvidia.com/gpu.product", it.gpuProduct})
	}
	lbl = append(lbl, pl.labels...)
	slices.SortFunc(lbl, func(a, b kv) int { return strings.Compare(a.k, b.k) })
	return lbl
}

func (g *gen) writeNode(nd *node) {
	it := nd.it()
	zone := g.zones[nd.zone].v
	lbl := g.nodeLabels(nd, g.lbl[:0])
	g.lbl = lbl

	g.beginItem()
	b := append(g.buf, `{"apiVersion":"v1","kind":"Node","metadata":{"name":`...)
	b = appendStr(b, nd.name)
	b = append(b, `,"uid":"`...)
	b = g.appendUID(b)
	b = append(b, `","creationTimestamp":"`...)
	b = appendTime(b, nd.created)
	b = append(b, `","labels":`...)
	b = appendKVs(b, lbl)
	b = append(b, `,"annotations":{"node.alpha.kubernetes.io/ttl":"0","volumes.kubernetes.io/controller-managed-attach-detach":"true"}},"spec":{`...)
	if it.onprem {
		b = append(b, `"providerID":"baremetal://dc1/`...)
		b = append(b, nd.name...)
	} else {
		b = append(b, `"providerID":"aws:///`...)
		b = append(b, zone...)
		b = append(b, "/i-0"...)
		b = appendHex(b, splitmix(uint64(nd.ip)^g.uidSalt), 16)
	}
	b = append(b, '"')
	b = appendTaints(b, nd.taints)
	if nd.cordoned {
		b = append(b, `,"unschedulable":true`...)
	}
	b = append(b, `},"status":{"addresses":[{"type":"InternalIP","address":"`...)
	b = appendIP(b, nd.ip)
	b = append(b, `"},{"type":"Hostname","address":`...)
	b = appendStr(b, nd.name)
	b = append(b, `}],"allocatable":`...)
	b = g.appendNodeResources(b, it, true)
	b = append(b, `,"capacity":`...)
	b = g.appendNodeResources(b, it, false)
	b = append(b, `,"conditions":[`...)
	if nd.cond == condMemoryPressure {
		b = append(b, `{"type":"MemoryPressure","status":"True","reason":"KubeletHasInsufficientMemory"},`...)
	} else {
		b = append(b, `{"type":"MemoryPressure","status":"False","reason":"KubeletHasSufficientMemory"},`...)
	}
	b = append(b, `{"type":"DiskPressure","status":"False","reason":"KubeletHasNoDiskPressure"},{"type":"PIDPressure","status":"False","reason":"KubeletHasSufficientPID"},`...)
	if nd.cond == condNotReady {
		b = append(b, `{"type":"Ready","status":"Unknown","reason":"NodeStatusUnknown"}]`...)
	} else {
		b = append(b, `{"type":"Ready","status":"True","reason":"KubeletReady"}]`...)
	}
	b = append(b, `,"nodeInfo":{"architecture":`...)
	b = appendStr(b, it.arch)
	b = append(b, `,"containerRuntimeVersion":"containerd://1.7.11","kubeletVersion":`...)
	switch {
	case it.onprem:
		b = appendStr(b, "v1.29.3")
	case nd.oldKubelet:
		b = appendStr(b, "v1.28.5-eks-5e0fdde")
	default:
		b = appendStr(b, "v1.29.3-eks-ae9a62a")
	}
	b = append(b, `,"operatingSystem":"linux","osImage":`...)
	if it.onprem {
		b = appendStr(b, "Ubuntu 22.04.4 LTS")
	} else {
		b = appendStr(b, "Amazon Linux 2")
	}
	g.buf = append(b, `}}}`...)
	g.endItem()
}

func (g *gen) appendNodeResources(b []byte, it *instanceType, alloc bool) []byte {
	cpu, mem, eph := it.capCPU, it.capMem, int64(ephCapacity)
	if alloc {
		cpu, mem, eph = it.allocCPU, it.allocMem, ephAllocatable
	}
	b = append(b, `{"cpu":`...)
	b = appendQty(b, res{name: "cpu", v: cpu})
	b = append(b, `,"ephemeral-storage":`...)
	b = appendQty(b, res{name: "ephemeral-storage", v: eph})
	if it.fpgas > 0 {
		b = append(b, `,"example.com/fpga":`...)
		b = appendQty(b, res{name: "example.com/fpga", v: it.fpgas})
	}
	b = append(b, `,"hugepages-1Gi":"0","hugepages-2Mi":"0","memory":`...)
	b = appendQty(b, res{name: "memory", v: mem})
	if it.gpus > 0 {
		b = append(b, `,"nvidia.com/gpu":`...)
		b = appendQty(b, res{name: "nvidia.com/gpu", v: it.gpus})
	}
	b = append(b, `,"pods":`...)
	b = appendQty(b, res{name: "pods", v: it.maxPods})
	return append(b, '}')
}

// ---------------------------------------------------------------------------
// Deployments: the base template shared by running and pending pods.

var cpuChoices = []weighted[int64]{{100, 25}, {250, 25}, {500, 20}, {1000, 15}, {2000, 10}, {4000, 4}, {8000, 1}}

var memChoices = []weighted[int64]{
	{128 * mi, 15}, {256 * mi, 20}, {512 * mi, 25}, {1 * gi, 20}, {2 * gi, 10}, {4 * gi, 7}, {8 * gi, 2},
}

// memRes turns bytes into a memory res, sometimes in decimal units as people
// write them ("500M", "1G").
func (g *gen) memRes(v int64) res {
	if g.chance(0.1) {
		switch v {
		case 512 * mi:
			return res{name: "memory", v: 500_000_000, si: true}
		case 1 * gi:
			return res{name: "memory", v: 1_000_000_000, si: true}
		case 2 * gi:
			return res{name: "memory", v: 2_000_000_000, si: true}
		}
	}
	return res{name: "memory", v: v}
}

func (g *gen) newGroup(t *podTemplate, ns *namespace, replicas int) {
	t.reset()
	t.ns = ns
	t.replicas = replicas
	g.groupSeq++
	c1 := components[g.r.IntN(len(components))]
	c2 := components[g.r.IntN(len(components))]
	if c1 == c2 {
		c2 = "svc"
	}
	t.deploy = c1 + "-" + c2 + "-" + strconv.FormatInt(int64(g.groupSeq), 36)
	t.hash = g.randSafe(10)
	t.rsName = t.deploy + "-" + t.hash
	t.rsUID = string(g.appendUID(nil))
	g.clock += 1 + int64(g.r.IntN(300))
	t.created = g.clock
	t.nameOff = t.created
	t.labels = append(t.labels, kv{"app", t.deploy}, kv{"pod-template-hash", t.hash})
	if ns.team != "" {
		t.labels = append(t.labels, kv{"team", ns.team})
	}
	// DefaultTolerationSeconds admission.
	t.tolerations = append(t.tolerations,
		toleration{key: "node.kubernetes.io/not-ready", op: "Exists", effect: "NoExecute", seconds: 300, hasSeconds: true},
		toleration{key: "node.kubernetes.io/unreachable", op: "Exists", effect: "NoExecute", seconds: 300, hasSeconds: true},
	)
	g.pickPriority(t)
}

func (g *gen) pickNamespace() *namespace {
	total := 0
	for _, ns := range namespaces {
		total += ns.w
	}
	x := g.r.IntN(total)
	for i := range namespaces {
		if x < namespaces[i].w {
			return &namespaces[i]
		}
		x -= namespaces[i].w
	}
	return &namespaces[0]
}

func nsByName(name string) *namespace {
	for i := range namespaces {
		if namespaces[i].name == name {
			return &namespaces[i]
		}
	}
	return &namespaces[0]
}

func (g *gen) pickPriority(t *podTemplate) {
	if t.ns.name == "kube-system" {
		t.priorityClass = pick(g.r, []weighted[string]{{"system-cluster-critical", 60}, {"critical", 20}, {"high", 20}})
		return
	}
	cs := []weighted[string]{{"best-effort-batch", 3}, {"low", 15}, {"default", 55}, {"high", 17}, {"critical", 3}, {"", 5}}
	if t.ns.name == "batch" {
		cs[0].w = 40
	}
	t.priorityClass = pick(g.r, cs)
}

// baseContainers gives the template one app container with realistic
// requests (and sometimes limits), plus sometimes a service-mesh sidecar.
// qosRaw allows the odd shapes (limits only, BestEffort).
func (g *gen) baseContainers(t *podTemplate, qosRaw bool) {
	app := container{name: "app", image: "registry.example.com/" + t.ns.name + "/" + t.deploy[:strings.LastIndexByte(t.deploy, '-')] + ":1." + strconv.Itoa(g.r.IntN(40)) + "." + strconv.Itoa(g.r.IntN(10))}
	cpu := pick(g.r, cpuChoices)
	mem := pick(g.r, memChoices)
	style := pick(g.r, []weighted[int]{{0, 30}, {1, 45}, {2, 15}, {3, 5}, {4, 5}})
	if !qosRaw && style >= 3 {
		style = 1
	}
	switch style {
	case 0: // requests only
		app.req = append(app.req, res{name: "cpu", v: cpu}, g.memRes(mem))
	case 1: // burstable: requests and larger limits
		app.req = append(app.req, res{name: "cpu", v: cpu}, g.memRes(mem))
		if g.chance(0.7) {
			app.lim = append(app.lim, res{name: "cpu", v: cpu * 2})
		}
		app.lim = setRes(app.lim, res{name: "memory", v: mem * 2})
	case 2: // guaranteed
		app.req = append(app.req, res{name: "cpu", v: cpu}, res{name: "memory", v: mem})
		app.lim = append(app.lim, res{name: "cpu", v: cpu}, res{name: "memory", v: mem})
	case 3: // limits only: the API server defaults requests from limits
		app.lim = append(app.lim, res{name: "cpu", v: cpu}, g.memRes(mem))
	case 4: // BestEffort
	}
	if g.chance(0.4) {
		app.ports = append(app.ports, port{name: "http", containerPort: 8080})
	}
	t.containers = append(t.containers, app)
	if style != 4 && g.chance(0.2) {
		t.containers = append(t.containers, sidecarContainer())
	}
}

func sidecarContainer() container {
	return container{
		name:  "istio-proxy",
		image: "docker.io/istio/proxyv2:1.20.3",
		req:   []res{{name: "cpu", v: 100}, {name: "memory", v: 128 * mi}},
		lim:   []res{{name: "cpu", v: 2000}, {name: "memory", v: 1 * gi}},
		ports: []port{{name: "http-envoy-prom", containerPort: 15090}},
	}
}

// ---------------------------------------------------------------------------
// Running pods.

func (g *gen) writeRunning() error {
	left := g.cfg.Running
	var target, used float64 // fill mode: cpu to request, cpu requested
	if g.fill {
		left = math.MaxInt
		for i := range g.nodes {
			if n := &g.nodes[i]; !n.cordoned && n.cond == condNone {
				target += g.prof.fill * float64(n.it().allocCPU)
			}
		}
	}
	t := &g.tpl
	misses := 0
	for left > 0 {
		if g.fill && (used >= target || misses > 50) {
			break
		}
		reps := min(g.replicas(), left)
		left -= reps
		// The deployment lives in the pool of a random node, so pools fill in
		// proportion to their size and dedicated pools host their team.
		home := &g.nodes[g.r.IntN(len(g.nodes))]
		pl := &pools[home.pool]
		ns := g.pickNamespace()
		if pl.team != "" && g.chance(0.8) {
			ns = nsByName(pl.team)
		}
		g.newGroup(t, ns, reps)
		if g.prof.runPrio != nil {
			t.priorityClass = pick(g.r, g.prof.runPrio)
		}
		g.baseContainers(t, false)
		if g.chance(0.05) {
			t.main().req, t.main().lim = t.main().req[:0], t.main().lim[:0] // BestEffort
		}
		gpus := int64(0)
		if home.pool == pGPU && g.chance(0.6) {
			gpus = pick(g.r, []weighted[int64]{{1, 50}, {2, 25}, {4, 15}, {8, 10}})
			m := t.main()
			m.req = setRes(m.req, res{name: "nvidia.com/gpu", v: gpus})
			m.lim = setRes(m.lim, res{name: "nvidia.com/gpu", v: gpus})
		}
		var rules placeRules
		if g.prof.runAxes != nil {
			left += reps
			rules = g.applyRunAxes(t)
			reps = t.replicas
			left -= reps
		}
		cpu, mem, _ := effectiveRequests(t)
		g.renderTemplate(t, true)
		placed := 0
		named := 0 // replica indexes used (pod names)
		for i := 0; i < reps; i++ {
			if rules.any() {
				// Placed honouring the pods' spread and anti-affinity rules;
				// when none is left, the other replicas go to later
				// deployments.
				ni := g.placeRel(&rules, home.pool, cpu, mem, gpus)
				if ni < 0 {
					left += reps - i
					g.rel.runShort++
					break
				}
				g.usePod(ni, cpu, mem, gpus)
				g.rel.usePod(g, ni)
				g.writePod(t, i, &g.nodes[ni])
				placed++
				named = i + 1
				continue
			}
			ni := g.place(home.pool, cpu, mem, gpus)
			if ni < 0 && g.fill {
				misses++ // full for this size: the deployment runs short
				break
			}
			if ni < 0 {
				// Nothing fits the requests: run it BestEffort-sized somewhere
				// with a free pod slot (keeps the snapshot honest).
				ni = g.place(home.pool, 0, 0, 0)
				if ni < 0 {
					return fmt.Errorf("bench: %d running pods do not fit on %d nodes (pod slots exhausted)", g.cfg.Running, len(g.nodes))
				}
				// Re-render this one pod without requests.
				save := g.rt
				g.rt = rendered{}
				saved := slices.Clone(t.containers)
				for j := range t.containers {
					t.containers[j].req, t.containers[j].lim = nil, nil
				}
				g.renderTemplate(t, true)
				g.writePod(t, i, &g.nodes[ni])
				named = i + 1
				t.containers = saved
				g.rt = save
				g.usePod(ni, 0, 0, 0)
				continue
			}
			g.usePod(ni, cpu, mem, gpus)
			g.writePod(t, i, &g.nodes[ni])
			placed++
			named = i + 1
			used += float64(cpu)
		}
		if placed > 0 && g.prof.pdbShare > 0 && g.chance(g.prof.pdbShare) {
			g.writePDB(t, placed)
		}
		if g.prof.runAxes != nil {
			g.runningDone(t, reps, placed, named)
		}
		if g.err != nil {
			return g.err
		}
	}
	return nil
}

// writePDB writes a PodDisruptionBudget over t's pods (healthy of them
// running), with the status a live cluster's disruption controller would
// give it.
func (g *gen) writePDB(t *podTemplate, healthy int) {
	var spec string
	desired := 0
	switch x := g.r.IntN(10); {
	case x < 3: // minAvailable: all but one, or all (no disruption allowed)
		desired = healthy - 1
		if g.chance(0.3) {
			desired = healthy
		}
		spec = `"minAvailable":` + strconv.Itoa(desired)
	case x < 6:
		pct := pick(g.r, []weighted[int]{{50, 1}, {80, 2}, {90, 1}})
		desired = (pct*healthy + 99) / 100
		spec = `"minAvailable":"` + strconv.Itoa(pct) + `%"`
	case x < 8:
		desired = healthy - 1
		spec = `"maxUnavailable":1`
	default:
		pct := pick(g.r, []weighted[int]{{10, 2}, {25, 1}})
		desired = healthy - (pct*healthy+99)/100
		spec = `"maxUnavailable":"` + strconv.Itoa(pct) + `%"`
	}
	desired = max(desired, 0)
	allowed := max(healthy-desired, 0)
	g.beginItem()
	b := append(g.buf, `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":`...)
	b = appendStr(b, t.deploy)
	b = append(b, `,"namespace":`...)
	b = appendStr(b, t.ns.name)
	b = append(b, `},"spec":{`...)
	b = append(b, spec...)
	b = append(b, `,"selector":{"matchLabels":{"app":`...)
	b = appendStr(b, t.deploy)
	b = append(b, `}}},"status":{"currentHealthy":`...)
	b = strconv.AppendInt(b, int64(healthy), 10)
	b = append(b, `,"desiredHealthy":`...)
	b = strconv.AppendInt(b, int64(desired), 10)
	b = append(b, `,"disruptionsAllowed":`...)
	b = strconv.AppendInt(b, int64(allowed), 10)
	b = append(b, `,"expectedPods":`...)
	b = strconv.AppendInt(b, int64(healthy), 10)
	b = append(b, `}}`...)
	g.buf = b
	g.endItem()
}

func (g *gen) fits(ni int, cpu, mem, gpus int64) bool {
	n := &g.nodes[ni]
	it := n.it()
	return int64(n.usedPods) < it.maxPods && n.usedCPU+cpu <= it.allocCPU &&
		n.usedMem+mem <= it.allocMem && n.usedGPU+gpus <= it.gpus
}

func (g *gen) usePod(ni int, cpu, mem, gpus int64) {
	n := &g.nodes[ni]
	n.usedPods++
	n.usedCPU += cpu
	n.usedMem += mem
	n.usedGPU += gpus
}

// place finds a node with room: random tries in the home pool, then random
// tries anywhere (not for GPU pods), then a scan. -1 when none fits.
func (g *gen) place(home uint8, cpu, mem, gpus int64) int {
	pn := g.poolNodes[home]
	for try := 0; try < 16; try++ {
		if ni := int(pn[g.r.IntN(len(pn))]); g.fits(ni, cpu, mem, gpus) {
			return ni
		}
	}
	if gpus == 0 {
		for try := 0; try < 16; try++ {
			if ni := g.r.IntN(len(g.nodes)); g.fits(ni, cpu, mem, gpus) {
				return ni
			}
		}
	}
	// Usage only grows, so once a scan found no room for a request, no
	// request at least as large can fit later: skip the O(nodes) scan.
	f := &g.noRoom
	if f.valid && cpu >= f.cpu && mem >= f.mem && gpus >= f.gpus {
		return -1
	}
	start := g.r.IntN(len(g.nodes))
	for k := range g.nodes {
		ni := (start + k) % len(g.nodes)
		if g.fits(ni, cpu, mem, gpus) {
			return ni
		}
	}
	if !f.valid || cpu <= f.cpu && mem <= f.mem && gpus <= f.gpus {
		*f = noRoom{true, cpu, mem, gpus}
	}
	return -1
}

// noRoom remembers the smallest request a full scan found no node for.
type noRoom struct {
	valid          bool
	cpu, mem, gpus int64
}

// effectiveRequests is the pod's request as the scheduler sees it:
// max(sum of containers + sidecars, largest init container + sidecars
// started before it) + overhead, with limits standing in for missing
// requests. ext is the extended-resource total (gpus).
func effectiveRequests(t *podTemplate) (cpu, mem, gpus int64) {
	one := func(c *container, name string) int64 {
		if v, ok := getRes(c.req, name); ok {
			return v
		}
		v, _ := getRes(c.lim, name)
		return v
	}
	var r [3]int64
	for i, name := range [3]string{"cpu", "memory", "nvidia.com/gpu"} {
		var sum, side, initMax int64
		for j := range t.initContainers {
			c := &t.initContainers[j]
			if c.restartAlways {
				side += one(c, name)
			} else {
				initMax = max(initMax, side+one(c, name))
			}
		}
		for j := range t.containers {
			sum += one(&t.containers[j], name)
		}
		ov, _ := getRes(t.overhead, name)
		r[i] = max(sum+side, initMax) + ov
	}
	return r[0], r[1], r[2]
}

// ---------------------------------------------------------------------------
// Pending pods.

func (g *gen) writePending() {
	left := g.cfg.Pods
	if g.prof.tight > 0 {
		var freeCPU, freeMem float64
		for i := range g.nodes {
			n := &g.nodes[i]
			if n.cordoned || n.cond != condNone {
				continue
			}
			it := n.it()
			freeCPU += float64(it.allocCPU - n.usedCPU)
			freeMem += float64(it.allocMem - n.usedMem)
		}
		g.budgetCPU = g.prof.tight * freeCPU
		g.budgetMem = g.prof.tight * freeMem
		g.meanCPU = g.budgetCPU / float64(max(left, 1))
		g.meanMem = g.budgetMem / float64(max(left, 1))
	}
	g.pendingLeft = left
	t := &g.tpl
	axes := g.prof.axes
	nforced := 0
	for _, a := range axes {
		nforced += len(a)
	}
	for gi := 0; left > 0 && g.err == nil; gi++ {
		// Early even-numbered deployments walk through every feature of
		// every axis (one at a time, the other axes at their first, plain
		// feature), so that even a small output shows all of them.
		forced := gi%2 == 0 && gi/2 < nforced
		fAxis, fIdx := -1, gi/2
		if forced {
			for fAxis = 0; fIdx >= len(axes[fAxis]); fAxis++ {
				fIdx -= len(axes[fAxis])
			}
		}
		if !forced && g.prof.scaleUp > 0 && len(g.rel.run) > 0 && g.chance(g.prof.scaleUp) {
			left -= g.writeScaleUp(left)
			g.pendingLeft = left
			continue
		}
		var reps int
		if g.prof.replicas != nil {
			reps = g.prof.replicas(g)
		} else {
			reps = g.replicas()
		}
		if forced {
			reps = min(reps, 3)
		}
		if g.prof.tight > 0 {
			// Keep any one deployment a small part of a tight budget.
			reps = min(reps, max(g.cfg.Pods/20, 1))
		}
		reps = min(reps, left)
		g.newGroup(t, g.pickNamespace(), reps)
		if g.prof.pendPrio != nil {
			t.priorityClass = pick(g.r, g.prof.pendPrio)
		}
		g.baseContainers(t, true)
		if g.chance(0.1) {
			t.initContainers = append(t.initContainers, container{
				name: "init-config", image: "registry.example.com/platform/config-init:2.3.1",
				req: []res{{name: "cpu", v: 50}, {name: "memory", v: 64 * mi}},
			})
		}
		for ai, axis := range axes {
			var f *feature
			switch {
			case ai == fAxis:
				f = &axis[fIdx]
			case forced:
				f = &axis[0]
			default:
				f = pickFeature(g.r, axis)
			}
			if f.apply != nil {
				f.apply(g, t)
			}
		}
		reps = t.replicas // a feature may shrink the deployment
		// Pods larger than any node are extra: they are not in the budget.
		if cpu, mem, _ := effectiveRequests(t); g.prof.tight > 0 && cpu <= g.maxAllocCPU && mem <= g.maxAllocMem {
			g.budgetCPU -= float64(cpu) * float64(reps)
			g.budgetMem -= float64(mem) * float64(reps)
		}
		g.renderTemplate(t, false)
		for i := 0; i < reps; i++ {
			g.writePod(t, i, nil)
		}
		if g.prof.runAxes != nil {
			g.pendingDone(t, reps)
		}
		left -= reps
		g.pendingLeft = left
	}
}

// ---------------------------------------------------------------------------
// Taint features.

// ---------------------------------------------------------------------------
// Affinity features.

// ---------------------------------------------------------------------------
// Resource features.

// ---------------------------------------------------------------------------
// Rendering pods.

// renderTemplate pre-renders the parts shared by all pods of the template.
func (g *gen) renderTemplate(t *podTemplate, running bool) {
	rt := &g.rt

	b := rt.metaTail[:0]
	b = append(b, `,"creationTimestamp":"`...)
	b = appendTime(b, t.created)
	b = append(b, `","labels":`...)
	b = appendKVs(b, t.labels)
	b = append(b, `,"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":`...)
	b = appendStr(b, t.rsName)
	b = append(b, `,"uid":`...)
	b = appendStr(b, t.rsUID)
	b = append(b, `,"controller":true,"blockOwnerDeletion":true}]}`...)
	rt.metaTail = b

	b = rt.specA[:0]
	hasPodAff := len(t.affReq)+len(t.antiReq)+len(t.affPref)+len(t.antiPref) > 0
	if hasPodAff && len(t.required) == 0 && len(t.preferred) == 0 {
		b = append(b, `"affinity":{`...)
		b = g.appendPodAffinity(b, t, false)
		b = append(b, `},`...)
	}
	if len(t.required) > 0 || len(t.preferred) > 0 {
		b = append(b, `"affinity":`...)
		b = appendNodeAffinity(b, t.required, t.preferred)
		if hasPodAff {
			b = g.appendPodAffinity(b, t, true)
		}
		b = append(b, `},`...)
	}
	b = append(b, `"containers":[`...)
	for i := range t.containers {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendContainer(b, &t.containers[i])
	}
	b = append(b, `],"dnsPolicy":"ClusterFirst","enableServiceLinks":true`...)
	if len(t.initContainers) > 0 {
		b = append(b, `,"initContainers":[`...)
		for i := range t.initContainers {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendContainer(b, &t.initContainers[i])
		}
		b = append(b, ']')
	}
	rt.specA = b

	b = rt.specB[:0]
	if len(t.nodeSelector) > 0 {
		b = append(b, `,"nodeSelector":`...)
		b = appendKVs(b, t.nodeSelector)
	}
	if len(t.overhead) > 0 {
		b = append(b, `,"overhead":`...)
		b = appendResList(b, t.overhead)
	}
	if pc := findPriorityClass(t.priorityClass); pc != nil {
		b = appendPriority(b, pc)
		b = append(b, `,"priorityClassName":`...)
		b = appendStr(b, pc.name)
	}
	b = append(b, `,"restartPolicy":"Always"`...)
	if t.runtimeClass != "" {
		b = append(b, `,"runtimeClassName":`...)
		b = appendStr(b, t.runtimeClass)
	}
	b = append(b, `,"schedulerName":"default-scheduler","securityContext":{},"serviceAccountName":"default","terminationGracePeriodSeconds":30`...)
	rt.specB = b

	b = rt.tols[:0]
	for i := range t.tolerations {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendToleration(b, &t.tolerations[i])
	}
	rt.tols = b
	rt.spread = g.appendSpread(rt.spread[:0], t)
	rt.qos = qosClass(t)
}

// writePod writes replica i of t; nd is the node for a running pod, nil for
// a pending one.
func (g *gen) writePod(t *podTemplate, i int, nd *node) {
	rt := &g.rt
	g.beginItem()
	name := append(g.nb[:0], t.rsName...)
	name = append(name, '-')
	name = appendSuffix(name, i, uint64(t.nameOff))
	g.nb = name

	b := append(g.buf, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":`...)
	b = appendStr(b, string(name))
	b = append(b, `,"generateName":"`...)
	b = append(b, t.rsName...)
	b = append(b, `-","namespace":`...)
	b = appendStr(b, t.ns.name)
	b = append(b, `,"uid":"`...)
	b = g.appendUID(b)
	b = append(b, '"')
	b = append(b, rt.metaTail...)
	b = append(b, `,"spec":{`...)
	b = append(b, rt.specA...)
	if nd != nil {
		b = append(b, `,"nodeName":`...)
		b = appendStr(b, nd.name)
	}
	b = append(b, rt.specB...)
	nodeTols := false
	if nd != nil {
		for _, tn := range nd.taints {
			if tn.effect != "PreferNoSchedule" {
				nodeTols = true
			}
		}
	}
	if len(rt.tols) > 0 || nodeTols {
		b = append(b, `,"tolerations":[`...)
		b = append(b, rt.tols...)
		if nodeTols {
			sep := len(rt.tols) > 0
			for k := range nd.taints {
				tn := &nd.taints[k]
				if tn.effect == "PreferNoSchedule" {
					continue
				}
				if sep {
					b = append(b, ',')
				}
				sep = true
				tl := toleration{key: tn.key, op: "Equal", value: tn.value, effect: tn.effect}
				if strings.HasPrefix(tn.key, "node.kubernetes.io/") {
					tl = toleration{key: tn.key, op: "Exists", effect: tn.effect}
				}
				b = appendToleration(b, &tl)
			}
		}
		b = append(b, ']')
	}
	b = append(b, rt.spread...)
	b = append(b, `},"status":{`...)
	if nd != nil {
		b = append(b, `"hostIP":"`...)
		b = appendIP(b, nd.ip)
		b = append(b, `","phase":"Running","qosClass":"`...)
		b = append(b, rt.qos...)
		b = append(b, `","startTime":"`...)
		b = appendTime(b, t.created+5)
		b = append(b, `"}}`...)
	} else {
		b = append(b, `"phase":"Pending","qosClass":"`...)
		b = append(b, rt.qos...)
		b = append(b, `"}}`...)
	}
	g.buf = b
	g.endItem()
}

// Validate reports whether Generate accepts cfg, before it writes anything:
// a known profile, counts in range, PendingAs for the realistic profile only.
func (cfg GenConfig) Validate() error {
	if cfg.Profile == "" {
		cfg.Profile = "mixed"
	}
	_, err := cfg.check()
	return err
}

// check validates cfg (its Profile set) and returns its profile.
func (cfg GenConfig) check() (*profile, error) {
	var prof *profile
	for i := range profiles {
		if profiles[i].name == cfg.Profile {
			prof = &profiles[i]
		}
	}
	if cfg.Profile == realisticName {
		prof = &realisticProfile
	}
	switch {
	case prof == nil:
		return nil, fmt.Errorf("unknown profile %q (want one of %s)", cfg.Profile, strings.Join(Profiles(), ", "))
	case cfg.Nodes < 0 || cfg.Pods < 0 || cfg.Running < -1:
		return nil, errors.New("negative Nodes, Pods or Running")
	case cfg.Nodes > maxNodes:
		return nil, fmt.Errorf("at most %d nodes", maxNodes)
	case cfg.Zones < 0 || cfg.Zones > maxZones:
		return nil, fmt.Errorf("Zones must be 0 (profile default) to %d", maxZones)
	case cfg.PendingAs != "" && cfg.PendingAs != PendingAsPods && prof != &realisticProfile:
		return nil, fmt.Errorf("PendingAs %q: only the %s profile writes pending pods as workloads", cfg.PendingAs, realisticName)
	case cfg.Running > 0 && cfg.Nodes == 0:
		return nil, errors.New("running pods need at least one node")
	}
	return prof, nil
}
