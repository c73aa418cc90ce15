package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	// The result does not depend on it. It applies to snapshots too.
	Parallelism int
	// AdmissionDefaultsSet says AdmissionDefaults was chosen explicitly
	// (a command-line flag given). A snapshot records whether its pods got
	// the tolerations when it was made; loading one recorded with the
	// other value is then an error. Otherwise the recorded value stands.
	AdmissionDefaultsSet bool
	// MaxObjectSize bounds, in bytes, one JSON object or List item and
	// one YAML document (also as the JSON its aliases expand to); 0 means
	// DefaultMaxObjectSize. MaxLineSize bounds one line of YAML; 0 means
	// DefaultMaxLineSize. Input beyond them is an error naming the limit.
	MaxObjectSize, MaxLineSize int64
	// MaxStdinSize bounds standard input, which is read into memory
	// (files are streamed); 0 means DefaultMaxStdinSize.
	MaxStdinSize int64
	// fixedLimits: no flag raises the limits (errors name none).
	fixedLimits bool
	// Recursive reads the directories named in paths recursively; without
	// it only the input files directly in them are read (kubectl -R).
	Recursive bool
	// SnapshotGC, when set, is called before a snapshot is decoded and
	// admitted, and the func it returns after. Decoding a snapshot writes
	// long-lived tables (nodes, pods) and little garbage, and runs several
	// times slower while a collection is marking: kplace's commands pause
	// the collector there.
	SnapshotGC func() (resume func())
}

// Info is what Load learned about its input besides the cluster.
type Info struct {
	// Snapshot is true when the input was a kplace snapshot.
	Snapshot bool
	// AdmissionDefaults is whether pending pods got the
	// DefaultTolerationSeconds tolerations: Options.AdmissionDefaults, or
	// for a snapshot the value it recorded.
	AdmissionDefaults bool
}

// Load reads Kubernetes objects from files and directories and returns the
// cluster they describe. A directory means every regular file in it (below
// it with Options.Recursive) whose name ends in .json, .yaml, .yml or
// .arrow, optionally followed by .gz or .zst, in sorted order; a file named
// explicitly is read whatever its name. The path "-" is standard input,
// read once into memory. See the package documentation for formats and
// semantics.
func Load(paths []string, opts Options) (*index.Input, error) {
	in, _, err := LoadWithInfo(paths, opts)
	return in, err
}

// LoadWithInfo is Load, also returning what it learned about the input.
func LoadWithInfo(paths []string, opts Options) (*index.Input, Info, error) {
	files, err := expandPaths(paths, opts.Recursive)
	if err != nil {
		return nil, Info{}, err
	}
	if len(files) == 0 {
		return nil, Info{}, errors.New("ingest: no input files")
	}
	src, err := newSources(files, opts.maxStdin())
	if err != nil {
		return nil, Info{}, err
	}
	if len(files) > 1 {
		// Refuse a snapshot among other files before reading any of them.
		for _, f := range files {
			if isSnapshot(src.name(f), src.open(f)) {
				return nil, Info{}, snapshotAloneErr(src.name(f), len(files))
			}
		}
	}
	l := newLoader(opts)
	for _, f := range files {
		if err := l.loadFile(src.name(f), src.open(f)); err != nil {
			return nil, Info{}, err
		}
	}
	if len(l.empty) == len(files) {
		// Most often an export that failed and left its file empty.
		return nil, Info{}, &Error{File: strings.Join(l.empty, ", "), Msg: "empty: no Kubernetes objects to read (did the export that wrote it fail?)"}
	}
	if err := l.finish(); err != nil {
		return nil, Info{}, err
	}
	info := Info{AdmissionDefaults: opts.AdmissionDefaults}
	if l.snapshot != nil {
		info = Info{Snapshot: true, AdmissionDefaults: *l.snapshot}
	}
	return l.in, info, nil
}

// InputFiles returns the files Load reads for paths: files named, and the
// input files found in directories (below them when recursive), in the
// order they are read; "-" (standard input) stays "-".
func InputFiles(paths []string, recursive bool) ([]string, error) {
	return expandPaths(paths, recursive)
}

// inputName reports whether a file found in a directory is input.
func inputName(name string) bool {
	n := strings.ToLower(name)
	n = strings.TrimSuffix(n, ".gz")
	n = strings.TrimSuffix(n, ".zst")
	return strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml") ||
		strings.HasSuffix(n, ".arrow")
}

// expandPaths turns files and directories into the list of files to read:
// the input files directly in a directory, or below it when recursive.
func expandPaths(paths []string, recursive bool) ([]string, error) {
	var files []string
	stdin := false
	for _, p := range paths {
		if p == Stdin {
			if stdin {
				return nil, errors.New(`ingest: "-" (standard input) given twice`)
			}
			stdin = true
			files = append(files, p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = &Error{File: p, Msg: pe.Err.Error(), Err: err} // "cluster.json: no such file or directory"
			}
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
			if d.IsDir() && path != p && !recursive {
				return filepath.SkipDir
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

// loadFile reads one file: a snapshot when it starts with the Arrow IPC
// stream marker, JSON when its first significant byte is '{' or '[', YAML
// otherwise. A file that looks like JSON but does not parse as JSON, and
// yielded no object, is read again as YAML (flow style "{a: b}").
func (l *loader) loadFile(name string, open opener) error {
	l.files++
	if l.snapshot != nil {
		return snapshotAloneErr(l.snapshotFile, l.files)
	}
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
	if head, _ := br.Peek(len(arrowFileMagic)); bytes.HasPrefix(head, arrowStreamMagic) {
		return l.readSnapshot(name, br)
	} else if bytes.Equal(head, arrowFileMagic) {
		return &Error{File: name, Msg: "an Arrow IPC file (ARROW1): kplace reads its own snapshots, Arrow IPC streams written by kplace convert"}
	}
	isJSON, empty, err := sniffJSON(name, br)
	if empty {
		l.empty = append(l.empty, name)
	}
	if empty || err != nil {
		return err
	}
	if isJSON && !forceYAML {
		return l.readJSONFile(name, br)
	}
	return l.readYAML(name, br)
}

// sniffJSON skips a UTF-8 byte order mark and reports whether the content
// is JSON (its first significant byte is '{' or '['), or empty (only
// whitespace).
func sniffJSON(name string, br *bufio.Reader) (isJSON, empty bool, err error) {
	if b, _ := br.Peek(3); len(b) == 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		br.Discard(3)
	}
	// Neither JSON nor YAML holds a NUL byte: binary data (or a bomb of
	// zeros) is refused before any parser buffers it.
	if head, _ := br.Peek(br.Size()); bytes.IndexByte(head, 0) >= 0 {
		return false, false, &Error{File: name, Msg: fmt.Sprintf("binary data: a NUL byte at byte %d of the content (not JSON, YAML or a kplace snapshot)",
			bytes.IndexByte(head, 0))}
	}
	for n := 1; n <= br.Size(); n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			if err == io.EOF {
				return false, true, nil
			}
			if err != nil && err != bufio.ErrBufferFull {
				return false, false, readErr(name, err)
			}
			break
		}
		c := b[n-1]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		return c == '{' || c == '[', false, nil
	}
	return false, false, nil
}

func readErr(path string, err error) *Error {
	msg := err.Error()
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		msg = "unexpected end of data (truncated or corrupt file?)"
	}
	e := &Error{File: path, Msg: msg, Err: err}
	if le, ok := err.(*limitError); ok {
		e.Line = le.line
	}
	return e
}

// isSnapshot reports whether the input holds a snapshot (possibly
// compressed); false when it cannot be read (Load reports that later).
func isSnapshot(name string, open opener) bool {
	f, err := open()
	if err != nil {
		return false
	}
	defer f.Close()
	br, closeFn, err := decompress(name, f)
	if err != nil {
		return false
	}
	defer closeFn()
	head, _ := br.Peek(len(arrowStreamMagic))
	return bytes.Equal(head, arrowStreamMagic)
}

func snapshotAloneErr(file string, inputs int) *Error {
	return &Error{File: file, Msg: fmt.Sprintf("a kplace snapshot must be the only input (it holds a whole cluster, admission applied), not one of %d files", inputs)}
}

// readSnapshot decodes a snapshot; it must be the loader's only input.
func (l *loader) readSnapshot(name string, r io.Reader) error {
	if l.files > 1 {
		return snapshotAloneErr(name, l.files)
	}
	if l.opts.SnapshotGC != nil {
		defer l.opts.SnapshotGC()()
	}
	in, admission, err := decodeSnapshot(name, r, l.opts.Parallelism)
	if err != nil {
		return err
	}
	if l.opts.AdmissionDefaultsSet && l.opts.AdmissionDefaults != admission {
		return &Error{File: name, Msg: fmt.Sprintf("the snapshot was made with --admission-defaults=%t (its pending pods are stored after admission); "+
			"--admission-defaults=%t cannot apply: drop the flag, or convert the original input again with it", admission, l.opts.AdmissionDefaults)}
	}
	l.in = in
	l.snapshot = &admission
	l.snapshotFile = name
	return l.admitSnapshot(name)
}
