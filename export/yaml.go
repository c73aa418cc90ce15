package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

// writeCommitsYAML writes the commits keep accepts as a v1 List in YAML,
// as kubectl get -o yaml prints a list: the keys of the List and of each
// item in sorted order (byte-deterministic), items in commit order. Each
// item is the JSON object the list format writes (appendCommit), emitted
// as YAML.
func writeCommitsYAML(w io.Writer, c *index.Cluster, res *solver.Result, keep func(solver.Action) bool) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString("apiVersion: v1\nitems:")
	var js, y []byte
	var conv yamlConv
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
		var err error
		if y, err = conv.appendItem(y[:0], js); err != nil {
			return err
		}
		bw.Write(y)
	}
	if n == 0 {
		bw.WriteString(" []\n")
	}
	bw.WriteString("kind: List\nmetadata: {}\n")
	return bw.Flush()
}

// yamlConv turns the JSON objects appendCommit writes (objects of strings
// and objects) into YAML sequence items, keys sorted, reusing its buffers:
// no allocation per item once they have grown.
type yamlConv struct {
	// fields holds, per depth, the fields of the objects being converted;
	// an object's fields are a contiguous run of its depth's slice.
	fields [][]yamlField
}

// yamlField is one key of an object: a string value, or an object whose
// fields are kids.
type yamlField struct {
	key, val []byte
	kids     []yamlField
	obj      bool
}

// appendItem appends the JSON object js as a YAML sequence item.
func (y *yamlConv) appendItem(b, js []byte) ([]byte, error) {
	for i := range y.fields {
		y.fields[i] = y.fields[i][:0]
	}
	kids, _, err := y.object(js, 0, 0)
	if err != nil {
		return b, err
	}
	return appendYAMLFields(b, kids, 1, "- "), nil
}

// object parses the object that starts at js[i] ('{') at depth d and
// returns its fields, sorted by key, and the index after it.
func (y *yamlConv) object(js []byte, i, d int) ([]yamlField, int, error) {
	if d == len(y.fields) {
		y.fields = append(y.fields, nil)
	}
	start := len(y.fields[d])
	i++ // '{'
	for i < len(js) && js[i] != '}' {
		if js[i] == ',' {
			i++
		}
		key, next, err := jsonStringAt(js, i)
		if err != nil {
			return nil, 0, err
		}
		i = next + 1 // ':'
		f := yamlField{key: key}
		if js[i] == '{' {
			f.obj = true
			if f.kids, i, err = y.object(js, i, d+1); err != nil {
				return nil, 0, err
			}
		} else if f.val, i, err = jsonStringAt(js, i); err != nil {
			return nil, 0, err
		}
		y.fields[d] = append(y.fields[d], f)
	}
	kids := y.fields[d][start:]
	slices.SortFunc(kids, func(a, b yamlField) int { return bytes.Compare(a.key, b.key) })
	return kids, i + 1, nil
}

// jsonStringAt returns the JSON string that starts at js[i] ('"'),
// unescaped, and the index after it.
func jsonStringAt(js []byte, i int) ([]byte, int, error) {
	if i >= len(js) || js[i] != '"' {
		return nil, 0, fmt.Errorf("export: yaml: want a string at byte %d of %s", i, js)
	}
	escaped := false
	for j := i + 1; j < len(js); j++ {
		switch js[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			if !escaped {
				return js[i+1 : j], j + 1, nil
			}
			var s string
			if err := json.Unmarshal(js[i:j+1], &s); err != nil {
				return nil, 0, err
			}
			return []byte(s), j + 1, nil
		}
	}
	return nil, 0, fmt.Errorf("export: yaml: unterminated string in %s", js)
}

// yamlIndent is the indentation of depth d: yamlIndent[:2*d].
const yamlIndent = "                                "

// appendYAMLFields appends an object's fields at depth d as a YAML block
// mapping: the first line after first ("- " for a sequence item), the
// others indented.
func appendYAMLFields(b []byte, fields []yamlField, d int, first string) []byte {
	indent := yamlIndent[:min(2*d, len(yamlIndent))]
	for i := range fields {
		f := &fields[i]
		if i == 0 {
			b = append(b, first...)
		} else {
			b = append(b, indent...)
		}
		b = appendYAMLString(b, f.key)
		b = append(b, ':')
		switch {
		case f.obj && len(f.kids) == 0:
			b = append(b, " {}\n"...)
		case f.obj:
			b = append(b, '\n')
			b = appendYAMLFields(b, f.kids, d+1, yamlIndent[:min(2*d+2, len(yamlIndent))])
		default:
			b = append(b, ' ')
			b = appendYAMLString(b, f.val)
			b = append(b, '\n')
		}
	}
	return b
}

// appendYAMLString appends s as a YAML scalar: plain when it starts with a
// letter, holds only letters, digits and . _ / - and is no YAML 1.1 or 1.2
// keyword (true, no, null, ...), so that every YAML reader reads it as
// this string; else double-quoted, with JSON's escapes (valid in YAML).
func appendYAMLString(b, s []byte) []byte {
	if plainYAML(s) {
		return append(b, s...)
	}
	return appendJSONString(b, string(s))
}

// yamlKeywords are the plain scalars YAML 1.1 or 1.2 read as booleans or
// null, in any case.
var yamlKeywords = []string{"y", "n", "yes", "no", "true", "false", "on", "off", "null"}

// plainYAML reports whether s may be written as a plain YAML scalar.
func plainYAML(s []byte) bool {
	if len(s) == 0 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '/' || c == '-') {
			return false
		}
	}
	for _, kw := range yamlKeywords {
		if len(s) == len(kw) && bytes.EqualFold(s, []byte(kw)) {
			return false
		}
	}
	return true
}
