// Command kplace places pending Kubernetes pods on an exported cluster in one
// batch, with kube-scheduler's semantics, and writes the Bindings a binder
// consumes plus a report of every pod left pending. See README.md.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"

	"github.com/kplace/kplace/export"
	"github.com/spf13/pflag"
)

const usage = `kplace - offline batch placement of Kubernetes pods

Usage:
  kplace place -f FILE|DIR [-f ...] [-o result.json] [--report report.json] [flags]
  kplace place --sample [flags]          place the bundled sample cluster
  kplace convert -f FILE|DIR [-f ...] -o cluster.arrow [--admission-defaults=true|false]
                                         write the loaded input as an Arrow snapshot (place -f reads it)
  kplace expand -f FILE|DIR [-f ...] -o expanded.json [--seed S]
                                         write the input plus the pods (ReplicaSets, PVCs) its controllers would create
  kplace simulate -f FILE|DIR [-f ...] --scenario scenario.yaml [--timeline t.jsonl] [-o state.json] [--report r.json]
                                         play a what-if scenario on a virtual clock (controllers and scheduler)
  kplace explain POD -f FILE|DIR [-f ...] [--node NODE] [-o table|json]
                                         why a pod goes where it goes: every node's verdict per plugin, and scores
  kplace snapshot [--kubeconfig FILE] -o cluster.json.zst|cluster.arrow
                                         read a live cluster as kubectl get -o json would (paginated, rate-limited)
  kplace bind -f result.json [--kubeconfig FILE] [--dry-run=server] [--resume]
                                         apply a result to a live cluster, Evictions before the Bindings that need them
  kplace gen --profile P --nodes N --pods M [--zones Z] [--seed S] -o FILE
  kplace bench [--suite quick|full | --nodes N --pods M --profile P]
  kplace version

Run "kplace COMMAND --help" for the flags of a command.
`

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	tuneGC()
	handleSignals()
	os.Exit(run(os.Args[1:]))
}

// handleSignals makes SIGINT and SIGTERM remove the temporary files of the
// writes in progress before the process exits, with 130 or 143 (128 plus
// the signal's number, as a shell reports a process the signal killed).
func handleSignals() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-ch
		export.RemoveTemps()
		fmt.Fprintf(os.Stderr, "kplace: %v: stopped (no file is left half-written)\n", sig)
		code := 130
		if sig == syscall.SIGTERM {
			code = 143
		}
		os.Exit(code)
	}()
}

// tuneGC trades memory for speed the way a batch tool can: the heap of an
// ingested cluster is mostly long-lived, so collecting at 5x the live heap
// (GOGC=400) instead of 2x saves a quarter of the ingest time. A soft memory
// limit of a quarter of the machine's RAM (at least 4 GiB, at most 70%)
// makes the collector work harder once the heap reaches it: a live heap of
// a few GiB then no longer grows to 5x its size in garbage (100,000 nodes
// and 1,000,000 pods from JSON: peak RSS 8.4 GiB with 70% of 24 GiB as the
// limit). A live heap close to the limit would make the collector run
// back to back, so the limit follows the live heap up (see followLiveHeap).
// GOGC and GOMEMLIMIT in the environment win.
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

// followLiveHeap keeps the soft memory limit at least headroom times the
// live heap, up to most: after every collection (a cleanup that re-arms
// itself runs once per cycle) it reads the live heap and raises
// the limit when the heap has grown past limit/headroom. A 100,000-node
// realistic export holds about 5 GiB live while it is solved: under a
// 6 GiB limit the collector ran a cycle every second and took 60% of the
// CPU.
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
// of RAM.
func softLimit(total int64) int64 {
	return min(max(total/4, 4<<30), total/10*7)
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

// run dispatches a subcommand and returns the exit code: 0 success, 1 a
// failed run (bad input, I/O), 2 a usage error.
func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	switch args[0] {
	case "place":
		return cmdPlace(args[1:])
	case "convert":
		return cmdConvert(args[1:])
	case "expand":
		return cmdExpand(args[1:])
	case "simulate":
		return cmdSimulate(args[1:])
	case "explain":
		return cmdExplain(args[1:])
	case "snapshot":
		return cmdSnapshot(args[1:])
	case "bind":
		return cmdBind(args[1:])
	case "gen":
		return cmdGen(args[1:])
	case "bench":
		return cmdBench(args[1:])
	case "version", "--version":
		fmt.Println("kplace", version)
		return 0
	case "help", "-h", "--help":
		fmt.Print(usage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "kplace: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// parseInOut parses a command's flags and requires -f and -o (paths and
// out); done reports that the command ends here with code (--help: 0, a
// usage error: 2).
func parseInOut(fs *pflag.FlagSet, cmd string, args []string, paths *[]string, out *string) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0, true
		}
		fmt.Fprintf(os.Stderr, "kplace %s: %v\n", cmd, err)
		return 2, true
	}
	if len(*paths) == 0 || *out == "" {
		fmt.Fprintf(os.Stderr, "kplace %s: -f and -o are required\n", cmd)
		fs.Usage()
		return 2, true
	}
	return 0, false
}

// fail prints an error and returns exit code 1.
func fail(err error) int {
	fmt.Fprintln(os.Stderr, "kplace:", err)
	return 1
}
