package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// The spread, anti-affinity and spread-bench profiles.

var podRelProfiles = []string{"spread", "anti-affinity", "spread-bench"}

func (s *tLabelSelector) matches(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for k, v := range s.MatchLabels {
		if labels[k] != v {
			return false
		}
	}
	for _, e := range s.MatchExpressions {
		v, ok := labels[e.Key]
		switch e.Operator {
		case "In":
			if !ok || !slices.Contains(e.Values, v) {
				return false
			}
		case "NotIn":
			if ok && slices.Contains(e.Values, v) {
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

// checkMerged checks that each key of in that the pod carries is merged
// into sel as `key op [value]` (after the user's expressions, as the API
// server appends it) and is not also a matchLabels key.
func checkMerged(t *testing.T, what string, sel *tLabelSelector, keys []string, op string, labels map[string]string) {
	t.Helper()
	if len(keys) == 0 {
		return
	}
	if sel == nil {
		t.Fatalf("%s: label keys without a labelSelector", what)
	}
	for _, k := range keys {
		if _, dup := sel.MatchLabels[k]; dup {
			t.Errorf("%s: key %s both in matchLabels and label keys", what, k)
		}
		v, ok := labels[k]
		if !ok {
			continue
		}
		found := false
		for _, e := range sel.MatchExpressions {
			if e.Key == k && e.Operator == op && len(e.Values) == 1 && e.Values[0] == v {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: key %s=%s not merged as %s in %+v", what, k, v, op, sel.MatchExpressions)
		}
	}
}

// podRelCounts counts the constraint kinds of a generated cluster's pods
// (prefixed run/pend) and checks each constraint is well formed.
func podRelCounts(t *testing.T, objs []tObj) map[string]int {
	c := map[string]int{}
	for i := range objs {
		o := &objs[i]
		switch o.Kind {
		case "Node":
			if _, ok := o.Metadata.Labels["topology.kubernetes.io/zone"]; !ok {
				c["node without zone"]++
			}
			continue
		case "ReplicaSet", "Service", "Namespace":
			c[o.Kind]++
			continue
		case "Pod":
		default:
			continue
		}
		st := "pend "
		if o.Spec.NodeName != "" {
			st = "run "
		}
		labels := o.Metadata.Labels
		what := o.Metadata.Namespace + "/" + o.Metadata.Name
		for _, s := range o.Spec.Spread {
			key := map[string]string{"topology.kubernetes.io/zone": "zone", "kubernetes.io/hostname": "host"}[s.TopologyKey]
			if key == "" || s.MaxSkew < 1 || s.LabelSelector == nil ||
				(s.WhenUnsatisfiable != "DoNotSchedule" && s.WhenUnsatisfiable != "ScheduleAnyway") {
				t.Fatalf("%s: bad constraint %+v", what, s)
			}
			c[st+"spread "+key+" "+s.WhenUnsatisfiable]++
			c[st+"spread maxSkew "+fmt.Sprint(s.MaxSkew)]++
			if s.MinDomains != nil {
				if *s.MinDomains < 1 || s.WhenUnsatisfiable != "DoNotSchedule" {
					t.Fatalf("%s: minDomains %d with %s", what, *s.MinDomains, s.WhenUnsatisfiable)
				}
				c[st+"spread minDomains"]++
				if *s.MinDomains > 5 {
					c[st+"spread minDomains above zones"]++
				}
			}
			if len(s.MatchLabelKeys) > 0 {
				c[st+"spread matchLabelKeys"]++
			}
			checkMerged(t, what, s.LabelSelector, s.MatchLabelKeys, "In", labels)
			if s.NodeAffinityPolicy != nil {
				c[st+"spread nodeAffinityPolicy "+*s.NodeAffinityPolicy]++
			}
			if s.NodeTaintsPolicy != nil {
				c[st+"spread nodeTaintsPolicy "+*s.NodeTaintsPolicy]++
			}
			if !s.LabelSelector.matches(labels) {
				c[st+"spread foreign selector"]++
			}
		}
		if len(o.Spec.NodeSelector) > 0 || o.Spec.Affinity != nil && o.Spec.Affinity.NodeAffinity != nil {
			if len(o.Spec.Spread) > 0 {
				c[st+"spread with node selection"]++
			}
		}
		if a := o.Spec.Affinity; a != nil {
			for kind, pa := range map[string]*tPodAffinity{"affinity": a.PodAffinity, "anti": a.PodAntiAffinity} {
				if pa == nil {
					continue
				}
				terms := map[string][]tPodAffinityTerm{"required": pa.Required}
				for _, p := range pa.Preferred {
					if p.Weight < 1 || p.Weight > 100 {
						t.Fatalf("%s: weight %d", what, p.Weight)
					}
					terms["preferred"] = append(terms["preferred"], p.Term)
				}
				for req, ts := range terms {
					for _, term := range ts {
						key := map[string]string{"topology.kubernetes.io/zone": "zone", "kubernetes.io/hostname": "host"}[term.TopologyKey]
						if key == "" || term.LabelSelector == nil {
							t.Fatalf("%s: bad term %+v", what, term)
						}
						pre := st + kind + " " + req + " "
						c[pre+key]++
						if term.LabelSelector.MatchLabels["app"] == labels["app"] {
							c[pre+"self"]++
						}
						if len(term.Namespaces) > 0 {
							c[st+kind+" namespaces"]++
						}
						if term.NamespaceSelector != nil {
							c[st+kind+" namespaceSelector"]++
							if len(term.NamespaceSelector.MatchLabels)+len(term.NamespaceSelector.MatchExpressions) == 0 {
								c[st+kind+" namespaceSelector all"]++
							}
						}
						if len(term.MatchLabelKeys) > 0 {
							c[st+kind+" matchLabelKeys"]++
						}
						if len(term.MismatchLabelKeys) > 0 {
							c[st+kind+" mismatchLabelKeys"]++
						}
						checkMerged(t, what, term.LabelSelector, term.MatchLabelKeys, "In", labels)
						checkMerged(t, what, term.LabelSelector, term.MismatchLabelKeys, "NotIn", labels)
					}
				}
			}
		}
	}
	return c
}

// TestPodRelFeatures generates a 200-node cluster of each profile and
// checks every intended kind of constraint is there.
func TestPodRelFeatures(t *testing.T) {
	want := map[string][]string{
		"spread": {
			"pend spread zone DoNotSchedule", "pend spread zone ScheduleAnyway",
			"pend spread host DoNotSchedule", "pend spread host ScheduleAnyway",
			"pend spread maxSkew 1", "pend spread maxSkew 2", "pend spread maxSkew 3",
			"pend spread minDomains", "pend spread minDomains above zones", "pend spread matchLabelKeys",
			"pend spread nodeAffinityPolicy Ignore", "pend spread nodeTaintsPolicy Honor",
			"pend spread foreign selector", "pend spread with node selection",
			"run spread zone DoNotSchedule", "run spread host DoNotSchedule", "run spread matchLabelKeys",
			"node without zone", "ReplicaSet", "Service",
		},
		"anti-affinity": {
			"pend anti required host", "pend anti required self", "pend anti required zone",
			"pend affinity required zone", "pend affinity required host", "pend affinity required self",
			"pend affinity preferred zone", "pend affinity preferred host",
			"pend anti preferred host", "pend anti preferred zone",
			"pend affinity namespaces", "pend affinity namespaceSelector", "pend anti namespaceSelector all",
			"pend anti matchLabelKeys", "pend anti mismatchLabelKeys",
			"run anti required host", "run anti required self", "run anti preferred host", "run anti namespaceSelector",
		},
		"spread-bench": {"pend spread zone DoNotSchedule", "pend spread host DoNotSchedule"},
	}
	for _, p := range podRelProfiles {
		c := podRelCounts(t, parse(t, generate(t, GenConfig{Profile: p, Nodes: 200, Pods: 2000, Running: -1, Seed: 11})))
		for _, k := range want[p] {
			if c[k] == 0 {
				t.Errorf("%s: no %s", p, k)
			}
		}
		if testing.Verbose() {
			keys := make([]string, 0, len(c))
			for k := range c {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				t.Logf("%s: %s %d", p, k, c[k])
			}
		}
	}
}

// TestRunningHonourRules checks running pods keep their own hard rules, as
// a scheduler would have placed them: required anti-affinity to their own
// pods (one per node or zone), DoNotSchedule spread within maxSkew, no
// zone-spread pod on a node without a zone label.
func TestRunningHonourRules(t *testing.T) {
	for _, p := range []string{"spread", "anti-affinity"} {
		for _, seed := range []uint64{1, 2} {
			objs := parse(t, generate(t, GenConfig{Profile: p, Nodes: 150, Pods: 10, Running: 2000, Seed: seed}))
			zoneOf := map[string]string{}
			zoneSet := map[string]bool{}
			type group struct {
				perNode, perZone map[string]int
				pod              *tObj
			}
			groups := map[string]*group{} // ns/app
			for i := range objs {
				o := &objs[i]
				if o.Kind == "Node" {
					if z, ok := o.Metadata.Labels["topology.kubernetes.io/zone"]; ok {
						zoneOf[o.Metadata.Name] = z
						zoneSet[z] = true
					}
				}
				if o.Kind != "Pod" || o.Spec.NodeName == "" {
					continue
				}
				k := o.Metadata.Namespace + "/" + o.Metadata.Labels["app"]
				gr := groups[k]
				if gr == nil {
					gr = &group{perNode: map[string]int{}, perZone: map[string]int{}, pod: o}
					groups[k] = gr
				}
				gr.perNode[o.Spec.NodeName]++
				if z, ok := zoneOf[o.Spec.NodeName]; ok {
					gr.perZone[z]++
				}
			}
			checked := 0
			for k, gr := range groups {
				o := gr.pod
				if a := o.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
					for _, term := range a.PodAntiAffinity.Required {
						if !term.LabelSelector.matches(o.Metadata.Labels) {
							continue
						}
						m := gr.perNode
						if term.TopologyKey == "topology.kubernetes.io/zone" {
							m = gr.perZone
						}
						for d, n := range m {
							if n > 1 {
								t.Errorf("%s seed %d: %s has %d pods in %s despite anti-affinity", p, seed, k, n, d)
							}
						}
						checked++
					}
				}
				for _, s := range o.Spec.Spread {
					if s.WhenUnsatisfiable != "DoNotSchedule" || !s.LabelSelector.matches(o.Metadata.Labels) {
						continue
					}
					checked++
					if s.TopologyKey == "kubernetes.io/hostname" {
						for d, n := range gr.perNode {
							if n > int(s.MaxSkew) {
								t.Errorf("%s seed %d: %s has %d pods on %s, maxSkew %d", p, seed, k, n, d, s.MaxSkew)
							}
						}
						continue
					}
					lo, hi := -1, 0
					for z := range zoneSet {
						n := gr.perZone[z]
						if lo < 0 || n < lo {
							lo = n
						}
						hi = max(hi, n)
					}
					if s.MinDomains != nil && int(*s.MinDomains) > len(zoneSet) {
						lo = 0
					}
					if hi-lo > int(s.MaxSkew) {
						t.Errorf("%s seed %d: %s zone skew %d > %d (%v)", p, seed, k, hi-lo, s.MaxSkew, gr.perZone)
					}
					for nd := range gr.perNode {
						if _, ok := zoneOf[nd]; !ok {
							t.Errorf("%s seed %d: %s zone-spread pod on %s, which has no zone", p, seed, k, nd)
						}
					}
				}
			}
			if checked == 0 {
				t.Errorf("%s seed %d: no running deployment with hard rules", p, seed)
			}
		}
	}
}

// TestWorkloads checks the spread profile's ReplicaSets and Services: each
// selects pods of one deployment without constraints, ReplicaSets are the
// pods' owners, no object repeats.
func TestWorkloads(t *testing.T) {
	objs := parse(t, generate(t, GenConfig{Profile: "spread", Nodes: 200, Pods: 2000, Running: -1, Seed: 4}))
	seen := map[string]bool{}
	var pods []*tObj
	for i := range objs {
		if objs[i].Kind == "Pod" {
			pods = append(pods, &objs[i])
		}
	}
	rs, svc := 0, 0
	for i := range objs {
		o := &objs[i]
		if o.Kind != "ReplicaSet" && o.Kind != "Service" {
			continue
		}
		key := o.Kind + " " + o.Metadata.Namespace + "/" + o.Metadata.Name
		if seen[key] {
			t.Fatalf("%s twice", key)
		}
		seen[key] = true
		var sel tLabelSelector
		if o.Kind == "ReplicaSet" {
			rs++
			if err := json.Unmarshal(o.Spec.Selector, &sel); err != nil {
				t.Fatal(err)
			}
			if o.Spec.Replicas == nil || *o.Spec.Replicas < 1 {
				t.Errorf("%s: replicas %v", key, o.Spec.Replicas)
			}
		} else {
			svc++
			if err := json.Unmarshal(o.Spec.Selector, &sel.MatchLabels); err != nil {
				t.Fatal(err)
			}
		}
		if len(sel.MatchLabels) == 0 {
			t.Fatalf("%s: empty selector", key)
		}
		selected, apps := 0, map[string]bool{}
		for _, p := range pods {
			if p.Metadata.Namespace != o.Metadata.Namespace || !sel.matches(p.Metadata.Labels) {
				continue
			}
			selected++
			apps[p.Metadata.Labels["app"]] = true
			if len(p.Spec.Spread) > 0 {
				t.Errorf("%s selects pod %s, which has topology spread constraints", key, p.Metadata.Name)
			}
			if o.Kind == "ReplicaSet" && p.Metadata.OwnerReferences[0].Name != o.Metadata.Name {
				t.Errorf("%s selects pod %s owned by %s", key, p.Metadata.Name, p.Metadata.OwnerReferences[0].Name)
			}
		}
		if selected == 0 || len(apps) != 1 {
			t.Errorf("%s selects %d pods of %d deployments", key, selected, len(apps))
		}
	}
	if rs == 0 || svc == 0 {
		t.Errorf("%d ReplicaSets, %d Services", rs, svc)
	}
}

// TestSpreadBench checks the benchmark case: nodes evenly over the zones,
// a few hundred deployments, two DoNotSchedule constraints on every
// pending pod.
func TestSpreadBench(t *testing.T) {
	for _, zones := range []int{0, 3, 30} {
		cfg := GenConfig{Profile: "spread-bench", Nodes: 400, Pods: 6000, Running: -1, Seed: 2, Zones: zones}
		data := generate(t, cfg)
		if !bytes.Equal(data, generate(t, cfg)) {
			t.Fatalf("zones=%d: same config, different output", zones)
		}
		objs := parse(t, data)
		perZone := map[string]int{}
		deploys := map[string]bool{}
		for i := range objs {
			o := &objs[i]
			switch {
			case o.Kind == "Node":
				perZone[o.Metadata.Labels["topology.kubernetes.io/zone"]]++
				for _, tn := range o.Spec.Taints {
					if !strings.HasPrefix(tn.Key, "node.kubernetes.io/") {
						t.Fatalf("node %s tainted %+v", o.Metadata.Name, tn)
					}
				}
			case o.Kind == "Pod" && o.Spec.NodeName == "":
				deploys[o.Metadata.Labels["app"]] = true
				sp := o.Spec.Spread
				if len(sp) != 2 || sp[0].TopologyKey != "topology.kubernetes.io/zone" || sp[0].MaxSkew != 1 ||
					sp[1].TopologyKey != "kubernetes.io/hostname" || sp[1].MaxSkew < 1 || sp[1].MaxSkew > 2 {
					t.Fatalf("pod %s: constraints %+v", o.Metadata.Name, sp)
				}
				for _, s := range sp {
					if s.WhenUnsatisfiable != "DoNotSchedule" || len(s.LabelSelector.MatchLabels) != 1 ||
						s.LabelSelector.MatchLabels["app"] != o.Metadata.Labels["app"] || s.MinDomains != nil {
						t.Fatalf("pod %s: constraint %+v", o.Metadata.Name, s)
					}
				}
			}
		}
		wantZones := zones
		if zones == 0 {
			wantZones = 5
		}
		if len(perZone) != wantZones {
			t.Errorf("zones=%d: %d zones", zones, len(perZone))
		}
		for z, n := range perZone {
			if n < cfg.Nodes/wantZones || n > cfg.Nodes/wantZones+1 {
				t.Errorf("zones=%d: zone %s has %d of %d nodes", zones, z, n, cfg.Nodes)
			}
		}
		if len(deploys) < 100 || len(deploys) > 600 {
			t.Errorf("zones=%d: %d pending deployments, want a few hundred", zones, len(deploys))
		}
	}
}

// TestZones checks GenConfig.Zones: the spread and anti-affinity profiles
// use that many zones, the older profiles ignore it.
func TestZones(t *testing.T) {
	for _, p := range []string{"spread", "anti-affinity"} {
		objs := parse(t, generate(t, GenConfig{Profile: p, Nodes: 100, Pods: 200, Running: -1, Seed: 3, Zones: 3}))
		zones := map[string]bool{}
		for i := range objs {
			if z, ok := objs[i].Metadata.Labels["topology.kubernetes.io/zone"]; ok && objs[i].Kind == "Node" {
				zones[z] = true
			}
		}
		if len(zones) != 3 {
			t.Errorf("%s: zones %v, want 3", p, zones)
		}
	}
	for _, p := range []string{"mixed", "preemption"} {
		cfg := GenConfig{Profile: p, Nodes: 60, Pods: 300, Running: -1, Seed: 9}
		a := generate(t, cfg)
		cfg.Zones = 3
		if !bytes.Equal(a, generate(t, cfg)) {
			t.Errorf("%s: Zones changes the output", p)
		}
	}
	for _, z := range []int{-1, maxZones + 1} {
		if err := Generate(GenConfig{Profile: "spread-bench", Nodes: 10, Zones: z}, io.Discard); err == nil {
			t.Errorf("Zones %d: no error", z)
		}
	}
}

// TestIngestPodRel loads each profile's output with the project's ingest:
// every object parses (the engine may still call the pods unsupported).
func TestIngestPodRel(t *testing.T) {
	for _, p := range podRelProfiles {
		cfg := GenConfig{Profile: p, Nodes: 100, Pods: 1000, Running: -1, Seed: 6}
		objs := parse(t, generate(t, cfg))
		workloads, pods := 0, 0
		for i := range objs {
			switch objs[i].Kind {
			case "ReplicaSet", "Service":
				workloads++
			case "Pod":
				pods++
			}
		}
		in := loadGenerated(t, cfg)
		if len(in.Nodes) != cfg.Nodes || len(in.Pods) != pods || len(in.Workloads) != workloads || len(in.SkippedKinds) != 0 {
			t.Errorf("%s: ingest read %d nodes, %d pods, %d workloads, skipped %v; want %d, %d, %d",
				p, len(in.Nodes), len(in.Pods), len(in.Workloads), in.SkippedKinds, cfg.Nodes, pods, workloads)
		}
		unsupported := map[string]int{}
		for i := range in.Pods {
			if u := in.Pods[i].Unsupported; u != "" {
				unsupported[u]++
			}
		}
		t.Logf("%s: unsupported %v", p, unsupported)
	}
}
