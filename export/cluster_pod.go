package export

import (
	"fmt"

	"github.com/kplace/kplace/index"
)

// The scheduler's defaults for a container without a cpu or memory
// request (NonMissingContainerRequests): 100m and 200Mi.
const (
	defaultCPU    = 100
	defaultMemory = 200 << 20
)

type containerJSON struct {
	Name          string `json:"name"`
	Image         string `json:"image"`
	RestartPolicy string `json:"restartPolicy,omitempty"`
	Resources     struct {
		Requests map[string]string `json:"requests,omitempty"`
	} `json:"resources"`
	Ports []portJSON `json:"ports,omitempty"`
}

type portJSON struct {
	ContainerPort int32  `json:"containerPort"`
	HostPort      int32  `json:"hostPort"`
	HostIP        string `json:"hostIP,omitempty"`
	Protocol      string `json:"protocol,omitempty"`
}

type tolerationJSON struct {
	Key               string `json:"key,omitempty"`
	Operator          string `json:"operator,omitempty"`
	Value             string `json:"value,omitempty"`
	Effect            string `json:"effect,omitempty"`
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

type termJSON struct {
	MatchExpressions []requirementJSON `json:"matchExpressions,omitempty"`
	MatchFields      []requirementJSON `json:"matchFields,omitempty"`
}

type podAffinityTermJSON struct {
	LabelSelector     *labelSelectorJSON `json:"labelSelector,omitempty"`
	Namespaces        []string           `json:"namespaces,omitempty"`
	NamespaceSelector *labelSelectorJSON `json:"namespaceSelector,omitempty"`
	TopologyKey       string             `json:"topologyKey"`
	MatchLabelKeys    []string           `json:"matchLabelKeys,omitempty"`
	MismatchLabelKeys []string           `json:"mismatchLabelKeys,omitempty"`
}

type weightedTermJSON struct {
	Weight int32               `json:"weight"`
	Term   podAffinityTermJSON `json:"podAffinityTerm"`
}

type podAffinityJSON struct {
	Required  []podAffinityTermJSON `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	Preferred []weightedTermJSON    `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

type nodeAffinityJSON struct {
	Required *struct {
		Terms []termJSON `json:"nodeSelectorTerms"`
	} `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	Preferred []preferredTermJSON `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

type preferredTermJSON struct {
	Weight     int32    `json:"weight"`
	Preference termJSON `json:"preference"`
}

type affinityJSON struct {
	NodeAffinity    *nodeAffinityJSON `json:"nodeAffinity,omitempty"`
	PodAffinity     *podAffinityJSON  `json:"podAffinity,omitempty"`
	PodAntiAffinity *podAffinityJSON  `json:"podAntiAffinity,omitempty"`
}

type spreadJSON struct {
	MaxSkew            int32              `json:"maxSkew"`
	TopologyKey        string             `json:"topologyKey"`
	WhenUnsatisfiable  string             `json:"whenUnsatisfiable"`
	LabelSelector      *labelSelectorJSON `json:"labelSelector,omitempty"`
	MinDomains         *int32             `json:"minDomains,omitempty"`
	MatchLabelKeys     []string           `json:"matchLabelKeys,omitempty"`
	NodeAffinityPolicy string             `json:"nodeAffinityPolicy,omitempty"`
	NodeTaintsPolicy   string             `json:"nodeTaintsPolicy,omitempty"`
}

type volumeJSON struct {
	Name  string           `json:"name"`
	PVC   *named           `json:"persistentVolumeClaim,omitempty"`
	Image *imageVolumeJSON `json:"image,omitempty"`
}

type imageVolumeJSON struct {
	Reference string `json:"reference"`
}

type named struct {
	Name string `json:"name"`
}

type podSpecJSON struct {
	NodeName                  string            `json:"nodeName,omitempty"`
	SchedulerName             string            `json:"schedulerName,omitempty"`
	Priority                  *int32            `json:"priority,omitempty"`
	PriorityClassName         string            `json:"priorityClassName,omitempty"`
	PreemptionPolicy          string            `json:"preemptionPolicy,omitempty"`
	NodeSelector              map[string]string `json:"nodeSelector,omitempty"`
	Affinity                  *affinityJSON     `json:"affinity,omitempty"`
	Tolerations               []tolerationJSON  `json:"tolerations,omitempty"`
	TopologySpreadConstraints []spreadJSON      `json:"topologySpreadConstraints,omitempty"`
	SchedulingGates           []named           `json:"schedulingGates,omitempty"`
	InitContainers            []containerJSON   `json:"initContainers,omitempty"`
	Containers                []containerJSON   `json:"containers"`
	Resources                 *struct {
		Requests map[string]string `json:"requests"`
	} `json:"resources,omitempty"`
	Volumes        []volumeJSON `json:"volumes,omitempty"`
	ResourceClaims []struct {
		Name              string `json:"name"`
		ResourceClaimName string `json:"resourceClaimName"`
	} `json:"resourceClaims,omitempty"`
}

// podJSON writes a pod. Its containers are made up: the model keeps a
// pod's effective request and the scheduler's non-zero cpu and memory
// (ScoreCPU, ScoreMemory, NonZeroCPU, NonZeroMemory), not its containers,
// so the pod gets containers from which PodRequests computes those same
// numbers (see layout).
func podJSON(p *index.Pod) (object, error) {
	m := meta{Name: p.Name, Namespace: p.Namespace, UID: p.UID, CreationTimestamp: timestamp(p.CreationUnix), Labels: p.Labels}
	if p.Owner != nil {
		uid := p.Owner.UID
		if uid == "" {
			uid = p.Namespace + "/" + p.Owner.Kind + "/" + p.Owner.Name
		}
		m.OwnerReferences = []ownerRef{{APIVersion: p.Owner.APIVersion, Kind: p.Owner.Kind, Name: p.Owner.Name,
			UID: uid, Controller: true}}
	}
	prio := p.Priority
	s := podSpecJSON{NodeName: p.NodeName, SchedulerName: p.SchedulerName, Priority: &prio,
		PriorityClassName: p.PriorityClassName, PreemptionPolicy: p.PreemptionPolicy, NodeSelector: p.NodeSelector}
	if err := layout(p, &s); err != nil {
		return object{}, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	for _, t := range p.Tolerations {
		s.Tolerations = append(s.Tolerations, tolerationJSON{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect, TolerationSeconds: t.TolerationSeconds})
	}
	s.Affinity = affinityOf(p)
	for _, sc := range p.Spread {
		j := spreadJSON{MaxSkew: sc.MaxSkew, TopologyKey: sc.TopologyKey, WhenUnsatisfiable: sc.WhenUnsatisfiable,
			LabelSelector: selectorJSON(sc.Selector), MatchLabelKeys: sc.MatchLabelKeys,
			NodeAffinityPolicy: sc.NodeAffinityPolicy, NodeTaintsPolicy: sc.NodeTaintsPolicy}
		if sc.MinDomains != 1 {
			md := sc.MinDomains
			j.MinDomains = &md
		}
		s.TopologySpreadConstraints = append(s.TopologySpreadConstraints, j)
	}
	for _, g := range p.SchedulingGates {
		s.SchedulingGates = append(s.SchedulingGates, named{g})
	}
	switch p.Unsupported {
	case "volumes":
		s.Volumes = append(s.Volumes, volumeJSON{Name: "data", PVC: &named{p.Name + "-data"}})
	case "resource claims":
		s.ResourceClaims = append(s.ResourceClaims, struct {
			Name              string `json:"name"`
			ResourceClaimName string `json:"resourceClaimName"`
		}{"claim", p.Name + "-claim"})
	}
	phase := "Pending"
	if p.NodeName != "" {
		phase = "Running"
	}
	return object{APIVersion: "v1", Kind: "Pod", Metadata: m, Spec: s, Status: struct {
		Phase     string `json:"phase"`
		StartTime string `json:"startTime,omitempty"`
	}{phase, timestamp(p.StartUnix)}}, nil
}

func affinityOf(p *index.Pod) *affinityJSON {
	var a affinityJSON
	if p.HasRequired || len(p.PreferredTerms) > 0 {
		na := &nodeAffinityJSON{}
		if p.HasRequired {
			na.Required = &struct {
				Terms []termJSON `json:"nodeSelectorTerms"`
			}{Terms: []termJSON{}}
			for _, t := range p.RequiredTerms {
				na.Required.Terms = append(na.Required.Terms, termJSON{requirements(t.MatchExpressions), requirements(t.MatchFields)})
			}
		}
		for _, pt := range p.PreferredTerms {
			na.Preferred = append(na.Preferred, preferredTermJSON{pt.Weight, termJSON{requirements(pt.Term.MatchExpressions), requirements(pt.Term.MatchFields)}})
		}
		a.NodeAffinity = na
	}
	a.PodAffinity = podAffinityOf(p.Affinity, p.PreferredAffinity)
	a.PodAntiAffinity = podAffinityOf(p.AntiAffinity, p.PreferredAntiAffinity)
	if a.NodeAffinity == nil && a.PodAffinity == nil && a.PodAntiAffinity == nil {
		return nil
	}
	return &a
}

func podAffinityOf(req []index.PodAffinityTerm, pref []index.WeightedPodAffinityTerm) *podAffinityJSON {
	if len(req) == 0 && len(pref) == 0 {
		return nil
	}
	var out podAffinityJSON
	for i := range req {
		out.Required = append(out.Required, podAffinityTermOf(&req[i]))
	}
	for i := range pref {
		out.Preferred = append(out.Preferred, weightedTermJSON{pref[i].Weight, podAffinityTermOf(&pref[i].Term)})
	}
	return &out
}

func podAffinityTermOf(t *index.PodAffinityTerm) podAffinityTermJSON {
	return podAffinityTermJSON{LabelSelector: selectorJSON(t.Selector), Namespaces: t.Namespaces,
		NamespaceSelector: selectorJSON(t.NamespaceSelector), TopologyKey: t.TopologyKey,
		MatchLabelKeys: t.MatchLabelKeys, MismatchLabelKeys: t.MismatchLabelKeys}
}

// plan is how one of cpu and memory is spread over made-up containers so
// that PodRequests gives request r and, with the scheduler's default d
// for a container missing it, non-zero request s:
//   - the first app container requests app (always set, even 0);
//   - missing app containers lack it (each counts d in s only);
//   - an init container requests initReq when it is not 0.
//
// Requests are max(sum of app containers, each init container), so:
// s == r: app r; s-r a multiple of d: app r and (s-r)/d missing ones;
// else, with k = ceil((s-r)/d) missing ones, app s-k*d and an init
// container of r. Real containers give s >= r, and s > r only when some
// container lacks the request, so s >= k*d there and app is never
// negative.
type plan struct {
	app, missing, initReq int64
}

func planFor(r, s, d int64) (plan, bool) {
	switch {
	case s == r:
		return plan{app: r}, true
	case s < r:
		return plan{}, false
	case (s-r)%d == 0:
		return plan{app: r, missing: (s - r) / d}, true
	}
	k := (s - r + d - 1) / d
	if a := s - k*d; a >= 0 && a <= r {
		return plan{app: a, missing: k, initReq: r}, true
	}
	return plan{}, false
}

// pauseImage is the image of a made-up container when the pod's images
// are not known (a bound pod's: ImageLocality never scores it).
const pauseImage = "registry.k8s.io/pause"

// setImages gives the containers of s the pod's images, in
// ImageLocality's order (init containers, then containers, then image
// volumes): it adds containers requesting nothing up to the pod's count,
// and writes the images beyond it as image volumes. A pod whose requests
// took more containers than it had keeps them, the extra ones with the
// pause image: its ImageLocality score then divides by more containers.
func setImages(p *index.Pod, s *podSpecJSON) {
	if len(p.Images) == 0 {
		return
	}
	zero := map[string]string{index.NameCPU: quantity(index.NameCPU, 0), index.NameMemory: quantity(index.NameMemory, 0)}
	for i := len(s.InitContainers) + len(s.Containers); i < int(p.ImageContainers); i++ {
		c := containerJSON{Name: fmt.Sprintf("image-%d", i)}
		c.Resources.Requests = zero
		s.Containers = append(s.Containers, c)
	}
	k := 0
	for _, list := range [][]containerJSON{s.InitContainers, s.Containers} {
		for i := range list {
			if k < int(p.ImageContainers) {
				list[i].Image = p.Images[k]
				k++
			}
		}
	}
	for i := k; i < len(p.Images); i++ {
		s.Volumes = append(s.Volumes, volumeJSON{Name: fmt.Sprintf("image-%d", i), Image: &imageVolumeJSON{Reference: p.Images[i]}})
	}
}

// layout makes p's containers (and, when its non-zero requests say it had
// them, pod-level requests) and host ports.
func layout(p *index.Pod, s *podSpecJSON) error {
	rCPU, _ := p.Requests.Get(index.NameCPU)
	rMem, _ := p.Requests.Get(index.NameMemory)
	cpu, ok1 := planFor(rCPU, p.ScoreCPU, defaultCPU)
	mem, ok2 := planFor(rMem, p.ScoreMemory, defaultMemory)
	if !ok1 || !ok2 {
		return fmt.Errorf("requests (cpu %dm, memory %d) and non-zero requests (cpu %dm, memory %d) no containers give",
			rCPU, rMem, p.ScoreCPU, p.ScoreMemory)
	}
	// The app container lacks a request the plan sets to 0 when a missing
	// one is wanted anyway (it then counts as that one), and a missing
	// container lacks both when both are missing: fewer containers, so
	// that there are no more than the pod had (images).
	app := containerJSON{Name: "app", Image: pauseImage}
	app.Resources.Requests = map[string]string{}
	if cpu.app == 0 && cpu.missing > 0 {
		cpu.missing--
	} else {
		app.Resources.Requests[index.NameCPU] = quantity(index.NameCPU, cpu.app)
	}
	if mem.app == 0 && mem.missing > 0 {
		mem.missing--
	} else {
		app.Resources.Requests[index.NameMemory] = quantity(index.NameMemory, mem.app)
	}
	for _, q := range p.Requests {
		if q.Name != index.NameCPU && q.Name != index.NameMemory {
			app.Resources.Requests[q.Name] = quantity(q.Name, q.Value)
		}
	}
	for _, hp := range p.HostPorts {
		app.Ports = append(app.Ports, portJSON{ContainerPort: hp.Port, HostPort: hp.Port, HostIP: hp.HostIP, Protocol: hp.Protocol})
	}
	s.Containers = []containerJSON{app}
	add := func(list *[]containerJSON, name string, req map[string]string) {
		c := containerJSON{Name: name, Image: pauseImage}
		c.Resources.Requests = req
		*list = append(*list, c)
	}
	zeroCPU, zeroMem := quantity(index.NameCPU, 0), quantity(index.NameMemory, 0)
	for i := range max(cpu.missing, mem.missing) {
		req := map[string]string{}
		if i >= cpu.missing {
			req[index.NameCPU] = zeroCPU
		}
		if i >= mem.missing {
			req[index.NameMemory] = zeroMem
		}
		add(&s.Containers, fmt.Sprintf("missing-%d", i), req)
	}
	if cpu.initReq > 0 {
		add(&s.InitContainers, "init-cpu", map[string]string{index.NameCPU: quantity(index.NameCPU, cpu.initReq), index.NameMemory: zeroMem})
	}
	if mem.initReq > 0 {
		add(&s.InitContainers, "init-memory", map[string]string{index.NameCPU: zeroCPU, index.NameMemory: quantity(index.NameMemory, mem.initReq)})
	}
	setImages(p, s)
	// Pod-level requests make the non-zero requests differ from the
	// scoring ones: a resource requested at the pod level has its request
	// as both; another present in some container gets no default.
	cpuDiff, memDiff := p.NonZeroCPU != p.ScoreCPU, p.NonZeroMemory != p.ScoreMemory
	if !cpuDiff && !memDiff {
		return nil
	}
	if cpuDiff && p.NonZeroCPU != rCPU || memDiff && p.NonZeroMemory != rMem {
		return fmt.Errorf("non-zero requests (cpu %dm, memory %d) no containers give", p.NonZeroCPU, p.NonZeroMemory)
	}
	level := map[string]string{}
	switch {
	case cpuDiff && !memDiff && rMem == p.ScoreMemory:
		level[index.NameMemory] = quantity(index.NameMemory, rMem)
	case memDiff && !cpuDiff && rCPU == p.ScoreCPU:
		level[index.NameCPU] = quantity(index.NameCPU, rCPU)
	default:
		level["hugepages-2Mi"] = "0" // pod-level requests set, of no resource the pod uses
	}
	s.Resources = &struct {
		Requests map[string]string `json:"requests"`
	}{level}
	return nil
}
