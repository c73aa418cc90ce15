package ingest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kplace/kplace/index"
)

// Conversion of decoded wire objects into index types, with API defaulting
// (what the API server stores) applied. Admission (priority, default
// tolerations) comes later, once every object has been read.

// objCtx names the object being converted, for errors.
type objCtx struct {
	src              index.Source
	origin           index.Source // a snapshot's object: its source in the converted input
	kind, ns, name   string
	resourceFilters  *resourceFilter
	spareTolerations int // capacity to leave in a pod's tolerations
	// labelsOK and selectorOK are the last label and node selector maps
	// validPod found valid (held, so that no other map takes their
	// address): ingest shares equal maps, and the pods of a workload
	// mostly follow each other.
	labelsOK, selectorOK map[string]string
	// tolerationsOK is the last toleration list validPod found valid
	// (shared alike); classOK the last priorityClassName.
	tolerationsOK []index.Toleration
	classOK       string
}

func (c *objCtx) errf(field, format string, args ...any) *Error {
	return &Error{File: c.src.File, Line: c.src.Line, Kind: c.kind, Namespace: c.ns, Name: c.name,
		Field: field, Msg: fmt.Sprintf(format, args...), Origin: c.origin}
}

// fieldPath is a field path built only when an error needs it:
// prefix[idx]suffix, or prefix alone when idx < 0.
type fieldPath struct {
	prefix string
	idx    int
	suffix string
}

func path(s string) fieldPath { return fieldPath{prefix: s, idx: -1} }

// lazyPath is a nested field path, built only when an error needs it:
// up's path, then name, then "[idx]" when idx >= 0.
type lazyPath struct {
	up   *lazyPath
	name string
	idx  int
}

// String copies the parts (a result aliasing them would make escape
// analysis move every path to the heap).
func (p *lazyPath) String() string { return string(p.append(nil)) }

func (p *lazyPath) append(b []byte) []byte {
	if p.up != nil {
		b = p.up.append(b)
	}
	b = append(b, p.name...)
	if p.idx >= 0 {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(p.idx), 10)
		b = append(b, ']')
	}
	return b
}

func (f fieldPath) String() string {
	if f.idx < 0 {
		return f.prefix + f.suffix
	}
	return f.prefix + "[" + strconv.Itoa(f.idx) + "]" + f.suffix
}

// parseList turns a wire resource list into exact amounts; negative
// quantities are errors (the API server rejects them).
func (c *objCtx) parseList(l resList, field fieldPath) (rl, error) {
	if len(l.entries) == 0 {
		return nil, nil
	}
	out := make(rl, 0, len(l.entries)+2)
	for _, e := range l.entries {
		if e.err != nil {
			msg := "invalid quantity %q"
			if e.err == errQuantityRange {
				msg = "quantity %q out of range"
			}
			return nil, c.errf(field.String()+"."+e.name, msg, e.bad)
		}
		if e.neg && !e.v.isZero() {
			return nil, c.errf(field.String()+"."+e.name, "negative quantity")
		}
		out = append(out, rent{e.name, e.v})
	}
	return out, nil
}

// resourceFilter caches which resource names the scheduler accounts for.
type resourceFilter struct {
	scalar map[string]bool
}

// isScalar is the scheduler's IsScalarResourceName: extended resources
// (domain-prefixed, not kubernetes.io), hugepages-*, *kubernetes.io/*,
// attachable-volumes-*.
func (f *resourceFilter) isScalar(name string) bool {
	if v, ok := f.scalar[name]; ok {
		return v
	}
	v := isHugePages(name) || strings.HasPrefix(name, "attachable-volumes-") ||
		strings.Contains(name, "kubernetes.io/")
	if !v && strings.Contains(name, "/") && !strings.HasPrefix(name, "requests.") {
		v = index.ValidQualifiedName("requests." + name)
	}
	if f.scalar == nil {
		f.scalar = map[string]bool{}
	}
	f.scalar[name] = v
	return v
}

// podResource reports whether a pod request for name counts in the
// scheduler's Resource (cpu, memory, ephemeral-storage, scalar resources).
func (f *resourceFilter) podResource(name string) bool {
	switch name {
	case index.NameCPU, index.NameMemory, index.NameEphemeralStorage:
		return true
	case index.NamePods:
		return false
	}
	return f.isScalar(name)
}

// nodeResource is podResource plus "pods".
func (f *resourceFilter) nodeResource(name string) bool {
	return name == index.NamePods || f.podResource(name)
}

// convertNode converts a v1 Node (validNode checks it).
func (c *objCtx) convertNode(o *wireObject) (index.Node, error) {
	n := index.Node{Name: o.Metadata.Name, Labels: o.Metadata.Labels, Unschedulable: o.Spec.Unschedulable, Src: c.src}
	for _, t := range o.Spec.Taints {
		n.Taints = append(n.Taints, index.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	list, field := o.Status.Allocatable, "status.allocatable"
	if !list.set { // API defaulting: allocatable = capacity
		list, field = o.Status.Capacity, "status.capacity"
	}
	amts, err := c.parseList(list, path(field))
	if err != nil {
		return n, err
	}
	var cl calc
	n.Allocatable = toResourceList(amts, c.resourceFilters.nodeResource, false, &cl)
	if cl.overflow != "" {
		return n, c.errf(field+"."+cl.overflow, "value out of range")
	}
	if len(o.Status.Images) > 0 {
		n.Images = make([]index.NodeImage, len(o.Status.Images))
		for i, im := range o.Status.Images {
			n.Images[i] = index.NodeImage{Names: im.Names, Size: im.Size}
		}
	}
	return n, nil
}

// podImages returns the images ImageLocality looks up for a pod: its init
// containers', its containers' and its image volumes', each name with
// ":latest" when it has no tag (as the plugin normalises them).
func podImages(s *wireSpec) []string {
	n := len(s.InitContainers) + len(s.Containers) + len(s.ImageVolumes)
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for _, cs := range [][]wireContainer{s.InitContainers, s.Containers} {
		for i := range cs {
			out = append(out, normalizedImageName(cs[i].Image))
		}
	}
	for _, ref := range s.ImageVolumes {
		out = append(out, normalizedImageName(ref))
	}
	return out
}

// normalizedImageName adds ":latest" to an image name without a tag: a
// name whose last ':' does not come after its last '/' (ImageLocality's
// normalizedImageName).
func normalizedImageName(name string) string {
	if strings.LastIndexByte(name, ':') <= strings.LastIndexByte(name, '/') {
		return name + ":latest"
	}
	return name
}

// convertPod converts a v1 Pod, applying API defaulting (validPod checks
// it). Bound pods use their status resources (in-place resize), as the
// scheduler's cache does.
func (c *objCtx) convertPod(o *wireObject) (index.Pod, error) {
	s := &o.Spec
	p := index.Pod{
		Namespace:         c.ns,
		Name:              o.Metadata.Name,
		UID:               o.Metadata.UID,
		Labels:            o.Metadata.Labels,
		NodeName:          s.NodeName,
		SchedulerName:     s.SchedulerName,
		NodeSelector:      s.NodeSelector,
		PriorityClassName: s.PriorityClassName,
		Gated:             len(s.SchedulingGates) > 0,
		SchedulingGates:   s.SchedulingGates,
		Src:               c.src,
	}
	if p.SchedulerName == "" {
		p.SchedulerName = "default-scheduler"
	}
	if bad := o.Metadata.CreatedBad; bad != "" {
		return p, c.errf("metadata.creationTimestamp", "invalid time %q (want RFC 3339)", bad)
	}
	p.CreationUnix = o.Metadata.Created
	if bad := o.Status.StartedBad; bad != "" {
		return p, c.errf("status.startTime", "invalid time %q (want RFC 3339)", bad)
	}
	p.StartUnix = o.Status.Started
	for i, or := range o.Metadata.OwnerReferences {
		if !or.Controller {
			continue
		}
		if p.Owner != nil { // API validation: one controller at most
			return p, c.errf(fieldPath{"metadata.ownerReferences", i, ".controller"}.String(), "only one reference can have controller set to true (also %s/%s)", p.Owner.Kind, p.Owner.Name)
		}
		p.Owner = &index.OwnerRef{Kind: or.Kind, Name: or.Name, APIVersion: or.APIVersion, UID: or.UID}
	}

	if err := c.containerNames(s); err != nil {
		return p, err
	}
	// Resources.
	var pr podRes
	var err error
	if pr.containers, err = c.containers(s.Containers, "spec.containers", false); err != nil {
		return p, err
	}
	if pr.inits, err = c.containers(s.InitContainers, "spec.initContainers", true); err != nil {
		return p, err
	}
	if pr.overhead, err = c.parseList(s.Overhead, path("spec.overhead")); err != nil {
		return p, err
	}
	var calcDefault calc
	if s.Resources != nil {
		if pr.podReq, err = c.parseList(s.Resources.Requests, path("spec.resources.requests")); err != nil {
			return p, err
		}
		if pr.podLim, err = c.parseList(s.Resources.Limits, path("spec.resources.limits")); err != nil {
			return p, err
		}
	}
	pr.defaultPodLevel(&calcDefault, s.Resources != nil)
	if p.NodeName != "" {
		if err := c.podStatus(o, &pr); err != nil {
			return p, err
		}
	}
	t, overflow := pr.totals(c.resourceFilters.podResource)
	if overflow == "" {
		overflow = calcDefault.overflow
	}
	if overflow != "" {
		return p, c.errf("spec", "total %s request out of range", overflow)
	}
	p.Requests = t.requests
	p.ScoreCPU, p.ScoreMemory = t.scoreCPU, t.scoreMemory
	p.NonZeroCPU, p.NonZeroMemory = t.nonZeroCPU, t.nonZeroMem

	// Images, for ImageLocality (a bound pod is never scored).
	if p.NodeName == "" {
		p.Images = podImages(s)
		p.ImageContainers = int32(len(s.InitContainers) + len(s.Containers))
	}

	// Host ports: sidecars first, then app containers (GetHostPorts).
	for i, ct := range s.InitContainers {
		if pr.inits[i].sidecar {
			if p.HostPorts, err = c.appendHostPorts(p.HostPorts, ct.Ports, s.HostNetwork, fieldPath{"spec.initContainers", i, ".ports"}); err != nil {
				return p, err
			}
		}
	}
	for i, ct := range s.Containers {
		if p.HostPorts, err = c.appendHostPorts(p.HostPorts, ct.Ports, s.HostNetwork, fieldPath{"spec.containers", i, ".ports"}); err != nil {
			return p, err
		}
	}

	p.Tolerations = c.tolerations(s.Tolerations)
	nodeAffinity(s.Affinity, &p)
	if err := c.podRelations(s, &p); err != nil {
		return p, err
	}
	if s.Priority != nil {
		p.Priority = *s.Priority
	}
	if s.PreemptionPolicy != nil {
		p.PreemptionPolicy = *s.PreemptionPolicy
	}
	p.Unsupported = unsupported(s)
	return p, nil
}

// unsupported names the first hard constraint the engine cannot honour yet.
func unsupported(s *wireSpec) string {
	if s.ClaimVolumes {
		return "volumes"
	}
	if s.ResourceClaims > 0 {
		return "resource claims"
	}
	return ""
}

// appendHostPorts appends a container's host ports. Port numbers are
// checked here, where a port without a host port (0) is still told from
// one out of range: the model keeps only the host ports.
func (c *objCtx) appendHostPorts(dst []index.HostPort, ports []wirePort, hostNetwork bool, field fieldPath) ([]index.HostPort, error) {
	for j, pt := range ports {
		if pt.HostPort < 0 || pt.HostPort > 65535 {
			return nil, c.errf(field.String()+"["+strconv.Itoa(j)+"].hostPort", "must be in the range 1-65535 (or 0: none), found %d", pt.HostPort)
		}
		if pt.ContainerPort < 0 || pt.ContainerPort > 65535 {
			return nil, c.errf(field.String()+"["+strconv.Itoa(j)+"].containerPort", "must be in the range 1-65535, found %d", pt.ContainerPort)
		}
		hp := pt.HostPort
		if hostNetwork && hp == 0 { // API defaulting for host-network pods
			hp = pt.ContainerPort
		}
		if hp == 0 {
			continue
		}
		proto := pt.Protocol
		if proto == "" {
			proto = "TCP"
		}
		dst = append(dst, index.HostPort{HostIP: pt.HostIP, Protocol: proto, Port: hp})
	}
	return dst, nil
}

// containerNames checks what API validation requires of a pod's
// containers: each named with a DNS-1123 label, no two (init containers
// included) with one name; a restartPolicy, where set, one of the known
// values (which ones a container may take depends on feature gates: the
// values are checked, not the gates). A pod without containers, which the
// API server refuses too, is read: it requests nothing.
func (c *objCtx) containerNames(s *wireSpec) error {
	var seen map[string]bool // past a few containers: a set, not a scan
	if len(s.InitContainers)+len(s.Containers) > 8 {
		seen = make(map[string]bool, len(s.InitContainers)+len(s.Containers))
	}
	for _, l := range [...]struct {
		field string
		cs    []wireContainer
	}{{"spec.initContainers", s.InitContainers}, {"spec.containers", s.Containers}} {
		for i := range l.cs {
			name := l.cs[i].Name
			dup := seen[name] || seen == nil && containerNamed(s.InitContainers, name)+containerNamed(s.Containers, name) > 1
			if msg := labelNameProblem(name, dup); msg != "" {
				return c.errf(fieldPath{l.field, i, ".name"}.String(), "%s", msg)
			}
			if seen != nil {
				seen[name] = true
			}
			switch rp := l.cs[i].RestartPolicy; rp {
			case "", "Always", "OnFailure", "Never":
				// Always makes an init container a sidecar; the others
				// (container restart rules) change nothing here.
			default:
				return c.errf(fieldPath{l.field, i, ".restartPolicy"}.String(), "unsupported value %s: want Always, OnFailure or Never", quoteName(rp))
			}
		}
	}
	return nil
}

// containerNamed counts the containers of cs named name.
func containerNamed(cs []wireContainer, name string) int {
	n := 0
	for i := range cs {
		if cs[i].Name == name {
			n++
		}
	}
	return n
}

// containers parses container resources, defaulting requests from limits.
func (c *objCtx) containers(cs []wireContainer, field string, init bool) ([]containerRes, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	out := make([]containerRes, len(cs))
	for i := range cs {
		ct := &cs[i]
		req, err := c.parseList(ct.Resources.Requests, fieldPath{field, i, ".resources.requests"})
		if err != nil {
			return nil, err
		}
		lim, err := c.parseList(ct.Resources.Limits, fieldPath{field, i, ".resources.limits"})
		if err != nil {
			return nil, err
		}
		for _, e := range lim {
			if _, ok := req.get(e.name); !ok {
				req = append(req, e)
			}
		}
		out[i] = containerRes{name: ct.Name, req: req, lim: lim,
			sidecar: init && ct.RestartPolicy == "Always"}
	}
	return out, nil
}

// podStatus reads the status resources of a bound pod.
func (c *objCtx) podStatus(o *wireObject, pr *podRes) error {
	st := &o.Status
	pr.useStatus = true
	add := func(list []wireContainerStatus, field string) error {
		for i := range list {
			cs := &list[i]
			sr := statusRes{name: cs.Name, has: cs.Resources != nil}
			var err error
			if cs.Resources != nil {
				if sr.actuated, err = c.parseList(cs.Resources.Requests, fieldPath{field, i, ".resources.requests"}); err != nil {
					return err
				}
			}
			if sr.allocated, err = c.parseList(cs.AllocatedResources, fieldPath{field, i, ".allocatedResources"}); err != nil {
				return err
			}
			pr.statuses = append(pr.statuses, sr)
		}
		return nil
	}
	if err := add(st.ContainerStatuses, "status.containerStatuses"); err != nil {
		return err
	}
	if err := add(st.InitContainerStatuses, "status.initContainerStatuses"); err != nil {
		return err
	}
	var err error
	if st.Resources != nil {
		pr.podStatusSet = true
		if pr.podActuated, err = c.parseList(st.Resources.Requests, path("status.resources.requests")); err != nil {
			return err
		}
	}
	if pr.podAllocated, err = c.parseList(st.AllocatedResources, path("status.allocatedResources")); err != nil {
		return err
	}
	pr.resizeInfeasible = st.ResizeInfeasible
	return nil
}

// tolerations converts tolerations, an unset operator becoming Equal.
func (c *objCtx) tolerations(ts []wireToleration) []index.Toleration {
	if len(ts) == 0 {
		return nil
	}
	// Room for the default tolerations admission may add.
	out := make([]index.Toleration, len(ts), len(ts)+c.spareTolerations)
	for i, t := range ts {
		op := t.Operator
		if op == "" {
			op = index.OpEqual
		}
		out[i] = index.Toleration{Key: t.Key, Operator: op, Value: t.Value, Effect: t.Effect, TolerationSeconds: t.TolerationSeconds}
	}
	return out
}

// requirements returns rs, nil when empty (the wire type is the model's).
func requirements(rs []wireRequirement) []index.Requirement {
	if len(rs) == 0 {
		return nil
	}
	return rs
}

func term(t *wireTerm) index.NodeSelectorTerm {
	return index.NodeSelectorTerm{MatchExpressions: requirements(t.MatchExpressions), MatchFields: requirements(t.MatchFields)}
}

func nodeAffinity(a *wireAffinity, p *index.Pod) {
	if a == nil || !a.HasNodeAffinity {
		return
	}
	if a.Required != nil {
		terms := *a.Required
		p.HasRequired = true
		p.RequiredTerms = make([]index.NodeSelectorTerm, len(terms))
		for i := range terms {
			p.RequiredTerms[i] = term(&terms[i])
		}
	}
	for i := range a.Preferred {
		p.PreferredTerms = append(p.PreferredTerms, index.PreferredTerm{Weight: a.Preferred[i].Weight, Term: term(&a.Preferred[i].Preference)})
	}
}

// labelSelector decodes a metav1.LabelSelector; nil when absent or null.
func (c *objCtx) labelSelector(raw []byte, field string) (*index.LabelSelector, error) {
	if isNull(raw) {
		return nil, nil
	}
	var w *wireLabelSelector
	p := &jp{b: raw}
	if err := p.run(func() { w = p.labelSelector(); p.end() }); err != nil {
		return nil, c.errf(field, "invalid label selector: %v", err)
	}
	return selector(w), nil
}

// selector converts a decoded metav1.LabelSelector (nil stays nil: it
// matches nothing; an empty one matches everything).
func selector(w *wireLabelSelector) *index.LabelSelector {
	if w == nil {
		return nil
	}
	return &index.LabelSelector{MatchLabels: w.MatchLabels, MatchExpressions: requirements(w.MatchExpressions)}
}

// mapSelector decodes a map[string]string selector (Service, RC); set is
// false when absent or null.
func (c *objCtx) mapSelector(raw []byte, field string) (m map[string]string, set bool, err error) {
	if isNull(raw) {
		return nil, false, nil
	}
	p := &jp{b: raw}
	if err := p.run(func() { m = p.strMap(); p.end() }); err != nil {
		return nil, false, c.errf(field, "invalid selector: %v", err)
	}
	return m, true, nil
}

func isNull(raw []byte) bool {
	return len(raw) == 0 || string(raw) == "null"
}

func (c *objCtx) convertPriorityClass(o *wireObject) (index.PriorityClass, error) {
	pc := index.PriorityClass{Name: o.Metadata.Name, Value: o.Value, GlobalDefault: o.GlobalDefault,
		PreemptionPolicy: index.PreemptLowerPriority}
	if o.PreemptionPolicy != nil {
		pc.PreemptionPolicy = *o.PreemptionPolicy
	}
	return pc, nil
}

// convertPDB converts a policy/v1 or policy/v1beta1 PodDisruptionBudget.
// In v1beta1 an empty selector selects no pod (in v1, every pod of the
// namespace): it becomes nil, which matches nothing.
func (c *objCtx) convertPDB(o *wireObject, apiVersion string) (index.PDB, error) {
	pdb := index.PDB{Namespace: c.ns, Name: o.Metadata.Name, DisruptionsAllowed: -1}
	var err error
	if pdb.MinAvailable, err = o.Spec.MinAvailable.text(); err != nil {
		return pdb, c.errf("spec.minAvailable", "%v", err)
	}
	if pdb.MaxUnavailable, err = o.Spec.MaxUnavailable.text(); err != nil {
		return pdb, c.errf("spec.maxUnavailable", "%v", err)
	}
	if pdb.Selector, err = c.labelSelector(o.Spec.Selector, "spec.selector"); err != nil {
		return pdb, err
	}
	if sel := pdb.Selector; apiVersion == policyV1beta1 && sel != nil && len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		pdb.Selector = nil
	}
	if v := o.Status.DisruptionsAllowed; v != nil {
		if *v < 0 { // the model keeps -1 for "no status"
			return pdb, c.errf("status.disruptionsAllowed", "must be at least 0, found %d", *v)
		}
		pdb.DisruptionsAllowed = *v
	}
	return pdb, nil
}

func (c *objCtx) convertNamespace(o *wireObject) index.Namespace {
	labels := make(map[string]string, len(o.Metadata.Labels)+1)
	for k, v := range o.Metadata.Labels {
		labels[k] = v
	}
	labels[labelMetadataName] = o.Metadata.Name // API defaulting
	return index.Namespace{Name: o.Metadata.Name, Labels: labels}
}

const labelMetadataName = "kubernetes.io/metadata.name"
