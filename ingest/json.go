package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kplace/kplace/index"
)

// Streaming JSON: a stream holds one or more top-level values, objects or
// arrays of objects. An object with "items" is a list; its items are cut
// out of the stream one at a time and parsed (package jp), so a list never
// sits in memory whole.

// maxListDepth bounds nested lists (a List inside a List's items).
const maxListDepth = 8

// stream is a refillable window over a reader, counting lines.
type stream struct {
	r    io.Reader
	buf  []byte
	pos  int // next byte to read
	end  int // end of valid data
	mark int // start of the value being captured, -1 when none
	eof  bool
	rerr error // read error other than io.EOF

	lineIdx int // newlines before buf[lineIdx] are counted in line
	line    int // line number at buf[lineIdx]
	total   int64

	// max bounds the window, and so one value (0: no bound, for text
	// already in memory): a value that fills it is refused (rerr).
	max int64

	// hold is the stream offset (see offset) from which the window keeps
	// its bytes, -1 when none: guessed items not yet checked (spec.go).
	hold int64
}

// maxStreamWindow is the window a large input grows to (larger only for
// objects that need it).
const maxStreamWindow = 1 << 20

// maxHeldWindow is the window a stream that holds bytes (spec.go) grows to,
// once it has read heldGrowAfter bytes: on a smaller input the window's
// memory (and its smaller predecessors', until collected) costs more than
// moving the held bytes saves.
const (
	maxHeldWindow = 64 << 20
	heldGrowAfter = 4 << 30
)

// streamWindow is a stream's first window (tests make it small, so that
// small inputs cross window boundaries).
var streamWindow = 64 << 10

func newStream(r io.Reader, size int) *stream {
	return &stream{r: r, buf: make([]byte, size), mark: -1, line: 1, hold: -1}
}

// fill reads more data, compacting and growing the buffer; false at end.
func (s *stream) fill() bool {
	for !s.eof {
		val := s.pos // the value being read starts here
		if s.mark >= 0 && s.mark < val {
			val = s.mark
		}
		keep := val
		if s.hold >= 0 {
			keep = max(0, min(keep, int(s.hold-s.offset(0))))
		}
		held := val - keep // bytes kept for the hold alone
		if keep > 0 && (s.end == len(s.buf) || keep >= len(s.buf)/2) {
			if s.lineIdx < keep {
				s.line += bytes.Count(s.buf[s.lineIdx:keep], []byte{'\n'})
				s.lineIdx = keep
			}
			copy(s.buf, s.buf[keep:s.end])
			s.end -= keep
			s.pos -= keep
			s.lineIdx -= keep
			if s.mark >= 0 {
				s.mark -= keep
			}
			val -= keep
		}
		if s.end == len(s.buf) && s.max > 0 && int64(s.end-val) >= s.max {
			// Full, and one value fills it from its start to the limit
			// (the bytes held before it do not count).
			s.tooLarge(val)
			return false
		}
		if s.end == len(s.buf) || (s.total > 4*int64(len(s.buf)) && len(s.buf) < maxStreamWindow) ||
			(held > 0 && s.total > heldGrowAfter && s.end > len(s.buf)/4 && len(s.buf) < maxHeldWindow) {
			// Full (an item larger than the window), or a large input:
			// grow, so reads are large. Or, past the first heldGrowAfter
			// bytes, bytes held before the value (spec.go) fill a quarter
			// of it: grow, so that each move of them lets in at least
			// three times as much.
			size := 2 * len(s.buf)
			if s.max > 0 {
				size = int(min(int64(size), max(s.max+int64(val), int64(len(s.buf)))))
			}
			nb := make([]byte, size)
			copy(nb, s.buf[:s.end])
			s.buf = nb
		}
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		s.total += int64(n)
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.rerr = err
			}
		}
		if n > 0 {
			return true
		}
	}
	return false
}

// tooLarge ends the stream on a value, starting at buf[start], larger
// than the limit, and returns the error.
func (s *stream) tooLarge(start int) error {
	s.rerr = &limitError{what: "a JSON value", limit: s.max, flag: flagMaxObject, line: s.lineAt(start)}
	s.eof = true
	return s.rerr
}

// fillTo reads until the window holds n bytes from the mark (or the
// stream ends), so that a value parsed again after each read is parsed
// a logarithmic number of times, not once per read; false when nothing
// more could be read.
func (s *stream) fillTo(n int) bool {
	read := false
	for s.end-s.mark < n && s.fill() {
		read = true
	}
	return read
}

// lineAt returns the line of buf[i]; calls come in increasing order of
// stream position.
func (s *stream) lineAt(i int) int {
	if i > s.lineIdx {
		s.line += bytes.Count(s.buf[s.lineIdx:i], []byte{'\n'})
		s.lineIdx = i
	}
	return s.line
}

// peek skips whitespace and returns the next byte; ok is false at the end.
func (s *stream) peek() (byte, bool) {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, true
			}
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// capture cuts the next value out of the stream (after whitespace) and
// returns its bytes, valid until the next read; the value is only
// delimited here, the parser validates it. On an error the stream is left
// at the value's start (reads may have moved the buffer: an index taken
// before the call is stale), so buf[pos:end] is what was read of it.
func (s *stream) capture() (v []byte, err error) {
	c, ok := s.peek()
	if !ok {
		return nil, io.ErrUnexpectedEOF
	}
	s.mark = s.pos
	defer func() {
		if err == nil && s.max > 0 && int64(len(v)) > s.max {
			v, err = nil, s.tooLarge(s.mark) // it fit in the window
		}
		if err != nil {
			s.pos = s.mark
		}
		s.mark = -1
	}()
	j := s.pos // scan position
	switch c {
	case '{', '[':
		var z structScan
		for {
			end, how := z.scan(s.buf[:s.end], j, s.eof)
			if how == scanDone {
				v := s.buf[s.mark:end]
				s.pos = end
				return v, nil
			}
			if s.eof {
				return nil, io.ErrUnexpectedEOF
			}
			rel := end - s.mark
			s.fill() // at the end of input, the next scan reads every byte
			j = s.mark + rel
		}
	case '"':
		j, err := s.stringEnd(j)
		if err != nil {
			return nil, err
		}
		v := s.buf[s.mark:j]
		s.pos = j
		return v, nil
	default:
		for {
			for j < s.end {
				switch s.buf[j] {
				case ',', '}', ']', ' ', '\t', '\n', '\r':
					v := s.buf[s.mark:j]
					s.pos = j
					return v, nil
				}
				j++
			}
			rel := j - s.mark
			if !s.fill() {
				v := s.buf[s.mark:s.end]
				s.pos = s.end
				return v, nil
			}
			j = s.mark + rel
		}
	}
}

// stringEnd returns the index after the string starting at buf[j] (a
// quote), reading more as needed; the string lies after s.mark.
func (s *stream) stringEnd(j int) (int, error) {
	k := j + 1
	for {
		q := bytes.IndexByte(s.buf[k:s.end], '"')
		if q < 0 {
			relJ, relK := j-s.mark, s.end-s.mark
			if !s.fill() {
				return 0, io.ErrUnexpectedEOF
			}
			j, k = s.mark+relJ, s.mark+relK
			continue
		}
		k += q
		n := 0
		for m := k - 1; m > j && s.buf[m] == '\\'; m-- {
			n++
		}
		k++
		if n%2 == 0 {
			return k, nil
		}
	}
}

// errStopped ends a reader whose results are no longer wanted.
var errStopped = errors.New("ingest: stopped")

// locator gives the source line of an object by its index among the items
// of the top-level list (YAML documents).
type locator interface {
	// objectLine returns the line of the item-th item of the top-level
	// list; item is -1 for a top-level object, -2 otherwise.
	objectLine(item int) int
}

// emitFn receives one decoded object with its effective kind and apiVersion.
type emitFn func(o *wireObject, apiVersion, kind string, src index.Source) error

// jsonWalker walks a stream of JSON values.
type jsonWalker struct {
	file string
	s    *stream
	loc  locator // nil: lines are counted in the stream
	emit emitFn

	scratch wireObject // the item being parsed; emit must not keep it
	intern  *interner
	par     *reader    // set: items are cut out and handed to workers
	sp      *specState // set with par: items are cut by their layout first
}

// readJSONFile reads a JSON file (already decompressed).
func (l *loader) readJSONFile(path string, r io.Reader) error {
	if n := l.workers(); n > 1 {
		return l.readJSONParallel(path, r, n)
	}
	w := &jsonWalker{file: path, s: newStream(r, streamWindow), emit: l.emit, intern: l.intern}
	w.s.max = l.opts.maxObject()
	return w.walk()
}

// line returns the source line of the value at buf[i].
func (w *jsonWalker) line(i, item int) int {
	if w.loc != nil {
		return w.loc.objectLine(item)
	}
	return w.s.lineAt(i)
}

// errAt reports a malformed stream at buf[i].
func (w *jsonWalker) errAt(i int, err error, format string, args ...any) *Error {
	if w.s.rerr != nil {
		return readErr(w.file, w.s.rerr)
	}
	e := &Error{File: w.file, Line: w.line(i, -2), Msg: "invalid JSON: " + fmt.Sprintf(format, args...), syntax: true}
	if err == io.ErrUnexpectedEOF {
		e.Msg = "unexpected end of JSON input (truncated file?)"
	}
	return e
}

// walk reads top-level values until the end of the stream.
func (w *jsonWalker) walk() error {
	s := w.s
	for {
		c, ok := s.peek()
		if !ok {
			if s.rerr != nil {
				return readErr(w.file, s.rerr)
			}
			return nil
		}
		switch c {
		case '{':
			if err := w.object(); err != nil {
				return err
			}
		case '[':
			s.pos++
			if err := w.items(nil); err != nil {
				return err
			}
		default:
			return w.errAt(s.pos, nil, "expected an object or an array of objects, found %s", describeByte(c))
		}
	}
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// listState is a list object whose items are being read.
type listState struct {
	obj     *wireObject // the list itself; Kind may arrive after the items
	pending []pendingItem
	src     index.Source
}

type pendingItem struct {
	obj *wireObject
	src index.Source
}

// topField is a field of a top-level object, kept until the object ends.
type topField struct {
	key  string
	raw  []byte
	line int
}

// object reads a top-level object field by field: a list's items are
// streamed; other fields are kept and parsed when the object ends.
func (w *jsonWalker) object() error {
	s := w.s
	src := index.Source{File: w.file, Line: w.line(s.pos, -1)}
	s.pos++ // '{'
	obj := new(wireObject)
	list := &listState{obj: obj, src: src}
	isList := false
	var fields []topField
	kept := int64(0) // bytes of fields kept
	var seen uint8   // the top-level fields read (topFieldBit)
	for first := true; ; first = false {
		c, ok := s.peek()
		if !ok {
			return w.errAt(s.pos, io.ErrUnexpectedEOF, "")
		}
		if c == '}' {
			s.pos++
			break
		}
		if !first {
			if c != ',' {
				return w.errAt(s.pos, nil, "expected ',' or '}' after an object field, found %s", quoteByte(c))
			}
			s.pos++
			if c, ok = s.peek(); !ok {
				return w.errAt(s.pos, io.ErrUnexpectedEOF, "")
			}
		}
		if c != '"' {
			return w.errAt(s.pos, nil, "expected an object key, found %s", quoteByte(c))
		}
		raw, err := s.capture()
		if err != nil {
			return w.errAt(s.pos, err, "bad object key")
		}
		var key string
		kp := &jp{b: raw}
		if err := kp.run(func() { key = string(kp.strBytes()); kp.end() }); err != nil {
			return w.errAt(s.pos-len(raw), nil, "bad object key: %v", err)
		}
		if c, ok = s.peek(); !ok || c != ':' {
			if !ok {
				return w.errAt(s.pos, io.ErrUnexpectedEOF, "")
			}
			return w.errAt(s.pos, nil, "expected ':' after object key %q, found %s", key, quoteByte(c))
		}
		s.pos++
		if b := topFieldBit(key); b != 0 {
			if seen&b != 0 {
				// Valid JSON (not retried as YAML), refused all the same.
				return &Error{File: w.file, Line: w.line(s.pos, -2), Field: key, Msg: "duplicate field"}
			}
			seen |= b
		}
		if key == "items" {
			c, ok := s.peek()
			if !ok {
				return w.errAt(s.pos, io.ErrUnexpectedEOF, "")
			}
			if c == '[' {
				if err := notAList(obj, src); err != nil {
					return err
				}
				isList = true
				s.pos++
				if err := w.items(list); err != nil {
					return err
				}
				continue
			}
		}
		if _, ok := s.peek(); !ok {
			return w.errAt(s.pos, io.ErrUnexpectedEOF, "")
		}
		line := w.line(s.pos, -1)
		raw, err = s.capture()
		if err != nil {
			return w.errAt(s.pos, err, "bad value")
		}
		if kept += int64(len(raw)); s.max > 0 && kept > s.max {
			return readErr(w.file, &limitError{what: "an object's fields", limit: s.max, flag: flagMaxObject, line: src.Line})
		}
		f := topField{key: key, raw: append([]byte(nil), raw...), line: line}
		if key == "kind" || key == "apiVersion" {
			// Parsed at once: a list's items may need its kind.
			if err := w.parseField(obj, f, src); err != nil {
				return err
			}
			continue
		}
		fields = append(fields, f)
	}
	if isList {
		if err := notAList(obj, src); err != nil { // its kind came after its items
			return err
		}
		if w.par != nil {
			w.par.listEnd(list)
			return nil
		}
		// Items that came before the list's kind.
		for _, it := range list.pending {
			if err := w.emitItem(list, it.obj, it.src, 0); err != nil {
				return err
			}
		}
		return nil
	}
	for _, f := range fields {
		if err := w.parseField(obj, f, src); err != nil {
			return err
		}
	}
	if obj.HasItems && strings.HasSuffix(obj.Kind, "List") {
		return nil // a List with "items": null holds no objects
	}
	if obj.Kind == "" {
		if obj.Metadata.Name == "" && obj.APIVersion == "" && len(fields) == 0 {
			return &Error{File: src.File, Line: src.Line, Msg: "empty object"}
		}
		return &Error{File: src.File, Line: src.Line, Name: obj.Metadata.Name, Msg: "object has no kind"}
	}
	return w.emit(obj, obj.APIVersion, obj.Kind, src)
}

// topFieldBit is the bit of a top-level field whose repetition would be
// read wrong (the last kind winning, two items arrays read as one): a
// duplicate is an error, as kube-apiserver's strict field validation
// makes it; 0 for other fields.
func topFieldBit[K string | []byte](key K) uint8 {
	switch string(key) {
	case "apiVersion":
		return 1
	case "kind":
		return 2
	case "metadata":
		return 4
	case "spec":
		return 8
	case "status":
		return 16
	case "items":
		return 32
	}
	return 0
}

// notAList refuses items in an object of a kind other than a List (v1
// List, PodList, ...): they are no field of a Node or a Pod, and reading
// them as a List's would drop the object itself. An object without a kind
// may be a List.
func notAList(obj *wireObject, src index.Source) error {
	if obj.Kind == "" || strings.HasSuffix(obj.Kind, "List") {
		return nil
	}
	return &Error{File: src.File, Line: src.Line, Msg: fmt.Sprintf("a %s with items: only a List (kind List, PodList, ...) holds items", printable(obj.Kind))}
}

// parseField parses one kept field of a top-level object.
func (w *jsonWalker) parseField(obj *wireObject, f topField, src index.Source) error {
	p := &jp{b: f.raw, in: w.intern}
	if err := p.run(func() { p.objectField(obj, []byte(f.key)); p.end() }); err != nil {
		pe, _ := err.(*parseError)
		line := f.line
		field := f.key
		if pe != nil {
			line += bytes.Count(f.raw[:min(pe.off, len(f.raw))], []byte{'\n'})
			if sub := pathAt(f.raw, pe.off); sub != "" {
				field += pathJoin(sub)
			}
		}
		e := &Error{File: w.file, Line: line, Kind: obj.Kind, Namespace: obj.Metadata.Namespace,
			Name: obj.Metadata.Name, Field: field, Msg: err.Error(), Err: err}
		if e.Name == "" && f.key == "metadata" {
			// The error came before the name (YAML's keys come sorted:
			// labels before name): look past it.
			_, e.Namespace, e.Name = peekIdentity(append(append([]byte(`{"metadata":`), f.raw...), '}'))
		}
		defaultNamespace(e)
		return e
	}
	return nil
}

// end fails unless only whitespace is left.
func (p *jp) end() {
	if p.peek() != 0 {
		p.fail("unexpected %s after the value", p.describe())
	}
}

func pathJoin(sub string) string {
	if strings.HasPrefix(sub, "[") {
		return sub
	}
	return "." + sub
}

// parseItem parses one list item (a complete object).
func (w *jsonWalker) parseItem(raw []byte, src index.Source) (*wireObject, error) {
	return parseItem(raw, src, w.intern)
}

func parseItem(raw []byte, src index.Source, in *interner) (*wireObject, error) {
	obj := new(wireObject)
	return obj, parseItemInto(obj, raw, src, in)
}

// parseItemInto is parseItem into a zeroed object.
func parseItemInto(obj *wireObject, raw []byte, src index.Source, in *interner) error {
	p := &jp{b: raw, in: in}
	if err := p.run(func() { p.object(obj); p.end() }); err != nil {
		e := &Error{File: src.File, Line: src.Line, Kind: obj.Kind, Namespace: obj.Metadata.Namespace,
			Name: obj.Metadata.Name, Msg: err.Error(), Err: err}
		defer defaultNamespace(e)
		if pe, ok := err.(*parseError); ok {
			off := min(pe.off, len(raw))
			e.Line += bytes.Count(raw[:off], []byte{'\n'})
			e.Field = pathAt(raw, off)
			if e.Kind == "" || e.Name == "" {
				// The error came before kind or name: look past it.
				k, ns, n := peekIdentity(raw)
				if e.Kind == "" {
					e.Kind = k
				}
				if e.Name == "" {
					e.Namespace, e.Name = ns, n
				}
			}
		}
		return e
	}
	return nil
}

// items reads an array of objects after its '['. list is nil for a bare
// top-level array.
func (w *jsonWalker) items(list *listState) error {
	s := w.s
	back := false // s.pos is at the '{' of an item whose guess was wrong
	for i := 0; ; i++ {
		if w.sp != nil && !w.sp.off && w.sp.failed.Load() {
			w.rewind() // i > 0 still: the items after it follow a ','
			back = true
		}
		if !back {
			end, err := w.itemStart(i)
			if (end || err != nil) && w.wrongGuess() {
				continue // back to the item, at the top
			}
			if err != nil {
				return err
			}
			if end {
				s.pos++
				return nil
			}
		}
		back = false
		src := index.Source{File: w.file, Line: w.line(s.pos, i)}
		if w.par != nil {
			if w.par.stop {
				return errStopped
			}
			if w.guess(src, list, i) {
				continue
			}
			raw, err := s.capture()
			if err != nil {
				if w.wrongGuess() {
					continue
				}
				if err == io.ErrUnexpectedEOF && s.rerr == nil {
					// As the sequential reader reports it: a syntax error
					// before the end, else a truncated item.
					if perr := w.partialItemErr(s.buf[s.pos:s.end], src); perr != nil {
						return perr
					}
					e := w.errAt(s.pos, io.ErrUnexpectedEOF, "")
					e.Line = src.Line
					return e
				}
				return w.errAt(s.pos, err, "bad list item")
			}
			if w.sp != nil {
				w.sp.note(len(raw))
			}
			w.par.item(raw, src, list)
			continue
		}
		item, err := w.streamItem(src)
		if err != nil {
			return err
		}
		if list != nil && (len(list.pending) > 0 || (item.Kind == "" && list.obj.Kind == "")) {
			// The list's kind is still unknown: keep order until it is.
			held := new(wireObject)
			*held = *item
			list.pending = append(list.pending, pendingItem{held, src})
			continue
		}
		if err := w.emitItem(list, item, src, 0); err != nil {
			return err
		}
	}
}

// itemStart moves past what comes before item i of a list to the item's
// '{'; end reports the list's ']' there instead (not consumed).
func (w *jsonWalker) itemStart(i int) (end bool, err error) {
	s := w.s
	c, ok := s.peek()
	if !ok {
		return false, w.errAt(s.pos, io.ErrUnexpectedEOF, "")
	}
	if c == ']' {
		return true, nil
	}
	if i > 0 {
		if c != ',' {
			return false, w.errAt(s.pos, nil, "expected ',' or ']' after a list item, found %s", quoteByte(c))
		}
		s.pos++
		if c, ok = s.peek(); !ok {
			return false, w.errAt(s.pos, io.ErrUnexpectedEOF, "")
		}
	}
	if c != '{' {
		return false, w.errAt(s.pos, nil, "expected a list item (an object), found %s", describeByte(c))
	}
	return false, nil
}

// streamItem parses the object at the stream position in place. The
// window may end inside the object: then more is read and the parse
// retried, so each item is scanned once in the common case.
func (w *jsonWalker) streamItem(src index.Source) (*wireObject, error) {
	s := w.s
	s.mark = s.pos
	defer func() { s.mark = -1 }()
	for {
		obj := &w.scratch
		*obj = wireObject{}
		p := &jp{b: s.buf[s.mark:s.end], in: w.intern}
		err := p.run(func() { p.object(obj) })
		if err == nil && s.max > 0 && int64(p.i) > s.max { // it fit in the window
			return nil, readErr(w.file, s.tooLarge(s.mark))
		}
		if err == nil {
			s.pos = s.mark + p.i
			return obj, nil
		}
		if p.short && !s.eof && s.fillTo(2*(s.end-s.mark)) {
			continue // the value goes on: read as much again (a retry per doubling)
		}
		if s.rerr != nil {
			return nil, readErr(w.file, s.rerr)
		}
		if p.short && s.eof {
			e := w.errAt(s.mark, io.ErrUnexpectedEOF, "")
			e.Line = src.Line
			return nil, e
		}
		_, e := w.parseItem(s.buf[s.mark:s.end], src)
		if e == nil { // cannot happen: the same bytes failed above
			e = &Error{File: src.File, Line: src.Line, Msg: err.Error()}
		}
		return nil, e
	}
}

// partialItemErr returns the error of an item cut short by the end of
// input, when it has one before the end (nil otherwise).
func (w *jsonWalker) partialItemErr(b []byte, src index.Source) error {
	var obj wireObject
	p := &jp{b: b, in: w.intern}
	if err := p.run(func() { p.object(&obj) }); err == nil || p.short {
		return nil
	}
	_, err := w.parseItem(b, src)
	return err
}

// emitItem emits a list item, inferring its kind from a typed list
// ("PodList" -> "Pod") and flattening nested lists.
func (w *jsonWalker) emitItem(list *listState, item *wireObject, src index.Source, depth int) error {
	lk, la := "", ""
	if list != nil {
		lk, la = list.obj.Kind, list.obj.APIVersion
	}
	apiVersion, kind, err := itemKind(item, lk, la, src)
	if err != nil {
		return err
	}
	if strings.HasSuffix(kind, "List") && item.HasItems {
		return w.nested(item, src, depth+1)
	}
	return w.emit(item, apiVersion, kind, src)
}

// itemKind returns a list item's apiVersion and kind, taking them from the
// list's (listKind "PodList" gives "Pod") when the item has no kind.
func itemKind(item *wireObject, listKind, listAPIVersion string, src index.Source) (string, string, error) {
	if item.Kind != "" {
		return item.APIVersion, item.Kind, nil
	}
	if listKind == "" || listKind == "List" || !strings.HasSuffix(listKind, "List") {
		return "", "", &Error{File: src.File, Line: src.Line, Name: item.Metadata.Name,
			Msg: fmt.Sprintf("list item has no kind (in a %q)", listKind)}
	}
	apiVersion := item.APIVersion
	if apiVersion == "" {
		apiVersion = listAPIVersion
	}
	return apiVersion, strings.TrimSuffix(listKind, "List"), nil
}

// nested emits the items of a list found inside a list's items.
func (w *jsonWalker) nested(list *wireObject, src index.Source, depth int) error {
	if depth > maxListDepth {
		return &Error{File: src.File, Line: src.Line, Msg: "lists nested too deeply"}
	}
	ls := &listState{obj: list, src: src}
	for _, raw := range list.Items {
		item, err := w.parseItem(raw, src)
		if err != nil {
			return err
		}
		if err := w.emitItem(ls, item, src, depth); err != nil {
			return err
		}
	}
	return nil
}

// peekIdentity finds kind, metadata.namespace and metadata.name in a
// (possibly malformed) object, for error messages.
func peekIdentity(raw []byte) (kind, ns, name string) {
	p := &jp{b: raw}
	_ = p.run(func() {
		if !p.objStart() {
			return
		}
		for first := true; ; {
			k := p.next(&first)
			if k == nil {
				return
			}
			switch string(k) {
			case "kind":
				kind = p.str()
			case "metadata":
				// Only the name and namespace, every other field skipped:
				// the error may be in one of them (labels, sorted first
				// in YAML's conversion).
				if p.objStart() {
					for mf := true; ; {
						mk := p.next(&mf)
						if mk == nil {
							break
						}
						switch string(mk) {
						case "name":
							name = p.str()
						case "namespace":
							ns = p.str()
						default:
							p.skip()
						}
					}
				}
				if kind != "" {
					return
				}
			default:
				p.skip()
			}
		}
	})
	return kind, ns, name
}

// maxPathSegments shortens paths into absurdly nested values.
const maxPathSegments = 24

// pathAt returns the JSON path ("spec.containers[0].resources") of the
// value containing byte off of raw, as far as raw parses.
func pathAt(raw []byte, off int) string {
	var path []string
	p := &jp{b: raw}
	var walk func() bool // true when off was reached inside
	walk = func() bool {
		switch p.peek() {
		case '{':
			p.i++
			for first := true; ; {
				if p.i >= off {
					return true
				}
				k := p.next(&first)
				if k == nil {
					return false
				}
				path = append(path, string(k))
				if p.i >= off || walk() {
					return true
				}
				path = path[:len(path)-1]
			}
		case '[':
			p.i++
			for n, first := 0, true; ; n++ {
				if p.i >= off {
					return true
				}
				if !p.more(&first) {
					return false
				}
				path = append(path, "["+strconv.Itoa(n)+"]")
				if p.i >= off || walk() {
					return true
				}
				path = path[:len(path)-1]
			}
		default:
			start := p.i
			p.skip()
			return off >= start && off < p.i
		}
	}
	err := p.run(func() { walk() })
	_ = err // a malformed value stops the walk where it is
	var b strings.Builder
	for i, s := range path {
		if i == maxPathSegments {
			b.WriteString("...")
			break
		}
		if b.Len() > 0 && !strings.HasPrefix(s, "[") {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// defaultNamespace names a namespaced object as "default/name" when it
// has no namespace, as the rest of the messages do.
func defaultNamespace(e *Error) {
	if e.Namespace == "" && e.Name != "" {
		switch e.Kind {
		case kindPod, kindPDB, index.KindService, index.KindReplicaSet, index.KindStatefulSet, index.KindReplicationController,
			index.KindDeployment, index.KindDaemonSet, index.KindJob:
			e.Namespace = "default"
		}
	}
}
