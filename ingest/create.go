package ingest

import (
	"encoding/json"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"

	"github.com/kplace/kplace/index"
)

// Creation: the planned pods of each controller join Input.Pods, converted
// and admitted (see render.go).

// order is the controllers in the order their pods are created: input
// order, a Deployment's current ReplicaSet in its Deployment's place.
func (x *expander) order() []*ctl {
	var out []*ctl
	for _, c := range x.ctls {
		switch {
		case c.w.Kind == index.KindDeployment:
			if c.rs != nil {
				out = append(out, c.rs)
			}
		case c.w.Kind == index.KindReplicaSet && c.dep != nil:
		default:
			out = append(out, c)
		}
	}
	return out
}

// daemonProbe computes a DaemonSet's revision hash and converts its pod
// before it is pinned to a node: what its nodes are chosen with.
func (x *expander) daemonProbe(c *ctl) (*index.Pod, error) {
	t, err := x.storedTemplate(c)
	if err != nil {
		return nil, err
	}
	c.hash = templateHash(t, c.w.CollisionCount)
	st, _, err := x.render(c, false)
	if err != nil {
		return nil, err
	}
	v := holeValues{name: c.w.Name + "-probe", generate: c.w.Name + "-"}
	p, _, err := x.convertPod(c, &converter{}, st.fill(nil, &v))
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// storedTemplate decodes c's template as the API server stores it (a
// manifest's defaulted). A template that does not decode is reported by
// the pod converter when it can name the field.
func (x *expander) storedTemplate(c *ctl) (*corev1.PodTemplateSpec, error) {
	t, err := decodeTemplate(c.tmpl)
	if err != nil {
		tp, perr := templateParts(c.tmpl)
		if perr == nil {
			doc := appendPodDoc(nil, &podMeta{Name: c.w.Name, Namespace: c.w.Namespace}, tp.spec)
			if _, _, cerr := x.convertPod(c, &converter{}, doc); cerr != nil {
				return nil, cerr
			}
		}
		return nil, x.templateErr(c.w, "spec.template", err)
	}
	if !c.stored {
		defaultTemplate(t)
	}
	return t, nil
}

// revision sets a StatefulSet's revision: status.updateRevision, or for a
// manifest the revision the controller would name.
func (x *expander) revision(c *ctl) error {
	if c.w.UpdateRevision != "" {
		c.hash = c.w.UpdateRevision
		return nil
	}
	t, err := x.storedTemplate(c)
	if err != nil {
		return err
	}
	if c.hash, err = statefulSetRevision(c.w.Name, t, c.w.CollisionCount); err != nil {
		return x.templateErr(c.w, "spec.template", err)
	}
	return nil
}

// convertPod converts a rendered pod as Load converts an input pod; errors
// name the controller's template.
func (x *expander) convertPod(c *ctl, cv *converter, raw []byte) (index.Pod, bool, error) {
	obj, err := parseItem(raw, c.w.Src, cv.intern)
	if err != nil {
		return index.Pod{}, false, x.templateErr(c.w, "spec.template", err)
	}
	var r converted
	convert(&r, obj, obj.APIVersion, obj.Kind, c.w.Src, &cv.filters, Options{AdmissionDefaults: x.opts.AdmissionDefaults})
	if r.fatal != nil {
		return index.Pod{}, false, x.templateErr(c.w, "spec.template", r.fatal)
	}
	if r.err != nil {
		return index.Pod{}, false, x.templateErr(c.w, "spec.template", r.err)
	}
	return r.pod, r.hasPriority, nil
}

// usesLabelKeys reports whether p's pod-relative terms merge its own
// labels (matchLabelKeys, mismatchLabelKeys).
func usesLabelKeys(p *index.Pod) bool {
	for i := range p.Spread {
		if len(p.Spread[i].MatchLabelKeys) > 0 {
			return true
		}
	}
	for _, ts := range [][]index.PodAffinityTerm{p.Affinity, p.AntiAffinity} {
		for i := range ts {
			if len(ts[i].MatchLabelKeys) > 0 || len(ts[i].MismatchLabelKeys) > 0 {
				return true
			}
		}
	}
	for _, ts := range [][]index.WeightedPodAffinityTerm{p.PreferredAffinity, p.PreferredAntiAffinity} {
		for i := range ts {
			if len(ts[i].Term.MatchLabelKeys) > 0 || len(ts[i].Term.MismatchLabelKeys) > 0 {
				return true
			}
		}
	}
	return false
}

// perPodLabels reports whether c's pods carry labels of their own (a
// StatefulSet's pod name and index, an indexed Job's completion index).
func (c *ctl) perPodLabels() bool {
	return c.w.Kind == index.KindStatefulSet || c.w.Kind == index.KindJob && c.w.Indexed
}

// relabel returns proto's labels with pod v's own values.
func (c *ctl) relabel(proto map[string]string, v *holeValues) map[string]string {
	l := make(map[string]string, len(proto))
	for k, val := range proto {
		l[k] = val
	}
	if c.w.Kind == index.KindStatefulSet {
		l[labelSTSPodName], l[labelPodIndex] = v.name, v.ord
	} else {
		l[labelCompletionIndex] = v.ord
	}
	return l
}

// prepared is one controller's creation made ready off the main
// goroutine: its stencils, names and uids, and its first pod converted.
type prepared struct {
	proto    index.Pod
	hasPrio  bool
	err      error
	arena    []byte // the names, back to back
	nameEnds []int32
}

// converter converts rendered pods; one per goroutine.
type converter struct {
	intern  *interner
	filters resourceFilter
}

// prepare renders c's pods, names them and converts the first.
func (x *expander) prepareGen(c *ctl, cv *converter) prepared {
	var pr prepared
	if c.w.Kind == index.KindStatefulSet {
		if pr.err = x.revision(c); pr.err != nil {
			return pr
		}
	}
	st, pvcs, err := x.render(c, true)
	if err != nil {
		pr.err = err
		return pr
	}
	n := len(c.slots)
	g := &podGen{c: c, pod: st, pvcs: pvcs, names: make([]string, n)}
	c.gen = g
	if c.w.Kind != index.KindStatefulSet && !(c.w.Kind == index.KindJob && c.w.Indexed) {
		c.genName = c.generateName(0)
	}
	// Names go into one arena; strings point into it. Created pods have
	// no uid: the API server assigns one when the controller posts them.
	arena := make([]byte, 0, n*(len(c.w.Name)+24))
	ends := make([]int32, 0, n)
	for k, s := range c.slots {
		arena = x.podName(c, s, k, arena)
		ends = append(ends, int32(len(arena)))
	}
	pr.arena, pr.nameEnds = arena, ends
	str := func(lo, hi int32) string { return unsafe.String(&arena[lo], int(hi-lo)) }
	lo := int32(0)
	for k := range c.slots {
		g.names[k] = str(lo, ends[k])
		lo = ends[k]
	}
	if c.w.Kind == index.KindDaemonSet {
		g.nodes = make([]string, n)
		for k, s := range c.slots {
			g.nodes[k] = x.in.Nodes[s].Name
		}
	}
	v0 := g.values(0)
	pr.proto, pr.hasPrio, pr.err = x.convertPod(c, cv, st.fill(nil, &v0))
	return pr
}

// create renders, converts and admits the planned pods and appends them
// to Input.Pods. Controllers are prepared, then their pods made, on every
// processor (each controller's pods fill their own range).
func (x *expander) create() error {
	adm := newAdmitter(x.in.PriorityClasses, x.opts.AdmissionDefaults)
	var todo []*ctl
	for _, c := range x.order() {
		if len(c.slots) > 0 {
			todo = append(todo, c)
		}
	}
	preps := make([]prepared, len(todo))
	parallel(len(todo), func(i int, cv *converter) { preps[i] = x.prepareGen(todo[i], cv) })
	for i := range preps {
		if preps[i].err != nil {
			return preps[i].err
		}
	}
	haveNS := make(map[string]bool, len(x.in.Namespaces))
	for i := range x.in.Namespaces {
		haveNS[x.in.Namespaces[i].Name] = true
	}
	end := len(x.in.Pods)
	for i, c := range todo {
		g, pr := c.gen, &preps[i]
		n := len(c.slots)
		x.exp.gens = append(x.exp.gens, g)
		x.exp.Pods += n
		x.exp.PVCs += n * len(g.pvcs)
		if !adm.admit(&pr.proto, pr.hasPrio) {
			// Pods for another scheduler: created, not this batch's.
			g.first = -1
			x.in.OtherScheduler += n
			c.note = "its pods are for scheduler " + strconv.Quote(pr.proto.SchedulerName)
			continue
		}
		if ns := c.w.Namespace; !haveNS[ns] {
			haveNS[ns] = true
			x.in.Namespaces = append(x.in.Namespaces, index.Namespace{Name: ns, Labels: map[string]string{labelMetadataName: ns}})
		}
		pr.proto.Src = c.w.Src
		g.first = end
		end += n
	}
	x.in.Pods = slices.Grow(x.in.Pods, end-len(x.in.Pods))[:end]
	parallel(len(todo), func(i int, cv *converter) {
		if todo[i].gen.first >= 0 {
			preps[i].err = x.fill(todo[i], &preps[i], adm, cv)
		}
	})
	for i := range preps {
		if preps[i].err != nil {
			return preps[i].err
		}
	}
	for _, rs := range x.newRS {
		b, err := replicaSetObject(rs, x.now)
		if err != nil {
			return x.templateErr(rs.dep.w, "spec.template", err)
		}
		x.exp.rsJSON = append(x.exp.rsJSON, b)
	}
	return nil
}

// parallel runs f(i) for i in [0, n) on every processor, each goroutine
// with a converter of its own.
func parallel(n int, f func(i int, cv *converter)) {
	forEach(n, runtime.GOMAXPROCS(0), func() func(int) {
		cv := &converter{}
		return func(i int) { f(i, cv) }
	})
}

// forEach runs, for i in [0, n), the function worker made for one of
// workers goroutines, each goroutine taking the next i in turn.
func forEach(n, workers int, worker func() func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			f := worker()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}

// fill makes c's pods in Input.Pods[c.gen.first:]: copies of its first pod
// with their own names, uids, labels and nodes, or, where a copy could
// differ from the conversion of the pod's JSON (per-pod labels under
// matchLabelKeys, a rejected pod), that conversion.
func (x *expander) fill(c *ctl, pr *prepared, adm *admitter, cv *converter) error {
	g, proto := c.gen, &pr.proto
	pods := x.in.Pods[g.first : g.first+len(c.slots)]
	full := proto.Rejected != "" || c.perPodLabels() && usesLabelKeys(proto)
	var pins pinSlab
	var buf []byte
	for k := range pods {
		p := &pods[k]
		if k > 0 && full {
			v := g.values(k)
			buf = g.pod.fill(buf[:0], &v)
			q, hasPrio, err := x.convertPod(c, cv, buf)
			if err != nil {
				return err
			}
			adm.admit(&q, hasPrio)
			q.Src = c.w.Src
			*p = q
			continue
		}
		*p = *proto
		if k == 0 {
			continue
		}
		p.Name = g.names[k]
		if c.perPodLabels() {
			v := g.values(k)
			p.Labels = c.relabel(proto.Labels, &v)
		}
		if g.nodes != nil {
			p.RequiredTerms = pins.pin(g.nodes[k], len(pods)-k)
		}
	}
	return nil
}

// pinSlab hands out the required node affinity of DaemonSet pods (one
// term, matchFields metadata.name In (node)) from shared slabs.
type pinSlab struct {
	terms []index.NodeSelectorTerm
	reqs  []index.Requirement
	vals  []string
}

// pin returns the terms pinning a pod to node; left is how many more the
// caller will ask for (the slab size).
func (s *pinSlab) pin(node string, left int) []index.NodeSelectorTerm {
	if len(s.terms) == 0 {
		s.terms = make([]index.NodeSelectorTerm, left)
		s.reqs = make([]index.Requirement, left)
		s.vals = make([]string, left)
	}
	s.vals[0] = node
	s.reqs[0] = index.Requirement{Key: index.FieldNodeName, Operator: index.SelIn, Values: s.vals[0:1:1]}
	s.terms[0] = index.NodeSelectorTerm{MatchFields: s.reqs[0:1:1]}
	t := s.terms[0:1:1]
	s.terms, s.reqs, s.vals = s.terms[1:], s.reqs[1:], s.vals[1:]
	return t
}

// replicaSetObject is the ReplicaSet a Deployment's controller creates, as
// JSON.
func replicaSetObject(rs *ctl, now int64) ([]byte, error) {
	w := rs.w
	type meta struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		UID               string            `json:"uid"`
		CreationTimestamp string            `json:"creationTimestamp,omitempty"`
		Labels            map[string]string `json:"labels,omitempty"`
		OwnerReferences   []ownerRef        `json:"ownerReferences"`
	}
	type selector struct {
		MatchLabels      map[string]string `json:"matchLabels,omitempty"`
		MatchExpressions []json.RawMessage `json:"matchExpressions,omitempty"`
	}
	type spec struct {
		Replicas int32           `json:"replicas"`
		Selector selector        `json:"selector"`
		Template json.RawMessage `json:"template"`
	}
	tp, err := templateParts(rs.tmpl)
	if err != nil {
		return nil, err
	}
	m := meta{Name: w.Name, Namespace: w.Namespace, UID: w.UID, Labels: tp.labels,
		OwnerReferences: []ownerRef{{APIVersion: "apps/v1", Kind: index.KindDeployment, Name: w.Owner.Name, UID: w.Owner.UID,
			Controller: true, Block: true}}}
	if now > 0 {
		m.CreationTimestamp = time.Unix(now, 0).UTC().Format(time.RFC3339)
	}
	sel := selector{MatchLabels: w.Selector.MatchLabels}
	for _, r := range w.Selector.MatchExpressions {
		b, err := json.Marshal(struct {
			Key      string   `json:"key"`
			Operator string   `json:"operator"`
			Values   []string `json:"values,omitempty"`
		}{r.Key, r.Operator, r.Values})
		if err != nil {
			return nil, err
		}
		sel.MatchExpressions = append(sel.MatchExpressions, b)
	}
	return json.Marshal(struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   meta   `json:"metadata"`
		Spec       spec   `json:"spec"`
	}{"apps/v1", index.KindReplicaSet, m, spec{w.Replicas, sel, rs.tmpl}})
}

// EachObject calls f with every object expansion created, as JSON: the
// ReplicaSets, then each created pod after its PersistentVolumeClaims, in
// the order the pods joined Input.Pods. obj is valid until f returns.
func (e *Expansion) EachObject(f func(obj []byte) error) error {
	for _, b := range e.rsJSON {
		if err := f(b); err != nil {
			return err
		}
	}
	var buf []byte
	for _, g := range e.gens {
		for k := range g.c.slots {
			v := g.values(k)
			for i := range g.pvcs {
				buf = g.pvcs[i].fill(buf[:0], &v)
				if err := f(buf); err != nil {
					return err
				}
			}
			buf = g.pod.fill(buf[:0], &v)
			if err := f(buf); err != nil {
				return err
			}
		}
	}
	return nil
}
