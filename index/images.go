package index

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// Images: what ImageLocality reads of the nodes (status.images), as
// kube-scheduler's cache holds it: every image name with the size of the
// first node (in input order) that lists it, and the nodes that list it.

// Images is the cluster's image table.
type Images struct {
	ID    map[string]int32 // by name
	Size  []int64          // by id: sizeBytes, from the first node listing it
	Nodes []*roaring.Bitmap
}

// IndexImagesAsync starts building c.Images from the nodes'
// status.images on a goroutine of its own, for BuildOn to take with the
// node index c (NodeIndex's); BuildOn waits for it. Nothing else may read
// c.Images.
func (c *Cluster) IndexImagesAsync() {
	done := make(chan struct{})
	c.imagesDone = done
	go func() {
		c.indexImages()
		close(done)
	}()
}

// indexImages builds c.Images from the nodes' status.images (nil maps when
// no node lists an image).
//
// Most nodes list most of a cluster's images, so this is millions of
// lookups at 100,000 nodes. Ingest shares the name lists of equal images
// between nodes (a snapshot's shared rows), so a list seen before maps to
// its ids by where it is held, without hashing its names (until the lists
// seen pass a few per name: then they are not shared); and each image
// collects its nodes in order in a list, made a bitmap at the end, rather
// than adding each to a bitmap of its own (the realistic 100,000-node
// snapshot: 1.2 s of CPU, mostly hashing and bitmap updates, on the
// processor the expansion leaves to it).
func (c *Cluster) indexImages() {
	type listKey struct {
		first *string
		n     int
	}
	seen := map[listKey][]int32{}
	var nodes [][]uint32 // by id
	var scratch []int32
	for i := range c.Nodes {
		for _, im := range c.Nodes[i].Images {
			if len(im.Names) == 0 {
				continue
			}
			// A list's address and length name its contents: nothing
			// changes the nodes' lists while the table is made.
			k := listKey{&im.Names[0], len(im.Names)}
			var ids []int32
			ok := false
			if seen != nil {
				ids, ok = seen[k]
			}
			if !ok {
				ids = scratch[:0]
				for _, name := range im.Names {
					id, ok := c.Images.ID[name]
					if !ok {
						if c.Images.ID == nil {
							c.Images.ID = map[string]int32{}
						}
						id = int32(len(c.Images.Size))
						c.Images.ID[name] = id
						c.Images.Size = append(c.Images.Size, im.Size)
						nodes = append(nodes, nil)
					}
					ids = append(ids, id)
				}
				// Lists not shared would fill the map with one entry per
				// image of every node: past a few per name it stops.
				switch scratch = ids; {
				case seen == nil:
				case len(seen) < 4*len(c.Images.Size)+1024:
					seen[k] = slices.Clone(ids)
				default:
					seen = nil
				}
			}
			for _, id := range ids {
				// A node listing a name twice is added once.
				if l := nodes[id]; len(l) == 0 || l[len(l)-1] != uint32(i) {
					nodes[id] = append(l, uint32(i))
				}
			}
		}
	}
	c.Images.Nodes = make([]*roaring.Bitmap, len(nodes))
	for id, l := range nodes {
		c.Images.Nodes[id] = roaring.BitmapOf(l...)
	}
}

// ImageLocality's thresholds (pkg/scheduler/framework/plugins/imagelocality).
const (
	mb                    int64 = 1024 * 1024
	imageMinThreshold     int64 = 23 * mb
	imageMaxContainerSize int64 = 1000 * mb
)

// ScaledImageScore is ImageLocality's score of image id held by a node:
// its size scaled by the share of the cluster's nodes that hold it.
func (c *Cluster) ScaledImageScore(id int32) int64 {
	spread := float64(c.Images.Nodes[id].GetCardinality()) / float64(len(c.Nodes))
	return int64(float64(c.Images.Size[id]) * spread)
}

// ImageScore is ImageLocality's node score for a pod with containers init
// and app containers whose images held by the node sum to sum (of
// ScaledImageScore): the sum clamped to [23 MiB, 1000 MiB per container],
// then mapped linearly to 0..100.
func ImageScore(sum int64, containers int32) int64 {
	maxThreshold := imageMaxContainerSize * int64(containers)
	if sum < imageMinThreshold {
		sum = imageMinThreshold
	} else if sum > maxThreshold {
		sum = maxThreshold
	}
	return 100 * (sum - imageMinThreshold) / (maxThreshold - imageMinThreshold)
}
