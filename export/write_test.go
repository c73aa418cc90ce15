package export

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// noTemps fails if dir holds a temporary file of the writer.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteSymlinks: a symlink given as the output is followed, relative
// or absolute, through a chain; the file it leads to is replaced and the
// links stay links. A dangling link gets its target created.
func TestWriteSymlinks(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "result.json")
	os.WriteFile(target, []byte("old"), 0o600)
	link1 := filepath.Join(dir, "link1")
	link2 := filepath.Join(dir, "link2")
	if err := os.Symlink(target, link1); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("link1", link2); err != nil { // relative
		t.Fatal(err)
	}
	if err := WriteFileAtomic(link2, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, target); got != "new" {
		t.Errorf("target holds %q, want new", got)
	}
	for _, l := range []string{link1, link2} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink (%v, %v)", l, st.Mode(), err)
		}
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v, want 0600 kept", st.Mode().Perm())
	}
	noTemps(t, dir)
	noTemps(t, other)
	// A dangling link: its target is created.
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(other, "new.json"), dangling)
	if err := WriteFileAtomic(dangling, writeString("x")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(other, "new.json")); got != "x" {
		t.Errorf("dangling link's target holds %q", got)
	}
	if st, err := os.Lstat(dangling); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the dangling link was replaced")
	}
}

// TestWriteKeepsMode: an existing file keeps its permissions; a new one
// is 0644; a failed write leaves the file as it was, and no temporary.
func TestWriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := WriteFileAtomic(path, writeString("one")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", st.Mode().Perm())
	}
	os.Chmod(path, 0o600)
	if err := WriteFileAtomic(path, writeString("two")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 || readFile(t, path) != "two" {
		t.Errorf("mode %v, content %q; want 0600 kept, two", st.Mode().Perm(), readFile(t, path))
	}
	boom := errors.New("boom")
	if err := WriteFileAtomic(path, func(w io.Writer) error { w.Write([]byte("partial")); return boom }); !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if got := readFile(t, path); got != "two" {
		t.Errorf("a failed write changed the file: %q", got)
	}
	noTemps(t, dir)
	if err := WriteFileAtomic(dir, writeString("x")); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory as output: %v", err)
	}
}

// TestWriteHardLink: a file with another hard link is written in place:
// both names see the result, still one file; a failed write leaves it.
func TestWriteHardLink(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	os.WriteFile(a, []byte("old content"), 0o640)
	if err := os.Link(a, b); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(b, writeString("new")); err != nil {
		t.Fatal(err)
	}
	sa, _ := os.Stat(a)
	sb, _ := os.Stat(b)
	if !os.SameFile(sa, sb) || readFile(t, a) != "new" || readFile(t, b) != "new" || sa.Mode().Perm() != 0o640 {
		t.Errorf("after writing b: same file %t, a %q, b %q, mode %v", os.SameFile(sa, sb), readFile(t, a), readFile(t, b), sa.Mode().Perm())
	}
	if err := WriteFileAtomic(a, func(w io.Writer) error { return errors.New("boom") }); err == nil {
		t.Fatal("no error")
	}
	if readFile(t, b) != "new" {
		t.Errorf("a failed write changed the linked file")
	}
	noTemps(t, dir)
}

// TestWriteThroughFIFO: a FIFO is written to, not replaced by a file; so is
// the null device, through a symlink (a writer that replaced the link
// rather than follow it would still leave the device alone).
func TestWriteThroughFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// Held open for reading and writing, without blocking: the writer's
	// open does not wait for a reader, and what it wrote is read back here
	// (nothing, if the FIFO was replaced).
	r, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := WriteFileAtomic(fifo, writeString("through")); err != nil {
		t.Fatal(err)
	}
	r.SetReadDeadline(time.Now().Add(5 * time.Second)) // nothing to read: a timeout
	buf := make([]byte, 64)
	n, _ := r.Read(buf)
	if got := string(buf[:n]); got != "through" {
		t.Fatalf("the FIFO's reader got %q", got)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", st.Mode(), err)
	}
	// The rest writes to the null device through a link: only when it is
	// one (a run of the old writer as root made it a regular file).
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Skipf("%s is not a character device here (%v)", os.DevNull, st.Mode())
	}
	null := filepath.Join(dir, "null")
	os.Symlink(os.DevNull, null)
	if err := WriteFileAtomic(null, writeString("gone")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(null); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link to %s was replaced", os.DevNull)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&fs.ModeDevice == 0 {
		t.Errorf("%s is no longer a device: %v %v", os.DevNull, st.Mode(), err)
	}
	noTemps(t, dir)
}

// TestRemoveTemps: RemoveTemps, as a signal handler calls it, removes the
// temporary file of a write in progress; the write then fails and leaves
// the target as it was; later writes fail.
func TestRemoveTemps(t *testing.T) {
	defer func() {
		temps.Lock()
		temps.closed = false
		temps.Unlock()
	}()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	os.WriteFile(path, []byte("before"), 0o644)
	sawTemp := false
	err := WriteFileAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		entries, _ := os.ReadDir(dir)
		sawTemp = len(entries) == 2
		RemoveTemps() // the signal arrives here
		io.WriteString(w, "rest")
		return nil
	})
	if !sawTemp {
		t.Error("no temporary file while writing")
	}
	if err == nil {
		t.Error("the interrupted write succeeded")
	}
	if got := readFile(t, path); got != "before" {
		t.Errorf("target holds %q", got)
	}
	noTemps(t, dir)
	if err := WriteFileAtomic(path, writeString("after")); err == nil {
		t.Error("a write after RemoveTemps succeeded")
	}
	tracked := filepath.Join(dir, "tracked")
	os.Mkdir(tracked, 0o755)
	TrackTemp(tracked)
	RemoveTemps()
	if _, err := os.Stat(tracked); !os.IsNotExist(err) {
		t.Errorf("a tracked directory survived RemoveTemps: %v", err)
	}
}

// TestSameFile: through links and hard links, for files that exist or not.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.WriteFile(a, nil, 0o644)
	os.Link(a, filepath.Join(dir, "hard"))
	os.Symlink("a", filepath.Join(dir, "soft"))
	os.Symlink("missing", filepath.Join(dir, "dangling"))
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, c := range []struct {
		x, y string
		same bool
	}{
		{a, filepath.Join(dir, "hard"), true},
		{a, filepath.Join(dir, "soft"), true},
		{a, filepath.Join(sub, "..", "a"), true},
		{filepath.Join(dir, "dangling"), filepath.Join(dir, "missing"), true},
		{filepath.Join(dir, "new"), filepath.Join(sub, "..", "new"), true},
		{a, filepath.Join(dir, "new"), false},
		{filepath.Join(dir, "new"), filepath.Join(dir, "other"), false},
		{"-", "-", true},
		{"-", a, false},
		{"-", "/dev/stdout", true},
	} {
		if got := SameFile(c.x, c.y); got != c.same {
			t.Errorf("SameFile(%s, %s) = %t", c.x, c.y, got)
		}
	}
}

// TestWriteToDescriptor: a path naming an open descriptor (as
// /dev/stdout does) is appended to, not replaced: -o /dev/stdout >> log
// keeps the log.
func TestWriteToDescriptor(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	os.WriteFile(log, []byte("earlier\n"), 0o644)
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fdPath := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	if _, err := os.Stat(fdPath); err != nil {
		t.Skip("no /proc/self/fd here:", err)
	}
	link := filepath.Join(dir, "stdout")
	os.Symlink(fdPath, link)
	for _, p := range []string{fdPath, link} {
		if err := WriteFileAtomic(p, writeString("result\n")); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, log); got != "earlier\nresult\nresult\n" {
		t.Errorf("log holds %q", got)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
	noTemps(t, dir)
}

// TestCanCreateIn: a directory without write permission is refused before
// any work (the atomic writer creates its temporary file there); a
// writable one is not. Root may write anywhere: the refusal is not
// checked then.
func TestCanCreateIn(t *testing.T) {
	dir := t.TempDir()
	if err := CanCreateIn(dir); err != nil {
		t.Fatalf("a writable directory: %v", err)
	}
	if os.Geteuid() == 0 {
		t.Skip("root writes in read-only directories")
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := CanCreateIn(ro); err == nil || !strings.Contains(err.Error(), "create a file in "+ro) {
		t.Errorf("a read-only directory: %v", err)
	}
}
