package bench

// Pod topology spread and pod (anti-)affinity: the spread, anti-affinity
// and spread-bench profiles. Their running deployments carry constraints
// too (placed honouring them), pending deployments may scale up or roll out
// a running one, and deployments without constraints get ReplicaSet and
// Service objects (kube-scheduler's default spreading reads their
// selectors).
//
// Selectors are written as the API server stores them: matchLabelKeys and
// mismatchLabelKeys stay listed, and each key the pod carries is also merged
// into the labelSelector as `key In [value]` (`NotIn` for mismatch keys),
// appended after the user's expressions (pod affinity since v1.31,
// topology spread since v1.34).

import (
	"slices"
	"strconv"
)

const (
	keyZone        = "topology.kubernetes.io/zone"
	keyHost        = "kubernetes.io/hostname"
	doNotSchedule  = "DoNotSchedule"
	scheduleAnyway = "ScheduleAnyway"
	hashKey        = "pod-template-hash"
)

// maxZones bounds GenConfig.Zones (node.zone is a uint16).
const maxZones = 1000

// zoneTable names n zones of the region, of unequal weights (2n, 2n-1, ...,
// n+1): us-east-1a..z, then us-east-1-az27 and on.
func zoneTable(n int) []weighted[string] {
	out := make([]weighted[string], n)
	for i := range out {
		name := region + string(rune('a'+i))
		if i >= 26 {
			name = region + "-az" + strconv.Itoa(i+1)
		}
		out[i] = weighted[string]{name, 2*n - i}
	}
	return out
}

// nsEnv is the env label of a namespace (profile.nsEnv).
func nsEnv(ns string) string {
	switch ns {
	case "default":
		return "dev"
	case "kube-system", "monitoring":
		return "platform"
	case "ml", "batch":
		return "research"
	}
	return "prod"
}

// ---------------------------------------------------------------------------
// Types.

type labelSelector struct {
	labels []kv     // matchLabels
	exprs  []selReq // matchExpressions
}

// matches reports whether a pod with these labels matches s (merged keys
// apart: see matchesMerged).
func (s *labelSelector) matches(labels []kv) bool {
	get := func(k string) (string, bool) {
		for _, l := range labels {
			if l.k == k {
				return l.v, true
			}
		}
		return "", false
	}
	for _, l := range s.labels {
		if v, ok := get(l.k); !ok || v != l.v {
			return false
		}
	}
	for _, e := range s.exprs {
		v, ok := get(e.key)
		switch e.op {
		case "In":
			if !ok || !slices.Contains(e.values, v) {
				return false
			}
		case "NotIn":
			if ok && slices.Contains(e.values, v) {
				return false
			}
		case "Exists":
			if !ok {
				return false
			}
		case "DoesNotExist":
			if ok {
				return false
			}
		}
	}
	return true
}

type spreadConstraint struct {
	maxSkew        int32
	key, when      string
	sel            labelSelector
	minDomains     int32 // 0: unset
	matchLabelKeys []string
	// nodeAffinityPolicy and nodeTaintsPolicy; "" leaves them unset.
	affinityPolicy, taintsPolicy string
}

type podAffTerm struct {
	sel        labelSelector
	namespaces []string
	nsSel      *labelSelector // nil: unset; empty: every namespace
	key        string
	// matchLabelKeys and mismatchLabelKeys, merged into sel when rendered.
	matchLabelKeys, mismatchLabelKeys []string
}

type weightedAffTerm struct {
	weight int32
	term   podAffTerm
}

// clone deep-copies t, so that the copy survives g.tpl's reuse.
func (t *podTemplate) clone() podTemplate {
	c := *t
	c.labels = slices.Clone(t.labels)
	c.nodeSelector = slices.Clone(t.nodeSelector)
	c.required = slices.Clone(t.required)
	c.preferred = slices.Clone(t.preferred)
	c.tolerations = slices.Clone(t.tolerations)
	cc := func(cs []container) []container {
		out := slices.Clone(cs)
		for i := range out {
			out[i].req = slices.Clone(out[i].req)
			out[i].lim = slices.Clone(out[i].lim)
			out[i].ports = slices.Clone(out[i].ports)
		}
		return out
	}
	c.initContainers = cc(t.initContainers)
	c.containers = cc(t.containers)
	c.overhead = slices.Clone(t.overhead)
	c.spread = slices.Clone(t.spread)
	c.affReq = slices.Clone(t.affReq)
	c.antiReq = slices.Clone(t.antiReq)
	c.affPref = slices.Clone(t.affPref)
	c.antiPref = slices.Clone(t.antiPref)
	return c
}

func (t *podTemplate) label(k string) (string, bool) {
	for _, l := range t.labels {
		if l.k == k {
			return l.v, true
		}
	}
	return "", false
}

func (t *podTemplate) setLabel(k, v string) {
	for i := range t.labels {
		if t.labels[i].k == k {
			t.labels[i].v = v
			return
		}
	}
	t.labels = append(t.labels, kv{k, v})
}

func (t *podTemplate) constrained() bool {
	return len(t.spread)+len(t.affReq)+len(t.antiReq)+len(t.affPref)+len(t.antiPref) > 0
}

// ---------------------------------------------------------------------------
// Rendering.

// appendSelector writes s with the pod's values of the in keys merged as
// `key In [v]` and of the notIn keys as `key NotIn [v]`.
func appendSelector(b []byte, s *labelSelector, in, notIn []string, t *podTemplate) []byte {
	exprs := s.exprs
	merge := func(keys []string, op string) {
		for _, k := range keys {
			if v, ok := t.label(k); ok {
				exprs = append(exprs[:len(exprs):len(exprs)], selReq{key: k, op: op, values: []string{v}})
			}
		}
	}
	merge(in, "In")
	merge(notIn, "NotIn")
	b = append(b, '{')
	if len(exprs) > 0 {
		b = append(b, `"matchExpressions":`...)
		b = appendSelReqs(b, exprs)
	}
	if len(s.labels) > 0 {
		if len(exprs) > 0 {
			b = append(b, ',')
		}
		b = append(b, `"matchLabels":`...)
		b = appendKVs(b, s.labels)
	}
	return append(b, '}')
}

func (g *gen) appendSpread(b []byte, t *podTemplate) []byte {
	if len(t.spread) == 0 {
		return b
	}
	b = append(b, `,"topologySpreadConstraints":[`...)
	for i := range t.spread {
		c := &t.spread[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"labelSelector":`...)
		b = appendSelector(b, &c.sel, c.matchLabelKeys, nil, t)
		if len(c.matchLabelKeys) > 0 {
			b = append(b, `,"matchLabelKeys":`...)
			b = appendStrs(b, c.matchLabelKeys)
		}
		b = append(b, `,"maxSkew":`...)
		b = strconv.AppendInt(b, int64(c.maxSkew), 10)
		if c.minDomains > 0 {
			b = append(b, `,"minDomains":`...)
			b = strconv.AppendInt(b, int64(c.minDomains), 10)
		}
		if c.affinityPolicy != "" {
			b = append(b, `,"nodeAffinityPolicy":`...)
			b = appendStr(b, c.affinityPolicy)
		}
		if c.taintsPolicy != "" {
			b = append(b, `,"nodeTaintsPolicy":`...)
			b = appendStr(b, c.taintsPolicy)
		}
		b = append(b, `,"topologyKey":`...)
		b = appendStr(b, c.key)
		b = append(b, `,"whenUnsatisfiable":`...)
		b = appendStr(b, c.when)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendAffTerm(b []byte, a *podAffTerm, t *podTemplate) []byte {
	b = append(b, `{"labelSelector":`...)
	b = appendSelector(b, &a.sel, a.matchLabelKeys, a.mismatchLabelKeys, t)
	if len(a.matchLabelKeys) > 0 {
		b = append(b, `,"matchLabelKeys":`...)
		b = appendStrs(b, a.matchLabelKeys)
	}
	if len(a.mismatchLabelKeys) > 0 {
		b = append(b, `,"mismatchLabelKeys":`...)
		b = appendStrs(b, a.mismatchLabelKeys)
	}
	if a.nsSel != nil {
		b = append(b, `,"namespaceSelector":`...)
		b = appendSelector(b, a.nsSel, nil, nil, t)
	}
	if len(a.namespaces) > 0 {
		b = append(b, `,"namespaces":`...)
		b = appendStrs(b, a.namespaces)
	}
	b = append(b, `,"topologyKey":`...)
	b = appendStr(b, a.key)
	return append(b, '}')
}

func appendAffBlock(b []byte, name string, req []podAffTerm, pref []weightedAffTerm, t *podTemplate) []byte {
	b = appendKey(b, name)
	b = append(b, '{')
	if len(pref) > 0 {
		b = append(b, `"preferredDuringSchedulingIgnoredDuringExecution":[`...)
		for i := range pref {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"podAffinityTerm":`...)
			b = appendAffTerm(b, &pref[i].term, t)
			b = append(b, `,"weight":`...)
			b = strconv.AppendInt(b, int64(pref[i].weight), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(req) > 0 {
		if len(pref) > 0 {
			b = append(b, ',')
		}
		b = append(b, `"requiredDuringSchedulingIgnoredDuringExecution":[`...)
		for i := range req {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAffTerm(b, &req[i], t)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendPodAffinity writes the podAffinity and podAntiAffinity members of
// spec.affinity, after a comma when comma is set.
func (g *gen) appendPodAffinity(b []byte, t *podTemplate, comma bool) []byte {
	if len(t.affReq)+len(t.affPref) > 0 {
		if comma {
			b = append(b, ',')
		}
		b = appendAffBlock(b, "podAffinity", t.affReq, t.affPref, t)
		comma = true
	}
	if len(t.antiReq)+len(t.antiPref) > 0 {
		if comma {
			b = append(b, ',')
		}
		b = appendAffBlock(b, "podAntiAffinity", t.antiReq, t.antiPref, t)
	}
	return b
}

// ---------------------------------------------------------------------------
// Generator state.

type relState struct {
	run  []runDeploy // running deployments with pods
	pend []depRef    // pending deployments

	runShort  int  // running deployments that could not place every replica
	noRunAxes bool // too many: later running deployments are unconstrained

	perNode map[int32]int32 // this deployment's pods per node
	perZone []int32         // and per zone
	order   []int           // scratch: zones by count

	services int
}

// runDeploy is a running deployment: its template (for scale-ups and
// rollouts) and how many of its pods run.
type runDeploy struct {
	tpl    podTemplate
	next   int // next pod index of its ReplicaSet
	placed int
	hasRS  bool
}

type depRef struct {
	ns  *namespace
	app string
}

// placeRules are what a running deployment's own constraints ask of the
// placement of its pods.
type placeRules struct {
	hostMax  int32 // most pods per node; 0: any
	zoneAnti bool  // one pod per zone
	zoneSkew int32 // DoNotSchedule zone spread: most pods above the emptiest zone; 0: none
	zoneZero bool  // minDomains exceeds the zones: the global minimum is 0
	zoneSoft bool  // ScheduleAnyway zone spread: the emptiest zone first
}

func (r *placeRules) any() bool { return r.hostMax > 0 || r.zoneAnti || r.zoneSkew > 0 || r.zoneSoft }

func (r *placeRules) zonal() bool { return r.zoneAnti || r.zoneSkew > 0 }

// rulesOf reads the rules off t's constraints that select t's own pods.
func (g *gen) rulesOf(t *podTemplate) placeRules {
	var r placeRules
	host := func(n int32) {
		if r.hostMax == 0 || n < r.hostMax {
			r.hostMax = n
		}
	}
	for i := range t.spread {
		c := &t.spread[i]
		if !c.sel.matches(t.labels) {
			continue
		}
		switch {
		case c.key == keyHost && c.when == doNotSchedule:
			host(c.maxSkew)
		case c.key == keyZone && c.when == doNotSchedule:
			if r.zoneSkew == 0 || c.maxSkew < r.zoneSkew {
				r.zoneSkew = c.maxSkew
			}
			if int(c.minDomains) > g.zonesWithNodes() {
				r.zoneZero = true
			}
		case c.key == keyZone:
			r.zoneSoft = true
		}
	}
	for i := range t.antiReq {
		a := &t.antiReq[i]
		// A mismatch key the pod carries excludes its own pods.
		if !a.sel.matches(t.labels) || len(a.mismatchLabelKeys) > 0 || len(a.namespaces) > 0 && !slices.Contains(a.namespaces, t.ns.name) {
			continue
		}
		switch a.key {
		case keyHost:
			host(1)
		case keyZone:
			r.zoneAnti = true
		}
	}
	return r
}

func (g *gen) zonesWithNodes() int {
	n := 0
	for _, zn := range g.zoneNodes {
		if len(zn) > 0 {
			n++
		}
	}
	return n
}

// applyRunAxes draws the running-axis features for t and returns the rules
// its pods are placed by; it resets the per-deployment counts.
func (g *gen) applyRunAxes(t *podTemplate) placeRules {
	rs := &g.rel
	clear(rs.perNode)
	if rs.perNode == nil {
		rs.perNode = map[int32]int32{}
	}
	rs.perZone = slices.Grow(rs.perZone[:0], len(g.zones))[:len(g.zones)]
	clear(rs.perZone)
	if rs.noRunAxes {
		return placeRules{}
	}
	if rs.runShort > 1000 {
		rs.noRunAxes = true
		return placeRules{}
	}
	for _, axis := range g.prof.runAxes {
		if f := pickFeature(g.r, axis); f.apply != nil {
			f.apply(g, t)
		}
	}
	return g.rulesOf(t)
}

func (rs *relState) usePod(g *gen, ni int) {
	rs.perNode[int32(ni)]++
	if nd := &g.nodes[ni]; !nd.noZone {
		rs.perZone[nd.zone]++
	}
}

// placeRel finds a node for the next pod of the deployment under r: the
// emptiest zones first when a zone rule applies, nodes with fewer than
// hostMax of its pods. -1 when none is left.
func (g *gen) placeRel(r *placeRules, home uint8, cpu, mem, gpus int64) int {
	rs := &g.rel
	ok := func(ni int) bool {
		return g.fits(ni, cpu, mem, gpus) && (r.hostMax == 0 || rs.perNode[int32(ni)] < r.hostMax)
	}
	if r.zonal() || r.zoneSoft {
		nz := len(g.zones)
		rs.order = rs.order[:0]
		off := g.r.IntN(max(nz, 1))
		minCount := int32(-1)
		for k := 0; k < nz; k++ {
			z := (k + off) % nz
			if len(g.zoneNodes[z]) == 0 {
				continue
			}
			rs.order = append(rs.order, z)
			if minCount < 0 || rs.perZone[z] < minCount {
				minCount = rs.perZone[z]
			}
		}
		if r.zoneZero {
			minCount = 0
		}
		slices.SortStableFunc(rs.order, func(a, b int) int { return int(rs.perZone[a] - rs.perZone[b]) })
		for _, z := range rs.order {
			if r.zoneAnti && rs.perZone[z] > 0 || r.zoneSkew > 0 && rs.perZone[z]+1-minCount > r.zoneSkew {
				continue
			}
			if ni := g.pickIn(g.zoneNodes[z], ok); ni >= 0 {
				return ni
			}
		}
		if r.zonal() {
			return -1
		}
	}
	for try := 0; try < 16; try++ {
		if pn := g.poolNodes[home]; len(pn) > 0 {
			if ni := int(pn[g.r.IntN(len(pn))]); ok(ni) {
				return ni
			}
		}
	}
	for try := 0; try < 16; try++ {
		if ni := g.r.IntN(len(g.nodes)); ok(ni) {
			return ni
		}
	}
	start := g.r.IntN(len(g.nodes))
	for k := range g.nodes {
		if ni := (start + k) % len(g.nodes); ok(ni) {
			return ni
		}
	}
	return -1
}

// pickIn tries random nodes of list, then scans it.
func (g *gen) pickIn(list []int32, ok func(int) bool) int {
	for try := 0; try < 16; try++ {
		if ni := int(list[g.r.IntN(len(list))]); ok(ni) {
			return ni
		}
	}
	start := g.r.IntN(len(list))
	for k := range list {
		if ni := int(list[(start+k)%len(list)]); ok(ni) {
			return ni
		}
	}
	return -1
}

// runningDone records a running deployment whose pods took the first named
// replica indexes and writes its workload objects.
func (g *gen) runningDone(t *podTemplate, reps, placed, named int) {
	if placed == 0 {
		return
	}
	hasRS := g.writeWorkloads(t, reps, placed)
	g.rel.run = append(g.rel.run, runDeploy{tpl: t.clone(), next: named, placed: placed, hasRS: hasRS})
}

// pendingDone records a pending deployment and writes its workload
// objects.
func (g *gen) pendingDone(t *podTemplate, reps int) {
	g.writeWorkloads(t, reps, 0)
	g.rel.pend = append(g.rel.pend, depRef{t.ns, t.deploy})
}

// writeScaleUp writes more pending pods of a running deployment: of its
// ReplicaSet (names continue its pods'), or, half the time, of a new
// ReplicaSet with another pod-template-hash (a rollout in progress). It
// returns the number of pods written.
func (g *gen) writeScaleUp(left int) int {
	d := &g.rel.run[g.r.IntN(len(g.rel.run))]
	t := &g.tpl
	*t = d.tpl.clone()
	reps := min(g.replicas(), left)
	g.clock += 1 + int64(g.r.IntN(300))
	t.created = g.clock
	rollout := g.chance(0.5)
	if rollout {
		t.hash = g.randSafe(10)
		t.rsName = t.deploy + "-" + t.hash
		t.rsUID = string(g.appendUID(nil))
		t.nameOff = t.created
		t.first = 0
		t.setLabel(hashKey, t.hash)
	} else {
		t.first = d.next
		d.next += reps
	}
	t.replicas = reps
	g.renderTemplate(t, false)
	for i := t.first; i < t.first+reps; i++ {
		g.writePod(t, i, nil)
	}
	if rollout && d.hasRS {
		g.writeReplicaSet(t, reps, 0)
	}
	return reps
}

// ---------------------------------------------------------------------------
// ReplicaSets and Services.

// writeWorkloads gives a deployment without constraints, some of the time,
// a ReplicaSet object and a Service. It reports whether it wrote a
// ReplicaSet.
func (g *gen) writeWorkloads(t *podTemplate, desired, running int) bool {
	if g.prof.rsShare == 0 && g.prof.svcShare == 0 || t.constrained() {
		return false
	}
	rs := g.chance(g.prof.rsShare)
	if rs {
		g.writeReplicaSet(t, desired, running)
	}
	if g.chance(g.prof.svcShare) {
		g.writeService(t)
	}
	return rs
}

func (g *gen) writeReplicaSet(t *podTemplate, desired, running int) {
	g.beginItem()
	b := append(g.buf, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":`...)
	b = appendStr(b, t.rsName)
	b = append(b, `,"namespace":`...)
	b = appendStr(b, t.ns.name)
	b = append(b, `,"uid":`...)
	b = appendStr(b, t.rsUID)
	b = append(b, `,"creationTimestamp":"`...)
	b = appendTime(b, t.created)
	b = append(b, `","labels":`...)
	b = appendKVs(b, t.labels[:2])
	b = append(b, `,"annotations":{"deployment.kubernetes.io/desired-replicas":"`...)
	b = strconv.AppendInt(b, int64(desired), 10)
	b = append(b, `","deployment.kubernetes.io/max-replicas":"`...)
	b = strconv.AppendInt(b, int64(desired+max(desired/4, 1)), 10)
	b = append(b, `","deployment.kubernetes.io/revision":"1"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":`...)
	b = appendStr(b, t.deploy)
	b = append(b, `,"uid":"`...)
	b = g.appendUID(b)
	b = append(b, `","controller":true,"blockOwnerDeletion":true}]},"spec":{"replicas":`...)
	b = strconv.AppendInt(b, int64(desired), 10)
	b = append(b, `,"selector":{"matchLabels":`...)
	b = appendKVs(b, t.labels[:2]) // app, pod-template-hash
	b = append(b, `},"template":{"metadata":{"labels":`...)
	b = appendKVs(b, t.labels)
	b = append(b, `},"spec":{"containers":[{"image":`...)
	b = appendStr(b, t.main().image)
	b = append(b, `,"name":"app"}]}}},"status":{"availableReplicas":`...)
	b = strconv.AppendInt(b, int64(running), 10)
	b = append(b, `,"fullyLabeledReplicas":`...)
	b = strconv.AppendInt(b, int64(running), 10)
	b = append(b, `,"observedGeneration":1,"readyReplicas":`...)
	b = strconv.AppendInt(b, int64(running), 10)
	b = append(b, `,"replicas":`...)
	b = strconv.AppendInt(b, int64(running), 10)
	b = append(b, `}}`...)
	g.buf = b
	g.endItem()
}

func (g *gen) writeService(t *podTemplate) {
	g.rel.services++
	ip := uint32(g.rel.services) + 10
	g.beginItem()
	b := append(g.buf, `{"apiVersion":"v1","kind":"Service","metadata":{"name":`...)
	b = appendStr(b, t.deploy)
	b = append(b, `,"namespace":`...)
	b = appendStr(b, t.ns.name)
	b = append(b, `,"uid":"`...)
	b = g.appendUID(b)
	b = append(b, `","creationTimestamp":"`...)
	b = appendTime(b, t.created)
	b = append(b, `","labels":{"app":`...)
	b = appendStr(b, t.deploy)
	b = append(b, `}},"spec":{"clusterIP":"`...)
	b = appendServiceIP(b, ip)
	b = append(b, `","clusterIPs":["`...)
	b = appendServiceIP(b, ip)
	b = append(b, `"],"internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":8080}],"selector":{"app":`...)
	b = appendStr(b, t.deploy)
	b = append(b, `},"sessionAffinity":"None","type":"ClusterIP"},"status":{"loadBalancer":{}}}`...)
	g.buf = b
	g.endItem()
}

// appendServiceIP writes an address of the 172.20.0.0/16 service range.
func appendServiceIP(b []byte, n uint32) []byte {
	b = append(b, "172.20."...)
	b = strconv.AppendInt(b, int64(n>>8&255), 10)
	b = append(b, '.')
	return strconv.AppendInt(b, int64(n&255), 10)
}

// ---------------------------------------------------------------------------
// Topology spread features.

func selfSel(t *podTemplate) labelSelector { return labelSelector{labels: []kv{{"app", t.deploy}}} }

func (g *gen) skew() int32 { return pick(g.r, []weighted[int32]{{1, 60}, {2, 25}, {3, 15}}) }

// spreadOn adds a constraint over t's own pods, with matchLabelKeys
// [pod-template-hash] 40% of the time.
func (g *gen) spreadOn(t *podTemplate, key, when string, maxSkew int32) *spreadConstraint {
	c := spreadConstraint{maxSkew: maxSkew, key: key, when: when, sel: selfSel(t)}
	if g.chance(0.4) {
		c.matchLabelKeys = []string{hashKey}
	}
	t.spread = append(t.spread, c)
	return &t.spread[len(t.spread)-1]
}

var spreadRunFeatures = []feature{
	{"spread-none", 35, nil},
	{"spread-zone", 15, (*gen).spreadZone},
	{"spread-zone-soft", 8, (*gen).spreadZoneSoft},
	{"spread-host", 10, (*gen).spreadHost},
	{"spread-host-soft", 5, (*gen).spreadHostSoft},
	{"spread-zone-host", 17, (*gen).spreadZoneHost},
	{"spread-min-domains", 5, (*gen).spreadMinDomains},
	{"spread-taints-honor", 5, (*gen).spreadTaintsHonor},
}

var spreadFeatures = []feature{
	{"spread-none", 14, nil},
	{"spread-zone", 14, (*gen).spreadZone},
	{"spread-zone-soft", 8, (*gen).spreadZoneSoft},
	{"spread-host", 10, (*gen).spreadHost},
	{"spread-host-soft", 5, (*gen).spreadHostSoft},
	{"spread-zone-host", 18, (*gen).spreadZoneHost},
	{"spread-min-domains", 7, (*gen).spreadMinDomains},
	{"spread-host-min-domains", 4, (*gen).spreadHostMinDomains},
	{"spread-foreign-selector", 5, (*gen).spreadForeign},
	{"spread-affinity-policy", 6, (*gen).spreadAffinityPolicy},
	{"spread-taints-honor", 6, (*gen).spreadTaintsHonor},
}

var spreadNodeFeatures = []feature{
	{"sel-zone", 4, (*gen).selZone},
	{"sel-pool", 6, (*gen).selPool},
	{"sel-pool-tolerated", 3, (*gen).selPoolTolerated},
	{"sel-instance-type", 3, (*gen).selInstanceType},
	{"req-in", 8, (*gen).reqIn},
	{"req-notin", 6, (*gen).reqNotIn},
}

var spreadTaintFeatures = []feature{
	{"tol-dedicated-equal", 14, (*gen).tolDedicatedEqual},
	{"tol-dedicated-exists", 8, (*gen).tolDedicatedExists},
	{"tol-batch-noexecute", 8, (*gen).tolBatch},
	{"tol-arm", 6, (*gen).tolArm},
	{"tol-spot", 5, (*gen).tolSpot},
	{"tol-multi", 6, (*gen).tolMulti},
	{"tol-node-conditions", 2, (*gen).tolNodeConditions},
}

func (g *gen) spreadZone(t *podTemplate) { g.spreadOn(t, keyZone, doNotSchedule, g.skew()) }

func (g *gen) spreadZoneSoft(t *podTemplate) { g.spreadOn(t, keyZone, scheduleAnyway, g.skew()) }

func (g *gen) spreadHost(t *podTemplate) { g.spreadOn(t, keyHost, doNotSchedule, g.skew()) }

func (g *gen) spreadHostSoft(t *podTemplate) { g.spreadOn(t, keyHost, scheduleAnyway, g.skew()) }

// spreadZoneHost is the common production pair: zones strictly, nodes
// strictly or softly.
func (g *gen) spreadZoneHost(t *podTemplate) {
	g.spreadOn(t, keyZone, doNotSchedule, 1)
	when := scheduleAnyway
	if g.chance(0.4) {
		when = doNotSchedule
	}
	g.spreadOn(t, keyHost, when, 1+int32(g.r.IntN(2)))
}

// spreadMinDomains asks for from two fewer to two more zones than there
// are: above that, the global minimum is 0 and each zone takes at most
// maxSkew pods.
func (g *gen) spreadMinDomains(t *podTemplate) {
	c := g.spreadOn(t, keyZone, doNotSchedule, 1+int32(g.r.IntN(2)))
	c.minDomains = int32(max(len(g.zones)-2+g.r.IntN(5), 1))
}

func (g *gen) spreadHostMinDomains(t *podTemplate) {
	c := g.spreadOn(t, keyHost, doNotSchedule, 1)
	c.minDomains = pick(g.r, []weighted[int32]{{3, 40}, {10, 40}, {50, 20}})
}

// spreadForeign spreads relative to pods the selector picks that are not
// the pod's own: another deployment's, a team's, or none at all.
func (g *gen) spreadForeign(t *podTemplate) {
	key := keyZone
	if g.chance(0.4) {
		key = keyHost
	}
	when := doNotSchedule
	if g.chance(0.4) {
		when = scheduleAnyway
	}
	c := spreadConstraint{maxSkew: g.skew(), key: key, when: when}
	switch x := g.r.IntN(3); {
	case x == 0 && len(g.rel.run) > 0:
		c.sel = labelSelector{labels: []kv{{"app", g.rel.run[g.r.IntN(len(g.rel.run))].tpl.deploy}}}
	case x <= 1:
		team := dedicatedTeams[g.r.IntN(len(dedicatedTeams))]
		if team == t.ns.team {
			team = "web"
		}
		c.sel = labelSelector{exprs: []selReq{expr("team", "In", team)}}
	default:
		c.sel = labelSelector{labels: []kv{{"app", t.deploy + "-canary"}}}
	}
	t.spread = append(t.spread, c)
}

// spreadAffinityPolicy pairs a zone constraint with required node affinity
// to some zones, under nodeAffinityPolicy Ignore (the other zones count, as
// empty domains) or an explicit Honor.
func (g *gen) spreadAffinityPolicy(t *podTemplate) {
	c := g.spreadOn(t, keyZone, doNotSchedule, 1+int32(g.r.IntN(2)))
	c.affinityPolicy = "Ignore"
	if g.chance(0.3) {
		c.affinityPolicy = "Honor"
	}
	t.require(selTerm{exprs: []selReq{expr(keyZone, "In", g.randZones(2+g.r.IntN(2))...)}})
}

// spreadTaintsHonor: nodes whose taints the pod does not tolerate are not
// domains (explicit Ignore a fifth of the time).
func (g *gen) spreadTaintsHonor(t *podTemplate) {
	key := keyHost
	if g.chance(0.5) {
		key = keyZone
	}
	c := g.spreadOn(t, key, doNotSchedule, g.skew())
	c.taintsPolicy = "Honor"
	if g.chance(0.2) {
		c.taintsPolicy = "Ignore"
	}
}

// ---------------------------------------------------------------------------
// Pod (anti-)affinity features.

var antiRunFeatures = []feature{
	{"run-none", 40, nil},
	{"anti-host-self", 25, (*gen).antiHostSelfRun},
	{"anti-zone-self", 4, (*gen).antiZoneSelfRun},
	{"pref-anti-host-self", 15, (*gen).prefAntiHostSelf},
	{"latency-critical", 6, (*gen).latencyCritical},
}

var podAffinityFeatures = []feature{
	{"podaff-none", 14, nil},
	{"anti-host-self", 22, (*gen).antiHostSelf},
	{"anti-zone-self", 5, (*gen).antiZoneSelf},
	{"anti-host-self-type", 4, (*gen).antiHostSelfType},
	{"aff-zone-running", 8, (*gen).affZoneRunning},
	{"aff-host-running", 6, (*gen).affHostRunning},
	{"aff-self-zone", 5, (*gen).affSelfZone},
	{"aff-self-host", 2, (*gen).affSelfHost},
	{"aff-pending", 4, (*gen).affPending},
	{"aff-missing", 3, (*gen).affMissing},
	{"noisy", 4, (*gen).noisy},
	{"sandbox-tenant", 3, (*gen).sandboxTenant},
	{"aff-ns-list", 4, (*gen).affNsList},
	{"aff-ns-selector", 4, (*gen).affNsSelector},
}

var podPreferredFeatures = []feature{
	{"podpref-none", 40, nil},
	{"pref-anti-host-self", 25, (*gen).prefAntiHostSelf},
	{"pref-anti-zone-self", 10, (*gen).prefAntiZoneSelf},
	{"pref-aff-running", 15, (*gen).prefAffRunning},
	{"pref-mix", 10, (*gen).prefMix},
}

func (g *gen) selfTerm(t *podTemplate, key string) podAffTerm {
	a := podAffTerm{sel: selfSel(t), key: key}
	if g.chance(0.3) {
		a.matchLabelKeys = []string{hashKey}
	}
	return a
}

func (g *gen) antiHostSelfRun(t *podTemplate) {
	t.antiReq = append(t.antiReq, g.selfTerm(t, keyHost))
}

func (g *gen) antiZoneSelfRun(t *podTemplate) {
	t.antiReq = append(t.antiReq, g.selfTerm(t, keyZone))
	t.replicas = min(t.replicas, len(g.zones))
}

// antiHostSelf: one replica per node. Mostly the deployment has at most a
// third as many replicas as there are nodes; now and then it has more than
// its nodes can take.
func (g *gen) antiHostSelf(t *podTemplate) {
	t.antiReq = append(t.antiReq, g.selfTerm(t, keyHost))
	if g.chance(0.85) {
		t.replicas = min(t.replicas, max(len(g.nodes)/3, 1))
	}
}

// antiHostSelfType: one replica per node of one instance type in one
// zone, with from half to one and a half times as many replicas as there
// are such nodes.
func (g *gen) antiHostSelfType(t *podTemplate) {
	t.antiReq = append(t.antiReq, g.selfTerm(t, keyHost))
	if len(g.nodes) == 0 {
		return
	}
	nd := &g.nodes[g.r.IntN(len(g.nodes))]
	n := 0
	for i := range g.nodes {
		if o := &g.nodes[i]; o.typ == nd.typ && o.zone == nd.zone && o.noZone == nd.noZone {
			n++
		}
	}
	t.nodeSelector = append(t.nodeSelector, kv{"node.kubernetes.io/instance-type", nd.it().name})
	if !nd.noZone {
		t.nodeSelector = append(t.nodeSelector, kv{keyZone, g.zones[nd.zone].v})
	}
	t.replicas = max(n/2, 1) + g.r.IntN(n+1)
	if pl := &pools[nd.pool]; len(pl.taints) > 0 && g.chance(0.7) {
		for _, tn := range pl.taints {
			t.tolerate(toleration{key: tn.key, op: "Equal", value: tn.value, effect: tn.effect})
		}
	}
}

// antiZoneSelf: one replica per zone, sometimes more replicas than zones.
func (g *gen) antiZoneSelf(t *podTemplate) {
	t.antiReq = append(t.antiReq, g.selfTerm(t, keyZone))
	t.replicas = min(t.replicas, 1+g.r.IntN(len(g.zones)+2))
}

func (g *gen) prefAntiHostSelf(t *podTemplate) {
	t.antiPref = append(t.antiPref, weightedAffTerm{100, g.selfTerm(t, keyHost)})
}

func (g *gen) prefAntiZoneSelf(t *podTemplate) {
	t.antiPref = append(t.antiPref, weightedAffTerm{int32(1 + g.r.IntN(100)), g.selfTerm(t, keyZone)})
}

// latencyCritical pods keep noisy pods of any namespace off their nodes.
func (g *gen) latencyCritical(t *podTemplate) {
	t.labels = append(t.labels, kv{"workload-class", "latency-critical"})
	t.antiReq = append(t.antiReq, podAffTerm{
		sel:   labelSelector{exprs: []selReq{expr("workload-class", "In", "noisy", "batch-heavy")}},
		nsSel: &labelSelector{},
		key:   keyHost,
	})
}

// noisy pods stay off the nodes of latency-critical pods in prod
// namespaces (and those pods repel them from the other side too).
func (g *gen) noisy(t *podTemplate) {
	t.labels = append(t.labels, kv{"workload-class", "noisy"})
	t.antiReq = append(t.antiReq, podAffTerm{
		sel:   labelSelector{labels: []kv{{"workload-class", "latency-critical"}}},
		nsSel: &labelSelector{exprs: []selReq{expr("env", "In", "prod")}},
		key:   keyHost,
	})
}

// sandboxTenant is the mismatchLabelKeys example of KEP-3633: sandboxes of
// different tenants never share a node.
func (g *gen) sandboxTenant(t *podTemplate) {
	t.labels = append(t.labels, kv{"app.kubernetes.io/name", "sandbox"}, kv{"tenant", "t" + strconv.Itoa(1+g.r.IntN(4))})
	t.antiReq = append(t.antiReq, podAffTerm{
		sel:               labelSelector{labels: []kv{{"app.kubernetes.io/name", "sandbox"}}},
		mismatchLabelKeys: []string{"tenant"},
		nsSel:             &labelSelector{},
		key:               keyHost,
	})
	t.replicas = min(t.replicas, 8)
}

// target picks a running deployment with pods (or, without any, an earlier
// pending one).
func (g *gen) target() (depRef, bool) {
	if len(g.rel.run) > 0 {
		d := &g.rel.run[g.r.IntN(len(g.rel.run))]
		return depRef{d.tpl.ns, d.tpl.deploy}, true
	}
	if len(g.rel.pend) > 0 {
		return g.rel.pend[g.r.IntN(len(g.rel.pend))], true
	}
	return depRef{}, false
}

// termTo selects the target's pods from t's namespace: a namespaces list
// when the target lives elsewhere.
func termTo(t *podTemplate, d depRef, key string) podAffTerm {
	a := podAffTerm{sel: labelSelector{labels: []kv{{"app", d.app}}}, key: key}
	if d.ns != t.ns {
		a.namespaces = []string{d.ns.name}
	}
	return a
}

func (g *gen) affToTarget(t *podTemplate, key string) {
	d, ok := g.target()
	if !ok {
		g.affMissing(t)
		return
	}
	t.affReq = append(t.affReq, termTo(t, d, key))
}

func (g *gen) affZoneRunning(t *podTemplate) { g.affToTarget(t, keyZone) }

// affHostRunning: on the nodes of another deployment (a cache, say), half
// the time one replica per such node.
func (g *gen) affHostRunning(t *podTemplate) {
	g.affToTarget(t, keyHost)
	if g.chance(0.5) {
		t.antiReq = append(t.antiReq, g.selfTerm(t, keyHost))
	}
}

// affSelfZone: every replica in the zone of the first; no pod matches yet,
// so the first one may go anywhere.
func (g *gen) affSelfZone(t *podTemplate) {
	t.affReq = append(t.affReq, podAffTerm{sel: selfSel(t), key: keyZone})
	t.replicas = min(t.replicas, 2+g.r.IntN(11))
}

func (g *gen) affSelfHost(t *podTemplate) {
	t.affReq = append(t.affReq, podAffTerm{sel: selfSel(t), key: keyHost})
	t.replicas = min(t.replicas, 1+g.r.IntN(4))
}

// affPending: with an earlier pending deployment, whose pods are placed
// first.
func (g *gen) affPending(t *podTemplate) {
	if len(g.rel.pend) == 0 {
		g.affZoneRunning(t)
		return
	}
	d := g.rel.pend[g.r.IntN(len(g.rel.pend))]
	key := keyZone
	if g.chance(0.3) {
		key = keyHost
	}
	t.affReq = append(t.affReq, termTo(t, d, key))
}

// affMissing: with pods nobody runs; unschedulable.
func (g *gen) affMissing(t *podTemplate) {
	t.affReq = append(t.affReq, podAffTerm{sel: labelSelector{labels: []kv{{"app", "legacy-db"}}}, key: keyZone})
	t.replicas = min(t.replicas, 10)
}

// affNsList names the target's namespace and its own in a list.
func (g *gen) affNsList(t *podTemplate) {
	d, ok := g.target()
	if !ok {
		g.affMissing(t)
		return
	}
	a := termTo(t, d, keyZone)
	a.namespaces = []string{d.ns.name}
	if d.ns != t.ns {
		a.namespaces = append(a.namespaces, t.ns.name)
	}
	t.affReq = append(t.affReq, a)
}

// affNsSelector selects the target's namespace by its team label (or its
// name label).
func (g *gen) affNsSelector(t *podTemplate) {
	d, ok := g.target()
	if !ok {
		g.affMissing(t)
		return
	}
	key := keyZone
	if g.chance(0.3) {
		key = keyHost
	}
	a := podAffTerm{sel: labelSelector{labels: []kv{{"app", d.app}}}, key: key}
	switch {
	case d.ns.team != "" && g.chance(0.7):
		a.nsSel = &labelSelector{labels: []kv{{"team", d.ns.team}}}
	case g.chance(0.5):
		a.nsSel = &labelSelector{exprs: []selReq{expr("kubernetes.io/metadata.name", "In", d.ns.name, t.ns.name)}}
	default:
		a.nsSel = &labelSelector{}
	}
	t.affReq = append(t.affReq, a)
}

func (g *gen) prefAffRunning(t *podTemplate) {
	d, ok := g.target()
	if !ok {
		return
	}
	key := keyZone
	if g.chance(0.4) {
		key = keyHost
	}
	t.affPref = append(t.affPref, weightedAffTerm{int32(1 + g.r.IntN(100)), termTo(t, d, key)})
}

// prefMix: two or three preferred terms of both kinds.
func (g *gen) prefMix(t *podTemplate) {
	g.prefAntiHostSelf(t)
	t.antiPref[len(t.antiPref)-1].weight = int32(1 + g.r.IntN(100))
	g.prefAffRunning(t)
	if g.chance(0.5) {
		a := podAffTerm{sel: labelSelector{exprs: []selReq{expr("workload-class", "Exists")}}, nsSel: &labelSelector{}, key: keyHost}
		t.antiPref = append(t.antiPref, weightedAffTerm{int32(1 + g.r.IntN(50)), a})
	}
}

// ---------------------------------------------------------------------------
// spread-bench.

// benchReplicas: a few hundred deployments, at most half as many replicas
// as nodes (hostname maxSkew 1 then never blocks).
func (g *gen) benchReplicas() int {
	mean := max(float64(g.cfg.Pods)/300, 8)
	x := int(mean * g.lognormal(0.9))
	return min(max(x, 1), max(len(g.nodes)/2, 1))
}

// sizeLight gives the app container small requests: the cluster stays
// lightly loaded.
func (g *gen) sizeLight(t *podTemplate) {
	m := t.main()
	cpu := pick(g.r, []weighted[int64]{{100, 30}, {250, 35}, {500, 25}, {1000, 10}})
	mem := pick(g.r, []weighted[int64]{{128 * mi, 25}, {256 * mi, 30}, {512 * mi, 30}, {1 * gi, 10}, {2 * gi, 5}})
	m.req = setRes(setRes(m.req[:0], res{name: "cpu", v: cpu}), res{name: "memory", v: mem})
	m.lim = append(m.lim[:0], res{name: "memory", v: 2 * mem})
}

func (g *gen) spreadBench(t *podTemplate) {
	hostSkew := int32(1)
	if g.chance(0.2) {
		hostSkew = 2
	}
	t.spread = append(t.spread,
		spreadConstraint{maxSkew: 1, key: keyZone, when: doNotSchedule, sel: selfSel(t)},
		spreadConstraint{maxSkew: hostSkew, key: keyHost, when: doNotSchedule, sel: selfSel(t)},
	)
}
