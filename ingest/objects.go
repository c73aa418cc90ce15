package ingest

import (
	"bytes"
	"errors"
	"io"

	"github.com/kplace/kplace/index"
)

// LoadMore reads objects to add to a cluster already loaded: files
// (paths, as Load takes them) or, when paths is empty, data as if read
// from a file named name. known are the cluster's PriorityClasses: pods
// naming one are admitted with it, as the API server would. The result
// holds only what was read (its PriorityClasses are the file's). A
// snapshot is refused: it holds a whole cluster.
func LoadMore(paths []string, name string, data []byte, known []index.PriorityClass, opts Options) (*index.Input, error) {
	l := newLoader(opts)
	l.creating = true
	l.in.PriorityClasses = append(l.in.PriorityClasses, known...)
	if len(paths) == 0 {
		open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		if err := l.loadFile(name, open); err != nil {
			return nil, err
		}
	} else {
		files, err := expandPaths(paths, opts.Recursive)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, errors.New("ingest: no input files")
		}
		src, err := newSources(files, opts.maxStdin())
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if isSnapshot(src.name(f), src.open(f)) {
				return nil, &Error{File: src.name(f), Msg: "a kplace snapshot holds a whole cluster: it cannot be added to one"}
			}
			if err := l.loadFile(src.name(f), src.open(f)); err != nil {
				return nil, err
			}
		}
	}
	read := len(l.in.PriorityClasses) // finish adds the system classes after these
	if err := l.finish(); err != nil {
		return nil, err
	}
	l.in.PriorityClasses = l.in.PriorityClasses[len(known):read]
	return l.in, nil
}

// DefaultTolerations returns ts with the tolerations the
// DefaultTolerationSeconds admission plugin adds to a pod created without
// them (node.kubernetes.io/not-ready and unreachable, NoExecute, 300 s).
func DefaultTolerations(ts []index.Toleration) []index.Toleration { return addDefaultTolerations(ts) }
