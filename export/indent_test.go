package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// randJSON appends a random JSON value of depth at most d: objects, arrays
// (empty too), strings with escapes, spaces, brackets and commas in them,
// numbers and literals, with random whitespace between tokens.
func randJSON(r *rand.Rand, b *strings.Builder, d int) {
	ws := func() {
		b.WriteString([]string{"", "", " ", "\n", "\t ", "\r\n  "}[r.IntN(6)])
	}
	ws()
	k := r.IntN(8)
	if d == 0 {
		k = 4 + r.IntN(4)
	}
	switch k {
	case 0, 1:
		b.WriteByte('{')
		for i, n := 0, r.IntN(4); i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			b.WriteString(`"k` + string(rune('a'+i)) + `"`)
			ws()
			b.WriteByte(':')
			randJSON(r, b, d-1)
		}
		ws()
		b.WriteByte('}')
	case 2, 3:
		b.WriteByte('[')
		for i, n := 0, r.IntN(4); i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			randJSON(r, b, d-1)
		}
		ws()
		b.WriteByte(']')
	case 4, 5:
		b.WriteString([]string{`"a b"`, `"x\"y, {z}"`, `"\\"`, `"\\\"[]\\"`, `""`, `"é\u00e9 : ,"`}[r.IntN(6)])
	case 6:
		b.WriteString([]string{"0", "-1.5e3", "12"}[r.IntN(3)])
	default:
		b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	}
	ws()
}

// TestIndentWriterMatchesIndent: the streaming re-layout of random JSON,
// written in random pieces, is what encoding/json's Indent makes of it
// with four spaces (MarshalIndent's layout, kubectl's).
func TestIndentWriterMatchesIndent(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 2000; n++ {
		var b strings.Builder
		b.WriteString(" ")
		if r.IntN(2) == 0 {
			b.WriteString("{\"items\":")
			randJSON(r, &b, 5)
			b.WriteString("}")
		} else {
			b.WriteString("[")
			randJSON(r, &b, 5)
			b.WriteString("]")
		}
		b.WriteString("\n")
		src := []byte(b.String())
		var want bytes.Buffer
		if err := json.Indent(&want, bytes.TrimSpace(src), "", "    "); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		want.WriteByte('\n')
		var got bytes.Buffer
		x := NewIndentWriter(&got)
		for rest := src; len(rest) > 0; {
			k := min(len(rest), 1+r.IntN(7))
			x.Write(rest[:k])
			rest = rest[k:]
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%q:\ngot  %q\nwant %q", src, got.Bytes(), want.Bytes())
		}
	}
	var got bytes.Buffer
	x := NewIndentWriter(&got)
	x.Write([]byte(`{"a":1} [2,{}]`))
	x.Close()
	if want := "{\n    \"a\": 1\n}\n[\n    2,\n    {}\n]\n"; got.String() != want {
		t.Errorf("two top-level values: %q, want %q", got.String(), want)
	}
}

// TestIndentWriterError: the underlying writer's error comes back.
func TestIndentWriterError(t *testing.T) {
	x := NewIndentWriter(failWriter{})
	x.Write(bytes.Repeat([]byte(`{"a":[1,2]},`), 20000))
	if _, err := x.Write([]byte(`{}`)); !errors.Is(err, errDiskFull) {
		t.Errorf("Write: %v, want the writer's error", err)
	}
	if err := x.Close(); !errors.Is(err, errDiskFull) {
		t.Errorf("Close: %v, want the writer's error", err)
	}
}
