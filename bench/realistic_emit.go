package bench

// Emission of the realistic profile: the items in kubectl's order, cut
// into units that every core renders, written in order.

import (
	"bytes"
	"cmp"
	"runtime"
	"slices"
	"strconv"
	"sync"
)

// Unit kinds, in the order kubectl prints the kinds.
const (
	uPod = iota
	uNode
	uDeploy
	uRS
	uSTS
	uDS
	uJob
	uSvc
	uPDB
	uPC
)

// rUnit is a run of items of one kind: pods a..b (in name order) of group
// g, or entries a..b of the kind's sorted list.
type rUnit struct {
	kind  uint8
	g     int32
	a, b  int32
	first bool // holds the List's first item
}

// rsRef is a ReplicaSet: a pod group, or an old revision of workload w.
type rsRef struct {
	w, g, h int32 // g or h is -1
}

// rLists are the sorted lists of the kinds.
type rLists struct {
	nodes, deploys, sts, ds, jobs, svcs, pdbs []int32
	rs                                        []rsRef
}

const podsPerUnit, objsPerUnit = 128, 64

// emit writes the List.
func (rg *rgen) emit() error {
	lists := rg.sortAll()
	rg.buildNodeImages()
	first := true
	add := func(kind uint8, g int32, n int, per int) {
		for a := 0; a < n; a += per {
			rg.units = append(rg.units, rUnit{kind: kind, g: g, a: int32(a), b: int32(min(a+per, n)), first: first})
			first = false
		}
	}
	for _, gi := range rg.groupOrder() {
		add(uPod, gi, int(rg.emitted(&rg.groups[gi])), podsPerUnit)
	}
	add(uNode, -1, len(lists.nodes), objsPerUnit/4)
	add(uDeploy, -1, len(lists.deploys), objsPerUnit)
	add(uRS, -1, len(lists.rs), objsPerUnit)
	add(uSTS, -1, len(lists.sts), objsPerUnit)
	add(uDS, -1, len(lists.ds), 1)
	add(uJob, -1, len(lists.jobs), objsPerUnit)
	add(uSvc, -1, len(lists.svcs), objsPerUnit)
	add(uPDB, -1, len(lists.pdbs), objsPerUnit)
	add(uPC, -1, len(priorityClasses), objsPerUnit)

	rg.write([]byte(`{"apiVersion":"v1","items":[`))
	workers := runtime.GOMAXPROCS(0)
	out := make([]chan []byte, workers)
	free := make([]chan []byte, workers)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for k := range workers {
		out[k] = make(chan []byte, 2)
		free[k] = make(chan []byte, 3)
		for range 3 {
			free[k] <- make([]byte, 0, 1<<20)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &rWorker{rg: rg, lists: lists}
			for u := k; u < len(rg.units); u += workers {
				var b []byte
				select {
				case b = <-free[k]:
				case <-stop:
					return
				}
				out[k] <- w.unit(b[:0], &rg.units[u])
			}
		}()
	}
	for u := range rg.units {
		k := u % workers
		b := <-out[k]
		rg.write(b)
		free[k] <- b
	}
	close(stop)
	wg.Wait()
	rg.write([]byte("\n],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}\n"))
	return rg.err
}

// emitted is the number of pods of gr the output holds.
func (rg *rgen) emitted(gr *rGroup) int32 {
	if rg.workloads {
		return gr.finished + gr.running
	}
	return gr.pods()
}

// groupOrder sorts the groups by namespace and owner name, and each
// group's pods by name (rgen.order): the order of the pods' names.
func (rg *rgen) groupOrder() []int32 {
	gs := make([]int32, len(rg.groups))
	for i := range gs {
		gs[i] = int32(i)
		gr := &rg.groups[i]
		if gr.kind == gBare {
			gr.key = gr.name
		} else {
			gr.key = gr.name + "-"
		}
	}
	slices.SortFunc(gs, func(a, b int32) int {
		ga, gb := &rg.groups[a], &rg.groups[b]
		if c := cmp.Compare(rg.nss[rg.ws[ga.w].ns].name, rg.nss[rg.ws[gb.w].ns].name); c != 0 {
			return c
		}
		return cmp.Compare(ga.key, gb.key)
	})
	type keyed struct {
		k [24]byte
		i int32
	}
	var ks []keyed
	for _, gi := range gs {
		gr := &rg.groups[gi]
		gr.orderOff = int32(len(rg.order))
		n := rg.emitted(gr)
		ks = ks[:0]
		for i := int32(0); i < n; i++ {
			var k keyed
			copy(k.k[:], rg.podTail(nil, gr, i))
			k.i = i
			ks = append(ks, k)
		}
		slices.SortFunc(ks, func(a, b keyed) int { return bytes.Compare(a.k[:], b.k[:]) })
		for _, k := range ks {
			rg.order = append(rg.order, k.i)
		}
	}
	return gs
}

// podTail is what follows "<owner>-" in the name of pod i of gr.
func (rg *rgen) podTail(b []byte, gr *rGroup, i int32) []byte {
	off := splitmix(gr.podUID ^ rg.uidSalt)
	switch gr.kind {
	case gBare:
		return b
	case gSTS:
		return strconv.AppendInt(b, int64(i), 10)
	case gJob:
		if rg.ws[gr.w].indexed {
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, '-')
		}
	}
	return appendSuffix(b, int(i), off%(27*27*27*27*27))
}

func (rg *rgen) sortAll() *rLists {
	l := &rLists{}
	l.nodes = make([]int32, len(rg.nodes))
	for i := range l.nodes {
		l.nodes[i] = int32(i)
	}
	slices.SortFunc(l.nodes, func(a, b int32) int { return cmp.Compare(rg.nodes[a].name, rg.nodes[b].name) })
	cmpW := func(a, b int32) int {
		wa, wb := &rg.ws[a], &rg.ws[b]
		if c := cmp.Compare(rg.nss[wa.ns].name, rg.nss[wb.ns].name); c != 0 {
			return c
		}
		return cmp.Compare(wa.name, wb.name)
	}
	for wi := range rg.ws {
		w := &rg.ws[wi]
		switch w.kind {
		case wDeploy:
			l.deploys = append(l.deploys, int32(wi))
			for _, gi := range w.groups {
				l.rs = append(l.rs, rsRef{w: int32(wi), g: gi, h: -1})
			}
			for hi := range w.history {
				l.rs = append(l.rs, rsRef{w: int32(wi), g: -1, h: int32(hi)})
			}
		case wSTS:
			l.sts = append(l.sts, int32(wi))
		case wDS:
			l.ds = append(l.ds, int32(wi))
		case wJob:
			l.jobs = append(l.jobs, int32(wi))
		}
	}
	for _, s := range [][]int32{l.deploys, l.sts, l.ds, l.jobs} {
		slices.SortFunc(s, cmpW)
	}
	slices.SortFunc(l.rs, func(a, b rsRef) int {
		if c := cmp.Compare(rg.nss[rg.ws[a.w].ns].name, rg.nss[rg.ws[b.w].ns].name); c != 0 {
			return c
		}
		return cmp.Compare(rg.rsName(a), rg.rsName(b))
	})
	l.svcs = make([]int32, len(rg.svcs))
	for i := range l.svcs {
		l.svcs[i] = int32(i)
	}
	slices.SortFunc(l.svcs, func(a, b int32) int {
		sa, sb := &rg.svcs[a], &rg.svcs[b]
		if c := cmp.Compare(rg.nss[sa.ns].name, rg.nss[sb.ns].name); c != 0 {
			return c
		}
		return cmp.Compare(sa.name, sb.name)
	})
	l.pdbs = make([]int32, len(rg.pdbs))
	for i := range l.pdbs {
		l.pdbs[i] = int32(i)
	}
	slices.SortFunc(l.pdbs, func(a, b int32) int {
		pa, pb := &rg.pdbs[a], &rg.pdbs[b]
		if c := cmp.Compare(rg.nss[pa.ns].name, rg.nss[pb.ns].name); c != 0 {
			return c
		}
		return cmp.Compare(pa.name, pb.name)
	})
	return l
}

func (rg *rgen) rsName(r rsRef) string {
	if r.g >= 0 {
		return rg.groups[r.g].name
	}
	return rg.ws[r.w].history[r.h].name
}

// buildNodeImages lists, for each node, the templates whose pods run there
// (their images are on the node).
func (rg *rgen) buildNodeImages() {
	rg.nodeImg = make([][]int32, len(rg.nodes))
	for gi := range rg.groups {
		gr := &rg.groups[gi]
		for k := int32(0); k < gr.running; k++ {
			ni := rg.podNodes[gr.nodeOff+k]
			l := rg.nodeImg[ni]
			if len(l) == 0 || l[len(l)-1] != gr.tpl {
				rg.nodeImg[ni] = append(l, gr.tpl)
			}
		}
	}
}

// rWorker renders units.
type rWorker struct {
	rg    *rgen
	lists *rLists
	nb    []byte // scratch: a name
	ab    []byte // scratch
	kvs   []kv
	mfG   int32  // the group mf was rendered for
	mf    []byte // its controller's managedFields entry, up to the time
	imgs  []imgRef
}

func (w *rWorker) unit(b []byte, u *rUnit) []byte {
	rg := w.rg
	for i := u.a; i < u.b; i++ {
		if u.first && i == u.a {
			b = append(b, '\n')
		} else {
			b = append(b, ",\n"...)
		}
		switch u.kind {
		case uPod:
			gr := &rg.groups[u.g]
			b = w.pod(b, u.g, gr, rg.order[gr.orderOff+i])
		case uNode:
			b = w.node(b, w.lists.nodes[i])
		case uDeploy:
			b = w.deployment(b, w.lists.deploys[i])
		case uRS:
			b = w.replicaSet(b, w.lists.rs[i])
		case uSTS:
			b = w.statefulSet(b, w.lists.sts[i])
		case uDS:
			b = w.daemonSet(b, w.lists.ds[i])
		case uJob:
			b = w.job(b, w.lists.jobs[i])
		case uSvc:
			b = w.service(b, w.lists.svcs[i])
		case uPDB:
			b = w.pdb(b, w.lists.pdbs[i])
		case uPC:
			b = w.priorityClass(b, i)
		}
	}
	return b
}
