package ingest

import (
	"strings"

	"github.com/kplace/kplace/index"
)

// Effective pod requests, computed the way
// k8s.io/component-helpers/resource.PodRequests does (sidecar and init
// container rules, pod-level resources, overhead, in-place resize status),
// on exact amounts; only the final totals are rounded, as the scheduler's
// Value()/MilliValue() round its exact sums.

// rent is one resource amount; rl a small resource list (at most one entry
// per name). Linear search beats a map at the sizes pods have.
type rent struct {
	name string
	v    amount
}

type rl []rent

func (l rl) get(name string) (amount, bool) {
	for i := range l {
		if l[i].name == name {
			return l[i].v, true
		}
	}
	return amount{}, false
}

func (l rl) clone() rl {
	if l == nil {
		return nil
	}
	return append(rl(nil), l...)
}

// set replaces or appends name.
func (l rl) set(name string, v amount) rl {
	for i := range l {
		if l[i].name == name {
			l[i].v = v
			return l
		}
	}
	return append(l, rent{name, v})
}

// calc accumulates, remembering the first overflowing resource.
type calc struct {
	overflow string
}

// add adds src into dst (addResourceList).
func (c *calc) add(dst rl, src rl) rl {
	for _, e := range src {
		found := false
		for i := range dst {
			if dst[i].name == e.name {
				v, ok := dst[i].v.add(e.v)
				if !ok && c.overflow == "" {
					c.overflow = e.name
				}
				dst[i].v = v
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, e)
		}
	}
	return dst
}

// maxInto raises dst to src for every resource in src (maxResourceList).
func maxInto(dst rl, src rl) rl {
	for _, e := range src {
		found := false
		for i := range dst {
			if dst[i].name == e.name {
				if dst[i].v.less(e.v) {
					dst[i].v = e.v
				}
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, e)
		}
	}
	return dst
}

// maxOf is component-helpers' max(a, b...): a copy of a raised to each of b.
func maxOf(a rl, b ...rl) rl {
	r := a.clone()
	if r == nil {
		r = rl{}
	}
	for _, o := range b {
		r = maxInto(r, o)
	}
	return r
}

// containerRes is one container's resources after API defaulting.
type containerRes struct {
	name    string
	sidecar bool // init container with restartPolicy Always
	req     rl   // requests, defaulted from limits
	lim     rl
}

// statusRes is a container status's resources (in-place resize).
type statusRes struct {
	name      string
	actuated  rl // status.containerStatuses[].resources.requests
	allocated rl // status.containerStatuses[].allocatedResources
	has       bool
}

// podRes holds what PodRequests reads.
type podRes struct {
	containers []containerRes
	inits      []containerRes
	overhead   rl
	// spec.resources (pod-level), after API defaulting.
	podReq, podLim rl
	// status, used for bound pods (UseStatusResources).
	useStatus        bool
	statuses         []statusRes // containerStatuses then initContainerStatuses
	podStatusSet     bool        // status.resources present
	podActuated      rl          // status.resources.requests
	podAllocated     rl          // status.allocatedResources
	resizeInfeasible bool        // condition PodResizePending, reason Infeasible
}

func isHugePages(name string) bool { return strings.HasPrefix(name, "hugepages-") }

// podLevelSupported is IsSupportedPodLevelResource.
func podLevelSupported(name string) bool {
	return name == index.NameCPU || name == index.NameMemory || isHugePages(name)
}

// podLevelRequestsSet is IsPodLevelRequestsSet.
func (p *podRes) podLevelRequestsSet() bool {
	for _, e := range p.podReq {
		if podLevelSupported(e.name) {
			return true
		}
	}
	return false
}

func (p *podRes) status(name string) *statusRes {
	// Later entries (init container statuses) win, as in the helper's map.
	for i := len(p.statuses) - 1; i >= 0; i-- {
		if p.statuses[i].name == name {
			return &p.statuses[i]
		}
	}
	return nil
}

func (p *podRes) effective(spec, actuated, allocated rl) rl {
	if p.resizeInfeasible {
		return maxOf(actuated, allocated)
	}
	return maxOf(spec, actuated, allocated)
}

// applyNonMissing adds each nonMissing resource the list lacks.
func applyNonMissing(reqs rl, nonMissing rl) rl {
	out := reqs.clone()
	for _, e := range nonMissing {
		if _, ok := reqs.get(e.name); !ok {
			out = append(out, e)
		}
	}
	return out
}

// aggregate is AggregateContainerRequests (limits=false) or
// AggregateContainerLimits (limits=true, no status, no nonMissing).
func (p *podRes) aggregate(c *calc, limits bool, nonMissing rl) rl {
	pick := func(cr *containerRes) rl {
		if limits {
			return cr.lim
		}
		return cr.req
	}
	reqs := rl{}
	for i := range p.containers {
		cr := &p.containers[i]
		r := pick(cr)
		if !limits && p.useStatus {
			if st := p.status(cr.name); st != nil && st.has {
				r = p.effective(r, st.actuated, st.allocated)
			}
		}
		if len(nonMissing) > 0 {
			r = applyNonMissing(r, nonMissing)
		}
		reqs = c.add(reqs, r)
	}
	var restartable, initMax rl
	for i := range p.inits {
		cr := &p.inits[i]
		r := pick(cr)
		if !limits && p.useStatus && cr.sidecar {
			if st := p.status(cr.name); st != nil && st.has {
				r = p.effective(r, st.actuated, st.allocated)
			}
		}
		if len(nonMissing) > 0 {
			r = applyNonMissing(r, nonMissing)
		}
		if cr.sidecar {
			reqs = c.add(reqs, r)
			restartable = c.add(restartable, r)
			r = restartable
		} else {
			r = c.add(c.add(nil, r), restartable)
		}
		initMax = maxInto(initMax, r)
	}
	return maxInto(reqs, initMax)
}

// requests is PodRequests (overhead included).
func (p *podRes) requests(c *calc, nonMissing rl) rl {
	reqs := p.aggregate(c, false, nonMissing)
	if p.podLevelRequestsSet() {
		var eff rl
		if p.useStatus && p.podStatusSet {
			eff = p.effective(p.podReq, p.podActuated, p.podAllocated)
		}
		for _, e := range p.podReq {
			if !podLevelSupported(e.name) {
				continue
			}
			v := e.v
			if eff != nil {
				v, _ = eff.get(e.name) // zero when absent, as the helper does
			}
			reqs = reqs.set(e.name, v)
		}
	}
	return c.add(reqs, p.overhead)
}

// defaultPodLevel applies the API server's pod-level resources defaulting
// (defaultHugePagePodLimits, then defaultPodRequests); set is whether
// spec.resources is present at all.
func (p *podRes) defaultPodLevel(c *calc, set bool) {
	if !set {
		return
	}
	if len(p.podLim) > 0 || len(p.podReq) > 0 {
		for _, e := range p.aggregate(c, true, nil) {
			if !isHugePages(e.name) {
				continue
			}
			if _, ok := p.podReq.get(e.name); ok {
				continue
			}
			if _, ok := p.podLim.get(e.name); !ok {
				p.podLim = append(p.podLim, e)
			}
		}
	}
	if len(p.podLim) == 0 {
		return
	}
	reqs := p.podReq.clone()
	for _, e := range p.aggregate(c, false, nil) {
		// Supported and overcommittable: cpu and memory.
		if e.name != index.NameCPU && e.name != index.NameMemory {
			continue
		}
		if _, ok := reqs.get(e.name); !ok {
			reqs = append(reqs, e)
		}
	}
	for _, e := range p.podLim {
		if !podLevelSupported(e.name) {
			continue
		}
		if _, ok := reqs.get(e.name); !ok {
			reqs = append(reqs, e)
		}
	}
	if len(reqs) > 0 {
		p.podReq = reqs
	}
}

// Scheduler defaults for containers without a cpu or memory request.
var (
	defaultCPU    = amount{milli: 100}               // 100m
	defaultMemory = amount{whole: 200 * 1024 * 1024} // 200Mi
	nonMissingAll = rl{{index.NameCPU, defaultCPU}, {index.NameMemory, defaultMemory}}
)

// podTotals is what the engine needs from a pod's resources.
type podTotals struct {
	requests               index.ResourceList
	scoreCPU, scoreMemory  int64
	nonZeroCPU, nonZeroMem int64
}

// totals computes the effective requests, the scoring requests
// (calculatePodResourceRequest: 100m/200Mi for each container missing a cpu
// or memory request) and the node-accounting non-zero requests
// (PodInfo.CalculateResource).
func (p *podRes) totals(keep func(string) bool) (podTotals, string) {
	if t, ok := p.simpleTotals(keep); ok {
		return t, ""
	}
	var c calc
	reqs := p.requests(&c, nil)
	var t podTotals
	t.requests = toResourceList(reqs, keep, true, &c)

	score := p.requests(&c, nonMissingAll)
	t.scoreCPU, t.scoreMemory = cpuMem(score, &c)

	nonMissing := nonMissingAll
	if p.podLevelRequestsSet() {
		nonMissing = nil
		if _, ok := reqs.get(index.NameCPU); !ok {
			nonMissing = append(nonMissing, rent{index.NameCPU, defaultCPU})
		}
		if _, ok := reqs.get(index.NameMemory); !ok {
			nonMissing = append(nonMissing, rent{index.NameMemory, defaultMemory})
		}
	}
	nz := reqs
	if len(nonMissing) > 0 {
		nz = p.requests(&c, nonMissing)
	}
	t.nonZeroCPU, t.nonZeroMem = cpuMem(nz, &c)
	return t, c.overflow
}

func cpuMem(l rl, c *calc) (cpu, mem int64) {
	if v, ok := l.get(index.NameCPU); ok {
		var fits bool
		if cpu, fits = v.millis(); !fits && c.overflow == "" {
			c.overflow = index.NameCPU
		}
	}
	if v, ok := l.get(index.NameMemory); ok {
		var fits bool
		if mem, fits = v.units(); !fits && c.overflow == "" {
			c.overflow = index.NameMemory
		}
	}
	return cpu, mem
}

// toResourceList converts exact amounts to engine units (millicores for
// cpu, whole units rounded up otherwise), keeping the names keep accepts,
// dropping zeros when dropZero, in canonical order.
func toResourceList(l rl, keep func(string) bool, dropZero bool, c *calc) index.ResourceList {
	if len(l) == 0 {
		return nil
	}
	out := make(index.ResourceList, 0, len(l))
	for _, e := range l {
		if !keep(e.name) || (dropZero && e.v.isZero()) {
			continue
		}
		var v int64
		var ok bool
		if e.name == index.NameCPU {
			v, ok = e.v.millis()
		} else {
			v, ok = e.v.units()
		}
		if !ok {
			if c.overflow == "" {
				c.overflow = e.name
			}
			continue
		}
		out = append(out, index.Quantity{Name: e.name, Value: v})
	}
	if len(out) == 0 {
		return nil
	}
	sortResources(out)
	return out
}

func resourceRank(name string) int {
	switch name {
	case index.NameCPU:
		return index.ResCPU
	case index.NameMemory:
		return index.ResMemory
	case index.NameEphemeralStorage:
		return index.ResEphemeralStorage
	case index.NamePods:
		return index.ResPods
	}
	return index.ResExtended
}

// sortResources orders cpu, memory, ephemeral-storage, pods, then the rest
// by name (insertion sort: lists are short, and this allocates nothing).
func sortResources(l index.ResourceList) {
	less := func(a, b *index.Quantity) bool {
		ra, rb := resourceRank(a.Name), resourceRank(b.Name)
		if ra != rb {
			return ra < rb
		}
		return a.Name < b.Name
	}
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && less(&l[j], &l[j-1]); j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}

// simpleTotals handles the common pod without init containers, pod-level
// resources or status resources, allocating only the result; ok is false
// when the general computation is needed (or a sum overflows).
func (p *podRes) simpleTotals(keep func(string) bool) (t podTotals, ok bool) {
	if len(p.inits) > 0 || len(p.podReq) > 0 || (p.useStatus && len(p.statuses) > 0) {
		return t, false
	}
	var buf [8]rent
	var c calc
	sum := rl(buf[:0])
	var cpuScore, memScore amount
	ok = true
	// score adds l's cpu and memory to the scoring sums; with defaults, a
	// missing one counts 100m / 200Mi (NonMissingContainerRequests).
	score := func(l rl, defaults bool) {
		hasCPU, hasMem := false, false
		for _, e := range l {
			var fits bool
			switch e.name {
			case index.NameCPU:
				hasCPU = true
				cpuScore, fits = cpuScore.add(e.v)
			case index.NameMemory:
				hasMem = true
				memScore, fits = memScore.add(e.v)
			default:
				continue
			}
			ok = ok && fits
		}
		if defaults && !hasCPU {
			var fits bool
			cpuScore, fits = cpuScore.add(defaultCPU)
			ok = ok && fits
		}
		if defaults && !hasMem {
			var fits bool
			memScore, fits = memScore.add(defaultMemory)
			ok = ok && fits
		}
	}
	for i := range p.containers {
		sum = c.add(sum, p.containers[i].req)
		score(p.containers[i].req, true)
	}
	sum = c.add(sum, p.overhead)
	score(p.overhead, false)
	if !ok || c.overflow != "" {
		return t, false
	}
	t.requests = toResourceList(sum, keep, true, &c)
	var fits1, fits2 bool
	t.scoreCPU, fits1 = cpuScore.millis()
	t.scoreMemory, fits2 = memScore.units()
	if c.overflow != "" || !fits1 || !fits2 {
		return t, false
	}
	t.nonZeroCPU, t.nonZeroMem = t.scoreCPU, t.scoreMemory
	return t, true
}
