package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kplace/kplace/ingest"
	"github.com/kplace/kplace/live"
)

// TestSnapshotKindsAreIngestKinds: kplace snapshot reads exactly the
// kinds kplace place reads. Every kind client-go knows is offered to the
// loader alone; those it does not skip must be the snapshot's kinds
// (other versions of them aside: no API server serves those any more).
// A kind the loader learns to read fails this test until the snapshot
// reads it too.
func TestSnapshotKindsAreIngestKinds(t *testing.T) {
	dir := t.TempDir()
	read := map[string]bool{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") || strings.HasSuffix(gvk.Kind, "Options") ||
			gvk.Kind == "WatchEvent" || gvk.Kind == "Status" {
			continue
		}
		key := strings.TrimPrefix(gvk.GroupVersion().String()+" "+gvk.Kind, "/")
		path := filepath.Join(dir, "obj.json")
		body := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"x","namespace":"ns"}}`, gvk.GroupVersion().String(), gvk.Kind)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := ingest.Load([]string{path}, ingest.Options{})
		if err != nil || in.SkippedKinds[key] == 0 {
			read[key] = true // an error too: the loader read it and found it wanting
		}
	}
	want := map[string]bool{}
	for _, k := range live.SnapshotKinds() {
		want[k] = true
		if !read[k] {
			t.Errorf("kplace snapshot reads %s, which kplace place skips", k)
		}
	}
	var extra []string
	for k := range read {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	served := map[string]bool{}
	for k := range want {
		served[k[strings.LastIndexByte(k, ' ')+1:]] = true
	}
	for _, k := range extra {
		if kind := k[strings.LastIndexByte(k, ' ')+1:]; !served[kind] {
			t.Errorf("kplace place reads %s, which kplace snapshot does not", k)
		} else {
			t.Logf("%s: another version of a kind the snapshot reads", k)
		}
	}
}
