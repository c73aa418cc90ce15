package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// TestImageLocality: of three equal nodes, two hold the pod's 800 MiB
// image (spread 2/3: 533 MiB scaled, score 100*(533-23)/977 = 52), so the
// pod lands on one of them, with 52 more than the third would score; the
// pods of two workloads with that image share one column of scores, made
// when their class first places and dropped once it is done.
func TestImageLocality(t *testing.T) {
	t.Parallel()
	img := []index.NodeImage{{Names: []string{"registry/big:1"}, Size: 800 << 20}}
	n1, n3 := makeNode("n1").obj(), makeNode("n3").obj()
	n1.Images, n3.Images = img, img
	nodes := []index.Node{n1, makeNode("n2").obj(), n3}
	var pods []index.Pod
	for _, name := range []string{"a", "b"} {
		p := makePod(name).req("cpu", 100).obj()
		p.Images, p.ImageContainers = []string{"registry/big:1"}, 1
		pods = append(pods, p)
	}
	other := makePod("c").req("cpu", 100).obj()
	other.Images, other.ImageContainers = []string{"registry/small:1"}, 1
	pods = append(pods, other)
	c := cluster(t, nodes, pods)
	s := newSolver(c, Config{Seed: 1})
	queue := Queue(c)
	classOf := s.classify(queue)
	s.awaitGroups()
	a, b, o := s.classes[classOf[0]], s.classes[classOf[1]], s.classes[classOf[2]]
	if a.img != nil || o.img != nil {
		t.Fatal("a class has its column before it places a pod")
	}
	s.classImages(a)
	s.classImages(o)
	if a != b || !a.hasImg || o.hasImg || len(s.imageCols) != 2 {
		t.Fatalf("classes: a==b %v, a scored %v, c scored %v, %d columns", a == b, a.hasImg, o.hasImg, len(s.imageCols))
	}
	if ra, ro := a.imgRef, o.imgRef; ra.ahead != nil || ro.ahead != nil || !ra.made || !ro.made || ra.col == nil || ro.col != nil {
		t.Fatalf("columns after set-up: a's made %v (column %v), c's made %v (column %v); want both made by the group initialisers, c's all zeros",
			ra.made, ra.col != nil, ro.made, ro.col != nil)
	}
	if got := []uint8{a.img[0], a.img[1], a.img[2]}; got[0] != 52 || got[1] != 0 || got[2] != 52 {
		t.Fatalf("image scores %v, want [52 0 52]", got)
	}
	c = cluster(t, nodes, pods)
	s = newSolver(c, Config{Seed: 1})
	res := s.solve()
	got := outcomes(c, res)
	if got["a"] == "n2" || got["b"] == "n2" {
		t.Errorf("a on %s, b on %s: want the nodes holding the image", got["a"], got["b"])
	}
	if len(s.imageCols) != 0 {
		t.Errorf("%d columns kept after every class placed its pods; want them dropped", len(s.imageCols))
	}
}

// TestImagesWithoutNodeImages: when no node lists images, the pods'
// images do not split classes (ImageLocality is 0 everywhere).
func TestImagesWithoutNodeImages(t *testing.T) {
	t.Parallel()
	nodes := []index.Node{makeNode("n1").obj(), makeNode("n2").obj()}
	var pods []index.Pod
	for _, im := range []string{"x:1", "y:1"} {
		p := makePod(im).req("cpu", 100).obj()
		p.Images, p.ImageContainers = []string{im}, 1
		pods = append(pods, p)
	}
	c := cluster(t, nodes, pods)
	s := newSolver(c, Config{Seed: 1})
	classOf := s.classify(Queue(c))
	s.awaitGroups()
	if classOf[0] != classOf[1] || s.classes[classOf[0]].hasImg {
		t.Errorf("classes %v, scored %v: want one class without image scores", classOf, s.classes[classOf[0]].hasImg)
	}
}

// TestImageColumnMatchesRule: imageColumn's scores equal ImageLocality's
// rule on every node, for pods of one to four images (repeated, or held
// by no node), or of more than its score table takes, over images of
// random sizes on random shares of the nodes,
// whether or not a node holding them all could score (the column skips
// the nodes then), on clusters of up to 70,000 nodes, each column made in
// the last one's buffer.
func TestImageColumnMatchesRule(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 11))
	for round := range 32 {
		nImages := 1 + r.IntN(6)
		if round%3 == 2 {
			nImages = maxImageParts + 1 + r.IntN(3) // pods past the score table
		}
		sizes := make([]int64, nImages)
		for i := range sizes {
			sizes[i] = (1 + r.Int64N(1500)) << 20
		}
		// The last two rounds hold 70,000 nodes: node sets past 65,536
		// ids, and dense enough for bitmap containers.
		nodes := make([]index.Node, 40+r.IntN(80))
		if round >= 30 {
			nodes = make([]index.Node, 70000)
		}
		for i := range nodes {
			n := makeNode(fmt.Sprintf("n%d", i)).obj()
			for j := range nImages {
				if r.IntN(4) <= round%4 {
					n.Images = append(n.Images, index.NodeImage{Names: []string{fmt.Sprintf("img%d", j)}, Size: sizes[j]})
				}
			}
			nodes[i] = n
		}
		var pods []index.Pod
		for i := range 12 {
			p := makePod(fmt.Sprintf("p%d", i)).req("cpu", 100).obj()
			for range 1 + r.IntN(4) {
				p.Images = append(p.Images, fmt.Sprintf("img%d", r.IntN(nImages+1))) // img<nImages> is on no node
			}
			if i%2 == 0 && nImages > maxImageParts {
				for j := range nImages {
					p.Images = append(p.Images, fmt.Sprintf("img%d", j))
				}
			}
			p.ImageContainers = int32(1 + r.IntN(len(p.Images)))
			pods = append(pods, p)
		}
		c := cluster(t, nodes, pods)
		s := newSolver(c, Config{Seed: 1})
		var scored, zero int
		for i := range c.Pods {
			p := &c.Pods[i]
			is, top := imageColumn(c, p, &s.imgScratch, &s.freeCols)
			col := is.col
			var want uint8
			for n := range c.NumNodes() {
				w := rules.ImageLocalityScore(c, p, index.NodeID(n)) / rules.WeightImageLocality
				want = max(want, uint8(w))
				var got int64
				if col != nil {
					got = int64(col[n])
				}
				if got != w {
					t.Fatalf("round %d, pod %s (images %v, %d containers), node %d: column %d, rule %d", round, p.Name, p.Images, p.ImageContainers, n, got, w)
				}
				if col != nil && (is.nz[n/64]>>(n%64)&1 == 1) != (w != 0) {
					t.Fatalf("round %d, pod %s, node %d: nonzero bit %d, score %d", round, p.Name, n, is.nz[n/64]>>(n%64)&1, w)
				}
			}
			if top != want {
				t.Fatalf("round %d, pod %s: top %d, want %d", round, p.Name, top, want)
			}
			if col == nil {
				zero++
			} else {
				scored++
				s.freeCols = append(s.freeCols, is) // the next column reuses it, as after a dropped class
			}
		}
		t.Logf("round %d: %d pods scored on some node, %d on none", round, scored, zero)
	}
}

// TestImageColumnsMadeAhead: the group initialisers make each image list's
// column, while held at their lead or after the last group, the same
// column the placement loop would make; a column the loop asks for first
// (or drops unread) is taken back from the initialiser, which then leaves
// it.
func TestImageColumnsMadeAhead(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 3))
	const nImages = 5
	var nodes []index.Node
	for i := range 300 {
		n := makeNode(fmt.Sprintf("n%d", i)).label("pool", fmt.Sprintf("p%d", i%3)).obj()
		for j := range nImages {
			if r.IntN(3) == 0 {
				n.Images = append(n.Images, index.NodeImage{Names: []string{fmt.Sprintf("img%d", j)}, Size: int64(200+j*300) << 20})
			}
		}
		nodes = append(nodes, n)
	}
	var pods []index.Pod
	for i := range 60 {
		// Three node pools make three groups; image lists repeat across them.
		p := makePod(fmt.Sprintf("p%d", i)).req("cpu", 100).selector("pool", fmt.Sprintf("p%d", r.IntN(3))).obj()
		p.Images = []string{fmt.Sprintf("img%d", r.IntN(nImages)), fmt.Sprintf("img%d", r.IntN(nImages))}
		p.ImageContainers = 2
		pods = append(pods, p)
	}
	for _, lead := range []int{0, 1} {
		// Lead 1: held after each group, the initialisers make columns
		// meanwhile; otherwise after the last group.
		c := cluster(t, nodes, pods)
		s := newSolver(c, Config{Seed: 1, sw: switches{groupLead: lead}})
		classOf := s.classify(Queue(c))
		if lead == 1 {
			// Nothing waits for a group, so the initialisers stay held
			// after the first: every column must come while they are.
			deadline := time.Now().Add(10 * time.Second)
			for _, ref := range s.ahead {
				select {
				case <-ref.ahead:
				case <-time.After(time.Until(deadline)):
					t.Fatalf("column %q not made while the initialisers are held", ref.key)
				}
			}
			ready := 0
			for _, cl := range s.classes {
				select {
				case <-cl.g.ready:
					ready++
				default:
				}
			}
			if ready == len(s.classes) {
				t.Fatal("every group ready under a lead of 1: the initialisers were never held")
			}
		}
		s.awaitGroups()
		checkColumnsAhead(t, c, s, classOf)
	}
	// Taken back before the initialiser starts: it leaves the column.
	ref := &imageCol{ahead: make(chan struct{})}
	ref.settle()
	if ref.ahead != nil || ref.state.Load() != 1 || ref.made {
		t.Fatalf("settled first: ahead %v, state %d, made %v", ref.ahead != nil, ref.state.Load(), ref.made)
	}
	if ref.state.CompareAndSwap(0, 1) {
		t.Fatal("the initialiser could still take a column the loop took back")
	}
	// The whole solve places as before: the columns dropped at the end.
	c := cluster(t, nodes, pods)
	s := newSolver(c, Config{Seed: 1})
	res := s.solve()
	if len(res.Pending) != 0 || len(s.imageCols) != 0 {
		t.Fatalf("%d pending, %d columns kept", len(res.Pending), len(s.imageCols))
	}
}

// checkColumnsAhead checks that the initialisers made every image column
// of s's classes, each equal to the one the loop would make.
func checkColumnsAhead(t *testing.T, c *index.Cluster, s *Solver, classOf []int32) {
	t.Helper()
	var ahead, cols int
	seen := map[*imageCol]bool{}
	for _, id := range classOf {
		ref := s.classes[id].imgRef
		if ref == nil || seen[ref] {
			continue
		}
		seen[ref] = true
		if ref.ahead == nil || !ref.made || ref.state.Load() != 1 {
			t.Fatalf("column %q: ahead %v, made %v, state %d; want made by an initialiser", ref.key, ref.ahead != nil, ref.made, ref.state.Load())
		}
		var sc imageScratch
		want, top := imageColumn(c, &c.Pods[ref.rep], &sc, nil)
		if !slices.Equal(ref.col, want.col) || !slices.Equal(ref.nz, want.nz) || ref.max != top {
			t.Fatalf("column %q made ahead differs from the loop's", ref.key)
		}
		ahead++
		if ref.col != nil {
			cols++
		}
	}
	if ahead < 5 || cols < 3 {
		t.Fatalf("%d columns made ahead, %d not all zeros: the test no longer exercises them", ahead, cols)
	}
}
