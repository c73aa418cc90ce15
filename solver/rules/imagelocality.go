package rules

// ImageLocality (pkg/scheduler/framework/plugins/imagelocality): a node
// scores by the images of the pod's containers it already holds, each worth
// its size times the share of the cluster's nodes holding it, the sum
// clamped and mapped to 0..100; no normalisation. The image table and the
// plugin's arithmetic are index's (Cluster.Images, ScaledImageScore,
// ImageScore), which ingest and the solver's score columns use too.

import "github.com/kplace/kplace/index"

// ImageLocalityScore is the weighted score of node n for pod p: the scaled
// scores of p's images that n holds (an image named twice counts twice)
// mapped by index.ImageScore. 0 when no node lists images.
func ImageLocalityScore(c *index.Cluster, p *index.Pod, n index.NodeID) int64 {
	if c.Images.ID == nil || len(p.Images) == 0 {
		return 0
	}
	var sum int64
	for _, name := range p.Images {
		if id, ok := c.Images.ID[name]; ok && c.Images.Nodes[id].Contains(n) {
			sum += c.ScaledImageScore(id)
		}
	}
	return WeightImageLocality * index.ImageScore(sum, p.ImageContainers)
}
