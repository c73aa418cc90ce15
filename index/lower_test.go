package index

import (
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
