package rules

import (
	"testing"

	"github.com/kplace/kplace/index"
)

// TestImageLocalityScore: the images a node holds, each scaled by the
// share of nodes holding it, summed, clamped to [23 MiB, 1000 MiB per
// container] and mapped to 0..100 (weight 1).
func TestImageLocalityScore(t *testing.T) {
	const mib = 1 << 20
	node := func(name string, images ...index.NodeImage) index.Node {
		return index.Node{Name: name, Allocatable: index.ResourceList{{Name: "pods", Value: 110}}, Images: images}
	}
	big := index.NodeImage{Names: []string{"app:1"}, Size: 500 * mib}
	small := index.NodeImage{Names: []string{"sidecar:1"}, Size: 10 * mib}
	c, err := index.Build(&index.Input{Nodes: []index.Node{node("a", big, small), node("b", big), node("c"), node("d")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		images     []string
		containers int32
		n          index.NodeID
		want       int64
	}{
		// app:1 on 2 of 4 nodes: 250 MiB; (250-23)*100/(1000-23) = 23.
		{[]string{"app:1"}, 1, 0, 23},
		{[]string{"app:1"}, 1, 2, 0},
		// Two containers: the ceiling doubles, (250-23)*100/(2000-23) = 11.
		{[]string{"app:1", "sidecar:1"}, 2, 0, 11},
		// sidecar:1 alone is below the 23 MiB floor.
		{[]string{"sidecar:1"}, 1, 0, 0},
		// An image named twice counts twice: 500 MiB.
		{[]string{"app:1", "app:1"}, 1, 1, 48},
		{[]string{"other:1"}, 1, 0, 0},
	} {
		p := &index.Pod{Images: tc.images, ImageContainers: tc.containers}
		if got := ImageLocalityScore(c, p, tc.n); got != tc.want {
			t.Errorf("ImageLocalityScore(%v, %d containers, node %d) = %d, want %d", tc.images, tc.containers, tc.n, got, tc.want)
		}
	}
	bare, _ := index.Build(&index.Input{Nodes: []index.Node{node("a")}})
	if got := ImageLocalityScore(bare, &index.Pod{Images: []string{"app:1"}, ImageContainers: 1}, 0); got != 0 {
		t.Errorf("a cluster without node images scores %d", got)
	}
}
