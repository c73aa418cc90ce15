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
	s := &Solver{}
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

// TestClassSegsOrder: a domain's shape segments come highest first bound
// first, ties in their order (a stable sort), with few segments (the
// insertion sort) and with more than its buffer holds.
func TestClassSegsOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 4))
	for round := range 200 {
		nseg := 1 + r.IntN(12)
		if round%10 == 9 {
			nseg = 65 + r.IntN(20)
		}
		o := &nodeOrder{segs: make([][]shapeSeg, 1)}
		sh := []shapeShare{{cpu: int64(r.IntN(20 << 8)), mem: int64(r.IntN(20 << 8)), balAdd: int64(r.IntN(26))}}
		for i := range nseg {
			// Few distinct records, so that bounds tie.
			v := uint16(r.IntN(4)) << 12
			o.runs = append(o.runs, nodeRun{cpu: v, mem: v, sum: 2 * uint32(v), dmin: 0, dmax: 0})
			o.segs[0] = append(o.segs[0], shapeSeg{lo: int32(i), hi: int32(i + 1)})
		}
		want := slices.Clone(o.segs[0])
		slices.SortStableFunc(want, func(a, b shapeSeg) int {
			return cmp.Compare(runUpper(&o.runs[b.lo], sh), runUpper(&o.runs[a.lo], sh))
		})
		if got := classSegs(o, 0, sh, nil); !slices.Equal(got, want) {
			t.Fatalf("round %d (%d segments): %v, want %v", round, nseg, got, want)
		}
	}
}
