package livetest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// The versions Build compiles (those of ../shared/apiserver).
const (
	KubeVersion = "v1.36.3"
	EtcdVersion = "v3.6.8"
	// stagingVersion is the version of the k8s.io staging modules that go
	// with KubeVersion.
	stagingVersion = "v0.36.3"
)

// ModuleRoot is the directory of the go.mod above the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// CacheDir is where unpacked or built binaries are kept:
// $KPLACE_APISERVER_CACHE, else .cache/apiserver under the module root (git
// ignores it).
func CacheDir() (string, error) {
	if dir := os.Getenv("KPLACE_APISERVER_CACHE"); dir != "" {
		return dir, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".cache", "apiserver"), nil
}

// ErrNoBinaries says that neither the shared binaries nor a build of them
// were found.
var ErrNoBinaries = errors.New("no kube-apiserver and etcd binaries")

// Binaries returns the paths of etcd and kube-apiserver (see the package
// doc for where it looks). It unpacks .zst binaries into the cache; it
// never builds.
func Binaries() (etcd, apiserver string, err error) {
	cache, err := CacheDir()
	if err != nil {
		return "", "", err
	}
	bin := filepath.Join(cache, "bin")
	if dir := os.Getenv("KPLACE_APISERVER_BIN"); dir != "" {
		return fromDir(dir, bin)
	}
	root, _ := ModuleRoot()
	for dir := root; ; dir = filepath.Dir(dir) {
		shared := filepath.Join(dir, "shared", "apiserver", "bin")
		if _, err := os.Stat(filepath.Join(shared, "kube-apiserver.zst")); err == nil {
			return fromDir(shared, bin)
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	etcd, apiserver = filepath.Join(bin, "etcd"), filepath.Join(bin, "kube-apiserver")
	if isExec(etcd) && isExec(apiserver) {
		return etcd, apiserver, nil
	}
	return "", "", fmt.Errorf("%w: not in $KPLACE_APISERVER_BIN, shared/apiserver/bin above %s, or %s (make apiserver builds them there from the Go module proxy, about 45 minutes on 2 cores)", ErrNoBinaries, root, bin)
}

// fromDir takes etcd and kube-apiserver from dir, unpacking .zst ones
// into bin (once: a stamp records the source's size and time).
func fromDir(dir, bin string) (etcd, apiserver string, err error) {
	var out [2]string
	for i, name := range []string{"etcd", "kube-apiserver"} {
		plain := filepath.Join(dir, name)
		if isExec(plain) {
			out[i] = plain
			continue
		}
		src := plain + ".zst"
		st, err := os.Stat(src)
		if err != nil {
			return "", "", fmt.Errorf("%w: %s has neither %s nor %s.zst", ErrNoBinaries, dir, name, name)
		}
		dst := filepath.Join(bin, name)
		stamp := fmt.Sprintf("%s %d %d", src, st.Size(), st.ModTime().UnixNano())
		if b, err := os.ReadFile(dst + ".stamp"); err == nil && string(b) == stamp && isExec(dst) {
			out[i] = dst
			continue
		}
		if err := unzstd(src, dst); err != nil {
			return "", "", fmt.Errorf("unpack %s: %w", src, err)
		}
		if err := os.WriteFile(dst+".stamp", []byte(stamp), 0o644); err != nil {
			return "", "", err
		}
		out[i] = dst
	}
	return out[0], out[1], nil
}

// unzstd decompresses src into an executable dst (through a temporary
// file and a rename: concurrent test binaries may unpack at once).
func unzstd(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	dec, err := zstd.NewReader(in)
	if err != nil {
		return err
	}
	defer dec.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, dec); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// Kubectl returns a kubectl for tests to compare with: $KPLACE_KUBECTL,
// else the PATH's, else shared/apiserver/bin/kubectl above the module
// root; "" when there is none.
func Kubectl() string {
	if p := os.Getenv("KPLACE_KUBECTL"); p != "" {
		return p
	}
	if p, err := exec.LookPath("kubectl"); err == nil {
		return p
	}
	root, err := ModuleRoot()
	if err != nil {
		return ""
	}
	for dir := root; filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
		if p := filepath.Join(dir, "shared", "apiserver", "bin", "kubectl"); isExec(p) {
			return p
		}
	}
	return ""
}

func isExec(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// ldflags are those the shared binaries were built with: without the
// version, the server reports v0.0.0-master and kubectl complains.
func ldflags() string {
	var b strings.Builder
	b.WriteString("-s -w")
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		for _, kv := range [][2]string{{"gitVersion", KubeVersion}, {"gitMajor", "1"}, {"gitMinor", "36"},
			{"gitTreeState", "clean"}, {"buildDate", "2026-01-01T00:00:00Z"}} {
			fmt.Fprintf(&b, " -X %s.%s=%s", pkg, kv[0], kv[1])
		}
	}
	return b.String()
}

// Build compiles etcd and kube-apiserver from the Go module proxy into
// the cache's bin, writing the progress of the go commands to log. Slow:
// about 10 minutes (etcd) and 35 (kube-apiserver) on 2 busy cores; ctx
// ends it early.
func Build(ctx context.Context, log io.Writer) error {
	cache, err := CacheDir()
	if err != nil {
		return err
	}
	bin := filepath.Join(cache, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	goCmd := func(dir string, args ...string) error {
		fmt.Fprintf(log, "livetest: (cd %s && go %s)\n", dir, strings.Join(args, " "))
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, log, log
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		return cmd.Run()
	}
	scratch := func(name string) (string, error) {
		dir := filepath.Join(cache, "build", name)
		if err := os.RemoveAll(dir); err != nil {
			return "", err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		return dir, goCmd(dir, "mod", "init", name+"build")
	}
	// etcd: its server module at EtcdVersion; its sibling modules come at
	// the versions it requires.
	dir, err := scratch("etcd")
	if err != nil {
		return err
	}
	if err := goCmd(dir, "get", "go.etcd.io/etcd/server/v3@"+EtcdVersion); err != nil {
		return err
	}
	if err := goCmd(dir, "build", "-trimpath", "-ldflags=-s", "-o", filepath.Join(bin, "etcd"), "go.etcd.io/etcd/server/v3"); err != nil {
		return err
	}
	// kube-apiserver: k8s.io/kubernetes requires its staging modules at
	// v0.0.0 (replaced by ./staging in its own repository): replace each
	// with stagingVersion.
	if dir, err = scratch("kube-apiserver"); err != nil {
		return err
	}
	if err := goCmd(dir, "mod", "edit", "-require=k8s.io/kubernetes@"+KubeVersion); err != nil {
		return err
	}
	staging, err := stagingModules(dir, goCmd)
	if err != nil {
		return err
	}
	args := []string{"mod", "edit"}
	for _, m := range staging {
		args = append(args, "-replace="+m+"="+m+"@"+stagingVersion)
	}
	if err := goCmd(dir, args...); err != nil {
		return err
	}
	return goCmd(dir, "build", "-trimpath", "-ldflags", ldflags(), "-o", filepath.Join(bin, "kube-apiserver"), "k8s.io/kubernetes/cmd/kube-apiserver")
}

var stagingRequire = regexp.MustCompile(`^\s+(k8s\.io/\S+) v0\.0\.0$`)

// stagingModules lists the k8s.io modules k8s.io/kubernetes requires at
// v0.0.0, from its go.mod in the module cache.
func stagingModules(dir string, goCmd func(string, ...string) error) ([]string, error) {
	if err := goCmd(dir, "mod", "download", "k8s.io/kubernetes@"+KubeVersion); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "env", "GOMODCACHE")
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	mod := filepath.Join(strings.TrimSpace(string(out)), "cache", "download", "k8s.io", "kubernetes", "@v", KubeVersion+".mod")
	f, err := os.Open(mod)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var mods []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := stagingRequire.FindStringSubmatch(sc.Text()); m != nil {
			mods = append(mods, m[1])
		}
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("%s: no k8s.io module at v0.0.0", mod)
	}
	return mods, sc.Err()
}
