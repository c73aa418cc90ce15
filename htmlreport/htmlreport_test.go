package htmlreport

import (
	"bytes"
	"reflect"
	"regexp"
	"testing"

	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

// testCluster: four nodes in two zones and two pools, one GPU node; a web
// pod running on a1; three pending pods spread by zone (maxSkew 1) and a
// low-priority pod on the GPU node that a high one preempts.
func testCluster(t *testing.T) *index.Cluster {
	t.Helper()
	node := func(name, zone, pool string, cpu, gpu int64) index.Node {
		alloc := index.ResourceList{{Name: "cpu", Value: cpu}, {Name: "memory", Value: 8 << 30}, {Name: "pods", Value: 110}}
		if gpu > 0 {
			alloc = append(alloc, index.Quantity{Name: GPU, Value: gpu})
		}
		return index.Node{Name: name, Labels: map[string]string{"topology.kubernetes.io/zone": zone, "pool": pool,
			"kubernetes.io/hostname": name}, Allocatable: alloc}
	}
	web := &index.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	spread := []index.SpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: index.DoNotSchedule,
		Selector: web, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Ignore"}}
	pod := func(name string, cpu int64, node string) index.Pod {
		return index.Pod{Namespace: "shop", Name: name, Labels: map[string]string{"app": "web"}, NodeName: node,
			Requests: index.ResourceList{{Name: "cpu", Value: cpu}}, Spread: spread}
	}
	in := &index.Input{
		Nodes: []index.Node{node("a1", "a", "general", 4000, 0), node("a2", "a", "general", 4000, 0),
			node("b1", "b", "general", 4000, 0), node("g1", "b", "gpu", 8000, 2)},
		Pods: []index.Pod{pod("web-0", 1000, "a1"), pod("web-1", 1000, ""), pod("web-2", 1000, ""), pod("web-3", 1000, ""),
			{Namespace: "ml", Name: "low", NodeName: "g1", Priority: 1, Requests: index.ResourceList{{Name: GPU, Value: 2}}},
			{Namespace: "ml", Name: "high", Priority: 100, PreemptionPolicy: index.PreemptLowerPriority,
				Requests: index.ResourceList{{Name: GPU, Value: 2}}}},
	}
	c, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPage measures usage before and after, lists the preemption and
// measures the spread constraint after the run.
func TestPage(t *testing.T) {
	c := testCluster(t)
	before := Measure(c)
	res := solver.Solve(c, solver.Config{Seed: 1})
	rep := export.NewReport(c, res, 2, export.Timings{})
	p := Build("t", before, c, res, rep)

	if before.ZoneKey != "topology.kubernetes.io/zone" || before.PoolKey != "pool" ||
		!reflect.DeepEqual(before.Resources, []string{"cpu", "memory", GPU}) {
		t.Fatalf("keys %q %q, resources %v", before.ZoneKey, before.PoolKey, before.Resources)
	}
	// Zone a: a1, a2 (8 cpu, web-0's 1 before); zone b: b1, g1 (12 cpu,
	// 2 GPUs used by low before, by high after).
	wantBefore := []Group{
		{Name: "a", Nodes: 2, Alloc: []int64{8000, 16 << 30, 0}, Req: []int64{1000, 0, 0}},
		{Name: "b", Nodes: 2, Alloc: []int64{12000, 16 << 30, 2}, Req: []int64{0, 0, 2}},
	}
	if !reflect.DeepEqual(before.Zones, wantBefore) {
		t.Errorf("zones before %+v\nwant %+v", before.Zones, wantBefore)
	}
	var cpuAfter int64
	for _, g := range p.After.Zones {
		cpuAfter += g.Req[0]
	}
	if cpuAfter != 4000 || p.After.Pools[1].Name != "gpu" || p.After.Pools[1].Req[2] != 2 {
		t.Errorf("after: zones %+v pools %+v", p.After.Zones, p.After.Pools)
	}
	want := []Preemption{{Preemptor: "ml/high", Victim: "ml/low", Node: "g1", VictimPriority: 1, PreemptorPriority: 100}}
	if !reflect.DeepEqual(p.Preemptions, want) || p.MorePreempt != 0 {
		t.Errorf("preemptions %+v (+%d)", p.Preemptions, p.MorePreempt)
	}
	// Four web pods over zones a and b with maxSkew 1: two each.
	wantSkew := []Skew{{Namespace: "shop", TopologyKey: "topology.kubernetes.io/zone", Selector: "app=web", MaxSkew: 1, Hard: true,
		Pods: 3, Domains: 2, Min: 2, Max: 2}}
	if !reflect.DeepEqual(p.Skews, wantSkew) || p.SkewTotal != 1 {
		t.Errorf("skews %+v (%d)", p.Skews, p.SkewTotal)
	}

	// The page: deterministic, self-contained, one chart per resource and
	// grouping, and the skews.
	var a, b bytes.Buffer
	if err := p.Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes differ")
	}
	if n := bytes.Count(a.Bytes(), []byte("<svg")); n != 7 {
		t.Errorf("%d charts, want 7 (3 resources by zones and by pools, the skews; no pod pending)", n)
	}
	if m := regexp.MustCompile(`(?i)\ssrc=|\shref=|<script|<link|url\(`).Find(a.Bytes()); m != nil {
		t.Errorf("the page refers outside itself: %q", m)
	}
}

// TestFold keeps the largest groups and sums the rest into one.
func TestFold(t *testing.T) {
	var gs []Group
	for i := range maxGroups + 5 {
		gs = append(gs, Group{Name: string(rune('A' + i)), Nodes: i + 1, Alloc: []int64{10}, Req: []int64{1}})
	}
	out := fold(gs)
	if len(out) != maxGroups {
		t.Fatalf("%d groups", len(out))
	}
	last := out[len(out)-1]
	// The six smallest (1..6 nodes) are folded.
	if last.Name != "other (6)" || last.Nodes != 21 || last.Alloc[0] != 60 || last.Req[0] != 6 {
		t.Errorf("other %+v", last)
	}
}
