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
	"time"
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

const region = "us-east-1"

var zones = []weighted[string]{
	{"us-east-1a", 30}, {"us-east-1b", 25}, {"us-east-1c", 20}, {"us-east-1d", 15}, {"us-east-1e", 10},
}

type instanceType struct {
	name       string
	cores      int64
	memGiB     int64
	gpus       int64
	gpuProduct string
	fpgas      int64
	arch       string
	onprem     bool
	maxPods    int64

	// derived by init
	capCPU, allocCPU int64 // millicores
	capMem, allocMem int64 // bytes
}

var instanceTypes = []instanceType{
	{name: "m5.xlarge", cores: 4, memGiB: 16},
	{name: "m5.2xlarge", cores: 8, memGiB: 32},
	{name: "m5.4xlarge", cores: 16, memGiB: 64},
	{name: "m5.8xlarge", cores: 32, memGiB: 128},
	{name: "m5.16xlarge", cores: 64, memGiB: 256},
	{name: "c5.2xlarge", cores: 8, memGiB: 16},
	{name: "c5.4xlarge", cores: 16, memGiB: 32},
	{name: "c5.9xlarge", cores: 36, memGiB: 72},
	{name: "r5.2xlarge", cores: 8, memGiB: 64},
	{name: "r5.4xlarge", cores: 16, memGiB: 128},
	{name: "r5.8xlarge", cores: 32, memGiB: 256},
	{name: "m6g.2xlarge", cores: 8, memGiB: 32, arch: "arm64"},
	{name: "m6g.4xlarge", cores: 16, memGiB: 64, arch: "arm64"},
	{name: "p3.16xlarge", cores: 64, memGiB: 488, gpus: 8, gpuProduct: "Tesla-V100-SXM2-16GB"},
	{name: "p4d.24xlarge", cores: 96, memGiB: 1152, gpus: 8, gpuProduct: "NVIDIA-A100-SXM4-40GB"},
	{name: "bm.48c192g", cores: 48, memGiB: 192, fpgas: 2, onprem: true},
}

// Indices into instanceTypes, for the pool tables.
const (
	tM5x = iota
	tM52x
	tM54x
	tM58x
	tM516x
	tC52x
	tC54x
	tC59x
	tR52x
	tR54x
	tR58x
	tM6g2x
	tM6g4x
	tP316x
	tP4d
	tBM48
)

func init() {
	for i := range instanceTypes {
		it := &instanceTypes[i]
		if it.arch == "" {
			it.arch = "amd64"
		}
		it.maxPods = 110
		if it.cores >= 32 && !it.onprem {
			it.maxPods = 250
		}
		if it.onprem {
			// Hand-configured kubelets: whole cores and Gi.
			it.capCPU = it.cores * 1000
			it.allocCPU = it.capCPU - 1000
			it.capMem = it.memGiB << 30
			it.allocMem = (it.memGiB - 4) << 30
			continue
		}
		// EKS kube-reserved for cpu: 6% of the first core, 1% of the second,
		// 0.5% of cores 3-4, 0.25% of the rest (8 cores -> 7910m).
		it.capCPU = it.cores * 1000
		it.allocCPU = it.capCPU - (80 + (it.cores-4)*5/2)
		// Memory: what the hypervisor leaves, in Ki, minus kube-reserved
		// (255Mi + 11Mi per pod) and the 100Mi eviction threshold.
		capKi := it.memGiB<<20 - it.memGiB*15013 - 37011
		if capKi%1024 == 0 {
			capKi -= 3
		}
		it.capMem = capKi << 10
		it.allocMem = it.capMem - (255+11*it.maxPods+100)<<20
	}
}

type taint struct {
	key, value, effect string
	timeAdded          string // set on NoExecute taints by the node controller
}

type kv struct{ k, v string }

type pool struct {
	name   string
	types  []weighted[int]
	taints []taint
	labels []kv
	team   string // namespace whose workloads live here ("" = anyone)
	zones  []int  // zone weights; nil = the global ones
	spot   bool
}

// Indices into pools.
const (
	pGeneral = iota
	pCompute
	pHighmem
	pArm
	pGPU
	pPayments
	pSearch
	pML
	pBatch
	pSpot
	pOnprem
	numPools
)

var pools = [numPools]pool{
	pGeneral: {name: "general", types: []weighted[int]{{tM5x, 15}, {tM52x, 30}, {tM54x, 30}, {tM58x, 15}, {tM516x, 10}},
		labels: []kv{{"node-role.kubernetes.io/worker", ""}}},
	pCompute: {name: "compute", types: []weighted[int]{{tC52x, 30}, {tC54x, 40}, {tC59x, 30}}},
	pHighmem: {name: "highmem", types: []weighted[int]{{tR52x, 30}, {tR54x, 40}, {tR58x, 30}}},
	pArm: {name: "arm", types: []weighted[int]{{tM6g2x, 50}, {tM6g4x, 50}},
		taints: []taint{{key: "kubernetes.io/arch", value: "arm64", effect: "NoSchedule"}}},
	pGPU: {name: "gpu", types: []weighted[int]{{tP316x, 70}, {tP4d, 30}},
		taints: []taint{{key: "nvidia.com/gpu", value: "present", effect: "NoSchedule"}},
		labels: []kv{{"nvidia.com/gpu.present", "true"}},
		zones:  []int{50, 50, 0, 0, 0}},
	pPayments: {name: "payments", types: []weighted[int]{{tM52x, 50}, {tM54x, 50}},
		taints: []taint{{key: "dedicated", value: "payments", effect: "NoSchedule"}},
		labels: []kv{{"dedicated", "payments"}}, team: "payments"},
	pSearch: {name: "search", types: []weighted[int]{{tR54x, 60}, {tR58x, 40}},
		taints: []taint{{key: "dedicated", value: "search", effect: "NoSchedule"}},
		labels: []kv{{"dedicated", "search"}}, team: "search"},
	pML: {name: "ml", types: []weighted[int]{{tC59x, 60}, {tM58x, 40}},
		taints: []taint{{key: "dedicated", value: "ml", effect: "NoSchedule"}},
		labels: []kv{{"dedicated", "ml"}}, team: "ml"},
	pBatch: {name: "batch", types: []weighted[int]{{tC54x, 50}, {tC59x, 50}},
		taints: []taint{{key: "workload", value: "batch", effect: "NoExecute"}},
		labels: []kv{{"node.kubernetes.io/lifecycle", "spot"}, {"workload", "batch"}}, team: "batch", spot: true},
	pSpot: {name: "spot", types: []weighted[int]{{tM52x, 40}, {tM54x, 60}},
		taints: []taint{{key: "spot", value: "true", effect: "PreferNoSchedule"}},
		labels: []kv{{"node.kubernetes.io/lifecycle", "spot"}}, spot: true},
	pOnprem: {name: "onprem", types: []weighted[int]{{tBM48, 100}},
		labels: []kv{{"kplace.io/datacenter", "dc1"}},
		zones:  []int{0, 0, 0, 60, 40}},
}

// dedicatedTeams are the values of the dedicated=<team>:NoSchedule taints.
var dedicatedTeams = []string{"payments", "search", "ml"}

type namespace struct {
	name, team string
	w          int
}

var namespaces = []namespace{
	{"default", "", 4},
	{"kube-system", "platform", 4},
	{"monitoring", "platform", 5},
	{"web", "web", 22},
	{"payments", "payments", 14},
	{"search", "search", 14},
	{"ml", "ml", 10},
	{"data", "data", 12},
	{"batch", "batch", 15},
}

type priorityClass struct {
	name          string
	value         int32
	globalDefault bool
	never         bool // preemptionPolicy Never
	desc          string
	// only names the profile that writes the class (every profile when
	// empty): classes added for one profile leave the others' bytes alone.
	only string
}

var priorityClasses = []priorityClass{
	{"best-effort-batch", 10, false, true, "Batch work that never preempts.", ""},
	{"low", 100, false, false, "Low priority workloads.", ""},
	{"default", 1000, true, false, "Default priority for all pods.", ""},
	{"high", 10000, false, false, "Customer-facing services.", ""},
	{"critical", 1000000, false, false, "Business-critical services.", ""},
	{"urgent-batch", 500000, false, true, "Urgent batch work: scheduled ahead of services, never preempts.", "preemption"},
	{"scavenger", -10, false, false, "Work that runs only on spare capacity.", "preemption"},
	{"system-cluster-critical", 2000000000, false, false, "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.", ""},
	{"system-node-critical", 2000001000, false, false, "Used for system critical pods that must not be moved from their current node.", ""},
}

// appendPriority writes `,"preemptionPolicy":...,"priority":N`, what the
// Priority admission gives a pod of class pc.
func appendPriority(b []byte, pc *priorityClass) []byte {
	b = append(b, `,"preemptionPolicy":`...)
	if pc.never {
		b = appendStr(b, "Never")
	} else {
		b = appendStr(b, "PreemptLowerPriority")
	}
	b = append(b, `,"priority":`...)
	return strconv.AppendInt(b, int64(pc.value), 10)
}

func findPriorityClass(name string) *priorityClass {
	for i := range priorityClasses {
		if priorityClasses[i].name == name {
			return &priorityClasses[i]
		}
	}
	return nil
}

var components = []string{
	"api", "web", "worker", "frontend", "backend", "gateway", "cache", "indexer",
	"ingest", "auth", "billing", "checkout", "search", "ranker", "notifier",
	"exporter", "consumer", "producer", "cron", "trainer", "serving", "etl",
}

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

type feature struct {
	name   string
	weight int
	apply  func(g *gen, t *podTemplate) // nil: leave the template as it is
}

type profile struct {
	name  string
	pools []int // pool weights, indexed like pools
	axes  [][]feature
	// tight, when non-zero, sizes pending pods so that their total cpu and
	// memory requests are tight times the free capacity of schedulable nodes.
	tight float64
	// fill, when non-zero and GenConfig.Running is -1, adds running pods
	// until they request that share of the schedulable nodes' cpu.
	fill float64
	// runPrio and pendPrio, when set, replace the usual priority mix of
	// running and pending deployments.
	runPrio, pendPrio []weighted[string]
	// pdbShare is the share of running deployments with a
	// PodDisruptionBudget.
	pdbShare float64

	// The fields below serve the pod topology spread and pod
	// (anti-)affinity profiles (gen_podrel.go); zero values leave the
	// other profiles' output as it was.

	// zonesFlag: the profile honours GenConfig.Zones.
	zonesFlag bool
	// evenZones puts node i in zone i mod the number of zones.
	evenZones bool
	// noZoneShare is the share of nodes without zone labels.
	noZoneShare float64
	// nsEnv gives namespaces an env label (for namespaceSelector terms).
	nsEnv bool
	// runAxes are drawn for running deployments, whose pods are then
	// placed honouring their spread and anti-affinity rules.
	runAxes [][]feature
	// scaleUp is the share of pending deployments that continue a running
	// deployment (more replicas of its ReplicaSet, or a rollout: a new
	// ReplicaSet of the same deployment with another pod-template-hash).
	scaleUp float64
	// rsShare and svcShare are the shares of deployments without spread
	// constraints that get a ReplicaSet object and a Service (selectors
	// for kube-scheduler's default spreading).
	rsShare, svcShare float64
	// replicas, when set, draws pending deployment sizes instead of
	// gen.replicas.
	replicas func(g *gen) int
	// runPerNode, when set, is the default number of running pods per
	// node (else DefaultRunning).
	runPerNode int
}

var taintFeatures = []feature{
	{"tol-default-only", 14, nil},
	{"tol-none", 5, (*gen).tolNone},
	{"tol-dedicated-equal", 14, (*gen).tolDedicatedEqual},
	{"tol-dedicated-no-operator", 6, (*gen).tolDedicatedNoOperator},
	{"tol-dedicated-empty-effect", 6, (*gen).tolDedicatedEmptyEffect},
	{"tol-dedicated-exists", 8, (*gen).tolDedicatedExists},
	{"tol-everything", 1, (*gen).tolEverything},
	{"tol-all-noexecute", 1, (*gen).tolAllNoExecute},
	{"tol-batch-noexecute", 8, (*gen).tolBatch},
	{"tol-arm", 6, (*gen).tolArm},
	{"tol-spot", 5, (*gen).tolSpot},
	{"tol-gpu", 8, (*gen).tolGPU},
	{"tol-wrong-value", 3, (*gen).tolWrongValue},
	{"tol-wrong-effect", 2, (*gen).tolWrongEffect},
	{"tol-multi", 6, (*gen).tolMulti},
	{"tol-node-conditions", 2, (*gen).tolNodeConditions},
}

var affinityFeatures = []feature{
	{"aff-none", 10, nil},
	{"sel-zone", 8, (*gen).selZone},
	{"sel-instance-type", 6, (*gen).selInstanceType},
	{"sel-pool", 6, (*gen).selPool},
	{"sel-pool-tolerated", 3, (*gen).selPoolTolerated},
	{"sel-hostname", 1, (*gen).selHostname},
	{"sel-no-match", 2, (*gen).selNoMatch},
	{"req-in", 8, (*gen).reqIn},
	{"req-notin", 6, (*gen).reqNotIn},
	{"req-exists", 4, (*gen).reqExists},
	{"req-doesnotexist", 4, (*gen).reqDoesNotExist},
	{"req-gt", 4, (*gen).reqGt},
	{"req-lt", 4, (*gen).reqLt},
	{"req-range", 3, (*gen).reqRange},
	{"req-or-terms", 6, (*gen).reqOrTerms},
	{"req-match-fields", 2, (*gen).reqMatchFields},
	{"req-no-match", 2, (*gen).reqNoMatch},
	{"sel-and-req", 3, (*gen).selAndReq},
}

var preferredFeatures = []feature{
	{"pref-none", 55, nil},
	{"pref-terms", 45, (*gen).prefTerms},
}

var tightSizeFeatures = []feature{
	{"size-scaled", 890, (*gen).sizeScaled},
	{"size-too-big", 3, (*gen).sizeTooBig},
	{"size-gpu", 50, (*gen).sizeGPU},
	{"size-fpga", 20, (*gen).sizeFPGA},
	{"size-unknown-extended", 5, (*gen).sizeUnknownExtended},
}

var shapeFeatures = []feature{
	{"shape-plain", 55, nil},
	{"shape-host-port", 5, (*gen).shapeHostPort},
	{"shape-init", 8, (*gen).shapeInit},
	{"shape-sidecar-init", 5, (*gen).shapeSidecarInit},
	{"shape-overhead", 3, (*gen).shapeOverhead},
	{"shape-limits-only", 6, (*gen).shapeLimitsOnly},
	{"shape-best-effort", 5, (*gen).shapeBestEffort},
	{"shape-ephemeral", 5, (*gen).shapeEphemeral},
	{"shape-multi-container", 5, (*gen).shapeMultiContainer},
}

var mixedSizeFeatures = []feature{
	{"size-base", 930, nil},
	{"size-too-big", 3, (*gen).sizeTooBig},
	{"size-gpu", 40, (*gen).sizeGPU},
	{"size-fpga", 20, (*gen).sizeFPGA},
	{"size-unknown-extended", 5, (*gen).sizeUnknownExtended},
}

func withNone(fs []feature, noneWeight int) []feature {
	out := []feature{{"none", noneWeight, nil}}
	for _, f := range fs {
		if f.apply != nil {
			out = append(out, f)
		}
	}
	return out
}

// profiles, in the order Profiles reports them:
//
//   - taints: about two thirds of the nodes are in NoSchedule/NoExecute
//     tainted pools (dedicated=<team>, workload=batch:NoExecute, arm64, GPU),
//     plus a spot pool with PreferNoSchedule. Pending pods tolerate in every
//     form: Equal with value, no operator, empty effect, Exists with a key,
//     Exists with no key (rare), tolerationSeconds on NoExecute, wrong value
//     or effect; GPU pods request nvidia.com/gpu; some tolerate nothing.
//   - affinity: mostly untainted pools. nodeSelector on zone, instance type,
//     pool, hostname; required node affinity with In, NotIn, Exists,
//     DoesNotExist, Gt, Lt, ORed terms and matchFields on metadata.name;
//     preferred terms weighted 1..100; some selectors match no node.
//   - resources: a tight cluster: pending requests total about 1.1x the
//     free cpu and memory of schedulable nodes (pods larger than any node
//     not counted), with a wide spread of sizes, a few pods larger than any
//     node, GPUs, FPGAs, an unknown extended resource, hostPorts 8080/9090,
//     init containers, native sidecars, pod overhead, limits-only and
//     BestEffort pods.
//   - mixed: every pool, and each deployment draws a taint feature, an
//     affinity feature and a resource feature (mostly "none").
//   - spread: the mixed cluster (3% of nodes without zone labels) where most
//     deployments, running and pending, carry topologySpreadConstraints:
//     zone and hostname keys, maxSkew 1..3, DoNotSchedule and
//     ScheduleAnyway, minDomains (sometimes more than there are zones),
//     matchLabelKeys [pod-template-hash] (merged into the selector as the
//     API server does), nodeAffinityPolicy Ignore, nodeTaintsPolicy Honor,
//     selectors that miss the pod's own labels; nodeSelectors, node
//     affinity and tolerations beside them. A third of the pending
//     deployments scale up or roll out a running one. Deployments without
//     constraints often have a ReplicaSet object and a Service (selectors
//     for kube-scheduler's default spreading).
//   - anti-affinity: required pod anti-affinity on hostname (one replica
//     per node) and zone, required pod affinity to running or pending
//     deployments and to the deployment itself (the first pod of a group),
//     preferred terms with weights, namespaces lists and namespaceSelectors
//     (namespaces carry team and env labels), matchLabelKeys and
//     mismatchLabelKeys (merged). Running pods carry anti-affinity too.
//   - spread-bench: nodes evenly in GenConfig.Zones zones (default 5),
//     lightly loaded; a few hundred pending deployments whose every pod has
//     two DoNotSchedule constraints on its app label: zone maxSkew 1 and
//     hostname maxSkew 1 (sometimes 2). Almost every pod fits.
var profiles = []profile{
	{
		name: "taints",
		//     gen cmp mem arm gpu pay sea ml bat spot onp
		pools: []int{15, 5, 5, 10, 8, 12, 12, 10, 13, 10, 0},
		axes:  [][]feature{taintFeatures},
	},
	{
		name:  "affinity",
		pools: []int{40, 15, 12, 5, 3, 3, 3, 2, 2, 7, 8},
		axes:  [][]feature{affinityFeatures, preferredFeatures},
	},
	{
		name:  "resources",
		pools: []int{50, 15, 15, 0, 5, 0, 0, 0, 0, 5, 10},
		axes:  [][]feature{tightSizeFeatures, shapeFeatures},
		tight: 1.1,
	},
	{
		name:     "preemption",
		pools:    []int{50, 15, 15, 0, 0, 0, 0, 0, 0, 10, 10},
		axes:     [][]feature{withNone(affinityFeatures, 80), shapeFeatures},
		fill:     0.95,
		runPrio:  []weighted[string]{{"best-effort-batch", 15}, {"low", 45}, {"default", 40}},
		pendPrio: []weighted[string]{{"scavenger", 5}, {"best-effort-batch", 5}, {"low", 10}, {"default", 20}, {"high", 35}, {"urgent-batch", 15}, {"critical", 10}},
		pdbShare: 0.3,
	},
	{
		name:     "preemption-heavy",
		pools:    []int{50, 15, 15, 0, 0, 0, 0, 0, 0, 10, 10},
		axes:     [][]feature{withNone(affinityFeatures, 80), shapeFeatures},
		fill:     0.999,
		runPrio:  []weighted[string]{{"best-effort-batch", 15}, {"low", 45}, {"default", 40}},
		pendPrio: []weighted[string]{{"high", 80}, {"critical", 20}},
		pdbShare: 0.3,
	},
	{
		name:  "mixed",
		pools: []int{30, 10, 10, 5, 5, 6, 6, 5, 5, 8, 10},
		axes: [][]feature{
			withNone(taintFeatures, 60),
			withNone(affinityFeatures, 60),
			preferredFeatures,
			mixedSizeFeatures,
			shapeFeatures,
		},
	},
	{
		name:  "spread",
		pools: []int{30, 10, 10, 5, 5, 6, 6, 5, 5, 8, 10},
		axes: [][]feature{
			spreadFeatures,
			withNone(spreadNodeFeatures, 60),
			withNone(spreadTaintFeatures, 65),
		},
		zonesFlag:   true,
		noZoneShare: 0.03,
		runAxes:     [][]feature{spreadRunFeatures},
		scaleUp:     0.3,
		rsShare:     0.6,
		svcShare:    0.5,
	},
	{
		name:  "anti-affinity",
		pools: []int{40, 15, 12, 5, 3, 3, 3, 2, 2, 7, 8},
		axes: [][]feature{
			podAffinityFeatures,
			podPreferredFeatures,
		},
		zonesFlag: true,
		nsEnv:     true,
		runAxes:   [][]feature{antiRunFeatures},
		scaleUp:   0.25,
	},
	{
		name:      "spread-bench",
		pools:     []int{60, 20, 20, 0, 0, 0, 0, 0, 0, 0, 0},
		axes:      [][]feature{{{"size-light", 1, (*gen).sizeLight}}, {{"spread-bench", 1, (*gen).spreadBench}}},
		zonesFlag: true,
		evenZones: true,
		replicas:  (*gen).benchReplicas,
	},
}

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

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// appendUID appends a deterministic RFC 4122 v4-shaped uid. The node field is
// a bijection of a counter, so uids never repeat within one output.
func (g *gen) appendUID(b []byte) []byte {
	c := g.uidCount
	g.uidCount++
	return appendUIDOf(b, g.uidSalt, c)
}

// appendUIDOf appends the uid of counter value c under salt: distinct
// counters below 2^48 give distinct uids.
func appendUIDOf(b []byte, salt, c uint64) []byte {
	h1 := splitmix(c ^ salt)
	h2 := splitmix(h1 + c)
	nodeField := (c*0x5851f42d4c957f2d + salt) & (1<<48 - 1)
	b = appendHex(b, h1>>32, 8)
	b = append(b, '-')
	b = appendHex(b, h1>>16, 4)
	b = append(b, '-')
	b = appendHex(b, 0x4000|h1&0x0fff, 4)
	b = append(b, '-')
	b = appendHex(b, 0x8000|h2&0x3fff, 4)
	b = append(b, '-')
	return appendHex(b, nodeField, 12)
}

const hexDigits = "0123456789abcdef"

func appendHex(b []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		b = append(b, hexDigits[(v>>(4*uint(i)))&15])
	}
	return b
}

// safeAlphabet is the alphabet of k8s.io/apimachinery rand.String and
// SafeEncodeString (pod name suffixes, pod-template-hash).
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func (g *gen) randSafe(n int) string {
	var b [16]byte
	for i := 0; i < n; i++ {
		b[i] = safeAlphabet[g.r.IntN(len(safeAlphabet))]
	}
	return string(b[:n])
}

// appendSuffix appends the 5-character pod name suffix of replica i: a
// bijection of i (offset by off) on 27^5, so names within a ReplicaSet are
// unique.
func appendSuffix(b []byte, i int, off uint64) []byte {
	const m = 27 * 27 * 27 * 27 * 27
	x := (uint64(i)*7654321 + off) % m
	var s [5]byte
	for j := 4; j >= 0; j-- {
		s[j] = safeAlphabet[x%27]
		x /= 27
	}
	return append(b, s[:]...)
}

func appendTime(b []byte, unix int64) []byte {
	return time.Unix(unix, 0).UTC().AppendFormat(b, time.RFC3339)
}

func fmtTime(unix int64) string { return string(appendTime(nil, unix)) }

// ---------------------------------------------------------------------------
// JSON helpers.

// appendStr appends s as a JSON string.
func appendStr(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendKey appends "k": .
func appendKey(b []byte, k string) []byte {
	b = appendStr(b, k)
	return append(b, ':')
}

func appendKVs(b []byte, kvs []kv) []byte {
	b = append(b, '{')
	for i, p := range kvs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, p.k)
		b = appendStr(b, p.v)
	}
	return append(b, '}')
}

func appendStrs(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, s)
	}
	return append(b, ']')
}

// ---------------------------------------------------------------------------
// Quantities.

const (
	ki = 1 << 10
	mi = 1 << 20
	gi = 1 << 30
)

// res is one resource amount: millicores for cpu, bytes for memory-like
// resources, a count otherwise. si selects decimal suffixes (M, G) for bytes.
type res struct {
	name string
	v    int64
	si   bool
}

func isBytes(name string) bool {
	return name == "memory" || name == "ephemeral-storage" || strings.HasPrefix(name, "hugepages-")
}

// appendQty appends r as a canonical Kubernetes quantity string.
func appendQty(b []byte, r res) []byte {
	b = append(b, '"')
	switch {
	case r.name == "cpu":
		if r.v%1000 == 0 {
			b = strconv.AppendInt(b, r.v/1000, 10)
		} else {
			b = strconv.AppendInt(b, r.v, 10)
			b = append(b, 'm')
		}
	case isBytes(r.name) && r.v != 0:
		if r.si {
			b = appendScaled(b, r.v, 1000, "kMGTPE")
		} else {
			b = appendScaled(b, r.v, 1024, "KMGTPE")
		}
	default:
		b = strconv.AppendInt(b, r.v, 10)
	}
	return append(b, '"')
}

// appendScaled writes v with the largest suffix that divides it exactly.
func appendScaled(b []byte, v, base int64, suffixes string) []byte {
	n := -1
	for n+1 < len(suffixes) && v%base == 0 {
		v /= base
		n++
	}
	b = strconv.AppendInt(b, v, 10)
	if n >= 0 {
		b = append(b, suffixes[n])
		if base == 1024 {
			b = append(b, 'i')
		}
	}
	return b
}

func appendResList(b []byte, rs []res) []byte {
	b = append(b, '{')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, r.name)
		b = appendQty(b, r)
	}
	return append(b, '}')
}

// setRes sets name in the list, keeping it sorted by name.
func setRes(rs []res, r res) []res {
	for i := range rs {
		if rs[i].name == r.name {
			rs[i] = r
			return rs
		}
		if rs[i].name > r.name {
			rs = append(rs, res{})
			copy(rs[i+1:], rs[i:])
			rs[i] = r
			return rs
		}
	}
	return append(rs, r)
}

func getRes(rs []res, name string) (int64, bool) {
	for _, r := range rs {
		if r.name == name {
			return r.v, true
		}
	}
	return 0, false
}

func delRes(rs []res, name string) []res {
	for i := range rs {
		if rs[i].name == name {
			return append(rs[:i], rs[i+1:]...)
		}
	}
	return rs
}

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

func appendIPDashed(b []byte, ip uint32) []byte {
	b = strconv.AppendInt(b, int64(ip>>16&255), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(ip>>8&255), 10)
	b = append(b, '-')
	return strconv.AppendInt(b, int64(ip&255), 10)
}

func appendIP(b []byte, ip uint32) []byte {
	b = append(b, "10."...)
	b = strconv.AppendInt(b, int64(ip>>16&255), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(ip>>8&255), 10)
	b = append(b, '.')
	return strconv.AppendInt(b, int64(ip&255), 10)
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

// appendTaints writes `,"taints":[...]` when there are taints.
func appendTaints(b []byte, taints []taint) []byte {
	if len(taints) == 0 {
		return b
	}
	b = append(b, `,"taints":[`...)
	for i, t := range taints {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"effect":`...)
		b = appendStr(b, t.effect)
		b = append(b, `,"key":`...)
		b = appendStr(b, t.key)
		if t.timeAdded != "" {
			b = append(b, `,"timeAdded":`...)
			b = appendStr(b, t.timeAdded)
		}
		if t.value != "" {
			b = append(b, `,"value":`...)
			b = appendStr(b, t.value)
		}
		b = append(b, '}')
	}
	return append(b, ']')
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

func (g *gen) team(t *podTemplate) string {
	if slices.Contains(dedicatedTeams, t.ns.team) && g.chance(0.8) {
		return t.ns.team
	}
	return dedicatedTeams[g.r.IntN(len(dedicatedTeams))]
}

func (t *podTemplate) tolerate(tl toleration) { t.tolerations = append(t.tolerations, tl) }

func (g *gen) tolNone(t *podTemplate) { t.tolerations = t.tolerations[:0] }

func (g *gen) tolDedicatedEqual(t *podTemplate) {
	t.tolerate(toleration{key: "dedicated", op: "Equal", value: g.team(t), effect: "NoSchedule"})
}

func (g *gen) tolDedicatedNoOperator(t *podTemplate) {
	t.tolerate(toleration{key: "dedicated", value: g.team(t), effect: "NoSchedule"})
}

func (g *gen) tolDedicatedEmptyEffect(t *podTemplate) {
	t.tolerate(toleration{key: "dedicated", op: "Equal", value: g.team(t)})
}

func (g *gen) tolDedicatedExists(t *podTemplate) {
	eff := "NoSchedule"
	if g.chance(0.3) {
		eff = ""
	}
	t.tolerate(toleration{key: "dedicated", op: "Exists", effect: eff})
}

func (g *gen) tolEverything(t *podTemplate) { t.tolerate(toleration{op: "Exists"}) }

func (g *gen) tolAllNoExecute(t *podTemplate) {
	t.tolerate(toleration{op: "Exists", effect: "NoExecute"})
}

func (g *gen) tolBatch(t *podTemplate) {
	secs := pick(g.r, []weighted[int64]{{60, 20}, {600, 40}, {3600, 40}})
	if g.chance(0.3) {
		t.tolerate(toleration{key: "workload", op: "Exists", effect: "NoExecute", seconds: secs, hasSeconds: true})
	} else {
		t.tolerate(toleration{key: "workload", op: "Equal", value: "batch", effect: "NoExecute", seconds: secs, hasSeconds: true})
	}
}

func (g *gen) tolArm(t *podTemplate) {
	t.tolerate(toleration{key: "kubernetes.io/arch", op: "Equal", value: "arm64", effect: "NoSchedule"})
}

func (g *gen) tolSpot(t *podTemplate) {
	t.tolerate(toleration{key: "spot", op: "Equal", value: "true", effect: "PreferNoSchedule"})
}

func (g *gen) tolGPU(t *podTemplate) { g.sizeGPU(t) }

func (g *gen) tolWrongValue(t *podTemplate) {
	t.tolerate(toleration{key: "dedicated", op: "Equal", value: "finance", effect: "NoSchedule"})
}

func (g *gen) tolWrongEffect(t *podTemplate) {
	t.tolerate(toleration{key: "nvidia.com/gpu", op: "Equal", value: "present", effect: "NoExecute"})
}

func (g *gen) tolMulti(t *podTemplate) {
	t.tolerate(toleration{key: "dedicated", op: "Exists", effect: "NoSchedule"})
	t.tolerate(toleration{key: "spot", op: "Exists"})
	t.tolerate(toleration{key: "workload", op: "Equal", value: "batch", effect: "NoExecute", seconds: 900, hasSeconds: true})
	if g.chance(0.5) {
		t.tolerate(toleration{key: "kubernetes.io/arch", op: "Exists", effect: "NoSchedule"})
	}
}

// tolNodeConditions tolerates what DaemonSet pods tolerate: cordon and node
// conditions.
func (g *gen) tolNodeConditions(t *podTemplate) {
	t.tolerate(toleration{key: "node.kubernetes.io/not-ready", op: "Exists", effect: "NoExecute"})
	t.tolerate(toleration{key: "node.kubernetes.io/unschedulable", op: "Exists", effect: "NoSchedule"})
	t.tolerate(toleration{key: "node.kubernetes.io/memory-pressure", op: "Exists", effect: "NoSchedule"})
}

// ---------------------------------------------------------------------------
// Affinity features.

func (g *gen) randZone() string { return g.zones[g.r.IntN(len(g.zones))].v }

func (g *gen) randZones(n int) []string {
	p := g.r.Perm(len(g.zones))
	n = min(n, len(p))
	out := make([]string, n)
	for i := range out {
		out[i] = g.zones[p[i]].v
	}
	return out
}

func (g *gen) randTypes(n int) []string {
	out := make([]string, 0, n)
	for len(out) < n {
		s := instanceTypes[g.r.IntN(len(instanceTypes))].name
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func (g *gen) randNodeName() string {
	if len(g.nodes) == 0 {
		return "ip-10-0-0-1.ec2.internal"
	}
	return g.nodes[g.r.IntN(len(g.nodes))].name
}

var untaintedPools = []string{"general", "compute", "highmem", "onprem"}

func (g *gen) selZone(t *podTemplate) {
	t.nodeSelector = append(t.nodeSelector, kv{"topology.kubernetes.io/zone", g.randZone()})
}

func (g *gen) selInstanceType(t *podTemplate) {
	t.nodeSelector = append(t.nodeSelector, kv{"node.kubernetes.io/instance-type", g.randTypes(1)[0]})
}

func (g *gen) selPool(t *podTemplate) {
	t.nodeSelector = append(t.nodeSelector, kv{"pool", untaintedPools[g.r.IntN(len(untaintedPools))]})
}

func (g *gen) selPoolTolerated(t *podTemplate) {
	team := g.team(t)
	t.nodeSelector = append(t.nodeSelector, kv{"pool", team})
	t.tolerate(toleration{key: "dedicated", op: "Equal", value: team, effect: "NoSchedule"})
}

func (g *gen) selHostname(t *podTemplate) {
	t.nodeSelector = append(t.nodeSelector, kv{"kubernetes.io/hostname", g.randNodeName()})
}

func (g *gen) selNoMatch(t *podTemplate) {
	if g.chance(0.5) {
		t.nodeSelector = append(t.nodeSelector, kv{"pool", "legacy"})
	} else {
		t.nodeSelector = append(t.nodeSelector, kv{"kubernetes.io/os", "linux"}, kv{"topology.kubernetes.io/zone", "us-west-2a"})
	}
}

func (t *podTemplate) require(terms ...selTerm) { t.required = append(t.required, terms...) }

func expr(key, op string, values ...string) selReq { return selReq{key: key, op: op, values: values} }

func (g *gen) reqIn(t *podTemplate) {
	if g.chance(0.5) {
		t.require(selTerm{exprs: []selReq{expr("node.kubernetes.io/instance-type", "In", g.randTypes(1+g.r.IntN(3))...)}})
	} else {
		t.require(selTerm{exprs: []selReq{expr("topology.kubernetes.io/zone", "In", g.randZones(1+g.r.IntN(2))...)}})
	}
}

func (g *gen) reqNotIn(t *podTemplate) {
	if g.chance(0.6) {
		t.require(selTerm{exprs: []selReq{expr("topology.kubernetes.io/zone", "NotIn", g.randZones(1+g.r.IntN(2))...)}})
	} else {
		t.require(selTerm{exprs: []selReq{expr("kubernetes.io/arch", "NotIn", "arm64")}})
	}
}

func (g *gen) reqExists(t *podTemplate) {
	t.require(selTerm{exprs: []selReq{expr("kplace.io/local-ssd", "Exists")}})
}

func (g *gen) reqDoesNotExist(t *podTemplate) {
	t.require(selTerm{exprs: []selReq{expr("node.kubernetes.io/lifecycle", "DoesNotExist")}})
}

func (g *gen) reqGt(t *podTemplate) {
	t.require(selTerm{exprs: []selReq{expr("kplace.io/generation", "Gt", strconv.Itoa(1+g.r.IntN(3)))}})
}

func (g *gen) reqLt(t *podTemplate) {
	t.require(selTerm{exprs: []selReq{expr("kplace.io/generation", "Lt", strconv.Itoa(3+g.r.IntN(3)))}})
}

func (g *gen) reqRange(t *podTemplate) {
	t.require(selTerm{exprs: []selReq{
		expr("kplace.io/generation", "Gt", "2"),
		expr("kplace.io/generation", "Lt", "5"),
		expr("kubernetes.io/os", "In", "linux"),
	}})
}

func (g *gen) reqOrTerms(t *podTemplate) {
	t.require(
		selTerm{exprs: []selReq{expr("topology.kubernetes.io/zone", "In", g.randZone()), expr("kplace.io/local-ssd", "Exists")}},
		selTerm{exprs: []selReq{expr("node.kubernetes.io/instance-type", "In", g.randTypes(2)...)}},
	)
	if g.chance(0.5) {
		t.require(selTerm{exprs: []selReq{expr("pool", "In", "highmem", "onprem")}})
	}
}

func (g *gen) reqMatchFields(t *podTemplate) {
	n := 1 + g.r.IntN(4)
	names := make([]string, n)
	for i := range names {
		names[i] = g.randNodeName()
	}
	term := selTerm{fields: []selReq{expr("metadata.name", "In", names...)}}
	if g.chance(0.3) {
		term.exprs = []selReq{expr("kubernetes.io/os", "In", "linux")}
	}
	t.require(term)
}

func (g *gen) reqNoMatch(t *podTemplate) {
	switch g.r.IntN(3) {
	case 0:
		t.require(selTerm{exprs: []selReq{expr("node.kubernetes.io/instance-type", "In", "m7i.metal-48xl")}})
	case 1:
		t.require(selTerm{exprs: []selReq{expr("kplace.io/generation", "Gt", "99")}})
	default:
		t.require(selTerm{exprs: []selReq{expr("pool", "In", "general"), expr("pool", "NotIn", "general")}})
	}
}

func (g *gen) selAndReq(t *podTemplate) {
	t.nodeSelector = append(t.nodeSelector, kv{"kubernetes.io/arch", "amd64"})
	t.require(selTerm{exprs: []selReq{
		expr("topology.kubernetes.io/zone", "NotIn", g.randZone()),
		expr("kplace.io/generation", "Gt", "1"),
	}})
}

func (g *gen) prefTerms(t *podTemplate) {
	n := 1 + g.r.IntN(3)
	for i := 0; i < n; i++ {
		var term selTerm
		switch g.r.IntN(5) {
		case 0:
			term.exprs = []selReq{expr("topology.kubernetes.io/zone", "In", g.randZone())}
		case 1:
			term.exprs = []selReq{expr("node.kubernetes.io/instance-type", "In", g.randTypes(2)...)}
		case 2:
			term.exprs = []selReq{expr("kplace.io/generation", "Gt", "3")}
		case 3:
			term.exprs = []selReq{expr("node.kubernetes.io/lifecycle", "DoesNotExist")}
		default:
			term.exprs = []selReq{expr("pool", "In", untaintedPools[g.r.IntN(len(untaintedPools))])}
		}
		t.preferred = append(t.preferred, prefTerm{weight: int32(1 + g.r.IntN(100)), term: term})
	}
}

// ---------------------------------------------------------------------------
// Resource features.

// lognormal draws exp(sigma*N) normalised to mean 1.
func (g *gen) lognormal(sigma float64) float64 {
	return math.Exp(sigma*g.r.NormFloat64() - sigma*sigma/2)
}

// sizeScaled sizes the app container so that the pending total tracks the
// budget: the mean request per remaining pod, times a wide log-normal spread.
func (g *gen) sizeScaled(t *podTemplate) {
	if g.prof.tight == 0 {
		return
	}
	rem := float64(max(g.pendingLeft, 1))
	// Steer towards the remaining budget, within bounds around the overall
	// mean, so that one early overshoot does not squash the tail to nothing.
	tc := min(max(g.budgetCPU/rem, 0.3*g.meanCPU, 20), 3*g.meanCPU+20)
	tm := min(max(g.budgetMem/rem, 0.3*g.meanMem, 32*mi), 3*g.meanMem+32*mi)
	// Small deployments spread widely; large ones stay near the target, so
	// that they land the total where the budget says.
	var base, mb float64
	switch {
	case t.replicas > 100:
		base = min(max(g.lognormal(0.25), 0.6), 1.5)
		mb = min(max(base*g.lognormal(0.2), 0.5), 2)
	case t.replicas > 20:
		base = min(max(g.lognormal(0.8), 0.1), 3)
		mb = min(max(base*g.lognormal(0.4), 0.1), 4)
	default:
		base = min(max(g.lognormal(1.1), 0.03), 10)
		mb = min(max(base*g.lognormal(0.5), 0.03), 15)
	}
	cpu := int64(base * tc)
	if cpu >= 1000 {
		cpu = cpu / 100 * 100
	} else {
		cpu = max(cpu/10*10, 10)
	}
	mem := int64(mb * tm)
	if mem >= gi {
		mem = mem / (64 * mi) * (64 * mi)
	} else {
		mem = max(mem/mi, 16) * mi
	}
	m := t.main()
	m.req = setRes(setRes(m.req[:0], res{name: "cpu", v: cpu}), res{name: "memory", v: mem})
	m.lim = m.lim[:0]
	switch g.r.IntN(5) {
	case 0, 1:
		m.lim = append(m.lim, res{name: "memory", v: mem * 2})
	case 2:
		m.lim = append(m.lim, res{name: "cpu", v: cpu}, res{name: "memory", v: mem})
	}
}

// sizeTooBig makes a pod larger than any node.
func (g *gen) sizeTooBig(t *podTemplate) {
	cpu := (max(g.maxAllocCPU, 1000)*3/2 + 999) / 1000 * 1000
	mem := (max(g.maxAllocMem, gi)*3/2 + gi - 1) / gi * gi
	m := t.main()
	m.req = append(m.req[:0], res{name: "cpu", v: cpu}, res{name: "memory", v: mem})
	m.lim = m.lim[:0]
	t.replicas = min(t.replicas, 3)
}

// sizeGPU requests whole GPUs (in limits, usually in requests too) and
// tolerates the GPU taint.
func (g *gen) sizeGPU(t *podTemplate) {
	t.replicas = min(t.replicas, 64) // GPU fleets are small
	n := pick(g.r, []weighted[int64]{{1, 40}, {2, 20}, {4, 20}, {8, 20}})
	m := t.main()
	if g.prof.tight > 0 {
		g.sizeScaled(t)
	} else {
		m.req = setRes(m.req, res{name: "cpu", v: n * pick(g.r, []weighted[int64]{{1000, 30}, {4000, 50}, {8000, 20}})})
		m.req = setRes(m.req, res{name: "memory", v: n * pick(g.r, []weighted[int64]{{8 * gi, 40}, {32 * gi, 60}})})
	}
	if g.chance(0.8) {
		m.req = setRes(m.req, res{name: "nvidia.com/gpu", v: n})
	}
	m.lim = setRes(m.lim, res{name: "nvidia.com/gpu", v: n})
	m.lim = delRes(delRes(m.lim, "cpu"), "memory")
	t.tolerate(toleration{key: "nvidia.com/gpu", op: "Exists", effect: "NoSchedule"})
}

func (g *gen) sizeFPGA(t *podTemplate) {
	t.replicas = min(t.replicas, 16)
	g.sizeScaled(t) // no-op unless the profile is tight
	m := t.main()
	n := int64(1 + g.r.IntN(2))
	m.req = setRes(m.req, res{name: "example.com/fpga", v: n})
	m.lim = setRes(m.lim, res{name: "example.com/fpga", v: n})
}

// sizeUnknownExtended requests an extended resource no node offers.
func (g *gen) sizeUnknownExtended(t *podTemplate) {
	t.replicas = min(t.replicas, 10)
	g.sizeScaled(t) // no-op unless the profile is tight
	m := t.main()
	m.req = setRes(m.req, res{name: "example.com/widget", v: 1})
	m.lim = setRes(m.lim, res{name: "example.com/widget", v: 1})
}

func (g *gen) shapeHostPort(t *podTemplate) {
	m := t.main()
	m.ports = m.ports[:0]
	switch g.r.IntN(3) {
	case 0:
		m.ports = append(m.ports, port{name: "http", containerPort: 8080, hostPort: 8080})
	case 1:
		m.ports = append(m.ports, port{name: "metrics", containerPort: 9090, hostPort: 9090})
	default:
		m.ports = append(m.ports, port{name: "http", containerPort: 8080, hostPort: 8080},
			port{name: "metrics", containerPort: 9090, hostPort: 9090})
	}
}

// shapeInit adds an init container larger than the app (migrations).
func (g *gen) shapeInit(t *podTemplate) {
	cpu, mem, _ := effectiveRequests(t)
	t.initContainers = append(t.initContainers, container{
		name: "migrate", image: "registry.example.com/" + t.ns.name + "/migrate:0.9.1",
		req: []res{{name: "cpu", v: max(cpu, 100) * 2}, {name: "memory", v: max(mem, 64*mi) * 2}},
	})
}

// shapeSidecarInit adds a native sidecar (init container with restartPolicy
// Always), whose requests add to the pod's.
func (g *gen) shapeSidecarInit(t *podTemplate) {
	t.initContainers = append(t.initContainers, container{
		name: "log-shipper", image: "docker.io/fluent/fluent-bit:3.0.4", restartAlways: true,
		req: []res{{name: "cpu", v: 50}, {name: "memory", v: 96 * mi}},
		lim: []res{{name: "memory", v: 192 * mi}},
	})
}

func (g *gen) shapeOverhead(t *podTemplate) {
	t.runtimeClass = "kata"
	t.overhead = append(t.overhead[:0], res{name: "cpu", v: 250}, res{name: "memory", v: 160 * mi})
}

// shapeLimitsOnly moves every request to the limits (requests are then
// defaulted from limits).
func (g *gen) shapeLimitsOnly(t *podTemplate) {
	for i := range t.containers {
		c := &t.containers[i]
		for _, r := range c.req {
			if _, ok := getRes(c.lim, r.name); !ok {
				c.lim = setRes(c.lim, r)
			}
		}
		c.req = c.req[:0]
	}
}

func (g *gen) shapeBestEffort(t *podTemplate) {
	for i := range t.containers {
		t.containers[i].req, t.containers[i].lim = nil, nil
	}
	for i := range t.initContainers {
		t.initContainers[i].req, t.initContainers[i].lim = nil, nil
	}
}

func (g *gen) shapeEphemeral(t *podTemplate) {
	m := t.main()
	v := pick(g.r, []weighted[int64]{{1 * gi, 50}, {10 * gi, 40}, {50 * gi, 10}})
	m.req = setRes(m.req, res{name: "ephemeral-storage", v: v})
	m.lim = setRes(m.lim, res{name: "ephemeral-storage", v: v * 2})
}

func (g *gen) shapeMultiContainer(t *podTemplate) {
	n := 1 + g.r.IntN(3)
	for i := 0; i < n; i++ {
		t.containers = append(t.containers, container{
			name:  "helper-" + strconv.Itoa(i),
			image: "registry.example.com/platform/helper:4.1." + strconv.Itoa(i),
			req:   []res{{name: "cpu", v: pick(g.r, cpuChoices) / 2}, g.memRes(pick(g.r, memChoices) / 2)},
		})
	}
}

// ---------------------------------------------------------------------------
// Rendering pods.

func qosClass(t *podTemplate) string {
	any, guaranteed := false, true
	check := func(c *container) {
		for _, name := range [2]string{"cpu", "memory"} {
			rq, hasReq := getRes(c.req, name)
			lm, hasLim := getRes(c.lim, name)
			if hasReq || hasLim {
				any = true
			}
			if !hasLim || (hasReq && rq != lm) {
				guaranteed = false
			}
		}
	}
	for i := range t.initContainers {
		check(&t.initContainers[i])
	}
	for i := range t.containers {
		check(&t.containers[i])
	}
	switch {
	case !any:
		return "BestEffort"
	case guaranteed:
		return "Guaranteed"
	}
	return "Burstable"
}

// appendPorts writes `,"ports":[...]` when there are ports; hostNet
// defaults each hostPort to its containerPort (a host-network pod's).
func appendPorts(b []byte, ports []port, hostNet bool) []byte {
	if len(ports) == 0 {
		return b
	}
	b = append(b, `,"ports":[`...)
	for i, p := range ports {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"containerPort":`...)
		b = strconv.AppendInt(b, int64(p.containerPort), 10)
		hp := p.hostPort
		if hp == 0 && hostNet {
			hp = p.containerPort
		}
		if hp != 0 {
			b = append(b, `,"hostPort":`...)
			b = strconv.AppendInt(b, int64(hp), 10)
		}
		b = append(b, `,"name":`...)
		b = appendStr(b, p.name)
		b = append(b, `,"protocol":"TCP"}`...)
	}
	return append(b, ']')
}

func appendContainer(b []byte, c *container) []byte {
	b = append(b, `{"image":`...)
	b = appendStr(b, c.image)
	b = append(b, `,"imagePullPolicy":"IfNotPresent","name":`...)
	b = appendStr(b, c.name)
	b = appendPorts(b, c.ports, false)
	b = append(b, `,"resources":{`...)
	if len(c.lim) > 0 {
		b = append(b, `"limits":`...)
		b = appendResList(b, c.lim)
		if len(c.req) > 0 {
			b = append(b, ',')
		}
	}
	if len(c.req) > 0 {
		b = append(b, `"requests":`...)
		b = appendResList(b, c.req)
	}
	b = append(b, '}')
	if c.restartAlways {
		b = append(b, `,"restartPolicy":"Always"`...)
	}
	return append(b, `,"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}`...)
}

func appendSelReqs(b []byte, rs []selReq) []byte {
	b = append(b, '[')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"key":`...)
		b = appendStr(b, r.key)
		b = append(b, `,"operator":`...)
		b = appendStr(b, r.op)
		if len(r.values) > 0 {
			b = append(b, `,"values":`...)
			b = appendStrs(b, r.values)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendTerm(b []byte, t *selTerm) []byte {
	b = append(b, '{')
	if len(t.exprs) > 0 {
		b = append(b, `"matchExpressions":`...)
		b = appendSelReqs(b, t.exprs)
	}
	if len(t.fields) > 0 {
		if len(t.exprs) > 0 {
			b = append(b, ',')
		}
		b = append(b, `"matchFields":`...)
		b = appendSelReqs(b, t.fields)
	}
	return append(b, '}')
}

func appendToleration(b []byte, tl *toleration) []byte {
	b = append(b, '{')
	first := true
	field := func(k string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendKey(b, k)
	}
	if tl.effect != "" {
		field("effect")
		b = appendStr(b, tl.effect)
	}
	if tl.key != "" {
		field("key")
		b = appendStr(b, tl.key)
	}
	if tl.op != "" {
		field("operator")
		b = appendStr(b, tl.op)
	}
	if tl.hasSeconds {
		field("tolerationSeconds")
		b = strconv.AppendInt(b, tl.seconds, 10)
	}
	if tl.value != "" {
		field("value")
		b = appendStr(b, tl.value)
	}
	return append(b, '}')
}

// appendNodeAffinity writes `{"nodeAffinity":{...}` (the affinity object
// left open) with the preferred and required terms.
func appendNodeAffinity(b []byte, required []selTerm, preferred []prefTerm) []byte {
	b = append(b, `{"nodeAffinity":{`...)
	if len(preferred) > 0 {
		b = append(b, `"preferredDuringSchedulingIgnoredDuringExecution":[`...)
		for i := range preferred {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"preference":`...)
			b = appendTerm(b, &preferred[i].term)
			b = append(b, `,"weight":`...)
			b = strconv.AppendInt(b, int64(preferred[i].weight), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
		if len(required) > 0 {
			b = append(b, ',')
		}
	}
	if len(required) > 0 {
		b = append(b, `"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[`...)
		for i := range required {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTerm(b, &required[i])
		}
		b = append(b, `]}`...)
	}
	return append(b, '}')
}

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
