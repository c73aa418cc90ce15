package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/ingest"
	"github.com/kplace/kplace/live"
)

func newSnapshotCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot [--kubeconfig FILE] [--context C] -o cluster.json.zst|cluster.arrow [flags]",
		Short: "Read a live cluster as kubectl get -o json would (paginated, rate-limited)",
		Long: `Reads every kind kplace uses from a live cluster
(` + wrapWords(strings.Join(live.SnapshotKinds(), ", "), 80) + `)
with paginated LISTs under a client-side QPS limit, and writes them as kubectl get -o json
would, or as an Arrow snapshot. See docs/binder.md.`,
		Example: `  # What kubectl get -o json prints, compressed
  kplace snapshot --kubeconfig ~/.kube/config -o cluster.json.zst

  # A snapshot place reads fastest
  kplace snapshot --context prod -o cluster.arrow`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	lf := addLiveFlags(fs, 20, 40)
	out := fs.StringP("output", "o", "", "file to write: .json (.json.gz, .json.zst compress) as kubectl get -o json prints, or .arrow (a snapshot place reads, as kplace convert writes)")
	pageSize := fs.Int64("page-size", 500, "objects per LIST request (the rest follows with the continue token)")
	admission := fs.Bool("admission-defaults", true, "for .arrow: add the DefaultTolerationSeconds tolerations to pending pods (recorded in the snapshot)")
	quiet := fs.BoolP("quiet", "q", false, "no summary or progress on stderr")
	run := func() int {
		if *out == "" {
			return usagef(cmd, "-o FILE is required")
		}
		if err := checkWrites("-o", *out, export.FormatList, true); err != nil {
			return usagef(cmd, "%v", err)
		}
		if err := lf.check(); err != nil {
			return usagef(cmd, "%v", err)
		}
		if *pageSize <= 0 {
			return usagef(cmd, "--page-size %d: must be positive", *pageSize)
		}
		c, err := lf.client()
		if err != nil {
			return fail(err)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		t0 := time.Now()
		var st live.SnapshotStats
		if strings.HasSuffix(*out, ".arrow") {
			st, err = snapshotArrow(ctx, c, *out, *pageSize, *admission, fs.Changed("admission-defaults"), *quiet)
		} else {
			err = export.WriteFileAtomic(*out, func(w io.Writer) error {
				st, err = writeLiveJSON(ctx, c, w, *out, *pageSize, *quiet)
				return err
			})
		}
		if err != nil {
			return fail(fmt.Errorf("snapshot %s: %w", *out, err))
		}
		if !*quiet {
			printSnapshotSummary(os.Stderr, "wrote "+*out, st, c, time.Since(t0))
		}
		return 0
	}
	cmd.RunE = func(*cobra.Command, []string) error { return codeErr(run()) }
	return cmd
}

// writeLiveJSON lists the cluster into w, compressed by path's suffix,
// with a progress bar on a terminal.
func writeLiveJSON(ctx context.Context, c *live.Client, w io.Writer, path string, pageSize int64, quiet bool) (live.SnapshotStats, error) {
	cw, closeFn, err := compressTo(w, path)
	if err != nil {
		return live.SnapshotStats{}, err
	}
	opts := live.SnapshotOptions{PageSize: pageSize}
	if !quiet {
		bars := map[string]*progress{}
		opts.Progress = func(kind string, done, total int) {
			p, ok := bars[kind]
			if !ok {
				if p = newProgress(os.Stderr, "listing "+kind); p != nil {
					p.unit = "objects"
				}
				bars[kind] = p
			}
			p.update(done, max(total, done))
			if total <= done {
				p.done()
			}
		}
	}
	st, err := live.WriteSnapshot(ctx, c, cw, opts)
	if err != nil {
		return st, err
	}
	return st, closeFn()
}

// snapshotArrow lists the cluster into a temporary .json.zst beside out,
// loads it as place does, and writes it as an Arrow snapshot.
func snapshotArrow(ctx context.Context, c *live.Client, out string, pageSize int64, admission, admissionSet, quiet bool) (live.SnapshotStats, error) {
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.json.zst")
	if err != nil {
		return live.SnapshotStats{}, err
	}
	defer os.Remove(tmp.Name())
	st, err := writeLiveJSON(ctx, c, tmp, tmp.Name(), pageSize, quiet)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return st, err
	}
	in, info, err := loadInput([]string{tmp.Name()}, ingest.Options{AdmissionDefaults: admission, AdmissionDefaultsSet: admissionSet})
	if err != nil {
		return st, err
	}
	return st, export.WriteFileAtomic(out, func(w io.Writer) error {
		return ingest.WriteSnapshot(w, in, ingest.SnapshotOptions{AdmissionDefaults: info.AdmissionDefaults})
	})
}

// liveInput snapshots the cluster into a temporary .json.zst for place
// --kubeconfig; the caller removes dir.
func liveInput(lf liveFlags, quiet bool) (path, dir string, err error) {
	c, err := lf.client()
	if err != nil {
		return "", "", err
	}
	if dir, err = os.MkdirTemp("", "kplace-live"); err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, "cluster.json.zst")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t0 := time.Now()
	var st live.SnapshotStats
	err = export.WriteFileAtomic(path, func(w io.Writer) error {
		st, err = writeLiveJSON(ctx, c, w, path, 500, quiet)
		return err
	})
	if err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("read the cluster: %w", err)
	}
	if !quiet {
		printSnapshotSummary(os.Stderr, "the live cluster", st, c, time.Since(t0))
	}
	return path, dir, nil
}

// printSnapshotSummary says what a snapshot read.
func printSnapshotSummary(w io.Writer, what string, st live.SnapshotStats, c *live.Client, d time.Duration) {
	var parts []string
	total := 0
	for _, kc := range st.Objects {
		total += kc.Count
		parts = append(parts, fmt.Sprintf("%d %s", kc.Count, kc.Kind))
	}
	reqs, peak := c.RateStats()
	fmt.Fprintf(w, "kplace: %s: %d objects read in %.1fs (%s)\n", what, total, d.Seconds(), strings.Join(parts, ", "))
	fmt.Fprintf(w, "  requests %d (%d LIST pages), peak %d in one second; limit %.0f qps, burst %d\n", reqs, st.Lists, peak, c.QPS, c.Burst)
}

// wrapWords breaks s at spaces into lines of at most width bytes (a word
// longer than width gets a line of its own).
func wrapWords(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if n+1+len(w) > width {
				b.WriteByte('\n')
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
