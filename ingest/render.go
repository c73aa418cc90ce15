package ingest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/kplace/kplace/index"
)

// Rendering: the pods (and PersistentVolumeClaims) a controller creates,
// as the JSON it would post. A workload's pods differ only in a few
// values (name, node, ordinal or index), so its pod is rendered once
// as a stencil with holes for them. The first pod is converted and
// admitted as Load converts and admits an input pod; the others are
// copies of it with those values replaced (TestExpandClonesConvert checks
// that a copy equals the conversion of its own JSON), or, where a
// per-pod label may change the conversion (matchLabelKeys on such a
// label) or admission rejects the pod, converted one by one.

// Holes of a stencil, and the placeholders marking them when the object
// is marshalled: NUL, the hole's letter, NUL (JSON writes NUL as \u0000).
const (
	holeName     = 'N' // the pod's name
	holeNode     = 'D' // a DaemonSet pod's node
	holeOrd      = 'O' // a StatefulSet pod's ordinal, an indexed Job pod's index
	holeGenerate = 'G' // an indexed Job pod's generateName
)

func placeholder(h byte) string { return "\x00" + string(h) + "\x00" }

// stencil is an object's JSON cut at its holes: lits[0] hole[0] lits[1] ...
type stencil struct {
	lits  [][]byte
	holes []byte
}

// makeStencil cuts b at its placeholders.
func makeStencil(b []byte) stencil {
	var s stencil
	const mark = `\u0000`
	for {
		i := bytes.Index(b, []byte(mark))
		if i < 0 || i+2*len(mark)+1 > len(b) || string(b[i+len(mark)+1:i+2*len(mark)+1]) != mark {
			s.lits = append(s.lits, b)
			return s
		}
		s.lits = append(s.lits, b[:i])
		s.holes = append(s.holes, b[i+len(mark)])
		b = b[i+2*len(mark)+1:]
	}
}

// holeValues are one pod's values.
type holeValues struct{ name, node, ord, generate string }

func (v *holeValues) of(h byte) string {
	switch h {
	case holeName:
		return v.name
	case holeNode:
		return v.node
	case holeOrd:
		return v.ord
	}
	return v.generate
}

// fill appends the object with v in its holes.
func (s *stencil) fill(dst []byte, v *holeValues) []byte {
	for i, lit := range s.lits {
		dst = append(dst, lit...)
		if i < len(s.holes) {
			dst = appendJSONText(dst, v.of(s.holes[i]))
		}
	}
	return dst
}

// appendJSONText appends s escaped for a JSON string, without quotes.
func appendJSONText(dst []byte, s string) []byte {
	n := len(dst)
	dst = appendJSONString(dst, s)
	copy(dst[n:], dst[n+1:len(dst)-1]) // drop the quotes
	return dst[:len(dst)-2]
}

// podGen is one controller's created pods.
type podGen struct {
	c     *ctl
	first int // the index in Input.Pods of its first pod; -1: none joined (another scheduler)
	pod   stencil
	pvcs  []stencil // a StatefulSet's claims, one per volumeClaimTemplate
	names []string
	nodes []string // a DaemonSet's, by pod
}

// values are pod k's hole values.
func (g *podGen) values(k int) holeValues {
	v := holeValues{name: g.names[k]}
	s := g.c.slots[k]
	if g.nodes != nil {
		v.node = g.nodes[k]
	}
	v.ord = strconv.Itoa(int(s))
	switch w := g.c.w; {
	case g.c.genName != "":
		v.generate = g.c.genName
	case w.Kind == index.KindJob && w.Indexed:
		v.generate = g.c.generateName(s) // per index
	}
	return v
}

// createdIDs are the pod ids of c's created pods.
func (c *ctl) createdIDs() []index.PodID {
	if c.gen == nil || c.gen.first < 0 {
		return nil
	}
	out := make([]index.PodID, len(c.slots))
	for k := range out {
		out[k] = index.PodID(c.gen.first + k)
	}
	return out
}

// podMeta is the metadata of a pod a controller posts.
type podMeta struct {
	Name, GenerateName, Namespace, UID, CreationTimestamp string
	Labels, Annotations                                   map[string]string
	OwnerReferences                                       []ownerRef
	Finalizers                                            []string
}

// appendPodDoc appends the pod JSON of m and spec (the template's spec,
// edited; written as it is).
func appendPodDoc(b []byte, m *podMeta, spec []byte) []byte {
	b = append(b, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":`...)
	b = appendJSONString(b, m.Name)
	if m.GenerateName != "" {
		b = appendJSONString(append(b, `,"generateName":`...), m.GenerateName)
	}
	b = appendJSONString(append(b, `,"namespace":`...), m.Namespace)
	if m.UID != "" {
		b = appendJSONString(append(b, `,"uid":`...), m.UID)
	}
	if m.CreationTimestamp != "" {
		b = appendJSONString(append(b, `,"creationTimestamp":`...), m.CreationTimestamp)
	}
	if len(m.Labels) > 0 {
		b = appendJSONMap(append(b, `,"labels":`...), m.Labels)
	}
	if len(m.Annotations) > 0 {
		b = appendJSONMap(append(b, `,"annotations":`...), m.Annotations)
	}
	b = append(b, `,"ownerReferences":[`...)
	for i, r := range m.OwnerReferences {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(append(b, `{"apiVersion":`...), r.APIVersion)
		b = appendJSONString(append(b, `,"kind":`...), r.Kind)
		b = appendJSONString(append(b, `,"name":`...), r.Name)
		b = appendJSONString(append(b, `,"uid":`...), r.UID)
		b = append(b, `,"controller":true,"blockOwnerDeletion":true}`...)
	}
	b = append(b, ']')
	if len(m.Finalizers) > 0 {
		b = append(b, `,"finalizers":[`...)
		for i, f := range m.Finalizers {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, f)
		}
		b = append(b, ']')
	}
	b = append(append(b, `},"spec":`...), spec...)
	return append(b, '}')
}

// appendJSONMap appends m as a JSON object, keys sorted.
func appendJSONMap(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, k), ':')
		b = appendJSONString(b, m[k])
	}
	return append(b, '}')
}

// appendJSONString appends s as a JSON string (a placeholder's NULs as
// \u0000).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// ownerRef is a controller reference (controller and blockOwnerDeletion
// true).
type ownerRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
	Controller bool   `json:"controller"`
	Block      bool   `json:"blockOwnerDeletion"`
}

// apiVersionOf is a controller kind's apiVersion.
func apiVersionOf(kind string) string {
	switch kind {
	case index.KindReplicationController:
		return "v1"
	case index.KindJob:
		return "batch/v1"
	}
	return "apps/v1"
}

// tmplParts is what expansion reads of a pod template: its
// metadata.labels (and where they lie in the text), annotations and
// finalizers, and the text of its spec.
type tmplParts struct {
	labels, annotations map[string]string
	finalizers          []string
	spec                []byte
	labelsLo, labelsHi  int // the labels' value in the text; -1 when absent
}

// templateParts reads t.
func templateParts(t []byte) (tp tmplParts, err error) {
	tp.labelsLo, tp.labelsHi = -1, -1
	p := &jp{b: t}
	err = p.run(func() {
		if !p.objStart() {
			return
		}
		for first := true; ; {
			k := p.next(&first)
			if k == nil {
				return
			}
			switch string(k) {
			case "metadata":
				if !p.objStart() {
					continue
				}
				for first := true; ; {
					k := p.next(&first)
					if k == nil {
						break
					}
					switch string(k) {
					case "labels":
						tp.labelsLo = p.i
						tp.labels = p.strMap()
						tp.labelsHi = p.i
					case "annotations":
						tp.annotations = p.strMap()
					case "finalizers":
						tp.finalizers = p.strSlice()
					default:
						p.skip()
					}
				}
			case "spec":
				tp.spec = p.raw()
			default:
				p.skip()
			}
		}
	})
	return tp, err
}

// withLabel returns template t with label key=value added.
func withLabel(t []byte, key, value string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, err
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := m["metadata"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, err
		}
	}
	lbl := map[string]string{}
	if raw, ok := meta["labels"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &lbl); err != nil {
			return nil, err
		}
	}
	lbl[key] = value
	var err error
	if meta["labels"], err = json.Marshal(lbl); err != nil {
		return nil, err
	}
	if m["metadata"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// templateErr names a workload's field in an error.
func (x *expander) templateErr(w *index.Workload, field string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		f := e.Field
		if f != "" {
			f = "spec.template." + f
		} else {
			f = field
		}
		return &Error{File: w.Src.File, Line: w.Src.Line, Kind: w.Kind, Namespace: w.Namespace, Name: w.Name, Field: f, Msg: e.Msg, Err: e.Err}
	}
	return &Error{File: w.Src.File, Line: w.Src.Line, Kind: w.Kind, Namespace: w.Namespace, Name: w.Name, Field: field, Msg: err.Error(), Err: err}
}

// render makes c's pod stencil (and a StatefulSet's claim stencils). pin
// false leaves a DaemonSet's pod unpinned (the probe its nodes are found
// with).
func (x *expander) render(c *ctl, pin bool) (stencil, []stencil, error) {
	w := c.w
	tp, err := templateParts(c.tmpl)
	if err != nil {
		return stencil{}, nil, x.templateErr(w, "spec.template", err)
	}
	lbl, ann, fin, spec := tp.labels, tp.annotations, tp.finalizers, tp.spec
	labels := make(map[string]string, len(lbl)+len(c.extra)+3)
	for k, v := range lbl {
		labels[k] = v
	}
	for k, v := range c.extra {
		if _, ok := labels[k]; !ok {
			labels[k] = v
		}
	}
	// No uid: a controller posts its pods without one (the API server
	// assigns it), and kplace makes none up.
	meta := podMeta{Namespace: w.Namespace, Name: placeholder(holeName),
		GenerateName: placeholder(holeGenerate), Annotations: ann, Finalizers: fin,
		OwnerReferences: []ownerRef{{APIVersion: apiVersionOf(w.Kind), Kind: w.Kind, Name: w.Name, UID: c.uid,
			Controller: true, Block: true}}}
	if x.now > 0 {
		meta.CreationTimestamp = time.Unix(x.now, 0).UTC().Format(time.RFC3339)
	}
	edit := specEdit{}
	var claims []corev1.PersistentVolumeClaim
	switch w.Kind {
	case index.KindDaemonSet:
		labels[labelRevisionHash] = c.hash
		if gen := w.TemplateGeneration; gen >= 0 || !c.stored {
			labels[labelTemplateGen] = strconv.FormatInt(max(gen, 1), 10)
		}
		edit.daemon, edit.pin = true, pin
	case index.KindStatefulSet:
		labels[labelRevisionHash] = c.hash
		labels[labelSTSPodName] = placeholder(holeName)
		labels[labelPodIndex] = placeholder(holeOrd)
		edit.hostname, edit.subdomain = placeholder(holeName), w.ServiceName
		edit.setHost = true
		if len(w.ClaimTemplates) > 0 && !isNull(w.ClaimTemplates) {
			if err := json.Unmarshal(w.ClaimTemplates, &claims); err != nil {
				return stencil{}, nil, x.templateErr(w, "spec.volumeClaimTemplates", err)
			}
		}
		// Each claim names a volume of the pods: a DNS-1123 label, one
		// per name (API validation of the StatefulSet and of its pods).
		seen := map[string]bool{}
		for i := range claims {
			name := claims[i].Name
			if msg := labelNameProblem(name, seen[name]); msg != "" {
				return stencil{}, nil, &Error{File: w.Src.File, Line: w.Src.Line, Kind: w.Kind, Namespace: w.Namespace, Name: w.Name,
					Field: fmt.Sprintf("spec.volumeClaimTemplates[%d].metadata.name", i), Msg: msg}
			}
			seen[name] = true
		}
		for i := range claims {
			edit.claims = append(edit.claims, corev1.Volume{Name: claims[i].Name, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName(&claims[i], w.Name)}}})
		}
		meta.GenerateName = w.Name + "-"
	case index.KindJob:
		if !containsString(fin, finalizerJobTracking) {
			meta.Finalizers = append(append([]string(nil), fin...), finalizerJobTracking)
		}
		if w.Indexed {
			labels[labelCompletionIndex] = placeholder(holeOrd)
			ann2 := make(map[string]string, len(ann)+1)
			for k, v := range ann {
				ann2[k] = v
			}
			ann2[labelCompletionIndex] = placeholder(holeOrd)
			meta.Annotations = ann2
			edit.hostname, edit.setHost = w.Name+"-"+placeholder(holeOrd), true
			edit.indexEnv = true
		}
	}
	meta.Labels = labels
	podSpec, err := edit.apply(spec)
	if err != nil {
		return stencil{}, nil, x.templateErr(w, "spec.template.spec", err)
	}
	doc := appendPodDoc(nil, &meta, podSpec)
	var pvcs []stencil
	for i := range claims {
		pvc, err := claimObject(&claims[i], w)
		if err != nil {
			return stencil{}, nil, x.templateErr(w, "spec.volumeClaimTemplates", err)
		}
		pvcs = append(pvcs, makeStencil(pvc))
	}
	return makeStencil(doc), pvcs, nil
}

func containsString(l []string, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

// claimName is a StatefulSet pod's claim of template t (with the
// ordinal's placeholder): <template>-<set>-<ordinal>.
func claimName(t *corev1.PersistentVolumeClaim, set string) string {
	return t.Name + "-" + set + "-" + placeholder(holeOrd)
}

// claimObject is the PersistentVolumeClaim the StatefulSet controller
// creates from template t (getPersistentVolumeClaims): its name, the
// set's namespace, its labels with the set's selector's matchLabels.
func claimObject(t *corev1.PersistentVolumeClaim, w *index.Workload) ([]byte, error) {
	pvc := t.DeepCopy()
	pvc.APIVersion, pvc.Kind = "v1", "PersistentVolumeClaim"
	pvc.Name, pvc.Namespace = claimName(t, w.Name), w.Namespace
	if pvc.Labels == nil {
		pvc.Labels = map[string]string{}
	}
	if w.Selector != nil {
		for k, v := range w.Selector.MatchLabels {
			pvc.Labels[k] = v
		}
	}
	return json.Marshal(pvc)
}

// specEdit is what a controller changes in its template's pod spec.
type specEdit struct {
	daemon, pin         bool // add the DaemonSet tolerations; pin to the node hole
	setHost             bool
	hostname, subdomain string
	claims              []corev1.Volume // a StatefulSet's claim volumes
	indexEnv            bool            // an indexed Job's JOB_COMPLETION_INDEX
}

// apply returns spec edited; spec itself when there is nothing to change.
func (e *specEdit) apply(spec []byte) (json.RawMessage, error) {
	if !e.daemon && !e.setHost && e.claims == nil && !e.indexEnv {
		if spec == nil {
			return json.RawMessage("{}"), nil
		}
		return spec, nil
	}
	m := map[string]json.RawMessage{}
	if spec != nil && !isNull(spec) {
		if err := json.Unmarshal(spec, &m); err != nil {
			return nil, err
		}
	}
	var err error
	set := func(key string, v any) {
		if err == nil {
			m[key], err = json.Marshal(v)
		}
	}
	if e.daemon {
		var tols []corev1.Toleration
		if err := unmarshalField(m, "tolerations", &tols); err != nil {
			return nil, err
		}
		hostNetwork := false
		if err := unmarshalField(m, "hostNetwork", &hostNetwork); err != nil {
			return nil, err
		}
		set("tolerations", daemonTolerations(tols, hostNetwork))
		if e.pin {
			var aff *corev1.Affinity
			if err := unmarshalField(m, "affinity", &aff); err != nil {
				return nil, err
			}
			set("affinity", pinToNode(aff, placeholder(holeNode)))
		}
	}
	if e.setHost {
		set("hostname", e.hostname)
		if e.subdomain != "" {
			set("subdomain", e.subdomain)
		} else {
			delete(m, "subdomain")
		}
	}
	if e.claims != nil {
		var vols []corev1.Volume
		if err := unmarshalField(m, "volumes", &vols); err != nil {
			return nil, err
		}
		set("volumes", withClaims(vols, e.claims))
	}
	if e.indexEnv {
		for _, key := range []string{"initContainers", "containers"} {
			var cs []map[string]json.RawMessage
			if err := unmarshalField(m, key, &cs); err != nil {
				return nil, err
			}
			if cs == nil {
				continue
			}
			for _, c := range cs {
				var env []corev1.EnvVar
				if err := unmarshalField(c, "env", &env); err != nil {
					return nil, err
				}
				if !hasEnv(env, envCompletionIndex) {
					env = append(env, corev1.EnvVar{Name: envCompletionIndex, ValueFrom: &corev1.EnvVarSource{
						FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['" + labelCompletionIndex + "']"}}})
					if c["env"], err = json.Marshal(env); err != nil {
						return nil, err
					}
				}
			}
			set(key, cs)
		}
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

func unmarshalField(m map[string]json.RawMessage, key string, v any) error {
	raw, ok := m[key]
	if !ok || isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

func hasEnv(env []corev1.EnvVar, name string) bool {
	for _, e := range env {
		if e.Name == name {
			return true
		}
	}
	return false
}

// daemonTolerations is AddOrUpdateDaemonPodTolerations: tolerate not-ready
// and unreachable (NoExecute, for ever), disk, memory and pid pressure
// and unschedulable (NoSchedule), and network-unavailable for host-network
// pods; a toleration equal in key, operator, value and effect is replaced.
func daemonTolerations(tols []corev1.Toleration, hostNetwork bool) []corev1.Toleration {
	add := []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/disk-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/memory-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/pid-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/unschedulable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
	if hostNetwork {
		add = append(add, corev1.Toleration{Key: "node.kubernetes.io/network-unavailable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	for i := range add {
		tols = addOrUpdateToleration(tols, &add[i])
	}
	return tols
}

// addOrUpdateToleration is v1helper.AddOrUpdateTolerationInPodSpec.
func addOrUpdateToleration(tols []corev1.Toleration, t *corev1.Toleration) []corev1.Toleration {
	var out []corev1.Toleration
	updated := false
	for i := range tols {
		if t.MatchToleration(&tols[i]) {
			if equalToleration(t, &tols[i]) {
				return tols
			}
			out = append(out, *t)
			updated = true
			continue
		}
		out = append(out, tols[i])
	}
	if !updated {
		out = append(out, *t)
	}
	return out
}

func equalToleration(a, b *corev1.Toleration) bool {
	if a.Key != b.Key || a.Operator != b.Operator || a.Value != b.Value || a.Effect != b.Effect ||
		(a.TolerationSeconds == nil) != (b.TolerationSeconds == nil) {
		return false
	}
	return a.TolerationSeconds == nil || *a.TolerationSeconds == *b.TolerationSeconds
}

// pinToNode is ReplaceDaemonSetPodNodeNameNodeAffinity: the required node
// affinity becomes the one term matchFields metadata.name In (node).
func pinToNode(a *corev1.Affinity, node string) *corev1.Affinity {
	term := []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{
		Key: index.FieldNodeName, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}
	if a == nil {
		a = &corev1.Affinity{}
	}
	if a.NodeAffinity == nil {
		a.NodeAffinity = &corev1.NodeAffinity{}
	}
	if a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
	}
	a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = term
	return a
}

// withClaims is updateStorage: the claim volumes (in template order), then
// the pod's volumes not named like a claim template.
func withClaims(vols, claims []corev1.Volume) []corev1.Volume {
	out := append([]corev1.Volume(nil), claims...)
	for _, v := range vols {
		if !slicesContainsVolume(claims, v.Name) {
			out = append(out, v)
		}
	}
	return out
}

func slicesContainsVolume(vs []corev1.Volume, name string) bool {
	for i := range vs {
		if vs[i].Name == name {
			return true
		}
	}
	return false
}

// suffixOffset draws, from the seed, the namespace and the prefix, where a
// generateName's suffixes start (see appendSuffix).
func suffixOffset(seed uint64, ns, prefix string) uint64 {
	var b [128]byte
	buf := binary.LittleEndian.AppendUint64(b[:0], seed)
	buf = append(append(append(buf, ns...), 0), prefix...)
	return xxhash.Sum64(buf)
}

// appendSuffix appends the five characters the API server would draw for
// a generateName (utilrand.String(5): consonants and digits), here the
// k-th of a permutation of all 27^5 of them starting at off: distinct for
// distinct k (below 27^5), random-looking.
func appendSuffix(b []byte, k, off uint64) []byte {
	const alphanums = "bcdfghjklmnpqrstvwxz2456789"
	const m = 27 * 27 * 27 * 27 * 27 // 3^15: a multiplier not divisible by 3 permutes
	v := (k%m*7654321 + off%m) % m
	var out [5]byte
	for i := range out {
		out[i] = alphanums[v%27]
		v /= 27
	}
	return append(b, out[:]...)
}

// derivedObjectUID is a version-4-shaped UUID drawn from the seed and the
// object's kind, namespace and name.
func derivedObjectUID(seed uint64, kind, ns, name string) string {
	var u [16]byte
	uidBytes(&u, seed, kind, ns, name)
	return uuidText(&u, 4)
}

// uidBytes draws the 16 bytes of derivedObjectUID.
func uidBytes(u *[16]byte, seed uint64, kind, ns, name string) {
	var b [384]byte
	buf := binary.LittleEndian.AppendUint64(b[:0], seed)
	buf = append(append(append(append(append(append(buf, 0), kind...), 0), ns...), 0), name...)
	binary.BigEndian.PutUint64(u[:8], xxhash.Sum64(buf))
	buf[8] = 1
	binary.BigEndian.PutUint64(u[8:], xxhash.Sum64(buf))
}
