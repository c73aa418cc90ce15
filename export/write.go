package export

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Writing output files: a result, a report or a snapshot replaces its file
// whole or not at all, and what the path names is respected:
//
//   - "-" is stdout;
//   - a path that is not a regular file (a device such as /dev/null, a
//     FIFO, a terminal) is written straight through, as a shell's > would:
//     it cannot be replaced, and is not; a path naming an open descriptor
//     (/dev/stdout, /dev/fd/N, /proc/self/fd/N) is appended to, whatever
//     the file behind it (-o /dev/stdout >> log appends to log);
//   - a symlink is followed: the file it leads to is replaced, by a rename
//     in that file's directory (a dangling link gets its target created);
//   - a regular file keeps its mode (and, when the writer may, its owner);
//     a new one is 0644;
//   - a regular file with other hard links is written in place, so every
//     link sees the result: the output goes to a temporary file first,
//     which is copied over the file once complete (a failed write leaves
//     the file as it was; only an interrupted copy can leave it partial);
//   - anything else goes to a temporary file in the target's directory,
//     renamed over the target once complete.
//
// The temporary files of writes in progress are registered, so that a
// signal handler can remove them (RemoveTemps) before the process exits.

// temps registers the temporary files of writes in progress.
var temps struct {
	sync.Mutex
	names  map[string]bool
	closed bool // RemoveTemps ran: no more temporary files
}

var errExiting = errors.New("the process is exiting (interrupted)")

// createTemp creates and registers a temporary file.
func createTemp(dir, pattern string) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return nil, errExiting
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[f.Name()] = true
	return f, nil
}

// dropTemp removes a temporary file (unless renamed away) and forgets it.
func dropTemp(name string, remove bool) {
	temps.Lock()
	defer temps.Unlock()
	if remove {
		os.Remove(name)
	}
	delete(temps.names, name)
}

// TrackTemp registers a temporary file or directory that the caller
// made, for RemoveTemps; the returned function removes it and forgets it.
func TrackTemp(path string) (remove func()) {
	temps.Lock()
	defer temps.Unlock()
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[path] = true
	return func() {
		temps.Lock()
		defer temps.Unlock()
		os.RemoveAll(path)
		delete(temps.names, path)
	}
}

// RemoveTemps removes the temporary files of the writes in progress (and
// those TrackTemp registered) and makes later writes fail: a signal
// handler calls it before exiting, so that an interrupted run leaves no
// temporary file behind. A write whose rename already happened has
// replaced its target whole.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.closed = true
	for name := range temps.names {
		os.RemoveAll(name)
	}
	temps.names = nil
}

// maxLinks bounds the symlinks followed, as the kernel's ELOOP does.
const maxLinks = 40

// ResolveTarget follows path's symlinks, the last one included, and
// returns the path of the file a write to path replaces or creates. A
// dangling link resolves to the path it leads to.
func ResolveTarget(path string) (string, error) {
	target, _, err := resolve(path)
	return target, err
}

// resolve is ResolveTarget, also reporting whether a step of the way names
// an open file descriptor (/dev/stdout, /dev/fd/N, /proc/self/fd/N).
func resolve(path string) (target string, fd bool, err error) {
	for range maxLinks {
		fd = fd || isFDPath(path)
		st, err := os.Lstat(path)
		if err == nil && st.Mode()&fs.ModeSymlink == 0 || errors.Is(err, fs.ErrNotExist) {
			dir, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				return "", fd, err
			}
			return filepath.Join(dir, filepath.Base(path)), fd, nil
		}
		if err != nil {
			return "", fd, err
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", fd, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", fd, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// isFDPath reports whether path names one of the process's open file
// descriptors.
func isFDPath(path string) bool {
	path = filepath.Clean(path)
	return path == "/dev/stdout" || path == "/dev/stderr" || strings.HasPrefix(path, "/dev/fd/") ||
		strings.HasPrefix(path, "/proc/self/fd/")
}

// SameFile reports whether writing to a would write to b: the same
// existing file (same device and inode, through any links), or the same
// resolved path for a file not created yet. "-" is stdout, as
// /dev/stdout is.
func SameFile(a, b string) bool {
	if a == b {
		return true
	}
	if a == "-" {
		a = "/dev/stdout"
	}
	if b == "-" {
		b = "/dev/stdout"
	}
	sa, erra := os.Stat(a)
	sb, errb := os.Stat(b)
	if erra == nil && errb == nil {
		return os.SameFile(sa, sb)
	}
	ra, erra := ResolveTarget(a)
	rb, errb := ResolveTarget(b)
	return erra == nil && errb == nil && ra == rb
}

// WriteFileAtomic writes path through write, as described above: the
// target is replaced only when write succeeds, and "-" writes to stdout.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	if path == "-" {
		return write(os.Stdout)
	}
	st, err := os.Stat(path) // through the links, /proc's included
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s is a directory", path)
	case err == nil && !st.Mode().IsRegular():
		return writeThrough(path, os.O_TRUNC, write)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	target, fd, err := resolve(path)
	if err != nil {
		return err
	}
	if fd {
		// An open descriptor (-o /dev/stdout >> log): appended to, as the
		// shell opened it, never replaced.
		return writeThrough(path, os.O_APPEND, write)
	}
	mode, links, owner := fs.FileMode(0o644), 1, fileOwner{}
	if st != nil {
		mode, links, owner = st.Mode().Perm(), linkCount(st), ownerOf(st)
	}
	tmp, err := createTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if err != nil {
			tmp.Close()
		}
		dropTemp(tmp.Name(), !renamed)
	}()
	if err = write(tmp); err != nil {
		return err
	}
	if links > 1 {
		// Other names lead to this file: fill it in place.
		return copyInto(target, tmp)
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	owner.apply(tmp) // best effort: an unprivileged writer keeps its own
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	renamed = true
	return nil
}

// writeThrough writes to path in place, opened with flag (O_TRUNC or
// O_APPEND).
func writeThrough(path string, flag int, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|flag, 0)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// copyInto replaces the content of the file target with tmp's (complete)
// content, in place, and closes tmp.
func copyInto(target string, tmp *os.File) error {
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, tmp); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return tmp.Close()
}
