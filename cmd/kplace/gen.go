package main

import (
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/kplace/kplace/bench"
	"github.com/kplace/kplace/export"
	"github.com/spf13/cobra"
)

func newGenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gen [--profile P] [--nodes N] [--pods M] [--seed S] -o FILE",
		Short: "Generate a synthetic cluster as kubectl get -o json would print it",
		Long: `Writes a synthetic cluster as a kubectl-style JSON List: nodes, running pods and
pending pods of a profile, deterministic for a seed. Profiles: ` + strings.Join(bench.Profiles(), ", ") + `.`,
		Example: `  # A small mixed cluster to try place on
  kplace gen --profile mixed --nodes 100 --pods 1000 -o cluster.json

  # A realistic export, compressed, with pending workloads instead of pods
  kplace gen --profile realistic --nodes 1000 --pods 10000 --pending-as workloads -o cluster.json.zst

  # The same laid out as kubectl get -o json prints it
  kplace gen --profile realistic --nodes 1000 --pods 10000 --layout kubectl -o cluster.json.zst`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	profile := fs.String("profile", "mixed", "cluster profile: "+strings.Join(bench.Profiles(), ", "))
	nodes := fs.Int("nodes", 1000, "number of nodes")
	pods := fs.Int("pods", 10000, "number of pending pods")
	running := fs.Int("running", -1, "number of running (bound) pods; -1 for the profile's default")
	seed := fs.Uint64("seed", 1, "random seed: the same seed gives byte-identical output")
	zones := fs.Int("zones", 0, "number of zones; 0 for the profile's default (5). Honoured by spread, anti-affinity, spread-bench and realistic")
	pendingAs := fs.String("pending-as", bench.PendingAsPods, "realistic profile: what the pods controllers created and the scheduler has not bound are written as: pods, or workloads (the controllers' objects only, wanting more pods than exist)")
	layout := fs.String("layout", layoutLines, "how the JSON is laid out: lines (compact, one List item per line) or kubectl (indented by four spaces,\nas kubectl get -o json prints it; about three times the bytes)")
	out := fs.StringP("output", "o", "", "output file: .json, .json.gz or .json.zst (\"-\" for stdout)")
	completeValues(cmd, "profile", bench.Profiles()...)
	completeValues(cmd, "pending-as", bench.PendingAsPods, bench.PendingAsWorkloads)
	completeValues(cmd, "layout", layoutLines, layoutKubectl)
	run := func() int {
		if *out == "" {
			return usagef(cmd, "-o FILE is required")
		}
		if err := checkWrites("-o", *out, export.FormatList, false); err != nil {
			return usagef(cmd, "%v", err)
		}
		switch {
		case *nodes < 0 || *pods < 0:
			return usagef(cmd, "--nodes %d, --pods %d: must not be negative", *nodes, *pods)
		case *running < -1:
			return usagef(cmd, "--running %d: -1 (the profile's default) or a count", *running)
		}
		cfg := bench.GenConfig{Profile: *profile, Nodes: *nodes, Pods: *pods, Running: *running, Seed: *seed, Zones: *zones, PendingAs: *pendingAs}
		if err := cfg.Validate(); err != nil {
			return usagef(cmd, "%v", err)
		}
		if *layout != layoutLines && *layout != layoutKubectl {
			return usagef(cmd, "--layout %q: want %s or %s", *layout, layoutLines, layoutKubectl)
		}
		if err := writeGeneratedAs(*out, cfg, *layout); err != nil {
			return fail(err)
		}
		return 0
	}
	cmd.RunE = func(*cobra.Command, []string) error { return codeErr(run()) }
	return cmd
}

// The layouts gen writes.
const (
	layoutLines   = "lines"
	layoutKubectl = "kubectl"
)

// writeGeneratedAs writes the cluster cfg generates to path (compressed by
// its suffix) in layout: layoutLines, or layoutKubectl (indented).
func writeGeneratedAs(path string, cfg bench.GenConfig, layout string) error {
	return writeCompressed(path, func(w io.Writer) error {
		if layout != layoutKubectl {
			return bench.Generate(cfg, w)
		}
		x := export.NewIndentWriter(w)
		if err := bench.Generate(cfg, x); err != nil {
			return err
		}
		return x.Close()
	})
}

// writeCompressed writes path atomically with write, through the
// compressor its suffix names (none for other names).
func writeCompressed(path string, write func(io.Writer) error) error {
	return export.WriteFileAtomic(path, func(w io.Writer) error {
		cw, closeFn, err := compressTo(w, path)
		if err != nil {
			return err
		}
		if err := write(cw); err != nil {
			return err
		}
		return closeFn()
	})
}

// compressTo wraps w in the compressor that path's suffix names (.gz or
// .zst, in any case).
func compressTo(w io.Writer, path string) (io.Writer, func() error, error) {
	path = strings.ToLower(path)
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
