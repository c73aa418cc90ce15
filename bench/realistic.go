package bench

// The realistic profile: a cluster as `kubectl get
// pods,nodes,deploy,rs,sts,ds,jobs,svc,pdb,priorityclasses -A -o json`
// prints it. Thousands of workloads of skewed sizes own the pods:
// Deployments with their ReplicaSets (old revisions included), StatefulSets,
// DaemonSets, Jobs, and a few bare pods; Services front most Deployments and
// StatefulSets (so kube-scheduler's default spreading applies to nearly
// every pod); PodDisruptionBudgets and PriorityClasses. Objects are full:
// managedFields, annotations, probes, env, volumes, status.
//
// Generation runs in two steps. The plan (realistic.go, realistic_tpl.go)
// draws the nodes, namespaces, workloads and their pod templates from the
// seeded stream, places the running pods, then renders each template's
// shared pieces and pod-template-hash on every core. The emission
// (realistic_emit.go) writes the List in kubectl's order: pods, nodes,
// deployments, replica sets, stateful sets, daemon sets, jobs, services,
// budgets, priority classes, each kind sorted by namespace and name; every
// item is a pure function of the plan, so the items are rendered on every
// core and written in order.
//
// The pending pods are those the controllers created and the scheduler has
// not bound: replicas of new Deployments, StatefulSets and Jobs, scale-ups
// and rollouts of running ones, the DaemonSet pods of nodes that just
// joined (and of a new DaemonSet when the pending count allows), and a few
// bare pods. With GenConfig.PendingAs "workloads" the same cluster is
// written without its pending pods: the controllers then want more pods
// than exist, for a workload expander to create.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
)

const realisticName = "realistic"

// PendingAs values: what a realistic export holds for the pods controllers
// created and the scheduler has not bound.
const (
	PendingAsPods      = "pods"      // the pending pods (the default)
	PendingAsWorkloads = "workloads" // nothing: the workloads want them
)

// realisticProfile: every pool; running pods default to 10 per node.
var realisticProfile = profile{
	name: realisticName,
	//     gen cmp mem arm gpu pay sea ml bat spot onp
	pools:      []int{38, 12, 10, 5, 3, 5, 5, 3, 7, 7, 5},
	zonesFlag:  true,
	runPerNode: 10,
}

// Workload kinds.
const (
	wDeploy = iota
	wSTS
	wDS
	wJob
	wBare
)

// rNS is a namespace of the realistic cluster.
type rNS struct {
	namespace
	pool int // the dedicated pool of its team, -1 for none
}

// rWorkload is a controller (or a bare pod) and what it wants.
type rWorkload struct {
	kind     uint8
	ns       int32
	name     string
	uid      uint64
	created  int64
	tpl      int32 // current pod template
	replicas int32 // Deployment, StatefulSet: spec.replicas; Job: parallelism
	groups   []int32
	// Deployment: its old revisions (ReplicaSets scaled to 0), rollout
	// strategy.
	history []rHistory
	surge   string // maxSurge
	// StatefulSet: podManagementPolicy Parallel; headless Service name.
	parallel bool
	svcName  string
	// Job: completions, succeeded, indexed completion mode.
	completions, succeeded int32
	indexed                bool
	// services and budget selecting its pods (indexes into svcs, pdbs).
	svcs []int32
	pdb  int32
}

// rHistory is an old ReplicaSet of a Deployment, scaled to 0.
type rHistory struct {
	name, hash string
	uid        uint64
	created    int64
	revision   int32
	tag        string // its image tag (the only difference to the current template)
}

// Pod group kinds: who owns the pods.
const (
	gRS = iota
	gSTS
	gDS
	gJob
	gBare
)

// rGroup is a set of pods with one owner and one template.
type rGroup struct {
	kind     uint8
	w, tpl   int32
	name     string // owner name (the pod's name for a bare pod)
	hash     string // pod-template-hash (ReplicaSet) or controller-revision-hash
	uid      uint64 // owner uid
	podUID   uint64 // first pod's uid
	created  int64  // owner creation
	revision int32
	// Pods in creation order: finished (a Job's succeeded pods), running,
	// pending.
	finished, running, pending int32
	nodeOff                    int32 // its pods' nodes in rgen.podNodes (running ones; a DaemonSet's all)
	runFrom, runTo             int64 // creation times of its running pods
	pendFrom                   int64 // creation time of its first pending pod
	replicas                   int32 // ReplicaSet spec.replicas
	// emission: the emitted pods in name order (offset into rgen.order)
	orderOff int32
	key      string // sort key: owner name + "-" (a bare pod's name)
}

func (gr *rGroup) pods() int32 { return gr.finished + gr.running + gr.pending }

// rgen is the realistic generator's state.
type rgen struct {
	*gen
	now       int64
	workloads bool // PendingAs workloads
	nss       []rNS
	nsW       []int
	tpls      []*rTpl
	ws        []rWorkload
	groups    []rGroup
	podNodes  []int32
	fresh     []bool // nodes that joined minutes ago
	svcs      []rSvc
	pdbs      []rPDB
	uidNext   uint64
	nodeUID   uint64 // the first node's uid counter
	pcUID     uint64 // the first priority class's
	wseq      int

	runBudget, pendBudget int
	// per pool: nodes that take running pods
	poolLive [numPools][]int32

	// emission
	order   []int32 // pods of every group, in name order
	units   []rUnit
	nodeImg [][]int32 // templates run by each node (its images)
}

type rSvc struct {
	ns       int32
	name     string
	uid      uint64
	created  int64
	sel      []kv
	headless bool
	typ      string
	port     int32
	target   int32
	w        int32
}

type rPDB struct {
	ns             int32
	name           string
	uid            uint64
	created        int64
	sel            []kv
	expected       int32
	healthy        int32
	desired        int32
	status         bool
	w              int32
	minAv, maxUnav string
}

func (rg *rgen) newUIDs(n int) uint64 {
	u := rg.uidNext
	rg.uidNext += uint64(n)
	return u
}

// generateRealistic plans the cluster and writes it (g's config checked).
func generateRealistic(g *gen) error {
	switch g.cfg.PendingAs {
	case "", PendingAsPods, PendingAsWorkloads:
	default:
		return fmt.Errorf("bench: unknown PendingAs %q (want %s or %s)", g.cfg.PendingAs, PendingAsPods, PendingAsWorkloads)
	}
	rg := &rgen{gen: g, workloads: g.cfg.PendingAs == PendingAsWorkloads}
	rg.now = baseUnix + 30*86400
	rg.uidNext = 1
	if err := rg.plan(); err != nil {
		return err
	}
	if err := rg.render(); err != nil {
		return err
	}
	return rg.emit()
}

// ---------------------------------------------------------------------------
// Plan.

func (rg *rgen) plan() error {
	rg.buildNodes()
	rg.nodeUID = rg.newUIDs(len(rg.nodes))
	rg.pcUID = rg.newUIDs(len(priorityClasses))
	rg.markFresh()
	rg.buildNamespaces()
	rg.runBudget, rg.pendBudget = rg.cfg.Running, rg.cfg.Pods
	rg.planDaemonSets()
	rg.planBare()
	rg.planWorkloads()
	rg.planServices()
	return nil
}

// markFresh picks the nodes that joined minutes ago: 1% of them (their
// DaemonSet pods are still pending, nothing else runs there).
func (rg *rgen) markFresh() {
	n := len(rg.nodes)
	rg.fresh = make([]bool, n)
	k := min(n/100, rg.cfg.Pods/(2*len(daemonSets)))
	for i := 0; i < k; i++ {
		ni := rg.r.IntN(n)
		nd := &rg.nodes[ni]
		if rg.fresh[ni] || nd.cordoned || nd.cond != condNone {
			continue
		}
		rg.fresh[ni] = true
		nd.created = rg.now - 60 - int64(rg.r.IntN(840))
	}
	for i := range rg.nodes {
		if !rg.fresh[i] {
			p := rg.nodes[i].pool
			rg.poolLive[p] = append(rg.poolLive[p], int32(i))
		}
	}
}

var envNames = []string{"prod", "staging", "dev"}

// buildNamespaces: the fixed team namespaces, then one per team and
// environment, about one per 40 nodes, weighted by a Zipf law.
func (rg *rgen) buildNamespaces() {
	teamPool := map[string]int{"payments": pPayments, "search": pSearch, "ml": pML, "batch": pBatch}
	seen := map[string]bool{}
	for _, ns := range namespaces {
		p, ok := teamPool[ns.name]
		if !ok {
			p = -1
		}
		rg.nss = append(rg.nss, rNS{namespace: ns, pool: p})
		seen[ns.name] = true
	}
	extra := min(len(rg.nodes)/40, 2000)
	for i := 0; i < extra; i++ {
		word := components[rg.r.IntN(len(components))]
		env := envNames[rg.r.IntN(len(envNames))]
		name := word + "-" + env
		for k := 2; seen[name]; k++ {
			name = word + strconv.Itoa(k) + "-" + env
		}
		seen[name] = true
		w := int(math.Max(1, 60/math.Pow(float64(i+2), 0.8)))
		rg.nss = append(rg.nss, rNS{namespace: namespace{name: name, team: word, w: w}, pool: -1})
	}
	for _, ns := range rg.nss {
		rg.nsW = append(rg.nsW, ns.w)
	}
}

func (rg *rgen) pickNS() int32 { return int32(pickIdx(rg.r, rg.nsW)) }

func (rg *rgen) nsIndex(name string) int32 {
	for i := range rg.nss {
		if rg.nss[i].name == name {
			return int32(i)
		}
	}
	return 0
}

// nextName names a workload: two components and a sequence number in base
// 36, unique in the cluster (no name is another's prefix followed by a
// dash, so sorting owners sorts their pods).
func (rg *rgen) nextName() string {
	rg.wseq++
	c1 := components[rg.r.IntN(len(components))]
	c2 := components[rg.r.IntN(len(components))]
	if c1 == c2 {
		c2 = "svc"
	}
	return c1 + "-" + c2 + "-" + strconv.FormatInt(int64(rg.wseq), 36)
}

// clockBack draws a creation time between lo and hi seconds before now.
func (rg *rgen) clockBack(lo, hi int64) int64 {
	return rg.now - lo - rg.r.Int64N(max(hi-lo, 1))
}

// ---------------------------------------------------------------------------
// DaemonSets.

// daemonSet is a system DaemonSet of the realistic cluster.
type daemonSet struct {
	ns, name string
	build    func(rg *rgen, t *rTpl)
	// fresh: a DaemonSet created minutes ago, all of its pods pending;
	// only when the pending count allows one pod per node.
	fresh bool
}

var daemonSets = []daemonSet{
	{ns: "kube-system", name: "kube-proxy", build: (*rgen).dsKubeProxy},
	{ns: "kube-system", name: "aws-node", build: (*rgen).dsAWSNode},
	{ns: "kube-system", name: "ebs-csi-node", build: (*rgen).dsEBSNode},
	{ns: "monitoring", name: "node-exporter", build: (*rgen).dsNodeExporter},
	{ns: "kube-system", name: "fluent-bit", build: (*rgen).dsFluentBit},
	{ns: "kube-system", name: "nvidia-device-plugin-daemonset", build: (*rgen).dsNvidia},
	{ns: "monitoring", name: "datadog-agent", build: (*rgen).dsDatadog, fresh: true},
}

func (rg *rgen) planDaemonSets() {
	n := len(rg.nodes)
	budget := rg.runBudget * 6 / 10
	for _, ds := range daemonSets {
		if ds.fresh && (n == 0 || rg.pendBudget < 5*n) {
			continue
		}
		w := rWorkload{kind: wDS, ns: rg.nsIndex(ds.ns), name: ds.name}
		w.uid = rg.newUIDs(1)
		w.created = rg.clockBack(200*86400, 400*86400)
		if ds.fresh {
			w.created = rg.clockBack(30, 300)
		}
		t := rg.newTpl(&w)
		ds.build(rg, t)
		rg.finishTpl(t)
		var eligible []int32
		running := 0
		for i := range rg.nodes {
			if rg.dsEligible(t, &rg.nodes[i]) {
				eligible = append(eligible, int32(i))
				if !ds.fresh && !rg.fresh[i] {
					running++
				}
			}
		}
		pending := len(eligible) - running
		if !ds.fresh && running > budget || pending > rg.pendBudget {
			continue
		}
		budget -= running
		rg.runBudget -= running
		rg.pendBudget -= pending
		w.tpl = int32(len(rg.tpls))
		rg.tpls = append(rg.tpls, t)
		w.replicas = int32(len(eligible))
		gr := rGroup{kind: gDS, w: int32(len(rg.ws)), tpl: w.tpl, name: ds.name, uid: w.uid, created: w.created,
			running: int32(running), pending: int32(pending), nodeOff: int32(len(rg.podNodes)), revision: 1}
		gr.podUID = rg.newUIDs(len(eligible))
		gr.runFrom, gr.runTo = w.created+60, rg.now-3600
		gr.pendFrom = rg.now - 300
		// Running pods first (creation order), then the pending ones.
		for _, ni := range eligible {
			if !ds.fresh && !rg.fresh[ni] {
				rg.podNodes = append(rg.podNodes, ni)
				rg.usePod(int(ni), t.cpu, t.mem, 0)
			}
		}
		for _, ni := range eligible {
			if ds.fresh || rg.fresh[ni] {
				rg.podNodes = append(rg.podNodes, ni)
			}
		}
		w.groups = []int32{int32(len(rg.groups))}
		rg.groups = append(rg.groups, gr)
		rg.ws = append(rg.ws, w)
	}
}

// dsTolerations are the tolerations the DaemonSet controller adds to its
// pods (pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations).
func dsTolerations(hostNetwork bool) []toleration {
	ts := []toleration{
		{key: "node.kubernetes.io/not-ready", op: "Exists", effect: "NoExecute"},
		{key: "node.kubernetes.io/unreachable", op: "Exists", effect: "NoExecute"},
		{key: "node.kubernetes.io/disk-pressure", op: "Exists", effect: "NoSchedule"},
		{key: "node.kubernetes.io/memory-pressure", op: "Exists", effect: "NoSchedule"},
		{key: "node.kubernetes.io/pid-pressure", op: "Exists", effect: "NoSchedule"},
		{key: "node.kubernetes.io/unschedulable", op: "Exists", effect: "NoSchedule"},
	}
	if hostNetwork {
		ts = append(ts, toleration{key: "node.kubernetes.io/network-unavailable", op: "Exists", effect: "NoSchedule"})
	}
	return ts
}

// podTolerations is t's tolerations as its pods carry them: the template's,
// then those its controller adds (DaemonSet), then the DefaultTolerationSeconds
// admission ones.
// The first ctl of them are those the pod's creator sends.
func (t *rTpl) podTolerations() (ts []toleration, ctl int) {
	ts = slices.Clone(t.t.tolerations)
	if t.kind == wDS {
		for _, d := range dsTolerations(t.hostNet) {
			if !slices.ContainsFunc(ts, func(x toleration) bool {
				return x.key == d.key && x.effect == d.effect && x.op == d.op && x.value == d.value
			}) {
				ts = append(ts, d)
			}
		}
	}
	ctl = len(ts)
	notReady, unreachable := false, false
	for _, tl := range ts {
		noExec := tl.effect == "NoExecute" || tl.effect == ""
		notReady = notReady || noExec && (tl.key == "node.kubernetes.io/not-ready" || tl.key == "")
		unreachable = unreachable || noExec && (tl.key == "node.kubernetes.io/unreachable" || tl.key == "")
	}
	if !notReady {
		ts = append(ts, toleration{key: "node.kubernetes.io/not-ready", op: "Exists", effect: "NoExecute", seconds: 300, hasSeconds: true})
	}
	if !unreachable {
		ts = append(ts, toleration{key: "node.kubernetes.io/unreachable", op: "Exists", effect: "NoExecute", seconds: 300, hasSeconds: true})
	}
	return ts, ctl
}

// dsEligible: the DaemonSet controller runs a pod on the node when the
// template's node selector matches and its pods tolerate every NoSchedule
// and NoExecute taint.
func (rg *rgen) dsEligible(t *rTpl, nd *node) bool {
	for _, l := range t.t.nodeSelector {
		if v, ok := rg.nodeLabel(nd, l.k); !ok || v != l.v {
			return false
		}
	}
	return tolerated(t.podTols, nd.taints)
}

// ---------------------------------------------------------------------------
// Bare pods.

func (rg *rgen) planBare() {
	n := 0
	if rg.pendBudget >= 10 {
		n = min(max(rg.pendBudget/2000, 1), 50)
	}
	for i := 0; i < n; i++ {
		w := rWorkload{kind: wBare, ns: rg.pickNS()}
		rg.wseq++
		w.name = "adhoc-" + components[rg.r.IntN(len(components))] + "-" + strconv.FormatInt(int64(rg.wseq), 36)
		w.created = rg.clockBack(0, 600)
		t := rg.newTpl(&w)
		rg.appTemplate(t, pGeneral, true)
		t.restart = pick(rg.r, []weighted[string]{{"Always", 60}, {"Never", 40}})
		rg.finishTpl(t)
		w.tpl = int32(len(rg.tpls))
		rg.tpls = append(rg.tpls, t)
		w.replicas = 1
		gr := rGroup{kind: gBare, w: int32(len(rg.ws)), tpl: w.tpl, name: w.name, created: w.created, pending: 1,
			nodeOff: int32(len(rg.podNodes)), pendFrom: w.created}
		gr.podUID = rg.newUIDs(1)
		w.groups = []int32{int32(len(rg.groups))}
		rg.groups = append(rg.groups, gr)
		rg.ws = append(rg.ws, w)
		rg.pendBudget--
	}
}

// ---------------------------------------------------------------------------
// Deployments, StatefulSets and Jobs.

// workloadSize draws a workload's pod count: Pareto(alpha 0.6) truncated
// at a cap that grows with the cluster (at most 2,000; the mean is then
// about 50): a third of the draws are one pod, over half at most three,
// and a few are thousands (the placed workloads: about a quarter and a
// half, as running ones may get fewer pods than drawn).
func (rg *rgen) workloadSize(kind uint8) int {
	capN := min(max(float64(rg.cfg.Pods+rg.cfg.Running)/50, 20), 2000)
	switch kind {
	case wSTS:
		capN = min(capN, 60)
	case wJob:
		capN = min(capN, 100)
	}
	u := 1 - rg.r.Float64()
	x := math.Pow(u, -1/0.6)
	return int(min(x, capN))
}

func (rg *rgen) planWorkloads() {
	for rg.runBudget > 0 || rg.pendBudget > 0 {
		kind := pick(rg.r, []weighted[uint8]{{wDeploy, 84}, {wSTS, 8}, {wJob, 8}})
		n := rg.workloadSize(kind)
		total := rg.runBudget + rg.pendBudget
		running := rg.r.IntN(total) < rg.runBudget
		w := rWorkload{kind: kind, ns: rg.pickNS(), name: rg.nextName(), pdb: -1}
		w.uid = rg.newUIDs(1)
		if running {
			n = min(n, rg.runBudget)
			extra := 0
			if kind != wJob && rg.pendBudget > 0 && rg.chance(0.2) {
				extra = min(max(1, int(float64(n)*(0.1+0.9*rg.r.Float64()))), rg.pendBudget)
			}
			if !rg.planRunning(&w, n, extra) {
				continue // no room for any of its pods: the workload is left out
			}
		} else {
			rg.planNew(&w, min(n, rg.pendBudget))
		}
		rg.ws = append(rg.ws, w)
	}
}

// homePool: the team's dedicated pool most of the time, else a pool
// for applications.
func (rg *rgen) homePool(ns *rNS) int {
	if ns.pool >= 0 && rg.chance(0.8) {
		return ns.pool
	}
	return pick(rg.r, []weighted[int]{{pGeneral, 50}, {pCompute, 14}, {pHighmem, 12}, {pSpot, 10}, {pOnprem, 6}, {pArm, 5}, {pGPU, 3}})
}

// planRunning plans a workload with n running pods (placed now) and extra
// pending ones: more replicas of the same ReplicaSet or StatefulSet, or a
// Deployment's rollout to a new ReplicaSet. It reports false when no pod
// found room: the workload is then not planned.
func (rg *rgen) planRunning(w *rWorkload, n, extra int) bool {
	ns := &rg.nss[w.ns]
	w.created = rg.clockBack(3*86400, 400*86400)
	t := rg.newTpl(w)
	home := rg.homePool(ns)
	rg.appTemplate(t, home, false)
	if w.kind == wJob {
		t.restart = pick(rg.r, []weighted[string]{{"Never", 60}, {"OnFailure", 40}})
		t.labels = append(t.labels, rg.jobLabels(w)...)
	}
	rg.finishTpl(t)
	w.tpl = int32(len(rg.tpls))
	rg.tpls = append(rg.tpls, t)
	n = min(n, max(t.t.replicas, 1)) // a template may cap the size

	gi := int32(len(rg.groups))
	gr := rGroup{w: int32(len(rg.ws)), tpl: w.tpl, name: w.name, uid: w.uid, nodeOff: int32(len(rg.podNodes)), revision: 1}
	gr.created = w.created
	switch w.kind {
	case wDeploy:
		gr.kind = gRS
		gr.uid = rg.newUIDs(1)
		nh := min(int(-math.Log(1-rg.r.Float64())*2), 10) // old revisions
		gr.revision = int32(nh + 1)
		gr.created = rg.clockBack(86400, max(rg.now-w.created-86400, 86401))
		for k := 0; k < nh; k++ {
			span := gr.created - w.created
			w.history = append(w.history, rHistory{uid: rg.newUIDs(1), revision: int32(k + 1),
				created: w.created + span*int64(k)/int64(max(nh, 1)),
				tag:     "0." + strconv.Itoa(k+1) + "." + strconv.Itoa(rg.r.IntN(10))})
		}
		w.surge = "25%"
	case wSTS:
		gr.kind = gSTS
		w.svcName = w.name + "-headless"
	case wJob:
		gr.kind = gJob
		w.indexed = rg.chance(0.3)
		w.succeeded = int32(rg.r.IntN(5))
		gr.finished = w.succeeded
		w.completions = w.succeeded + int32(n) + int32(rg.r.IntN(2*n+1))
		w.replicas = int32(n)
		gr.created = w.created
	}
	gr.podUID = rg.newUIDs(int(gr.finished) + n + extra)
	gr.runFrom, gr.runTo = gr.created+30, rg.now-3600
	placed := rg.placeRunning(t, n)
	rg.runBudget -= n // the nodes may be full: then the workload runs short
	if placed == 0 {
		return false
	}
	gr.running = int32(placed)
	gr.replicas = gr.running
	w.replicas = gr.running
	if extra > 0 {
		if w.kind == wDeploy && placed <= rg.pendBudget && rg.chance(0.5) {
			// A rollout in flight, surging by 100%: a new ReplicaSet with
			// another image and all the replicas, pending; the old one keeps
			// the running pods until they are replaced.
			extra = placed
			rg.pendBudget -= extra
			nt := rg.rollout(t)
			rg.finishTpl(nt)
			w.tpl = int32(len(rg.tpls))
			rg.tpls = append(rg.tpls, nt)
			ng := rGroup{kind: gRS, w: gr.w, tpl: w.tpl, name: w.name, uid: rg.newUIDs(1), created: rg.clockBack(0, 600),
				pending: int32(extra), replicas: int32(extra), nodeOff: int32(len(rg.podNodes)), revision: gr.revision + 1}
			ng.podUID = rg.newUIDs(extra)
			ng.pendFrom = ng.created
			w.surge = "100%"
			w.groups = append(w.groups, gi, gi+1)
			rg.groups = append(rg.groups, gr, ng)
			return true
		}
		// A scale-up: more pods of the same ReplicaSet or StatefulSet.
		rg.pendBudget -= extra
		gr.pending = int32(extra)
		gr.replicas += int32(extra)
		gr.pendFrom = rg.clockBack(0, 600)
		w.replicas = gr.replicas
		w.parallel = w.kind == wSTS
	}
	w.groups = append(w.groups, gi)
	rg.groups = append(rg.groups, gr)
	return true
}

// planNew plans a workload created minutes ago: all n pods pending.
func (rg *rgen) planNew(w *rWorkload, n int) {
	ns := &rg.nss[w.ns]
	w.created = rg.clockBack(0, 600)
	t := rg.newTpl(w)
	rg.appTemplate(t, rg.homePool(ns), true)
	if w.kind == wJob {
		t.restart = pick(rg.r, []weighted[string]{{"Never", 60}, {"OnFailure", 40}})
		t.labels = append(t.labels, rg.jobLabels(w)...)
	}
	if rg.chance(0.3) {
		rg.oddFeature(t)
	}
	n = min(n, max(t.t.replicas, 1)) // a feature may cap the size
	rg.finishTpl(t)
	w.tpl = int32(len(rg.tpls))
	rg.tpls = append(rg.tpls, t)
	gr := rGroup{w: int32(len(rg.ws)), tpl: w.tpl, name: w.name, uid: w.uid, created: w.created + 1,
		pending: int32(n), replicas: int32(n), nodeOff: int32(len(rg.podNodes)), revision: 1}
	switch w.kind {
	case wDeploy:
		gr.kind = gRS
		gr.uid = rg.newUIDs(1)
		w.surge = "25%"
	case wSTS:
		gr.kind = gSTS
		gr.created = w.created
		w.parallel = true
		w.svcName = w.name + "-headless"
	case wJob:
		gr.kind = gJob
		gr.created = w.created
		w.indexed = rg.chance(0.3)
		w.completions = int32(n) * int32(1+rg.r.IntN(3))
	}
	gr.podUID = rg.newUIDs(n)
	gr.pendFrom = gr.created
	w.replicas = int32(n)
	w.groups = []int32{int32(len(rg.groups))}
	rg.groups = append(rg.groups, gr)
	rg.pendBudget -= n
}

// placeRunning places n running pods of t on nodes of its pools with room
// (one per node under its required hostname anti-affinity) and returns how
// many it placed; their nodes are appended to podNodes.
func (rg *rgen) placeRunning(t *rTpl, n int) int {
	var live []int32 // eligible pools' nodes, by pool
	var sizes []int
	var poolsOf []int
	for p := 0; p < numPools; p++ {
		if t.pools&(1<<p) != 0 && len(rg.poolLive[p]) > 0 {
			sizes = append(sizes, len(rg.poolLive[p]))
			poolsOf = append(poolsOf, p)
		}
	}
	if len(sizes) == 0 {
		return 0
	}
	var used map[int32]bool
	if t.antiHost {
		used = map[int32]bool{}
	}
	ok := func(ni int32) bool {
		return (used == nil || !used[ni]) && rg.fits(int(ni), t.cpu, t.mem, t.gpu)
	}
	placed := 0
	for ; placed < n; placed++ {
		ni := int32(-1)
		for try := 0; try < 24 && ni < 0; try++ {
			pl := rg.poolLive[poolsOf[pickIdx(rg.r, sizes)]]
			if c := pl[rg.r.IntN(len(pl))]; ok(c) {
				ni = c
			}
		}
		if ni < 0 {
			if live == nil {
				for _, p := range poolsOf {
					live = append(live, rg.poolLive[p]...)
				}
			}
			start := rg.r.IntN(len(live))
			for k := range live {
				if c := live[(start+k)%len(live)]; ok(c) {
					ni = c
					break
				}
			}
		}
		if ni < 0 {
			break
		}
		rg.usePod(int(ni), t.cpu, t.mem, t.gpu)
		rg.podNodes = append(rg.podNodes, ni)
		if used != nil {
			used[ni] = true
		}
	}
	return placed
}

// ---------------------------------------------------------------------------
// Services and budgets.

func (rg *rgen) planServices() {
	for wi := range rg.ws {
		w := &rg.ws[wi]
		if _, running, pending := rg.wlCounts(w); running+pending == 0 {
			continue // scaled to zero: nothing to select
		}
		t := rg.tpls[w.tpl]
		ns := w.ns
		add := func(name string, headless bool, port, target int32) {
			s := rSvc{ns: ns, name: name, uid: rg.newUIDs(1), created: w.created, sel: t.sel, headless: headless,
				typ: "ClusterIP", port: port, target: target, w: int32(wi)}
			if !headless && rg.chance(0.02) {
				s.typ = pick(rg.r, []weighted[string]{{"LoadBalancer", 50}, {"NodePort", 50}})
			}
			w.svcs = append(w.svcs, int32(len(rg.svcs)))
			rg.svcs = append(rg.svcs, s)
		}
		switch w.kind {
		case wDeploy:
			if rg.chance(0.85) {
				add(w.name, false, 80, t.port)
				if rg.chance(0.1) {
					add(w.name+"-metrics", false, 9090, 9090)
				}
			}
		case wSTS:
			add(w.svcName, true, t.port, t.port)
			if rg.chance(0.5) {
				add(w.name, false, t.port, t.port)
			}
		case wDS:
			if w.name == "node-exporter" {
				add(w.name, false, 9100, 9100)
			}
		}
		if (w.kind == wDeploy || w.kind == wSTS) && w.replicas >= 2 && rg.chance(0.3) {
			rg.planPDB(wi)
		}
	}
}

// planPDB gives workload wi a PodDisruptionBudget over its pods, with the
// status the disruption controller would give it (a fifth were just
// created and have none).
func (rg *rgen) planPDB(wi int) {
	w := &rg.ws[wi]
	t := rg.tpls[w.tpl]
	healthy, expected := int32(0), int32(0)
	for _, gi := range w.groups {
		gr := &rg.groups[gi]
		healthy += gr.running
		expected += gr.running + gr.pending
	}
	p := rPDB{ns: w.ns, name: w.name, uid: rg.newUIDs(1), created: w.created + 5, sel: t.sel, expected: expected,
		healthy: healthy, status: rg.chance(0.8), w: int32(wi)}
	if rg.workloads {
		p.expected = healthy // the controllers have not created the pending pods yet
	}
	e := p.expected
	switch x := rg.r.IntN(10); {
	case x < 3:
		v := max(e-1, 1)
		p.minAv = strconv.Itoa(int(v))
		p.desired = v
	case x < 6:
		pct := pick(rg.r, []weighted[int32]{{50, 1}, {80, 2}, {90, 1}})
		p.minAv = strconv.Itoa(int(pct)) + "%"
		p.desired = (pct*e + 99) / 100
	case x < 8:
		p.maxUnav = "1"
		p.desired = max(e-1, 0)
	default:
		pct := pick(rg.r, []weighted[int32]{{10, 2}, {25, 1}})
		p.maxUnav = strconv.Itoa(int(pct)) + "%"
		p.desired = e - (pct*e+99)/100
	}
	w.pdb = int32(len(rg.pdbs))
	rg.pdbs = append(rg.pdbs, p)
}

// ---------------------------------------------------------------------------
// Node labels.

// nodeLabel is the value of label key on nd, as writeRealNode writes it.
func (rg *rgen) nodeLabel(nd *node, key string) (string, bool) {
	for _, l := range rg.realNodeLabels(nd, nil) {
		if l.k == key {
			return l.v, true
		}
	}
	return "", false
}

// poolLabel is the value of a pool-level node label on the nodes of pool
// p (those that do not vary within a pool).
func poolLabel(p int, key string) (string, bool) {
	pl := &pools[p]
	switch key {
	case "pool":
		return pl.name, true
	case "kubernetes.io/arch":
		return instanceTypes[pl.types[0].v].arch, true
	case "kubernetes.io/os":
		return "linux", true
	}
	for _, l := range pl.labels {
		if l.k == key {
			return l.v, true
		}
	}
	return "", false
}

// tolerated reports whether tols tolerate every NoSchedule and NoExecute
// taint of taints.
func tolerated(tols []toleration, taints []taint) bool {
	for _, tn := range taints {
		if tn.effect == "PreferNoSchedule" {
			continue
		}
		if !slices.ContainsFunc(tols, func(tl toleration) bool { return toleratesTaint(&tl, &tn) }) {
			return false
		}
	}
	return true
}

func cmpKV(a, b kv) int { return cmp.Compare(a.k, b.k) }

func sortedKVs(kvs []kv) []kv {
	slices.SortFunc(kvs, cmpKV)
	return slices.CompactFunc(kvs, func(a, b kv) bool { return a.k == b.k })
}
