package ingest

import (
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kplace/kplace/index"
)

// loader accumulates the objects of all files, then applies admission.
type loader struct {
	opts    Options
	in      *index.Input
	objects int      // objects seen, of any kind
	empty   []string // files with nothing but whitespace
	// creating: the objects are created now (LoadMore), not exported:
	// admission's defaults go to bound pods too.
	creating bool
	filters  resourceFilter
	intern   *interner
	scratch  converted // emit's conversion, reused

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
	podStart    []int32 // index of each chunk's first pod
	npods       int
	hasPriority []bool          // by pod index: spec.priority was set
	namespaces  map[string]bool // Namespace objects read
	share       *sharer         // what pods have in common, stored once

	globalDefault string // name of the globalDefault PriorityClass read

	files        int   // files read so far
	snapshot     *bool // a snapshot was read: its admission-defaults setting
	snapshotFile string
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
		share:      newSharer(),
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

	policyV1beta1 = "policy/v1beta1" // PodDisruptionBudgets, read with its semantics
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
	case apiVersion == "apps/v1" && (kind == index.KindReplicaSet || kind == index.KindStatefulSet ||
		kind == index.KindDeployment || kind == index.KindDaemonSet):
		return kind, nil
	case apiVersion == "batch/v1" && kind == index.KindJob:
		return kind, nil
	case group == "scheduling.k8s.io" && kind == kindPriorityClass:
		return kind, nil
	case (apiVersion == "policy/v1" || apiVersion == policyV1beta1) && kind == kindPDB:
		return kind, nil
	}
	return "", nil
}

func namespaced(kind string) bool {
	return kind != kindNode && kind != kindNamespace && kind != kindPriorityClass
}

// converted is one object converted to its index type: the pure part of
// reading an object, which may run on any goroutine. apply adds it to the
// input, in input order.
type converted struct {
	c     objCtx
	skip  string // SkippedKinds key of a kind not read
	fatal error  // reported at once (bad apiVersion, no name)
	err   error  // reported after the duplicate check, as in input order

	finished    bool // a Succeeded or Failed pod
	hasPriority bool // spec.priority was set
	pod         index.Pod
	other       any // *index.Node, *index.PriorityClass, ... for other kinds
}

// convert classifies and converts one object into r; filters is the
// caller's (not shared between goroutines).
func convert(r *converted, o *wireObject, apiVersion, kind string, src index.Source, filters *resourceFilter, opts Options) {
	*r = converted{}
	k, err := classify(apiVersion, kind)
	if err != nil {
		r.fatal = &Error{File: src.File, Line: src.Line, Kind: kind, Name: o.Metadata.Name, Field: "apiVersion", Msg: err.Error()}
		return
	}
	if k == "" {
		r.skip = strings.TrimPrefix(apiVersion+" "+kind, " ")
		return
	}
	c := &r.c
	*c = objCtx{src: src, kind: k, name: o.Metadata.Name, resourceFilters: filters}
	if opts.AdmissionDefaults && o.Spec.NodeName == "" {
		c.spareTolerations = 2
	}
	if namespaced(k) {
		c.ns = o.Metadata.Namespace
		if c.ns == "" {
			c.ns = "default"
		}
	}
	if c.name == "" {
		r.fatal = c.errf("metadata.name", "missing")
		return
	}
	switch k {
	case kindPod:
		r.pod, r.err = c.convertPod(o)
		r.finished = o.Status.Phase == "Succeeded" || o.Status.Phase == "Failed"
		r.hasPriority = o.Spec.Priority != nil
	case kindNode:
		n, err := c.convertNode(o)
		r.other, r.err = &n, err
	case kindPriorityClass:
		pc, err := c.convertPriorityClass(o)
		r.other, r.err = &pc, err
	case kindPDB:
		pdb, err := c.convertPDB(o, apiVersion)
		r.other, r.err = &pdb, err
	case kindNamespace:
		ns := c.convertNamespace(o)
		r.other = &ns
	default:
		w, err := c.convertWorkload(o)
		r.other, r.err = &w, err
	}
	if r.err == nil {
		if k == kindPod {
			r.err = c.validPod(&r.pod)
		} else {
			r.err = c.valid(r.other)
		}
	}
}

// valid checks a converted object other than a pod (validate.go).
func (c *objCtx) valid(o any) error {
	switch o := o.(type) {
	case *index.Node:
		return c.validNode(o)
	case *index.PriorityClass:
		return c.validPriorityClass(o)
	case *index.PDB:
		return c.validPDB(o)
	case *index.Namespace:
		return c.validNamespace(o)
	case *index.Workload:
		return c.validWorkload(o)
	}
	panic(fmt.Sprintf("ingest: no validation for %T", o))
}

// emit converts one object and adds it to the input.
func (l *loader) emit(o *wireObject, apiVersion, kind string, src index.Source) error {
	r := &l.scratch
	convert(r, o, apiVersion, kind, src, &l.filters, l.opts)
	err := l.apply(r)
	r.pod, r.other = index.Pod{}, nil
	return err
}

// apply adds a converted object to the input.
func (l *loader) apply(r *converted) error {
	l.objects++
	if r.fatal != nil {
		return r.fatal
	}
	if r.skip != "" {
		l.in.SkippedKinds[r.skip]++
		return nil
	}
	c := &r.c
	h, err := l.checkDup(c)
	if err != nil {
		return err
	}
	if r.err != nil {
		return r.err
	}
	switch c.kind {
	case kindPod:
		if r.finished {
			l.in.FinishedPods++
			l.record(h, c, -1)
			return nil
		}
		l.record(h, c, int32(l.npods))
		l.addPod(r.pod)
		l.hasPriority = append(l.hasPriority, r.hasPriority)
		return nil
	case kindNode:
		l.in.Nodes = append(l.in.Nodes, *r.other.(*index.Node))
	case kindPriorityClass:
		pc := r.other.(*index.PriorityClass)
		if err := l.checkGlobalDefault(c, pc); err != nil {
			return err
		}
		l.in.PriorityClasses = append(l.in.PriorityClasses, *pc)
	case kindPDB:
		l.in.PDBs = append(l.in.PDBs, *r.other.(*index.PDB))
	case kindNamespace:
		l.in.Namespaces = append(l.in.Namespaces, *r.other.(*index.Namespace))
		l.namespaces[c.name] = true
	default:
		l.in.Workloads = append(l.in.Workloads, *r.other.(*index.Workload))
	}
	l.record(h, c, -1)
	return nil
}

// admitSnapshot checks the objects of a snapshot (in l.in) as apply checks
// converted ones, with the same functions: validation, duplicates, a
// single globalDefault class. A snapshot of kplace convert passes; its
// checksums catch accidents, not crafted or edited files. Errors name the
// snapshot, the object, and the file and line it came from.
func (l *loader) admitSnapshot(file string) error {
	in := l.in
	bad := func(what string, n int) error {
		return &Error{File: file, Msg: fmt.Sprintf("snapshot table \"snapshot\": %s %d is negative", what, n)}
	}
	if in.OtherScheduler < 0 {
		return bad("other_scheduler", in.OtherScheduler)
	}
	if in.FinishedPods < 0 {
		return bad("finished_pods", in.FinishedPods)
	}
	for _, k := range sortedKeys(in.SkippedKinds, nil) {
		if n := in.SkippedKinds[k]; n < 0 {
			return bad("the skipped_kinds count of "+strconv.Quote(k)+" is", n)
		}
	}
	// Pods, the bulk, are validated on every processor while the loop
	// below runs the other checks in input order; the first failure in that
	// order is reported (for one object, a duplicate before a bad value), as
	// apply would report it.
	pods := validPodsAsync(file, in.Pods, l.workers())
	defer pods.stop()
	// Duplicates first, on every processor beside the validation: the
	// first object whose key repeats an earlier one's, by position in the
	// order below (nodes, pods, PriorityClasses, PDBs, Namespaces,
	// workloads).
	nn, np := len(in.Nodes), len(in.Pods)
	npc, npdb, nns := len(in.PriorityClasses), len(in.PDBs), len(in.Namespaces)
	key := func(pos int) (string, string, string) {
		switch {
		case pos < nn:
			return kindNode, "", in.Nodes[pos].Name
		case pos < nn+np:
			p := &in.Pods[pos-nn]
			return kindPod, p.Namespace, p.Name
		case pos < nn+np+npc:
			return kindPriorityClass, "", in.PriorityClasses[pos-nn-np].Name
		case pos < nn+np+npc+npdb:
			b := &in.PDBs[pos-nn-np-npc]
			return kindPDB, b.Namespace, b.Name
		case pos < nn+np+npc+npdb+nns:
			return kindNamespace, "", in.Namespaces[pos-nn-np-npc-npdb].Name
		}
		w := &in.Workloads[pos-nn-np-npc-npdb-nns]
		return w.Kind, w.Namespace, w.Name
	}
	dup, first := firstDuplicate(nn+np+npc+npdb+nns+len(in.Workloads), key, l.hashKey, l.workers())
	dupAt := func(c *objCtx) error {
		src := index.Source{File: file} // where apply records a snapshot's objects
		if first >= nn && first < nn+np {
			src = in.Pods[first-nn].Src
		}
		return dupErr(c, src)
	}
	c := &objCtx{src: index.Source{File: file}}
	// check runs the per-object checks in apply's order: a duplicate, then
	// a bad value.
	pos := 0
	check := func(kind, ns, name string, origin index.Source, valid func() error) error {
		c.kind, c.ns, c.name, c.origin = kind, ns, name, origin
		if pos++; pos-1 == dup {
			return dupAt(c)
		}
		return valid()
	}
	for i := range in.Nodes {
		n := &in.Nodes[i]
		if err := check(kindNode, "", n.Name, n.Src, func() error { return c.validNode(n) }); err != nil {
			return err
		}
	}
	l.npods = len(in.Pods)
	if i := dup - nn; i >= 0 && i < np {
		// The pods are the workers': the first invalid one, if before.
		if bad, berr := pods.wait(); bad >= 0 && bad < i {
			return berr
		}
		p := &in.Pods[i]
		c.kind, c.ns, c.name, c.origin = kindPod, p.Namespace, p.Name, p.Src
		return dupAt(c)
	}
	pos += np
	if _, err := pods.wait(); err != nil {
		return err
	}
	for i := range in.PriorityClasses {
		pc := &in.PriorityClasses[i]
		err := check(kindPriorityClass, "", pc.Name, index.Source{}, func() error {
			if err := c.validPriorityClass(pc); err != nil {
				return err
			}
			return l.checkGlobalDefault(c, pc)
		})
		if err != nil {
			return err
		}
	}
	for i := range in.PDBs {
		b := &in.PDBs[i]
		if err := check(kindPDB, b.Namespace, b.Name, index.Source{}, func() error { return c.validPDB(b) }); err != nil {
			return err
		}
	}
	for i := range in.Namespaces {
		ns := &in.Namespaces[i]
		if err := check(kindNamespace, "", ns.Name, index.Source{}, func() error { return c.validNamespace(ns) }); err != nil {
			return err
		}
	}
	for i := range in.Workloads {
		w := &in.Workloads[i]
		if err := check(w.Kind, w.Namespace, w.Name, index.Source{}, func() error { return c.validWorkload(w) }); err != nil {
			return err
		}
	}
	return nil
}

// asyncValidation is the validation of a snapshot's pods, in flight.
type asyncValidation struct {
	done    chan struct{}
	halt    atomic.Bool
	bad     int // index of the first invalid pod, -1 when none
	err     error
	waited  bool
	workers []podFailure
}

type podFailure struct {
	idx int
	err error
}

// validPodsAsync validates pods on workers goroutines, each over a range.
func validPodsAsync(file string, pods []index.Pod, workers int) *asyncValidation {
	v := &asyncValidation{done: make(chan struct{}), bad: -1, workers: make([]podFailure, max(workers, 1))}
	var wg sync.WaitGroup
	for w := range v.workers {
		lo, hi := len(pods)*w/len(v.workers), len(pods)*(w+1)/len(v.workers)
		v.workers[w].idx = -1
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &objCtx{src: index.Source{File: file}, kind: kindPod}
			for i := lo; i < hi && !v.halt.Load(); i++ {
				p := &pods[i]
				c.ns, c.name, c.origin = p.Namespace, p.Name, p.Src
				if err := c.validPod(p); err != nil {
					v.workers[w] = podFailure{i, err}
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(v.done)
	}()
	return v
}

// wait returns the first invalid pod and its error (-1, nil when none).
func (v *asyncValidation) wait() (int, error) {
	<-v.done
	if !v.waited {
		v.waited = true
		for _, f := range v.workers {
			if f.idx >= 0 {
				v.bad, v.err = f.idx, f.err
				break // ranges come in order
			}
		}
	}
	return v.bad, v.err
}

// stop ends the validation early (its result is no longer wanted) and
// waits for the workers.
func (v *asyncValidation) stop() {
	v.halt.Store(true)
	<-v.done
}

// Pod chunks grow from 64 to 4096 pods.
const (
	firstPodChunk = 64
	maxPodChunk   = 4096
)

func (l *loader) addPod(p index.Pod) {
	if n := len(l.pods); n == 0 || len(l.pods[n-1]) == cap(l.pods[n-1]) {
		size := firstPodChunk
		if n > 0 {
			size = min(maxPodChunk, 2*cap(l.pods[n-1]))
		}
		l.pods = append(l.pods, make([]index.Pod, 0, size))
		l.podStart = append(l.podStart, int32(l.npods))
	}
	l.share.share(&p)
	c := &l.pods[len(l.pods)-1]
	*c = append(*c, p)
	l.npods++
}

func (l *loader) pod(i int32) *index.Pod {
	k, _ := slices.BinarySearch(l.podStart, i+1) // chunks starting at or before i
	k--
	return &l.pods[k][i-l.podStart[k]]
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

// seenKey is an object's key hash and whether another object's key had
// it, as checkDup found them for record (one lookup of the hash: an
// export holds millions of objects).
type seenKey struct {
	h     uint64
	taken bool
}

// checkDup fails when the object was seen before.
func (l *loader) checkDup(c *objCtx) (seenKey, error) {
	h := l.hashKey(c.kind, c.ns, c.name)
	ref, ok := l.seen[h]
	if !ok {
		return seenKey{h: h}, nil
	}
	k := seenKey{h: h, taken: true}
	if s := l.lookup(ref); s.kind == c.kind && s.ns == c.ns && s.name == c.name {
		return k, dupErr(c, s.src)
	}
	if ref, ok := l.collide[c.kind+"\x00"+c.ns+"\x00"+c.name]; ok {
		return k, dupErr(c, l.lookup(ref).src)
	}
	return k, nil
}

// checkGlobalDefault fails on a second globalDefault PriorityClass (the
// API server refuses to create it); it remembers the first.
func (l *loader) checkGlobalDefault(c *objCtx, pc *index.PriorityClass) error {
	if !pc.GlobalDefault {
		return nil
	}
	if l.globalDefault != "" {
		return c.errf("globalDefault", "PriorityClass %s is the global default already", l.globalDefault)
	}
	l.globalDefault = pc.Name
	return nil
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
func (l *loader) record(k seenKey, c *objCtx, podIdx int32) {
	ref := podIdx
	if ref < 0 {
		l.others = append(l.others, seenObj{c.kind, c.ns, c.name, c.src})
		ref = -int32(len(l.others))
	}
	if k.taken {
		l.collide[c.kind+"\x00"+c.ns+"\x00"+c.name] = ref
		return
	}
	l.seen[k.h] = ref
}

// uuidText writes u as a UUID of the given version (RFC 4122 variant).
func uuidText(u *[16]byte, version byte) string {
	var b [36]byte
	return string(appendUUID(b[:0], u, version))
}

// appendUUID appends u as a UUID of the given version (RFC 4122 variant).
func appendUUID(dst []byte, u *[16]byte, version byte) []byte {
	u[6] = u[6]&0x0f | version<<4
	u[8] = u[8]&0x3f | 0x80
	dst = hex.AppendEncode(dst, u[0:4])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, u[4:6])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, u[6:8])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, u[8:10])
	dst = append(dst, '-')
	return hex.AppendEncode(dst, u[10:])
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
	if l.snapshot != nil {
		return nil // a snapshot holds the cluster after admission
	}
	in := l.in
	for _, pc := range systemPriorityClasses {
		if !slices.ContainsFunc(in.PriorityClasses, func(c index.PriorityClass) bool { return c.Name == pc.Name }) {
			in.PriorityClasses = append(in.PriorityClasses, pc)
		}
	}
	adm := newAdmitter(in.PriorityClasses, l.opts.AdmissionDefaults)
	adm.share = l.share
	adm.creating = l.creating

	var missingNS []string
	kept := make([]index.Pod, 0, l.npods)
	i := -1
	for ci, chunk := range l.pods {
		l.pods[ci] = nil // copied below: a collection may take it (the pods are a GB at 2,000,000)
		for _, p := range chunk {
			i++
			keep := adm.admit(&p, l.hasPriority[i])
			if p.Rejected == "" && !l.namespaces[p.Namespace] {
				l.namespaces[p.Namespace] = true
				missingNS = append(missingNS, p.Namespace)
			}
			if !keep {
				in.OtherScheduler++
				continue
			}
			kept = append(kept, p)
		}
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

// admitter applies admission to pods: the Priority plugin (always) and
// DefaultTolerationSeconds (when tolerations is set, to pending pods).
type admitter struct {
	classes      map[string]*index.PriorityClass
	defaultClass *index.PriorityClass
	tolerations  bool
	// creating: the pods are created now, bound ones too (a pod created
	// with spec.nodeName goes through admission as any other).
	creating bool
	// share, when set, makes the pods whose tolerations were equal share
	// the defaulted list too; defaulted remembers it by the shared list's
	// first element (nil: no tolerations).
	share     *sharer
	defaulted map[*index.Toleration][]index.Toleration
}

// newAdmitter admits with classes (the system classes among them).
func newAdmitter(classes []index.PriorityClass, tolerations bool) *admitter {
	a := &admitter{classes: make(map[string]*index.PriorityClass, len(classes)), tolerations: tolerations}
	for i := range classes {
		pc := &classes[i]
		a.classes[pc.Name] = pc
		if pc.GlobalDefault && (a.defaultClass == nil || pc.Value < a.defaultClass.Value) {
			a.defaultClass = pc
		}
	}
	return a
}

// admit applies admission to p; hasPriority says spec.priority was set. A
// pending pod naming an unknown class is rejected (Rejected set, kept for
// the report). It returns false for a pending pod of another scheduler,
// which this scheduler never sees.
func (a *admitter) admit(p *index.Pod, hasPriority bool) bool {
	pending := p.NodeName == ""
	pc, known := a.defaultClass, true
	if p.PriorityClassName != "" {
		pc = a.classes[p.PriorityClassName]
		known = pc != nil
	}
	if pending && !known {
		// The Priority admission plugin refuses to create the pod.
		p.Rejected = fmt.Sprintf("pods %q is forbidden: no PriorityClass with name %s was found", p.Name, p.PriorityClassName)
		if p.PreemptionPolicy == "" {
			p.PreemptionPolicy = index.PreemptLowerPriority
		}
		return true
	}
	resolvePriority(p, pc, hasPriority)
	if pending && p.SchedulerName != defaultScheduler {
		return false
	}
	if (pending || a.creating) && a.tolerations {
		p.Tolerations = a.defaultTolerations(p.Tolerations)
	}
	return true
}

func (a *admitter) defaultTolerations(ts []index.Toleration) []index.Toleration {
	if a.share == nil {
		return addDefaultTolerations(ts)
	}
	var key *index.Toleration
	if len(ts) > 0 {
		key = &ts[0]
	}
	if d, ok := a.defaulted[key]; ok {
		return d
	}
	d := a.share.tolerations(addDefaultTolerations(ts))
	if a.defaulted == nil {
		a.defaulted = map[*index.Toleration][]index.Toleration{}
	}
	if key == nil || key == &a.share.tolerations(ts)[0] {
		// ts is the list the sharer keeps (alive, never changed): its
		// address stands for its contents.
		a.defaulted[key] = d
	}
	return d
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
	out := ts // conversion left room for two more
	if cap(out)-len(out) < 2 {
		out = make([]index.Toleration, len(ts), len(ts)+2)
		copy(out, ts)
	}
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
