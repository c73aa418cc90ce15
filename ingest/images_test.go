package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestImages reads what ImageLocality uses: a node's status.images, and a
// pending pod's images (init containers, containers, image volumes, in
// that order, ":latest" added where a name has no tag, the tag found after
// the last '/' only), with its container count; a bound pod keeps none.
// The snapshot keeps them.
func TestImages(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.json")
	doc := `{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},
 "images":[{"names":["reg:5000/app@sha256:ab","reg:5000/app:2"],"sizeBytes":734003200},{"names":["busybox:1.36"],"sizeBytes":4400000}]}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":{
 "initContainers":[{"name":"i","image":"busybox:1.36"}],
 "containers":[{"name":"a","image":"reg:5000/app"},{"name":"b","image":"reg:5000/app:2"}],
 "volumes":[{"name":"v","image":{"reference":"models/llm:7b","pullPolicy":"IfNotPresent"}},{"name":"e","emptyDir":{}}]}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q","namespace":"default"},"spec":{"nodeName":"n1","containers":[{"name":"a","image":"x"}]}}
]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(in *index.Input, from string) {
		t.Helper()
		wantNode := []index.NodeImage{{Names: []string{"reg:5000/app@sha256:ab", "reg:5000/app:2"}, Size: 734003200}, {Names: []string{"busybox:1.36"}, Size: 4400000}}
		if got := in.Nodes[0].Images; len(got) != 2 || !slices.Equal(got[0].Names, wantNode[0].Names) || got[0].Size != wantNode[0].Size || !slices.Equal(got[1].Names, wantNode[1].Names) || got[1].Size != wantNode[1].Size {
			t.Errorf("%s: node images %+v, want %+v", from, got, wantNode)
		}
		p := in.Pods[0]
		want := []string{"busybox:1.36", "reg:5000/app:latest", "reg:5000/app:2", "models/llm:7b"}
		if !slices.Equal(p.Images, want) || p.ImageContainers != 3 {
			t.Errorf("%s: pod images %q (%d containers), want %q (3)", from, p.Images, p.ImageContainers, want)
		}
		if q := in.Pods[1]; q.Images != nil || q.ImageContainers != 0 {
			t.Errorf("%s: bound pod images %q (%d)", from, q.Images, q.ImageContainers)
		}
	}
	in, err := Load([]string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check(in, "json")
	snap := filepath.Join(dir, "c.arrow")
	f, err := os.Create(snap)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSnapshot(f, in, SnapshotOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	back, err := Load([]string{snap}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check(back, "snapshot")
}
