package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
)

// ---------------------------------------------------------------------------
// A small decoder for the generated List.

type tList struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

type tSelReq struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values"`
}

type tTerm struct {
	MatchExpressions []tSelReq `json:"matchExpressions"`
	MatchFields      []tSelReq `json:"matchFields"`
}

type tContainer struct {
	Name      string `json:"name"`
	Resources struct {
		Requests map[string]string `json:"requests"`
		Limits   map[string]string `json:"limits"`
	} `json:"resources"`
	Ports []struct {
		ContainerPort int32  `json:"containerPort"`
		HostPort      int32  `json:"hostPort"`
		Protocol      string `json:"protocol"`
	} `json:"ports"`
	RestartPolicy string `json:"restartPolicy"`
}

type tLabelSelector struct {
	MatchLabels      map[string]string `json:"matchLabels"`
	MatchExpressions []tSelReq         `json:"matchExpressions"`
}

type tSpread struct {
	MaxSkew            int32           `json:"maxSkew"`
	TopologyKey        string          `json:"topologyKey"`
	WhenUnsatisfiable  string          `json:"whenUnsatisfiable"`
	LabelSelector      *tLabelSelector `json:"labelSelector"`
	MinDomains         *int32          `json:"minDomains"`
	MatchLabelKeys     []string        `json:"matchLabelKeys"`
	NodeAffinityPolicy *string         `json:"nodeAffinityPolicy"`
	NodeTaintsPolicy   *string         `json:"nodeTaintsPolicy"`
}

type tPodAffinityTerm struct {
	LabelSelector     *tLabelSelector `json:"labelSelector"`
	Namespaces        []string        `json:"namespaces"`
	NamespaceSelector *tLabelSelector `json:"namespaceSelector"`
	TopologyKey       string          `json:"topologyKey"`
	MatchLabelKeys    []string        `json:"matchLabelKeys"`
	MismatchLabelKeys []string        `json:"mismatchLabelKeys"`
}

type tPodAffinity struct {
	Required  []tPodAffinityTerm `json:"requiredDuringSchedulingIgnoredDuringExecution"`
	Preferred []struct {
		Weight int32            `json:"weight"`
		Term   tPodAffinityTerm `json:"podAffinityTerm"`
	} `json:"preferredDuringSchedulingIgnoredDuringExecution"`
}

type tToleration struct {
	Key               string `json:"key"`
	Operator          string `json:"operator"`
	Value             string `json:"value"`
	Effect            string `json:"effect"`
	TolerationSeconds *int64 `json:"tolerationSeconds"`
}

type tTaint struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Effect string `json:"effect"`
}

type tObj struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		UID               string            `json:"uid"`
		CreationTimestamp string            `json:"creationTimestamp"`
		Labels            map[string]string `json:"labels"`
		OwnerReferences   []struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Name       string `json:"name"`
			Controller bool   `json:"controller"`
		} `json:"ownerReferences"`
	} `json:"metadata"`
	Spec struct {
		// Node
		Unschedulable bool     `json:"unschedulable"`
		Taints        []tTaint `json:"taints"`
		// Pod
		NodeName     string            `json:"nodeName"`
		NodeSelector map[string]string `json:"nodeSelector"`
		Affinity     *struct {
			PodAffinity     *tPodAffinity `json:"podAffinity"`
			PodAntiAffinity *tPodAffinity `json:"podAntiAffinity"`
			NodeAffinity    *struct {
				Required *struct {
					NodeSelectorTerms []tTerm `json:"nodeSelectorTerms"`
				} `json:"requiredDuringSchedulingIgnoredDuringExecution"`
				Preferred []struct {
					Weight     int32 `json:"weight"`
					Preference tTerm `json:"preference"`
				} `json:"preferredDuringSchedulingIgnoredDuringExecution"`
			} `json:"nodeAffinity"`
		} `json:"affinity"`
		Tolerations       []tToleration     `json:"tolerations"`
		Containers        []tContainer      `json:"containers"`
		InitContainers    []tContainer      `json:"initContainers"`
		Overhead          map[string]string `json:"overhead"`
		PriorityClassName string            `json:"priorityClassName"`
		Priority          *int32            `json:"priority"`
		SchedulerName     string            `json:"schedulerName"`
		Spread            []tSpread         `json:"topologySpreadConstraints"`
		// ReplicaSet (a LabelSelector), Service (a map)
		Selector json.RawMessage `json:"selector"`
		Replicas *int32          `json:"replicas"`
	} `json:"spec"`
	Status struct {
		Phase       string            `json:"phase"`
		Allocatable map[string]string `json:"allocatable"`
		Capacity    map[string]string `json:"capacity"`
	} `json:"status"`
	// PriorityClass
	Value         int32 `json:"value"`
	GlobalDefault bool  `json:"globalDefault"`
}

func generate(t testing.TB, cfg GenConfig) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Generate(cfg, &buf); err != nil {
		t.Fatalf("Generate(%+v): %v", cfg, err)
	}
	return buf.Bytes()
}

func parse(t testing.TB, data []byte) []tObj {
	t.Helper()
	var l tList
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if l.APIVersion != "v1" || l.Kind != "List" {
		t.Fatalf("list header %q %q", l.APIVersion, l.Kind)
	}
	objs := make([]tObj, len(l.Items))
	for i, raw := range l.Items {
		if err := json.Unmarshal(raw, &objs[i]); err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
	}
	return objs
}

// ---------------------------------------------------------------------------
// Quantities, by the Kubernetes rules (enough for what the generator writes).

func parseQty(t testing.TB, name, s string) int64 {
	t.Helper()
	mult := map[string]float64{
		"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
		"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40,
	}
	num, suf := s, ""
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			num, suf = s[:i], s[i:]
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		t.Fatalf("quantity %s=%q: %v", name, s, err)
	}
	if suf != "" {
		m, ok := mult[suf]
		if !ok {
			t.Fatalf("quantity %s=%q: unknown suffix", name, s)
		}
		f *= m
	}
	if name == "cpu" {
		f *= 1000 // millicores
	}
	return int64(f + 0.5)
}

// podRequests is the scheduler's effective pod request per resource.
func podRequests(t testing.TB, p *tObj) map[string]int64 {
	one := func(c *tContainer, name string) int64 {
		if s, ok := c.Resources.Requests[name]; ok {
			return parseQty(t, name, s)
		}
		if s, ok := c.Resources.Limits[name]; ok {
			return parseQty(t, name, s)
		}
		return 0
	}
	names := map[string]bool{}
	for _, cs := range [][]tContainer{p.Spec.Containers, p.Spec.InitContainers} {
		for _, c := range cs {
			for n := range c.Resources.Requests {
				names[n] = true
			}
			for n := range c.Resources.Limits {
				names[n] = true
			}
		}
	}
	out := map[string]int64{}
	for n := range names {
		var sum, side, initMax int64
		for i := range p.Spec.InitContainers {
			c := &p.Spec.InitContainers[i]
			if c.RestartPolicy == "Always" {
				side += one(c, n)
			} else {
				initMax = max(initMax, side+one(c, n))
			}
		}
		for i := range p.Spec.Containers {
			sum += one(&p.Spec.Containers[i], n)
		}
		out[n] = max(sum+side, initMax)
	}
	for n, s := range p.Spec.Overhead {
		out[n] += parseQty(t, n, s)
	}
	return out
}

func tolerates(tl *tToleration, tn *tTaint) bool {
	if tl.Effect != "" && tl.Effect != tn.Effect {
		return false
	}
	if tl.Key != "" && tl.Key != tn.Key {
		return false
	}
	switch tl.Operator {
	case "Exists":
		return true
	case "Equal", "":
		return tl.Value == tn.Value
	}
	return false
}

// ---------------------------------------------------------------------------

func TestProfiles(t *testing.T) {
	got := strings.Join(Profiles(), ",")
	if got != "taints,affinity,resources,preemption,preemption-heavy,mixed,spread,anti-affinity,spread-bench,realistic" {
		t.Fatalf("Profiles() = %s", got)
	}
}

func TestDeterminism(t *testing.T) {
	for _, p := range Profiles() {
		cfg := GenConfig{Profile: p, Nodes: 120, Pods: 900, Running: -1, Seed: 42}
		a := generate(t, cfg)
		b := generate(t, cfg)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: same seed, different output", p)
		}
		cfg.Seed = 43
		c := generate(t, cfg)
		if bytes.Equal(a, c) {
			t.Errorf("%s: different seeds, same output", p)
		}
	}
}

func TestCountsAndShape(t *testing.T) {
	for _, p := range lightProfiles() {
		for _, running := range []int{-1, 0, 777} {
			cfg := GenConfig{Profile: p, Nodes: 150, Pods: 1500, Running: running, Seed: 7}
			objs := parse(t, generate(t, cfg))
			wantRunning := running
			if running == -1 {
				wantRunning = DefaultRunning(cfg.Nodes)
			}
			counts := map[string]int{}
			uids := map[string]bool{}
			podNames := map[string]bool{}
			nodeNames := map[string]bool{}
			var lastTS string
			order := []string{"PriorityClass", "Namespace", "Node", "Pod"}
			stage, running, pending, globalDefaults, noZone := 0, 0, 0, 0, 0
			for i := range objs {
				o := &objs[i]
				counts[o.Kind]++
				if o.Kind == "PodDisruptionBudget" {
					// Written with their running pods (see TestPDBs).
					if order[stage] != "Pod" || pending > 0 || o.APIVersion != "policy/v1" {
						t.Fatalf("%s: PodDisruptionBudget %s at item %d", p, o.Metadata.Name, i)
					}
					continue
				}
				if o.Kind == "ReplicaSet" || o.Kind == "Service" {
					// Written after their deployment's pods (see TestWorkloads).
					wantAPI := map[string]string{"ReplicaSet": "apps/v1", "Service": "v1"}[o.Kind]
					if order[stage] != "Pod" || o.APIVersion != wantAPI || o.Metadata.Namespace == "" {
						t.Fatalf("%s: %s %s at item %d", p, o.Kind, o.Metadata.Name, i)
					}
					continue
				}
				for stage < len(order) && order[stage] != o.Kind {
					stage++
				}
				if stage == len(order) {
					t.Fatalf("%s: item %d kind %s out of order", p, i, o.Kind)
				}
				wantAPI := "v1"
				if o.Kind == "PriorityClass" {
					wantAPI = "scheduling.k8s.io/v1"
				}
				if o.APIVersion != wantAPI {
					t.Errorf("%s: %s %s apiVersion %q", p, o.Kind, o.Metadata.Name, o.APIVersion)
				}
				if o.Metadata.UID == "" || uids[o.Metadata.UID] {
					t.Fatalf("%s: missing or duplicate uid %q", p, o.Metadata.UID)
				}
				uids[o.Metadata.UID] = true
				switch o.Kind {
				case "PriorityClass":
					if o.GlobalDefault {
						globalDefaults++
					}
				case "Node":
					nodeNames[o.Metadata.Name] = true
					for _, l := range []string{"kubernetes.io/hostname", "topology.kubernetes.io/zone",
						"topology.kubernetes.io/region", "node.kubernetes.io/instance-type", "kubernetes.io/os",
						"kubernetes.io/arch", "pool", "kplace.io/generation"} {
						if _, ok := o.Metadata.Labels[l]; !ok {
							if l == "topology.kubernetes.io/zone" && profileOf(p).noZoneShare > 0 {
								noZone++
								continue
							}
							t.Fatalf("%s: node %s lacks label %s", p, o.Metadata.Name, l)
						}
					}
					for _, r := range []string{"cpu", "memory", "pods", "ephemeral-storage"} {
						if o.Status.Allocatable[r] == "" || o.Status.Capacity[r] == "" {
							t.Fatalf("%s: node %s lacks %s", p, o.Metadata.Name, r)
						}
					}
				case "Pod":
					key := o.Metadata.Namespace + "/" + o.Metadata.Name
					if podNames[key] {
						t.Fatalf("%s: duplicate pod %s", p, key)
					}
					podNames[key] = true
					if len(o.Metadata.OwnerReferences) != 1 || o.Metadata.OwnerReferences[0].Kind != "ReplicaSet" ||
						o.Metadata.OwnerReferences[0].APIVersion != "apps/v1" || !o.Metadata.OwnerReferences[0].Controller ||
						!strings.HasPrefix(o.Metadata.Name, o.Metadata.OwnerReferences[0].Name+"-") {
						t.Fatalf("%s: pod %s bad ownerReferences", p, key)
					}
					if o.Metadata.Labels["app"] == "" || o.Metadata.Labels["pod-template-hash"] == "" {
						t.Fatalf("%s: pod %s lacks app/pod-template-hash", p, key)
					}
					if o.Metadata.CreationTimestamp < lastTS {
						t.Fatalf("%s: creationTimestamp goes back at %s", p, key)
					}
					lastTS = o.Metadata.CreationTimestamp
					if o.Spec.NodeName != "" {
						if pending > 0 {
							t.Fatalf("%s: running pod %s after pending ones", p, key)
						}
						if !nodeNames[o.Spec.NodeName] {
							t.Fatalf("%s: pod %s on unknown node %s", p, key, o.Spec.NodeName)
						}
						if o.Status.Phase != "Running" {
							t.Fatalf("%s: bound pod %s phase %s", p, key, o.Status.Phase)
						}
						running++
					} else {
						if o.Status.Phase != "Pending" {
							t.Fatalf("%s: pending pod %s phase %s", p, key, o.Status.Phase)
						}
						pending++
					}
				}
			}
			if cfg.Running == -1 && profileFills(p) {
				wantRunning = running // fills by requests, not by count (see TestPDBs)
			}
			if noZone*10 > cfg.Nodes {
				t.Errorf("%s: %d of %d nodes lack a zone label", p, noZone, cfg.Nodes)
			}
			delete(counts, "PodDisruptionBudget")
			delete(counts, "ReplicaSet")
			delete(counts, "Service")
			if counts["Node"] != cfg.Nodes || running != wantRunning || pending != cfg.Pods ||
				counts["Namespace"] == 0 || counts["PriorityClass"] == 0 || len(counts) != 4 {
				t.Errorf("%s running=%d: counts %v, running %d, pending %d", p, cfg.Running, counts, running, pending)
			}
			if globalDefaults != 1 {
				t.Errorf("%s: %d globalDefault priority classes", p, globalDefaults)
			}
		}
	}
}

// TestRunningFit checks the snapshot is consistent: running pods fit their
// node's allocatable and tolerate its NoSchedule/NoExecute taints.
func TestRunningFit(t *testing.T) {
	for _, p := range lightProfiles() {
		// Many running pods per node, so that nodes do fill up.
		cfg := GenConfig{Profile: p, Nodes: 60, Pods: 10, Running: 3000, Seed: 3}
		objs := parse(t, generate(t, cfg))
		alloc := map[string]map[string]int64{}
		taints := map[string][]tTaint{}
		used := map[string]map[string]int64{}
		full := 0
		for i := range objs {
			o := &objs[i]
			switch {
			case o.Kind == "Node":
				a := map[string]int64{}
				for n, s := range o.Status.Allocatable {
					a[n] = parseQty(t, n, s)
				}
				alloc[o.Metadata.Name] = a
				used[o.Metadata.Name] = map[string]int64{}
				taints[o.Metadata.Name] = o.Spec.Taints
			case o.Kind == "Pod" && o.Spec.NodeName != "":
				u := used[o.Spec.NodeName]
				for n, v := range podRequests(t, o) {
					u[n] += v
				}
				u["pods"]++
				for k := range taints[o.Spec.NodeName] {
					tn := &taints[o.Spec.NodeName][k]
					if tn.Effect == "PreferNoSchedule" {
						continue
					}
					ok := false
					for j := range o.Spec.Tolerations {
						ok = ok || tolerates(&o.Spec.Tolerations[j], tn)
					}
					if !ok {
						t.Fatalf("%s: pod %s does not tolerate %+v of %s", p, o.Metadata.Name, *tn, o.Spec.NodeName)
					}
				}
			}
		}
		for node, u := range used {
			for n, v := range u {
				if v > alloc[node][n] {
					t.Errorf("%s: node %s: %s used %d > allocatable %d", p, node, n, v, alloc[node][n])
				}
			}
			if 10*u["cpu"] > 9*alloc[node]["cpu"] {
				full++
			}
		}
		if full == 0 {
			t.Errorf("%s: no node is over 90%% cpu with %d running pods; test is not exercising placement", p, cfg.Running)
		}
	}
}

type featureStats struct {
	pods, tainted, nodes                                          int
	tolExistsKey, tolExistsAll, tolEqual, tolNoOp, tolEmptyEffect int
	tolSeconds, tolNone, gpuPods                                  int
	ops                                                           map[string]int
	orTerms, matchFields, preferred, nodeSelector                 int
	hostPort, tooBig, extended, limitsOnly, bestEffort, initC     int
	sidecarInit, overhead                                         int
	reqCPU, reqMem                                                int64
	freeCPU, freeMem                                              int64
}

func stats(t *testing.T, cfg GenConfig) featureStats {
	objs := parse(t, generate(t, cfg))
	s := featureStats{ops: map[string]int{}}
	var maxCPU, maxMem int64
	type nodeInfo struct {
		cpu, mem    int64
		schedulable bool
	}
	nodes := map[string]*nodeInfo{}
	for i := range objs {
		o := &objs[i]
		switch o.Kind {
		case "Node":
			s.nodes++
			ni := &nodeInfo{
				cpu:         parseQty(t, "cpu", o.Status.Allocatable["cpu"]),
				mem:         parseQty(t, "memory", o.Status.Allocatable["memory"]),
				schedulable: !o.Spec.Unschedulable,
			}
			for _, tn := range o.Spec.Taints {
				if tn.Effect != "PreferNoSchedule" {
					s.tainted++
					break
				}
			}
			for _, tn := range o.Spec.Taints {
				if strings.HasPrefix(tn.Key, "node.kubernetes.io/") {
					ni.schedulable = false
				}
			}
			maxCPU, maxMem = max(maxCPU, ni.cpu), max(maxMem, ni.mem)
			nodes[o.Metadata.Name] = ni
		case "Pod":
			req := podRequests(t, o)
			if o.Spec.NodeName != "" {
				ni := nodes[o.Spec.NodeName]
				ni.cpu -= req["cpu"]
				ni.mem -= req["memory"]
				continue
			}
			s.pods++
			if req["cpu"] > maxCPU || req["memory"] > maxMem {
				s.tooBig++
			} else {
				s.reqCPU += req["cpu"]
				s.reqMem += req["memory"]
			}
			if req["nvidia.com/gpu"] > 0 {
				s.gpuPods++
			}
			for n := range req {
				if strings.Contains(n, "/") {
					s.extended++
					break
				}
			}
			if len(o.Spec.Tolerations) == 0 {
				s.tolNone++
			}
			for _, tl := range o.Spec.Tolerations {
				switch {
				case tl.Operator == "Exists" && tl.Key == "":
					s.tolExistsAll++
				case tl.Operator == "Exists":
					s.tolExistsKey++
				case tl.Operator == "Equal" && tl.Value != "":
					s.tolEqual++
				case tl.Operator == "":
					s.tolNoOp++
				}
				if tl.Effect == "" {
					s.tolEmptyEffect++
				}
				if tl.TolerationSeconds != nil && !strings.HasPrefix(tl.Key, "node.kubernetes.io/") {
					s.tolSeconds++
				}
			}
			if len(o.Spec.NodeSelector) > 0 {
				s.nodeSelector++
			}
			if a := o.Spec.Affinity; a != nil && a.NodeAffinity != nil {
				if r := a.NodeAffinity.Required; r != nil {
					if len(r.NodeSelectorTerms) > 1 {
						s.orTerms++
					}
					for _, term := range r.NodeSelectorTerms {
						for _, e := range term.MatchExpressions {
							s.ops[e.Operator]++
						}
						if len(term.MatchFields) > 0 {
							s.matchFields++
							if term.MatchFields[0].Key != "metadata.name" || term.MatchFields[0].Operator != "In" {
								t.Errorf("bad matchFields %+v", term.MatchFields[0])
							}
						}
					}
				}
				for _, pt := range a.NodeAffinity.Preferred {
					if pt.Weight < 1 || pt.Weight > 100 {
						t.Errorf("preferred weight %d", pt.Weight)
					}
					s.preferred++
				}
			}
			hasReq, hasAny := false, false
			for _, c := range o.Spec.Containers {
				if len(c.Resources.Requests) > 0 {
					hasReq = true
				}
				if len(c.Resources.Requests)+len(c.Resources.Limits) > 0 {
					hasAny = true
				}
				for _, pt := range c.Ports {
					if pt.HostPort != 0 {
						if pt.Protocol != "TCP" || (pt.HostPort != 8080 && pt.HostPort != 9090) {
							t.Errorf("hostPort %+v", pt)
						}
						s.hostPort++
					}
				}
			}
			if !hasAny && len(o.Spec.InitContainers) == 0 {
				s.bestEffort++
			} else if !hasReq {
				s.limitsOnly++
			}
			for _, c := range o.Spec.InitContainers {
				if c.RestartPolicy == "Always" {
					s.sidecarInit++
				} else {
					s.initC++
				}
			}
			if len(o.Spec.Overhead) > 0 {
				s.overhead++
			}
		}
	}
	for _, ni := range nodes {
		if ni.schedulable {
			s.freeCPU += ni.cpu
			s.freeMem += ni.mem
		}
	}
	return s
}

func TestProfileFeatures(t *testing.T) {
	base := GenConfig{Nodes: 400, Pods: 4000, Running: -1, Seed: 11}
	positive := func(t *testing.T, what string, v int) {
		t.Helper()
		if v <= 0 {
			t.Errorf("no %s", what)
		}
	}
	t.Run("taints", func(t *testing.T) {
		cfg := base
		cfg.Profile = "taints"
		s := stats(t, cfg)
		if 2*s.tainted < s.nodes {
			t.Errorf("only %d of %d nodes tainted", s.tainted, s.nodes)
		}
		positive(t, "Exists toleration with key", s.tolExistsKey)
		positive(t, "Exists toleration with empty key", s.tolExistsAll)
		positive(t, "Equal toleration with value", s.tolEqual)
		positive(t, "toleration without operator", s.tolNoOp)
		positive(t, "toleration with empty effect", s.tolEmptyEffect)
		positive(t, "tolerationSeconds on NoExecute", s.tolSeconds)
		positive(t, "pod without tolerations", s.tolNone)
		positive(t, "GPU pod", s.gpuPods)
		if s.tolExistsAll*20 > s.pods {
			t.Errorf("tolerate-everything is not rare: %d of %d", s.tolExistsAll, s.pods)
		}
	})
	t.Run("affinity", func(t *testing.T) {
		cfg := base
		cfg.Profile = "affinity"
		s := stats(t, cfg)
		for _, op := range []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"} {
			positive(t, "operator "+op, s.ops[op])
		}
		positive(t, "ORed terms", s.orTerms)
		positive(t, "matchFields", s.matchFields)
		positive(t, "preferred terms", s.preferred)
		positive(t, "nodeSelector", s.nodeSelector)
	})
	t.Run("resources", func(t *testing.T) {
		cfg := base
		cfg.Profile = "resources"
		s := stats(t, cfg)
		positive(t, "hostPort", s.hostPort)
		positive(t, "pod larger than any node", s.tooBig)
		positive(t, "extended resource", s.extended)
		positive(t, "limits-only pod", s.limitsOnly)
		positive(t, "BestEffort pod", s.bestEffort)
		positive(t, "init container", s.initC)
		positive(t, "native sidecar", s.sidecarInit)
		positive(t, "overhead", s.overhead)
		rc := float64(s.reqCPU) / float64(s.freeCPU)
		rm := float64(s.reqMem) / float64(s.freeMem)
		t.Logf("pending/free: cpu %.3f memory %.3f", rc, rm)
		if rc < 0.95 || rc > 1.35 || rm < 0.95 || rm > 1.35 {
			t.Errorf("pending/free cpu %.3f memory %.3f, want about 1.1", rc, rm)
		}
	})
	t.Run("mixed", func(t *testing.T) {
		cfg := base
		cfg.Profile = "mixed"
		s := stats(t, cfg)
		positive(t, "Exists toleration", s.tolExistsKey)
		positive(t, "Gt", s.ops["Gt"])
		positive(t, "hostPort", s.hostPort)
		positive(t, "GPU pod", s.gpuPods)
		positive(t, "tainted node", s.tainted)
	})
}

func TestErrors(t *testing.T) {
	for _, cfg := range []GenConfig{
		{Profile: "nope", Nodes: 1},
		{Profile: "mixed", Nodes: -1},
		{Profile: "mixed", Nodes: 1, Pods: -1},
		{Profile: "mixed", Nodes: 1, Running: -2},
		{Profile: "mixed", Nodes: 0, Running: 5},
		{Profile: "mixed", Nodes: 2, Running: 100000}, // more than the pod slots
	} {
		if err := Generate(cfg, io.Discard); err == nil {
			t.Errorf("Generate(%+v): no error", cfg)
		}
	}
	if err := Generate(GenConfig{Nodes: 100, Pods: 10000, Running: -1}, failWriter{}); err == nil {
		t.Error("write error not reported")
	}
	// Empty cluster and empty profile name are fine.
	objs := parse(t, generate(t, GenConfig{Nodes: 0, Pods: 20, Running: -1}))
	if len(objs) == 0 {
		t.Fatal("no items")
	}
}

func TestAppendStr(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uo\te`, "tab\tnl\ncr\r", "\x00\x1f\x7f", "héllo", "a<b>&c"} {
		want, _ := json.Marshal(s)
		got := appendStr(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != s {
			t.Errorf("appendStr(%q) = %s (json.Marshal: %s): %v", s, got, want, err)
		}
	}
}

func TestAppendQty(t *testing.T) {
	for _, c := range []struct {
		r    res
		want string
	}{
		{res{name: "cpu", v: 7910}, "7910m"},
		{res{name: "cpu", v: 2000}, "2"},
		{res{name: "cpu", v: 0}, "0"},
		{res{name: "memory", v: 128 * mi}, "128Mi"},
		{res{name: "memory", v: 1536 * mi}, "1536Mi"},
		{res{name: "memory", v: 4 * gi}, "4Gi"},
		{res{name: "memory", v: 1024 * gi}, "1Ti"},
		{res{name: "memory", v: 32506700 * ki}, "32506700Ki"},
		{res{name: "memory", v: 500_000_000, si: true}, "500M"},
		{res{name: "memory", v: 1_000_000_000, si: true}, "1G"},
		{res{name: "ephemeral-storage", v: 95551679123}, "95551679123"},
		{res{name: "nvidia.com/gpu", v: 8}, "8"},
		{res{name: "pods", v: 110}, "110"},
	} {
		if got := string(appendQty(nil, c.r)); got != `"`+c.want+`"` {
			t.Errorf("appendQty(%+v) = %s, want %q", c.r, got, c.want)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	cfg := GenConfig{Profile: "mixed", Nodes: 10000, Pods: 100000, Running: -1, Seed: 1}
	cw := &countWriter{}
	if err := Generate(cfg, cw); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(cw.n)
	b.ReportAllocs()
	for b.Loop() {
		if err := Generate(cfg, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func profileFills(name string) bool { return profileOf(name).fill > 0 }

// lightProfiles are the profiles but realistic (which realistic_test.go
// checks): items in generation order, pods owned by ReplicaSets.
func lightProfiles() []string {
	var out []string
	for _, p := range profiles {
		out = append(out, p.name)
	}
	return out
}

func profileOf(name string) *profile {
	for i := range profiles {
		if profiles[i].name == name {
			return &profiles[i]
		}
	}
	return &profile{}
}

// TestPDBs checks the preemption profiles: running pods request most of the
// schedulable cpu, and every PodDisruptionBudget selects running pods of
// one deployment with a status the disruption controller would give it.
func TestPDBs(t *testing.T) {
	for _, p := range []string{"preemption", "preemption-heavy"} {
		var list struct{ Items []map[string]any }
		if err := json.Unmarshal(generate(t, GenConfig{Profile: p, Nodes: 80, Pods: 300, Running: -1, Seed: 5}), &list); err != nil {
			t.Fatal(err)
		}
		get := func(m map[string]any, path ...string) any {
			var v any = m
			for _, k := range path {
				v = v.(map[string]any)[k]
			}
			return v
		}
		apps := map[string]int{} // running pods per namespace/app
		var allocCPU, usedCPU float64
		pdbs := 0
		for _, o := range list.Items {
			switch o["kind"] {
			case "Node":
				if spec := get(o, "spec").(map[string]any); spec["unschedulable"] == nil && spec["taints"] == nil {
					allocCPU += float64(parseQty(t, "cpu", get(o, "status", "allocatable", "cpu").(string)))
				}
			case "Pod":
				if get(o, "spec", "nodeName") == nil {
					continue
				}
				apps[get(o, "metadata", "namespace").(string)+"/"+get(o, "metadata", "labels", "app").(string)]++
				for _, c := range get(o, "spec", "containers").([]any) {
					if r, ok := c.(map[string]any)["resources"].(map[string]any)["requests"].(map[string]any); ok && r["cpu"] != nil {
						usedCPU += float64(parseQty(t, "cpu", r["cpu"].(string)))
					}
				}
			case "PodDisruptionBudget":
				pdbs++
				app := get(o, "spec", "selector", "matchLabels", "app").(string)
				healthy := int(get(o, "status", "currentHealthy").(float64))
				desired := int(get(o, "status", "desiredHealthy").(float64))
				allowed := int(get(o, "status", "disruptionsAllowed").(float64))
				if n := apps[get(o, "metadata", "namespace").(string)+"/"+app]; n != healthy || n == 0 {
					t.Errorf("%s: PDB %s: %d running pods, currentHealthy %d", p, app, n, healthy)
				}
				if allowed != max(0, healthy-desired) {
					t.Errorf("%s: PDB %s: allowed %d, healthy %d, desired %d", p, app, allowed, healthy, desired)
				}
			}
		}
		if pdbs == 0 {
			t.Errorf("%s: no PodDisruptionBudget", p)
		}
		if usedCPU < 0.85*allocCPU {
			t.Errorf("%s: running pods request %.0f of %.0f schedulable millicores; want most", p, usedCPU, allocCPU)
		}
	}
}

// TestOutputPinned pins the bytes of small outputs of the first profiles:
// adding a profile or a feature must not shift the random stream of the
// others (benchmark figures and oracle comparisons are quoted on them).
func TestOutputPinned(t *testing.T) {
	want := map[string]string{
		"mixed":     "88288903f20fb0ba2596491bd1c760e89c3e0c944474087af928b431849ee629",
		"taints":    "324c2403229e43976522e48dd60ef68ea89f688e9828e882c9f43881adb7a592",
		"affinity":  "f9491777ccef2c4793ad5218167fd9bb3bfcdb54aa26d3d46eafab047f750a17",
		"resources": "f29fbd3e7875d61e50ee7437881a09b043c840fa6b5789549dda7ed618af2f10",
		// The pod topology spread and pod (anti-)affinity profiles: pinned
		// so that a change to them is deliberate (update these with it).
		"spread":        "9e99376a957670da609170a2496823524c84af08be195d8a93977e6df57da23f",
		"anti-affinity": "eb3394d5b34a9762d06e30265a60acedfae8a7f8ef158b56a8a93c0200c62229",
		"spread-bench":  "096b41c8eb4cdc7cd775b013581edf86f8a349680a200539040b410329aeafca",
	}
	for p, h := range want {
		sum := sha256.Sum256(generate(t, GenConfig{Profile: p, Nodes: 60, Pods: 300, Running: -1, Seed: 9}))
		if got := hex.EncodeToString(sum[:]); got != h {
			t.Errorf("%s: sha256 %s, want %s", p, got, h)
		}
	}
}

// TestPodNamesUnique: a running deployment whose replicas ran out of room
// writes some of them BestEffort-sized; their replica indexes count too, so
// a later scale-up must not reuse them (anti-affinity 200 nodes / 10,000
// pods, seed 2, once gave three pods the same name).
func TestPodNamesUnique(t *testing.T) {
	out := generate(t, GenConfig{Profile: "anti-affinity", Nodes: 200, Pods: 10000, Running: -1, Seed: 2})
	var list struct {
		Items []struct {
			Kind     string
			Metadata struct{ Namespace, Name string }
		}
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	pods := 0
	for _, it := range list.Items {
		if it.Kind != "Pod" {
			continue
		}
		pods++
		key := it.Metadata.Namespace + "/" + it.Metadata.Name
		if seen[key] {
			t.Fatalf("duplicate pod %s", key)
		}
		seen[key] = true
	}
	if pods < 10000 {
		t.Fatalf("%d pods", pods)
	}
}
