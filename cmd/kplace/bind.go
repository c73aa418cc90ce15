package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/live"
)

func newBindCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bind -f result.json [--kubeconfig FILE] [--dry-run=none|server] [--journal FILE] [--resume] [flags]",
		Short: "Apply a result to a live cluster, Evictions before the Bindings that need them",
		Long: `Applies a result of kplace place: Evictions through the eviction subresource with the
victim's uid as precondition, Bindings through pods/binding with the uid kplace read,
each Binding after the victims before it on its node are gone. Failures are per pod
and reported; the exit code is 1 when anything was not applied. See docs/binder.md.`,
		Example: `  # Check a result against the API server, then apply it
  kplace bind -f result.json --dry-run=server
  kplace bind -f result.json --report bind.json

  # The two files of place --split, Evictions first; continue an interrupted run
  kplace bind -f result.evictions.json,result.bindings.json --resume`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	paths := fs.StringSliceP("filename", "f", nil, "result file (repeated or comma-separated, applied in order: the two files of place --split,\n"+
		"evictions first); \"-\" is stdin")
	lf := addLiveFlags(fs, 50, 100)
	concurrency := fs.Int("concurrency", 16, "requests in flight at most (items that wait on nothing go in parallel)")
	dryRun := fs.String("dry-run", "none", "none, or server: every request is sent with dryRun=All (the API server checks and persists nothing)")
	journal := fs.String("journal", "", "journal file (default: the first -f with .journal appended; none for stdin or a dry run)")
	resume := fs.Bool("resume", false, "continue the journal of an earlier run of the same result: skip what it applied")
	report := fs.String("report", "", "JSON report: counts, requests, every item not applied and why")
	retries := fs.Int("retries", 8, "times a request is sent again after a 429 (a disruption budget refusing an eviction), a 5xx or a timeout")
	backoff := fs.Duration("backoff", 500*time.Millisecond, "first wait before a retry, doubled each time up to 30s")
	waitTimeout := fs.Duration("wait-timeout", 5*time.Minute, "how long Bindings wait for an evicted victim to be gone")
	quiet := fs.BoolP("quiet", "q", false, "no summary or progress on stderr")
	completeValues(cmd, "dry-run", "none", "server")
	run := func() int {
		usageErr := func(msg string) int {
			fmt.Fprintln(os.Stderr, "kplace bind:", msg)
			return 2
		}
		switch {
		case len(*paths) == 0:
			return usageErr("-f FILE is required")
		case *dryRun != "none" && *dryRun != "server":
			return usageErr(fmt.Sprintf("--dry-run=%s: want none or server", *dryRun))
		case *concurrency < 1 || *retries < 0:
			return usageErr("--concurrency must be at least 1 and --retries at least 0")
		case *backoff <= 0 || *waitTimeout <= 0:
			return usageErr("--backoff and --wait-timeout must be positive")
		}
		opts := live.BindOptions{Concurrency: *concurrency, DryRun: *dryRun == "server", Journal: *journal, Resume: *resume,
			Retries: *retries, Backoff: *backoff, WaitTimeout: *waitTimeout}
		if *retries == 0 {
			opts.Retries = -1 // none (0 takes the default)
		}
		if opts.Journal == "" && !opts.DryRun && (*paths)[0] != "-" {
			opts.Journal = (*paths)[0] + ".journal"
		}
		// The report and the journal overwrite neither each other nor a
		// result file (the journal of a resumed run exists: it is
		// appended to, and compared all the same).
		if err := checkOutputs(*paths, output{"--report", *report}, output{"--journal", opts.Journal}); err != nil {
			return usageErr(err.Error())
		}
		if err := lf.check(); err != nil {
			return usageErr(err.Error())
		}
		plan, err := live.ReadPlan(*paths)
		if err != nil {
			return fail(err)
		}
		c, err := lf.client()
		if err != nil {
			return fail(err)
		}
		var prog *progress
		if !*quiet {
			prog = newProgress(os.Stderr, "binding")
			opts.Progress = prog.update
		}
		// SIGINT or SIGTERM stops the run, which reports what it did not
		// apply (a second one exits at once: handleSignals).
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
		ownSignals.Store(true)
		defer ownSignals.Store(false)
		var stoppedBy atomic.Value
		go func() {
			if sig, ok := <-sigs; ok {
				stoppedBy.Store(sig)
				cancel()
			}
		}()
		rep, err := live.Bind(ctx, c, plan, opts)
		prog.done()
		if err != nil {
			return fail(err)
		}
		if *report != "" {
			err := export.WriteFileAtomic(*report, func(w io.Writer) error {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			})
			if err != nil {
				return fail(fmt.Errorf("write %s: %w", *report, err))
			}
		}
		if !*quiet {
			printBindSummary(os.Stderr, rep, opts.Journal)
		}
		switch sig, _ := stoppedBy.Load().(os.Signal); {
		case sig == syscall.SIGTERM:
			return 143
		case sig != nil:
			return 130
		case !rep.Applied():
			return 1
		}
		return 0
	}
	cmd.RunE = func(*cobra.Command, []string) error { return codeErr(run()) }
	return cmd
}

// printBindSummary writes the one-screen summary of a bind run.
func printBindSummary(w io.Writer, r *live.BindReport, journal string) {
	c := r.Counts
	dry := ""
	if r.DryRun {
		dry = " (server-side dry run: nothing persisted)"
	}
	fmt.Fprintf(w, "kplace bind: %d items (%d Bindings, %d Evictions) in %.1fs%s\n", c.Items, c.Bindings, c.Evictions, r.Seconds, dry)
	for _, row := range []struct {
		label string
		n     int
	}{{"bound", c.Bound}, {"already bound", c.AlreadyBound}, {"evicted", c.Evicted}, {"already gone", c.AlreadyGone},
		{"from journal", c.FromJournal}, {"not applied", c.Failed}} {
		if row.n > 0 || row.label == "not applied" {
			fmt.Fprintf(w, "  %-14s %8d\n", row.label, row.n)
		}
	}
	fmt.Fprintf(w, "  requests %d, %.0f/s (peak %d in one second; limit %.0f qps after a burst of %d), %d retried\n",
		r.Requests, r.QPS, r.PeakQPS, r.QPSLimit, r.Burst, c.Retried)
	if journal != "" {
		fmt.Fprintf(w, "  journal %s\n", journal)
	}
	if len(r.Failures) == 0 {
		return
	}
	by := map[string]int{}
	for _, f := range r.Failures {
		by[f.Reason]++
	}
	reasons := make([]string, 0, len(by))
	for k := range by {
		reasons = append(reasons, k)
	}
	sort.Slice(reasons, func(i, j int) bool {
		return by[reasons[i]] > by[reasons[j]] || by[reasons[i]] == by[reasons[j]] && reasons[i] < reasons[j]
	})
	fmt.Fprintln(w, "  not applied, by reason:")
	for _, k := range reasons {
		fmt.Fprintf(w, "    %7d  %s\n", by[k], k)
	}
	for i, f := range r.Failures {
		if i == 10 {
			fmt.Fprintf(w, "    ... and %d more (see --report)\n", len(r.Failures)-10)
			break
		}
		fmt.Fprintf(w, "    %s %s/%s: %s: %s\n", f.Kind, f.Namespace, f.Name, f.Reason, truncate(f.Message, 140))
	}
}
