package index

import "testing"

// TestImageScore checks ImageLocality's arithmetic on hand-computed cases:
// the sum clamped to [23 MiB, 1000 MiB per container] and mapped to 0..100
// with integer division.
func TestImageScore(t *testing.T) {
	f := func(sum int64, containers int32, want int64) {
		t.Helper()
		if got := ImageScore(sum, containers); got != want {
			t.Errorf("ImageScore(%d MiB, %d) = %d, want %d", sum/mb, containers, got, want)
		}
	}
	f(0, 1, 0)
	f(22*mb, 1, 0)
	f(23*mb, 1, 0)
	f(250*mb, 1, 23)   // 100*227/977 = 23.2
	f(1000*mb, 1, 100) // the top for one container
	f(5000*mb, 1, 100) // clamped
	f(250*mb, 2, 11)   // 100*227/1977 = 11.5
	f(1500*mb, 2, 74)  // 100*1477/1977 = 74.7
}

// TestImageTable: a name's size is the first node's to list it, in input
// order; a node listing a name twice counts once; the scaled score is the
// size times the share of nodes holding it, truncated.
func TestImageTable(t *testing.T) {
	in := &Input{Nodes: []Node{
		{Name: "a", Images: []NodeImage{{Names: []string{"app:1", "app@sha256:x"}, Size: 300 * mb}, {Names: []string{"app:1"}, Size: 999}}},
		{Name: "b", Images: []NodeImage{{Names: []string{"app:1"}, Size: 100 * mb}}},
		{Name: "c"},
		{Name: "d", Images: []NodeImage{{Names: []string{"base:3"}, Size: 7}}},
	}}
	c, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	app, ok := c.Images.ID["app:1"]
	if !ok || c.Images.Size[app] != 300*mb || c.Images.Nodes[app].GetCardinality() != 2 {
		t.Fatalf("app:1: id %d (%v), size %d, nodes %v", app, ok, c.Images.Size[app], c.Images.Nodes[app].ToArray())
	}
	if got := c.ScaledImageScore(app); got != 150*mb {
		t.Errorf("app:1 scaled %d, want %d (300 MiB on 2 of 4 nodes)", got, 150*mb)
	}
	if got := c.ScaledImageScore(c.Images.ID["base:3"]); got != 1 {
		t.Errorf("base:3 scaled %d, want 1 (7 bytes on 1 of 4 nodes, truncated)", got)
	}
	if len(c.Images.ID) != 3 {
		t.Errorf("%d names, want 3", len(c.Images.ID))
	}
}
