package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

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
)

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case FormatList, FormatJSONL, FormatArrow, FormatParquet:
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown format %q (want list, jsonl, arrow or parquet)", s)
}

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
	bw := bufio.NewWriterSize(w, 1<<20)
	if f == FormatList {
		bw.WriteString(`{"apiVersion":"v1","kind":"List","metadata":{},"items":[`)
	}
	var buf []byte
	for i, cm := range res.Commits {
		buf = buf[:0]
		if f == FormatList {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '\n')
		}
		buf = appendCommit(buf, c, &cm)
		if f == FormatJSONL {
			buf = append(buf, '\n')
		}
		bw.Write(buf)
	}
	if f == FormatList {
		bw.WriteString("\n]}\n")
	}
	return bw.Flush()
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
		// The preemptor, under kplace's key and the one the kube-scheduler
		// conformance checker reads (oracle validate): the pod that needed
		// the eviction is not always the next one bound on the node (room a
		// preemption frees goes to higher priorities first).
		pre := &c.Pods[cm.Preemptor]
		b = append(b, `,"annotations":{"`+PreemptorAnnotation+`":`...)
		b = appendPodKey(b, pre)
		b = append(b, `,"`+checkerPreemptorAnnotation+`":`...)
		b = appendPodKey(b, pre)
		b = append(b, "}}}"...)
	default:
		b = append(b, `{"apiVersion":"v1","kind":"Binding","metadata":{"name":`...)
		b = appendJSONString(b, p.Name)
		b = append(b, `,"namespace":`...)
		b = appendJSONString(b, p.Namespace)
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
