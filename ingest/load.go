package ingest

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/kplace/kplace/index"
)

// Options controls Load.
type Options struct {
	// AdmissionDefaults adds the DefaultTolerationSeconds admission plugin's
	// tolerations to pending pods. Priority resolution and API defaulting
	// (requests from limits, allocatable from capacity, ...) always apply.
	AdmissionDefaults bool
	// Parallelism is the number of goroutines decoding the items of JSON
	// lists: 0 means GOMAXPROCS, 1 decodes on the calling goroutine only.
	// The result does not depend on it.
	Parallelism int
}

// Load reads Kubernetes objects from files and directories and returns the
// cluster they describe. A directory means every regular file below it
// whose name ends in .json, .yaml or .yml, optionally followed by .gz or
// .zst, in sorted order; a file named explicitly is read whatever its name.
// See the package documentation for formats and semantics.
func Load(paths []string, opts Options) (*index.Input, error) {
	files, err := expandPaths(paths)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("ingest: no input files")
	}
	l := newLoader(opts)
	for _, f := range files {
		if err := l.loadFile(f, fileOpener(f)); err != nil {
			return nil, err
		}
	}
	if err := l.finish(); err != nil {
		return nil, err
	}
	return l.in, nil
}

// inputName reports whether a file found in a directory is input.
func inputName(name string) bool {
	n := strings.ToLower(name)
	n = strings.TrimSuffix(n, ".gz")
	n = strings.TrimSuffix(n, ".zst")
	return strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")
}

// expandPaths turns files and directories into the list of files to read.
func expandPaths(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var sub []string
		err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !inputName(d.Name()) {
				return nil
			}
			if !d.Type().IsRegular() {
				// A symlink is input when it leads to a regular file.
				fi, err := os.Stat(path)
				if err != nil || !fi.Mode().IsRegular() {
					return nil
				}
			}
			sub = append(sub, path)
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(sub)
		files = append(files, sub...)
	}
	return files, nil
}

// Compression magic numbers.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// opener opens an input's raw (possibly compressed) bytes.
type opener func() (io.ReadCloser, error)

func fileOpener(path string) opener {
	return func() (io.ReadCloser, error) { return os.Open(path) }
}

// decompress returns the content of r, decompressed when it starts with a
// gzip or zstd magic number (whatever the name says), buffered.
func decompress(name string, r io.Reader) (*bufio.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(4)
	switch {
	case len(head) >= 2 && head[0] == gzipMagic[0] && head[1] == gzipMagic[1]:
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, readErr(name, err)
		}
		return bufio.NewReaderSize(gz, 64<<10), func() { gz.Close() }, nil
	case len(head) == 4 && string(head) == string(zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, readErr(name, err)
		}
		return bufio.NewReaderSize(zr, 64<<10), zr.Close, nil
	}
	return br, func() {}, nil
}

// loadFile reads one file: JSON when its first significant byte is '{' or
// '[', YAML otherwise. A file that looks like JSON but does not parse as
// JSON, and yielded no object, is read again as YAML (flow style "{a: b}").
func (l *loader) loadFile(name string, open opener) error {
	before := l.objects
	err := l.loadAs(name, open, false)
	var je *Error
	if err != nil && l.objects == before && errors.As(err, &je) && je.syntax {
		if l.loadAs(name, open, true) == nil {
			return nil
		}
	}
	return err
}

func (l *loader) loadAs(name string, open opener, forceYAML bool) error {
	f, err := open()
	if err != nil {
		return &Error{File: name, Msg: err.Error(), Err: err}
	}
	defer f.Close()
	br, closeFn, err := decompress(name, f)
	if err != nil {
		return err
	}
	defer closeFn()
	// Skip a UTF-8 byte order mark; look past whitespace.
	if b, _ := br.Peek(3); len(b) == 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		br.Discard(3)
	}
	isJSON := false
	for n := 1; n <= br.Size(); n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			if err == io.EOF {
				return nil // empty or only whitespace
			}
			if err != nil && err != bufio.ErrBufferFull {
				return readErr(name, err)
			}
			break
		}
		c := b[n-1]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		isJSON = c == '{' || c == '['
		break
	}
	if isJSON && !forceYAML {
		return l.readJSONFile(name, br)
	}
	return l.readYAML(name, br)
}

func readErr(path string, err error) *Error {
	msg := err.Error()
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		msg = "unexpected end of data (truncated or corrupt file?)"
	}
	return &Error{File: path, Msg: msg, Err: err}
}
