package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/kplace/kplace/bench"
	"github.com/spf13/pflag"
)

func cmdGen(args []string) int {
	fs := pflag.NewFlagSet("gen", pflag.ContinueOnError)
	fs.SortFlags = false
	profile := fs.String("profile", "mixed", "cluster profile: "+strings.Join(bench.Profiles(), ", "))
	nodes := fs.Int("nodes", 1000, "number of nodes")
	pods := fs.Int("pods", 10000, "number of pending pods")
	running := fs.Int("running", -1, "number of running (bound) pods; -1 for the profile's default")
	seed := fs.Uint64("seed", 1, "random seed: the same seed gives byte-identical output")
	zones := fs.Int("zones", 0, "number of zones; 0 for the profile's default (5). Honoured by spread, anti-affinity, spread-bench and realistic")
	pendingAs := fs.String("pending-as", bench.PendingAsPods, "realistic profile: what the pods controllers created and the scheduler has not bound are written as: pods, or workloads (the controllers' objects only, wanting more pods than exist)")
	out := fs.StringP("output", "o", "", "output file: .json, .json.gz or .json.zst (\"-\" for stdout)")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: kplace gen --profile P --nodes N --pods M [--zones Z] [--pending-as pods|workloads] [--seed S] -o FILE\n\n"+
			"Writes a synthetic cluster as a kubectl-style JSON List.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(os.Stderr, "kplace gen:", err)
		return 2
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "kplace gen: -o FILE is required")
		return 2
	}
	cfg := bench.GenConfig{Profile: *profile, Nodes: *nodes, Pods: *pods, Running: *running, Seed: *seed, Zones: *zones, PendingAs: *pendingAs}
	if err := writeGenerated(*out, cfg); err != nil {
		return fail(err)
	}
	return 0
}

// compressTo wraps w in the compressor that path's suffix names.
func compressTo(w io.Writer, path string) (io.Writer, func() error, error) {
	switch {
	case strings.HasSuffix(path, ".gz"):
		zw := gzip.NewWriter(w)
		return zw, zw.Close, nil
	case strings.HasSuffix(path, ".zst"):
		zw, err := zstd.NewWriter(w)
		if err != nil {
			return nil, nil, err
		}
		return zw, zw.Close, nil
	}
	return w, func() error { return nil }, nil
}
