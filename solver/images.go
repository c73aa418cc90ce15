package solver

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync/atomic"

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
// before the first of them is scored and dropped when the last is
// released: at 100,000 nodes a column takes 100 KB, and the classes of a
// workload's pods place in a stretch of the queue. The group initialisers
// make most columns ahead, off the placement loop (imagesAhead): on the
// realistic 100,000-node export the loop spent 0.4-0.5 s making them.
type imageCol struct {
	key string
	imageScores
	max  uint8 // the highest score in col
	made bool
	refs int
	// ahead is set when a group initialiser may make the column (see
	// imagesAhead), for the pod rep: closed once made there. state
	// goes from 0 to 1 when the initialiser or the placement loop takes
	// the making, whichever comes first.
	ahead chan struct{}
	state atomic.Int32
	rep   index.PodID
}

// imagesAhead lists the columns of the classes from first on, not made
// yet, in queue order, for the group initialisers to make (initGroups)
// off the placement loop; placement makes one itself when it needs it
// first (settle). Only new groups' classes list theirs: the initialisers
// run when there are new groups.
func (s *Solver) imagesAhead(first int) {
	s.ahead = s.ahead[:0]
	for _, cl := range s.classes[first:] {
		ref := cl.imgRef
		if ref == nil || ref.made || ref.ahead != nil || cl.g.ready != nil {
			continue
		}
		ref.ahead, ref.rep = make(chan struct{}), cl.rep
		s.ahead = append(s.ahead, ref)
	}
}

// settle waits for a column being made ahead, or takes its making back
// (then the caller makes it, or drops it).
func (ref *imageCol) settle() {
	if ref.ahead == nil {
		return
	}
	if !ref.state.CompareAndSwap(0, 1) {
		<-ref.ahead
	}
	ref.ahead = nil
}

// imageScores is an ImageLocality column (nil until made, or when 0 on
// every node) and the bitset of the nodes where it is not 0: a static
// score reads the column, 1 byte a node at random, only where the bit is
// set (12.5 KB at 100,000 nodes, against 100 KB).
type imageScores struct {
	col []uint8
	nz  []uint64
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
		cl.img, cl.imgNZ, cl.hasImg = s.noImageScores(), nil, false
		return
	}
	if ref.settle(); !ref.made {
		ref.imageScores, ref.max = imageColumn(s.c, &s.c.Pods[cl.rep], &s.imgScratch, &s.freeCols)
		ref.made = true
	}
	cl.img, cl.imgNZ, cl.hasImg = ref.col, ref.nz, ref.col != nil
	if !cl.hasImg {
		cl.img = s.noImageScores()
	}
}

// dropImages releases cl's column: the last class of its image list
// drops it.
func (s *Solver) dropImages(cl *class) {
	if ref := cl.imgRef; ref != nil {
		if ref.refs--; ref.refs == 0 {
			ref.settle()
			delete(s.imageCols, ref.key)
			if ref.col != nil && len(s.freeCols) < maxFreeCols {
				s.freeCols = append(s.freeCols, ref.imageScores) // no class reads it any more
			}
			ref.imageScores = imageScores{}
		}
		cl.imgRef = nil
	}
	cl.img, cl.imgNZ, cl.hasImg = nil, nil, false
}

// imageColumn returns the ImageLocality scores of p's images on every
// node (a nil column when they are 0 on every node), and the highest of
// them.
// The score only rises with the images a node holds, so when a node
// holding them all would score 0 no node is visited (most pods: an image
// on few nodes is scaled down by its spread). Otherwise the images' node
// sets are written out as bitsets and walked a word at a time.
//
// It only reads the cluster's image sets, so the group initialisers run it
// too, each with its own scratch; free holds columns to reuse (nil: make
// new ones).
func imageColumn(c *index.Cluster, p *index.Pod, sc *imageScratch, free *[]imageScores) (imageScores, uint8) {
	parts := sc.parts[:0]
	var all int64
	for _, name := range p.Images { // a repeated image counts each time
		id, ok := c.Images.ID[name]
		if !ok {
			continue
		}
		scaled := c.ScaledImageScore(id)
		all += scaled
		if i := slices.IndexFunc(parts, func(ip imagePart) bool { return ip.id == id }); i >= 0 {
			parts[i].score += scaled
		} else {
			parts = append(parts, imagePart{id: id, score: scaled})
		}
	}
	sc.parts = parts
	if index.ImageScore(all, p.ImageContainers) == 0 {
		return imageScores{}, 0
	}
	words := (c.NumNodes() + 63) / 64
	for len(sc.words) < len(parts) {
		sc.words = append(sc.words, nil)
	}
	sets := sc.words[:len(parts)]
	for i, ip := range parts {
		sets[i] = slices.Grow(sets[i][:0], words)[:words]
		clear(sets[i])
		c.Images.Nodes[ip.id].WriteDenseTo(sets[i])
	}
	// The score of a node by which of the images it holds (bit i: image
	// i), for up to maxImageParts distinct images.
	var table []uint8
	if len(parts) <= maxImageParts {
		table = sc.table[:0]
		for m := range 1 << len(parts) {
			var sum int64
			for i := range parts {
				if m&(1<<i) != 0 {
					sum += parts[i].score
				}
			}
			table = append(table, uint8(index.ImageScore(sum, p.ImageContainers)))
		}
		sc.table = table
	}
	var col []uint8
	var nz []uint64
	var top uint8
	newCol := func() []uint8 {
		if free != nil && len(*free) > 0 {
			k := len(*free)
			f := (*free)[k-1]
			*free = (*free)[:k-1]
			clear(f.col)
			clear(f.nz)
			nz = f.nz
			return f.col
		}
		nz = make([]uint64, words)
		return make([]uint8, c.NumNodes())
	}
	for wi := range words {
		// Mostly each image is on all of a word's nodes that hold any:
		// they all score alike.
		var any uint64
		for _, st := range sets {
			any |= st[wi]
		}
		if any == 0 {
			continue
		}
		if table != nil {
			m, same := 0, true
			for i, st := range sets {
				switch st[wi] {
				case any:
					m |= 1 << i
				case 0:
				default:
					same = false
				}
			}
			if same {
				if v := table[m]; v > 0 {
					if col == nil {
						col = newCol()
					}
					top = max(top, v)
					nz[wi] = any
					if any == ^uint64(0) && wi*64+64 <= len(col) {
						for i := range col[wi*64 : wi*64+64] {
							col[wi*64+i] = v
						}
						continue
					}
					for x := any; x != 0; x &= x - 1 {
						col[wi*64+bits.TrailingZeros64(x)] = v
					}
				}
				continue
			}
		}
		// Which images each node holds (bit i: image i), set image by
		// image.
		var held [64]uint8
		if table != nil {
			for i, st := range sets {
				for x := st[wi]; x != 0; x &= x - 1 {
					held[bits.TrailingZeros64(x)] |= 1 << i
				}
			}
		}
		for x := any; x != 0; x &= x - 1 {
			b := bits.TrailingZeros64(x)
			var v uint8
			if table != nil {
				v = table[held[b]]
			} else {
				var sum int64
				for i, st := range sets {
					if st[wi]&(1<<b) != 0 {
						sum += parts[i].score
					}
				}
				v = uint8(index.ImageScore(sum, p.ImageContainers))
			}
			if v > 0 {
				if col == nil {
					col = newCol()
				}
				col[wi*64+b] = v
				nz[wi] |= 1 << b
				top = max(top, v)
			}
		}
	}
	return imageScores{col: col, nz: nz}, top
}

// maxFreeCols bounds the columns dropped classes leave for the next ones
// (100 KB each at 100,000 nodes).
const maxFreeCols = 8

// maxImageParts bounds the distinct images of a pod whose score table
// imageColumn makes (2^maxImageParts entries).
const maxImageParts = 8

// imageScratch is imageColumn's scratch: the pod's distinct images, their
// node sets as bitsets, the score table.
type imageScratch struct {
	parts []imagePart
	words [][]uint64
	table []uint8
}

// imagePart is one distinct image of a pod: its id and its scaled score
// times the times the pod names it.
type imagePart struct {
	id    int32
	score int64
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
