package ingest

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// Stdin is the input path that means standard input, as kubectl's -f -.
const Stdin = "-"

// StdinReader is what the path "-" reads; tests replace it.
var StdinReader io.Reader = os.Stdin

// sources opens the files of one load. Standard input is read once into
// memory when the load starts: the loader may read an input twice (JSON
// that turns out to be YAML in flow style, a snapshot's header), which a
// pipe cannot.
type sources struct {
	stdin []byte
}

// newSources prepares files (from expandPaths) for reading; standard
// input beyond max bytes is an error, not memory exhausted.
func newSources(files []string, max int64) (*sources, error) {
	s := &sources{}
	for _, f := range files {
		if f == Stdin {
			b, err := io.ReadAll(io.LimitReader(StdinReader, max+1))
			if err != nil {
				return nil, &Error{File: s.name(f), Msg: err.Error(), Err: err}
			}
			if int64(len(b)) > max {
				return nil, &Error{File: s.name(f), Msg: fmt.Sprintf("more than %s bytes: standard input is read into memory, files are streamed: give the input as a file (-f FILE)", FormatSize(max))}
			}
			s.stdin = b
		}
	}
	return s, nil
}

// name is how errors and source positions name file.
func (s *sources) name(file string) string {
	if file == Stdin {
		return "stdin"
	}
	return file
}

// open returns the opener of file.
func (s *sources) open(file string) opener {
	if file == Stdin {
		return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(s.stdin)), nil }
	}
	return fileOpener(file)
}
