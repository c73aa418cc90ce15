//go:build unix

package export

import (
	"io/fs"
	"os"
	"syscall"
)

// linkCount is the number of hard links to the file st describes.
func linkCount(st fs.FileInfo) int {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Nlink)
	}
	return 1
}

// fileOwner is a file's user and group.
type fileOwner struct {
	uid, gid int
	known    bool
}

func ownerOf(st fs.FileInfo) fileOwner {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return fileOwner{int(s.Uid), int(s.Gid), true}
	}
	return fileOwner{}
}

// apply gives f the owner, when it is another and the process may (root):
// a replaced file keeps its owner. Errors are ignored.
func (o fileOwner) apply(f *os.File) {
	if o.known && (o.uid != os.Geteuid() || o.gid != os.Getegid()) {
		f.Chown(o.uid, o.gid)
	}
}

// CanCreateIn reports whether the process may create a file in dir (write
// and search permission), as the atomic writer does: nil when it may, or
// an error saying why not. Checked before a run's work, so that an output
// that cannot be written fails the run before the others are written.
func CanCreateIn(dir string) error {
	if err := syscall.Access(dir, 0x2|0x1); err != nil { // W_OK|X_OK
		return &fs.PathError{Op: "create a file in", Path: dir, Err: err}
	}
	return nil
}
