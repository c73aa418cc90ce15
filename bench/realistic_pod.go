package bench

// Rendering the realistic profile's pod templates and pods, with keys in
// the order kubectl prints them (sorted).

import (
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// rRendered holds a template's rendered pieces.
type rRendered struct {
	spec      []byte   // spec.template.spec of its workload (the controller's view)
	tplFields []byte   // fieldsV1 of spec
	ctrs      [][]byte // containers then init containers, as in pods, open at the service account mount
	fields    []byte   // fieldsV1 of the pod spec the controller creates
	hash      string   // pod-template-hash (Deployment templates)
}

// Container rendering modes.
const (
	modeTpl = iota // a workload's template
	modePod        // a pod: API defaults of pods applied, volumeMounts left open
)

func appendProbe(b []byte, p *probe) []byte {
	b = append(b, `{"failureThreshold":`...)
	b = strconv.AppendInt(b, int64(p.thresh), 10)
	if p.http {
		b = append(b, `,"httpGet":{"path":`...)
		b = appendStr(b, p.path)
		b = append(b, `,"port":`...)
		b = appendIntOrString(b, p.port)
		b = append(b, `,"scheme":"HTTP"}`...)
	}
	if p.initial > 0 {
		b = append(b, `,"initialDelaySeconds":`...)
		b = strconv.AppendInt(b, int64(p.initial), 10)
	}
	b = append(b, `,"periodSeconds":`...)
	b = strconv.AppendInt(b, int64(p.period), 10)
	b = append(b, `,"successThreshold":1`...)
	if !p.http {
		b = append(b, `,"tcpSocket":{"port":`...)
		b = appendIntOrString(b, p.port)
		b = append(b, '}')
	}
	return append(b, `,"timeoutSeconds":1}`...)
}

func appendIntOrString(b []byte, s string) []byte {
	if _, err := strconv.Atoi(s); err == nil {
		return append(b, s...)
	}
	return appendStr(b, s)
}

func appendEnv(b []byte, e *envVar) []byte {
	b = append(b, `{"name":`...)
	b = appendStr(b, e.name)
	switch e.from {
	case "":
		b = append(b, `,"value":`...)
		b = appendStr(b, e.value)
		return append(b, '}')
	case "field":
		b = append(b, `,"valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":`...)
		b = appendStr(b, e.ref)
		return append(b, `}}}`...)
	case "resource":
		b = append(b, `,"valueFrom":{"resourceFieldRef":{"divisor":"0","resource":`...)
		b = appendStr(b, e.ref)
		return append(b, `}}}`...)
	case "secret":
		b = append(b, `,"valueFrom":{"secretKeyRef":{"key":`...)
	default:
		b = append(b, `,"valueFrom":{"configMapKeyRef":{"key":`...)
	}
	b = appendStr(b, e.key)
	b = append(b, `,"name":`...)
	b = appendStr(b, e.ref)
	return append(b, `}}}`...)
}

func appendMount(b []byte, m *mount, status bool) []byte {
	b = append(b, `{"mountPath":`...)
	b = appendStr(b, m.path)
	b = append(b, `,"name":`...)
	b = appendStr(b, m.name)
	if m.ro {
		b = append(b, `,"readOnly":true`...)
		if status {
			b = append(b, `,"recursiveReadOnly":"Disabled"`...)
		}
	}
	if m.sub != "" {
		b = append(b, `,"subPath":`...)
		b = appendStr(b, m.sub)
	}
	return append(b, '}')
}

// defaultedRequests is c's requests as the API server defaults a pod's: the
// limits stand in for the requests not given.
func defaultedRequests(c *container) []res {
	out := append([]res(nil), c.req...)
	for _, l := range c.lim {
		if _, ok := getRes(out, l.name); !ok {
			out = setRes(out, l)
		}
	}
	return out
}

// appendRContainer renders container c with its extras x.
func appendRContainer(b []byte, c *container, x *cxtra, mode int, hostNet bool) []byte {
	b = append(b, '{')
	if len(x.args) > 0 {
		b = append(b, `"args":`...)
		b = appendStrs(b, x.args)
		b = append(b, ',')
	}
	if len(x.command) > 0 {
		b = append(b, `"command":`...)
		b = appendStrs(b, x.command)
		b = append(b, ',')
	}
	if len(x.env) > 0 {
		b = append(b, `"env":[`...)
		for i := range x.env {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendEnv(b, &x.env[i])
		}
		b = append(b, `],`...)
	}
	if len(x.envFrom) > 0 {
		b = append(b, `"envFrom":[`...)
		for i, e := range x.envFrom {
			if i > 0 {
				b = append(b, ',')
			}
			if e.secret {
				b = append(b, `{"secretRef":{"name":`...)
			} else {
				b = append(b, `{"configMapRef":{"name":`...)
			}
			b = appendStr(b, e.name)
			b = append(b, `}}`...)
		}
		b = append(b, `],`...)
	}
	b = append(b, `"image":`...)
	b = appendStr(b, c.image)
	b = append(b, `,"imagePullPolicy":"IfNotPresent"`...)
	if x.live != nil {
		b = append(b, `,"livenessProbe":`...)
		b = appendProbe(b, x.live)
	}
	b = append(b, `,"name":`...)
	b = appendStr(b, c.name)
	b = appendPorts(b, c.ports, hostNet && mode == modePod)
	if x.ready != nil {
		b = append(b, `,"readinessProbe":`...)
		b = appendProbe(b, x.ready)
	}
	b = append(b, `,"resources":`...)
	b = appendResources(b, c, mode)
	if c.restartAlways {
		b = append(b, `,"restartPolicy":"Always"`...)
	}
	if x.sc != "" {
		b = append(b, `,"securityContext":`...)
		b = append(b, x.sc...)
	}
	if x.startup != nil {
		b = append(b, `,"startupProbe":`...)
		b = appendProbe(b, x.startup)
	}
	b = append(b, `,"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"`...)
	if mode == modePod {
		b = append(b, `,"volumeMounts":[`...)
		for i := range x.mounts {
			b = appendMount(b, &x.mounts[i], false)
			b = append(b, ',')
		}
		return b
	}
	if len(x.mounts) > 0 {
		b = append(b, `,"volumeMounts":[`...)
		for i := range x.mounts {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendMount(b, &x.mounts[i], false)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendResources(b []byte, c *container, mode int) []byte {
	req := c.req
	if mode == modePod {
		req = defaultedRequests(c)
	}
	b = append(b, '{')
	if len(c.lim) > 0 {
		b = append(b, `"limits":`...)
		b = appendResList(b, c.lim)
		if len(req) > 0 {
			b = append(b, ',')
		}
	}
	if len(req) > 0 {
		b = append(b, `"requests":`...)
		b = appendResList(b, req)
	}
	return append(b, '}')
}

func appendVolume(b []byte, v *rVol) []byte {
	switch v.kind {
	case "configMap":
		b = append(b, `{"configMap":{"defaultMode":420,"name":`...)
		b = appendStr(b, v.ref)
		b = append(b, `},"name":`...)
		b = appendStr(b, v.name)
		return append(b, '}')
	case "downwardAPI":
		b = append(b, `{"downwardAPI":{"defaultMode":420,"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.labels"},"path":"labels"},{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.annotations"},"path":"annotations"}]},"name":`...)
	case "emptyDir":
		if v.medium != "" {
			b = append(b, `{"emptyDir":{"medium":`...)
			b = appendStr(b, v.medium)
			b = append(b, `},"name":`...)
		} else {
			b = append(b, `{"emptyDir":{},"name":`...)
		}
	case "hostPath":
		b = append(b, `{"hostPath":{"path":`...)
		b = appendStr(b, v.ref)
		b = append(b, `,"type":""},"name":`...)
	case "projected":
		b = append(b, `{"name":`...)
		b = appendStr(b, v.name)
		b = append(b, `,"projected":{"defaultMode":420,"sources":[{"serviceAccountToken":{"audience":`...)
		b = appendStr(b, v.ref)
		return append(b, `,"expirationSeconds":43200,"path":"istio-token"}}]}}`...)
	case "secret":
		b = append(b, `{"name":`...)
		b = appendStr(b, v.name)
		b = append(b, `,"secret":{"defaultMode":420,"secretName":`...)
		b = appendStr(b, v.ref)
		return append(b, `}}`...)
	}
	b = appendStr(b, v.name)
	return append(b, '}')
}

// appendAPIVolume writes the service account token volume the
// ServiceAccount admission adds to every pod.
func appendAPIVolume(b []byte, name []byte) []byte {
	b = append(b, `{"name":"`...)
	b = append(b, name...)
	return append(b, `","projected":{"defaultMode":420,"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"items":[{"key":"ca.crt","path":"ca.crt"}],"name":"kube-root-ca.crt"}},{"downwardAPI":{"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"},"path":"namespace"}]}}]}}`...)
}

const apiMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// specPod is what a pod adds to its template's spec.
type specPod struct {
	node     string // spec.nodeName ("" pending)
	hostname string // StatefulSet pods: hostname and subdomain
	sub      string
	dsNode   string // DaemonSet pods: the node of the matchFields term
	apiVol   []byte // kube-api-access-xxxxx ("" for the controller's view)
	admitted bool   // admission applied: priority, service account, default tolerations
}

// appendAffinity writes t's affinity ("affinity":{...},), for a DaemonSet
// pod with its required node affinity replaced by the matchFields term of
// its node (the DaemonSet controller's ReplaceDaemonSetPodNodeNameNodeAffinity).
func appendAffinity(b []byte, t *rTpl, dsNode string) []byte {
	tt := &t.t
	hasPodAff := len(tt.affReq)+len(tt.antiReq)+len(tt.affPref)+len(tt.antiPref) > 0
	required := tt.required
	if dsNode != "" {
		required = []selTerm{{fields: []selReq{expr("metadata.name", "In", dsNode)}}}
	}
	if !hasPodAff && len(required) == 0 && len(tt.preferred) == 0 {
		return b
	}
	b = append(b, `"affinity":`...)
	if len(required) > 0 || len(tt.preferred) > 0 {
		b = appendNodeAffinity(b, required, tt.preferred)
		if hasPodAff {
			b = append(b, ',')
		}
	} else {
		b = append(b, '{')
	}
	if hasPodAff {
		b = (*gen)(nil).appendPodAffinity(b, tt, false)
	}
	return append(b, `},`...)
}

// appendSpec writes the pod spec of t: the template's when p is nil (as
// its workload holds it), else a pod's.
func (rg *rgen) appendSpec(b []byte, t *rTpl, p *specPod, ctrs [][]byte) []byte {
	tt := &t.t
	pod := p != nil
	if p == nil {
		p = &specPod{}
	}
	b = append(b, '{')
	b = appendAffinity(b, t, p.dsNode)
	nc := len(tt.containers)
	appendCtrs := func(b []byte, cs []container, off int) []byte {
		for i := range cs {
			if i > 0 {
				b = append(b, ',')
			}
			if !pod {
				b = appendRContainer(b, &cs[i], &t.cx[off+i], modeTpl, t.hostNet)
				continue
			}
			b = append(b, ctrs[off+i]...)
			switch {
			case p.apiVol != nil:
				b = append(b, `{"mountPath":"`+apiMountPath+`","name":"`...)
				b = append(b, p.apiVol...)
				b = append(b, `","readOnly":true}]}`...)
			case b[len(b)-1] == ',':
				b = append(b[:len(b)-1], `]}`...)
			default: // no mounts before the service account's
				b = append(b[:len(b)-len(`,"volumeMounts":[`)], '}')
			}
		}
		return b
	}
	b = append(b, `"containers":[`...)
	b = appendCtrs(b, tt.containers, 0)
	b = append(b, `],"dnsPolicy":"ClusterFirst"`...)
	if pod {
		b = append(b, `,"enableServiceLinks":true`...)
	}
	if t.hostNet {
		b = append(b, `,"hostNetwork":true`...)
	}
	if t.hostPID {
		b = append(b, `,"hostPID":true`...)
	}
	if p.hostname != "" {
		b = append(b, `,"hostname":`...)
		b = appendStr(b, p.hostname)
	}
	if len(tt.initContainers) > 0 {
		b = append(b, `,"initContainers":[`...)
		b = appendCtrs(b, tt.initContainers, nc)
		b = append(b, ']')
	}
	if p.node != "" {
		b = append(b, `,"nodeName":`...)
		b = appendStr(b, p.node)
	}
	if len(tt.nodeSelector) > 0 {
		b = append(b, `,"nodeSelector":`...)
		b = appendKVs(b, tt.nodeSelector) // sorted by finishTpl
	}
	if len(tt.overhead) > 0 && p.admitted { // the RuntimeClass admission sets it
		b = append(b, `,"overhead":`...)
		b = appendResList(b, tt.overhead)
	}
	pcName := tt.priorityClass
	if p.admitted && pcName == "" {
		pcName = "default" // the globalDefault class
	}
	if pc := findPriorityClass(pcName); pc != nil && p.admitted {
		b = appendPriority(b, pc)
	}
	if pcName != "" {
		b = append(b, `,"priorityClassName":`...)
		b = appendStr(b, pcName)
	}
	b = append(b, `,"restartPolicy":`...)
	b = appendStr(b, t.restart)
	if tt.runtimeClass != "" {
		b = append(b, `,"runtimeClassName":`...)
		b = appendStr(b, tt.runtimeClass)
	}
	b = append(b, `,"schedulerName":"default-scheduler","securityContext":`...)
	b = append(b, t.podSC...)
	sa := t.sa
	if sa == "" && p.admitted {
		sa = "default"
	}
	if sa != "" {
		b = append(b, `,"serviceAccount":`...)
		b = appendStr(b, sa)
		b = append(b, `,"serviceAccountName":`...)
		b = appendStr(b, sa)
	}
	if p.sub != "" {
		b = append(b, `,"subdomain":`...)
		b = appendStr(b, p.sub)
	}
	b = append(b, `,"terminationGracePeriodSeconds":30`...)
	tols := tt.tolerations
	if p.admitted {
		tols = t.podTols
	} else if pod {
		tols = t.podTols[:t.ctlTols]
	}
	if len(tols) > 0 {
		b = append(b, `,"tolerations":[`...)
		for i := range tols {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendToleration(b, &tols[i])
		}
		b = append(b, ']')
	}
	b = rg.appendSpread(b, tt)
	if len(t.vols) > 0 || p.apiVol != nil {
		b = append(b, `,"volumes":[`...)
		for i := range t.vols {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendVolume(b, &t.vols[i])
		}
		if p.apiVol != nil {
			if len(t.vols) > 0 {
				b = append(b, ',')
			}
			b = appendAPIVolume(b, p.apiVol)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// render renders every template's shared pieces and the Deployments'
// pod-template-hashes, on every core, then names what the hashes name.
func (rg *rgen) render() error {
	var wg sync.WaitGroup
	errs := make([]error, runtime.GOMAXPROCS(0))
	next := make(chan int, 64)
	for k := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[k] == nil {
					errs[k] = rg.renderTpl(rg.tpls[i])
				}
			}
		}()
	}
	for i := range rg.tpls {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	// Old revisions: the current template with their image tag.
	type job struct{ w, h int }
	var hist []job
	for wi := range rg.ws {
		for hi := range rg.ws[wi].history {
			hist = append(hist, job{wi, hi})
		}
	}
	jobs := make(chan job, 64)
	for k := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				w := &rg.ws[j.w]
				h := &w.history[j.h]
				hash, err := podTemplateHash(rg.historyTemplate(w, h), nil)
				if err != nil && errs[k] == nil {
					errs[k] = err
				}
				h.hash = hash
				h.name = w.name + "-" + hash
			}
		}()
	}
	for _, j := range hist {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for gi := range rg.groups {
		gr := &rg.groups[gi]
		t := rg.tpls[gr.tpl]
		switch gr.kind {
		case gRS:
			gr.hash = t.r.hash
			gr.name = rg.ws[gr.w].name + "-" + gr.hash
		case gSTS:
			gr.hash = gr.name + "-" + t.r.hash
		case gDS:
			gr.hash = t.r.hash
		}
	}
	return nil
}

// appendTemplate writes a workload's spec.template: its labels (and
// annotations) and spec, extra labels merged (a ReplicaSet's
// pod-template-hash).
func appendTemplate(b []byte, t *rTpl, extra []kv) []byte {
	b = append(b, `{"metadata":{`...)
	if len(t.annots) > 0 {
		b = append(b, `"annotations":`...)
		b = appendKVs(b, t.annots)
		b = append(b, ',')
	}
	b = append(b, `"labels":`...)
	b = appendMergedKVs(b, t.labels, extra)
	b = append(b, `},"spec":`...)
	b = append(b, t.r.spec...)
	return append(b, '}')
}

// historyTemplate is the template of an old revision: the current one with
// the main container's older image.
func (rg *rgen) historyTemplate(w *rWorkload, h *rHistory) []byte {
	t := rg.tpls[w.tpl]
	old := *t
	old.t.containers = append([]container(nil), t.t.containers...)
	m := &old.t.containers[0]
	if i := lastColon(m.image); i > 0 {
		m.image = m.image[:i+1] + h.tag
	}
	r := *t.r
	r.spec = rg.appendSpec(nil, &old, nil, nil)
	old.r = &r
	return appendTemplate(nil, &old, nil)
}

func lastColon(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			return i
		}
		if s[i] == '/' {
			return -1
		}
	}
	return -1
}

func (rg *rgen) renderTpl(t *rTpl) error {
	r := &rRendered{}
	t.r = r
	r.spec = rg.appendSpec(nil, t, nil, nil)
	nc := len(t.t.containers)
	for i := range t.t.containers {
		r.ctrs = append(r.ctrs, appendRContainer(nil, &t.t.containers[i], &t.cx[i], modePod, t.hostNet))
	}
	for i := range t.t.initContainers {
		r.ctrs = append(r.ctrs, appendRContainer(nil, &t.t.initContainers[i], &t.cx[nc+i], modePod, t.hostNet))
	}
	// The pod as its controller sends it (API defaults applied, admission
	// not yet): the fields its managedFields entry owns.
	p := &specPod{}
	switch t.kind {
	case wSTS:
		p.hostname, p.sub = "x", "x"
	case wDS:
		p.dsNode = "x"
	}
	ctl := rg.appendSpec(nil, t, p, r.ctrs)
	f, err := fieldsSet(ctl, reflect.TypeFor[corev1.PodSpec]())
	if err != nil {
		return fmt.Errorf("%w (template of %s/%s)", err, t.ns.name, t.t.deploy)
	}
	r.fields = f
	if r.tplFields, err = fieldsSet(r.spec, reflect.TypeFor[corev1.PodSpec]()); err != nil {
		return fmt.Errorf("%w (template of %s/%s)", err, t.ns.name, t.t.deploy)
	}
	h, err := podTemplateHash(appendTemplate(nil, t, nil), nil)
	if err != nil {
		return err
	}
	r.hash = h
	return nil
}

// appendMergedKVs writes the union of two key-sorted lists as a JSON
// object, sorted (b's entries win).
func appendMergedKVs(dst []byte, a, b []kv) []byte {
	dst = append(dst, '{')
	i, j, n := 0, 0, 0
	for i < len(a) || j < len(b) {
		var p kv
		switch {
		case j == len(b) || i < len(a) && a[i].k < b[j].k:
			p = a[i]
			i++
		case i == len(a) || b[j].k < a[i].k:
			p = b[j]
			j++
		default:
			p = b[j]
			i++
			j++
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = appendKey(dst, p.k)
		dst = appendStr(dst, p.v)
	}
	return append(dst, '}')
}
