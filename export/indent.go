package export

import (
	"bufio"
	"io"
)

// IndentWriter re-lays the JSON text written to it as kubectl prints it
// (encoding/json's MarshalIndent with four spaces): each member and element
// on a line of its own, indented by its depth, "key": value, empty objects
// and arrays kept as {} and []. The whitespace written between tokens is
// dropped. It streams: a value need not fit in memory. Close ends the last
// line and flushes; it does not close the underlying writer.
type IndentWriter struct {
	w      *bufio.Writer
	under  *errWriter
	depth  int
	inStr  bool // in a string
	esc    bool // in a string, after a backslash
	opened bool // after '{' or '[': a close next keeps it empty
	ended  bool // a top-level object or array ended: the next starts a line
	wrote  bool // something was written
}

// errWriter keeps the first error of the writer under the buffer.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// NewIndentWriter returns an IndentWriter writing to w.
func NewIndentWriter(w io.Writer) *IndentWriter {
	e := &errWriter{w: w}
	return &IndentWriter{w: bufio.NewWriterSize(e, 1<<16), under: e}
}

const indentUnit = "    "

func (x *IndentWriter) newline(depth int) {
	x.w.WriteByte('\n')
	for range depth {
		x.w.WriteString(indentUnit)
	}
}

// Write re-lays p; the text need not end at a token's end.
func (x *IndentWriter) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if x.inStr {
			// Copy the string's run up to its closing quote or a backslash.
			j := i
			for j < len(p) && (x.esc || (p[j] != '"' && p[j] != '\\')) {
				x.esc = false
				j++
			}
			x.w.Write(p[i:j])
			if j == len(p) {
				break
			}
			x.w.WriteByte(p[j])
			if p[j] == '\\' {
				x.esc = true
			} else {
				x.inStr = false
			}
			i = j
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if x.opened {
			x.opened = false
			if c == '}' || c == ']' {
				x.w.WriteByte(c)
				x.ended = x.depth == 0
				continue
			}
			x.depth++
			x.newline(x.depth)
		} else if x.ended {
			x.ended = false
			x.w.WriteByte('\n') // another top-level value
		}
		x.wrote = true
		switch c {
		case '"':
			x.inStr = true
			x.w.WriteByte(c)
		case '{', '[':
			x.w.WriteByte(c)
			x.opened = true
		case ',':
			x.w.WriteByte(c)
			x.newline(x.depth)
		case ':':
			x.w.WriteString(": ")
		case '}', ']':
			x.depth--
			x.newline(x.depth)
			x.w.WriteByte(c)
			x.ended = x.depth == 0
		default:
			x.w.WriteByte(c)
		}
	}
	return len(p), x.under.err
}

// Close ends the last line and flushes.
func (x *IndentWriter) Close() error {
	if x.wrote {
		x.w.WriteByte('\n')
	}
	return x.w.Flush()
}
