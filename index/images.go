package index

import "github.com/RoaringBitmap/roaring/v2"

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
func (c *Cluster) indexImages() {
	for i := range c.Nodes {
		for _, im := range c.Nodes[i].Images {
			for _, name := range im.Names {
				id, ok := c.Images.ID[name]
				if !ok {
					if c.Images.ID == nil {
						c.Images.ID = map[string]int32{}
					}
					id = int32(len(c.Images.Size))
					c.Images.ID[name] = id
					c.Images.Size = append(c.Images.Size, im.Size)
					c.Images.Nodes = append(c.Images.Nodes, roaring.New())
				}
				c.Images.Nodes[id].Add(uint32(i))
			}
		}
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
