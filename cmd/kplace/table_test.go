package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/ipc"
)

// genSmall generates a small mixed cluster into dir and returns its path.
func genSmall(t *testing.T, dir string) string {
	t.Helper()
	in := filepath.Join(dir, "cluster.json")
	if code, stderr := runCapture(t, "gen", "--profile", "mixed", "--nodes", "40", "--pods", "600", "--seed", "3", "-o", in); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	return in
}

// TestPlaceParquet places a generated cluster with --format parquet and
// reads the table back: one row per pod outcome, as many bind rows as the
// report counts placed pods.
func TestPlaceParquet(t *testing.T) {
	dir := t.TempDir()
	in := genSmall(t, dir)
	out, rep := filepath.Join(dir, "x.parquet"), filepath.Join(dir, "report.json")
	if code, stderr := runCapture(t, "place", "-q", "-f", in, "--format", "parquet", "-o", out, "--report", rep); code != 0 {
		t.Fatalf("place: exit %d: %s", code, stderr)
	}
	var r struct {
		Counts struct{ Pending, Placed, Evicted, Rejected int }
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	rows := readParquetRows(t, out)
	actions := map[string]int{}
	for _, row := range rows {
		actions[row["action"].(string)]++
	}
	if r.Counts.Placed == 0 || actions["bind"] != r.Counts.Placed {
		t.Errorf("%d bind rows, report: %d placed", actions["bind"], r.Counts.Placed)
	}
	if rows, want := len(rows), r.Counts.Pending+r.Counts.Evicted+r.Counts.Rejected; rows != want {
		t.Errorf("%d rows, want %d (pending %d + evicted %d + rejected %d)", rows, want, r.Counts.Pending, r.Counts.Evicted, r.Counts.Rejected)
	}
}

// TestPlaceArrowStdout writes the Arrow IPC file to stdout, a pipe: the
// bytes must equal the file written with -o FILE, and open as an IPC file.
func TestPlaceArrowStdout(t *testing.T) {
	dir := t.TempDir()
	in := genSmall(t, dir)
	out := filepath.Join(dir, "r.arrow")
	if code, stderr := runCapture(t, "place", "-q", "-f", in, "--format", "arrow", "-o", out); code != 0 {
		t.Fatalf("place: exit %d: %s", code, stderr)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	code, stderr := runCapture(t, "place", "-q", "-f", in, "--format", "arrow", "-o", "-")
	w.Close()
	os.Stdout = old
	got := <-done
	if code != 0 {
		t.Fatalf("place -o -: exit %d: %s", code, stderr)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("stdout (%d bytes) differs from the file (%d bytes)", len(got), len(want))
	}
	fr, err := ipc.NewFileReader(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	if fr.NumRecords() == 0 {
		t.Error("no record batch")
	}
}
