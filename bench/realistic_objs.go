package bench

// The realistic profile's nodes and controller objects.

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// objMeta is an object's metadata, rendered with sorted keys.
type objMeta struct {
	annots, labels []kv
	created        int64
	generation     int64 // 0: none
	name, ns       string
	ownerAPI       string // "" for no owner
	ownerKind      string
	ownerName      string
	ownerUID       uint64
	uid            uint64
	managed        []byte // the managedFields entries, comma-separated
}

func (rg *rgen) appendMeta(b []byte, m *objMeta) []byte {
	b = append(b, `"metadata":{`...)
	if len(m.annots) > 0 {
		b = append(b, `"annotations":`...)
		b = appendKVs(b, m.annots)
		b = append(b, ',')
	}
	b = append(b, `"creationTimestamp":"`...)
	b = appendTime(b, m.created)
	b = append(b, `",`...)
	if m.generation > 0 {
		b = append(b, `"generation":`...)
		b = strconv.AppendInt(b, m.generation, 10)
		b = append(b, ',')
	}
	if len(m.labels) > 0 {
		b = append(b, `"labels":`...)
		b = appendKVs(b, m.labels)
		b = append(b, ',')
	}
	if len(m.managed) > 0 {
		b = append(b, `"managedFields":[`...)
		b = append(b, m.managed...)
		b = append(b, `],`...)
	}
	b = append(b, `"name":`...)
	b = appendStr(b, m.name)
	if m.ns != "" {
		b = append(b, `,"namespace":`...)
		b = appendStr(b, m.ns)
	}
	if m.ownerAPI != "" {
		b = append(b, `,"ownerReferences":[{"apiVersion":`...)
		b = appendStr(b, m.ownerAPI)
		b = append(b, `,"blockOwnerDeletion":true,"controller":true,"kind":`...)
		b = appendStr(b, m.ownerKind)
		b = append(b, `,"name":`...)
		b = appendStr(b, m.ownerName)
		b = append(b, ',')
		b = rg.appendUIDField(b, m.ownerUID)
		b = append(b, `}]`...)
	}
	b = append(b, ',')
	b = appendRV(b, m.uid)
	b = append(b, ',')
	b = rg.appendUIDField(b, m.uid)
	return append(b, '}')
}

// metaFields starts a workload's fieldsV1: `{"f:metadata":{...}` with the
// keys of its annotations and labels (the object left open).
func metaFields(ann, labels []kv) []byte {
	mf := append([]byte(nil), `{"f:metadata":{`...)
	if len(ann) > 0 {
		mf = append(mf, `"f:annotations":`...)
		mf = fieldsOf(mf, ann)
		mf = append(mf, ',')
	}
	mf = append(mf, `"f:labels":`...)
	mf = fieldsOf(mf, labels)
	return append(mf, '}')
}

// fieldsOf renders `{".":{},"f:k1":{},...}` for the keys of kvs.
func fieldsOf(b []byte, kvs ...[]kv) []byte {
	b = append(b, `{".":{},`...)
	b = appendFieldKeys(b, kvs...)
	return append(b, '}')
}

// ---------------------------------------------------------------------------
// Nodes.

// realNodeLabels appends nd's labels, EKS's included, sorted.
func (rg *rgen) realNodeLabels(nd *node, lbl []kv) []kv {
	lbl = rg.nodeLabels(nd, lbl)
	if it := nd.it(); !it.onprem {
		pl := &pools[nd.pool]
		ng := pl.name + "-" + strings.ReplaceAll(it.name, ".", "-")
		h := splitmix(uint64(nd.pool)<<8 | uint64(nd.typ))
		lbl = append(lbl,
			kv{"eks.amazonaws.com/nodegroup", ng},
			kv{"eks.amazonaws.com/nodegroup-image", "ami-0" + string(appendHex(nil, h, 16))},
			kv{"eks.amazonaws.com/sourceLaunchTemplateId", "lt-0" + string(appendHex(nil, h>>3, 16))},
			kv{"eks.amazonaws.com/sourceLaunchTemplateVersion", strconv.Itoa(1 + int(h%9))},
			kv{"k8s.io/cloud-provider-aws", "b69ad2ef7e5ee8c3a7e1c5e84bd7e36d"},
		)
		if !nd.noZone {
			lbl = append(lbl, kv{"topology.ebs.csi.aws.com/zone", rg.zones[nd.zone].v},
				kv{"topology.k8s.aws/zone-id", "use1-az" + strconv.Itoa(int(nd.zone)+1)})
		}
	}
	return sortedKVs(lbl)
}

// imgRef is an image on a node.
type imgRef struct {
	name string
	size int64
}

// imageSize is an image's size in bytes, log-uniform from 20 MB to 1.5 GB,
// derived from its name.
func imageSize(name string) int64 {
	h := uint64(1469598103934665603)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	u := float64(splitmix(h)>>11) / (1 << 53)
	return int64(20e6 * pow75(u))
}

// pow75 is 75^u: sizes from 1x to 75x.
func pow75(u float64) float64 {
	x := 1.0
	for range 16 {
		x *= 1 + (75-1)*u/16 // close enough, monotone, no math.Pow per image
	}
	return min(x, 75)
}

const pauseImage = ecrEKS + "eks/pause:3.10"

// appendNodeImages writes status.images: the images of the pods that run
// (and ran) on node ni and the pause image, largest first, at most 50 (the
// kubelet's default nodeStatusMaxImages).
func (w *rWorker) appendNodeImages(b []byte, ni int32) []byte {
	rg := w.rg
	imgs := w.imgs[:0]
	add := func(ti int32) {
		for _, im := range rg.tpls[ti].images {
			imgs = append(imgs, imgRef{im, imageSize(im)})
		}
	}
	for _, ti := range rg.nodeImg[ni] {
		add(ti)
	}
	if !rg.fresh[ni] && len(rg.tpls) > 0 {
		h := splitmix(uint64(ni) ^ rg.uidSalt ^ 0x696d67)
		for k := range int(4 + h%17) { // images of pods that ran there before
			add(int32(splitmix(h+uint64(k)) % uint64(len(rg.tpls))))
		}
	}
	imgs = append(imgs, imgRef{pauseImage, 298689})
	slices.SortFunc(imgs, func(a, c imgRef) int {
		if a.size != c.size {
			return cmp.Compare(c.size, a.size)
		}
		return strings.Compare(a.name, c.name)
	})
	imgs = slices.CompactFunc(imgs, func(a, c imgRef) bool { return a.name == c.name })
	w.imgs = imgs
	b = append(b, `"images":[`...)
	for k, im := range imgs[:min(len(imgs), 50)] {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"names":[`...)
		repo := im.name
		if i := lastColon(im.name); i > 0 {
			repo = im.name[:i]
		}
		b = append(b, '"')
		b = append(b, repo...)
		b = append(b, "@sha256:"...)
		b = appendDigest(b, im.name)
		b = append(b, `",`...)
		b = appendStr(b, im.name)
		b = append(b, `],"sizeBytes":`...)
		b = strconv.AppendInt(b, im.size, 10)
		b = append(b, '}')
	}
	return append(b, `],`...)
}

func (w *rWorker) node(b []byte, ni int32) []byte {
	rg := w.rg
	nd := &rg.nodes[ni]
	it := nd.it()
	w.kvs = rg.realNodeLabels(nd, w.kvs[:0])
	lbl := w.kvs
	instance := "i-0" + string(appendHex(nil, splitmix(uint64(nd.ip)^rg.uidSalt), 16))
	ip := string(appendIP(nil, nd.ip))
	annots := []kv{
		{"alpha.kubernetes.io/provided-node-ip", ip},
		{"csi.volume.kubernetes.io/nodeid", `{"ebs.csi.aws.com":"` + instance + `"}`},
		{"node.alpha.kubernetes.io/ttl", "0"},
		{"volumes.kubernetes.io/controller-managed-attach-detach", "true"},
	}
	uid := rg.nodeUID + uint64(ni)
	heartbeat := rg.now - 30 - int64(splitmix(uid)%60)
	kf := fieldsOf([]byte(`{"f:metadata":{"f:annotations":`), []kv{annots[0], annots[3]})
	kf = append(fieldsOf(append(kf, `,"f:labels":`...), lbl), `}}`...)
	mf := appendManaged(nil, "kubelet", "v1", kf, "", nd.created)
	mf = append(mf, ',')
	mf = appendManaged(mf, "kube-controller-manager", "v1", []byte(`{"f:metadata":{"f:annotations":{"f:node.alpha.kubernetes.io/ttl":{}}}}`), "", nd.created+5)
	if nd.cordoned {
		mf = append(mf, ',')
		mf = appendManaged(mf, "kubectl-cordon", "v1", []byte(`{"f:spec":{"f:unschedulable":{}}}`), "", heartbeat-3600)
	}
	mf = append(mf, ',')
	mf = appendManaged(mf, "kubelet", "v1", []byte(`{"f:metadata":{"f:annotations":{"f:csi.volume.kubernetes.io/nodeid":{}}},"f:status":{"f:allocatable":{"f:ephemeral-storage":{}},"f:conditions":{"k:{\"type\":\"DiskPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"MemoryPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"PIDPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"Ready\"}":{"f:lastHeartbeatTime":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{}}},"f:images":{},"f:nodeInfo":{"f:bootID":{}}}}`), "status", heartbeat)

	b = append(b, `{"apiVersion":"v1","kind":"Node",`...)
	b = rg.appendMeta(b, &objMeta{annots: annots, labels: lbl, created: nd.created, name: nd.name, uid: uid, managed: mf})
	b = append(b, `,"spec":{"providerID":`...)
	if it.onprem {
		b = appendStr(b, "baremetal://dc1/"+nd.name)
	} else {
		b = appendStr(b, "aws:///"+rg.zones[nd.zone].v+"/"+instance)
	}
	b = appendTaints(b, nd.taints)
	if nd.cordoned {
		b = append(b, `,"unschedulable":true`...)
	}
	b = append(b, `},"status":{"addresses":[{"address":"`...)
	b = append(b, ip...)
	b = append(b, `","type":"InternalIP"},{"address":`...)
	b = appendStr(b, nd.name)
	b = append(b, `,"type":"InternalDNS"},{"address":`...)
	b = appendStr(b, nd.name)
	b = append(b, `,"type":"Hostname"}],"allocatable":`...)
	b = rg.appendNodeResources(b, it, true)
	b = append(b, `,"capacity":`...)
	b = rg.appendNodeResources(b, it, false)
	b = append(b, `,"conditions":[`...)
	cond := func(b []byte, typ, status, reason, msg string) []byte {
		b = append(b, `{"lastHeartbeatTime":"`...)
		b = appendTime(b, heartbeat)
		b = append(b, `","lastTransitionTime":"`...)
		b = appendTime(b, nd.created+40)
		b = append(b, `","message":`...)
		b = appendStr(b, msg)
		b = append(b, `,"reason":`...)
		b = appendStr(b, reason)
		b = append(b, `,"status":`...)
		b = appendStr(b, status)
		b = append(b, `,"type":`...)
		b = appendStr(b, typ)
		return append(b, '}')
	}
	if nd.cond == condMemoryPressure {
		b = cond(b, "MemoryPressure", "True", "KubeletHasInsufficientMemory", "kubelet has insufficient memory available")
	} else {
		b = cond(b, "MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available")
	}
	b = append(b, ',')
	b = cond(b, "DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure")
	b = append(b, ',')
	b = cond(b, "PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available")
	b = append(b, ',')
	if nd.cond == condNotReady {
		b = cond(b, "Ready", "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.")
	} else {
		b = cond(b, "Ready", "True", "KubeletReady", "kubelet is posting ready status")
	}
	b = append(b, `],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"features":{"supplementalGroupsPolicy":true},`...)
	b = w.appendNodeImages(b, ni)
	b = append(b, `"nodeInfo":{"architecture":`...)
	b = appendStr(b, it.arch)
	b = append(b, `,"bootID":"`...)
	b = appendUIDOf(b, rg.uidSalt^0x626f6f74, uid)
	b = append(b, `","containerRuntimeVersion":"containerd://1.7.22","kernelVersion":`...)
	switch {
	case it.onprem:
		b = appendStr(b, "6.8.0-1012-generic")
	case it.arch == "arm64":
		b = appendStr(b, "6.1.102-111.182.amzn2023.aarch64")
	default:
		b = appendStr(b, "6.1.102-111.182.amzn2023.x86_64")
	}
	b = append(b, `,"kubeletVersion":`...)
	switch {
	case it.onprem:
		b = appendStr(b, "v1.36.1")
	case nd.oldKubelet:
		b = appendStr(b, "v1.35.4-eks-a737599")
	default:
		b = appendStr(b, "v1.36.1-eks-1f2c3d4")
	}
	b = append(b, `,"machineID":"`...)
	b = appendHex(b, splitmix(uid^0x6d6964), 16)
	b = appendHex(b, splitmix(uid^0x6d6965), 16)
	b = append(b, `","operatingSystem":"linux","osImage":`...)
	if it.onprem {
		b = appendStr(b, "Ubuntu 24.04 LTS")
	} else {
		b = appendStr(b, "Amazon Linux 2023.5.20240819")
	}
	b = append(b, `,"systemUUID":"`...)
	b = appendUIDOf(b, rg.uidSalt^0x73797375, uid)
	return append(b, `"},"runtimeHandlers":[{"features":{"recursiveReadOnlyMounts":true,"userNamespaces":true},"name":"runc"},{"features":{"recursiveReadOnlyMounts":true,"userNamespaces":true},"name":""}]}}`...)
}

// ---------------------------------------------------------------------------
// Workloads.

// helm reports whether t's workload is a Helm release's (its selector uses
// the app.kubernetes.io labels).
func (t *rTpl) helm() bool { return len(t.sel) == 2 && t.sel[0].k == "app.kubernetes.io/instance" }

// objLabels are the labels of t's workload objects (and Services).
func (t *rTpl) objLabels() []kv {
	l := slices.Clone(t.sel)
	if t.helm() {
		l = append(l, kv{"app.kubernetes.io/managed-by", "Helm"}, kv{"helm.sh/chart", t.app + "-1.4.2"})
	} else if t.ns.team != "" && t.kind != wDS {
		l = append(l, kv{"team", t.ns.team})
	}
	return sortedKVs(l)
}

func (t *rTpl) objAnnots(ns string, extra ...kv) []kv {
	a := slices.Clone(extra)
	if t.helm() {
		a = append(a, kv{"meta.helm.sh/release-name", t.sel[0].v}, kv{"meta.helm.sh/release-namespace", ns})
	}
	return sortedKVs(a)
}

// applier is the manager of a workload's spec: Helm, or kubectl.
func (t *rTpl) applier() string {
	if t.helm() {
		return "helm"
	}
	return "kubectl-client-side-apply"
}

// templateFields renders the fieldsV1 of a spec.template.
func templateFields(b []byte, t *rTpl, extra []kv) []byte {
	b = append(b, `"f:template":{"f:metadata":{`...)
	if len(t.annots) > 0 {
		b = append(b, `"f:annotations":`...)
		b = fieldsOf(b, t.annots)
		b = append(b, ',')
	}
	b = append(b, `"f:labels":`...)
	b = fieldsOf(b, sortedKVs(append(slices.Clone(t.labels), extra...)))
	b = append(b, `},"f:spec":`...)
	b = append(b, t.r.tplFields...)
	return append(b, '}')
}

func appendCount(b []byte, key string, v int32) []byte {
	b = appendStr(b, key)
	b = append(b, ':')
	return strconv.AppendInt(b, int64(v), 10)
}

// wlCounts sums a workload's pods: those that exist in the output (pending
// ones too unless they are left to the controllers) and the running ones.
func (rg *rgen) wlCounts(w *rWorkload) (exist, running, pending int32) {
	for _, gi := range w.groups {
		gr := &rg.groups[gi]
		running += gr.running
		pending += gr.pending
	}
	exist = running
	if !rg.workloads {
		exist += pending
	}
	return exist, running, pending
}

func (w *rWorker) deployment(b []byte, wi int32) []byte {
	rg := w.rg
	wl := &rg.ws[wi]
	t := rg.tpls[wl.tpl]
	ns := rg.nss[wl.ns].name
	exist, running, _ := rg.wlCounts(wl)
	cur := &rg.groups[wl.groups[len(wl.groups)-1]]
	rev := int64(cur.revision)
	mf := metaFields(t.objAnnots(ns), t.objLabels())
	mf = append(mf, `,"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},`...)
	mf = templateFields(mf, t, nil)
	mf = append(mf, `}}`...)
	managed := appendManaged(nil, t.applier(), "apps/v1", mf, "", wl.created)
	managed = append(managed, ',')
	managed = appendManaged(managed, "kube-controller-manager", "apps/v1", []byte(`{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\"type\":\"Available\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Progressing\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:unavailableReplicas":{},"f:updatedReplicas":{}}}`), "status", cur.created+30)
	b = append(b, `{"apiVersion":"apps/v1","kind":"Deployment",`...)
	b = rg.appendMeta(b, &objMeta{annots: t.objAnnots(ns, kv{"deployment.kubernetes.io/revision", strconv.Itoa(int(rev))}), labels: t.objLabels(),
		created: wl.created, generation: rev, name: wl.name, ns: ns, uid: wl.uid, managed: managed})
	b = append(b, `,"spec":{"progressDeadlineSeconds":600,"replicas":`...)
	b = strconv.AppendInt(b, int64(wl.replicas), 10)
	b = append(b, `,"revisionHistoryLimit":10,"selector":{"matchLabels":`...)
	b = appendKVs(b, t.sel)
	b = append(b, `},"strategy":{"rollingUpdate":{"maxSurge":`...)
	b = appendStr(b, wl.surge)
	b = append(b, `,"maxUnavailable":"25%"},"type":"RollingUpdate"},"template":`...)
	b = appendTemplate(b, t, nil)
	b = append(b, `},"status":{`...)
	if running > 0 {
		b = appendCount(b, "availableReplicas", running)
		b = append(b, ',')
	}
	b = append(b, `"conditions":[{"lastTransitionTime":"`...)
	avail := running >= wl.replicas*3/4
	b = appendTime(b, wl.created+40)
	b = append(b, `","lastUpdateTime":"`...)
	b = appendTime(b, wl.created+40)
	if avail {
		b = append(b, `","message":"Deployment has minimum availability.","reason":"MinimumReplicasAvailable","status":"True","type":"Available"},{"lastTransitionTime":"`...)
	} else {
		b = append(b, `","message":"Deployment does not have minimum availability.","reason":"MinimumReplicasUnavailable","status":"False","type":"Available"},{"lastTransitionTime":"`...)
	}
	b = appendTime(b, wl.created+5)
	b = append(b, `","lastUpdateTime":"`...)
	b = appendTime(b, cur.created+30)
	b = append(b, `","message":"ReplicaSet \"`...)
	b = append(b, cur.name...)
	if cur.pending > 0 {
		b = append(b, `\" is progressing.","reason":"ReplicaSetUpdated","status":"True","type":"Progressing"}],"observedGeneration":`...)
	} else {
		b = append(b, `\" has successfully progressed.","reason":"NewReplicaSetAvailable","status":"True","type":"Progressing"}],"observedGeneration":`...)
	}
	b = strconv.AppendInt(b, rev, 10)
	if running > 0 {
		b = append(b, ',')
		b = appendCount(b, "readyReplicas", running)
	}
	b = append(b, ',')
	b = appendCount(b, "replicas", exist)
	if u := exist - running; u > 0 {
		b = append(b, ',')
		b = appendCount(b, "unavailableReplicas", u)
	}
	upd := exist
	if len(wl.groups) > 1 {
		upd = rg.emitted(cur)
	}
	b = append(b, ',')
	b = appendCount(b, "updatedReplicas", upd)
	return append(b, `}}`...)
}

func (w *rWorker) replicaSet(b []byte, r rsRef) []byte {
	rg := w.rg
	wl := &rg.ws[r.w]
	t := rg.tpls[wl.tpl]
	ns := rg.nss[wl.ns].name
	var name, hash string
	var uid uint64
	var created int64
	var rev, replicas, exist, running int32
	tt := t
	if r.g >= 0 {
		gr := &rg.groups[r.g]
		tt = rg.tpls[gr.tpl]
		name, hash, uid, created, rev = gr.name, gr.hash, gr.uid, gr.created, gr.revision
		replicas, exist, running = gr.replicas, rg.emitted(gr), gr.running
	} else {
		h := &wl.history[r.h]
		name, hash, uid, created, rev = h.name, h.hash, h.uid, h.created, h.revision
		old := *t
		old.t.containers = slices.Clone(t.t.containers)
		if i := lastColon(old.t.containers[0].image); i > 0 {
			old.t.containers[0].image = old.t.containers[0].image[:i+1] + h.tag
		}
		ro := *t.r
		ro.spec = rg.appendSpec(nil, &old, nil, nil)
		old.r = &ro
		tt = &old
	}
	hashKV := []kv{{hashKey, hash}}
	labels := sortedKVs(append(slices.Clone(tt.labels), hashKV...))
	sel := sortedKVs(append(slices.Clone(tt.sel), hashKV...))
	annots := []kv{{"deployment.kubernetes.io/desired-replicas", strconv.Itoa(int(wl.replicas))},
		{"deployment.kubernetes.io/max-replicas", strconv.Itoa(int(wl.replicas) + maxSurge(wl))},
		{"deployment.kubernetes.io/revision", strconv.Itoa(int(rev))}}
	mf := append([]byte(nil), `{"f:metadata":{"f:annotations":`...)
	mf = fieldsOf(mf, annots)
	mf = append(mf, `,"f:labels":`...)
	mf = fieldsOf(mf, labels)
	mf = append(mf, `,"f:ownerReferences":{".":{},"k:{\"uid\":\"`...)
	mf = appendUIDOf(mf, rg.uidSalt, wl.uid)
	mf = append(mf, `\"}":{}}},"f:spec":{"f:replicas":{},"f:selector":{},`...)
	mf = templateFields(mf, tt, hashKV)
	mf = append(mf, `}}`...)
	managed := appendManaged(nil, "kube-controller-manager", "apps/v1", mf, "", created)
	managed = append(managed, ',')
	managed = appendManaged(managed, "kube-controller-manager", "apps/v1", []byte(`{"f:status":{"f:availableReplicas":{},"f:fullyLabeledReplicas":{},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{}}}`), "status", created+30)
	b = append(b, `{"apiVersion":"apps/v1","kind":"ReplicaSet",`...)
	b = rg.appendMeta(b, &objMeta{annots: annots, labels: labels, created: created, generation: 1 + int64(min(rev, 2)-1),
		name: name, ns: ns, ownerAPI: "apps/v1", ownerKind: "Deployment", ownerName: wl.name, ownerUID: wl.uid, uid: uid, managed: managed})
	b = append(b, `,"spec":{"replicas":`...)
	b = strconv.AppendInt(b, int64(replicas), 10)
	b = append(b, `,"selector":{"matchLabels":`...)
	b = appendKVs(b, sel)
	b = append(b, `},"template":`...)
	b = appendTemplate(b, tt, hashKV)
	b = append(b, `},"status":{`...)
	if running > 0 {
		b = appendCount(b, "availableReplicas", running)
		b = append(b, ',')
	}
	if exist > 0 {
		b = appendCount(b, "fullyLabeledReplicas", exist)
		b = append(b, ',')
	}
	b = append(b, `"observedGeneration":`...)
	b = strconv.AppendInt(b, 1+int64(min(rev, 2)-1), 10)
	if running > 0 {
		b = append(b, ',')
		b = appendCount(b, "readyReplicas", running)
	}
	b = append(b, ',')
	b = appendCount(b, "replicas", exist)
	return append(b, `}}`...)
}

func maxSurge(w *rWorkload) int {
	if w.surge == "100%" {
		return int(w.replicas)
	}
	return (int(w.replicas) + 3) / 4
}

func (w *rWorker) statefulSet(b []byte, wi int32) []byte {
	rg := w.rg
	wl := &rg.ws[wi]
	t := rg.tpls[wl.tpl]
	ns := rg.nss[wl.ns].name
	gr := &rg.groups[wl.groups[0]]
	exist, running, _ := rg.wlCounts(wl)
	mf := metaFields(t.objAnnots(ns), t.objLabels())
	mf = append(mf, `,"f:spec":{"f:persistentVolumeClaimRetentionPolicy":{".":{},"f:whenDeleted":{},"f:whenScaled":{}},"f:podManagementPolicy":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:serviceName":{},`...)
	mf = templateFields(mf, t, nil)
	mf = append(mf, `,"f:updateStrategy":{"f:rollingUpdate":{".":{},"f:partition":{}},"f:type":{}}}}`...)
	managed := appendManaged(nil, t.applier(), "apps/v1", mf, "", wl.created)
	managed = append(managed, ',')
	managed = appendManaged(managed, "kube-controller-manager", "apps/v1", []byte(`{"f:status":{"f:availableReplicas":{},"f:collisionCount":{},"f:currentReplicas":{},"f:currentRevision":{},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updateRevision":{},"f:updatedReplicas":{}}}`), "status", wl.created+60)
	b = append(b, `{"apiVersion":"apps/v1","kind":"StatefulSet",`...)
	b = rg.appendMeta(b, &objMeta{annots: t.objAnnots(ns), labels: t.objLabels(), created: wl.created, generation: 1, name: wl.name, ns: ns, uid: wl.uid, managed: managed})
	b = append(b, `,"spec":{"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"},"podManagementPolicy":`...)
	if wl.parallel {
		b = append(b, `"Parallel"`...)
	} else {
		b = append(b, `"OrderedReady"`...)
	}
	b = append(b, `,"replicas":`...)
	b = strconv.AppendInt(b, int64(wl.replicas), 10)
	b = append(b, `,"revisionHistoryLimit":10,"selector":{"matchLabels":`...)
	b = appendKVs(b, t.sel)
	b = append(b, `},"serviceName":`...)
	b = appendStr(b, wl.svcName)
	b = append(b, `,"template":`...)
	b = appendTemplate(b, t, nil)
	b = append(b, `,"updateStrategy":{"rollingUpdate":{"partition":0},"type":"RollingUpdate"}},"status":{`...)
	if running > 0 {
		b = appendCount(b, "availableReplicas", running)
		b = append(b, ',')
	}
	b = append(b, `"collisionCount":0,`...)
	b = appendCount(b, "currentReplicas", exist)
	b = append(b, `,"currentRevision":`...)
	b = appendStr(b, gr.hash)
	b = append(b, `,"observedGeneration":1,`...)
	if running > 0 {
		b = appendCount(b, "readyReplicas", running)
		b = append(b, ',')
	}
	b = appendCount(b, "replicas", exist)
	b = append(b, `,"updateRevision":`...)
	b = appendStr(b, gr.hash)
	b = append(b, ',')
	b = appendCount(b, "updatedReplicas", exist)
	return append(b, `}}`...)
}

func (w *rWorker) daemonSet(b []byte, wi int32) []byte {
	rg := w.rg
	wl := &rg.ws[wi]
	t := rg.tpls[wl.tpl]
	ns := rg.nss[wl.ns].name
	exist, running, _ := rg.wlCounts(wl)
	mf := metaFields(nil, t.objLabels())
	mf = append(mf, `,"f:spec":{"f:revisionHistoryLimit":{},"f:selector":{},`...)
	mf = templateFields(mf, t, nil)
	mf = append(mf, `,"f:updateStrategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}}}}`...)
	managed := appendManaged(nil, "kubectl-client-side-apply", "apps/v1", mf, "", wl.created)
	managed = append(managed, ',')
	managed = appendManaged(managed, "kube-controller-manager", "apps/v1", []byte(`{"f:status":{"f:currentNumberScheduled":{},"f:desiredNumberScheduled":{},"f:numberAvailable":{},"f:numberReady":{},"f:numberUnavailable":{},"f:observedGeneration":{},"f:updatedNumberScheduled":{}}}`), "status", rg.now-60)
	b = append(b, `{"apiVersion":"apps/v1","kind":"DaemonSet",`...)
	b = rg.appendMeta(b, &objMeta{annots: []kv{{"deprecated.daemonset.template.generation", "1"}}, labels: t.objLabels(),
		created: wl.created, generation: 1, name: wl.name, ns: ns, uid: wl.uid, managed: managed})
	b = append(b, `,"spec":{"revisionHistoryLimit":10,"selector":{"matchLabels":`...)
	b = appendKVs(b, t.sel)
	b = append(b, `},"template":`...)
	b = appendTemplate(b, t, nil)
	b = append(b, `,"updateStrategy":{"rollingUpdate":{"maxSurge":0,"maxUnavailable":1},"type":"RollingUpdate"}},"status":{`...)
	b = appendCount(b, "currentNumberScheduled", exist)
	b = append(b, ',')
	b = appendCount(b, "desiredNumberScheduled", wl.replicas)
	b = append(b, ',')
	b = appendCount(b, "numberAvailable", running)
	b = append(b, `,"numberMisscheduled":0,`...)
	b = appendCount(b, "numberReady", running)
	if u := wl.replicas - running; u > 0 {
		b = append(b, ',')
		b = appendCount(b, "numberUnavailable", u)
	}
	b = append(b, `,"observedGeneration":1,`...)
	b = appendCount(b, "updatedNumberScheduled", exist)
	return append(b, `}}`...)
}

// jobLabels are the labels the API server gives a Job and its template.
func (rg *rgen) jobLabels(wl *rWorkload) []kv {
	uid := string(appendUIDOf(nil, rg.uidSalt, wl.uid))
	return []kv{{"batch.kubernetes.io/controller-uid", uid}, {"batch.kubernetes.io/job-name", wl.name}, {"controller-uid", uid}, {"job-name", wl.name}}
}

func (w *rWorker) job(b []byte, wi int32) []byte {
	rg := w.rg
	wl := &rg.ws[wi]
	t := rg.tpls[wl.tpl]
	ns := rg.nss[wl.ns].name
	exist, running, _ := rg.wlCounts(wl)
	labels := rg.jobLabels(wl)
	mf := append([]byte(nil), `{"f:spec":{"f:backoffLimit":{},"f:completionMode":{},"f:completions":{},"f:manualSelector":{},"f:parallelism":{},"f:podReplacementPolicy":{},"f:suspend":{},`...)
	mf = templateFields(mf, t, nil)
	mf = append(mf, `}}`...)
	managed := appendManaged(nil, "kube-controller-manager", "batch/v1", mf, "", wl.created)
	managed = append(managed, ',')
	managed = appendManaged(managed, "kube-controller-manager", "batch/v1", []byte(`{"f:status":{"f:active":{},"f:ready":{},"f:startTime":{},"f:succeeded":{},"f:terminating":{},"f:uncountedTerminatedPods":{}}}`), "status", wl.created+20)
	b = append(b, `{"apiVersion":"batch/v1","kind":"Job",`...)
	b = rg.appendMeta(b, &objMeta{annots: []kv{{"batch.kubernetes.io/job-tracking", ""}}, labels: labels, created: wl.created, generation: 1,
		name: wl.name, ns: ns, uid: wl.uid, managed: managed})
	b = append(b, `,"spec":{"backoffLimit":6,"completionMode":`...)
	if wl.indexed {
		b = append(b, `"Indexed"`...)
	} else {
		b = append(b, `"NonIndexed"`...)
	}
	b = append(b, `,"completions":`...)
	b = strconv.AppendInt(b, int64(wl.completions), 10)
	b = append(b, `,"manualSelector":false,"parallelism":`...)
	b = strconv.AppendInt(b, int64(wl.replicas), 10)
	b = append(b, `,"podReplacementPolicy":"TerminatingOrFailed","selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":`...)
	b = appendStr(b, labels[0].v)
	b = append(b, `}},"suspend":false,"template":`...)
	b = appendTemplate(b, t, nil)
	b = append(b, `},"status":{`...)
	if exist > 0 {
		b = appendCount(b, "active", exist)
		b = append(b, ',')
	}
	if wl.indexed && wl.succeeded > 0 {
		b = append(b, `"completedIndexes":"0`...)
		if wl.succeeded > 1 {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(wl.succeeded-1), 10)
		}
		b = append(b, `",`...)
	}
	b = appendCount(b, "ready", running)
	b = append(b, `,"startTime":"`...)
	b = appendTime(b, wl.created+1)
	b = append(b, `",`...)
	if wl.succeeded > 0 {
		b = appendCount(b, "succeeded", wl.succeeded)
		b = append(b, ',')
	}
	return append(b, `"terminating":0,"uncountedTerminatedPods":{}}}`...)
}

func (w *rWorker) service(b []byte, si int32) []byte {
	rg := w.rg
	s := &rg.svcs[si]
	wl := &rg.ws[s.w]
	t := rg.tpls[wl.tpl]
	ns := rg.nss[s.ns].name
	ann := t.objAnnots(ns)
	mf := metaFields(ann, t.objLabels())
	mf = append(mf, `,"f:spec":{`...)
	if s.headless {
		mf = append(mf, `"f:clusterIP":{},`...)
	}
	if s.typ != "ClusterIP" {
		mf = append(mf, `"f:externalTrafficPolicy":{},`...)
	}
	mf = append(mf, `"f:internalTrafficPolicy":{},"f:ports":{".":{},"k:{\"port\":`...)
	mf = strconv.AppendInt(mf, int64(s.port), 10)
	mf = append(mf, `,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},"f:selector":{},"f:sessionAffinity":{},"f:type":{}}}`...)
	managed := appendManaged(nil, t.applier(), "v1", mf, "", s.created)
	b = append(b, `{"apiVersion":"v1","kind":"Service",`...)
	b = rg.appendMeta(b, &objMeta{annots: ann, labels: t.objLabels(), created: s.created, name: s.name, ns: ns, uid: s.uid, managed: managed})
	b = append(b, `,"spec":{`...)
	if s.typ == "LoadBalancer" {
		b = append(b, `"allocateLoadBalancerNodePorts":true,`...)
	}
	b = append(b, `"clusterIP":"`...)
	ipn := uint32(si) + 10
	if s.headless {
		b = append(b, `None","clusterIPs":["None"],`...)
	} else {
		b = appendServiceIP(b, ipn)
		b = append(b, `","clusterIPs":["`...)
		b = appendServiceIP(b, ipn)
		b = append(b, `"],`...)
	}
	if s.typ != "ClusterIP" {
		b = append(b, `"externalTrafficPolicy":"Cluster",`...)
	}
	b = append(b, `"internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"name":"`...)
	if s.port == 9090 {
		b = append(b, "metrics"...)
	} else {
		b = append(b, "http"...)
	}
	b = append(b, '"')
	if s.typ != "ClusterIP" {
		b = append(b, `,"nodePort":`...)
		b = strconv.AppendInt(b, 30000+int64(si%2767), 10)
	}
	b = append(b, `,"port":`...)
	b = strconv.AppendInt(b, int64(s.port), 10)
	b = append(b, `,"protocol":"TCP","targetPort":`...)
	b = strconv.AppendInt(b, int64(s.target), 10)
	b = append(b, `}],"publishNotReadyAddresses":`...)
	b = strconv.AppendBool(b, s.headless)
	b = append(b, `,"selector":`...)
	b = appendKVs(b, s.sel)
	b = append(b, `,"sessionAffinity":"None","type":`...)
	b = appendStr(b, s.typ)
	b = append(b, `},"status":{"loadBalancer":{`...)
	if s.typ == "LoadBalancer" {
		b = append(b, `"ingress":[{"hostname":"`...)
		b = appendHex(b, splitmix(s.uid), 16)
		b = append(b, `-`...)
		b = appendHex(b, splitmix(s.uid^1), 8)
		b = append(b, `.elb.us-east-1.amazonaws.com"}]`...)
	}
	return append(b, `}}}`...)
}

func (w *rWorker) pdb(b []byte, pi int32) []byte {
	rg := w.rg
	p := &rg.pdbs[pi]
	wl := &rg.ws[p.w]
	t := rg.tpls[wl.tpl]
	ns := rg.nss[p.ns].name
	key := "f:minAvailable"
	if p.maxUnav != "" {
		key = "f:maxUnavailable"
	}
	mf := metaFields(nil, t.objLabels())
	mf = append(mf, `,"f:spec":{"`...)
	mf = append(mf, key...)
	mf = append(mf, `":{},"f:selector":{}}}`...)
	managed := appendManaged(nil, t.applier(), "policy/v1", mf, "", p.created)
	if p.status {
		managed = append(managed, ',')
		managed = appendManaged(managed, "kube-controller-manager", "policy/v1", []byte(`{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"DisruptionAllowed\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:observedGeneration":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:currentHealthy":{},"f:desiredHealthy":{},"f:disruptionsAllowed":{},"f:expectedPods":{},"f:observedGeneration":{}}}`), "status", rg.now-120)
	}
	b = append(b, `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget",`...)
	b = rg.appendMeta(b, &objMeta{labels: t.objLabels(), created: p.created, generation: 1, name: p.name, ns: ns, uid: p.uid, managed: managed})
	b = append(b, `,"spec":{`...)
	v := p.minAv
	if p.maxUnav != "" {
		b = append(b, `"maxUnavailable":`...)
		v = p.maxUnav
	} else {
		b = append(b, `"minAvailable":`...)
	}
	b = appendIntOrString(b, v)
	b = append(b, `,"selector":{"matchLabels":`...)
	b = appendKVs(b, p.sel)
	b = append(b, `}}`...)
	if !p.status {
		return append(b, '}')
	}
	allowed := max(p.healthy-p.desired, 0)
	b = append(b, `,"status":{"conditions":[{"lastTransitionTime":"`...)
	b = appendTime(b, p.created+10)
	if allowed > 0 {
		b = append(b, `","message":"","observedGeneration":1,"reason":"SufficientPods","status":"True","type":"DisruptionAllowed"}],`...)
	} else {
		b = append(b, `","message":"","observedGeneration":1,"reason":"InsufficientPods","status":"False","type":"DisruptionAllowed"}],`...)
	}
	b = appendCount(b, "currentHealthy", p.healthy)
	b = append(b, ',')
	b = appendCount(b, "desiredHealthy", p.desired)
	b = append(b, ',')
	b = appendCount(b, "disruptionsAllowed", allowed)
	b = append(b, ',')
	b = appendCount(b, "expectedPods", p.expected)
	return append(b, `,"observedGeneration":1}}`...)
}

func (w *rWorker) priorityClass(b []byte, i int32) []byte {
	rg := w.rg
	pcs := slices.Clone(priorityClasses)
	slices.SortFunc(pcs, func(a, c priorityClass) int { return strings.Compare(a.name, c.name) })
	pc := &pcs[i]
	uid := rg.pcUID + uint64(i)
	created := int64(baseUnix - 400*86400)
	mgr := "kubectl-client-side-apply"
	if strings.HasPrefix(pc.name, "system-") {
		mgr = "kube-apiserver"
	}
	mf := appendManaged(nil, mgr, "scheduling.k8s.io/v1", []byte(`{"f:description":{},"f:preemptionPolicy":{},"f:value":{}}`), "", created)
	b = append(b, `{"apiVersion":"scheduling.k8s.io/v1","description":`...)
	b = appendStr(b, pc.desc)
	if pc.globalDefault {
		b = append(b, `,"globalDefault":true`...)
	}
	b = append(b, `,"kind":"PriorityClass",`...)
	b = rg.appendMeta(b, &objMeta{created: created, generation: 1, name: pc.name, uid: uid, managed: mf})
	b = append(b, `,"preemptionPolicy":`...)
	if pc.never {
		b = append(b, `"Never"`...)
	} else {
		b = append(b, `"PreemptLowerPriority"`...)
	}
	b = append(b, `,"value":`...)
	b = strconv.AppendInt(b, int64(pc.value), 10)
	return append(b, '}')
}
