package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestBuildLevels: a session's level-ordered build keeps entries and a
// cut such that no node it did not keep is better than the cut and every
// one it kept is, and its best entry is a full scan's best node.
func TestBuildLevels(t *testing.T) {
	stopped := 0
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 17))
		nodes, pods := randomCluster(r)
		for i := 0; len(nodes) < 4000; i++ {
			n := nodes[i]
			n.Name = fmt.Sprintf("%s-copy%d", n.Name, i)
			nodes = append(nodes, n)
		}
		for i := range 3000 { // load the nodes unevenly
			pods = append(pods, makePod(fmt.Sprintf("load%d", i)).req("cpu", int64(50*(1+r.IntN(10)))).
				req("memory", int64(1+r.IntN(8))<<26).on(nodes[r.IntN(len(nodes))].Name).obj())
		}
		c := cluster(t, nodes, pods)
		s := newSolver(c, Config{Seed: seed})
		s.lv, s.session = newBoundLevels(s.bound), true
		queue := Queue(c)
		classOf := s.classify(queue)
		s.awaitGroups()
		for i, cid := range classOf {
			if cid < 0 || i%7 != 0 {
				continue
			}
			cl := s.classes[cid]
			s.build(cl)
			kept := map[index.NodeID]bool{}
			best := entry{score: -1 << 62}
			for _, e := range cl.heap {
				kept[e.node] = true
				if better(&e, &best) {
					best = e
				}
			}
			full := entry{score: -1 << 62}
			for n := range c.NumNodes() {
				id := index.NodeID(n)
				if cl.g.dense[n>>6]&(1<<(n&63)) == 0 || !s.fits(id, cl) {
					continue
				}
				e := entry{score: s.score(cl, id), tie: s.hot[n].tie, node: id}
				if better(&e, &full) {
					full = e
				}
				if !kept[id] && (!cl.truncated || better(&e, &cl.cut)) {
					t.Fatalf("seed %d, class of %s: node %d (score %d) left out, above the cut %+v", seed, c.Pods[queue[i]].Name, n, e.score, cl.cut)
				}
			}
			if full.score > -1<<62 && (best.node != full.node || best.score != full.score) && !better(&cl.cut, &best) {
				t.Fatalf("seed %d: the build's best %+v is not the full scan's %+v", seed, best, full)
			}
			for _, e := range cl.heap {
				if cl.truncated && !better(&e, &cl.cut) {
					t.Fatalf("seed %d: the build kept %+v, not better than its cut %+v (a scan keeps only entries above what it leaves out)", seed, e, cl.cut)
				}
			}
			if cl.truncated && cl.cut.tie == ^uint32(0) {
				stopped++
			}
		}
	}
	if stopped == 0 {
		t.Fatal("no build stopped early: the test does not test it")
	}
}
