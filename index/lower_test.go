package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBoundRequests checks that the requests pods were bound with are
// recorded when a pending pod may preempt, and follow later binds.
func TestBoundRequests(t *testing.T) {
	c, err := Build(testInput())
	if err != nil {
		t.Fatal(err)
	}
	run := &c.Pods[0]
	got, ok := c.BoundRequests(0)
	if want := c.DemandOf(run).Req; !ok || !slices.Equal(got, want) {
		t.Fatalf("running pod: %v %v, want %v", got, ok, want)
	}
	if _, ok := c.BoundRequests(1); ok {
		t.Fatal("the pending pod has recorded requests")
	}
	d := Demand{Req: []ResVal{{Res: ResCPU, Val: 250}}}
	c.Bind(1, 2, &d)
	if got, ok := c.BoundRequests(1); !ok || !slices.Equal(got, d.Req) {
		t.Fatalf("after bind: %v %v", got, ok)
	}
	c.Unbind(1, &d)
	if got, ok := c.BoundRequests(0); !ok || !slices.Equal(got, c.DemandOf(run).Req) {
		t.Fatalf("running pod after other changes: %v %v", got, ok)
	}
}

// TestLatestStart binds and unbinds pods of a few priorities and starts
// (some without a start) at random and checks every node's latest start
// per threshold against the pods bound there.
func TestLatestStart(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	prios := []int32{-3, 0, 7, 100}
	in := &Input{}
	for i := range 4 {
		in.Nodes = append(in.Nodes, Node{Name: fmt.Sprint("n", i), Allocatable: ResourceList{{Name: "cpu", Value: 1 << 40}, {Name: "pods", Value: 1000}}})
	}
	for i := range 200 {
		p := Pod{Namespace: "ns", Name: fmt.Sprint("p", i), Priority: prios[r.IntN(len(prios))], Requests: ResourceList{{Name: "cpu", Value: 100}}}
		if r.IntN(5) != 0 {
			p.StartUnix = int64(1000 + r.IntN(50))
		}
		if i < 100 {
			p.NodeName = fmt.Sprint("n", r.IntN(4))
		}
		in.Pods = append(in.Pods, p)
	}
	c, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	check := func(step int) {
		t.Helper()
		for j, pr := range c.LowPrio {
			for n := range c.NumNodes() {
				want := int64(math.MinInt64)
				for _, q := range c.PodsOn[n] {
					if c.Pods[q].Priority == pr {
						want = max(want, StartOf(&c.Pods[q]))
					}
				}
				if got := c.LatestStart(j, NodeID(n)); got != want {
					t.Fatalf("step %d: node %d priority %d: latest start %d, want %d", step, n, pr, got, want)
				}
			}
		}
	}
	check(0)
	unbound := 0
	for step := 1; step <= 2000; step++ {
		p := PodID(r.IntN(len(c.Pods)))
		d := c.DemandOf(&c.Pods[p])
		if c.PodNode[p] == NoNode {
			c.Bind(p, NodeID(r.IntN(4)), &d)
		} else {
			c.Unbind(p, &d)
			unbound++
		}
		check(step)
	}
	if len(c.LowPrio) != len(prios) || unbound < 500 {
		t.Fatalf("%d thresholds, %d unbinds: the test does not exercise the column", len(c.LowPrio), unbound)
	}
}
