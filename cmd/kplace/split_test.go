package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlaceSplit: --split writes the Evictions and the Bindings of the
// result, each in commit order, to result.evictions.json and
// result.bindings.json, and no result.json; without -o it is a usage error.
func TestPlaceSplit(t *testing.T) {
	dir := t.TempDir()
	whole, split := filepath.Join(dir, "whole.jsonl"), filepath.Join(dir, "result.jsonl")
	args := []string{"place", "-q", "-f", "testdata/requeue.yaml", "--requeue-evicted", "--format", "jsonl"}
	if code, errs := runCapture(t, append(args, "-o", whole)...); code != 0 {
		t.Fatalf("place: exit %d: %s", code, errs)
	}
	if code, errs := runCapture(t, append(args, "-o", split, "--split")...); code != 0 {
		t.Fatalf("place --split: exit %d: %s", code, errs)
	}
	all, _ := os.ReadFile(whole)
	var wantEv, wantBi []byte
	for _, line := range bytes.SplitAfter(all, []byte("\n")) {
		switch {
		case bytes.Contains(line, []byte(`"kind":"Eviction"`)):
			wantEv = append(wantEv, line...)
		case len(line) > 0:
			wantBi = append(wantBi, line...)
		}
	}
	if len(wantEv) == 0 || len(wantBi) == 0 {
		t.Fatalf("the scenario should evict and bind:\n%s", all)
	}
	ev, err1 := os.ReadFile(filepath.Join(dir, "result.evictions.jsonl"))
	bi, err2 := os.ReadFile(filepath.Join(dir, "result.bindings.jsonl"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !bytes.Equal(ev, wantEv) || !bytes.Equal(bi, wantBi) {
		t.Errorf("split files\n%s---\n%s\nwant\n%s---\n%s", ev, bi, wantEv, wantBi)
	}
	if _, err := os.Stat(split); !os.IsNotExist(err) {
		t.Errorf("--split also wrote %s (%v)", split, err)
	}
	if code, errs := runCapture(t, "place", "-q", "-f", "testdata/requeue.yaml", "--split"); code != 2 || !strings.Contains(errs, "--split needs -o FILE") {
		t.Errorf("--split without -o: exit %d: %s", code, errs)
	}
}
