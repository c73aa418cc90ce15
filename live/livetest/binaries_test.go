package livetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestEnsureBinaries: the binaries found are the versions the tests are
// written against. With $KPLACE_APISERVER_BUILD set (make apiserver), it
// builds them first when none are found; where there are none and none
// can be built it skips with a loud message (as the tests that need them
// do), and binaries of another version fail it.
func TestEnsureBinaries(t *testing.T) {
	etcd, api, err := Binaries()
	if errors.Is(err, ErrNoBinaries) && os.Getenv("KPLACE_APISERVER_BUILD") != "" {
		t.Logf("building kube-apiserver %s and etcd %s from the Go module proxy (about 45 minutes on 2 cores)", KubeVersion, EtcdVersion)
		ctx := context.Background()
		// A budget for the build ($KPLACE_APISERVER_BUILD_TIMEOUT, a Go
		// duration: CI has 15 minutes for everything); past it the
		// build stops and the tests are skipped, loudly.
		if d, derr := time.ParseDuration(os.Getenv("KPLACE_APISERVER_BUILD_TIMEOUT")); derr == nil && d > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
		if berr := Build(ctx, os.Stderr); berr != nil {
			if ctx.Err() != nil {
				berr = fmt.Errorf("stopped at the budget of $KPLACE_APISERVER_BUILD_TIMEOUT (%s)", os.Getenv("KPLACE_APISERVER_BUILD_TIMEOUT"))
			}
			// No proxy, no disk: what cannot be built is skipped, loudly.
			err = fmt.Errorf("%w, and building them failed: %v", err, berr)
		} else {
			etcd, api, err = Binaries()
		}
	}
	if errors.Is(err, ErrNoBinaries) {
		msg := fmt.Sprintf("\n*** %v: the tests against a real API server will be SKIPPED ***\n", err)
		fmt.Fprint(os.Stderr, msg)
		t.Skip(msg)
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
