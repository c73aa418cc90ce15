package ingest

import (
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/kplace/kplace/index"
)

// Parallel decoding of JSON lists. One goroutine walks the stream and cuts
// list items out into batches (the walker with par set); workers parse and
// convert the items of a batch (the pure part, convert); the calling
// goroutine applies the results in input order (duplicates, UIDs,
// appends), so the result is the same as a sequential read.

func (l *loader) workers() int {
	if l.opts.Parallelism > 0 {
		return l.opts.Parallelism
	}
	return runtime.GOMAXPROCS(0)
}

type evKind uint8

const (
	evItem    evKind = iota // a list item
	evObject                // a top-level object, parsed by the reader
	evListEnd               // the end of a list: its kind is final
	evError                 // the stream is malformed; nothing follows
)

type event struct {
	kind evKind
	raw  []byte // evItem: the item's bytes (in the batch's arena)
	src  index.Source
	list *listState // evItem (nil in a bare array), evListEnd
	// evItem: the list's kind and apiVersion when known before its items.
	known               bool
	listKind, listAPI   string
	obj                 *wireObject // evObject; evItem: left for the merger
	apiVersion, objKind string      // evObject
	conv                *converted  // evItem: the worker's result
	err                 error       // evError; evItem: a parse error

	// A guessed item (spec.go): where it ends in the stream (0: cut by
	// structure), where it starts, and whether the guess was wrong.
	guessEnd int64
	miss     specMiss
	wrong    bool
}

type batch struct {
	seq   int
	epoch int   // the walker's epoch: a wrong guess ends one
	check int64 // the end of the batch's last guessed item (0: none)
	ev    []event
	arena []byte
	big   int         // bytes of the items too large for the arena, copied apart
	convs []converted // the workers' results (ev.conv points here)
}

const (
	batchBytes  = 1 << 20
	batchEvents = 2048
)

// reader is the walker's side of the pipeline.
type reader struct {
	cur   *batch
	arena int // the next batch's arena size: grows to batchBytes
	seq   int
	epoch int
	jobs  chan<- *batch
	quit  <-chan struct{}
	stop  bool // quit was closed: drop everything
}

func (r *reader) add(ev event) {
	r.open()
	r.cur.ev = append(r.cur.ev, ev)
	if ev.guessEnd > 0 {
		r.cur.check = ev.guessEnd
	}
	if len(r.cur.ev) >= batchEvents || len(r.cur.arena) >= cap(r.cur.arena)*7/8 || r.cur.big >= batchBytes {
		r.flush()
	}
}

func (r *reader) open() {
	if r.cur != nil {
		return
	}
	if r.arena < batchBytes {
		r.arena = max(64<<10, 2*r.arena)
	}
	r.cur = &batch{seq: r.seq, epoch: r.epoch, arena: getArena(r.arena), ev: getEvents()}
	r.seq++
}

// Batches' arenas, event slices and results are recycled: a large export
// cuts gigabytes of items into arenas that are garbage as soon as the items
// are parsed (every string is copied out), and collecting them dominated
// the memory traffic of ingest; a result is copied out when it is applied.
var (
	arenaPool  sync.Pool // *[]byte of capacity batchBytes
	eventsPool sync.Pool // *[]event, empty
	convsPool  sync.Pool // *[]converted, zeroed
)

func getArena(size int) []byte {
	if size == batchBytes {
		if b, ok := arenaPool.Get().(*[]byte); ok {
			return (*b)[:0]
		}
	}
	return make([]byte, 0, size)
}

func putArena(b []byte) {
	if cap(b) == batchBytes {
		arenaPool.Put(&b)
	}
}

func getEvents() []event {
	if e, ok := eventsPool.Get().(*[]event); ok {
		return *e
	}
	return nil
}

// putEvents recycles a batch's events once they are applied; what they
// point to is dropped.
func putEvents(e []event) {
	clear(e)
	e = e[:0]
	eventsPool.Put(&e)
}

// getConvs returns n zeroed results.
func getConvs(n int) []converted {
	if c, ok := convsPool.Get().(*[]converted); ok && cap(*c) >= n {
		return (*c)[:n]
	}
	return make([]converted, n, max(n, 256))
}

// putConvs recycles a batch's results once they are applied.
func putConvs(c []converted) {
	if c == nil {
		return
	}
	clear(c)
	convsPool.Put(&c)
}

func (r *reader) flush() {
	if r.cur == nil || r.stop {
		r.cur = nil
		return
	}
	select {
	case r.jobs <- r.cur:
	case <-r.quit:
		r.stop = true
	}
	r.cur = nil
}

// item queues a list item; raw is copied.
func (r *reader) item(raw []byte, src index.Source, list *listState) {
	r.guessed(raw, src, list, specMiss{}, 0)
}

// guessed queues a list item cut by a guess that ends at stream offset
// end (0: cut by structure); raw is copied.
func (r *reader) guessed(raw []byte, src index.Source, list *listState, miss specMiss, end int64) {
	r.open()
	var b []byte
	if len(raw) > cap(r.cur.arena)/4 {
		b = append([]byte(nil), raw...)
		r.cur.big += len(b) // a batch holds about batchBytes of them at most
	} else {
		if len(r.cur.arena)+len(raw) > cap(r.cur.arena) {
			r.flush()
			r.guessed(raw, src, list, miss, end)
			return
		}
		start := len(r.cur.arena)
		r.cur.arena = append(r.cur.arena, raw...)
		b = r.cur.arena[start:len(r.cur.arena):len(r.cur.arena)]
	}
	ev := event{kind: evItem, raw: b, src: src, list: list, guessEnd: end, miss: miss}
	if list != nil && list.obj.Kind != "" {
		ev.known, ev.listKind, ev.listAPI = true, list.obj.Kind, list.obj.APIVersion
	} else if list == nil {
		ev.known = true // a bare array: items must carry their kind
	}
	r.add(ev)
}

func (r *reader) listEnd(list *listState) { r.add(event{kind: evListEnd, list: list}) }

// work parses and converts the items of a batch. obj is the worker's
// scratch object and in its interner, whose slabs hold parts of the
// object: a converted object keeps none of them.
func work(b *batch, obj *wireObject, in *interner, filters *resourceFilter, opts Options) {
	b.convs = getConvs(len(b.ev))
	for i := range b.ev {
		ev := &b.ev[i]
		if ev.kind != evItem {
			continue
		}
		*obj = wireObject{}
		in.newObject()
		raw := ev.raw
		err := parseItemInto(obj, raw, ev.src, in)
		ev.raw = nil
		if err != nil && ev.guessEnd > 0 {
			ev.wrong = true // the walker cuts it again by structure
			continue
		}
		if err != nil {
			ev.err = err
			continue
		}
		if obj.Kind == "" && !ev.known {
			ev.obj = keep(raw, ev.src, in) // the list's kind comes later
			continue
		}
		apiVersion, kind, err := itemKind(obj, ev.listKind, ev.listAPI, ev.src)
		if err != nil {
			// Kept too: behind items held for their list's kind, the
			// error comes when the list ends, as a sequential read finds it.
			ev.err, ev.obj = err, keep(raw, ev.src, in)
			continue
		}
		if strings.HasSuffix(kind, "List") && obj.HasItems {
			ev.obj = keep(raw, ev.src, in) // nested list: the merger flattens it
			continue
		}
		ev.conv = &b.convs[i]
		convert(ev.conv, obj, apiVersion, kind, ev.src, filters, opts)
	}
	putArena(b.arena) // nothing parsed points into it
	b.arena = nil
}

// keep parses an item again into an object of its own, outside the
// worker's slab (it parsed once already).
func keep(raw []byte, src index.Source, in *interner) *wireObject {
	in.slab = false
	defer func() { in.slab = true }()
	o, _ := parseItem(raw, src, in)
	return o
}

// heldItem is an item of a list whose kind is not known yet.
type heldItem struct {
	obj  *wireObject
	conv *converted
	src  index.Source
}

// readJSONParallel reads a JSON stream with n workers.
func (l *loader) readJSONParallel(path string, r io.Reader, n int) error {
	jobs := make(chan *batch, 2*n)
	done := make(chan *batch, 2*n)
	quit := make(chan struct{})

	rd := &reader{jobs: jobs, quit: quit}
	w := &jsonWalker{file: path, s: newStream(r, streamWindow), intern: newInterner(), par: rd, sp: newSpecState()}
	w.s.max = l.opts.maxObject()
	w.emit = func(o *wireObject, apiVersion, kind string, src index.Source) error {
		rd.add(event{kind: evObject, obj: o, apiVersion: apiVersion, objKind: kind, src: src})
		return nil
	}
	go func() {
		if err := w.walk(); err != nil {
			rd.add(event{kind: evError, err: err})
		}
		rd.flush()
		close(jobs)
	}()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := newInterner()
			in.slab = true
			var filters resourceFilter
			var obj wireObject
			for b := range jobs {
				work(b, &obj, in, &filters, l.opts)
				done <- b
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()

	// Apply in input order.
	mw := &jsonWalker{file: path, emit: l.emit, intern: l.intern}
	held := map[*listState][]heldItem{}
	pending := map[int]*batch{}
	next := 0
	live := 0 // batches of earlier epochs hold what follows a wrong guess
	var firstErr error
	apply := func(ev *event) error {
		switch ev.kind {
		case evError:
			return ev.err
		case evObject:
			return l.emit(ev.obj, ev.apiVersion, ev.objKind, ev.src)
		case evListEnd:
			items := held[ev.list]
			delete(held, ev.list)
			for _, h := range items {
				var err error
				if h.conv != nil {
					err = l.apply(h.conv)
				} else {
					err = mw.emitItem(ev.list, h.obj, h.src, 0)
				}
				if err != nil {
					return err
				}
			}
			return nil
		}
		if ev.err != nil {
			if hs, ok := held[ev.list]; ok && ev.obj != nil { // an item without its kind (see work)
				held[ev.list] = append(hs, heldItem{ev.obj, nil, ev.src})
				return nil
			}
			return ev.err
		}
		if hs, ok := held[ev.list]; ev.list != nil && (ok || (ev.obj != nil && ev.obj.Kind == "")) {
			// Keep the list's order until its kind is known.
			conv := ev.conv
			if conv != nil {
				conv = new(converted)
				*conv = *ev.conv // the batch's results are recycled
			}
			held[ev.list] = append(hs, heldItem{ev.obj, conv, ev.src})
			return nil
		}
		if ev.conv != nil {
			return l.apply(ev.conv)
		}
		return mw.emitItem(ev.list, ev.obj, ev.src, 0) // a nested list
	}
	for b := range done {
		if firstErr != nil {
			continue // drain
		}
		pending[b.seq] = b
		for {
			nb, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			for i := range nb.ev {
				if nb.epoch < live {
					break
				}
				if nb.ev[i].wrong {
					w.sp.fail(nb.ev[i].miss)
					live = nb.epoch + 1
					break
				}
				if err := apply(&nb.ev[i]); err != nil {
					firstErr = err
					close(quit)
					break
				}
			}
			if firstErr != nil {
				break
			}
			if nb.check > 0 && nb.epoch >= live {
				w.sp.check(nb.check)
			}
			putEvents(nb.ev)
			putConvs(nb.convs)
			nb.ev, nb.convs = nil, nil
		}
	}
	if specTrace != nil {
		specTrace(w.sp) // the walker has ended: jobs, then done, were closed
	}
	return firstErr
}
