package index

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

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

// TestImageTableSharedLists checks the table against adding each node's
// names one by one, on nodes whose name lists are shared (as a snapshot's
// rows are), sub-lists of a shared list (same start, shorter), and copies
// enough to pass the limit of remembered lists.
func TestImageTableSharedLists(t *testing.T) {
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 3))
		names := make([]string, 24)
		for i := range names {
			names[i] = fmt.Sprintf("img-%d:%d", i, r.IntN(3))
		}
		pool := make([][]string, 12)
		for i := range pool {
			for range 1 + r.IntN(3) {
				pool[i] = append(pool[i], names[r.IntN(len(names))])
			}
		}
		in := &Input{Nodes: make([]Node, 1500+r.IntN(1500))}
		for i := range in.Nodes {
			n := &in.Nodes[i]
			n.Name = fmt.Sprintf("n%d", i)
			for range r.IntN(6) {
				l := pool[r.IntN(len(pool))]
				switch r.IntN(4) {
				case 0:
					l = l[:1+r.IntN(len(l))] // a sub-list
				case 1:
					l = slices.Clone(l) // not shared
				}
				n.Images = append(n.Images, NodeImage{Names: l, Size: int64(1 + r.IntN(1000))})
			}
		}
		c, err := Build(in)
		if err != nil {
			t.Fatal(err)
		}
		var want Images
		want.ID = map[string]int32{}
		for i := range in.Nodes {
			for _, im := range in.Nodes[i].Images {
				for _, name := range im.Names {
					id, ok := want.ID[name]
					if !ok {
						id = int32(len(want.Size))
						want.ID[name] = id
						want.Size = append(want.Size, im.Size)
						want.Nodes = append(want.Nodes, roaring.New())
					}
					want.Nodes[id].Add(uint32(i))
				}
			}
		}
		if !maps.Equal(c.Images.ID, want.ID) || !slices.Equal(c.Images.Size, want.Size) || len(c.Images.Nodes) != len(want.Nodes) {
			t.Fatalf("seed %d: ids %v sizes %v, want %v %v", seed, c.Images.ID, c.Images.Size, want.ID, want.Size)
		}
		for id := range want.Nodes {
			if !c.Images.Nodes[id].Equals(want.Nodes[id]) {
				t.Fatalf("seed %d: image %d on %v, want %v", seed, id, c.Images.Nodes[id].ToArray(), want.Nodes[id].ToArray())
			}
		}
	}
}
