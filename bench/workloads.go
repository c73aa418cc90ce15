package bench

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// A cluster of controllers and the pods they hold, as `kubectl get
// nodes,pods,priorityclasses,deploy,rs,sts,ds,jobs,rc -A -o json` exports
// it (objects as the API server stores them: uids, defaulted templates,
// controller references): the input of expansion benchmarks and tests.
// Each controller holds a share of its pods running, a share pending, and
// lacks the rest, which expansion creates.

// WorkloadConfig configures GenerateWorkloads.
type WorkloadConfig struct {
	Nodes int
	// Workloads is the number of controllers besides the DaemonSets:
	// Deployments (each with its ReplicaSet) 70%, StatefulSets 10%, Jobs
	// 10% (half Indexed), ReplicaSets 5%, ReplicationControllers 5%; 1 to
	// 20 replicas each.
	Workloads, DaemonSets int
	// Running and Pending are the shares of each controller's pods written
	// bound to a node and unbound; the rest are missing.
	Running, Pending float64
	// DaemonPods is the share of the nodes a DaemonSet runs on that hold
	// its pod (running); the others lack it.
	DaemonPods float64
	Seed       uint64
}

// wgen writes one workload cluster.
type wgen struct {
	cfg   WorkloadConfig
	r     *rand.Rand
	w     *bufio.Writer
	buf   []byte
	first bool
	ids   gen // draws uids
	nodes []wnode
	next  int // the node the next running pod goes to
}

type wnode struct {
	name                             string
	zone                             int
	infra, tainted, cordoned, broken bool
}

// GenerateWorkloads writes a workload cluster as a JSON List, the same
// bytes for the same cfg.
func GenerateWorkloads(cfg WorkloadConfig, w io.Writer) error {
	if cfg.Nodes <= 0 {
		return fmt.Errorf("bench: %d nodes", cfg.Nodes)
	}
	g := &wgen{cfg: cfg, r: rand.New(rand.NewPCG(cfg.Seed, 0x776c)), w: bufio.NewWriterSize(w, 1<<20), first: true,
		ids: gen{uidSalt: splitmix(cfg.Seed ^ 0x776c)}}
	g.w.WriteString(`{"apiVersion":"v1","kind":"List","metadata":{},"items":[`)
	g.item(`{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"},"value":100000}`)
	g.writeNodes()
	for i := 0; i < cfg.DaemonSets; i++ {
		g.writeDaemonSet(i)
	}
	for i := 0; i < cfg.Workloads; i++ {
		switch k := g.r.IntN(20); {
		case k < 14:
			g.writeReplicated(i, "Deployment")
		case k < 16:
			g.writeStatefulSet(i)
		case k < 18:
			g.writeJob(i)
		case k < 19:
			g.writeReplicated(i, "ReplicaSet")
		default:
			g.writeReplicated(i, "ReplicationController")
		}
	}
	g.w.WriteString("\n]}\n")
	return g.w.Flush()
}

func (g *wgen) item(s string) {
	if !g.first {
		g.w.WriteByte(',')
	}
	g.first = false
	g.w.WriteByte('\n')
	g.w.WriteString(s)
}

func (g *wgen) flush() {
	g.item(string(g.buf))
	g.buf = g.buf[:0]
}

// uid is a new uid, as Generate draws them.
func (g *wgen) uid() string { return string(g.ids.appendUID(nil)) }

func (g *wgen) writeNodes() {
	for i := 0; i < g.cfg.Nodes; i++ {
		n := wnode{name: fmt.Sprintf("node-%06d", i), zone: i % 8}
		switch k := g.r.IntN(100); {
		case k < 8:
			n.infra, n.tainted = true, true
		case k < 9:
			n.cordoned = true
		case k < 10:
			n.broken = true // not ready
		}
		g.nodes = append(g.nodes, n)
		b := append(g.buf, `{"apiVersion":"v1","kind":"Node","metadata":{"name":`...)
		b = appendStr(b, n.name)
		b = append(b, `,"uid":"`...)
		b = append(b, g.uid()...)
		b = append(b, `","labels":{"kubernetes.io/hostname":`...)
		b = appendStr(b, n.name)
		b = append(b, `,"kubernetes.io/os":"linux","node-role":`...)
		b = appendStr(b, map[bool]string{true: "infra", false: "worker"}[n.infra])
		b = append(b, `,"topology.kubernetes.io/zone":"zone-`...)
		b = strconv.AppendInt(b, int64(n.zone), 10)
		b = append(b, `"}},"spec":{`...)
		var taints []string
		switch {
		case n.tainted:
			taints = append(taints, `{"key":"dedicated","value":"infra","effect":"NoSchedule"}`)
		case n.cordoned:
			b = append(b, `"unschedulable":true,`...)
			taints = append(taints, `{"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule"}`)
		case n.broken:
			taints = append(taints, `{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}`,
				`{"key":"node.kubernetes.io/not-ready","effect":"NoExecute","timeAdded":"2025-01-01T00:00:00Z"}`)
		}
		b = append(b, `"taints":[`...)
		for j, t := range taints {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, t...)
		}
		b = append(b, `]},"status":{"allocatable":{"cpu":"32","memory":"128Gi","pods":"110","ephemeral-storage":"200Gi"},"capacity":{"cpu":"32","memory":"128Gi","pods":"110","ephemeral-storage":"200Gi"}}}`...)
		g.buf = b
		g.flush()
	}
}

// runsDaemon reports whether daemon set i runs on n: even ones on
// workers only (a nodeSelector), odd ones tolerate the infra taint; none
// on nodes not ready (the NoSchedule taint).
func runsDaemon(i int, n *wnode) bool {
	if n.broken {
		return false
	}
	if i%2 == 0 {
		return !n.infra
	}
	return true
}

// appendSpec appends a stored pod spec (API defaults applied) of one
// container; extra holds more fields, each followed by a comma.
func appendSpec(b []byte, image string, cpu, memMi int, extra, restart string) []byte {
	b = append(b, `{"containers":[{"name":"main","image":`...)
	b = appendStr(b, image)
	b = append(b, `,"imagePullPolicy":"IfNotPresent","resources":{"requests":{"cpu":"`...)
	b = strconv.AppendInt(b, int64(cpu), 10)
	b = append(b, `m","memory":"`...)
	b = strconv.AppendInt(b, int64(memMi), 10)
	b = append(b, `Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst",`...)
	b = append(b, extra...)
	b = append(b, `"restartPolicy":`...)
	b = appendStr(b, restart)
	return append(b, `,"schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}`...)
}

func (g *wgen) writeDaemonSet(i int) {
	name, uid := fmt.Sprintf("daemon-%d", i), g.uid()
	extra := `"nodeSelector":{"node-role":"worker"},"priorityClassName":"system-node-critical",`
	if i%2 == 1 {
		extra = `"priorityClassName":"system-node-critical","tolerations":[{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}],`
	}
	labels := `{"app":` + strconv.Quote(name) + `}`
	spec := string(appendSpec(nil, "agent:"+strconv.Itoa(i), 20+10*i, 32, extra, "Always"))
	g.buf = fmt.Appendf(g.buf, `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":%q,"namespace":"kube-system","uid":%q,`+
		`"annotations":{"deprecated.daemonset.template.generation":"1"}},"spec":{"revisionHistoryLimit":10,"selector":{"matchLabels":%s},`+
		`"template":{"metadata":{"creationTimestamp":null,"labels":%s},"spec":%s}}}`, name, uid, labels, labels, spec)
	g.flush()
	off := g.r.Uint64()
	for ni := range g.nodes {
		n := &g.nodes[ni]
		if !runsDaemon(i, n) || g.r.Float64() >= g.cfg.DaemonPods {
			continue
		}
		pod := string(appendSuffix([]byte(name+"-"), ni, off))
		g.writePod(pod, "kube-system", "DaemonSet", name, uid, labels, spec, n.name, "")
	}
}

// suffix is a random pod name suffix (or hash); pods of one controller
// take theirs from appendSuffix, distinct.
func (g *wgen) suffix() string {
	var b [5]byte
	for i := range b {
		b[i] = safeAlphabet[g.r.IntN(len(safeAlphabet))]
	}
	return string(b[:])
}

// writePod writes a pod of a controller; node "" leaves it pending. meta
// holds more metadata fields, each followed by a comma ("" for none).
func (g *wgen) writePod(name, ns, ownerKind, owner, ownerUID, labels, spec, node, meta string) {
	apiVersion := "apps/v1"
	switch ownerKind {
	case "Job":
		apiVersion = "batch/v1"
	case "ReplicationController":
		apiVersion = "v1"
	}
	b := fmt.Appendf(g.buf, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"namespace":%q,"uid":%q,"creationTimestamp":"2025-01-01T00:00:00Z",`+
		`"labels":%s,%s"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}]},"spec":`,
		name, ns, g.uid(), labels, meta, apiVersion, ownerKind, owner, ownerUID)
	if node != "" {
		// Bound: the spec with its nodeName.
		b = append(b, `{"nodeName":`...)
		b = appendStr(b, node)
		b = append(b, ',')
		b = append(b, spec[1:]...)
		b = append(b, `,"status":{"phase":"Running","startTime":"2025-01-01T00:00:10Z"}}`...)
	} else {
		b = append(b, spec...)
		b = append(b, `,"status":{"phase":"Pending"}}`...)
	}
	g.buf = b
	g.flush()
}

// podState decides whether a replica's pod is written, bound to a node
// (node set) or pending, or missing.
func (g *wgen) podState() (write bool, node string) {
	x := g.r.Float64()
	if x < g.cfg.Running {
		return true, g.nodeFor()
	}
	return x < g.cfg.Running+g.cfg.Pending, ""
}

func (g *wgen) nodeFor() string {
	for {
		n := &g.nodes[g.next%len(g.nodes)]
		g.next++
		if !n.tainted && !n.cordoned && !n.broken {
			return n.name
		}
	}
}

func (g *wgen) replicas() int { return 1 + g.r.IntN(20) }

func (g *wgen) namespace() string { return fmt.Sprintf("team-%d", g.r.IntN(50)) }

func (g *wgen) shape() (cpu, mem int, extra string) {
	cpu, mem = 100*(1+g.r.IntN(8)), 128*(1+g.r.IntN(8))
	if g.r.IntN(5) == 0 {
		extra = `"priorityClassName":"high",`
	}
	return cpu, mem, extra
}

// writeReplicated writes a Deployment with its ReplicaSet, a ReplicaSet or
// a ReplicationController, and its pods.
func (g *wgen) writeReplicated(i int, kind string) {
	ns, reps := g.namespace(), g.replicas()
	name := fmt.Sprintf("%s-%d", map[string]string{"Deployment": "web", "ReplicaSet": "rs", "ReplicationController": "rc"}[kind], i)
	cpu, mem, extra := g.shape()
	spec := string(appendSpec(nil, "app:"+strconv.Itoa(i%97), cpu, mem, extra, "Always"))
	labels := `{"app":` + strconv.Quote(name) + `}`
	owner, ownerUID, ownerKind := name, g.uid(), kind
	podLabels := labels
	switch kind {
	case "Deployment":
		g.buf = fmt.Appendf(g.buf, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"namespace":%q,"uid":%q,"creationTimestamp":"2025-01-01T00:00:00Z"},`+
			`"spec":{"replicas":%d,"selector":{"matchLabels":%s},"template":{"metadata":{"creationTimestamp":null,"labels":%s},"spec":%s}}}`,
			name, ns, ownerUID, reps, labels, labels, spec)
		g.flush()
		hash := g.suffix() + g.suffix()[:4]
		rs, rsUID := name+"-"+hash, g.uid()
		podLabels = `{"app":` + strconv.Quote(name) + `,"pod-template-hash":"` + hash + `"}`
		g.buf = fmt.Appendf(g.buf, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":%q,"namespace":%q,"uid":%q,"creationTimestamp":"2025-01-01T00:00:00Z",`+
			`"labels":%s,"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}]},`+
			`"spec":{"replicas":%d,"selector":{"matchLabels":%s},"template":{"metadata":{"creationTimestamp":null,"labels":%s},"spec":%s}}}`,
			rs, ns, rsUID, podLabels, name, ownerUID, reps, podLabels, podLabels, spec)
		g.flush()
		owner, ownerUID, ownerKind = rs, rsUID, "ReplicaSet"
	case "ReplicaSet":
		g.buf = fmt.Appendf(g.buf, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":%q,"namespace":%q,"uid":%q,"creationTimestamp":"2025-01-01T00:00:00Z"},`+
			`"spec":{"replicas":%d,"selector":{"matchLabels":%s},"template":{"metadata":{"creationTimestamp":null,"labels":%s},"spec":%s}}}`,
			name, ns, ownerUID, reps, labels, labels, spec)
		g.flush()
	default:
		g.buf = fmt.Appendf(g.buf, `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":%q,"namespace":%q,"uid":%q,"creationTimestamp":"2025-01-01T00:00:00Z"},`+
			`"spec":{"replicas":%d,"selector":%s,"template":{"metadata":{"creationTimestamp":null,"labels":%s},"spec":%s}}}`,
			name, ns, ownerUID, reps, labels, labels, spec)
		g.flush()
	}
	off := g.r.Uint64()
	for k := 0; k < reps; k++ {
		write, node := g.podState()
		if !write {
			continue
		}
		g.writePod(string(appendSuffix([]byte(owner+"-"), k, off)), ns, ownerKind, owner, ownerUID, podLabels, spec, node, "")
	}
}

func (g *wgen) writeStatefulSet(i int) {
	ns, reps, name, uid := g.namespace(), g.replicas(), fmt.Sprintf("db-%d", i), g.uid()
	cpu, mem, extra := g.shape()
	spec := string(appendSpec(nil, "db:"+strconv.Itoa(i%13), cpu, mem, extra, "Always"))
	labels := `{"app":` + strconv.Quote(name) + `}`
	start := 0
	if i%3 == 0 {
		start = 1 + g.r.IntN(5)
	}
	rev := name + "-" + g.suffix() + g.suffix()
	g.buf = fmt.Appendf(g.buf, `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":%q,"namespace":%q,"uid":%q,"creationTimestamp":"2025-01-01T00:00:00Z"},`+
		`"spec":{"replicas":%d,"ordinals":{"start":%d},"podManagementPolicy":"Parallel","serviceName":%q,"selector":{"matchLabels":%s},`+
		`"template":{"metadata":{"creationTimestamp":null,"labels":%s},"spec":%s}},"status":{"updateRevision":%q,"currentRevision":%q,"collisionCount":0}}`,
		name, ns, uid, reps, start, name, labels, labels, spec, rev, rev)
	g.flush()
	for ord := start; ord < start+reps; ord++ {
		write, node := g.podState()
		if !write {
			continue
		}
		pod := fmt.Sprintf("%s-%d", name, ord)
		podLabels := fmt.Sprintf(`{"app":%q,"apps.kubernetes.io/pod-index":"%d","controller-revision-hash":%q,"statefulset.kubernetes.io/pod-name":%q}`, name, ord, rev, pod)
		g.writePod(pod, ns, "StatefulSet", name, uid, podLabels, spec[:len(spec)-1]+fmt.Sprintf(`,"hostname":%q,"subdomain":%q}`, pod, name), node, "")
	}
}

func (g *wgen) writeJob(i int) {
	ns, reps, name, uid := g.namespace(), g.replicas(), fmt.Sprintf("job-%d", i), g.uid()
	cpu, mem, _ := g.shape()
	spec := string(appendSpec(nil, "batch:"+strconv.Itoa(i%7), cpu, mem, "", "Never"))
	labels := fmt.Sprintf(`{"batch.kubernetes.io/controller-uid":%q,"batch.kubernetes.io/job-name":%q,"controller-uid":%q,"job-name":%q}`, uid, name, uid, name)
	indexed := i%2 == 0
	mode, completions := "NonIndexed", 2*reps
	if indexed {
		mode, completions = "Indexed", reps
	}
	g.buf = fmt.Appendf(g.buf, `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":%q,"namespace":%q,"uid":%q,"creationTimestamp":"2025-01-01T00:00:00Z"},`+
		`"spec":{"parallelism":%d,"completions":%d,"completionMode":%q,"backoffLimit":6,"selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":%q}},`+
		`"template":{"metadata":{"creationTimestamp":null,"labels":%s},"spec":%s}},"status":{"active":0,"succeeded":0}}`,
		name, ns, uid, reps, completions, mode, uid, labels, spec)
	g.flush()
	off := g.r.Uint64()
	for k := 0; k < reps; k++ {
		write, node := g.podState()
		if !write {
			continue
		}
		podLabels, meta, pod := labels, `"finalizers":["batch.kubernetes.io/job-tracking"],`, string(appendSuffix([]byte(name+"-"), k, off))
		if indexed {
			podLabels = labels[:len(labels)-1] + fmt.Sprintf(`,"batch.kubernetes.io/job-completion-index":"%d"}`, k)
			meta += fmt.Sprintf(`"annotations":{"batch.kubernetes.io/job-completion-index":"%d"},`, k)
			pod = fmt.Sprintf("%s-%d-%s", name, k, g.suffix())
		}
		g.writePod(pod, ns, "Job", name, uid, podLabels, spec, node, meta)
	}
}
