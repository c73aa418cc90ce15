package solver

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver/rules"
)

// TestRunUpperBoundsItsNodes checks runUpper against shapeUpper on random
// runs of records and random shares: never below any node's bound, equal
// to it on a run of one node. Shares above a node's parts (a node whose
// free room in non-zero requests is below the class's share, where the
// per-resource bound clamps to 0) and the three balance cases (a bound
// alone, by the shape's share, none) come up.
func TestRunUpperBoundsItsNodes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 7))
	part := func() uint16 { return uint16(r.IntN(int(maxNodeScore<<8 | 255))) }
	var clamped, tight, runs int
	for range 20000 {
		sh := make([]shapeShare, 1)
		sh[0] = shapeShare{cpu: int64(r.IntN(40 << 8)), mem: int64(r.IntN(40 << 8))}
		switch r.IntN(3) {
		case 0: // a balance bound alone (the shared shape)
			sh[0].balAdd = int64(r.IntN(26))
		case 1: // by the shape's share
			sh[0].dq = int64(r.IntN(2*balScale+1) - balScale)
		default: // no BalancedAllocation score
			sh[0].balAdd = -weightBalanced * balanceTerm(0)
		}
		run := nodeRun{shape: 0, dmin: math.MaxInt16, dmax: math.MinInt16} // as takeMaxima starts
		recs := make([]fitRec, 1+r.IntN(runLen))
		if r.IntN(4) == 0 {
			recs = recs[:1]
		}
		for i := range recs {
			recs[i] = fitRec{cpu: part(), mem: part(), balCap: uint8(r.IntN(101)), d: int16(r.IntN(2*balScale+1) - balScale)}
			if r.IntN(4) == 0 {
				recs[i].d = int16(r.IntN(3) - 1)
			}
			if r.IntN(3) == 0 { // near a share: one part clamps
				recs[i].cpu = uint16(max(sh[0].cpu-int64(r.IntN(3<<8)), 0))
			}
			run.raise(recs[i])
		}
		ub := runUpper(&run, sh)
		best := int64(-1)
		for _, f := range recs {
			nb := shapeUpper(f, sh)
			if int64(f.cpu) < sh[0].cpu || int64(f.mem) < sh[0].mem {
				clamped++
			}
			if nb > ub {
				t.Fatalf("run %+v with shares %+v: bound %d below node %+v's %d", run, sh[0], ub, f, nb)
			}
			best = max(best, nb)
		}
		if len(recs) == 1 && ub != best {
			t.Fatalf("run of one node %+v with shares %+v: bound %d, the node's %d", recs[0], sh[0], ub, best)
		}
		if ub == best {
			tight++
		}
		runs++
	}
	if clamped < 1000 || tight < runs/4 {
		t.Fatalf("%d clamped records, %d of %d runs tight: the test no longer exercises the bound", clamped, tight, runs)
	}
	t.Logf("%d runs, %d tight, %d clamped records", runs, tight, clamped)
}

// TestSessionFindsUntaintedRuns: nodes of the larger shape all carry a
// NoSchedule taint in a session's first batch, so their runs hold no node
// its group finds feasible; their taints go before the second batch,
// whose pods (a class of their own) take the larger nodes, as a fresh
// session's do.
func TestSessionFindsUntaintedRuns(t *testing.T) {
	t.Parallel()
	in := &index.Input{}
	for i := range 1200 {
		b := makeNode(fmt.Sprintf("n%d", i)).label("zone", []string{"a", "b", "c"}[i%3]).alloc("pods", 110)
		if i%2 == 0 {
			b.alloc("cpu", 4000).alloc("memory", 16<<30)
		} else {
			b.alloc("cpu", 16000).alloc("memory", 64<<30).taint("dedicated", "x", index.EffectNoSchedule)
		}
		in.Nodes = append(in.Nodes, b.obj())
	}
	owner := &index.OwnerRef{Kind: index.KindReplicaSet, Name: "web-rs", APIVersion: "apps/v1"}
	in.Workloads = append(in.Workloads,
		index.Workload{Kind: index.KindReplicaSet, Namespace: "default", Name: "web-rs", Selector: sel("app", "web")},
		index.Workload{Kind: index.KindService, Namespace: "default", Name: "web", Selector: &index.LabelSelector{MatchLabels: map[string]string{"app": "web"}}})
	for i := range 80 {
		// The second batch's pods request more: a class of their own, of
		// the same group, whose first fill scans the runs.
		p := makePod(fmt.Sprintf("web-%d", i)).label("app", "web").req("cpu", int64(500+100*(i/40))).req("memory", 1<<30).created(int64(i)).obj()
		p.Owner = owner
		in.Pods = append(in.Pods, p)
	}
	cfg := Config{Seed: 1, DefaultSpread: BuiltinDefaultSpread(), SystemDefaultSpread: true}
	run := func(fresh bool) []string {
		c, err := index.Build(cloneInput(in))
		if err != nil {
			t.Fatal(err)
		}
		pending := slices.Clone(c.Pending)
		var out []string
		var ss *Session
		for b := range 2 {
			if b == 1 {
				for n := range index.NodeID(c.NumNodes()) {
					c.SetTaints(n, nil)
				}
			}
			c.Pending = pending[b*40 : b*40+40]
			if ss == nil || fresh {
				ss = NewSession(c, cfg)
			}
			res := ss.Solve()
			if res.leanFills == 0 {
				t.Fatalf("batch %d: no lean fill; the test no longer exercises the runs", b)
			}
			large := 0
			for _, cm := range res.Commits {
				out = append(out, fmt.Sprintf("%d %s %s", b, c.Pods[cm.Pod].Name, c.Nodes[cm.Node].Name))
				if cm.Node%2 == 1 {
					large++
				}
			}
			if want := []int{0, 40}[b]; len(res.Commits) != 40 || large != want {
				t.Fatalf("batch %d (fresh %v): %d bindings, %d on the larger nodes, want 40 and %d", b, fresh, len(res.Commits), large, want)
			}
		}
		return out
	}
	if kept, fresh := run(false), run(true); !slices.Equal(kept, fresh) {
		t.Fatalf("the session placed\n%s\nand fresh sessions\n%s", strings.Join(kept, "\n"), strings.Join(fresh, "\n"))
	}
}

// TestBalanceBoundAboveScore checks balanceBound, from a node's rounded
// balance difference and a shape's rounded share, against
// BalancedAllocation's exact score on random nodes and requests where the
// pod fits, many with fractions equal or a unit apart (where the rounding
// and the truncations meet), and that it is often exact.
func TestBalanceBoundAboveScore(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 11))
	checked, equal := 0, 0
	for range 400000 {
		capCPU, capMem := int64(1000*(1+r.IntN(64))), int64(1+r.IntN(256))<<30
		useCPU, useMem := r.Int64N(capCPU+1), r.Int64N(capMem+1)
		if r.IntN(3) == 0 { // the same fraction of each, or nearly
			useMem = capMem / capCPU * useCPU
			if r.IntN(2) == 0 {
				useMem += int64(r.IntN(3) - 1)
			}
		}
		podCPU, podMem := r.Int64N(capCPU-useCPU+1), r.Int64N(capMem-useMem+1)
		if r.IntN(3) == 0 {
			podMem = capMem / capCPU * podCPU
		}
		if podCPU == 0 && podMem == 0 || useMem < 0 || useMem > capMem || useMem+podMem > capMem {
			continue
		}
		a, b := float64(podCPU)/float64(capCPU), float64(podMem)/float64(capMem)
		k := shapeShare{dq: int64(math.Round((a - b) * balScale))}
		d := balanceDiff(float64(useCPU)/float64(capCPU), float64(useMem)/float64(capMem))
		got := k.balanceBound(int64(d))
		want := weightBalanced * rules.BalancedScore(useCPU, useMem, podCPU, podMem, capCPU, capMem)
		if got < want {
			t.Fatalf("cap %d/%d, used %d/%d, pod %d/%d: bound %d below the score %d", capCPU, capMem, useCPU, useMem, podCPU, podMem, got, want)
		}
		checked++
		if got == want {
			equal++
		}
	}
	if checked < 200000 || equal < checked/2 {
		t.Fatalf("%d checked, %d exact: the test no longer exercises the bound", checked, equal)
	}
	t.Logf("%d checked, the bound exact on %d", checked, equal)
}

// TestRunTailsBoundTheirSegments: after random rises and falls of the
// nodes' shape records (noteRec), each run's tail maxima still bound the
// records of every node from that run to the end of its shape segment,
// which is what lets a scan leave a segment at the first run whose tail
// cannot enter. Without the rises' lift (noteRec) it fails.
func TestRunTailsBoundTheirSegments(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 9))
	const nodes = 3000
	// Nodes in three pools (untainted, tainted, cordoned), so that
	// segments split by pool as well as by shape.
	s := &Solver{c: &index.Cluster{Nodes: make([]index.Node, nodes), NodeTaints: make([][]int32, nodes),
		Taints: []index.Taint{{Key: "dedicated", Value: "ml", Effect: "NoSchedule"}}}}
	for n := range s.c.Nodes {
		switch r.IntN(3) {
		case 1:
			s.c.Nodes[n].Taints = s.c.Taints
			s.c.NodeTaints[n] = []int32{0}
		case 2:
			s.c.Nodes[n].Unschedulable = true
		}
	}
	s.fitRecs = make([]fitRec, nodes)
	s.ties = make([]uint32, nodes)
	s.hot = make([]nodeHot, nodes)
	rec := func(shape uint8) fitRec {
		return fitRec{cpu: uint16(r.IntN(1 << 15)), mem: uint16(r.IntN(1 << 15)), balCap: uint8(r.IntN(101)),
			d: int16(r.IntN(2*balScale+1) - balScale), shape: shape}
	}
	for n := range nodes {
		s.fitRecs[n] = rec(uint8(r.IntN(3)))
		s.ties[n] = r.Uint32()
		s.hot[n].tie = s.ties[n]
	}
	o := &nodeOrder{remake: true}
	s.orderList = []*nodeOrder{o}
	s.makeOrder(o)
	check := func(step int) {
		for _, segs := range o.segs {
			for _, sg := range segs {
				have := nodeRun{dmin: math.MaxInt16, dmax: math.MinInt16}
				for j := sg.hi - 1; j >= sg.lo; j-- {
					for _, n := range o.nodes[o.runs[j].start : o.runs[j].start+int32(o.runs[j].n)] {
						have.raise(s.fitRecs[n])
					}
					tl := &o.tail[j]
					if tl.cpu < have.cpu || tl.mem < have.mem || tl.sum < have.sum || tl.balCap < have.balCap || tl.dmin > have.dmin || tl.dmax < have.dmax {
						t.Fatalf("step %d: run %d's tail %+v does not bound its segment's nodes from it on (%+v)", step, j, *tl, have)
					}
				}
			}
		}
	}
	check(0)
	// A segment's nodes are of one shape and one pool, and the pools of
	// the three kinds of node differ.
	pools := map[uint8]bool{}
	for _, segs := range o.segs {
		for _, sg := range segs {
			first := o.nodes[o.runs[sg.lo].start]
			for _, n := range o.nodes[o.runs[sg.lo].start : o.runs[sg.hi-1].start+int32(o.runs[sg.hi-1].n)] {
				if s.fitRecs[n].shape != sg.shape || s.poolOf[n] != s.poolOf[first] {
					t.Fatalf("segment %+v holds node %d (shape %d, pool %d) and node %d (pool %d)", sg, n, s.fitRecs[n].shape, s.poolOf[n], first, s.poolOf[first])
				}
			}
			pools[s.poolOf[first]] = true
		}
	}
	if len(pools) != 3 {
		t.Fatalf("the segments hold %d pools, want 3", len(pools))
	}
	rises := 0
	for step := 1; step <= 20000; step++ {
		n := index.NodeID(r.IntN(nodes))
		was := s.fitRecs[n]
		now := rec(was.shape)
		if now.cpu > was.cpu || now.mem > was.mem || now.balCap > was.balCap || now.d < was.d {
			rises++
		}
		s.fitRecs[n] = now
		s.noteRec(n, was, now)
		if step%500 == 0 {
			check(step)
		}
	}
	if o.remake || rises < 10000 {
		t.Fatalf("remake %v, %d rises: the test no longer exercises the tails' lift", o.remake, rises)
	}
}

// TestClassSegsOrder: a domain's shape segments holding a feasible run
// come highest first bound first, ties in their order (a stable sort),
// with few segments and with more than classSegs' buffer holds; those
// without one are left out.
func TestClassSegsOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 4))
	for round := range 200 {
		nseg := 1 + r.IntN(12)
		if round%10 == 9 {
			nseg = 90 + r.IntN(40)
		}
		o := &nodeOrder{segs: make([][]shapeSeg, 1)}
		sh := []shapeShare{{cpu: int64(r.IntN(20 << 8)), mem: int64(r.IntN(20 << 8)), balAdd: int64(r.IntN(26))}}
		var want []shapeSeg
		feas := make([]uint64, 8)
		for range nseg {
			// Few distinct records, so that bounds tie; segments of 1 to 3
			// runs, a feasible run in most.
			sg := shapeSeg{lo: int32(len(o.runs))}
			for range 1 + r.IntN(3) {
				v := uint16(r.IntN(4)) << 12
				o.runs = append(o.runs, nodeRun{cpu: v, mem: v, sum: 2 * uint32(v), dmin: 0, dmax: 0})
			}
			sg.hi = int32(len(o.runs))
			if r.IntN(4) > 0 {
				j := sg.lo + r.Int32N(sg.hi-sg.lo)
				feas[j>>6] |= 1 << (j & 63)
				want = append(want, sg)
			}
			o.segs[0] = append(o.segs[0], sg)
		}
		slices.SortStableFunc(want, func(a, b shapeSeg) int {
			return cmp.Compare(runUpper(&o.runs[b.lo], sh), runUpper(&o.runs[a.lo], sh))
		})
		if got := classSegs(o, 0, sh, feas, nil); !slices.Equal(got, want) {
			t.Fatalf("round %d (%d segments): %v, want %v", round, nseg, got, want)
		}
	}
}

// TestSegCursorTakesEachRunOnce checks the cursors of scanRuns' passes on
// random feasible-run words and segments: the k workers' cursors take
// every feasible run of the segment exactly once, in order, worker w the
// runs whose position among the segment's feasible runs is w mod k, and
// nothing outside the segment.
func TestSegCursorTakesEachRunOnce(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 9))
	for round := range 5000 {
		feas := make([]uint64, 1+r.IntN(4))
		for i := range feas {
			switch r.IntN(3) {
			case 0: // sparse
				feas[i] = r.Uint64() & r.Uint64() & r.Uint64()
			case 1:
				feas[i] = r.Uint64()
			}
		}
		n := int32(64 * len(feas))
		lo := r.Int32N(n + 1)
		sg := shapeSeg{lo: lo, hi: lo + r.Int32N(n-lo+1)}
		var want []int32
		for j := sg.lo; j < sg.hi; j++ {
			if feas[j>>6]&(1<<(j&63)) != 0 {
				want = append(want, j)
			}
		}
		k := 1 + r.IntN(3)
		for w := range k {
			var got, exp []int32
			for c := newSegCursor(sg, feas, k, w); c.next >= 0; c.advance(feas, k) {
				got = append(got, c.next)
			}
			for i := w; i < len(want); i += k {
				exp = append(exp, want[i])
			}
			if !slices.Equal(got, exp) {
				t.Fatalf("round %d: segment %v, worker %d of %d: took %v, want %v", round, sg, w, k, got, exp)
			}
		}
	}
}
