package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kplace/kplace/live/livetest"
)

// TestMain runs the command itself (main, with its signal handling) when
// a test starts this test binary as kplace: KPLACE_TEST_MAIN=1, the
// arguments after "--". Otherwise it runs the tests and then stops the API
// server the live tests started (if one was).
func TestMain(m *testing.M) {
	if os.Getenv("KPLACE_TEST_MAIN") == "1" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{"kplace"}, os.Args[i+1:]...)
				main()
			}
		}
		os.Exit(2)
	}
	code := m.Run()
	livetest.StopShared()
	os.Exit(code)
}

// kplaceCmd is the command kplace args, run by this test binary.
func kplaceCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "KPLACE_TEST_MAIN=1")
	return cmd
}

// TestOutputCollisions: outputs that name the same file, or an input,
// through links or not, or a directory, are usage errors found before any
// work: nothing is written, the input is intact.
func TestOutputCollisions(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	if code, stderr := runCapture(t, "gen", "--profile", "mixed", "--nodes", "5", "--pods", "10", "-o", in); code != 0 {
		t.Fatalf("gen: %d %s", code, stderr)
	}
	orig, _ := os.ReadFile(in)
	os.Symlink("in.json", filepath.Join(dir, "soft.json"))
	os.Link(in, filepath.Join(dir, "hard.json"))
	out := filepath.Join(dir, "out.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"place", "-f", in, "-o", out, "--report", out}, "-o and --report name the same file"},
		{[]string{"place", "-f", in, "-o", out, "--report", filepath.Join(dir, ".", "out.json")}, "-o and --report name the same file"},
		{[]string{"place", "-f", in, "-o", "-", "--report", "-"}, "-o and --report name the same file (-)"},
		{[]string{"place", "-f", in, "-o", in}, "-o " + in + " is an input of this run"},
		{[]string{"place", "-f", dir, "-o", filepath.Join(dir, "soft.json")}, "is an input of this run"},
		{[]string{"place", "-f", filepath.Join(dir, "hard.json"), "--report", in}, "--report " + in + " is an input of this run"},
		{[]string{"place", "-f", in, "--cpuprofile", in}, "--cpuprofile " + in + " is an input of this run"},
		{[]string{"place", "--sample", "-o", out, "--memprofile", out}, "-o and --memprofile name the same file"},
		{[]string{"convert", "-f", in, "-o", filepath.Join(dir, "soft.json")}, "is an input of this run"},
		{[]string{"place", "-f", in, "--report", dir}, "--report " + dir + " is a directory"},
	} {
		code, stderr := runCapture(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if got, _ := os.ReadFile(in); string(got) != string(orig) {
		t.Error("the input changed")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an output was written (%v)", err)
	}
	// A character device takes any number of outputs.
	if code, stderr := runCapture(t, "place", "-q", "-f", in, "-o", os.DevNull, "--report", os.DevNull); code != 0 {
		t.Errorf("-o and --report %s: exit %d, %q; want 0", os.DevNull, code, stderr)
	}
}

// TestLimitFlags: the limits are flags of place and convert; a bad value
// is a usage error, a small one refuses the input naming the flag.
func TestLimitFlags(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	if code, stderr := runCapture(t, "gen", "--profile", "mixed", "--nodes", "5", "--pods", "10", "-o", in); code != 0 {
		t.Fatalf("gen: %d %s", code, stderr)
	}
	for _, cmd := range []string{"place", "convert"} {
		args := []string{cmd, "-f", in, "-o", filepath.Join(dir, "out")}
		if code, stderr := runCapture(t, append(args, "--max-object-size", "lots")...); code != 2 || !strings.Contains(stderr, "--max-object-size") {
			t.Errorf("%s --max-object-size lots: exit %d, %q", cmd, code, stderr)
		}
		if code, stderr := runCapture(t, append(args, "--max-line-size", "0")...); code != 2 || !strings.Contains(stderr, "--max-line-size") {
			t.Errorf("%s --max-line-size 0: exit %d, %q", cmd, code, stderr)
		}
		code, stderr := runCapture(t, append(args, "--max-object-size", "1Ki")...)
		if code != 1 || !strings.Contains(stderr, "larger than the limit of 1Ki bytes (raise it with --max-object-size)") {
			t.Errorf("%s --max-object-size 1Ki: exit %d, %q", cmd, code, stderr)
		}
		if code, stderr := runCapture(t, append(args, "--max-object-size", "1Mi")...); code != 0 {
			t.Errorf("%s --max-object-size 1Mi: exit %d, %q", cmd, code, stderr)
		}
	}
}

// TestSignalRemovesTemps interrupts a write in progress (gen writing a
// large cluster): the process exits 130 on SIGINT and 143 on SIGTERM,
// leaving neither the output nor a temporary file.
func TestSignalRemovesTemps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kplace gen on a large cluster")
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		dir := t.TempDir()
		out := filepath.Join(dir, "cluster.json.zst")
		cmd := kplaceCmd("gen", "--profile", "mixed", "--nodes", "5000", "--pods", "2000000", "-o", out)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the temporary file: the write is under way.
		deadline := time.Now().Add(60 * time.Second)
		for {
			if m, _ := filepath.Glob(filepath.Join(dir, ".cluster.json.zst.tmp*")); len(m) > 0 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("no temporary file after 60s")
			}
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Signal(tc.sig)
		err := cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != tc.code {
			t.Errorf("%v: %v, want exit %d (stderr %q)", tc.sig, err, tc.code, stderr.String())
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v: %d files left in the output directory, want none", tc.sig, len(entries))
		}
	}
}
