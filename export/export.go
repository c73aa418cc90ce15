package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

// Format is an output format for the commits.
type Format string

// Formats.
const (
	FormatList    Format = "list"    // a JSON v1 List, one item per line
	FormatJSONL   Format = "jsonl"   // one object per line
	FormatArrow   Format = "arrow"   // the placement table, Arrow IPC file format
	FormatParquet Format = "parquet" // the placement table, Parquet
	FormatYAML    Format = "yaml"    // a v1 List of Bindings and Evictions in YAML
)

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case FormatList, FormatJSONL, FormatYAML, FormatArrow, FormatParquet:
		return Format(s), nil
	case "yml":
		return FormatYAML, nil
	case "json": // a .json file's format, kubectl's -o json
		return FormatList, nil
	case "ndjson":
		return FormatJSONL, nil
	}
	return "", fmt.Errorf("unknown format %q (want list or json, jsonl, yaml, arrow or parquet)", s)
}

// FormatOf is the format a result file's name asks for: .json a list,
// .jsonl or .ndjson JSON lines, .yaml or .yml YAML, .arrow and .parquet
// the placement table; compressed returns the suffix (.gz or .zst) after
// it, which only the text formats take. ok is false when the name says
// nothing (no known suffix, or "-").
func FormatOf(name string) (f Format, compressed string, ok bool) {
	base := strings.ToLower(name)
	for _, z := range []string{".gz", ".zst"} {
		if b, cut := strings.CutSuffix(base, z); cut {
			base, compressed = b, z
		}
	}
	switch filepath.Ext(base) {
	case ".json":
		return FormatList, compressed, true
	case ".jsonl", ".ndjson":
		return FormatJSONL, compressed, true
	case ".yaml", ".yml":
		return FormatYAML, compressed, true
	case ".arrow":
		return FormatArrow, compressed, true
	case ".parquet":
		return FormatParquet, compressed, true
	}
	return "", compressed, false
}

// Binary reports whether f is a binary format (no terminal shows it).
func (f Format) Binary() bool { return f == FormatArrow || f == FormatParquet }

// WriteResult writes res over c in format f: the commits as Binding and
// Eviction objects (list, jsonl), or the placement table, one row per pod
// outcome (arrow, parquet).
func WriteResult(w io.Writer, c *index.Cluster, res *solver.Result, f Format) error {
	switch f {
	case FormatArrow, FormatParquet:
		return writeTable(w, c, res, f, memory.DefaultAllocator, tableBatch)
	}
	return WriteCommits(w, c, res, f)
}

// WriteCommits writes res's commits in order as Binding (v1) and Eviction
// (policy/v1) objects.
func WriteCommits(w io.Writer, c *index.Cluster, res *solver.Result, f Format) error {
	return writeCommits(w, c, res, f, func(solver.Action) bool { return true })
}

// WriteSplit writes res's Evictions to evictions and its Bindings to
// bindings, each in commit order, for binders that apply them apart: every
// Eviction first, its victim gone, then every Binding (which waits for
// more than commit order needs, never less).
func WriteSplit(evictions, bindings io.Writer, c *index.Cluster, res *solver.Result, f Format) error {
	if err := writeCommits(evictions, c, res, f, func(a solver.Action) bool { return a == solver.Evict }); err != nil {
		return err
	}
	return writeCommits(bindings, c, res, f, func(a solver.Action) bool { return a != solver.Evict })
}

// writeCommits writes the commits whose action keep accepts. The JSON
// formats are formatted in chunks on every processor and written in order
// (a million commits took 1.4 s on one).
func writeCommits(w io.Writer, c *index.Cluster, res *solver.Result, f Format, keep func(solver.Action) bool) error {
	if f == FormatYAML {
		return writeCommitsYAML(w, c, res, keep)
	}
	cw := NewCommitWriter(w, c, f)
	inOrder(res.Commits, commitChunk, func(cms []solver.Commit, b []byte) []byte {
		return formatCommits(b, c, f, cms, keep)
	}, cw.put)
	return cw.Close()
}

// CommitWriter writes commits as they come in format f (list or jsonl),
// the bytes WriteCommits writes for them all: a solve hands them over
// while it runs (solver.Config.Commits), and the file is done soon after.
type CommitWriter struct {
	bw    *bufio.Writer
	c     *index.Cluster
	f     Format
	first bool // no item written yet
	buf   []byte
}

// NewCommitWriter starts writing commits over c to w in format f (list or
// jsonl).
func NewCommitWriter(w io.Writer, c *index.Cluster, f Format) *CommitWriter {
	cw := &CommitWriter{bw: bufio.NewWriterSize(w, 1<<20), c: c, f: f, first: true}
	if f == FormatList {
		cw.bw.WriteString(`{"apiVersion":"v1","kind":"List","metadata":{},"items":[`)
	}
	return cw
}

// Write writes cms, the commits after those written before. An error of
// the writer is kept for Close.
func (cw *CommitWriter) Write(cms []solver.Commit) {
	cw.buf = formatCommits(cw.buf[:0], cw.c, cw.f, cms, func(solver.Action) bool { return true })
	cw.put(cw.buf)
}

// put writes formatted commits (each item after ",\n" in a list: the
// first one's comma is cut).
func (cw *CommitWriter) put(b []byte) {
	if cw.f == FormatList && cw.first && len(b) > 0 {
		b, cw.first = b[1:], false
	}
	cw.bw.Write(b)
}

// Close ends the list and flushes; it returns the writer's first error.
func (cw *CommitWriter) Close() error {
	if cw.f == FormatList {
		cw.bw.WriteString("\n]}\n")
	}
	return cw.bw.Flush()
}

// formatCommits appends the commits of cms whose action keep accepts in
// format f.
func formatCommits(b []byte, c *index.Cluster, f Format, cms []solver.Commit, keep func(solver.Action) bool) []byte {
	for i := range cms {
		if !keep(cms[i].Action) {
			continue
		}
		if f == FormatList {
			b = append(b, ",\n"...) // the first item's comma is cut when written
		}
		b = appendCommit(b, c, &cms[i])
		if f == FormatJSONL {
			b = append(b, '\n')
		}
	}
	return b
}

// commitChunk is how many commits one formatting job takes (a variable
// for tests): about 400 KB of JSON, so that the chunks formatted ahead
// add little to the peak memory (chunks of 16,384 added about 70 MB to a
// 10,000-node run's, the collector running rarely).
var commitChunk = 2 << 10

// inOrder formats items in chunks of size on GOMAXPROCS goroutines, a few
// chunks ahead of the one written, and hands each chunk's bytes to write
// in order.
func inOrder(items []solver.Commit, size int, format func([]solver.Commit, []byte) []byte, write func([]byte)) {
	workers := runtime.GOMAXPROCS(0)
	chunks := (len(items) + size - 1) / size
	if workers < 2 || chunks < 2 {
		write(format(items, nil))
		return
	}
	out := make([]chan []byte, chunks)
	for i := range out {
		out[i] = make(chan []byte, 1)
	}
	ahead := make(chan struct{}, 2*workers) // chunks formatted, not yet written
	free := make(chan []byte, 2*workers+1)  // buffers written, to reuse
	go func() {
		for i := range chunks {
			ahead <- struct{}{}
			var buf []byte
			select {
			case buf = <-free:
			default:
			}
			go func() {
				out[i] <- format(items[i*size:min((i+1)*size, len(items))], buf[:0])
			}()
		}
	}()
	for i := range chunks {
		b := <-out[i]
		write(b)
		select {
		case free <- b: // before the slot, so the next chunk takes it
		default:
		}
		<-ahead
	}
}

// appendCommit appends one commit as a JSON object.
func appendCommit(b []byte, c *index.Cluster, cm *solver.Commit) []byte {
	p := &c.Pods[cm.Pod]
	switch cm.Action {
	case solver.Evict:
		b = append(b, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":`...)
		b = appendJSONString(b, p.Name)
		b = append(b, `,"namespace":`...)
		b = appendJSONString(b, p.Namespace)
		// The node the victim leaves, and the preemptor, under kplace's key
		// and the one the kube-scheduler conformance checker reads (oracle
		// validate): the pod that needed the eviction is not always the next
		// one bound on the node (room a preemption frees goes to higher
		// priorities first).
		b = append(b, `,"annotations":{"`+NodeAnnotation+`":`...)
		b = appendJSONString(b, c.Nodes[cm.Node].Name)
		pre := &c.Pods[cm.Preemptor]
		b = append(b, `,"`+PreemptorAnnotation+`":`...)
		b = appendPodKey(b, pre)
		b = append(b, `,"`+checkerPreemptorAnnotation+`":`...)
		b = appendPodKey(b, pre)
		b = append(b, "}}"...)
		// The victim's uid as a precondition: the API server then evicts
		// that pod, not one created since under its name. Only a uid read
		// from the input: a pod without one is evicted by name.
		if p.UID != "" {
			b = append(b, `,"deleteOptions":{"preconditions":{"uid":`...)
			b = appendJSONString(b, p.UID)
			b = append(b, "}}"...)
		}
		b = append(b, '}')
	default:
		b = append(b, `{"apiVersion":"v1","kind":"Binding","metadata":{"name":`...)
		b = appendJSONString(b, p.Name)
		b = append(b, `,"namespace":`...)
		b = appendJSONString(b, p.Namespace)
		// The uid read from the input, never a made-up one: the API server
		// takes it as a precondition.
		if p.UID != "" {
			b = append(b, `,"uid":`...)
			b = appendJSONString(b, p.UID)
		}
		b = append(b, `},"target":{"apiVersion":"v1","kind":"Node","name":`...)
		b = appendJSONString(b, c.Nodes[cm.Node].Name)
		b = append(b, "}}"...)
	}
	return b
}

// PreemptorAnnotation names, on an Eviction, the pod ("namespace/name")
// whose placement needed it.
const PreemptorAnnotation = "kplace.io/preemptor"

// NodeAnnotation names, on an Eviction, the node the victim leaves: a
// binder holds every later Binding to that node until the victim is gone.
const NodeAnnotation = "kplace.io/node"

// checkerPreemptorAnnotation carries the same for the conformance checker
// (../shared/oracle validate), which reads this key.
const checkerPreemptorAnnotation = "oracle/preemptor"

// appendPodKey appends "namespace/name" of p as a JSON string.
func appendPodKey(b []byte, p *index.Pod) []byte {
	return appendJSONString(b, p.Namespace+"/"+p.Name)
}

// AppendJSONString appends s as a JSON string, for other writers of JSON
// lines; plain names take the fast path.
func AppendJSONString(b []byte, s string) []byte { return appendJSONString(b, s) }

// appendJSONString appends s as a JSON string; plain names take the fast path.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
