package ingest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"sort"
	"strings"

	"github.com/kplace/kplace/index"
)

// loader accumulates the objects of all files, then applies admission.
type loader struct {
	opts    Options
	in      *index.Input
	objects int // objects seen, of any kind
	filters resourceFilter
	intern  *interner

	// Duplicate detection by (kind, namespace, name): a 64-bit hash maps to
	// a reference (>= 0: index of a pod; < 0: -(i+1) into others); exact
	// keys are kept only for the rare hash collision.
	seed    maphash.Seed
	seen    map[uint64]int32
	collide map[string]int32
	others  []seenObj

	// Pods are kept in fixed-size chunks while reading (no copying as the
	// count grows) and assembled into in.Pods by finish.
	pods        [][]index.Pod
	npods       int
	hasPriority []bool // by pod index: spec.priority was set
	uids        map[uint64]int32
	uidCollide  map[string]bool
	namespaces  map[string]bool // Namespace objects read
}

type seenObj struct {
	kind, ns, name string
	src            index.Source
}

func newLoader(opts Options) *loader {
	return &loader{
		opts:       opts,
		in:         &index.Input{SkippedKinds: map[string]int{}},
		intern:     newInterner(),
		seed:       maphash.MakeSeed(),
		seen:       map[uint64]int32{},
		collide:    map[string]int32{},
		uids:       map[uint64]int32{},
		uidCollide: map[string]bool{},
		namespaces: map[string]bool{},
	}
}

// Kinds read, by apiVersion and kind.
const (
	kindNode          = "Node"
	kindPod           = "Pod"
	kindNamespace     = "Namespace"
	kindPriorityClass = "PriorityClass"
	kindPDB           = "PodDisruptionBudget"
)

// classify returns the kind kplace reads for an object's apiVersion and
// kind, "" for kinds it skips.
func classify(apiVersion, kind string) (string, error) {
	group := ""
	if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
		group = apiVersion[:i]
		if strings.IndexByte(apiVersion[i+1:], '/') >= 0 {
			return "", fmt.Errorf("invalid apiVersion %q", apiVersion)
		}
	}
	switch {
	case group == "" && (kind == kindNode || kind == kindPod || kind == kindNamespace ||
		kind == index.KindService || kind == index.KindReplicationController):
		return kind, nil
	case apiVersion == "apps/v1" && (kind == index.KindReplicaSet || kind == index.KindStatefulSet):
		return kind, nil
	case group == "scheduling.k8s.io" && kind == kindPriorityClass:
		return kind, nil
	case apiVersion == "policy/v1" && kind == kindPDB:
		return kind, nil
	}
	return "", nil
}

func namespaced(kind string) bool {
	return kind != kindNode && kind != kindNamespace && kind != kindPriorityClass
}

// emit converts one object and adds it to the input.
func (l *loader) emit(o *wireObject, apiVersion, kind string, src index.Source) error {
	l.objects++
	k, err := classify(apiVersion, kind)
	if err != nil {
		return &Error{File: src.File, Line: src.Line, Kind: kind, Name: o.Metadata.Name, Field: "apiVersion", Msg: err.Error()}
	}
	if k == "" {
		l.in.SkippedKinds[strings.TrimPrefix(apiVersion+" "+kind, " ")]++
		return nil
	}
	c := objCtx{src: src, kind: k, name: o.Metadata.Name, resourceFilters: &l.filters}
	if namespaced(k) {
		c.ns = o.Metadata.Namespace
		if c.ns == "" {
			c.ns = "default"
		}
	}
	if c.name == "" {
		return c.errf("metadata.name", "missing")
	}
	h, err := l.checkDup(&c)
	if err != nil {
		return err
	}
	switch k {
	case kindPod:
		p, err := c.convertPod(o)
		if err != nil {
			return err
		}
		if ph := o.Status.Phase; ph == "Succeeded" || ph == "Failed" {
			l.in.FinishedPods++
			l.record(h, &c, -1)
			return nil
		}
		l.assignUID(&p)
		l.record(h, &c, int32(l.npods))
		l.addPod(p)
		l.hasPriority = append(l.hasPriority, o.Spec.Priority != nil)
		return nil
	case kindNode:
		n, err := c.convertNode(o)
		if err != nil {
			return err
		}
		l.in.Nodes = append(l.in.Nodes, n)
	case kindPriorityClass:
		pc, err := c.convertPriorityClass(o)
		if err != nil {
			return err
		}
		l.in.PriorityClasses = append(l.in.PriorityClasses, pc)
	case kindPDB:
		pdb, err := c.convertPDB(o)
		if err != nil {
			return err
		}
		l.in.PDBs = append(l.in.PDBs, pdb)
	case kindNamespace:
		l.in.Namespaces = append(l.in.Namespaces, c.convertNamespace(o))
		l.namespaces[c.name] = true
	default:
		w, err := c.convertWorkload(o)
		if err != nil {
			return err
		}
		l.in.Workloads = append(l.in.Workloads, w)
	}
	l.record(h, &c, -1)
	return nil
}

const podChunk = 4096

func (l *loader) addPod(p index.Pod) {
	if l.npods%podChunk == 0 {
		l.pods = append(l.pods, make([]index.Pod, 0, podChunk))
	}
	c := &l.pods[len(l.pods)-1]
	*c = append(*c, p)
	l.npods++
}

func (l *loader) pod(i int32) *index.Pod {
	return &l.pods[i/podChunk][i%podChunk]
}

func (l *loader) hashKey(kind, ns, name string) uint64 {
	var h maphash.Hash
	h.SetSeed(l.seed)
	h.WriteString(kind)
	h.WriteByte(0)
	h.WriteString(ns)
	h.WriteByte(0)
	h.WriteString(name)
	return h.Sum64()
}

func (l *loader) lookup(ref int32) seenObj {
	if ref >= 0 {
		p := l.pod(ref)
		return seenObj{kindPod, p.Namespace, p.Name, p.Src}
	}
	return l.others[-ref-1]
}

// checkDup fails when the object was seen before; it returns the key hash
// for record.
func (l *loader) checkDup(c *objCtx) (uint64, error) {
	h := l.hashKey(c.kind, c.ns, c.name)
	ref, ok := l.seen[h]
	if !ok {
		return h, nil
	}
	if s := l.lookup(ref); s.kind == c.kind && s.ns == c.ns && s.name == c.name {
		return h, dupErr(c, s.src)
	}
	if ref, ok := l.collide[c.kind+"\x00"+c.ns+"\x00"+c.name]; ok {
		return h, dupErr(c, l.lookup(ref).src)
	}
	return h, nil
}

func dupErr(c *objCtx, first index.Source) error {
	where := first.File
	if first.Line > 0 {
		where = fmt.Sprintf("%s:%d", first.File, first.Line)
	}
	return c.errf("", "duplicate object: first defined at %s", where)
}

// record remembers an object for duplicate detection; podIdx >= 0 refers
// to a pod.
func (l *loader) record(h uint64, c *objCtx, podIdx int32) {
	ref := podIdx
	if ref < 0 {
		l.others = append(l.others, seenObj{c.kind, c.ns, c.name, c.src})
		ref = -int32(len(l.others))
	}
	if _, ok := l.seen[h]; ok {
		l.collide[c.kind+"\x00"+c.ns+"\x00"+c.name] = ref
		return
	}
	l.seen[h] = ref
}

// uidPrefix and uidNamespace derive a pod's UID when it has none (or one
// taken by an earlier pod): a name-based (SHA-1) UUID of "oracle:ns/name"
// in the URL namespace, the same UID the reference oracle derives.
const uidPrefix = "oracle:"

var uidNamespace = [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}

func derivedUID(ns, name string) string {
	h := sha1.New()
	h.Write(uidNamespace[:])
	h.Write([]byte(uidPrefix + ns + "/" + name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// assignUID gives p a UID when it has none or an earlier pod has its UID.
func (l *loader) assignUID(p *index.Pod) {
	if p.UID != "" && !l.uidTaken(p.UID) {
		l.takeUID(p.UID, int32(l.npods))
		return
	}
	p.UID = derivedUID(p.Namespace, p.Name)
	l.takeUID(p.UID, int32(l.npods))
}

func (l *loader) uidTaken(uid string) bool {
	h := maphash.String(l.seed, uid)
	ref, ok := l.uids[h]
	if !ok {
		return false
	}
	return l.pod(ref).UID == uid || l.uidCollide[uid]
}

func (l *loader) takeUID(uid string, podIdx int32) {
	h := maphash.String(l.seed, uid)
	if _, ok := l.uids[h]; ok {
		l.uidCollide[uid] = true
		return
	}
	l.uids[h] = podIdx
}

// System priority classes every cluster has.
var systemPriorityClasses = []index.PriorityClass{
	{Name: "system-node-critical", Value: 2000001000, PreemptionPolicy: index.PreemptLowerPriority},
	{Name: "system-cluster-critical", Value: 2000000000, PreemptionPolicy: index.PreemptLowerPriority},
}

// Tolerations the DefaultTolerationSeconds admission plugin adds.
const (
	taintNotReady      = "node.kubernetes.io/not-ready"
	taintUnreachable   = "node.kubernetes.io/unreachable"
	defaultTolerationS = int64(300)
)

const defaultScheduler = "default-scheduler"

// finish applies admission (Priority, DefaultTolerationSeconds), drops
// pending pods for other schedulers, and completes the namespaces.
func (l *loader) finish() error {
	in := l.in
	classes := make(map[string]*index.PriorityClass, len(in.PriorityClasses)+2)
	for i := range in.PriorityClasses {
		classes[in.PriorityClasses[i].Name] = &in.PriorityClasses[i]
	}
	for _, pc := range systemPriorityClasses {
		if classes[pc.Name] == nil {
			in.PriorityClasses = append(in.PriorityClasses, pc)
		}
	}
	// Re-point after the appends.
	var defaultClass *index.PriorityClass
	for i := range in.PriorityClasses {
		pc := &in.PriorityClasses[i]
		classes[pc.Name] = pc
		if pc.GlobalDefault && (defaultClass == nil || pc.Value < defaultClass.Value) {
			defaultClass = pc
		}
	}

	var missingNS []string
	kept := make([]index.Pod, 0, l.npods)
	for i := 0; i < l.npods; i++ {
		p := *l.pod(int32(i))
		pending := p.NodeName == ""
		pc, known := defaultClass, true
		if p.PriorityClassName != "" {
			pc = classes[p.PriorityClassName]
			known = pc != nil
		}
		if pending && !known {
			// The Priority admission plugin refuses to create the pod.
			p.Rejected = fmt.Sprintf("pods %q is forbidden: no PriorityClass with name %s was found", p.Name, p.PriorityClassName)
			if p.PreemptionPolicy == "" {
				p.PreemptionPolicy = index.PreemptLowerPriority
			}
			kept = append(kept, p)
			continue
		}
		resolvePriority(&p, pc, l.hasPriority[i])
		if !l.namespaces[p.Namespace] {
			l.namespaces[p.Namespace] = true
			missingNS = append(missingNS, p.Namespace)
		}
		if pending && p.SchedulerName != defaultScheduler {
			in.OtherScheduler++
			continue
		}
		if pending && l.opts.AdmissionDefaults {
			p.Tolerations = addDefaultTolerations(p.Tolerations)
		}
		kept = append(kept, p)
	}
	in.Pods = kept
	l.pods = nil
	l.hasPriority = nil

	// A pod's namespace exists in the cluster it came from.
	sort.Strings(missingNS)
	for _, ns := range missingNS {
		in.Namespaces = append(in.Namespaces, index.Namespace{Name: ns, Labels: map[string]string{labelMetadataName: ns}})
	}
	return nil
}

// resolvePriority mirrors the Priority admission plugin for pod p, given
// its class (the named one, else the global default; nil when none, or
// when a bound pod's class no longer exists). A pod that already carries a
// priority keeps it; only a missing preemption policy is filled in.
func resolvePriority(p *index.Pod, pc *index.PriorityClass, hasPriority bool) {
	policy := index.PreemptLowerPriority
	if pc != nil && pc.PreemptionPolicy != "" {
		policy = pc.PreemptionPolicy
	}
	if !hasPriority {
		p.Priority = 0
		if pc != nil {
			p.Priority = pc.Value
			p.PriorityClassName = pc.Name
		}
	}
	if p.PreemptionPolicy == "" {
		p.PreemptionPolicy = policy
	}
}

// addDefaultTolerations mirrors the DefaultTolerationSeconds admission
// plugin: tolerate not-ready and unreachable (NoExecute) for 300s unless a
// toleration already covers them.
func addDefaultTolerations(ts []index.Toleration) []index.Toleration {
	notReady, unreachable := false, false
	for _, t := range ts {
		noExec := t.Effect == index.EffectNoExecute || t.Effect == ""
		if noExec && (t.Key == taintNotReady || t.Key == "") {
			notReady = true
		}
		if noExec && (t.Key == taintUnreachable || t.Key == "") {
			unreachable = true
		}
	}
	if notReady && unreachable {
		return ts
	}
	out := make([]index.Toleration, len(ts), len(ts)+2)
	copy(out, ts)
	if !notReady {
		s := defaultTolerationS
		out = append(out, index.Toleration{Key: taintNotReady, Operator: index.OpExists, Effect: index.EffectNoExecute, TolerationSeconds: &s})
	}
	if !unreachable {
		s := defaultTolerationS
		out = append(out, index.Toleration{Key: taintUnreachable, Operator: index.OpExists, Effect: index.EffectNoExecute, TolerationSeconds: &s})
	}
	return out
}
