package index

import "testing"

// TestTopologySingleton: a key whose every value labels one node (a
// hostname) is singleton; one whose value labels two nodes is not, nor
// is a key of three values one of which two nodes share; a key on no
// node has no domain, and is.
func TestTopologySingleton(t *testing.T) {
	t.Parallel()
	nodes := []Node{
		{Name: "a", Labels: map[string]string{"host": "a", "zone": "z1", "rack": "r1", "pair": "p"}},
		{Name: "b", Labels: map[string]string{"host": "b", "zone": "z1", "rack": "r2", "pair": "p"}},
		{Name: "c", Labels: map[string]string{"host": "c", "zone": "z2", "rack": "r2"}},
		{Name: "d", Labels: map[string]string{"zone": "z3", "rack": "r3"}},
	}
	c, err := NodeIndex(nodes)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want bool
	}{{"host", true}, {"zone", false}, {"rack", false}, {"pair", false}, {"none", true}} {
		topo := c.Topology(tc.key)
		single := true
		for d := range topo.Size {
			if got := len(topo.Members(int32(d))); got != int(topo.Size[d]) {
				t.Fatalf("%s: domain %s holds %d nodes, Size %d", tc.key, topo.Values[d], got, topo.Size[d])
			}
			single = single && topo.Size[d] <= 1
		}
		if got := topo.Singleton(); got != tc.want || got != single {
			t.Errorf("%s: Singleton %v, want %v (sizes %v)", tc.key, got, tc.want, topo.Size)
		}
	}
}
