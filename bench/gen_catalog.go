package bench

import "strconv"

// The generator's catalog: zones, instance types, node pools, namespaces,
// priority classes, the features a pod template may draw, and the
// profiles that weigh them (see gen.go).

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
