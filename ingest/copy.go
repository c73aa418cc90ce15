package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"sigs.k8s.io/yaml"
)

// CopyInput writes the objects of the files Load would read for paths
// (directories not recursively: pass InputFiles' list for -R), in
// the order it reads them, to w as JSON values, one a line: the top-level
// values of a JSON file as they are, each document of a YAML file
// converted to JSON. Other tools (and Load) read the result as they read
// the input. A snapshot holds no objects to copy: it is an error.
func CopyInput(paths []string, w io.Writer) error {
	files, err := expandPaths(paths, false)
	if err != nil {
		return err
	}
	src, err := newSources(files, DefaultMaxStdinSize)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := copyFile(src.name(f), src.open(f), w); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(name string, open opener, w io.Writer) error {
	yamlToo, err := copyAs(name, open, w, false)
	if err != nil && yamlToo {
		// JSON that does not parse from its first value: YAML in flow
		// style, as Load reads it.
		_, err = copyAs(name, open, w, true)
	}
	return err
}

// copyAs copies one file; retry reports a JSON file whose first value does
// not parse (nothing was written).
func copyAs(name string, open opener, w io.Writer, forceYAML bool) (retry bool, err error) {
	f, err := open()
	if err != nil {
		return false, &Error{File: name, Msg: err.Error(), Err: err}
	}
	defer f.Close()
	br, closeFn, err := decompress(name, f)
	if err != nil {
		return false, err
	}
	defer closeFn()
	if head, _ := br.Peek(len(arrowFileMagic)); bytes.HasPrefix(head, arrowStreamMagic) || bytes.Equal(head, arrowFileMagic) {
		return false, &Error{File: name, Msg: "a snapshot holds no Kubernetes objects to copy: give the JSON or YAML it was converted from"}
	}
	isJSON, empty, err := sniffJSON(name, br)
	if empty || err != nil {
		return false, err
	}
	if isJSON && !forceYAML {
		dec := json.NewDecoder(br)
		for first := true; ; first = false {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				if err == io.EOF {
					return false, nil
				}
				var se *json.SyntaxError
				return first && errors.As(err, &se), &Error{File: name, Msg: "invalid JSON: " + err.Error(), Err: err}
			}
			if err := writeLine(w, v); err != nil {
				return false, err
			}
		}
	}
	return false, splitYAML(name, br, &Options{}, func(doc []byte, firstLine int) error {
		if len(bytes.TrimSpace(doc)) == 0 {
			return nil
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return &Error{File: name, Line: firstLine, Msg: "invalid YAML: " + err.Error(), Err: err}
		}
		if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
			return nil
		}
		return writeLine(w, js)
	})
}

func writeLine(w io.Writer, b []byte) error {
	if _, err := w.Write(b); err != nil {
		return err
	}
	_, err := w.Write([]byte{'\n'})
	return err
}
