package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// refSkip is the byte-at-a-time container skip the word scanner replaces:
// the end of the container at b[i] (past its closing bracket), or where it
// failed and why ("mismatched", "deep", "string", "value"). kinds: check
// bracket kinds and depth (from base), as jp's skip does; without, only
// delimit, as a stream's capture does.
func refSkip(b []byte, i, base int, kinds bool) (int, string) {
	var stack []byte
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			k := i + 1
			for {
				j := bytes.IndexByte(b[k:], '"')
				if j < 0 {
					return len(b), "string"
				}
				k += j
				n := 0
				for m := k - 1; m > i && b[m] == '\\'; m-- {
					n++
				}
				if n%2 == 0 {
					break
				}
				k++
			}
			i = k
		case '{', '[':
			stack = append(stack, c)
			depth++
			if kinds && base+depth > maxDepth {
				return i, "deep"
			}
		case '}', ']':
			depth--
			if kinds && depth < 64 && stack[depth]+2 != c {
				return i, "mismatched"
			}
			stack = stack[:depth]
			if depth == 0 {
				return i + 1, ""
			}
		}
	}
	return len(b), "value"
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// wordScan runs the word scanner over b from i, fed in pieces cut at the
// given lengths (a stream's windows), and reports as refSkip does.
func wordScan(b []byte, i, base int, kinds bool, cuts []int) (int, string) {
	z := structScan{kinds: kinds, base: base}
	for _, n := range cuts {
		if n <= i || n >= len(b) {
			continue
		}
		next, how := z.scan(b[:n], i, false)
		switch how {
		case scanDone:
			return next, ""
		case scanErr:
			return next, z.errMsg
		}
		i = next
	}
	next, how := z.scan(b, i, true)
	switch how {
	case scanDone:
		return next, ""
	case scanErr:
		return next, z.errMsg
	}
	if z.inStr != 0 {
		return len(b), "string"
	}
	return len(b), "value"
}

// checkScan compares the word scanner with the reference on b, whole and
// cut into pieces, with and without kind checks.
func checkScan(t *testing.T, b []byte, base int, cuts []int) {
	t.Helper()
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return
	}
	for _, kinds := range []bool{true, false} {
		wantEnd, wantWhy := refSkip(b, 0, base, kinds)
		if !kinds && (wantWhy == "string" || wantWhy == "value") {
			wantEnd = len(b)
		}
		for _, c := range [][]int{nil, cuts} {
			end, why := wordScan(b, 0, base, kinds, c)
			if end != wantEnd || why != wantWhy {
				t.Fatalf("kinds=%v base=%d cuts=%v on %q: got (%d, %q), want (%d, %q)",
					kinds, base, c, b, end, why, wantEnd, wantWhy)
			}
		}
	}
}

func TestStructScanMatchesReference(t *testing.T) {
	// Bytes a scan stops at, with letters and padding between; backslash
	// runs of every parity; brackets inside strings.
	alphabet := []string{`"`, `\`, `\\`, `\"`, `{`, `}`, `[`, `]`, `{}`, `[]`, "a", "bc", " ", ":", ",",
		`"x"`, `"{"`, `"]"`, "\xe2\x82\xac", "\x00", "\x7f", "\xff", "{[", "]}", "        "}
	r := rand.New(rand.NewPCG(7, 11))
	var sb strings.Builder
	n := 0
	for n < 40000 {
		sb.Reset()
		sb.WriteByte("{["[r.IntN(2)])
		for parts := r.IntN(60); parts > 0; parts-- {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		b := []byte(sb.String())
		cuts := []int{r.IntN(len(b) + 1), r.IntN(len(b) + 1), r.IntN(len(b) + 1)}
		if cuts[0] > cuts[1] {
			cuts[0], cuts[1] = cuts[1], cuts[0]
		}
		checkScan(t, b, r.IntN(3)*(maxDepth-2), cuts)
		// The same text closed: a balanced prefix ends it earlier.
		checkScan(t, append(b, strings.Repeat("]}", 10)...), 0, cuts)
		n++
	}

	// Nested values of up to 90 levels, mostly braces, with one closing
	// bracket of the wrong kind in some: the blocks the kind check passes
	// over whole, and those it must not.
	for n := 0; n < 3000; n++ {
		var gen func(depth int)
		gen = func(depth int) {
			sq := r.IntN(8) == 0
			sb.WriteByte("{["[b2i(sq)])
			for k := r.IntN(4); k > 0; k-- {
				switch x := r.IntN(10); {
				case x < 4 && depth < 90:
					gen(depth + 1)
				case x < 6:
					sb.WriteString(alphabet[r.IntN(len(alphabet))])
				default:
					sb.WriteString(`"k:{\"a\":\"[\\\\\"}":`)
				}
			}
			closer := "}]"[b2i(sq)]
			if r.IntN(400) == 0 {
				closer = "]}"[b2i(sq)]
			}
			sb.WriteByte(closer)
		}
		sb.Reset()
		gen(0)
		b := []byte(sb.String())
		checkScan(t, b, r.IntN(2)*(maxDepth-60), []int{r.IntN(len(b) + 1), r.IntN(len(b) + 1)})
	}

	// Objects as an export has them, scanned in windows of every size.
	doc := []byte(`{"metadata":{"name":"a-b","annotations":{"k":"v \"q\" \\","x":"{[}]"}},` +
		`"managedFields":[{"fieldsV1":{"f:spec":{"k:{\"name\":\"app\"}":{".":{}}}}}],` +
		`"status":{"conditions":[{"type":"Ready","status":"True"}],"tail":"\\\\"}}`)
	for w := 1; w <= len(doc); w++ {
		var cuts []int
		for c := w; c < len(doc); c += w {
			cuts = append(cuts, c)
		}
		end, why := wordScan(doc, 0, 0, false, cuts)
		if end != len(doc) || why != "" {
			t.Fatalf("windows of %d: got (%d, %q), want (%d, \"\")", w, end, why, len(doc))
		}
		end, why = wordScan(doc, 0, 0, true, cuts)
		if end != len(doc) || why != "" {
			t.Fatalf("windows of %d, kinds: got (%d, %q), want (%d, \"\")", w, end, why, len(doc))
		}
	}

	// Depth: a container nested to the limit is skipped, one deeper fails
	// at its deepest bracket.
	deep := []byte(strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth))
	if end, why := wordScan(deep, 0, 0, true, nil); end != len(deep) || why != "" {
		t.Fatalf("depth %d: got (%d, %q)", maxDepth, end, why)
	}
	if end, why := wordScan(deep, 0, 1, true, nil); end != maxDepth-1 || why != "deep" {
		t.Fatalf("depth %d past one level: got (%d, %q), want (%d, deep)", maxDepth, end, why, maxDepth-1)
	}
	// Past 64 levels the kinds are no longer checked (as before).
	mixed := []byte(strings.Repeat("[", 70) + "}" + strings.Repeat("]", 69))
	checkScan(t, mixed, 0, nil)
}

// eachBlock calls f with n random blocks: three bytes in four drawn from
// near, the others from all bytes.
func eachBlock(seed uint64, n int, near []byte, f func(blk *[64]byte)) {
	r := rand.New(rand.NewPCG(seed, seed+2))
	var blk [64]byte
	for ; n > 0; n-- {
		for k := range blk {
			if r.IntN(4) == 0 {
				blk[k] = byte(r.IntN(256))
			} else {
				blk[k] = near[r.IntN(len(near))]
			}
		}
		f(&blk)
	}
}

// TestBlockMasks checks the vector masks against the byte loop on blocks
// of the bytes they look for, their neighbours and bytes with bit 0x20
// (or 0x80) the only difference.
func TestBlockMasks(t *testing.T) {
	eachBlock(3, 20000, []byte("\"\\{}[]\x02\x1c;=[]\x7c\x5b\x5d\x7b\x7d\xa2\xdc\xfb\xfd\x00az"), func(blk *[64]byte) {
		q, bs, op, cl, b5 := blockMasks(blk)
		wq, wbs, wop, wcl, wb5 := blockMasksGo(blk)
		if q != wq || bs != wbs || op != wop || cl != wcl || b5 != wb5 {
			t.Fatalf("%q: got %x %x %x %x %x, want %x %x %x %x %x", blk[:], q, bs, op, cl, b5, wq, wbs, wop, wcl, wb5)
		}
	})
}

// TestLineMasks checks the vector line masks against the byte loop, as
// TestBlockMasks does.
func TestLineMasks(t *testing.T) {
	eachBlock(7, 20000, []byte("\n \t]\r\x0b\x1a\x00\x8a\xa0\x89\xdd}[\\a"), func(blk *[64]byte) {
		nl, ws, rb := lineMasks(blk)
		wnl, wws, wrb := lineMasksGo(blk)
		if nl != wnl || ws != wws || rb != wrb {
			t.Fatalf("%q: got %x %x %x, want %x %x %x", blk[:], nl, ws, rb, wnl, wws, wrb)
		}
	})
}

func FuzzStructScan(f *testing.F) {
	f.Add([]byte(`{"a":"b\"}","c":[1,{"d":"\\"}]}`), 3, 9)
	f.Add([]byte(`[{"k:{\"uid\":\"x\"}":{}},"\\\\\"]"]`), 1, 20)
	f.Add([]byte(`{"a":[}`), 0, 0)
	f.Fuzz(func(t *testing.T, b []byte, c1, c2 int) {
		if len(b) > 1<<16 {
			return
		}
		checkScan(t, b, 0, []int{c1, c2})
	})
}

// BenchmarkStructScan measures both scans over a kubectl-style pod,
// indented and compact.
func BenchmarkStructScan(b *testing.B) {
	pretty := []byte(strings.TrimSpace(fmt.Sprintf(podTemplate, 1, 2, 3, 4, 5, 6)))
	var compact bytes.Buffer
	if err := json.Compact(&compact, pretty); err != nil {
		b.Fatal(err)
	}
	for _, doc := range []struct {
		name string
		b    []byte
	}{{"pretty", pretty}, {"compact", compact.Bytes()}} {
		for _, mode := range []struct {
			name  string
			kinds bool
		}{{"delimit", false}, {"kinds", true}} {
			b.Run(doc.name+"/words/"+mode.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc.b)))
				for b.Loop() {
					z := structScan{kinds: mode.kinds}
					if _, how := z.scan(doc.b, 0, true); how != scanDone {
						b.Fatal("not closed")
					}
				}
			})
			b.Run(doc.name+"/bytes/"+mode.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc.b)))
				for b.Loop() {
					if _, why := refSkip(doc.b, 0, 0, mode.kinds); why != "" {
						b.Fatal(why)
					}
				}
			})
		}
	}
}
