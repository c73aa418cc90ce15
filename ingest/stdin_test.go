package ingest

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kplace/kplace/index"
)

// withStdin makes "-" read data for the test.
func withStdin(t *testing.T, data []byte) {
	t.Helper()
	old := StdinReader
	StdinReader = bytes.NewReader(data)
	t.Cleanup(func() { StdinReader = old })
}

// TestStdin: "-" reads standard input as a file of that content would be
// read (JSON, YAML in flow style that first looks like JSON, compressed,
// a snapshot), names it "stdin" in errors, and may be given once only.
func TestStdin(t *testing.T) {
	js, err := os.ReadFile("testdata/list.json")
	if err != nil {
		t.Fatal(err)
	}
	want := dump(t, mustLoad(t, Options{}, "testdata/list.json"))
	// Positions name the file "stdin".
	dumpStdin := func(in *index.Input) []byte {
		return bytes.ReplaceAll(dump(t, in), []byte(`"File": "stdin"`), []byte(`"File": "list.json"`))
	}
	withStdin(t, js)
	if got := dumpStdin(mustLoad(t, Options{}, Stdin)); !bytes.Equal(got, want) {
		t.Errorf("JSON on stdin: %s", firstDiff(want, got))
	}

	var zs bytes.Buffer
	zw, _ := zstd.NewWriter(&zs)
	zw.Write(js)
	zw.Close()
	withStdin(t, zs.Bytes())
	if got := dumpStdin(mustLoad(t, Options{}, Stdin)); !bytes.Equal(got, want) {
		t.Errorf("zstd JSON on stdin: %s", firstDiff(want, got))
	}

	// YAML in flow style starts like JSON: read twice, which a pipe alone
	// could not do.
	withStdin(t, []byte("{apiVersion: v1, kind: Node, metadata: {name: flow-node}}\n"))
	if in := mustLoad(t, Options{}, Stdin); len(in.Nodes) != 1 || in.Nodes[0].Name != "flow-node" {
		t.Errorf("flow YAML on stdin: %+v", in.Nodes)
	}

	// A snapshot on stdin.
	var snap bytes.Buffer
	if err := WriteSnapshot(&snap, mustLoad(t, Options{}, "testdata/list.json"), SnapshotOptions{}); err != nil {
		t.Fatal(err)
	}
	withStdin(t, snap.Bytes())
	in, info, err := LoadWithInfo([]string{Stdin}, Options{})
	if err != nil || !info.Snapshot {
		t.Fatalf("snapshot on stdin: snapshot %t, %v", info.Snapshot, err)
	}
	if got := dumpStdin(in); !bytes.Equal(got, want) {
		t.Errorf("snapshot on stdin: %s", firstDiff(want, got))
	}

	withStdin(t, []byte(`{"apiVersion":"v1","kind":"Node","metadata":{"name":`))
	if _, err := Load([]string{Stdin}, Options{}); err == nil || !strings.HasPrefix(err.Error(), "stdin") {
		t.Errorf("bad JSON on stdin: error %v, want one naming stdin", err)
	}
	if _, err := Load([]string{Stdin, "testdata/list.json", Stdin}, Options{}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("stdin twice: error %v", err)
	}
}
