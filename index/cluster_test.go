package index

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func testInput() *Input {
	return &Input{
		Nodes: []Node{
			{Name: "a", Labels: map[string]string{"zone": "z1", "gen": "3"}, Taints: []Taint{{Key: "k", Value: "v", Effect: EffectNoSchedule}},
				Allocatable: ResourceList{{Name: "cpu", Value: 4000}, {Name: "memory", Value: 8 << 30}, {Name: "pods", Value: 2}}},
			{Name: "b", Labels: map[string]string{"zone": "z2"}, Unschedulable: true,
				Allocatable: ResourceList{{Name: "cpu", Value: 2000}, {Name: "pods", Value: 110}, {Name: "nvidia.com/gpu", Value: 4}}},
			{Name: "c", Labels: map[string]string{"zone": "z1", "gen": "12"}, Taints: []Taint{{Key: "k", Value: "v", Effect: EffectNoSchedule}},
				Allocatable: ResourceList{{Name: "cpu", Value: 1000}, {Name: "pods", Value: 110}}},
		},
		Pods: []Pod{
			{Namespace: "ns", Name: "running", NodeName: "a", Requests: ResourceList{{Name: "cpu", Value: 500}, {Name: "example.com/foo", Value: 1}},
				ScoreCPU: 500, ScoreMemory: 200 << 20, NonZeroCPU: 500, NonZeroMemory: 200 << 20, HostPorts: []HostPort{{Port: 80}}},
			{Namespace: "ns", Name: "pending"},
			{Namespace: "ns", Name: "rejected", Rejected: "no PriorityClass"},
			{Namespace: "ns", Name: "ghost", NodeName: "nowhere"},
		},
	}
}

func TestBuildIndexes(t *testing.T) {
	c, err := Build(testInput())
	if err != nil {
		t.Fatal(err)
	}
	f := func(name string, got []uint32, want ...uint32) {
		t.Helper()
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	f("zone=z1", c.LabelNodes("zone", "z1").ToArray(), 0, 2)
	f("zone key", c.KeyNodes("zone").ToArray(), 0, 1, 2)
	f("gen key", c.KeyNodes("gen").ToArray(), 0, 2)
	if c.LabelNodes("zone", "nope") != nil || c.KeyNodes("nope") != nil {
		t.Error("unknown labels should give nil")
	}
	gt := c.KeyNodesWhere("gen", func(v string) bool { n, ok := ParseLabelInt(v); return ok && n > 5 })
	f("gen > 5", gt.ToArray(), 2)
	f("unschedulable", c.Unschedulable.ToArray(), 1)
	if len(c.Taints) != 1 {
		t.Fatalf("%d distinct taints, want 1 (shared by a and c)", len(c.Taints))
	}
	f("taint k=v:NoSchedule", c.TaintNodes[0].ToArray(), 0, 2)
	// Columns: the running pod's requests are counted, the ghost's are not.
	if got := c.Req[ResCPU][0]; got != 500 {
		t.Errorf("node a cpu requested %d, want 500", got)
	}
	if got := c.Req[ResPods][0]; got != 1 {
		t.Errorf("node a pods %d, want 1", got)
	}
	gpu := c.ResIndex["nvidia.com/gpu"]
	if c.Alloc[gpu][1] != 4 || c.Alloc[gpu][0] != 0 {
		t.Errorf("gpu column %v", c.Alloc[gpu])
	}
	if c.ScoreReq[1][0] != 200<<20 {
		t.Errorf("non-zero memory %d", c.ScoreReq[1][0])
	}
	if !slices.Equal(c.Pending, []PodID{1}) || !slices.Equal(c.Rejected, []PodID{2}) {
		t.Errorf("pending %v rejected %v", c.Pending, c.Rejected)
	}
	want := []string{`pod ns/ghost is bound to unknown node "nowhere": ignored`,
		"1 pending pod(s) rejected at admission (the first, ns/rejected: no PriorityClass): export the PriorityClasses they name with them"}
	if !slices.Equal(c.Warnings, want) {
		t.Errorf("warnings %q, want %q", c.Warnings, want)
	}
	if len(c.Changes) != 0 || c.Gen[0] != 0 {
		t.Error("the input state should be generation 0 with an empty change log")
	}
}

func TestBindUnbind(t *testing.T) {
	c, err := Build(testInput())
	if err != nil {
		t.Fatal(err)
	}
	p := &Pod{Requests: ResourceList{{Name: "cpu", Value: 3500}}, HostPorts: []HostPort{{Port: 8080}}}
	d := c.DemandOf(p)
	if c.Req[ResCPU][0] != 500 || c.Alloc[ResCPU][0] != 4000 || c.Req[ResPods][0] != 1 {
		t.Fatalf("before bind: cpu %d of %d, pods %d", c.Req[ResCPU][0], c.Alloc[ResCPU][0], c.Req[ResPods][0])
	}
	c.Bind(1, 0, &d)
	if c.Req[ResCPU][0] != 4000 || c.PodNode[1] != 0 || c.Gen[0] != 1 || len(c.Changes) != 1 {
		t.Fatalf("after bind: cpu %d node %d gen %d changes %d", c.Req[ResCPU][0], c.PodNode[1], c.Gen[0], len(c.Changes))
	}
	if c.Req[ResPods][0] != 2 || c.Alloc[ResPods][0] != 2 {
		t.Errorf("node a holds %d pods of %d, want 2 of 2", c.Req[ResPods][0], c.Alloc[ResPods][0])
	}
	if len(c.Ports[0]) != 2 || !c.Ports[0][1].Conflicts(PortKey{IP: "10.0.0.1", Proto: "TCP", Port: 8080}) {
		t.Errorf("ports in use on a: %v, want the wildcard 8080 added", c.Ports[0])
	}
	c.Unbind(1, &d)
	if c.Req[ResCPU][0] != 500 || c.PodNode[1] != NoNode || c.Gen[0] != 2 || len(c.Ports[0]) != 1 {
		t.Errorf("after unbind: cpu %d node %d gen %d ports %v", c.Req[ResCPU][0], c.PodNode[1], c.Gen[0], c.Ports[0])
	}
	if !slices.Equal(c.PodsOn[0], []PodID{0}) {
		t.Errorf("pods on a: %v", c.PodsOn[0])
	}
}

func TestDemandSkipsUncheckedResources(t *testing.T) {
	c, _ := Build(testInput())
	d := c.DemandOf(&c.Pods[0])
	var names []string
	for _, rv := range d.Req {
		names = append(names, c.ResNames[rv.Res])
	}
	if !slices.Equal(names, []string{"cpu", "example.com/foo"}) {
		t.Errorf("demand resources %v, want cpu and example.com/foo", names)
	}
	d = c.DemandOf(&Pod{Requests: ResourceList{{Name: "foo", Value: 3}, {Name: "pods", Value: 1}}})
	if len(d.Req) != 0 {
		t.Errorf("unchecked resources in the demand: %v", d.Req)
	}
	for _, name := range []string{"cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "hugepages-2Mi", "attachable-volumes-aws-ebs"} {
		if !Checked(name) {
			t.Errorf("%s should be checked", name)
		}
	}
	for _, name := range []string{"pods", "foo"} {
		if Checked(name) {
			t.Errorf("%s should not be checked", name)
		}
	}
}

func TestDuplicateNode(t *testing.T) {
	in := testInput()
	in.Nodes = append(in.Nodes, Node{Name: "a"})
	if _, err := Build(in); err == nil {
		t.Error("duplicate node accepted")
	}
}

// TestRelPodsAndMinPriority: every pod with a pod-relative term is listed,
// in input order, whatever its state (bound to an unknown node and rejected
// pods included), and MinPriority is the least priority of all pods.
func TestRelPodsAndMinPriority(t *testing.T) {
	in := testInput()
	term := PodAffinityTerm{TopologyKey: "zone"}
	in.Pods[0].Priority = 5
	in.Pods[1].Priority = -3
	in.Pods[1].PreferredAntiAffinity = []WeightedPodAffinityTerm{{Weight: 1, Term: term}}
	in.Pods[2].Priority = -7 // rejected: counted as well
	in.Pods[2].Spread = []SpreadConstraint{{MaxSkew: 1, TopologyKey: "zone"}}
	in.Pods[3].AntiAffinity = []PodAffinityTerm{term}
	c, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := []PodID{1, 2, 3}; !slices.Equal(c.RelPods, want) {
		t.Errorf("RelPods %v, want %v", c.RelPods, want)
	}
	if c.MinPriority != -7 {
		t.Errorf("MinPriority %d, want -7", c.MinPriority)
	}
}

// TestBuildOnNodeIndex: BuildOn takes a NodeIndex of the input's own nodes
// instead of indexing them again, with the same cluster as Build; an index
// of other nodes (a copy) is not taken.
func TestBuildOnNodeIndex(t *testing.T) {
	want, err := Build(testInput())
	if err != nil {
		t.Fatal(err)
	}
	in := testInput()
	ni, err := NodeIndex(in.Nodes)
	if err != nil {
		t.Fatal(err)
	}
	got, err := BuildOn(in, ni)
	if err != nil {
		t.Fatal(err)
	}
	if got.Syms != ni.Syms || got.All != ni.All {
		t.Errorf("BuildOn indexed the nodes again instead of taking the node index")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BuildOn on a node index: the cluster differs from Build's")
	}

	in = testInput()
	other, err := NodeIndex(slices.Clone(in.Nodes))
	if err != nil {
		t.Fatal(err)
	}
	got, err = BuildOn(in, other)
	if err != nil {
		t.Fatal(err)
	}
	if got.Syms == other.Syms {
		t.Errorf("BuildOn took the node index of other nodes")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BuildOn with another index: the cluster differs from Build's")
	}
}

// TestBuildBindsManyPods binds pods by name over more ranges than one
// processor takes (boundNodes): each pod on the node it names, in input
// order on each node, and each pod on an unknown node left out with a
// warning.
func TestBuildBindsManyPods(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	in := &Input{Nodes: make([]Node, 300)}
	for i := range in.Nodes {
		in.Nodes[i] = Node{Name: fmt.Sprintf("n%d", i), Allocatable: ResourceList{{Name: "pods", Value: 1000}}}
	}
	in.Pods = make([]Pod, 70000)
	want := make([]int32, len(in.Pods))
	unknown := 0
	for i := range in.Pods {
		p := &in.Pods[i]
		p.Namespace, p.Name = "ns", fmt.Sprintf("p%d", i)
		want[i] = NoNode
		switch k := r.IntN(330); {
		case k < 300:
			p.NodeName, want[i] = in.Nodes[k].Name, int32(k)
		case k < 310:
			p.NodeName = fmt.Sprintf("gone-%d", k)
			unknown++
		}
	}
	c, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.PodNode, want) {
		t.Fatal("pods bound to other nodes than they name")
	}
	for n := range in.Nodes {
		var on []PodID
		for i, w := range want {
			if w == int32(n) {
				on = append(on, PodID(i))
			}
		}
		if !slices.Equal(c.PodsOn[n], on) || c.Req[ResPods][n] != int64(len(on)) {
			t.Fatalf("node %d holds %d pods, want %d in input order", n, len(c.PodsOn[n]), len(on))
		}
	}
	if len(c.Warnings) != unknown || unknown == 0 {
		t.Errorf("%d warnings, want %d (pods on unknown nodes)", len(c.Warnings), unknown)
	}
}

// TestBuildBindsLikeBind: Build binds the running pods of a large cluster
// on every processor (bindAll); the nodes' requests, ports, pod lists,
// lower-priority sums and latest starts, and each pod's recorded
// requests, must be what binding the pods one by one gives. Half the pods
// share the list of requests of the pod before (as ingest shares a
// workload's), half of those its ports too, with non-zero requests of
// their own: bindAll resolves shared lists once.
func TestBuildBindsLikeBind(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	in := &Input{Nodes: make([]Node, minParallelBind+700)}
	for i := range in.Nodes {
		in.Nodes[i] = Node{Name: fmt.Sprintf("n%d", i), Allocatable: ResourceList{{Name: "cpu", Value: 64000}, {Name: "memory", Value: 256 << 30}, {Name: "pods", Value: 500}, {Name: "example.com/gpu", Value: 8}}}
	}
	in.Pods = make([]Pod, 30000)
	for i := range in.Pods {
		p := &in.Pods[i]
		p.Namespace, p.Name = "ns", fmt.Sprintf("p%d", i)
		p.Priority = int32(r.IntN(4) * 100)
		p.Requests = ResourceList{{Name: "cpu", Value: int64(1 + r.IntN(2000))}, {Name: "memory", Value: int64(1+r.IntN(4096)) << 20}}
		if r.IntN(10) == 0 {
			p.Requests = append(p.Requests, ResourceList{{Name: "example.com/gpu", Value: int64(1 + r.IntN(2))}}...)
		}
		if r.IntN(20) == 0 {
			p.HostPorts = []HostPort{{Protocol: "TCP", Port: int32(1 + r.IntN(3))}}
		}
		if i > 0 && r.IntN(2) == 0 {
			p.Requests = in.Pods[i-1].Requests
			if r.IntN(2) == 0 {
				p.HostPorts = in.Pods[i-1].HostPorts
			}
		}
		p.NonZeroCPU, p.NonZeroMemory = p.Requests[0].Value+int64(r.IntN(100)), p.Requests[1].Value+int64(r.IntN(100))
		p.StartUnix = int64(r.IntN(1000))
		if i%5 != 0 { // the others pending, preemptors among them
			p.NodeName = in.Nodes[r.IntN(len(in.Nodes))].Name
		}
	}
	c, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if c.Low == nil {
		t.Fatal("no lower-priority sums: the case needs preemptors")
	}
	// The reference: every pod pending, then bound one by one.
	ref := &Input{Nodes: in.Nodes, Pods: slices.Clone(in.Pods)}
	for i := range ref.Pods {
		ref.Pods[i].NodeName = ""
	}
	want, err := Build(ref)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in.Pods {
		if in.Pods[i].NodeName != "" {
			d := want.DemandOf(&want.Pods[i])
			want.Bind(PodID(i), NodeID(c.PodNode[i]), &d)
		}
	}
	for _, cols := range [][2][][]int64{{c.Req, want.Req}, {c.ScoreReq[:], want.ScoreReq[:]}, {c.Low, want.Low}, {c.MaxOne, want.MaxOne}, {c.latest, want.latest}} {
		if !reflect.DeepEqual(cols[0], cols[1]) {
			t.Fatal("node sums differ from binding one by one")
		}
	}
	if !reflect.DeepEqual(c.Ports, want.Ports) || !reflect.DeepEqual(c.PodsOn, want.PodsOn) || !slices.Equal(c.PodNode, want.PodNode) {
		t.Fatal("ports, pod lists or pods' nodes differ from binding one by one")
	}
	for i := range in.Pods {
		got, ok := c.BoundRequests(PodID(i))
		exp, wok := want.BoundRequests(PodID(i))
		if ok != wok || !slices.Equal(got, exp) {
			t.Fatalf("pod %d: recorded requests %v (%v), want %v (%v)", i, got, ok, exp, wok)
		}
	}
}
