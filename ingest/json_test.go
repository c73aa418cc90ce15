package ingest

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// valueEnd is the reference for capture's delimiting of an object or an
// array: a byte at a time, the index after the bracket that closes the
// value at b[0], or -1 when b ends first.
func valueEnd(b []byte) int {
	depth, inStr := 0, false
	for j := 0; j < len(b); j++ {
		switch c := b[j]; {
		case inStr && c == '\\':
			j++
		case inStr:
			inStr = c != '"'
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// TestCaptureMatchesBytewise cuts random values of brackets, quotes,
// backslashes (some at the end of a read, some doubled) and bytes that
// differ from them by 0x20 or a high bit out of streams read a few bytes
// at a time or whole, and checks each cut against valueEnd.
func TestCaptureMatchesBytewise(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 3))
	special := []byte(`{}[]"\\`)
	// Bytes that differ from the special ones by 0x20 or a high bit, and
	// others, in runs long enough for the eight-byte steps.
	filler := []byte("abcxyz:, 0\x3b\x1b\x3d\x1d\x02\xa2\xdc\xfb\xfd\xdb\xbb")
	cut, open := 0, 0
	for range 20000 {
		b := []byte{"{["[r.IntN(2)]}
		// Half the values without backslashes; the bytes capture stops
		// at dense or sparse.
		sp, every := special, 2+r.IntN(20)
		if r.IntN(2) == 0 {
			sp = special[:5]
		}
		for range r.IntN(600) {
			if r.IntN(every) == 0 {
				b = append(b, sp[r.IntN(len(sp))])
			} else {
				b = append(b, filler[r.IntN(len(filler))])
			}
		}
		want := valueEnd(b)
		rd := io.Reader(bytes.NewReader(b))
		size := 1 + r.IntN(16)
		switch r.IntN(3) {
		case 0:
			rd = iotest.OneByteReader(rd)
		case 1:
			size = 4096
		}
		s := newStream(rd, size)
		v, err := s.capture()
		switch {
		case want < 0:
			open++
			if err != io.ErrUnexpectedEOF {
				t.Fatalf("%q: capture gave %q, %v; the value does not end", b, v, err)
			}
		case err != nil || !bytes.Equal(v, b[:want]):
			t.Fatalf("%q: capture gave %q, %v; want %q", b, v, err, b[:want])
		default:
			cut++
		}
	}
	if cut < 2000 || open < 2000 {
		t.Fatalf("%d values cut, %d left open: the test no longer exercises both", cut, open)
	}
}
