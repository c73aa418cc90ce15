package livetest

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestEnsureBinaries: the binaries found are the versions the tests are
// written against. With $KPLACE_APISERVER_BUILD set (make apiserver), it
// builds them first when none are found.
func TestEnsureBinaries(t *testing.T) {
	etcd, api, err := Binaries()
	if errors.Is(err, ErrNoBinaries) && os.Getenv("KPLACE_APISERVER_BUILD") != "" {
		t.Logf("building kube-apiserver %s and etcd %s from the Go module proxy (about 45 minutes on 2 cores)", KubeVersion, EtcdVersion)
		if err = Build(os.Stderr); err == nil {
			etcd, api, err = Binaries()
		}
	}
	if errors.Is(err, ErrNoBinaries) {
		t.Skipf("*** %v: the tests against a real API server will be SKIPPED ***", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for bin, want := range map[string]string{api: "Kubernetes " + KubeVersion, etcd: "etcd Version: " + strings.TrimPrefix(EtcdVersion, "v")} {
		out, err := exec.Command(bin, "--version").CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("%s --version: %q (%v), want %q", bin, out, err, want)
		}
	}
	t.Logf("etcd %s, kube-apiserver %s", etcd, api)
}
