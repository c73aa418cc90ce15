package main

import (
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
