package solver

import (
	"fmt"
	"testing"
	"time"

	"github.com/kplace/kplace/index"
)

// spreadInput is the spread benchmark: nodes evenly in zones, pods
// from deployments of 300 replicas, every pod with a zone and a hostname
// DoNotSchedule constraint (maxSkew 1) on its own app label.
func spreadInput(nodes, zones, pods int) *index.Input {
	in := &index.Input{}
	for i := range nodes {
		name := fmt.Sprintf("node-%06d", i)
		in.Nodes = append(in.Nodes, index.Node{Name: name,
			Labels:      map[string]string{labelHostname: name, "topology.kubernetes.io/zone": fmt.Sprintf("zone-%03d", i%zones)},
			Allocatable: index.ResourceList{{Name: "cpu", Value: 64000}, {Name: "memory", Value: 256 << 30}, {Name: "pods", Value: 110}}})
	}
	for i := range pods {
		app := fmt.Sprintf("app-%04d", i/300)
		sl := &index.LabelSelector{MatchLabels: map[string]string{"app": app}}
		in.Pods = append(in.Pods, index.Pod{Namespace: "default", Name: fmt.Sprintf("p-%07d", i), UID: fmt.Sprint(i),
			Labels: map[string]string{"app": app}, SchedulerName: "default-scheduler", PreemptionPolicy: index.PreemptLowerPriority,
			Requests: index.ResourceList{{Name: "cpu", Value: 100}, {Name: "memory", Value: 128 << 20}},
			ScoreCPU: 100, ScoreMemory: 128 << 20, NonZeroCPU: 100, NonZeroMemory: 128 << 20,
			Spread: []index.SpreadConstraint{
				{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: DNS, Selector: sl, MinDomains: 1, NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore},
				{MaxSkew: 1, TopologyKey: labelHostname, WhenUnsatisfiable: DNS, Selector: sl, MinDomains: 1, NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore},
			}})
	}
	return in
}

// BenchmarkSpreadSolve reports the solve phase's pods/s and ns per pod on
// the spread benchmark, across zone counts and cluster sizes: the skew check
// is O(1), so ns/pod should not grow with zones or nodes.
func BenchmarkSpreadSolve(b *testing.B) {
	for _, tc := range []struct{ nodes, zones, pods int }{
		{10000, 5, 100000}, {10000, 50, 100000}, {10000, 500, 100000}, {100000, 5, 100000}, {100000, 500, 100000},
		// Twice the pods: the difference gives the cost of one more pod,
		// without the set-up that grows with nodes.
		{10000, 5, 200000}, {100000, 5, 200000}, {10000, 500, 200000}, {100000, 500, 200000},
	} {
		b.Run(fmt.Sprintf("nodes=%d/zones=%d/pods=%d", tc.nodes, tc.zones, tc.pods), func(b *testing.B) {
			var placed int
			var solve time.Duration
			for b.Loop() {
				b.StopTimer()
				c, err := index.Build(spreadInput(tc.nodes, tc.zones, tc.pods))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				t0 := time.Now()
				res := Solve(c, Config{Seed: 1})
				solve += time.Since(t0)
				placed = len(res.Commits)
			}
			b.ReportMetric(float64(tc.pods)*float64(b.N)/solve.Seconds(), "pods/s")
			b.ReportMetric(float64(solve.Nanoseconds())/float64(tc.pods*b.N), "ns/pod")
			b.ReportMetric(float64(placed), "placed")
		})
	}
}

// BenchmarkSkewCheck times the spread machinery of one placement alone:
// the filter check of a class with a zone and a hostname DoNotSchedule
// constraint on a node, then the pod counted in and out of its domains
// (both counters). Nodes are visited in a fixed pseudo-random order. The
// check compares a domain's count with the counter's maintained global
// minimum, so ns/op should not depend on the zones or the nodes.
func BenchmarkSkewCheck(b *testing.B) {
	for _, tc := range []struct{ nodes, zones int }{{10000, 5}, {10000, 500}, {100000, 5}, {100000, 500}} {
		b.Run(fmt.Sprintf("nodes=%d/zones=%d", tc.nodes, tc.zones), func(b *testing.B) {
			c, err := index.Build(spreadInput(tc.nodes, tc.zones, 600))
			if err != nil {
				b.Fatal(err)
			}
			cfg := Config{Seed: 1}
			s := newSolver(c, cfg)
			queue := Queue(c)
			s.rel = newRelState(c, &cfg)
			s.classify(queue)
			s.countExisting()
			cl := s.classes[0]
			pid := queue[0]
			// Half the nodes hold a pod of the class, so both counters move
			// off zero and the hostname minimum stays at 0.
			for n := 0; n < tc.nodes; n += 2 {
				s.relPlaced(cl, pid, index.NodeID(n), 1)
			}
			x := uint32(1)
			pass := 0
			b.ResetTimer()
			for b.Loop() {
				x ^= x << 13
				x ^= x >> 17
				x ^= x << 5
				n := index.NodeID(x % uint32(tc.nodes))
				if f, _ := s.check(cl.rel, n); f == relOK {
					pass++
				}
				s.relPlaced(cl, pid, n, 1)
				s.relPlaced(cl, pid, n, -1)
			}
			if pass == 0 {
				b.Fatal("no node passed the check")
			}
		})
	}
}

// daemonSetInput is a DaemonSet rolled out on a cluster: one pending pod
// per node, each naming its node, in zones of equal size; behind a Service
// when svc, so that default spreading scores them (on the one node each
// names).
func daemonSetInput(nodes int, svc bool) *index.Input {
	in := &index.Input{}
	for i := range nodes {
		name := fmt.Sprintf("node-%06d", i)
		in.Nodes = append(in.Nodes, index.Node{Name: name,
			Labels:      map[string]string{labelHostname: name, "topology.kubernetes.io/zone": fmt.Sprintf("zone-%03d", i%5)},
			Allocatable: index.ResourceList{{Name: "cpu", Value: 64000}, {Name: "memory", Value: 256 << 30}, {Name: "pods", Value: 110}}})
	}
	labels := map[string]string{"app": "agent"}
	owner := &index.OwnerRef{Kind: index.KindDaemonSet, Name: "agent", APIVersion: "apps/v1"}
	for i := range nodes {
		in.Pods = append(in.Pods, index.Pod{Namespace: "default", Name: fmt.Sprintf("agent-%06d", i), UID: fmt.Sprint(i),
			Labels: labels, Owner: owner, SchedulerName: "default-scheduler", PreemptionPolicy: index.PreemptLowerPriority,
			Requests: index.ResourceList{{Name: "cpu", Value: 100}, {Name: "memory", Value: 128 << 20}},
			ScoreCPU: 100, ScoreMemory: 128 << 20, NonZeroCPU: 100, NonZeroMemory: 128 << 20,
			HasRequired: true, RequiredTerms: []index.NodeSelectorTerm{{MatchFields: []index.Requirement{
				{Key: "metadata.name", Operator: index.SelIn, Values: []string{in.Nodes[i].Name}}}}}})
	}
	if svc {
		in.Workloads = append(in.Workloads, index.Workload{Kind: index.KindService, Namespace: "default", Name: "agent",
			Selector: &index.LabelSelector{MatchLabels: labels}})
	}
	return in
}

// BenchmarkDaemonSetSolve places a DaemonSet's pods, one per node, with
// the built-in default spreading: a class per pod, each feasible on one
// node.
func BenchmarkDaemonSetSolve(b *testing.B) {
	for _, nodes := range []int{10000, 100000} {
		for _, svc := range []bool{false, true} {
			b.Run(fmt.Sprintf("nodes=%d/service=%v", nodes, svc), func(b *testing.B) {
				var solve time.Duration
				for b.Loop() {
					b.StopTimer()
					c, err := index.Build(daemonSetInput(nodes, svc))
					if err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					t0 := time.Now()
					res := Solve(c, Config{Seed: 1, DefaultSpread: BuiltinDefaultSpread(), SystemDefaultSpread: true})
					solve += time.Since(t0)
					if len(res.Commits) != nodes {
						b.Fatalf("%d pods placed, want %d", len(res.Commits), nodes)
					}
				}
				b.ReportMetric(float64(nodes)*float64(b.N)/solve.Seconds(), "pods/s")
			})
		}
	}
}
