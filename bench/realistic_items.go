package bench

// The realistic profile's items: pods, nodes, workloads, services,
// budgets and priority classes, each rendered from the plan alone.

import (
	"slices"
	"strconv"
	"strings"
)

// Per-pod randomness: a hash of the pod's uid counter.
func (rg *rgen) podHash(c uint64, salt uint64) uint64 { return splitmix(c ^ rg.uidSalt ^ salt) }

func appendRV(b []byte, c uint64) []byte {
	b = append(b, `"resourceVersion":"`...)
	b = strconv.AppendUint(b, 1000000+(c*2654435761)%4000000000, 10)
	return append(b, '"')
}

func (rg *rgen) appendUIDField(b []byte, c uint64) []byte {
	b = append(b, `"uid":"`...)
	b = appendUIDOf(b, rg.uidSalt, c)
	return append(b, '"')
}

// appendSafe appends n characters of the safe alphabet drawn from h.
func appendSafe(b []byte, h uint64, n int) []byte {
	for range n {
		b = append(b, safeAlphabet[h%uint64(len(safeAlphabet))])
		h /= uint64(len(safeAlphabet))
	}
	return b
}

// appendFieldKeys writes `"f:<key>":{}` for each key, comma-separated.
func appendFieldKeys(b []byte, lists ...[]kv) []byte {
	n := 0
	for _, l := range lists {
		for _, p := range l {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = appendStr(b, "f:"+p.k)
			b = append(b, `:{}`...)
		}
	}
	return b
}

// appendManaged writes one managedFields entry.
func appendManaged(b []byte, manager, apiVersion string, fields []byte, subresource string, at int64) []byte {
	b = append(b, `{"apiVersion":`...)
	b = appendStr(b, apiVersion)
	b = append(b, `,"fieldsType":"FieldsV1","fieldsV1":`...)
	b = append(b, fields...)
	b = append(b, `,"manager":`...)
	b = appendStr(b, manager)
	b = append(b, `,"operation":"Update"`...)
	if subresource != "" {
		b = append(b, `,"subresource":`...)
		b = appendStr(b, subresource)
	}
	b = append(b, `,"time":"`...)
	b = appendTime(b, at)
	return append(b, `"}`...)
}

// ---------------------------------------------------------------------------
// Pods.

// podLabels are the labels the controller of gr adds to pod i (sorted).
func (w *rWorker) podLabels(gr *rGroup, i int32, name []byte) []kv {
	rg := w.rg
	l := w.kvs[:0]
	switch gr.kind {
	case gRS:
		l = append(l, kv{"pod-template-hash", gr.hash})
	case gSTS:
		l = append(l, kv{"apps.kubernetes.io/pod-index", strconv.Itoa(int(i))}, kv{"controller-revision-hash", gr.hash},
			kv{"statefulset.kubernetes.io/pod-name", string(name)})
	case gDS:
		l = append(l, kv{"controller-revision-hash", gr.hash}, kv{"pod-template-generation", "1"})
	case gJob:
		if rg.ws[gr.w].indexed {
			l = append(l, kv{"batch.kubernetes.io/job-completion-index", strconv.Itoa(int(i))})
		}
	}
	w.kvs = l
	return l
}

// ctlEntry renders the managedFields entry of the pods' creator, up to its
// time: the group's owner (or kubectl for a bare pod).
func (w *rWorker) ctlEntry(gi int32, gr *rGroup) []byte {
	if w.mfG == gi && w.mf != nil {
		return w.mf
	}
	rg := w.rg
	t := rg.tpls[gr.tpl]
	w.mfG = gi
	b := append(w.mf[:0], `{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{`...)
	annots := t.annots
	if gr.kind == gJob && rg.ws[gr.w].indexed {
		annots = append(slices.Clone(annots), kv{"batch.kubernetes.io/job-completion-index", ""})
	}
	if len(annots) > 0 {
		b = append(b, `"f:annotations":{".":{},`...)
		b = appendFieldKeys(b, sortedKVs(slices.Clone(annots)))
		b = append(b, `},`...)
	}
	if gr.kind == gJob {
		b = append(b, `"f:finalizers":{".":{},"v:\"batch.kubernetes.io/job-tracking\"":{}},`...)
	}
	if gr.kind != gSTS && gr.kind != gBare {
		b = append(b, `"f:generateName":{},`...)
	}
	b = append(b, `"f:labels":{".":{},`...)
	extra := w.podLabels(gr, 0, nil)
	b = appendFieldKeys(b, sortedKVs(append(slices.Clone(t.labels), extra...)))
	b = append(b, '}')
	if gr.kind != gBare {
		b = append(b, `,"f:ownerReferences":{".":{},"k:{\"uid\":\"`...)
		b = appendUIDOf(b, rg.uidSalt, gr.uid)
		b = append(b, `\"}":{}}`...)
	}
	b = append(b, `},"f:spec":`...)
	b = append(b, t.r.fields...)
	b = append(b, `},"manager":`...)
	if gr.kind == gBare {
		b = appendStr(b, "kubectl-run")
	} else {
		b = appendStr(b, "kube-controller-manager")
	}
	b = append(b, `,"operation":"Update","time":"`...)
	w.mf = b
	return b
}

const podConditionFields = `{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}`

// pod renders pod i (in creation order) of group gi.
func (w *rWorker) pod(b []byte, gi int32, gr *rGroup, i int32) []byte {
	rg := w.rg
	wl := &rg.ws[gr.w]
	t := rg.tpls[gr.tpl]
	ns := rg.nss[wl.ns].name
	uidC := gr.podUID + uint64(i)
	h := rg.podHash(uidC, 0x706f64)
	finished := i < gr.finished
	running := !finished && i < gr.finished+gr.running
	var created int64
	if finished || running {
		n := int64(max(gr.finished+gr.running, 1))
		created = gr.runFrom + (gr.runTo-gr.runFrom)*int64(i)/n
	} else {
		created = gr.pendFrom + int64(i-gr.finished-gr.running)/20
	}
	ni := int32(-1) // the pod's node
	dsNode := ""
	switch {
	case gr.kind == gDS:
		dsNode = rg.nodes[rg.podNodes[gr.nodeOff+i]].name
		if running {
			ni = rg.podNodes[gr.nodeOff+i]
		}
	case running:
		ni = rg.podNodes[gr.nodeOff+i-gr.finished]
	case finished:
		ni = int32(h % uint64(len(rg.nodes)))
	}
	node := ""
	if ni >= 0 {
		node = rg.nodes[ni].name
	}
	name := w.nb[:0]
	if gr.kind == gBare {
		name = append(name, gr.name...)
	} else {
		name = append(name, gr.name...)
		name = append(name, '-')
		name = rg.podTail(name, gr, i)
	}
	w.nb = name
	api := append(w.ab[:0], "kube-api-access-"...)
	api = appendSafe(api, h>>8, 5)
	w.ab = api

	b = append(b, `{"apiVersion":"v1","kind":"Pod","metadata":{`...)
	indexed := gr.kind == gJob && wl.indexed
	if len(t.annots) > 0 || indexed {
		b = append(b, `"annotations":`...)
		if indexed {
			b = appendMergedKVs(b, t.annots, []kv{{"batch.kubernetes.io/job-completion-index", strconv.Itoa(int(i))}})
		} else {
			b = appendKVs(b, t.annots)
		}
		b = append(b, ',')
	}
	b = append(b, `"creationTimestamp":"`...)
	b = appendTime(b, created)
	b = append(b, `",`...)
	if gr.kind == gJob && !finished {
		b = append(b, `"finalizers":["batch.kubernetes.io/job-tracking"],`...)
	}
	if gr.kind != gSTS && gr.kind != gBare {
		b = append(b, `"generateName":"`...)
		b = append(b, gr.name...)
		b = append(b, '-')
		if indexed {
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, '-')
		}
		b = append(b, `",`...)
	}
	b = append(b, `"labels":`...)
	b = appendMergedKVs(b, t.labels, w.podLabels(gr, i, name))
	b = append(b, `,"managedFields":[`...)
	b = append(b, w.ctlEntry(gi, gr)...)
	b = appendTime(b, created)
	b = append(b, `"}`...)
	ip := uint32(uidC*0x9e3779b1) & (1<<22 - 1) // a bijection of the uid counter: unique below 4M pods
	switch {
	case running || finished:
		b = append(b, `,{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":`+podConditionFields+
			`,"k:{\"type\":\"Initialized\"}":`+podConditionFields+`,"k:{\"type\":\"PodReadyToStartContainers\"}":`+podConditionFields+
			`,"k:{\"type\":\"Ready\"}":`+podConditionFields+`},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},`...)
		if len(t.t.initContainers) > 0 {
			b = append(b, `"f:initContainerStatuses":{},`...)
		}
		b = append(b, `"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"`...)
		b = appendPodIP(b, ip)
		b = append(b, `\"}":{".":{},"f:ip":{}}},"f:startTime":{}}},"manager":"kubelet","operation":"Update","subresource":"status","time":"`...)
		b = appendTime(b, created+12)
		b = append(b, `"}`...)
	default:
		b = append(b, `,{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"PodScheduled\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}},"manager":"kube-scheduler","operation":"Update","subresource":"status","time":"`...)
		b = appendTime(b, created+1)
		b = append(b, `"}`...)
	}
	b = append(b, `],"name":`...)
	b = appendStr(b, string(name))
	b = append(b, `,"namespace":`...)
	b = appendStr(b, ns)
	b = append(b, ',')
	if gr.kind != gBare {
		b = append(b, `"ownerReferences":[{"apiVersion":`...)
		switch gr.kind {
		case gRS:
			b = append(b, `"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"ReplicaSet"`...)
		case gSTS:
			b = append(b, `"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"StatefulSet"`...)
		case gDS:
			b = append(b, `"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"DaemonSet"`...)
		case gJob:
			b = append(b, `"batch/v1","blockOwnerDeletion":true,"controller":true,"kind":"Job"`...)
		}
		b = append(b, `,"name":`...)
		b = appendStr(b, gr.name)
		b = append(b, ',')
		b = rg.appendUIDField(b, gr.uid)
		b = append(b, `}],`...)
	}
	b = appendRV(b, uidC)
	b = append(b, ',')
	b = rg.appendUIDField(b, uidC)
	b = append(b, `},"spec":`...)
	sp := specPod{node: node, dsNode: dsNode, apiVol: api, admitted: true}
	if gr.kind == gSTS {
		sp.hostname, sp.sub = string(name), wl.svcName
	}
	b = rg.appendSpec(b, t, &sp, t.r.ctrs)
	b = append(b, `,"status":`...)
	switch {
	case running || finished:
		b = w.runStatus(b, t, &rg.nodes[ni], ip, created, h, api, finished)
	default:
		b = append(b, `{"conditions":[{"lastProbeTime":null,"lastTransitionTime":"`...)
		b = appendTime(b, created+1)
		b = append(b, `","message":"0/`...)
		n := len(rg.nodes)
		k := int(h % uint64(n+1))
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ` nodes are available: `...)
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, ` Insufficient cpu, `...)
		b = strconv.AppendInt(b, int64(n-k), 10)
		b = append(b, ` node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/`...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ` nodes are available: `...)
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, ` No preemption victims found for incoming pod, `...)
		b = strconv.AppendInt(b, int64(n-k), 10)
		b = append(b, ` Preemption is not helpful for scheduling.","reason":"Unschedulable","status":"False","type":"PodScheduled"}],"phase":"Pending","qosClass":"`...)
		b = append(b, t.qos...)
		b = append(b, `"}`...)
	}
	return append(b, '}')
}

// appendPodIP writes an address of the 100.64.0.0/10 pod range.
func appendPodIP(b []byte, ip uint32) []byte {
	b = strconv.AppendInt(b, int64(100), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(64+ip>>16), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(ip>>8&255), 10)
	b = append(b, '.')
	return strconv.AppendInt(b, int64(ip&255), 10)
}

func appendCond(b []byte, typ, status, reason string, at int64) []byte {
	b = append(b, `{"lastProbeTime":null,"lastTransitionTime":"`...)
	b = appendTime(b, at)
	b = append(b, '"')
	if reason != "" {
		b = append(b, `,"reason":`...)
		b = appendStr(b, reason)
	}
	b = append(b, `,"status":"`...)
	b = append(b, status...)
	b = append(b, `","type":"`...)
	b = append(b, typ...)
	return append(b, `"}`...)
}

// runStatus writes the status of a running (or, for a Job, finished) pod.
func (w *rWorker) runStatus(b []byte, t *rTpl, nd *node, ip uint32, created int64, h uint64, api []byte, finished bool) []byte {
	rg := w.rg
	sched, start, ready := created+1, created+3, created+12
	b = append(b, `{"conditions":[`...)
	if finished {
		b = appendCond(b, "PodReadyToStartContainers", "False", "", ready+60)
		b = append(b, ',')
		b = appendCond(b, "Initialized", "True", "PodCompleted", start)
		b = append(b, ',')
		b = appendCond(b, "Ready", "False", "PodCompleted", ready+60)
		b = append(b, ',')
		b = appendCond(b, "ContainersReady", "False", "PodCompleted", ready+60)
	} else {
		b = appendCond(b, "PodReadyToStartContainers", "True", "", start+2)
		b = append(b, ',')
		b = appendCond(b, "Initialized", "True", "", start)
		b = append(b, ',')
		b = appendCond(b, "Ready", "True", "", ready)
		b = append(b, ',')
		b = appendCond(b, "ContainersReady", "True", "", ready)
	}
	b = append(b, ',')
	b = appendCond(b, "PodScheduled", "True", "", sched)
	b = append(b, `],"containerStatuses":[`...)
	tt := &t.t
	nc := len(tt.containers)
	idx := make([]int, 0, 8)
	for i := range tt.containers {
		idx = append(idx, i)
	}
	slices.SortFunc(idx, func(a, c int) int { return strings.Compare(tt.containers[a].name, tt.containers[c].name) })
	for k, ci := range idx {
		if k > 0 {
			b = append(b, ',')
		}
		b = rg.appendCtrStatus(b, &tt.containers[ci], &t.cx[ci], h+uint64(ci), api, start+2, finished)
	}
	b = append(b, `],"hostIP":"`...)
	b = appendIP(b, nd.ip)
	b = append(b, `","hostIPs":[{"ip":"`...)
	b = appendIP(b, nd.ip)
	b = append(b, `"}],`...)
	if len(tt.initContainers) > 0 {
		b = append(b, `"initContainerStatuses":[`...)
		for i := range tt.initContainers {
			if i > 0 {
				b = append(b, ',')
			}
			c := &tt.initContainers[i]
			b = rg.appendCtrStatus(b, c, &t.cx[nc+i], h+uint64(nc+i), api, start, finished || !c.restartAlways)
		}
		b = append(b, `],`...)
	}
	if finished {
		b = append(b, `"phase":"Succeeded","podIP":"`...)
	} else {
		b = append(b, `"phase":"Running","podIP":"`...)
	}
	b = appendPodIP(b, ip)
	b = append(b, `","podIPs":[{"ip":"`...)
	b = appendPodIP(b, ip)
	b = append(b, `"}],"qosClass":"`...)
	b = append(b, t.qos...)
	b = append(b, `","startTime":"`...)
	b = appendTime(b, sched+1)
	return append(b, `"}`...)
}

// appendCtrStatus writes a container status: running, or terminated with
// Completed (init containers, finished pods).
func (rg *rgen) appendCtrStatus(b []byte, c *container, x *cxtra, h uint64, api []byte, at int64, done bool) []byte {
	req := defaultedRequests(c)
	b = append(b, '{')
	if len(req) > 0 {
		b = append(b, `"allocatedResources":`...)
		b = appendResList(b, req)
		b = append(b, ',')
	}
	b = append(b, `"containerID":"containerd://`...)
	cid := len(b)
	for k := range 4 {
		b = appendHex(b, splitmix(h+uint64(k)), 16)
	}
	cidEnd := len(b)
	b = append(b, `","image":`...)
	b = appendStr(b, c.image)
	b = append(b, `,"imageID":`...)
	b = appendImageID(b, c.image)
	b = append(b, `,"lastState":{},"name":`...)
	b = appendStr(b, c.name)
	if done {
		b = append(b, `,"ready":false`...)
	} else {
		b = append(b, `,"ready":true`...)
	}
	b = append(b, `,"resources":`...)
	b = appendResources(b, c, modePod)
	restarts := 0
	if h%7 == 0 {
		restarts = int(h>>40) % 4
	}
	b = append(b, `,"restartCount":`...)
	b = strconv.AppendInt(b, int64(restarts), 10)
	if done {
		b = append(b, `,"started":false,"state":{"terminated":{"containerID":"containerd://`...)
		b = append(b, b[cid:cidEnd]...)
		b = append(b, `","exitCode":0,"finishedAt":"`...)
		b = appendTime(b, at+30)
		b = append(b, `","reason":"Completed","startedAt":"`...)
		b = appendTime(b, at)
		b = append(b, `"}}`...)
	} else {
		b = append(b, `,"started":true,"state":{"running":{"startedAt":"`...)
		b = appendTime(b, at)
		b = append(b, `"}}`...)
	}
	b = append(b, `,"user":{"linux":{"gid":0,"supplementalGroups":[0],"uid":0}},"volumeMounts":[`...)
	for i := range x.mounts {
		b = appendMount(b, &x.mounts[i], true)
		b = append(b, ',')
	}
	b = append(b, `{"mountPath":"`+apiMountPath+`","name":"`...)
	b = append(b, api...)
	return append(b, `","readOnly":true,"recursiveReadOnly":"Disabled"}]}`...)
}

// appendImageID writes an image's digest reference: its repository and a
// sha256 derived from its name.
func appendImageID(b []byte, image string) []byte {
	repo := image
	if i := lastColon(image); i > 0 {
		repo = image[:i]
	}
	b = append(b, '"')
	b = append(b, repo...)
	b = append(b, "@sha256:"...)
	b = appendDigest(b, image)
	return append(b, '"')
}

func appendDigest(b []byte, image string) []byte {
	h := uint64(14695981039346656037)
	for i := 0; i < len(image); i++ {
		h = (h ^ uint64(image[i])) * 1099511628211
	}
	for k := range 4 {
		b = appendHex(b, splitmix(h+uint64(k)), 16)
	}
	return b
}
