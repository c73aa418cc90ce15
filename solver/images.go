package solver

import (
	"encoding/binary"

	"github.com/kplace/kplace/index"
)

// ImageLocality (weight 1): a node scores by the images of the pod's
// containers it already holds, each worth its size times the share of the
// cluster's nodes holding it (index.ScaledImageScore), the sum mapped to
// 0..100 (index.ImageScore). It does not normalise over the nodes, so a
// class adds a column of node scores to its static scores, made once per
// image list (classes of one workload's pods share it; see imageCol): a node without any
// of the images scores 0, and most image lists score 0 everywhere (an
// image on few nodes of a large cluster is worth little), which keeps the
// class's static scores flat.

// imageCol is the ImageLocality column of one image list (imageKey) and
// the classes made with that list not released yet. The column is made
// when the first of them is scored and dropped when the last is
// released: at 100,000 nodes a column takes 100 KB, and the classes of a
// workload's pods place in a stretch of the queue.
type imageCol struct {
	key  string
	col  []uint8 // nil until made, or when 0 on every node
	max  uint8   // the highest score in col
	made bool
	refs int
}

// imageRef returns the column of p's images for a new class (counted in
// its refs), nil when p's images score 0 everywhere for want of images.
func (s *Solver) imageRef(p *index.Pod) *imageCol {
	if s.c.Images.ID == nil || len(p.Images) == 0 {
		return nil
	}
	key := imageKey(p)
	ref := s.imageCols[key]
	if ref == nil {
		if s.imageCols == nil {
			s.imageCols = map[string]*imageCol{}
		}
		ref = &imageCol{key: key}
		s.imageCols[key] = ref
	}
	ref.refs++
	return ref
}

// classImages gives cl its ImageLocality column (img, hasImg), made if
// no class made it yet. The static scores' preparation calls it
// (prepareStatic, leanMaxima), before cl's first score.
func (s *Solver) classImages(cl *class) {
	ref := cl.imgRef
	if ref == nil {
		cl.img, cl.hasImg = s.noImageScores(), false
		return
	}
	if !ref.made {
		ref.col, ref.max = s.imageColumn(&s.c.Pods[cl.rep])
		ref.made = true
	}
	cl.img, cl.hasImg = ref.col, ref.col != nil
	if !cl.hasImg {
		cl.img = s.noImageScores()
	}
}

// dropImages releases cl's column: the last class of its image list
// drops it.
func (s *Solver) dropImages(cl *class) {
	if ref := cl.imgRef; ref != nil {
		if ref.refs--; ref.refs == 0 {
			delete(s.imageCols, ref.key)
		}
		cl.imgRef = nil
	}
	cl.img, cl.hasImg = nil, false
}

// imageColumn returns the ImageLocality scores of p's images on every
// node, or nil when they are 0 on every node, and the highest of them.
// The score only rises with the images a node holds, so when a node
// holding them all would score 0 no node is visited (most pods: an image
// on few nodes is scaled down by its spread).
func (s *Solver) imageColumn(p *index.Pod) ([]uint8, uint8) {
	c := s.c
	var all int64
	for _, name := range p.Images {
		if id, ok := c.Images.ID[name]; ok {
			all += c.ScaledImageScore(id)
		}
	}
	if index.ImageScore(all, p.ImageContainers) == 0 {
		return nil, 0
	}
	sum := s.imageSum
	if sum == nil {
		sum = make([]int64, c.NumNodes())
		s.imageSum = sum
	}
	touched := s.imageTouched[:0]
	for _, name := range p.Images { // a repeated image counts each time
		id, ok := c.Images.ID[name]
		if !ok {
			continue
		}
		sc := c.ScaledImageScore(id)
		for it := c.Images.Nodes[id].Iterator(); it.HasNext(); {
			n := it.Next()
			if sum[n] == 0 {
				touched = append(touched, index.NodeID(n))
			}
			sum[n] += sc
		}
	}
	var col []uint8
	var top uint8
	for _, n := range touched {
		if v := index.ImageScore(sum[n], p.ImageContainers); v > 0 {
			if col == nil {
				col = make([]uint8, c.NumNodes())
			}
			col[n] = uint8(v)
			top = max(top, uint8(v))
		}
		sum[n] = 0
	}
	s.imageTouched = touched[:0]
	return col, top
}

// imageMax is the highest ImageLocality score cl has on a node (0 without
// images); its column must be made (classImages).
func (cl *class) imageMax() int64 {
	if !cl.hasImg {
		return 0
	}
	return int64(cl.imgRef.max)
}

// imageKey names what p's ImageLocality scores depend on.
func imageKey(p *index.Pod) string {
	b := binary.AppendUvarint(nil, uint64(p.ImageContainers))
	for _, name := range p.Images {
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
	}
	return string(b)
}

// noImageScores returns the column of zeros of the classes without
// ImageLocality scores.
func (s *Solver) noImageScores() []uint8 {
	if s.noImages == nil {
		s.noImages = make([]uint8, s.c.NumNodes())
	}
	return s.noImages
}

// imageEncoder returns a key encoder that writes pods' images when the
// cluster's nodes list any.
func (s *Solver) imageEncoder() keyEncoder {
	return keyEncoder{images: s.c.Images.ID != nil}
}
