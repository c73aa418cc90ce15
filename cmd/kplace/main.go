// Command kplace places pending Kubernetes pods on an exported cluster in one
// batch, with kube-scheduler's semantics, and writes the Bindings a binder
// consumes plus a report of every pod left pending. See README.md.
package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
)

// version is set at build time with -ldflags "-X main.version=..."; else
// kplace version reports the module's version from the build info.
var version = "dev"

func main() {
	// client-go logs through klog (client-side throttling waits, for
	// one): kplace reports its requests, rate and peak itself, and keeps
	// stderr to its own summary and errors.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	tuneGC()
	handleSignals()
	os.Exit(run(os.Args[1:]))
}

// handleSignals makes SIGINT and SIGTERM remove the temporary files of the
// writes in progress before the process exits, with 130 or 143 (128 plus
// the signal's number, as a shell reports a process the signal killed).
func handleSignals() {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-ch
		if ownSignals.Load() {
			// The command stops on it and reports (bind); a second
			// signal stops it at once.
			fmt.Fprintf(os.Stderr, "kplace: %v: stopping, then reporting (again to stop at once)\n", sig)
			sig = <-ch
		}
		export.RemoveTemps()
		fmt.Fprintf(os.Stderr, "kplace: %v: stopped (no file is left half-written)\n", sig)
		code := 130
		if sig == syscall.SIGTERM {
			code = 143
		}
		os.Exit(code)
	}()
}

// ownSignals is set while a command stops on SIGINT and SIGTERM itself, to
// report what it did not do (bind): handleSignals then leaves the first
// signal to it.
var ownSignals atomic.Bool

// tuneGC trades memory for speed the way a batch tool can: the heap of an
// ingested cluster is mostly long-lived, so collecting at 5x the live heap
// (GOGC=400) instead of 2x saves a quarter of the ingest time. A soft memory
// limit (softLimit) makes the collector work harder once the heap reaches
// it: a live heap of a few GiB then no longer grows to 5x its size in
// garbage (100,000 nodes and 1,000,000 pods from JSON: peak RSS 8.4 GiB
// with 70% of 24 GiB as the limit). A live heap close to the limit would
// make the collector run back to back, so the limit follows the live heap
// up (see followLiveHeap). GOGC and GOMEMLIMIT in the environment win.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := physicalMemory(); total > 0 {
			limit := softLimit(total)
			debug.SetMemoryLimit(limit)
			followLiveHeap(total / 10 * 7)
		}
	}
}

// loadInput is ingest.LoadWithInfo with the collections GOGC paces paused
// while a snapshot is decoded (pauseGC): every command reads its input
// through it.
func loadInput(paths []string, opts ingest.Options) (*index.Input, ingest.Info, error) {
	opts.SnapshotGC = pauseGC
	if opts.MaxStdinSize == 0 {
		// Standard input is held whole: up to half this machine's memory
		// (the cluster it holds needs the rest), at least the default.
		opts.MaxStdinSize = max(ingest.DefaultMaxStdinSize, physicalMemory()/2)
	}
	return ingest.LoadWithInfo(paths, opts)
}

// pauseGC stops the collections GOGC paces until the returned func is
// called; those the soft memory limit forces still run, so the heap stays
// bounded. Decoding a snapshot writes the long-lived node and pod tables
// and little garbage, and a collection marking meanwhile slows the writing
// of the rows: on the realistic 100,000-node snapshot the pods' decoding
// took 3.9 CPU seconds with collections and 0.7 without, the whole ingest
// 7.1 s instead of 4.2 s, in the same peak RSS. JSON is not read paused:
// its parsing makes garbage as fast as it reads, which would then pile
// up to the limit (10,000 nodes: peak RSS 0.9 GB → 1.1 GB, for no
// measurable gain). With GOGC set in the environment, or no memory limit
// in force, it does nothing.
func pauseGC() (resume func()) {
	if os.Getenv("GOGC") != "" || debug.SetMemoryLimit(-1) == math.MaxInt64 {
		return func() {}
	}
	old := debug.SetGCPercent(-1)
	return func() { debug.SetGCPercent(old) }
}

// followLiveHeap keeps the soft memory limit at least headroom times the
// live heap, up to most: after every collection (a cleanup that re-arms
// itself runs once per cycle) it reads the live heap and raises
// the limit when the heap has grown past limit/headroom. A live heap near
// the limit makes the collector run a cycle every second or two: a
// 100,000-node realistic export that held 5 GiB live took 359 CPU seconds
// instead of 190 under a 6 GiB limit (it holds about 3.7 GiB now).
func followLiveHeap(most int64) {
	const headroom = 1.5
	type sentinel struct{ _ *byte } // holds a pointer: never a tiny allocation, whose cleanup may not run
	var arm func()
	arm = func() {
		runtime.AddCleanup(&sentinel{}, func(struct{}) {
			cur := debug.SetMemoryLimit(-1) // someone may have set it since
			if cur >= most {
				return
			}
			sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				if want := min(int64(float64(sample[0].Value.Uint64())*headroom), most); want > cur {
					debug.SetMemoryLimit(want)
				}
			}
			arm()
		}, struct{}{})
	}
	arm()
}

// softLimit is the default soft memory limit for a machine of total bytes
// of RAM: 7/32 of it (at least 4 GiB, at most 70%), so that the peak RSS
// stays within a quarter of the RAM. The limit bounds the runtime's own
// accounting, and the process's RSS runs past it while a collection
// trails an allocating parser and before freed pages go back to the
// system: on a machine of 23.5 GiB, with a quarter (6,026 MiB) as the
// limit, the realistic 100,000-node export from JSON peaked at 6,018 to
// 6,394 MiB; with 7/32 (5,273 MiB) at 5,273 to 5,309 MiB, for about 4%
// more time (the collector runs more often).
func softLimit(total int64) int64 {
	return min(max(total/32*7, 4<<30), total/10*7)
}

// physicalMemory reads MemTotal from /proc/meminfo in bytes; 0 if unknown.
func physicalMemory() int64 {
	return procKB("/proc/meminfo", "MemTotal:") << 10
}

// procKB reads a "Key: N kB" line of a /proc file; 0 if absent.
func procKB(file, key string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb
			}
		}
	}
	return 0
}

// fail prints an error and returns exit code 1.
func fail(err error) int {
	fmt.Fprintln(os.Stderr, "kplace:", err)
	return 1
}
