package main

import (
	"os"
	"testing"

	"github.com/kplace/kplace/live/livetest"
)

// TestMain stops the API server the live tests start (if one was).
func TestMain(m *testing.M) {
	code := m.Run()
	livetest.StopShared()
	os.Exit(code)
}
