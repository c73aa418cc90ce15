package ingest

import (
	"strconv"
	"strings"

	"github.com/kplace/kplace/index"
)

// Error is an input error: where it is (file and line), which object (kind,
// namespace, name) and which field, and what is wrong. Its text reads
//
//	pods.yaml:12: Pod default/web-1: spec.containers[0].resources.requests.cpu: invalid quantity "abc"
type Error struct {
	File      string
	Line      int    // 1-based; 0 when unknown
	Kind      string // "" when the object is not known
	Namespace string
	Name      string
	Field     string // JSON path inside the object; "" when not about a field
	Msg       string
	// Origin is where a snapshot's object came from (the file and line it
	// had in the input of kplace convert); File is then the snapshot.
	Origin index.Source
	Err    error // underlying error, if any

	syntax bool // a JSON syntax error (the file may be flow-style YAML)
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Kind != "" || e.Name != "" {
		if e.Kind != "" {
			b.WriteString(e.Kind)
			b.WriteByte(' ')
		}
		if e.Namespace != "" {
			b.WriteString(printable(e.Namespace))
			b.WriteByte('/')
		}
		if e.Name != "" {
			b.WriteString(printable(e.Name))
		} else {
			b.WriteString("(no name)")
		}
		if e.Origin.File != "" {
			b.WriteString(" (from ")
			b.WriteString(e.Origin.File)
			if e.Origin.Line > 0 {
				b.WriteByte(':')
				b.WriteString(strconv.Itoa(e.Origin.Line))
			}
			b.WriteByte(')')
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// printable returns a name as is when it is printable ASCII without
// spaces, quoted otherwise: a name that validation refuses may hold
// newlines, NUL bytes or invalid UTF-8, which the message must show, not
// print. A name of over 1 KiB (four times the longest valid one) is
// shortened.
func printable(s string) string {
	if len(s) > 1024 {
		return quoteName(s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return strconv.Quote(s)
		}
	}
	return s
}
