package livetest

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
)

var (
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
)

// Shared returns the test binary's server, started on first use (and
// stopped by StopShared, from TestMain). When no binaries are found the
// test is skipped with a message saying how to get them, or fails when
// $KPLACE_REQUIRE_APISERVER is set (for a machine where a skip would hide
// that nothing was tested).
func Shared(t testing.TB) *Server {
	t.Helper()
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kplace-apiserver-")
		if err != nil {
			sharedErr = err
			return
		}
		shared, sharedErr = Start(dir)
		if sharedErr != nil {
			os.RemoveAll(dir)
		}
	})
	if sharedErr != nil {
		msg := fmt.Sprintf("\n*** SKIPPED: no real API server for this test: %v ***\n", sharedErr)
		if errors.Is(sharedErr, ErrNoBinaries) && os.Getenv("KPLACE_REQUIRE_APISERVER") == "" {
			fmt.Fprint(os.Stderr, msg)
			t.Skip(msg)
		}
		t.Fatalf("API server: %v", sharedErr)
	}
	return shared
}

// StopShared stops the shared server, if one was started.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}
