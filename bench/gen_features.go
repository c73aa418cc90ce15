package bench

import (
	"math"
	"slices"
	"strconv"
)

// The pod template features: tolerations, node selectors, required and
// preferred node affinity, sizes and shapes, each drawn by a profile
// (see gen_catalog.go).

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
