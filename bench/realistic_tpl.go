package bench

// Pod templates of the realistic profile: what a workload's spec.template
// holds (labels, annotations, containers with env, probes and mounts,
// volumes, tolerations, node selectors), drawn from the seeded stream.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kplace/kplace/index"
)

// rTpl is a workload's pod template and what its pods share.
type rTpl struct {
	kind    uint8 // workload kind
	ns      *rNS
	t       podTemplate
	app     string // app name: the workload name without its sequence number
	sel     []kv   // selector labels (a subset of labels)
	labels  []kv   // template labels, sorted
	annots  []kv   // template annotations, sorted
	sa      string // serviceAccountName; "" for the namespace's default
	restart string // restartPolicy
	hostNet bool
	hostPID bool
	// antiHost: required pod anti-affinity on hostname over its own pods
	// (its running pods are placed one per node).
	antiHost bool
	port     int32   // the main container's port (Services target it)
	cx       []cxtra // per container: containers, then init containers
	vols     []rVol
	podSC    string // pod securityContext JSON ("{}" when empty)
	aff      []byte // template spec.affinity members, rendered (node and pod affinity)
	pools    uint16 // pools whose nodes its running pods may use

	// derived by finishTpl
	podTols       []toleration
	ctlTols       int // podTols[:ctlTols] are those the pods' creator sends
	cpu, mem, gpu int64
	qos           string
	images        []string

	// rendered by rgen.render
	r *rRendered
}

// cxtra is what a container has beyond podTemplate's container: command
// and args, env, probes, mounts, security context.
type cxtra struct {
	command, args []string
	env           []envVar
	envFrom       []envFrom
	live, ready   *probe
	startup       *probe
	mounts        []mount
	sc            string // securityContext JSON, "" for none
}

type envVar struct {
	name, value string
	// from: "" (a value), "field" (fieldRef ref), "secret" or "configmap"
	// (keyRef ref/key), "resource" (resourceFieldRef ref).
	from, ref, key string
}

type envFrom struct {
	secret bool
	name   string
}

type probe struct {
	http                    bool // httpGet path/port; else tcpSocket port
	path                    string
	port                    string // a number or a port name
	initial, period, thresh int32
}

type mount struct {
	name, path, sub string
	ro              bool
}

// rVol is a volume of the template. kind: configMap, secret, emptyDir,
// downwardAPI, hostPath, projected (a service account token for an
// audience).
type rVol struct {
	name, kind, ref string
	medium          string // emptyDir medium
}

func (rg *rgen) newTpl(w *rWorkload) *rTpl {
	t := &rTpl{kind: w.kind, ns: &rg.nss[w.ns], restart: "Always", podSC: "{}"}
	t.t.ns = &t.ns.namespace
	t.t.deploy = w.name
	t.t.replicas = 1 << 30
	t.app = w.name
	if i := strings.LastIndexByte(w.name, '-'); i > 0 && w.kind != wDS {
		t.app = w.name[:i]
	}
	return t
}

// finishTpl derives what placement and rendering need from the drawn
// template.
func (rg *rgen) finishTpl(t *rTpl) {
	t.labels = sortedKVs(t.labels)
	t.annots = sortedKVs(t.annots)
	t.sel = sortedKVs(t.sel)
	// A map in the object: one value per key, in key order. The clone
	// keeps a template drawn from another (a rollout's) from sorting and
	// compacting the array the other still renders.
	t.t.nodeSelector = sortedKVs(slices.Clone(t.t.nodeSelector))
	t.podTols, t.ctlTols = t.podTolerations()
	canonical := func(rs []res) {
		for i := range rs {
			// The API server stores quantities in canonical form: a byte
			// count that is no multiple of 1024 has a decimal suffix.
			if isBytes(rs[i].name) && rs[i].v%1024 != 0 {
				rs[i].si = true
			}
		}
	}
	for _, cs := range [2][]container{t.t.containers, t.t.initContainers} {
		for i := range cs {
			canonical(cs[i].req)
			canonical(cs[i].lim)
		}
	}
	canonical(t.t.overhead)
	t.cpu, t.mem, t.gpu = effectiveRequests(&t.t)
	t.qos = qosClass(&t.t)
	t.images = t.images[:0]
	for _, cs := range [2][]container{t.t.containers, t.t.initContainers} {
		for i := range cs {
			t.images = append(t.images, cs[i].image)
		}
	}
	for len(t.cx) < len(t.t.containers)+len(t.t.initContainers) {
		t.cx = append(t.cx, cxtra{})
	}
}

// toleratesTaint: the toleration rule of index.Toleration.
func toleratesTaint(tl *toleration, tn *taint) bool {
	it := index.Toleration{Key: tl.key, Operator: tl.op, Value: tl.value, Effect: tl.effect}
	return it.ToleratesTaint(&index.Taint{Key: tn.key, Value: tn.value, Effect: tn.effect})
}

// ---------------------------------------------------------------------------
// Application templates (Deployments, StatefulSets, Jobs, bare pods).

// dataStores are the StatefulSets' images and ports; a port's name is
// "tcp-" and the store's (an IANA service name: 15 characters at most).
var dataStores = []struct {
	name, image string
	port        int32
}{
	{"postgres", "docker.io/library/postgres:16.3", 5432},
	{"redis", "docker.io/library/redis:7.2.5", 6379},
	{"kafka", "docker.io/bitnami/kafka:3.7.0", 9092},
	{"zookeeper", "docker.io/bitnami/zookeeper:3.9.2", 2181},
	{"elastic", "docker.elastic.co/elasticsearch/elasticsearch:8.14.1", 9200},
	{"rabbitmq", "docker.io/library/rabbitmq:3.13.3-management", 5672},
	{"etcd", "quay.io/coreos/etcd:v3.5.14", 2379},
	{"mongodb", "docker.io/library/mongo:7.0.11", 27017},
}

// appTemplate draws an application's template for home pool home: labels,
// annotations, containers (requests, env, probes, mounts), volumes, the
// pool's tolerations and node selector, sometimes soft preferences;
// pending-only workloads may also have the odd shapes (limits only,
// BestEffort).
func (rg *rgen) appTemplate(t *rTpl, home int, pendingOnly bool) {
	tt := &t.t
	rg.pickPriority(tt)
	rg.baseContainers(tt, pendingOnly)
	if len(tt.containers) > 1 && rg.chance(0.75) {
		tt.containers = tt.containers[:1] // a service mesh sidecar in 5% of the templates, not 20%
	}
	if t.kind == wSTS {
		ds := dataStores[rg.r.IntN(len(dataStores))]
		tt.main().image = ds.image
		tt.main().ports = []port{{name: "tcp-" + ds.name, containerPort: ds.port}}
		t.antiHost = rg.chance(0.4)
	}
	if len(tt.main().ports) == 0 && t.kind != wJob {
		tt.main().ports = []port{{name: "http", containerPort: 8080}}
	}
	if len(tt.main().ports) > 0 {
		t.port = tt.main().ports[0].containerPort
	}
	rg.appLabels(t)
	rg.appAnnotations(t)
	if t.kind != wBare && rg.chance(0.6) {
		t.sa = t.app
	}
	// Soft preferences (they need no care when running pods are placed).
	switch x := rg.r.Float64(); {
	case x < 0.08:
		rg.prefTerms(tt)
	case x < 0.14 && t.kind != wJob:
		tt.antiPref = append(tt.antiPref, weightedAffTerm{100, podAffTerm{sel: labelSelector{labels: t.sel}, key: keyHost}})
	case x < 0.18 && t.kind != wJob:
		tt.spread = append(tt.spread, spreadConstraint{maxSkew: 1, key: keyZone, when: scheduleAnyway, sel: labelSelector{labels: t.sel}})
	}
	if t.antiHost {
		tt.antiReq = append(tt.antiReq, podAffTerm{sel: labelSelector{labels: t.sel}, key: keyHost})
	}
	if rg.chance(0.15) {
		f := pickFeature(rg.r, realisticShapes)
		f.apply(rg.gen, tt)
	}
	rg.homeConstraints(t, home)
	rg.appExtras(t)
}

// realisticShapes are the resource shapes running pods may have too (no
// host ports: their running pods are placed without port checks).
var realisticShapes = []feature{
	{"shape-init", 8, (*gen).shapeInit},
	{"shape-sidecar-init", 5, (*gen).shapeSidecarInit},
	{"shape-overhead", 2, (*gen).shapeOverhead},
	{"shape-ephemeral", 5, (*gen).shapeEphemeral},
	{"shape-multi-container", 5, (*gen).shapeMultiContainer},
}

// oddFeature gives a workload created minutes ago one feature of the
// mixed profile's axes: a toleration or node-affinity form, a resource
// shape, a hard topology spread constraint or anti-affinity; some of them
// leave the pods unschedulable, as a real cluster always has a few.
func (rg *rgen) oddFeature(t *rTpl) {
	tt := &t.t
	tt.replicas = min(tt.replicas, 20) // odd workloads are small ones
	switch rg.r.IntN(6) {
	case 0:
		pickFeature(rg.r, withNone(taintFeatures, 0)).apply(rg.gen, tt)
	case 1, 2:
		pickFeature(rg.r, withNone(affinityFeatures, 0)).apply(rg.gen, tt)
	case 3:
		if f := pickFeature(rg.r, mixedSizeFeatures); f.apply != nil {
			f.apply(rg.gen, tt)
		} else {
			rg.shapeHostPort(tt)
		}
	case 4:
		if t.kind != wJob && len(tt.spread) == 0 {
			tt.spread = append(tt.spread, spreadConstraint{maxSkew: 1, key: keyZone, when: doNotSchedule, sel: labelSelector{labels: t.sel}})
			if rg.chance(0.5) {
				tt.spread = append(tt.spread, spreadConstraint{maxSkew: 1, key: keyHost, when: scheduleAnyway, sel: labelSelector{labels: t.sel}})
			}
		}
	default:
		if !t.antiHost && t.kind != wJob {
			t.antiHost = true
			tt.antiReq = append(tt.antiReq, podAffTerm{sel: labelSelector{labels: t.sel}, key: keyHost})
			tt.replicas = min(tt.replicas, max(len(rg.nodes)/4, 1))
		}
	}
}

func (rg *rgen) appLabels(t *rTpl) {
	w := t.t.deploy
	if rg.chance(0.6) {
		t.sel = []kv{{"app.kubernetes.io/instance", w}, {"app.kubernetes.io/name", t.app}}
		t.labels = append(t.labels, t.sel...)
		if rg.chance(0.5) {
			t.labels = append(t.labels, kv{"app.kubernetes.io/component", pick(rg.r, []weighted[string]{{"server", 4}, {"worker", 3}, {"api", 3}, {"database", 1}})})
		}
		if rg.chance(0.3) && t.ns.team != "" { // a label value starts alphanumeric
			t.labels = append(t.labels, kv{"app.kubernetes.io/part-of", t.ns.team + "-platform"})
		}
	} else {
		t.sel = []kv{{"app", w}}
		t.labels = append(t.labels, t.sel...)
		if rg.chance(0.4) {
			t.labels = append(t.labels, kv{"version", "v" + strconv.Itoa(1+rg.r.IntN(3))})
		}
	}
	if t.ns.team != "" {
		t.labels = append(t.labels, kv{"team", t.ns.team})
	}
	if rg.chance(0.2) {
		t.labels = append(t.labels, kv{"tier", pick(rg.r, []weighted[string]{{"frontend", 1}, {"backend", 2}})})
	}
}

func (rg *rgen) appAnnotations(t *rTpl) {
	if rg.chance(0.3) {
		t.annots = append(t.annots, kv{"prometheus.io/path", "/metrics"}, kv{"prometheus.io/port", "9090"}, kv{"prometheus.io/scrape", "true"})
	}
	if rg.chance(0.4) {
		var b []byte
		b = appendHex(b, rg.r.Uint64(), 16)
		b = appendHex(b, rg.r.Uint64(), 16)
		b = appendHex(b, rg.r.Uint64(), 16)
		b = appendHex(b, rg.r.Uint64(), 16)
		t.annots = append(t.annots, kv{"checksum/config", string(b)})
	}
	if rg.chance(0.1) {
		t.annots = append(t.annots, kv{"kubectl.kubernetes.io/restartedAt", fmtTime(rg.clockBack(3600, 30*86400))})
	}
	if rg.chance(0.05) {
		t.annots = append(t.annots, kv{"cluster-autoscaler.kubernetes.io/safe-to-evict", pick(rg.r, []weighted[string]{{"true", 1}, {"false", 1}})})
	}
	for i := range t.t.containers {
		if t.t.containers[i].name == "istio-proxy" {
			t.annots = append(t.annots,
				kv{"istio.io/rev", "default"},
				kv{"kubectl.kubernetes.io/default-container", "app"},
				kv{"kubectl.kubernetes.io/default-logs-container", "app"},
				kv{"sidecar.istio.io/status", `{"initContainers":["istio-init"],"containers":["istio-proxy"],"volumes":["workload-socket","credential-socket","workload-certs","istio-envoy","istio-data","istio-podinfo","istio-token","istiod-ca-cert"],"imagePullSecrets":null,"revision":"default"}`})
			t.labels = append(t.labels, kv{"security.istio.io/tlsMode", "istio"}, kv{"service.istio.io/canonical-name", t.app})
			t.t.initContainers = append(t.t.initContainers, container{name: "istio-init", image: "docker.io/istio/proxyv2:1.20.3",
				req: []res{{name: "cpu", v: 10}, {name: "memory", v: 40 * mi}}, lim: []res{{name: "cpu", v: 2000}, {name: "memory", v: 1 * gi}}})
			t.vols = append(t.vols, rVol{name: "workload-socket", kind: "emptyDir"}, rVol{name: "credential-socket", kind: "emptyDir"},
				rVol{name: "workload-certs", kind: "emptyDir"}, rVol{name: "istio-envoy", kind: "emptyDir", medium: "Memory"},
				rVol{name: "istio-data", kind: "emptyDir"}, rVol{name: "istio-podinfo", kind: "downwardAPI"},
				rVol{name: "istio-token", kind: "projected", ref: "istio-ca"}, rVol{name: "istiod-ca-cert", kind: "configMap", ref: "istio-ca-root-cert"})
			break
		}
	}
}

// homeConstraints gives t the tolerations and node selector of its home
// pool and sets the pools its running pods may use.
func (rg *rgen) homeConstraints(t *rTpl, home int) {
	tt := &t.t
	pl := &pools[home]
	switch home {
	case pGeneral, pCompute, pHighmem, pOnprem:
		if rg.chance(0.3) {
			tt.nodeSelector = append(tt.nodeSelector, kv{"pool", pl.name})
		}
	case pSpot:
		if rg.chance(0.7) {
			tt.tolerate(toleration{key: "spot", op: "Equal", value: "true", effect: "PreferNoSchedule"})
		}
		if rg.chance(0.5) {
			tt.nodeSelector = append(tt.nodeSelector, kv{"node.kubernetes.io/lifecycle", "spot"})
		}
	case pArm:
		tt.tolerate(toleration{key: "kubernetes.io/arch", op: "Equal", value: "arm64", effect: "NoSchedule"})
		tt.nodeSelector = append(tt.nodeSelector, kv{"kubernetes.io/arch", "arm64"})
	case pGPU:
		tt.replicas = min(tt.replicas, 16) // GPU fleets are small
		n := pick(rg.r, []weighted[int64]{{1, 40}, {2, 20}, {4, 20}, {8, 20}})
		m := tt.main()
		m.req = setRes(m.req, res{name: "nvidia.com/gpu", v: n})
		m.lim = setRes(m.lim, res{name: "nvidia.com/gpu", v: n})
		tt.tolerate(toleration{key: "nvidia.com/gpu", op: "Exists", effect: "NoSchedule"})
		if rg.chance(0.5) {
			tt.nodeSelector = append(tt.nodeSelector, kv{"nvidia.com/gpu.present", "true"})
		}
	case pPayments, pSearch, pML:
		team := pl.team
		switch x := rg.r.IntN(10); {
		case x < 7:
			tt.tolerate(toleration{key: "dedicated", op: "Equal", value: team, effect: "NoSchedule"})
		case x < 9:
			tt.tolerate(toleration{key: "dedicated", op: "Exists", effect: "NoSchedule"})
		default:
			tt.tolerate(toleration{key: "dedicated", value: team, effect: "NoSchedule"})
		}
		if rg.chance(0.8) {
			tt.nodeSelector = append(tt.nodeSelector, kv{"dedicated", team})
		}
	case pBatch:
		tl := toleration{key: "workload", op: "Equal", value: "batch", effect: "NoExecute"}
		if rg.chance(0.3) {
			tl.seconds, tl.hasSeconds = 3600, true
		}
		tt.tolerate(tl)
		if rg.chance(0.8) {
			tt.nodeSelector = append(tt.nodeSelector, kv{"workload", "batch"})
		}
	}
	t.pools = 0
	_, _, gpus := effectiveRequests(tt)
	for p := 0; p < numPools; p++ {
		ok := tolerated(tt.tolerations, pools[p].taints)
		for _, l := range tt.nodeSelector {
			if v, has := poolLabel(p, l.k); !has || v != l.v {
				ok = false
			}
		}
		if gpus > 0 && instanceTypes[pools[p].types[0].v].gpus == 0 {
			ok = false
		}
		if ok {
			t.pools |= 1 << p
		}
	}
}

var appEnv = []envVar{
	{name: "LOG_LEVEL", value: "info"},
	{name: "LOG_FORMAT", value: "json"},
	{name: "PORT", value: "8080"},
	{name: "ENVIRONMENT", value: "production"},
	{name: "JAVA_TOOL_OPTIONS", value: "-XX:MaxRAMPercentage=75.0 -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError"},
	{name: "OTEL_EXPORTER_OTLP_ENDPOINT", value: "http://otel-collector.monitoring.svc.cluster.local:4317"},
	{name: "OTEL_RESOURCE_ATTRIBUTES", value: "deployment.environment=production,k8s.cluster.name=prod-us-east-1"},
	{name: "REDIS_URL", value: "redis://redis-master.data.svc.cluster.local:6379/0"},
	{name: "FEATURE_FLAGS_URL", value: "http://flags.platform.svc.cluster.local:8080/v1/flags"},
	{name: "GOMEMLIMIT", from: "resource", ref: "limits.memory"},
	{name: "GOMAXPROCS", from: "resource", ref: "limits.cpu"},
	{name: "POD_NAME", from: "field", ref: "metadata.name"},
	{name: "POD_NAMESPACE", from: "field", ref: "metadata.namespace"},
	{name: "POD_IP", from: "field", ref: "status.podIP"},
	{name: "NODE_NAME", from: "field", ref: "spec.nodeName"},
	{name: "DB_PASSWORD", from: "secret", key: "password"},
	{name: "API_TOKEN", from: "secret", key: "token"},
	{name: "CONFIG_VERSION", from: "configmap", key: "version"},
}

// appExtras draws the containers' command, env, probes, mounts and
// security contexts, and the template's volumes.
func (rg *rgen) appExtras(t *rTpl) {
	tt := &t.t
	w := tt.deploy
	restricted := rg.chance(0.3)
	if restricted {
		t.podSC = `{"fsGroup":10001,"runAsGroup":10001,"runAsNonRoot":true,"runAsUser":10001,"seccompProfile":{"type":"RuntimeDefault"}}`
	}
	cm, sec := false, false
	for ci := range tt.containers {
		c := &tt.containers[ci]
		var x cxtra
		switch {
		case c.name == "istio-proxy":
			x = istioExtras(t)
		case ci == 0:
			n := rg.r.IntN(6)
			for _, k := range rg.r.Perm(len(appEnv))[:min(n, len(appEnv))] {
				e := appEnv[k]
				switch e.from {
				case "secret":
					e.ref = w + "-secrets"
					sec = true
				case "configmap":
					e.ref = w + "-config"
					cm = true
				}
				x.env = append(x.env, e)
			}
			if rg.chance(0.3) {
				x.envFrom = append(x.envFrom, envFrom{name: w + "-config"})
				cm = true
			}
			if rg.chance(0.15) {
				x.envFrom = append(x.envFrom, envFrom{secret: true, name: w + "-secrets"})
				sec = true
			}
			if rg.chance(0.2) {
				x.args = []string{"--port=" + strconv.Itoa(int(t.port)), "--log-level=info", "--metrics-addr=:9090"}
			}
			if t.kind != wJob && t.port > 0 && rg.chance(0.6) {
				pt := "http"
				if c.ports[0].name != "http" {
					pt = strconv.Itoa(int(t.port))
				}
				x.live = &probe{http: t.kind != wSTS, path: "/healthz", port: pt, initial: 10, period: 10, thresh: 3}
				if rg.chance(0.7) {
					x.ready = &probe{http: t.kind != wSTS, path: "/ready", port: pt, initial: 5, period: 5, thresh: 3}
				}
				if rg.chance(0.1) {
					x.startup = &probe{http: t.kind != wSTS, path: "/healthz", port: pt, period: 10, thresh: 30}
				}
			}
			if rg.chance(0.4) {
				x.mounts = append(x.mounts, mount{name: "config", path: "/etc/" + t.app, ro: true})
				cm = true
			}
			if t.kind == wSTS {
				x.mounts = append(x.mounts, mount{name: "data", path: "/var/lib/" + t.app})
			}
			if rg.chance(0.2) || restricted {
				x.mounts = append(x.mounts, mount{name: "tmp", path: "/tmp"})
			}
			if rg.chance(0.1) {
				x.mounts = append(x.mounts, mount{name: "podinfo", path: "/etc/podinfo", ro: true})
			}
		default:
			x.env = []envVar{{name: "POD_NAMESPACE", from: "field", ref: "metadata.namespace"}}
		}
		if restricted && c.name != "istio-proxy" {
			x.sc = `{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]},"readOnlyRootFilesystem":true}`
		}
		t.cx = append(t.cx, x)
	}
	for range tt.initContainers {
		t.cx = append(t.cx, cxtra{})
	}
	have := func(name string) bool {
		for _, x := range t.cx {
			for _, m := range x.mounts {
				if m.name == name {
					return true
				}
			}
		}
		return false
	}
	if have("config") || cm && rg.chance(0.5) {
		t.vols = append(t.vols, rVol{name: "config", kind: "configMap", ref: w + "-config"})
	}
	if sec && rg.chance(0.3) {
		t.vols = append(t.vols, rVol{name: "secrets", kind: "secret", ref: w + "-secrets"})
	}
	if have("data") {
		t.vols = append(t.vols, rVol{name: "data", kind: "emptyDir"})
	}
	if have("tmp") {
		t.vols = append(t.vols, rVol{name: "tmp", kind: "emptyDir"})
	}
	if have("podinfo") {
		t.vols = append(t.vols, rVol{name: "podinfo", kind: "downwardAPI"})
	}
}

func istioExtras(t *rTpl) cxtra {
	x := cxtra{
		args: []string{"proxy", "sidecar", "--domain", "$(POD_NAMESPACE).svc.cluster.local", "--proxyLogLevel=warning",
			"--proxyComponentLogLevel=misc:error", "--log_output_level=default:info"},
		env: []envVar{
			{name: "PILOT_CERT_PROVIDER", value: "istiod"},
			{name: "CA_ADDR", value: "istiod.istio-system.svc:15012"},
			{name: "POD_NAME", from: "field", ref: "metadata.name"},
			{name: "POD_NAMESPACE", from: "field", ref: "metadata.namespace"},
			{name: "INSTANCE_IP", from: "field", ref: "status.podIP"},
			{name: "SERVICE_ACCOUNT", from: "field", ref: "spec.serviceAccountName"},
			{name: "HOST_IP", from: "field", ref: "status.hostIP"},
			{name: "ISTIO_META_POD_PORTS", value: `[{"name":"http","containerPort":` + strconv.Itoa(int(t.port)) + `,"protocol":"TCP"}]`},
			{name: "ISTIO_META_WORKLOAD_NAME", value: t.t.deploy},
			{name: "ISTIO_META_OWNER", value: "kubernetes://apis/apps/v1/namespaces/" + t.ns.name + "/deployments/" + t.t.deploy},
		},
		ready: &probe{http: true, path: "/healthz/ready", port: "15021", initial: 1, period: 2, thresh: 30},
		mounts: []mount{
			{name: "workload-socket", path: "/var/run/secrets/workload-spiffe-uds"},
			{name: "credential-socket", path: "/var/run/secrets/credential-uds"},
			{name: "workload-certs", path: "/var/run/secrets/workload-spiffe-credentials"},
			{name: "istiod-ca-cert", path: "/var/run/secrets/istio"},
			{name: "istio-data", path: "/var/lib/istio/data"},
			{name: "istio-envoy", path: "/etc/istio/proxy"},
			{name: "istio-token", path: "/var/run/secrets/tokens"},
			{name: "istio-podinfo", path: "/etc/istio/pod"},
		},
		sc: `{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]},"privileged":false,"readOnlyRootFilesystem":true,"runAsGroup":1337,"runAsNonRoot":true,"runAsUser":1337}`,
	}
	return x
}

// ---------------------------------------------------------------------------
// DaemonSets.

const ecrEKS = "602401143452.dkr.ecr.us-east-1.amazonaws.com/"

func (rg *rgen) dsCommon(t *rTpl, labelKey string, priority string) {
	t.sel = []kv{{labelKey, t.t.deploy}}
	t.labels = append(t.labels, t.sel...)
	t.t.priorityClass = priority
	t.sa = t.t.deploy
}

func hostVol(name, path string) rVol { return rVol{name: name, kind: "hostPath", ref: path} }

func (rg *rgen) dsKubeProxy(t *rTpl) {
	rg.dsCommon(t, "k8s-app", "system-node-critical")
	t.hostNet = true
	t.t.tolerations = []toleration{{op: "Exists"}}
	t.t.containers = []container{{name: "kube-proxy", image: ecrEKS + "eks/kube-proxy:v1.36.1-minimal-eksbuild.2",
		req: []res{{name: "cpu", v: 100}}}}
	t.cx = []cxtra{{
		command: []string{"kube-proxy", "--v=2", "--config=/var/lib/kube-proxy-config/config", "--hostname-override=$(NODE_NAME)"},
		env:     []envVar{{name: "NODE_NAME", from: "field", ref: "spec.nodeName"}},
		mounts: []mount{{name: "varlog", path: "/var/log"}, {name: "xtables-lock", path: "/run/xtables.lock"},
			{name: "lib-modules", path: "/lib/modules", ro: true}, {name: "kubeconfig", path: "/var/lib/kube-proxy/"},
			{name: "config", path: "/var/lib/kube-proxy-config/"}},
		sc: `{"privileged":true}`,
	}}
	t.vols = []rVol{hostVol("varlog", "/var/log"), hostVol("xtables-lock", "/run/xtables.lock"), hostVol("lib-modules", "/lib/modules"),
		{name: "kubeconfig", kind: "configMap", ref: "kube-proxy"}, {name: "config", kind: "configMap", ref: "kube-proxy-config"}}
}

func (rg *rgen) dsAWSNode(t *rTpl) {
	rg.dsCommon(t, "k8s-app", "system-node-critical")
	t.hostNet = true
	t.t.tolerations = []toleration{{op: "Exists"}}
	t.t.required = []selTerm{{exprs: []selReq{expr("kubernetes.io/os", "In", "linux"), expr("kubernetes.io/arch", "In", "amd64", "arm64"),
		expr("eks.amazonaws.com/compute-type", "NotIn", "fargate", "hybrid", "auto")}}}
	t.t.containers = []container{{name: "aws-node", image: ecrEKS + "amazon-k8s-cni:v1.18.3-eksbuild.1", req: []res{{name: "cpu", v: 25}},
		ports: []port{{name: "metrics", containerPort: 61678}}}}
	t.t.initContainers = []container{{name: "aws-vpc-cni-init", image: ecrEKS + "amazon-k8s-cni-init:v1.18.3-eksbuild.1", req: []res{{name: "cpu", v: 25}}}}
	t.cx = []cxtra{
		{env: []envVar{{name: "AWS_VPC_K8S_CNI_LOGLEVEL", value: "DEBUG"}, {name: "WARM_ENI_TARGET", value: "1"},
			{name: "MY_NODE_NAME", from: "field", ref: "spec.nodeName"}},
			live:   &probe{path: "/app/grpc-health-probe", port: "61678", initial: 60, period: 10, thresh: 3},
			mounts: []mount{{name: "cni-bin-dir", path: "/host/opt/cni/bin"}, {name: "cni-net-dir", path: "/host/etc/cni/net.d"}, {name: "run-dir", path: "/var/run/aws-node"}},
			sc:     `{"capabilities":{"add":["NET_ADMIN","NET_RAW"]}}`},
		{mounts: []mount{{name: "cni-bin-dir", path: "/host/opt/cni/bin"}}, sc: `{"privileged":true}`},
	}
	t.vols = []rVol{hostVol("cni-bin-dir", "/opt/cni/bin"), hostVol("cni-net-dir", "/etc/cni/net.d"), hostVol("run-dir", "/var/run/aws-node")}
}

func (rg *rgen) dsEBSNode(t *rTpl) {
	rg.dsCommon(t, "app", "system-node-critical")
	t.t.tolerations = []toleration{{op: "Exists"}}
	t.t.nodeSelector = []kv{{"kubernetes.io/os", "linux"}}
	small := []res{{name: "cpu", v: 10}, {name: "memory", v: 40 * mi}}
	t.t.containers = []container{
		{name: "ebs-plugin", image: "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.33.0", req: small, lim: []res{{name: "memory", v: 256 * mi}},
			ports: []port{{name: "healthz", containerPort: 9808}}},
		{name: "node-driver-registrar", image: "public.ecr.aws/eks-distro/kubernetes-csi/node-driver-registrar:v2.11.1-eks-1-30-10", req: small, lim: []res{{name: "memory", v: 256 * mi}}},
	}
	t.cx = []cxtra{
		{args: []string{"node", "--endpoint=$(CSI_ENDPOINT)", "--v=2"},
			env:    []envVar{{name: "CSI_ENDPOINT", value: "unix:/csi/csi.sock"}, {name: "CSI_NODE_NAME", from: "field", ref: "spec.nodeName"}},
			live:   &probe{http: true, path: "/healthz", port: "healthz", initial: 10, period: 10, thresh: 5},
			mounts: []mount{{name: "kubelet-dir", path: "/var/lib/kubelet"}, {name: "plugin-dir", path: "/csi"}, {name: "device-dir", path: "/dev"}},
			sc:     `{"privileged":true,"readOnlyRootFilesystem":true}`},
		{args: []string{"--csi-address=/csi/csi.sock", "--kubelet-registration-path=/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock", "--v=2"},
			mounts: []mount{{name: "plugin-dir", path: "/csi"}, {name: "registration-dir", path: "/registration"}}},
	}
	t.sa = "ebs-csi-node-sa"
	t.vols = []rVol{hostVol("kubelet-dir", "/var/lib/kubelet"), hostVol("plugin-dir", "/var/lib/kubelet/plugins/ebs.csi.aws.com/"),
		hostVol("registration-dir", "/var/lib/kubelet/plugins_registry/"), hostVol("device-dir", "/dev")}
}

func (rg *rgen) dsNodeExporter(t *rTpl) {
	rg.dsCommon(t, "app.kubernetes.io/name", "")
	t.labels = append(t.labels, kv{"app.kubernetes.io/instance", "kube-prometheus-stack"}, kv{"app.kubernetes.io/part-of", "prometheus-node-exporter"})
	t.hostNet, t.hostPID = true, true
	t.t.tolerations = []toleration{{op: "Exists", effect: "NoSchedule"}}
	t.t.nodeSelector = []kv{{"kubernetes.io/os", "linux"}}
	t.t.containers = []container{{name: "node-exporter", image: "quay.io/prometheus/node-exporter:v1.8.2",
		req: []res{{name: "cpu", v: 50}, {name: "memory", v: 64 * mi}}, lim: []res{{name: "cpu", v: 200}, {name: "memory", v: 180 * mi}},
		ports: []port{{name: "http-metrics", containerPort: 9100}}}}
	t.port = 9100
	t.cx = []cxtra{{
		args:   []string{"--path.procfs=/host/proc", "--path.sysfs=/host/sys", "--path.rootfs=/host/root", "--web.listen-address=[$(HOST_IP)]:9100"},
		env:    []envVar{{name: "HOST_IP", value: "0.0.0.0"}},
		live:   &probe{http: true, path: "/", port: "9100", period: 10, thresh: 3},
		ready:  &probe{http: true, path: "/", port: "9100", period: 10, thresh: 3},
		mounts: []mount{{name: "proc", path: "/host/proc", ro: true}, {name: "sys", path: "/host/sys", ro: true}, {name: "root", path: "/host/root", ro: true}},
		sc:     `{"readOnlyRootFilesystem":true}`,
	}}
	t.podSC = `{"fsGroup":65534,"runAsGroup":65534,"runAsNonRoot":true,"runAsUser":65534}`
	t.vols = []rVol{hostVol("proc", "/proc"), hostVol("sys", "/sys"), hostVol("root", "/")}
}

func (rg *rgen) dsFluentBit(t *rTpl) {
	rg.dsCommon(t, "app.kubernetes.io/name", "system-node-critical")
	t.t.tolerations = []toleration{{key: "dedicated", op: "Exists"}, {key: "nvidia.com/gpu", op: "Exists", effect: "NoSchedule"}, {key: "workload", op: "Exists"}}
	t.t.containers = []container{{name: "fluent-bit", image: "cr.fluentbit.io/fluent/fluent-bit:3.1.4",
		req: []res{{name: "cpu", v: 100}, {name: "memory", v: 128 * mi}}, lim: []res{{name: "memory", v: 256 * mi}},
		ports: []port{{name: "http", containerPort: 2020}}}}
	t.port = 2020
	t.cx = []cxtra{{
		args:   []string{"--workdir=/fluent-bit/etc", "--config=/fluent-bit/etc/conf/fluent-bit.conf"},
		live:   &probe{http: true, path: "/", port: "http", period: 10, thresh: 3},
		ready:  &probe{http: true, path: "/api/v1/health", port: "http", period: 10, thresh: 3},
		mounts: []mount{{name: "config", path: "/fluent-bit/etc/conf"}, {name: "varlog", path: "/var/log"}, {name: "varlibdockercontainers", path: "/var/lib/docker/containers", ro: true}, {name: "etcmachineid", path: "/etc/machine-id", ro: true}},
	}}
	t.vols = []rVol{{name: "config", kind: "configMap", ref: "fluent-bit"}, hostVol("varlog", "/var/log"),
		hostVol("varlibdockercontainers", "/var/lib/docker/containers"), hostVol("etcmachineid", "/etc/machine-id")}
}

func (rg *rgen) dsNvidia(t *rTpl) {
	rg.dsCommon(t, "name", "system-node-critical")
	t.t.tolerations = []toleration{{key: "nvidia.com/gpu", op: "Exists", effect: "NoSchedule"}}
	t.t.nodeSelector = []kv{{"nvidia.com/gpu.present", "true"}}
	t.t.containers = []container{{name: "nvidia-device-plugin-ctr", image: "nvcr.io/nvidia/k8s-device-plugin:v0.16.2"}}
	t.cx = []cxtra{{
		env:    []envVar{{name: "FAIL_ON_INIT_ERROR", value: "false"}},
		mounts: []mount{{name: "device-plugin", path: "/var/lib/kubelet/device-plugins"}},
		sc:     `{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}`,
	}}
	t.vols = []rVol{hostVol("device-plugin", "/var/lib/kubelet/device-plugins")}
}

// dsDatadog is the DaemonSet created minutes ago.
func (rg *rgen) dsDatadog(t *rTpl) {
	rg.dsCommon(t, "app", "system-node-critical")
	t.t.tolerations = []toleration{{op: "Exists"}}
	img := "gcr.io/datadoghq/agent:7.57.2"
	t.t.containers = []container{{name: "agent", image: img, req: []res{{name: "cpu", v: 200}, {name: "memory", v: 256 * mi}},
		lim: []res{{name: "memory", v: 512 * mi}}, ports: []port{{name: "dogstatsdport", containerPort: 8125}}}}
	t.t.initContainers = []container{{name: "init-config", image: img, req: []res{{name: "cpu", v: 50}, {name: "memory", v: 64 * mi}}}}
	envs := []envVar{{name: "DD_API_KEY", from: "secret", ref: "datadog-secret", key: "api-key"}, {name: "DD_KUBERNETES_KUBELET_HOST", from: "field", ref: "status.hostIP"},
		{name: "DD_CLUSTER_NAME", value: "prod-us-east-1"}}
	t.cx = []cxtra{
		{command: []string{"agent", "run"}, env: envs, live: &probe{http: true, path: "/live", port: "5555", initial: 15, period: 15, thresh: 6},
			mounts: []mount{{name: "config", path: "/etc/datadog-agent"}, {name: "procdir", path: "/host/proc", ro: true}, {name: "cgroups", path: "/host/sys/fs/cgroup", ro: true}}},
		{command: []string{"bash", "-c"}, args: []string{"for script in $(find /etc/cont-init.d/ -type f -name '*.sh' | sort) ; do bash $script ; done"},
			mounts: []mount{{name: "config", path: "/etc/datadog-agent"}}},
	}
	t.vols = []rVol{{name: "config", kind: "emptyDir"}, hostVol("procdir", "/proc"), hostVol("cgroups", "/sys/fs/cgroup")}
}

// rollout is t with a new image tag: the next revision of a Deployment.
func (rg *rgen) rollout(t *rTpl) *rTpl {
	nt := *t
	nt.t = t.t.clone()
	nt.cx = append([]cxtra(nil), t.cx...)
	nt.images = nil
	m := nt.t.main()
	if i := strings.LastIndexByte(m.image, ':'); i > 0 {
		m.image = m.image[:i] + ":2." + strconv.Itoa(rg.r.IntN(40)) + "." + strconv.Itoa(rg.r.IntN(10))
	}
	return &nt
}
