package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
)

// specRun is what a parallel read's walker did with guesses.
type specRun struct {
	cut     int  // items cut by a guess
	rewound bool // a guess was wrong and the walker went back to it
	tired   bool // the walker stopped guessing
}

// loadSpec loads data sequentially and in parallel (which guesses from
// every list's first item) and fails the test unless both read the same
// objects or fail with the same error; it returns the parallel read's
// result and what its walker did.
func loadSpec(t *testing.T, name string, data []byte, opts Options) (*index.Input, error, specRun) {
	t.Helper()
	return loadSpecFrom(t, name, data, opts, 0)
}

// loadSpecFrom is loadSpec guessing from item from of each list.
func loadSpecFrom(t *testing.T, name string, data []byte, opts Options, from int) (*index.Input, error, specRun) {
	t.Helper()
	opts.Parallelism = 1
	seq, seqErr := loadBytes(data, opts)
	var run specRun
	specTrace = func(sp *specState) { run = specRun{sp.cut, sp.off, sp.tired} }
	old := guessFrom
	guessFrom = from
	defer func() { specTrace, guessFrom = nil, old }()
	opts.Parallelism = 3
	par, err := loadBytes(data, opts)
	if (err == nil) != (seqErr == nil) || (err != nil && err.Error() != seqErr.Error()) {
		t.Fatalf("%s: parallel error %v, sequential %v", name, err, seqErr)
	}
	if err == nil {
		if want, got := dump(t, seq), dump(t, par); !bytes.Equal(want, got) {
			t.Fatalf("%s: parallel read differs from sequential: %s", name, firstDiff(want, got))
		}
	}
	return par, err, run
}

// itemCount returns the number of items of the List in data.
func itemCount(t *testing.T, data []byte) int {
	var l struct{ Items []json.RawMessage }
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	return len(l.Items)
}

// TestGuessedItemsMatchStructure reads exports laid out as kubectl writes
// them (indented by four spaces), one item per line, indented by tabs, with
// CRLF line ends: every item is cut by its layout (with the default window)
// and reads as the sequential reader reads it, with windows that move the
// stream many times per item.
func TestGuessedItemsMatchStructure(t *testing.T) {
	perLine, err := os.ReadFile(genSeed)
	if err != nil {
		t.Fatal(err)
	}
	kubectl, err := os.ReadFile("testdata/gen-mixed-indented.json")
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(perLine, &v); err != nil {
		t.Fatal(err)
	}
	tabs, err := json.MarshalIndent(v, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	layouts := []struct {
		name string
		data []byte
	}{
		{"one per line", perLine},
		{"kubectl", kubectl},
		{"tabs", tabs},
		{"kubectl CRLF", bytes.ReplaceAll(kubectl, []byte("\n"), []byte("\r\n"))},
		{"one per line CRLF", bytes.ReplaceAll(perLine, []byte("\n"), []byte("\r\n"))},
	}
	items := itemCount(t, perLine)
	for _, window := range []int{64 << 10, 512, 64} {
		smallWindow(t, window)
		for _, l := range layouts {
			name := fmt.Sprintf("%s, window %d", l.name, window)
			in, err, run := loadSpec(t, name, l.data, Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(in.Nodes) != 4 || len(in.Pods) != 20 {
				t.Fatalf("%s: %d nodes, %d pods; want 4 and 20", name, len(in.Nodes), len(in.Pods))
			}
			if run.rewound {
				t.Errorf("%s: a guess was wrong", name)
			}
			// A window that moved just before an item holds no newline
			// before it: that item is cut by structure.
			if window == 64<<10 && run.cut != items || run.cut == 0 {
				t.Errorf("%s: %d of %d items cut by their layout", name, run.cut, items)
			}
		}
	}
}

// podLine is a pending pod on one line.
func podLine(i int) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p%d","namespace":"ns","uid":"u%d"},`+
		`"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"%dm"}}}]}}`, i, i, 100+i%50)
}

// TestWrongGuessGoesBack reads lists laid out one item per line but for an
// item that spans lines where another item could start: the guess cuts it
// short, the parser refuses the cut, and the walker must go back to the
// item (which the stream still holds, thousands of items later with a
// small window) and cut the rest by structure. Every read must match the
// sequential one, errors included.
func TestWrongGuessGoesBack(t *testing.T) {
	const n = 3000
	list := func(wrongAt int, wrong string, tail string) []byte {
		var b strings.Builder
		b.WriteString(`{"apiVersion":"v1","kind":"List","items":[` + "\n")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",\n")
			}
			if i == wrongAt {
				b.WriteString(wrong)
				continue
			}
			b.WriteString(podLine(i))
		}
		b.WriteString("\n]}\n" + tail)
		return []byte(b.String())
	}
	// A pod whose containers are on two lines: the first guess ends it
	// after its first container.
	split := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w","namespace":"ns","uid":"uw"},` +
		`"spec":{"containers":[{"name":"a"},` + "\n" + `{"name":"b"}]}}`
	// The same with the array's end on a line of its own: the walker takes
	// the second container for an item and the ']' for the list's end.
	splitEnd := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w","namespace":"ns","uid":"uw"},` +
		`"spec":{"containers":[{"name":"a"},` + "\n" + `{"name":"b"}` + "\n" + `]}}`
	node := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4","pods":"110"}}}`
	bad := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x" "namespace":"ns"}}`
	for _, window := range []int{64 << 10, 512} {
		smallWindow(t, window)
		for _, c := range []struct {
			name    string
			data    []byte
			pods    int
			rewound bool
			errSub  string
		}{
			{"no wrong guess", list(-1, "", node), n, false, ""},
			{"wrong guess mid-list", list(2000, split, node), n, true, ""},
			{"wrong guess first", list(0, split, node), n, true, ""},
			{"wrong guess last", list(n-1, split, node), n, true, ""},
			{"wrong guess before the list's end", list(n-1, splitEnd, node), n, true, ""},
			{"wrong guess mid-list, array end", list(1500, splitEnd, node), n, true, ""},
			{"syntax error in a guessed item", list(2500, bad, node), 0, true, "expected ',' or '}'"},
			{"wrong guess, then a syntax error", []byte(strings.Replace(string(list(1000, split, node)), podLine(2200), bad, 1)), 0, true, "expected ',' or '}'"},
			{"wrong guess, then the end", list(2000, split, "")[:len(list(2000, split, ""))-200], 0, true, "truncated file?"},
		} {
			name := fmt.Sprintf("%s, window %d", c.name, window)
			in, err, run := loadSpec(t, name, c.data, Options{})
			if c.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), c.errSub) {
					t.Fatalf("%s: error %v, want one with %q", name, err, c.errSub)
				}
			} else if err != nil {
				t.Fatalf("%s: %v", name, err)
			} else if len(in.Pods) != c.pods || len(in.Nodes) != 1 {
				t.Fatalf("%s: %d pods, %d nodes; want %d and 1", name, len(in.Pods), len(in.Nodes), c.pods)
			}
			if run.rewound != c.rewound {
				t.Errorf("%s: went back %v, want %v", name, run.rewound, c.rewound)
			}
		}
	}
}

// TestTruncatedIndentedJSON cuts a kubectl-indented export at many bytes:
// the parallel read (which guesses) reports the truncation as the
// sequential read does.
func TestTruncatedIndentedJSON(t *testing.T) {
	data, err := os.ReadFile("testdata/gen-mixed-indented.json")
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.TrimRight(data, " \n")
	smallWindow(t, 512)
	step := 97
	if testing.Short() {
		step = 997
	}
	for cut := 1; cut < len(data); cut += step {
		_, err, _ := loadSpec(t, fmt.Sprintf("cut at %d", cut), data[:cut], Options{})
		if err == nil || !strings.Contains(err.Error(), "truncated file?") {
			t.Fatalf("cut at %d of %d: %v, want a truncation", cut, len(data), err)
		}
	}
}

// TestGuessesUnderObjectLimit reads a long list with a small object limit:
// the bytes the stream holds for guesses not yet checked are many items,
// more than the limit, and must not count as one value; an item over the
// limit is refused as the sequential read refuses it.
func TestGuessesUnderObjectLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"v1","kind":"List","items":[` + "\n")
	for i := 0; i < 5000; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(podLine(i))
	}
	b.WriteString("\n]}\n")
	data := []byte(b.String())
	big := []byte(strings.Replace(b.String(), podLine(4000), strings.Replace(podLine(4000), `"uid":"u4000"`,
		`"uid":"u4000","annotations":{"a":"`+strings.Repeat("x", 5000)+`"}`, 1), 1))
	for _, window := range []int{64 << 10, 512} {
		smallWindow(t, window)
		name := fmt.Sprintf("window %d", window)
		in, err, run := loadSpec(t, name, data, Options{MaxObjectSize: 4 << 10})
		if err != nil || len(in.Pods) != 5000 || run.cut < 4000 {
			t.Fatalf("%s: %v; want 5000 pods, most cut by guesses (%d)", name, err, run.cut)
		}
		if _, err, _ = loadSpec(t, name+", an item over the limit", big, Options{MaxObjectSize: 4 << 10}); err == nil ||
			!strings.Contains(err.Error(), flagMaxObject) {
			t.Fatalf("%s, an item over the limit: %v, want the limit's error", name, err)
		}
	}
}

// TestShortListsCutByStructure: with the default threshold, the items of a
// list are guessed from its guessFrom-th on; a shorter list is cut by
// structure alone (its end waits for no check).
func TestShortListsCutByStructure(t *testing.T) {
	for _, n := range []int{guessFrom - 1, guessFrom + 1000} {
		var b strings.Builder
		b.WriteString(`{"apiVersion":"v1","kind":"List","items":[` + "\n")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(podLine(i))
		}
		b.WriteString("\n]}\n")
		in, err, run := loadSpecFrom(t, fmt.Sprint(n, " items"), []byte(b.String()), Options{}, guessFrom)
		if err != nil || len(in.Pods) != n {
			t.Fatalf("%d items: %v", n, err)
		}
		if want := max(0, n-guessFrom); run.cut != want {
			t.Errorf("%d items: %d cut by a guess, want %d", n, run.cut, want)
		}
	}
}

// shortReader returns at most n bytes a read.
type shortReader struct {
	r io.Reader
	n int
}

func (s shortReader) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), s.n)]) }

// TestWindowGrowsForHeldBytesOnly: a stream read to its end in short reads
// grows its window to maxStreamWindow at most while it holds nothing, and
// past it while it holds bytes (guesses in flight).
func TestWindowGrowsForHeldBytesOnly(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	for _, hold := range []bool{false, true} {
		s := newStream(shortReader{bytes.NewReader(data), 1000}, 64<<10)
		if hold {
			s.hold = 0
		}
		for s.fill() {
			s.pos = s.end
		}
		if s.total != int64(len(data)) {
			t.Fatalf("hold %v: read %d of %d bytes", hold, s.total, len(data))
		}
		if grew := len(s.buf) > maxStreamWindow; grew != hold {
			t.Errorf("hold %v: window %d bytes", hold, len(s.buf))
		}
	}
}

// TestMisleadingLayoutGivesUp: items on lines of their own, each indented
// more than the last, so that no line after an item starts as the next
// item at its indentation and every guess reads on to the list's end. The
// walker must stop guessing (a guess reads a bounded amount, and after
// guessGiveUp failures none is tried) and read as the sequential reader.
func TestMisleadingLayoutGivesUp(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"v1","kind":"List","items":[`)
	const n = 3000
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + strings.Repeat(" ", 70+i) + podLine(i))
	}
	b.WriteString("\n]}\n")
	in, err, run := loadSpec(t, "growing indentation", []byte(b.String()), Options{})
	if err != nil || len(in.Pods) != n {
		t.Fatalf("%v", err)
	}
	if !run.tired || run.cut != 0 || run.rewound {
		t.Errorf("walker %+v: want it to give up guessing, none cut or wrong", run)
	}
}
