package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestFollowLiveHeap: once the live heap passes limit/1.5, the soft limit
// rises to 1.5 times it, and never past most.
func TestFollowLiveHeap(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	const limit, most = 32 << 20, 200 << 20
	debug.SetMemoryLimit(limit)
	followLiveHeap(most)
	live := make([][]byte, 0, 96)
	for range 96 {
		live = append(live, make([]byte, 1<<20)) // 96 MiB live
	}
	var got int64
	for range 50 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
		if got = debug.SetMemoryLimit(-1); got >= 96<<20*3/2 {
			break
		}
	}
	runtime.KeepAlive(live)
	if got < 96<<20*3/2 || got > most {
		t.Fatalf("limit %d MiB with 96 MiB live: want at least 144 MiB, at most %d MiB", got>>20, most>>20)
	}
}

// churn allocates n MiB that die at once and returns the collections that
// ran meanwhile.
func churn(n int) uint32 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		sink = make([]byte, 1<<20)
	}
	runtime.ReadMemStats(&after)
	return after.NumGC - before.NumGC
}

var sink []byte

// TestPauseGC: while paused, garbage far past what GOGC allows starts no
// collection, but the soft memory limit still does; resuming restores
// GOGC's pacing; with GOGC set in the environment, or no limit, the pause
// does nothing.
func TestPauseGC(t *testing.T) {
	oldLimit := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(oldLimit)
	oldPercent := debug.SetGCPercent(100)
	defer debug.SetGCPercent(oldPercent)
	t.Setenv("GOGC", "")
	runtime.GC()

	debug.SetMemoryLimit(4 << 30)
	resume := pauseGC()
	if n := churn(256); n != 0 {
		t.Errorf("paused under a 4 GiB limit: %d collections for 256 MiB of garbage, want 0", n)
	}
	debug.SetMemoryLimit(64 << 20)
	if n := churn(512); n == 0 {
		t.Errorf("paused under a 64 MiB limit: no collection for 512 MiB of garbage")
	}
	debug.SetMemoryLimit(4 << 30)
	resume()
	if n := churn(256); n == 0 {
		t.Errorf("resumed: no collection for 256 MiB of garbage at GOGC=100")
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("resumed: GOGC %d, want 100", p)
	}

	t.Setenv("GOGC", "100")
	resume = pauseGC()
	if n := churn(256); n == 0 {
		t.Errorf("GOGC set: paused anyway (no collection for 256 MiB of garbage)")
	}
	resume()
	t.Setenv("GOGC", "")
	debug.SetMemoryLimit(math.MaxInt64)
	resume = pauseGC()
	if n := churn(256); n == 0 {
		t.Errorf("no memory limit: paused anyway (no collection for 256 MiB of garbage)")
	}
	resume()
}
