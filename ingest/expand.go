package ingest

import (
	"cmp"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kplace/kplace/index"
)

// Expansion: the pods that the input's controllers would create now, and
// that the input lacks, join the batch as pending pods (see Expand). The
// controllers' rules (which pods a controller owns, how many it wants,
// which nodes a DaemonSet runs on, names and labels) follow
// k8s.io/kubernetes pkg/controller (deployment, replicaset, statefulset,
// daemon, job) of v1.36; each created pod is rendered as its controller
// would post it (render.go) and converted and admitted as Load converts
// and admits an input pod.

// ExpandOptions controls Expand.
type ExpandOptions struct {
	// Seed derives the random name suffixes and the uids of created
	// objects (and of manifests' controllers, which have none).
	Seed uint64
	// AdmissionDefaults adds the DefaultTolerationSeconds tolerations to
	// the created pods: the value the input was loaded with
	// (Info.AdmissionDefaults).
	AdmissionDefaults bool
	// NodeIndex hands the node index made for DaemonSets on in
	// Expansion.Nodes, with the nodes' image table being built meanwhile,
	// for index.BuildOn to take.
	NodeIndex bool
}

// Expansion is what Expand did.
type Expansion struct {
	// Workloads has a row per controller, in input order; a Deployment's
	// row stands for its ReplicaSets.
	Workloads []index.WorkloadExpansion
	// Warnings name the controllers that create nothing for a reason of
	// their own (no template, an invalid selector), and CronJobs.
	Warnings []string
	// Pods, ReplicaSets and PVCs count the objects created: pods added to
	// Input.Pods, ReplicaSets of Deployments added to Input.Workloads,
	// PersistentVolumeClaims of StatefulSets.
	Pods, ReplicaSets, PVCs int
	// Nodes is the node index expansion made for its DaemonSets
	// (index.NodeIndex of Input.Nodes) with ExpandOptions.NodeIndex; nil
	// when it made none. index.BuildOn takes it instead of indexing the
	// nodes again.
	Nodes *index.Cluster

	gens   []*podGen // the workloads that created pods, in pod order
	rsJSON [][]byte  // the created ReplicaSets, as JSON objects
}

// maxCreated bounds the pods one expansion creates.
const maxCreated = 5_000_000

// wkey names a controller.
type wkey struct{ kind, ns, name string }

// ctl is one controller during expansion.
type ctl struct {
	w      *index.Workload
	sel    labels.Selector
	set    map[string]string // the selector's matchLabels, when that is all it has
	byRef  bool              // claims pods by controller reference only
	uid    string            // w.UID, or derived for a manifest
	stored bool              // read back from a cluster (it has a uid), not a manifest
	skip   bool              // creates nothing (warned)
	// tmpl is the template pods are created from; extra the labels the
	// controller adds to every pod (a Job manifest's generated ones).
	tmpl  []byte
	extra map[string]string
	// A ReplicaSet of a Deployment of the input: dep is that Deployment,
	// current says it is the one whose template matches. A Deployment:
	// rs is its current ReplicaSet (found or created).
	dep     *ctl
	current bool
	rs      *ctl
	hash    string // a DaemonSet's or created ReplicaSet's revision hash
	target  int    // pods wanted
	// Claimed pods: the active count, the pending ones, the StatefulSet
	// ordinals or Job indexes they hold, the nodes a DaemonSet's are on
	// (by name, then by id).
	active    int
	pending   []index.PodID
	held      map[int]bool
	nodeNames []string
	nodes     *roaring.Bitmap
	// eligible is a DaemonSet's nodes.
	eligible *roaring.Bitmap
	// slots are the pods to create: ordinals, Job indexes, node ids, or
	// 0..n-1.
	slots   []int32
	note    string
	gen     *podGen // its created pods
	genName string  // its pods' generateName (not an indexed Job's: per index)
	spill   int     // the next number for a name the input takes
}

// expander is the state of one Expand.
type expander struct {
	in      *index.Input
	opts    ExpandOptions
	exp     *Expansion
	ctls    []*ctl
	byKey   map[wkey]*ctl
	orphans map[string][]*ctl // by namespace: controllers that adopt pods without a controller reference
	cluster *index.Cluster    // the nodes, indexed (DaemonSets)
	now     int64             // the creation time of created objects
	// taken holds the input's pod names that created pods could get, and
	// takenPrefix their generateName prefixes (see name).
	taken, takenPrefix map[nameKey]bool
	newRS              []*ctl // the ReplicaSets Deployments create
}

// Expand adds to in the pods its controllers would create now and that it
// lacks, as pending pods after the input's, and the ReplicaSets its
// Deployments would create to in.Workloads; in must come from Load (its
// pods admitted). Deployments, ReplicaSets, StatefulSets, DaemonSets,
// Jobs and ReplicationControllers are expanded; see docs/workloads.md for what
// each creates. Errors name the controller and the field (a template its
// pods cannot be made from).
func Expand(in *index.Input, opts ExpandOptions) (*Expansion, error) {
	x := newExpander(in, opts)
	if n := in.SkippedKinds["batch/v1 CronJob"]; n > 0 {
		x.exp.Warnings = append(x.exp.Warnings, fmt.Sprintf("%d CronJob(s) skipped: a CronJob has nothing to place until it fires (the Jobs it made are expanded)", n))
	}
	if err := x.prepare(); err != nil {
		return nil, err
	}
	x.name()
	if err := x.create(); err != nil {
		return nil, err
	}
	x.report()
	// Last: the controllers point into in.Workloads.
	for _, rs := range x.newRS {
		x.in.Workloads = append(x.in.Workloads, *rs.w)
	}
	x.exp.ReplicaSets = len(x.newRS)
	return x.exp, nil
}

func newExpander(in *index.Input, opts ExpandOptions) *expander {
	return &expander{in: in, opts: opts, exp: &Expansion{}, byKey: map[wkey]*ctl{}, orphans: map[string][]*ctl{}}
}

// prepare finds each controller's pods and plans the pods it creates.
func (x *expander) prepare() error {
	x.now = latestCreation(x.in)
	x.collect()
	// DaemonSets need the nodes indexed: that runs beside the claims.
	var indexed chan struct{}
	if slices.ContainsFunc(x.ctls, func(c *ctl) bool { return c.w.Kind == index.KindDaemonSet && !c.skip }) {
		indexed = make(chan struct{})
		go func() { x.indexNodes(); close(indexed) }()
	}
	err := x.deployments()
	if err == nil {
		x.claim()
	}
	if indexed != nil {
		<-indexed
	}
	if err != nil {
		return err
	}
	if err := x.daemonNodes(); err != nil {
		return err
	}
	left := maxCreated
	for _, c := range x.ctls {
		if c.skip {
			continue
		}
		if n := x.wanted(c); n > left {
			w := c.w
			return &Error{File: w.Src.File, Line: w.Src.Line, Kind: w.Kind, Namespace: w.Namespace, Name: w.Name,
				Msg: fmt.Sprintf("it would create %d pods, more than the %d kplace holds (with the other controllers' %d)", n, maxCreated, maxCreated-left)}
		}
		x.plan(c)
		left -= len(c.slots)
	}
	return nil
}

// latestCreation is the latest creation time of the input's pods and
// workloads: created objects are created after them.
func latestCreation(in *index.Input) int64 {
	var t int64
	for i := range in.Pods {
		t = max(t, in.Pods[i].CreationUnix)
	}
	for i := range in.Workloads {
		t = max(t, in.Workloads[i].CreationUnix)
	}
	return t
}

func (x *expander) warnf(w *index.Workload, format string, args ...any) {
	x.exp.Warnings = append(x.exp.Warnings, fmt.Sprintf("%s %s/%s: %s", w.Kind, w.Namespace, w.Name, fmt.Sprintf(format, args...)))
}

// isController reports whether kind is one expansion reads.
func isController(kind string) bool {
	switch kind {
	case index.KindDeployment, index.KindReplicaSet, index.KindStatefulSet, index.KindDaemonSet, index.KindJob,
		index.KindReplicationController:
		return true
	}
	return false
}

// collect makes a ctl of every controller of the input.
func (x *expander) collect() {
	for i := range x.in.Workloads {
		w := &x.in.Workloads[i]
		if !isController(w.Kind) {
			continue
		}
		c := &ctl{w: w, uid: w.UID, stored: w.UID != "", tmpl: w.Template, target: -1}
		if c.uid == "" {
			c.uid = x.uid(w.Kind, w.Namespace, w.Name)
		}
		x.ctls = append(x.ctls, c)
		x.byKey[wkey{w.Kind, w.Namespace, w.Name}] = c
		switch {
		case w.Template == nil:
			c.skip = true
			c.note = "no pod template"
			x.warnf(w, "no spec.template: creates no pods")
			continue
		case w.Kind == index.KindJob && w.Selector == nil && !w.ManualSelector:
			// The API server generates the selector at creation, from the
			// Job's uid, and labels the template to match.
			c.byRef = true
			c.extra = map[string]string{labelJobControllerUID: c.uid, labelLegacyJobUID: c.uid,
				labelJobName: w.Name, labelLegacyJobName: w.Name}
			c.set = map[string]string{labelJobControllerUID: c.uid}
			c.sel = labels.SelectorFromValidatedSet(c.set)
			continue
		case w.Selector == nil || len(w.Selector.MatchLabels) == 0 && len(w.Selector.MatchExpressions) == 0:
			c.skip = true
			c.note = "no pod selector"
			x.warnf(w, "no spec.selector (or an empty one): creates no pods")
			continue
		}
		if c.stored && len(w.Selector.MatchExpressions) == 0 {
			// Stored, so validated by the API server: match its pairs.
			c.set = w.Selector.MatchLabels
		} else if c.sel = index.SelectorOf(w.Selector); c.sel == nil {
			c.skip = true
			c.note = "invalid pod selector"
			x.warnf(w, "spec.selector is invalid: creates no pods")
			continue
		} else if len(w.Selector.MatchExpressions) == 0 {
			c.set = w.Selector.MatchLabels
		}
		if w.Kind != index.KindDeployment { // a Deployment owns ReplicaSets, not pods
			x.orphans[w.Namespace] = append(x.orphans[w.Namespace], c)
		}
	}
}

// selects reports whether c's selector matches labels l.
func (c *ctl) selects(l map[string]string) bool {
	if c.set != nil {
		return index.MatchesSet(c.set, l)
	}
	return c.sel.Matches(labels.Set(l))
}

// ownedBy reports whether a controller reference names c: by uid when both
// have one, else by kind and name.
func (c *ctl) ownedBy(ref *index.OwnerRef) bool {
	if ref.Kind != c.w.Kind || ref.Name != c.w.Name {
		return false
	}
	return ref.UID == "" || !c.stored || ref.UID == c.w.UID
}

// deployments finds each Deployment's current ReplicaSet, as the
// deployment controller does (FindNewReplicaSet: the oldest of its
// ReplicaSets whose template equals its own but for the pod-template-hash
// label), or makes the one the controller would create.
func (x *expander) deployments() error {
	owned := map[*ctl][]*ctl{}
	for _, c := range x.ctls {
		if c.w.Kind != index.KindReplicaSet || c.w.Owner == nil || c.w.Owner.Kind != index.KindDeployment {
			continue
		}
		d := x.byKey[wkey{index.KindDeployment, c.w.Namespace, c.w.Owner.Name}]
		if d == nil || d.skip || !d.ownedBy(c.w.Owner) {
			continue
		}
		c.dep = d
		owned[d] = append(owned[d], c)
	}
	for _, d := range x.ctls {
		if d.w.Kind != index.KindDeployment || d.skip {
			continue
		}
		rss := owned[d]
		sort.SliceStable(rss, func(i, j int) bool {
			a, b := rss[i].w, rss[j].w
			return a.CreationUnix < b.CreationUnix || a.CreationUnix == b.CreationUnix && a.Name < b.Name
		})
		dt := deployTemplate{raw: d.tmpl}
		for _, rs := range rss {
			if rs.tmpl != nil && dt.equalIgnoreHash(rs.tmpl) {
				rs.current, d.rs = true, rs
				break
			}
		}
		if d.rs == nil {
			rs, err := x.newReplicaSet(d)
			if err != nil {
				return err
			}
			d.rs = rs
		}
		d.rs.target = int(d.w.Replicas)
	}
	return nil
}

// newReplicaSet makes the ReplicaSet the deployment controller creates for
// d: named after d and the hash of its template (the collision count
// raised while another ReplicaSet holds the name), its template and
// selector labelled with the hash.
func (x *expander) newReplicaSet(d *ctl) (*ctl, error) {
	t, err := x.storedTemplate(d)
	if err != nil {
		return nil, err
	}
	collisions := d.w.CollisionCount
	var hash, name string
	for try := 0; ; try++ {
		hash = templateHash(t, collisions)
		name = replicaSetName(d.w.Name, hash)
		if x.byKey[wkey{index.KindReplicaSet, d.w.Namespace, name}] == nil || try == 100 {
			break
		}
		collisions = max(collisions, 0) + 1
	}
	tmpl, err := withLabel(d.tmpl, labelPodTemplateHash, hash)
	if err != nil {
		return nil, x.templateErr(d.w, "spec.template", err)
	}
	sel := &index.LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: d.w.Selector.MatchExpressions}
	for k, v := range d.w.Selector.MatchLabels {
		sel.MatchLabels[k] = v
	}
	sel.MatchLabels[labelPodTemplateHash] = hash
	w := &index.Workload{Kind: index.KindReplicaSet, Namespace: d.w.Namespace, Name: name, Selector: sel,
		UID: x.uid(index.KindReplicaSet, d.w.Namespace, name), CreationUnix: x.now, Replicas: d.w.Replicas,
		Owner:          &index.OwnerRef{Kind: index.KindDeployment, Name: d.w.Name, APIVersion: "apps/v1", UID: d.uid},
		CollisionCount: -1, TemplateGeneration: -1, Template: tmpl, Src: d.w.Src}
	rs := &ctl{w: w, uid: w.UID, stored: true, tmpl: tmpl, dep: d, current: true, hash: hash, target: -1,
		sel: index.SelectorOf(sel)}
	if rs.sel == nil {
		return nil, x.templateErr(d.w, "spec.selector", fmt.Errorf("invalid with %s=%s added", labelPodTemplateHash, hash))
	}
	if len(sel.MatchExpressions) == 0 {
		rs.set = sel.MatchLabels
	}
	x.ctls = append(x.ctls, rs)
	x.byKey[wkey{w.Kind, w.Namespace, w.Name}] = rs
	x.orphans[w.Namespace] = append(x.orphans[w.Namespace], rs)
	x.newRS = append(x.newRS, rs)
	return rs, nil
}

// replicaSetName is generateReplicaSetName: the Deployment's name cut so
// that name, '-' and hash make a DNS subdomain.
func replicaSetName(deploy, hash string) string {
	if n := 253 - 1 - len(hash); len(deploy) > n && n > 0 {
		deploy = deploy[:n]
	}
	return deploy + "-" + hash
}

// claim gives each pod of the input to the controller that owns it, as
// the controllers' ClaimPods do: a pod whose controller reference names a
// controller is that controller's if its selector matches the pod (a pod
// it no longer matches is released); a pod without one is adopted by the
// first controller of its namespace whose selector matches it.
func (x *expander) claim() {
	// The pods of a workload mostly follow each other and share their
	// owner reference and labels (ingest shares equal ones): a pod with
	// the last one's goes where it went, without the lookup and the match
	// (two million pods at 100,000 nodes).
	var last struct {
		owner  *index.OwnerRef
		ns     string
		labels unsafe.Pointer
		c      *ctl
	}
	for i := range x.in.Pods {
		p := &x.in.Pods[i]
		var c *ctl
		if o := p.Owner; o != nil {
			if lp := reflect.ValueOf(p.Labels).UnsafePointer(); o == last.owner && lp == last.labels && p.Namespace == last.ns {
				c = last.c
			} else {
				c = x.byKey[wkey{o.Kind, p.Namespace, o.Name}]
				if c == nil || c.skip || !c.ownedBy(o) || !c.byRef && !c.selects(p.Labels) {
					c = nil
				}
				last.owner, last.ns, last.labels, last.c = o, p.Namespace, lp, c
			}
			if c == nil {
				continue
			}
		} else {
			for _, o := range x.orphans[p.Namespace] {
				if !o.skip && !o.byRef && o.selects(p.Labels) && o.adopts(p) {
					c = o
					break
				}
			}
			if c == nil {
				continue
			}
		}
		c.hold(x, p, index.PodID(i))
	}
}

// adopts reports whether c may adopt the orphan p (a StatefulSet only its
// own members by name).
func (c *ctl) adopts(p *index.Pod) bool {
	if c.w.Kind != index.KindStatefulSet {
		return true
	}
	parent, _ := stsOrdinal(p.Name)
	return parent == c.w.Name
}

// statefulPod splits a StatefulSet pod's name into its parent and
// ordinal, as getParentNameAndOrdinal does.
var statefulPod = regexp.MustCompile("(.*)-([0-9]+)$")

func stsOrdinal(name string) (string, int) {
	m := statefulPod.FindStringSubmatch(name)
	if m == nil {
		return "", -1
	}
	ord, err := strconv.ParseInt(m[2], 10, 32)
	if err != nil {
		return m[1], -1
	}
	return m[1], int(ord)
}

// hold records a pod c claimed.
func (c *ctl) hold(x *expander, p *index.Pod, id index.PodID) {
	switch c.w.Kind {
	case index.KindStatefulSet:
		parent, ord := stsOrdinal(p.Name)
		start := int(c.w.OrdinalsStart)
		if parent != c.w.Name || ord < start || ord >= start+int(c.w.Replicas) {
			return // not a member, or condemned: not one of the replicas
		}
		if c.held == nil {
			c.held = map[int]bool{}
		}
		c.held[ord] = true
	case index.KindDaemonSet:
		node, ok := targetNode(p)
		if !ok {
			return
		}
		c.nodeNames = append(c.nodeNames, node)
	case index.KindJob:
		if ix, ok := completionIndex(p.Labels); ok && c.w.Indexed {
			if c.held == nil {
				c.held = map[int]bool{}
			}
			c.held[ix] = true
		}
	}
	c.active++
	if p.NodeName == "" {
		c.pending = append(c.pending, id)
	}
}

func (x *expander) indexNodes() {
	c, err := index.NodeIndex(x.in.Nodes)
	if err != nil { // duplicate node names: Load refuses them first
		c = &index.Cluster{NodeByName: map[string]index.NodeID{}, All: roaring.New()}
	} else if x.opts.NodeIndex {
		// BuildOn takes the index, and the image table, made meanwhile
		// on the processor the claims leave idle.
		c.IndexImagesAsync()
		x.exp.Nodes = c
	}
	x.cluster = c
}

// targetNode is the node a DaemonSet pod is for (GetTargetNodeName): its
// spec.nodeName, else the node its required affinity names with a
// matchFields metadata.name In requirement of one value.
func targetNode(p *index.Pod) (string, bool) {
	if p.NodeName != "" {
		return p.NodeName, true
	}
	for _, t := range p.RequiredTerms {
		for _, r := range t.MatchFields {
			if r.Key == index.FieldNodeName && r.Operator == index.SelIn {
				if len(r.Values) != 1 {
					return "", false // the controller's "not unique" error
				}
				return r.Values[0], true
			}
		}
	}
	return "", false
}

// completionIndex reads a Job pod's completion index from its label (set
// with the annotation the controller reads since v1.28).
func completionIndex(l map[string]string) (int, bool) {
	v, ok := l[labelCompletionIndex]
	if !ok {
		return 0, false
	}
	ix, err := strconv.Atoi(v)
	return ix, err == nil && ix >= 0
}

// wanted bounds from above how many pods c creates (before plan makes the
// list).
func (x *expander) wanted(c *ctl) int {
	w := c.w
	switch w.Kind {
	case index.KindReplicaSet, index.KindReplicationController:
		if c.target >= 0 {
			return c.target - c.active
		}
		return int(w.Replicas) - c.active
	case index.KindStatefulSet:
		return int(w.Replicas)
	case index.KindDaemonSet:
		return int(c.eligible.GetCardinality())
	case index.KindJob:
		return int(w.Parallelism)
	}
	return 0
}

// plan decides which pods c creates.
func (x *expander) plan(c *ctl) {
	w := c.w
	switch w.Kind {
	case index.KindDeployment:
		return // its current ReplicaSet creates
	case index.KindReplicaSet, index.KindReplicationController:
		if c.dep != nil && !c.current {
			return // an old ReplicaSet of a rollout: scaled down, not up
		}
		if c.target < 0 {
			c.target = int(w.Replicas)
		}
		for k := c.active; k < c.target; k++ {
			c.slots = append(c.slots, int32(k-c.active))
		}
	case index.KindStatefulSet:
		c.target = int(w.Replicas)
		start := int(w.OrdinalsStart)
		for ord := start; ord < start+int(w.Replicas); ord++ {
			if !c.held[ord] {
				c.slots = append(c.slots, int32(ord))
			}
		}
		if len(w.ClaimTemplates) > 0 && !isNull(w.ClaimTemplates) && string(w.ClaimTemplates) != "[]" {
			c.note = "volumes: its pods use the PersistentVolumeClaims of its volumeClaimTemplates (unsupported: volumes)"
		}
	case index.KindDaemonSet:
		c.target = int(c.eligible.GetCardinality())
		it := c.eligible.Iterator()
		held := 0
		for it.HasNext() {
			n := it.Next()
			if c.nodes.Contains(n) {
				held++
				continue
			}
			c.slots = append(c.slots, int32(n))
		}
		c.active = held // the eligible nodes that hold a pod
	case index.KindJob:
		x.planJob(c)
	}
}

// planJob is the Job controller's manageJob: min(parallelism,
// completions - succeeded) pods active (parallelism while none succeeded
// without completions), the missing indexes first in Indexed mode.
func (x *expander) planJob(c *ctl) {
	w := c.w
	if w.Finished || w.Suspend {
		c.target = 0
		return
	}
	completions := int(w.Completions)
	succeeded := int(w.Succeeded)
	var done []interval
	if w.Indexed {
		done = parseIndexes(w.CompletedIndexes, completions)
		succeeded = 0
		for _, iv := range done {
			succeeded += iv.last - iv.first + 1
		}
	}
	want := 0
	switch {
	case completions < 0 && succeeded > 0:
		want = c.active
	case completions < 0:
		want = int(w.Parallelism)
	default:
		want = max(0, min(completions-succeeded, int(w.Parallelism)))
	}
	c.target = want
	diff := want - c.active
	if diff <= 0 {
		return
	}
	if !w.Indexed {
		for k := 0; k < diff; k++ {
			c.slots = append(c.slots, int32(k))
		}
		return
	}
	// firstPendingIndexes: the lowest indexes not succeeded, failed or held
	// by an active pod.
	skip := append(done, parseIndexes(w.FailedIndexes, completions)...)
	for ix := range c.held {
		skip = append(skip, interval{ix, ix})
	}
	slices.SortFunc(skip, func(a, b interval) int { return cmp.Compare(a.first, b.first) })
	next := 0
	for _, iv := range skip {
		for ; next < completions && len(c.slots) < diff && next < iv.first; next++ {
			c.slots = append(c.slots, int32(next))
		}
		next = max(next, iv.last+1)
	}
	for ; next < completions && len(c.slots) < diff; next++ {
		c.slots = append(c.slots, int32(next))
	}
}

// interval is a range of Job completion indexes, both ends included.
type interval struct{ first, last int }

// parseIndexes reads "1,3-5" as the Job controller's parseIndexesFromString
// does: malformed intervals are skipped, indexes at or past completions
// dropped.
func parseIndexes(s string, completions int) []interval {
	if s == "" {
		return nil
	}
	var out []interval
	for _, part := range strings.Split(s, ",") {
		lims := strings.Split(part, "-")
		first, err := strconv.Atoi(lims[0])
		if err != nil {
			continue
		}
		if first >= completions {
			break
		}
		last := first
		if len(lims) > 1 {
			if last, err = strconv.Atoi(lims[1]); err != nil {
				continue
			}
			last = min(last, completions-1)
		}
		if n := len(out); n > 0 && out[n-1].last == first-1 {
			out[n-1].last = last
		} else {
			out = append(out, interval{first, last})
		}
	}
	return out
}

// daemonNodes computes each DaemonSet's nodes.
func (x *expander) daemonNodes() error {
	for _, c := range x.ctls {
		if c.w.Kind != index.KindDaemonSet || c.skip {
			continue
		}
		if x.cluster == nil {
			x.indexNodes()
		}
		c.nodes = roaring.New()
		for _, name := range c.nodeNames {
			if id, ok := x.cluster.NodeByName[name]; ok {
				c.nodes.Add(id)
			}
		}
		proto, err := x.daemonProbe(c)
		if err != nil {
			return err
		}
		c.eligible = daemonEligible(x.cluster, proto)
	}
	return nil
}

// daemonEligible is the DaemonSet controller's NodeShouldRunDaemonPod for
// every node at once: the nodes p (the DaemonSet's pod before it is pinned
// to a node: its template with the DaemonSet tolerations) may run on. The
// template's nodeSelector and required node affinity must match, its
// spec.nodeName (when set) name the node, and its tolerations tolerate
// every NoSchedule and NoExecute taint; the filters are the scheduler's
// own (index.Cluster.RequiredNodes, UntoleratedNodes).
func daemonEligible(c *index.Cluster, p *index.Pod) *roaring.Bitmap {
	out := c.RequiredNodes(p, nil)
	if bad := c.UntoleratedNodes(p.Tolerations); bad != nil {
		out.AndNot(bad)
	}
	if p.NodeName != "" {
		named := roaring.New()
		if id, ok := c.NodeByName[p.NodeName]; ok && out.Contains(id) {
			named.Add(id)
		}
		out = named
	}
	return out
}

// uid derives a uid for an object from the seed and its identity.
func (x *expander) uid(kind, ns, name string) string {
	return derivedObjectUID(x.opts.Seed, kind, ns, name)
}

// nameKey is a namespace and a pod name or generateName prefix.
type nameKey struct{ ns, name string }

// name finds the names the input's pods take among those created pods may
// get: the input's pods whose name is a generateName prefix in use and
// five characters.
func (x *expander) name() {
	prefixes := map[nameKey]bool{}
	for _, c := range x.ctls {
		if len(c.slots) == 0 || c.w.Kind == index.KindStatefulSet {
			continue
		}
		if c.w.Kind == index.KindJob && c.w.Indexed {
			for _, s := range c.slots {
				prefixes[nameKey{c.w.Namespace, c.generateName(s)}] = true
			}
			continue
		}
		prefixes[nameKey{c.w.Namespace, c.generateName(0)}] = true
	}
	x.taken, x.takenPrefix = map[nameKey]bool{}, map[nameKey]bool{}
	if len(prefixes) == 0 {
		return
	}
	for i := range x.in.Pods {
		p := &x.in.Pods[i]
		if n := len(p.Name); n > 5 && prefixes[nameKey{p.Namespace, p.Name[:n-5]}] {
			x.taken[nameKey{p.Namespace, p.Name}] = true
			x.takenPrefix[nameKey{p.Namespace, p.Name[:n-5]}] = true
		}
	}
}

// generateName is the generateName of c's pod for slot s.
func (c *ctl) generateName(s int32) string {
	w := c.w
	if w.Kind == index.KindJob && w.Indexed {
		ix := "-" + strconv.Itoa(int(s)) + "-"
		prefix := w.Name + ix
		if len(prefix) > maxGeneratedNameLength {
			prefix = prefix[:maxGeneratedNameLength-len(ix)] + ix
		}
		return prefix
	}
	prefix := w.Name + "-" // getPodsPrefix, where the name is valid
	if len(prefix) > 253 {
		prefix = w.Name
	}
	if len(prefix) > maxGeneratedNameLength {
		prefix = prefix[:maxGeneratedNameLength]
	}
	return prefix
}

// podName names c's pod for slot s, the k-th it creates: a StatefulSet
// pod <set>-<ordinal>; the others their generateName and five random
// characters, distinct for distinct k (randomSuffix is a bijection), past
// the names the input takes (a taken one moves to a number past every
// pod's, c.spill).
func (x *expander) podName(c *ctl, s int32, k int, buf []byte) []byte {
	w := c.w
	if w.Kind == index.KindStatefulSet {
		return strconv.AppendInt(append(append(buf, w.Name...), '-'), int64(s), 10)
	}
	prefix := c.genName
	if prefix == "" || w.Kind == index.KindJob && w.Indexed {
		prefix = c.generateName(s)
	}
	off := suffixOffset(x.opts.Seed, w.Namespace, prefix)
	buf = append(buf, prefix...)
	name := appendSuffix(buf, uint64(k), off)
	if !x.takenPrefix[nameKey{w.Namespace, prefix}] {
		return name
	}
	for x.taken[nameKey{w.Namespace, string(name)}] {
		if c.spill < len(c.slots) {
			c.spill = len(c.slots)
		}
		name = appendSuffix(buf, uint64(c.spill), off)
		c.spill++
	}
	return name
}

// report fills the workload rows.
func (x *expander) report() {
	for _, c := range x.ctls {
		w := c.w
		if w.Kind == index.KindReplicaSet && c.dep != nil {
			continue // in its Deployment's row
		}
		row := index.WorkloadExpansion{Kind: w.Kind, Namespace: w.Namespace, Name: w.Name, Note: c.note}
		src := c
		if w.Kind == index.KindDeployment {
			if c.rs == nil {
				x.exp.Workloads = append(x.exp.Workloads, row)
				continue
			}
			src = c.rs
			if row.Note == "" {
				row.Note = src.note
			}
		}
		row.Desired = max(src.target, 0)
		row.Existing = src.active
		row.Created = len(src.slots)
		row.Pods = append(slices.Clip(src.pending), src.createdIDs()...)
		x.exp.Workloads = append(x.exp.Workloads, row)
	}
}
