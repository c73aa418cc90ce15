package export

import (
	"bufio"
	"bytes"
	"io"

	"sigs.k8s.io/yaml"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

// writeCommitsYAML writes the commits keep accepts as a v1 List in YAML,
// as kubectl get -o yaml prints a list: the List's keys and each item's in
// sorted order (byte-deterministic), items in commit order. Each item is
// the JSON object the list format writes, converted.
func writeCommitsYAML(w io.Writer, c *index.Cluster, res *solver.Result, keep func(solver.Action) bool) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString("apiVersion: v1\nitems:")
	var js []byte
	n := 0
	for _, cm := range res.Commits {
		if !keep(cm.Action) {
			continue
		}
		if n == 0 {
			bw.WriteByte('\n')
		}
		n++
		js = appendCommit(js[:0], c, &cm)
		y, err := yaml.JSONToYAML(js)
		if err != nil {
			return err
		}
		// An item of a block sequence: "- " before its first line, two
		// spaces before the others.
		for i, line := range bytes.SplitAfter(bytes.TrimSuffix(y, []byte("\n")), []byte("\n")) {
			if i == 0 {
				bw.WriteString("- ")
			} else {
				bw.WriteString("  ")
			}
			bw.Write(line)
		}
		bw.WriteByte('\n')
	}
	if n == 0 {
		bw.WriteString(" []\n")
	}
	bw.WriteString("kind: List\nmetadata: {}\n")
	return bw.Flush()
}
