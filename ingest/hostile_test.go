package ingest

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// smallWindow makes JSON streams start with a window of size bytes for the
// rest of the test, so that small inputs refill and move the window often.
func smallWindow(t testing.TB, size int) {
	old := streamWindow
	streamWindow = size
	t.Cleanup(func() { streamWindow = old })
}

// TestTruncatedJSON cuts a JSON list at many bytes and loads the prefix,
// sequentially and in parallel, with windows from tiny to the default:
// every cut is an *Error saying the file is truncated, never a panic (a
// capture that refilled the window used to slice the buffer with an index
// taken before the refill).
func TestTruncatedJSON(t *testing.T) {
	data, err := os.ReadFile("testdata/list.json")
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.TrimRight(data, " \n") // every shorter prefix is truncated
	for _, window := range []int{16, 300, 64 << 10} {
		smallWindow(t, window)
		step := 3 // most cuts through the tiny window, a sample for the others
		if window > 16 {
			step = 17
		}
		if testing.Short() {
			step = 41
		}
		for _, par := range []int{1, 3} {
			for cut := 1; cut < len(data); cut += step {
				_, err := loadBytes(data[:cut], Options{Parallelism: par})
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("window %d, parallelism %d, cut at %d of %d: error %T %v, want an *Error", window, par, cut, len(data), err, err)
				}
				if !strings.Contains(e.Msg, "truncated file?") || e.File != "in" || e.Line < 1 {
					t.Fatalf("window %d, parallelism %d, cut at %d: %v, want a truncation at a line of in", window, par, cut, err)
				}
			}
		}
	}
}
