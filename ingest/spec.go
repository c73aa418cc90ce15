package ingest

import (
	"bytes"
	"math/bits"
	"sync/atomic"

	"github.com/kplace/kplace/index"
)

// Cutting list items by their layout. The walker of a parallel read finds
// where each item ends before handing it to a worker, and the worker then
// reads every byte of it again: cutting by structure was most of the
// walker's time after decompression, and the walker alone reads the
// stream. Exports are laid out in lines: kubectl indents (an
// item's '{' starts a line after the indentation of its depth, its '}'
// starts a line after the same indentation), others write one item per
// line. A newline never lies inside a JSON string, so the layout can be
// read without the structure: the item ends at the last '}' before the
// first line that starts, after the item's indentation, with the next
// item's '{', or, after the same or less indentation, with the list's ']'.
//
// That is a guess, and the worker checks it: the parser reads the guessed
// bytes as one object, which succeeds exactly when the object that starts
// there ends at the guessed '}'. The walker goes on without waiting, so
// a wrong guess is found later, by the goroutine that applies results in
// order. It then drops everything the walker queued from that item on
// (batches carry an epoch), and the walker reads the list again from the
// item, cutting by structure (structScan) until the stream ends. The
// stream keeps the bytes from the first item not yet checked (hold), and
// the walker leaves a list only once every guess in it is checked, so the
// item is still there and the walker is still in its list.

// guessLimit bounds the bytes a guess reads ahead of the item's start;
// past it the item is cut by structure. A guess also reads no more than
// guessSlack plus eight times the list's items' average size, and after
// guessGiveUp guesses in a row found no end the walker guesses no more:
// a layout that misleads costs a bounded multiple of cutting by structure.
const (
	guessLimit  = 16 << 20
	guessSlack  = 256 << 10
	guessGiveUp = 64
)

// guessFrom is the first item of a list cut by a guess. The walker leaves
// a list only once its guesses are checked, which empties the pipeline:
// a short list is cut by structure, so that a stream of short lists does
// not wait at each end (a variable for tests).
var guessFrom = 1024

// specState is shared by the walker, which guesses, and the goroutine
// that applies results, which checks.
type specState struct {
	checked atomic.Int64 // stream offset up to which every guess was right
	failed  atomic.Bool  // a guess was wrong: miss says which
	miss    specMiss     // written before failed is set
	notify  chan struct{}

	// The walker's side.
	off      bool   // a guess was wrong: cut by structure from now on
	last     int64  // the stream offset after the last guessed item
	from     int64  // the offset of the first guessed item not known checked
	prefix   []byte // the indentation of the item being guessed
	indented bool   // prefix holds an item's indentation
	cut      int    // items cut by a guess (tests read it through specTrace)
	avg      int    // the items' average size (an exponential average)
	fails    int    // guesses in a row that found no end
	tired    bool   // fails reached guessGiveUp: no more guesses
}

// note records the size of an item cut, by a guess or by structure.
func (sp *specState) note(size int) {
	sp.avg += (size - sp.avg) / 16
}

// specTrace, when set (by tests), receives each parallel read's walker
// state once the read ends.
var specTrace func(sp *specState)

// specMiss is a wrong guess: where its item starts in the stream and
// the item's line.
type specMiss struct {
	start int64
	line  int
}

func newSpecState() *specState {
	return &specState{notify: make(chan struct{}, 1)}
}

// check records that the guesses ending at or before end were right.
func (sp *specState) check(end int64) {
	if end > sp.checked.Load() {
		sp.checked.Store(end)
		sp.wake()
	}
}

// fail records the first wrong guess.
func (sp *specState) fail(m specMiss) {
	if !sp.failed.Load() {
		sp.miss = m
		sp.failed.Store(true)
	}
	sp.wake()
}

func (sp *specState) wake() {
	select {
	case sp.notify <- struct{}{}:
	default:
	}
}

// pending reports whether a guess is not known right yet.
func (sp *specState) pending() bool {
	return sp.last > sp.checked.Load()
}

// hold returns the stream offset from which the stream must keep its
// bytes (-1: none).
func (sp *specState) hold() int64 {
	if !sp.pending() {
		return -1
	}
	return max(sp.from, sp.checked.Load())
}

// offset returns the stream offset of buf[i].
func (s *stream) offset(i int) int64 {
	return s.total - int64(s.end) + int64(i)
}

// guessItem guesses the end of the list item whose '{' is at buf[pos] by
// the layout (see above): it returns the index just past the item's '}',
// or false when the layout gives no guess. The stream may read more (the
// item stays in the window); pos is where it was.
func (s *stream) guessItem(sp *specState, limit int64) (int, bool) {
	j := s.pos
	k := j - 1
	for k >= 0 && (s.buf[k] == ' ' || s.buf[k] == '\t') {
		k--
	}
	switch {
	case k >= 0 && s.buf[k] == '\n':
		sp.prefix = append(sp.prefix[:0], s.buf[k+1:j]...)
		sp.indented = true
	case k >= 0 || !sp.indented:
		return 0, false
	}
	// else the window starts after the line's start: the last item's
	// indentation is the guess's.
	p := sp.prefix
	s.mark = j
	defer func() { s.mark = -1 }()
	if s.max > 0 {
		limit = min(limit, s.max)
	}
	if len(p) > 0 && len(p) < 63 {
		return s.guessIndented(p, limit)
	}
	at := 1 // the next byte to search, from the item's start
	for {
		i := s.mark + at
		nl := bytes.IndexByte(s.buf[i:s.end], '\n')
		if nl >= 0 && (s.mark+at+nl+len(p)+1 < s.end || s.eof) {
			nl += i
			m := 0
			for m < len(p) && nl+1+m < s.end && s.buf[nl+1+m] == p[m] {
				m++
			}
			if nl+1+m < s.end {
				if c := s.buf[nl+1+m]; (c == '{' && m == len(p)) || c == ']' {
					e, ok := itemBefore(s.buf[s.mark:nl], c == '{')
					return s.mark + e, ok
				}
			}
			at = nl + 1 - s.mark
			continue
		}
		if nl >= 0 {
			at += nl // read more, then look at this newline again
		} else {
			at = s.end - s.mark
		}
		if int64(at) > limit {
			return 0, false
		}
		if !s.fill() && (nl < 0 || !s.eof) {
			return 0, false // at the end, a newline found is looked at again
		}
	}
}

// itemBefore returns the end of the item that b (from its '{' to the
// newline found) holds: just past the last '}', which a ',' follows when
// next (another item comes).
func itemBefore(b []byte, next bool) (int, bool) {
	e := len(b)
	for e > 1 && isSpace(b[e-1]) {
		e--
	}
	if next {
		if b[e-1] != ',' {
			return 0, false
		}
		e--
		for e > 1 && isSpace(b[e-1]) {
			e--
		}
	}
	if e < 2 || b[e-1] != '}' {
		return 0, false
	}
	return e, true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// guess cuts the item at the stream position, item i of its list, by its
// layout and queues it; false when there is no guess (the caller cuts it
// by structure).
func (w *jsonWalker) guess(src index.Source, list *listState, i int) bool {
	sp, s := w.sp, w.s
	if sp == nil || sp.off || sp.tired || i < guessFrom {
		return false
	}
	s.hold = sp.hold()
	end, ok := s.guessItem(sp, min(guessLimit, guessSlack+8*int64(sp.avg)))
	if !ok || (s.max > 0 && int64(end-s.pos) > s.max) {
		if sp.fails++; sp.fails >= guessGiveUp {
			sp.tired = true
		}
		return false
	}
	sp.fails = 0
	sp.note(end - s.pos)
	start := s.offset(s.pos)
	if !sp.pending() {
		sp.from = start
	}
	raw := s.buf[s.pos:end]
	s.pos = end
	sp.cut++
	sp.last = s.offset(end)
	s.hold = sp.hold()
	w.par.guessed(raw, src, list, specMiss{start: start, line: src.Line}, sp.last)
	return true
}

// wrongGuess queues what the walker holds and waits until every guess so
// far is checked: true when one was wrong (the caller goes back to it
// before it reports anything or leaves the list).
func (w *jsonWalker) wrongGuess() bool {
	sp := w.sp
	if sp == nil || sp.off {
		return false
	}
	if sp.pending() {
		w.par.flush()
		for sp.pending() {
			if sp.failed.Load() {
				return true
			}
			select {
			case <-sp.notify:
			case <-w.par.quit:
				w.par.stop = true
				return false
			}
		}
	}
	w.s.hold = -1 // every guess is checked: nothing to keep
	return false
}

// rewind goes back to the item whose guess was wrong, which the stream
// still holds, and cuts by structure from there on.
func (w *jsonWalker) rewind() {
	sp, s := w.sp, w.s
	m := sp.miss
	w.par.flush()
	w.par.epoch++ // the consumer drops what was queued from the item on
	sp.off = true
	s.hold = -1
	s.pos = int(m.start - s.offset(0))
	s.line, s.lineIdx = m.line, s.pos
}

// guessIndented is guessItem's search for an indented item (prefix p):
// nearly every line of it is indented deeper, so it reads 64 bytes at a
// time, as structScan does. The next item's line has its '{' len(p) bytes
// after its newline, where an item's own lines have indentation (a ws
// bit); the list's ']' is rare enough to be looked at one by one.
func (s *stream) guessIndented(p []byte, limit int64) (int, bool) {
	depth := len(p)
	at := 1 // the next block, from the item's start
	var prevNL uint64
	var tail [64]byte
	for {
		i := s.mark + at
		var nl, ws, rb uint64
		switch n := s.end - i; {
		case n >= 64:
			nl, ws, rb = lineMasks((*[64]byte)(s.buf[i:]))
		case s.eof:
			if n <= 0 {
				return 0, false
			}
			tail = [64]byte{} // zeros: none of the masks
			copy(tail[:], s.buf[i:s.end])
			nl, ws, rb = lineMasks(&tail)
		default:
			s.fill() // at the end, the tail is read as a block
			continue
		}
		// Bytes depth+1 after a newline (of this block or the last), not
		// ws: a line indented as the item, or less.
		col := (nl<<(depth+1) | prevNL>>(63-depth)) &^ ws &^ nl
		for cand := col | rb; cand != 0; cand &= cand - 1 {
			q := i + bits.TrailingZeros64(cand)
			if q >= s.end {
				break
			}
			k, ok := 0, false // the indentation of the line that q's byte starts
			for k <= depth && q-k-1 > s.mark {
				if c := s.buf[q-k-1]; c == '\n' {
					ok = true
					break
				} else if c != ' ' && c != '\t' {
					break
				}
				k++
			}
			if c := s.buf[q]; !ok || (c == '{' && k != depth) || (c != '{' && c != ']') || !bytes.Equal(s.buf[q-k:q], p[:k]) {
				continue
			}
			e, ok := itemBefore(s.buf[s.mark:q-k-1], s.buf[q] == '{')
			return s.mark + e, ok
		}
		prevNL = nl
		if at += 64; int64(at) > limit {
			return 0, false
		}
	}
}
