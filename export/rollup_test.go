package export

import (
	"reflect"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

// TestReportPendingDetail solves a cluster where no node takes the two
// pending pods and checks what the report says of them: the owner (a
// ReplicaSet's Deployment), priority, requests as quantities, and the
// roll-ups by plugin, owner and reason pattern.
func TestReportPendingDetail(t *testing.T) {
	cpu := func(m int64) index.ResourceList {
		return index.ResourceList{{Name: "cpu", Value: m}, {Name: "memory", Value: 8 << 30}, {Name: "pods", Value: 110}}
	}
	in := &index.Input{
		Nodes: []index.Node{
			{Name: "tainted", Allocatable: cpu(8000), Taints: []index.Taint{{Key: "gpu", Effect: index.EffectNoSchedule}}},
			{Name: "small", Allocatable: cpu(1000)},
			{Name: "small2", Allocatable: cpu(1000)},
			{Name: "cordoned", Allocatable: cpu(8000), Unschedulable: true},
		},
		Workloads: []index.Workload{{Kind: index.KindReplicaSet, Namespace: "shop", Name: "web-7d9",
			Owner: &index.OwnerRef{Kind: index.KindDeployment, Name: "web"}}},
		Pods: []index.Pod{
			{Namespace: "shop", Name: "web-7d9-a", Priority: 100, Owner: &index.OwnerRef{Kind: index.KindReplicaSet, Name: "web-7d9"},
				Requests: index.ResourceList{{Name: "cpu", Value: 2000}, {Name: "memory", Value: 1 << 30}}},
			{Namespace: "batch", Name: "job-x", Priority: 5, Owner: &index.OwnerRef{Kind: index.KindJob, Name: "x"},
				Requests: index.ResourceList{{Name: "cpu", Value: 1500}, {Name: "memory", Value: 9 << 30}}},
		},
	}
	c, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	res := solver.Solve(c, solver.Config{Seed: 1, NoPreemption: true})
	r := NewReport(c, res, 0, Timings{})
	if len(r.Pending) != 2 {
		t.Fatalf("pending %+v", r.Pending)
	}
	web, job := r.Pending[0], r.Pending[1]
	if web.Name != "web-7d9-a" || web.Owner != "Deployment/web" || web.Priority != 100 ||
		!reflect.DeepEqual(web.Requests, map[string]string{"cpu": "2", "memory": "1Gi"}) {
		t.Errorf("web entry %+v", web)
	}
	if job.Owner != "Job/x" || job.Priority != 5 || !reflect.DeepEqual(job.Requests, map[string]string{"cpu": "1500m", "memory": "9Gi"}) {
		t.Errorf("job entry %+v", job)
	}
	const jobReason = "0/4 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, " +
		"2 Insufficient cpu, 2 Insufficient memory. no new claims to deallocate."
	if job.Reason != jobReason {
		t.Errorf("job reason %q\nwant %q", job.Reason, jobReason)
	}
	// Per pod: 1 taint, 1 cordoned, 2 too small (web: cpu only; job: cpu
	// and memory on the same two nodes).
	wantPlugins := []PluginCount{
		{Plugin: "NodeResourcesFit", Nodes: 4, Messages: 6, Pods: 2},
		{Plugin: "NodeUnschedulable", Nodes: 2, Messages: 2, Pods: 2},
		{Plugin: "TaintToleration", Nodes: 2, Messages: 2, Pods: 2},
	}
	if !reflect.DeepEqual(r.Rollups.ByPlugin, wantPlugins) {
		t.Errorf("by plugin %+v\nwant %+v", r.Rollups.ByPlugin, wantPlugins)
	}
	wantOwners := []OwnerCount{
		{Namespace: "batch", Owner: "Job/x", Pods: 1, Reason: ReasonPattern(jobReason)},
		{Namespace: "shop", Owner: "Deployment/web", Pods: 1, Reason: ReasonPattern(web.Reason)},
	}
	if !reflect.DeepEqual(r.Rollups.ByOwner, wantOwners) {
		t.Errorf("by owner %+v\nwant %+v", r.Rollups.ByOwner, wantOwners)
	}
	if len(r.Rollups.ByReason) != 2 || len(r.Rollups.ByPattern) != 2 {
		t.Errorf("by reason %+v, by pattern %+v", r.Rollups.ByReason, r.Rollups.ByPattern)
	}
}

// TestReasonPattern writes counts N and leaves digits inside names.
func TestReasonPattern(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := ReasonPattern(in); got != want {
			t.Errorf("ReasonPattern(%q) = %q, want %q", in, got, want)
		}
	}
	f("0/124 nodes are available: 12 Insufficient hugepages-2Mi, 112 node(s) had untolerated taint(s).",
		"0/N nodes are available: N Insufficient hugepages-2Mi, N node(s) had untolerated taint(s).")
	f("0/9 nodes are available: 1 node(s) were unschedulable, 8 Insufficient cpu. no new claims to deallocate, preemption: 0/9 nodes are available: 1 Preemption is not helpful for scheduling, 8 No preemption victims found for incoming pod.",
		"0/N nodes are available: N Insufficient cpu, N node(s) were unschedulable. no new claims to deallocate, preemption: 0/N nodes are available: N No preemption victims found for incoming pod, N Preemption is not helpful for scheduling.")
	f("waiting for scheduling gates: [gate1]", "waiting for scheduling gates: [gate1]")
}

// TestPluginNodes: NodeResourcesFit's nodes are the pod's nodes the other
// plugins did not reject, within its largest message and their sum.
func TestPluginNodes(t *testing.T) {
	got := PluginNodes(map[string]int{"Insufficient cpu": 3, "Insufficient memory": 2, "node(s) were unschedulable": 1}, 5)
	want := map[string]PluginCount{
		"NodeResourcesFit":  {Plugin: "NodeResourcesFit", Nodes: 4, Messages: 5},
		"NodeUnschedulable": {Plugin: "NodeUnschedulable", Nodes: 1, Messages: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
