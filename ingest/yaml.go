package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kplace/kplace/index"
)

// YAML: documents are split on "---" lines (as k8s.io/apimachinery's
// YAMLReader splits them), each read whole, converted to JSON by
// sigs.k8s.io/yaml, then walked like a JSON stream.

// readYAML reads a YAML stream (already decompressed). A line longer
// than the line limit, or a document larger than the object limit, is
// refused when it reaches the limit.
func (l *loader) readYAML(path string, r *bufio.Reader) error {
	return splitYAML(path, r, &l.opts, func(doc []byte, firstLine int) error { return l.yamlDoc(path, doc, firstLine) })
}

// YAMLDocuments calls yield with each document of the YAML stream raw (read
// from path, which errors name) and the line it starts on, as Load splits
// its YAML files, within the default limits (no flag raises them here).
func YAMLDocuments(path string, raw []byte, yield func(doc []byte, firstLine int) error) error {
	return splitYAML(path, bufio.NewReader(bytes.NewReader(raw)), &Options{fixedLimits: true}, yield)
}

// ReadConfigFile reads a file of kplace's own (a scenario, a scheduler
// configuration) within the input limits: at most DefaultMaxObjectSize
// bytes, also as the JSON its YAML aliases expand to. A path such as
// /dev/zero, or an alias bomb, is refused, not read to the end.
func ReadConfigFile(path string) ([]byte, error) { return readConfig(path) }

// splitYAML calls yield with each document of a YAML stream and the line
// it starts on, within opts' limits.
func splitYAML(path string, r *bufio.Reader, opts *Options, yield func(doc []byte, firstLine int) error) error {
	var doc bytes.Buffer
	line := 0          // lines read so far
	docStart := 1      // line of the document's first line
	var partial []byte // a line longer than the reader's buffer
	maxLine, maxDoc := opts.maxLine(), opts.maxObject()
	for {
		chunk, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if int64(len(partial)+len(chunk)) > maxLine {
				return readErr(path, &limitError{what: fmt.Sprintf("line %d", line+1), limit: maxLine, flag: opts.limitFlag(flagMaxLine), line: line + 1})
			}
			partial = append(partial, chunk...)
			continue
		}
		if err != nil && err != io.EOF {
			return readErr(path, err)
		}
		text := chunk
		if partial != nil {
			text = append(partial, chunk...)
			partial = nil
		}
		if len(text) > 0 {
			line++
		}
		if line == 1 {
			// Lines ended by a lone CR (classic Mac OS) read as one line
			// here, and the YAML parser would read only the first document.
			if i := bytes.IndexByte(text, '\r'); i >= 0 && i+1 < len(text) && text[i+1] != '\n' {
				return &Error{File: path, Line: 1, Msg: "lines end in a lone CR (\\r): convert them to LF (\\n) or CRLF"}
			}
		}
		if int64(len(text)) > maxLine {
			return readErr(path, &limitError{what: fmt.Sprintf("line %d", line), limit: maxLine, flag: opts.limitFlag(flagMaxLine), line: line})
		}
		// "---" starts a document; "..." ends one (what follows starts the
		// next, with or without its "---").
		if bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("...")) {
			rest := strings.TrimSpace(string(text[3:]))
			if rest != "" && rest[0] != '#' {
				return &Error{File: path, Line: line, Msg: "invalid YAML document marker: " + strings.TrimSpace(string(text))}
			}
			if err := yield(doc.Bytes(), docStart); err != nil {
				return err
			}
			doc.Reset()
			docStart = line + 1
		} else {
			if int64(doc.Len()+len(text)) > maxDoc {
				return readErr(path, &limitError{what: fmt.Sprintf("the YAML document starting at line %d", docStart), limit: maxDoc, flag: opts.limitFlag(flagMaxObject), line: docStart})
			}
			doc.Write(text)
		}
		if err == io.EOF {
			return yield(doc.Bytes(), docStart)
		}
	}
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// yamlDoc converts one document and walks it.
func (l *loader) yamlDoc(path string, doc []byte, firstLine int) error {
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil
	}
	if err := checkYAMLAliases(doc, l.opts.maxObject()); err != nil {
		e := readErr(path, err)
		e.Line = firstLine
		return e
	}
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		// Make the parser's document-relative line absolute.
		msg := err.Error()
		line := firstLine
		if m := yamlLineRE.FindStringSubmatchIndex(msg); m != nil {
			if n, err := strconv.Atoi(msg[m[2]:m[3]]); err == nil {
				line = firstLine + n - 1
				msg = msg[:m[0]] + "line " + strconv.Itoa(line) + msg[m[1]:]
			}
		}
		msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
		return &Error{File: path, Line: line, Msg: "invalid YAML: " + msg, Err: err}
	}
	if t := bytes.TrimSpace(js); bytes.Equal(t, []byte("null")) {
		return nil // only comments
	}
	loc := yamlLocator(doc, firstLine)
	// Objects are held until the document is walked, so that item lines
	// can be checked against the number of items found.
	type held struct {
		obj              *wireObject
		apiVersion, kind string
		src              index.Source
	}
	var objs []held
	w := &jsonWalker{file: path, s: newStream(bytes.NewReader(js), streamWindow), loc: loc, intern: l.intern,
		emit: func(o *wireObject, apiVersion, kind string, src index.Source) error {
			c := new(wireObject)
			*c = *o // o may be the walker's scratch object
			objs = append(objs, held{c, apiVersion, kind, src})
			return nil
		}}
	werr := w.walk()
	if loc.maxItem >= len(loc.items) || (werr == nil && loc.maxItem+1 != len(loc.items)) {
		// The line guess did not match the document: use its first line.
		for i := range objs {
			objs[i].src.Line = loc.docLine
		}
		if e, ok := werr.(*Error); ok && e.Line > loc.docLine {
			e.Line = loc.docLine
		}
	}
	for _, h := range objs {
		if err := l.emit(h.obj, h.apiVersion, h.kind, h.src); err != nil {
			return err
		}
	}
	if e, ok := werr.(*Error); ok {
		// The walker reads the document's JSON form: say what the user wrote.
		if rest, cut := strings.CutPrefix(e.Msg, "invalid JSON: "); cut {
			e.Msg = "invalid YAML document: " + rest
		}
	}
	return werr
}

// yamlLines locates objects of a YAML document by line.
type yamlLines struct {
	docLine int   // the document's first content line
	items   []int // lines of the top-level list's items ("- " lines)
	maxItem int   // highest item index asked about
}

func (y *yamlLines) objectLine(item int) int {
	if item > y.maxItem {
		y.maxItem = item
	}
	if item >= 0 && item < len(y.items) {
		return y.items[item]
	}
	return y.docLine
}

// yamlLocator finds the document's first content line and, for a list
// (a top-level sequence, or a mapping with a top-level "items:" sequence),
// the line of each item, by indentation.
func yamlLocator(doc []byte, firstLine int) *yamlLines {
	y := &yamlLines{docLine: firstLine, maxItem: -1}
	lines := bytes.Split(doc, []byte("\n"))
	content := func(b []byte) bool {
		t := bytes.TrimSpace(b)
		return len(t) > 0 && t[0] != '#' && t[0] != '%'
	}
	indent := func(b []byte) int {
		n := 0
		for n < len(b) && b[n] == ' ' {
			n++
		}
		return n
	}
	isItem := func(b []byte, ind int) bool {
		return len(b) > ind && b[ind] == '-' && (len(b) == ind+1 || b[ind+1] == ' ' || b[ind+1] == '\r' || b[ind+1] == '\t')
	}
	first := -1
	for i, b := range lines {
		if content(b) {
			first = i
			break
		}
	}
	if first < 0 {
		return y
	}
	y.docLine = firstLine + first
	itemIndent, from := -1, -1
	if isItem(lines[first], 0) {
		itemIndent, from = 0, first
	} else {
		for i := first; i < len(lines); i++ {
			b := bytes.TrimRight(lines[i], " \t\r")
			if !bytes.HasPrefix(b, []byte("items:")) {
				continue
			}
			rest := bytes.TrimSpace(b[len("items:"):])
			if len(rest) > 0 && rest[0] != '#' {
				return y // flow style or null: no item lines
			}
			for j := i + 1; j < len(lines); j++ {
				if content(lines[j]) {
					if ind := indent(lines[j]); isItem(lines[j], ind) {
						itemIndent, from = ind, j
					}
					break
				}
			}
			break
		}
	}
	if from < 0 {
		return y
	}
	for i := from; i < len(lines); i++ {
		b := lines[i]
		if !content(b) {
			continue
		}
		ind := indent(b)
		if ind < itemIndent || (ind == itemIndent && !isItem(b, ind)) {
			break
		}
		if ind == itemIndent {
			y.items = append(y.items, firstLine+i)
		}
	}
	return y
}
