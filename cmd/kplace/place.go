package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kplace/kplace/bench"
	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/htmlreport"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
	"github.com/kplace/kplace/solver"
	"github.com/spf13/cobra"
)

// placeConfig is everything one placement run needs.
type placeConfig struct {
	paths     []string
	admission bool
	// admissionSet: --admission-defaults was given (a snapshot recorded
	// with the other value is then refused).
	admissionSet bool
	solve        solver.Config
	out          string
	report       string
	format       export.Format
	quiet        bool
	// tries is how many solves to run, with seeds solve.Seed, +1, ...; the
	// result is the one that places the most pods (see solveTries).
	tries int
	// noExpand leaves the input's controllers unexpanded (--expand=false).
	noExpand bool
	// load holds the input limits (the rest of ingest.Options is set
	// from the fields above).
	load ingest.Options
	// split writes the Evictions and the Bindings to two files beside out
	// (see splitPaths).
	split bool
	// verbose adds the solver's internal counters to the report and the
	// summary.
	verbose bool
	// warnings are the flags' warnings (--scheduler-config's settings not
	// applied), copied into the report.
	warnings []string
	// html is the HTML report's file (--html).
	html string
}

// placeStats is what a run measured, beyond the report.
type placeStats struct {
	report  *export.Report
	mallocs uint64 // heap allocations during the solve phase
}

func newPlaceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "place -f FILE|DIR|- [-o result.json] [--report report.json] [flags]",
		Short: "Place every pending pod of a cluster in one batch",
		Long: `Places every pending pod (no spec.nodeName) of the input on its nodes, highest
priority first, with kube-scheduler's filters, scores and preemption, and writes the
Bindings (and Evictions) in commit order, or with --format arrow|parquet a table of
every pod's outcome. Pods left pending get kube-scheduler's reason in the report.
A summary goes to stderr unless -q.

The input is kubectl get -o json|yaml output (a List, typed lists, single objects or
multi-document YAML, optionally .gz or .zst), or one snapshot from kplace convert;
--kubeconfig reads a live cluster instead.`,
		Example: `  # Place the pending pods of an exported cluster; the summary goes to stderr
  kplace place -f cluster.json -o result.json --report report.json

  # Read stdin; several files at once; a directory and its subdirectories
  kubectl get nodes,pods,priorityclasses -A -o json | kplace place -f - -o result.json
  kplace place -f nodes.yaml,pods.yaml,priorityclasses.yaml -o result.json
  kplace place -f export/ -R -o result.json

  # Bin packing instead of spreading (KubeSchedulerConfiguration's spelling)
  kplace place -f cluster.json --strategy MostAllocated -o result.json

  # The result as YAML, or every pod's outcome as a Parquet table
  kplace place -f cluster.json -o result.yaml
  kplace place -f cluster.json -o placements.parquet

  # The bundled sample cluster
  kplace place --sample`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	input := addInputFlags(fs, "input file or directory: JSON or YAML, List/typed list/objects/multi-doc, optionally .gz or .zst;\n"+
		"or one snapshot from kplace convert")
	sample := fs.Bool("sample", false, "place the bundled sample cluster (generated deterministically) instead of -f")
	out := fs.StringP("output", "o", "", "result file, its format from its name: .json (a v1 List of Bindings and Evictions in commit\n"+
		"order), .jsonl, .yaml, .arrow or .parquet (the placement table); .json, .jsonl and .yaml may end in .gz or .zst.\n"+
		"\"-\" is stdout (default: no result file; the summary only)")
	report := fs.String("report", "", "JSON report: counts, timings, reason for every pod left pending")
	html := fs.String("html", "", "HTML report: one self-contained page with charts (utilisation per zone and pool, pending pods,\n"+
		"preemptions, spread skew); see docs/report.md")
	format := fs.String("format", "", "result format, instead of -o's suffix: list or json (a JSON v1 List of Bindings), jsonl (one object per\n"+
		"line), yaml (the List in YAML), arrow (the placement table, one row per pod outcome: Arrow IPC file, zstd) or\n"+
		"parquet (the same table); the default for -o - or a name without a known suffix is list")
	solveFlags := addSolveFlags(fs)
	tries := fs.Int("tries", 1, "solve the batch this many times, with seeds --seed, --seed+1, ..., and keep the result that places\n"+
		"the most pods (then: fewest evictions, first seed); each is a valid kube-scheduler outcome, as it breaks ties\n"+
		"at random. Runs on every processor; each solve in flight holds its own copy of the cluster")
	requeue := fs.Bool("requeue-evicted", false, "put each evicted pod back in the queue at its own priority (priority, then creation time): it may be\n"+
		"placed again in the same run, elsewhere, by placement or by preempting pods of strictly lower priority; its\n"+
		"Eviction is then followed by its Binding (off: an evicted pod stays evicted, as a binder would leave it)")
	expand := fs.Bool("expand", true, "add to the batch the pods the input's Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs and\n"+
		"ReplicationControllers would create now and that the input lacks (names from --seed); false places the input's pods only")
	split := fs.Bool("split", false, "write the Evictions and the Bindings to two files instead of -o FILE: FILE's name with\n"+
		".evictions and .bindings before its extension (result.json: result.evictions.json, result.bindings.json),\n"+
		"for binders that apply every Eviction, then every Binding")
	quiet := fs.BoolP("quiet", "q", false, "no summary or progress on stderr")
	verbose := fs.BoolP("verbose", "v", false, "add the solver's internal counters (equivalence classes, static groups, heap builds) to the summary and the report")
	limits := addLimitFlags(fs)
	lf := addLiveFlags(fs, 20, 40) // --kubeconfig or --context without -f: read the live cluster (as kplace snapshot)
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	memprofile := fs.String("memprofile", "", "write a heap profile to this file at the end")
	completeValues(cmd, "format", "list", "jsonl", "yaml", "arrow", "parquet")
	completeSolveFlags(cmd)
	run := func() int {
		if *tries < 1 || *tries > 1000 {
			fmt.Fprintf(os.Stderr, "kplace place: --tries %d: want 1 to 1000\n", *tries)
			return 2
		}
		if (*requeue || *solveFlags.crossNode) && !*solveFlags.preempt {
			fmt.Fprintln(os.Stderr, "kplace place: --requeue-evicted and --cross-node-preemption need --preemption")
			return 2
		}
		solve, err := solveFlags.config()
		if err != nil {
			fmt.Fprintln(os.Stderr, "kplace place:", err)
			return 2
		}
		paths, err := input.files()
		if err != nil {
			return fail(err)
		}
		cfg := placeConfig{paths: paths, admission: *solveFlags.admission, admissionSet: fs.Changed("admission-defaults"),
			out: *out, report: *report, quiet: *quiet, solve: solve, tries: *tries, noExpand: !*expand, split: *split,
			verbose: *verbose, warnings: solveFlags.warnings, html: *html}
		cfg.solve.RequeueEvicted = *requeue
		if err := limits.apply(&cfg.load); err != nil {
			fmt.Fprintln(os.Stderr, "kplace place:", err)
			return 2
		}
		f, compressed, err := resultFormat(*out, *format)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kplace place:", err)
			return 2
		}
		cfg.format = f
		if err := checkOutputs(cfg.paths, output{"-o", cfg.out}, output{"--report", cfg.report}, output{"--html", cfg.html},
			output{"--cpuprofile", *cpuprofile}, output{"--memprofile", *memprofile}); err != nil {
			fmt.Fprintln(os.Stderr, "kplace place:", err)
			return 2
		}
		if *split && (*out == "" || *out == "-" || f.Binary() || compressed != "") {
			fmt.Fprintln(os.Stderr, "kplace place: --split needs -o FILE, uncompressed, in format list, jsonl or yaml")
			return 2
		}
		if (fs.Changed("kubeconfig") || fs.Changed("context")) && (len(cfg.paths) > 0 || *sample) {
			fmt.Fprintln(os.Stderr, "kplace place: --kubeconfig and --context read a live cluster: not with -f or --sample")
			return 2
		}
		if err := lf.check(); err != nil {
			fmt.Fprintln(os.Stderr, "kplace place:", err)
			return 2
		}
		if *sample {
			if len(cfg.paths) > 0 {
				fmt.Fprintln(os.Stderr, "kplace place: --sample and -f are exclusive")
				return 2
			}
			dir, err := os.MkdirTemp("", "kplace-sample")
			if err != nil {
				return fail(err)
			}
			defer export.TrackTemp(dir)()
			path := filepath.Join(dir, "sample.json")
			if err := writeGenerated(path, sampleConfig); err != nil {
				return fail(err)
			}
			cfg.paths = []string{path}
		}
		if len(cfg.paths) == 0 && !*sample && (fs.Changed("kubeconfig") || fs.Changed("context")) {
			path, dir, err := liveInput(lf, *quiet)
			if err != nil {
				return fail(err)
			}
			defer os.RemoveAll(dir)
			cfg.paths = []string{path}
		}
		if len(cfg.paths) == 0 {
			fmt.Fprintln(os.Stderr, "kplace place: no input: give -f FILE|DIR, --sample or --kubeconfig")
			return 2
		}
		stop, err := cpuProfile(*cpuprofile)
		if err != nil {
			return fail(err)
		}
		defer stop()
		st, err := place(cfg)
		if err != nil {
			return fail(err)
		}
		if *memprofile != "" {
			runtime.GC() // the profile counts what the last completed collection saw: the solve's allocations too
			if err := export.WriteFileAtomic(*memprofile, func(w io.Writer) error { return pprof.WriteHeapProfile(w) }); err != nil {
				return fail(err)
			}
		}
		if !cfg.quiet {
			printSummary(os.Stderr, st.report)
		}
		return 0
	}
	cmd.RunE = func(*cobra.Command, []string) error { return codeErr(run()) }
	return cmd
}

// sampleConfig is the bundled sample: a mixed cluster small enough to place
// in about a second.
var sampleConfig = bench.GenConfig{Profile: "mixed", Nodes: 1000, Pods: 10000, Running: -1, Seed: 1}

// place runs ingest, index, solve and export.
func place(cfg placeConfig) (*placeStats, error) {
	t0 := time.Now()
	opts := cfg.load
	opts.AdmissionDefaults, opts.AdmissionDefaultsSet = cfg.admission, cfg.admissionSet
	in, info, err := loadInput(cfg.paths, opts)
	if err != nil {
		return nil, err
	}
	tl := time.Now()
	exp := &ingest.Expansion{}
	if !cfg.noExpand {
		if exp, err = ingest.Expand(in, ingest.ExpandOptions{Seed: cfg.solve.Seed, AdmissionDefaults: info.AdmissionDefaults, NodeIndex: true}); err != nil {
			return nil, err
		}
	}
	// The controllers' pod templates serve expansion alone: what follows
	// reads their selectors and names (0.2 GB of JSON at 100,000 nodes).
	for i := range in.Workloads {
		in.Workloads[i].Template, in.Workloads[i].ClaimTemplates = nil, nil
	}
	t1 := time.Now()
	c, err := index.BuildOn(in, exp.Nodes)
	if err != nil {
		return nil, err
	}
	bound := 0
	for _, n := range c.PodNode {
		if n != index.NoNode {
			bound++
		}
	}
	t2 := time.Now()
	var prog *progress
	if !cfg.quiet {
		prog = newProgress(os.Stderr, "placing")
		cfg.solve.Progress = prog.update
	}
	var before htmlreport.Usage
	if cfg.html != "" {
		before = htmlreport.Measure(c)
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var tries []export.Try
	var res *solver.Result
	var stream *commitStream
	if cfg.tries > 1 {
		if c, res, tries, err = solveTries(in, c, cfg.solve, cfg.tries); err != nil {
			return nil, err
		}
	} else {
		sc := cfg.solve
		if !cfg.split && cfg.out != "" && cfg.out != "-" && (cfg.format == export.FormatList || cfg.format == export.FormatJSONL) {
			stream = startCommitStream(cfg.out, c, cfg.format)
			sc.Commits = stream.add
		}
		res = solver.Solve(c, sc)
	}
	runtime.ReadMemStats(&ms1)
	prog.done()
	t3 := time.Now()
	if stream != nil {
		if err := stream.finish(); err != nil {
			return nil, fmt.Errorf("write %s: %w", cfg.out, err)
		}
	} else if cfg.split {
		if err := writeSplit(cfg.out, c, res, cfg.format); err != nil {
			return nil, err
		}
	} else if cfg.out != "" {
		err := writeCompressed(cfg.out, func(w io.Writer) error { return export.WriteResult(w, c, res, cfg.format) })
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", cfg.out, err)
		}
	}
	t4 := time.Now()
	rep := export.NewReport(c, res, bound, export.Timings{
		Ingest: ms(tl.Sub(t0)), Expand: ms(t1.Sub(tl)), Index: ms(t2.Sub(t1)), Solve: ms(t3.Sub(t2)), Export: ms(t4.Sub(t3)),
	})
	rep.Tries = tries
	rep.AddWorkloads(c, res, exp.Workloads)
	rep.Warnings = append(rep.Warnings, exp.Warnings...)
	rep.Warnings = append(rep.Warnings, cfg.warnings...)
	if len(c.Nodes) > 0 && rep.Counts.Pending == 0 {
		rep.Warnings = append(rep.Warnings, "the input holds no pending pods (and its controllers want none): nothing to place")
	}
	rep.Counts.Created = exp.Pods
	if cfg.verbose {
		rep.Engine = export.EngineOf(res)
	}
	rep.Timings.Total = ms(time.Since(t0))
	if cfg.report != "" {
		if err := export.WriteFileAtomic(cfg.report, rep.Write); err != nil {
			return nil, fmt.Errorf("write %s: %w", cfg.report, err)
		}
	}
	if cfg.html != "" {
		names := make([]string, len(cfg.paths))
		for i, path := range cfg.paths {
			names[i] = filepath.Base(path)
		}
		page := htmlreport.Build("kplace place: "+strings.Join(names, ", "), before, c, res, rep)
		if err := export.WriteFileAtomic(cfg.html, page.Write); err != nil {
			return nil, fmt.Errorf("write %s: %w", cfg.html, err)
		}
	}
	return &placeStats{report: rep, mallocs: ms1.Mallocs - ms0.Mallocs}, nil
}

// commitStream writes a solve's commits to a result file while the solve
// runs (solver.Config.Commits): formatting a million commits and writing
// them took 0.5-1.2 s after the realistic 100,000-node solve. With a
// processor to spare the writing is then free; on 2 processors it takes
// time the solve's helper would have had, and the whole run came out
// even (5 interleaved pairs: medians 22.6 s both). The file is written as
// writeCompressed writes one, renamed into place once the last commit is
// written.
type commitStream struct {
	batches chan []solver.Commit
	done    chan error
}

func startCommitStream(path string, c *index.Cluster, f export.Format) *commitStream {
	s := &commitStream{batches: make(chan []solver.Commit, 64), done: make(chan error, 1)}
	go func() {
		err := writeCompressed(path, func(w io.Writer) error {
			cw := export.NewCommitWriter(w, c, f)
			for cms := range s.batches {
				// In slices, yielding between them: woken by the solve's
				// send, the writer runs next on the solve's processor when
				// the solve yields (waiting for a parallel share), and a
				// whole batch there held the solve up for milliseconds
				// (realistic 100k snapshot, 5 interleaved pairs: solve
				// median 18.2 s against 17.4 s without streaming; 17.0 s
				// against 16.7 s with the slices).
				for len(cms) > 0 {
					k := min(len(cms), streamSlice)
					cw.Write(cms[:k])
					cms = cms[k:]
					runtime.Gosched()
				}
			}
			return cw.Close()
		})
		for range s.batches { // a file that could not be made: the solve goes on
		}
		s.done <- err
	}()
	return s
}

// streamSlice is the most commits the writer formats between two yields
// (about a tenth of a millisecond).
const streamSlice = 512

// add hands commits to the writer.
func (s *commitStream) add(cms []solver.Commit) { s.batches <- cms }

// finish waits for the file.
func (s *commitStream) finish() error {
	close(s.batches)
	return <-s.done
}

// splitPaths are the files --split writes for out: its name with
// ".evictions" and ".bindings" before the extension.
func splitPaths(out string) (evictions, bindings string) {
	ext := filepath.Ext(out)
	base := strings.TrimSuffix(out, ext)
	return base + ".evictions" + ext, base + ".bindings" + ext
}

// writeSplit writes the Evictions and the Bindings of res to the two
// files of splitPaths(out). The Evictions' file is renamed into place
// first: a failure never leaves Bindings without their Evictions.
func writeSplit(out string, c *index.Cluster, res *solver.Result, f export.Format) error {
	ev, bi := splitPaths(out)
	return export.WriteFileAtomic(bi, func(wb io.Writer) error {
		err := export.WriteFileAtomic(ev, func(we io.Writer) error {
			return export.WriteSplit(we, wb, c, res, f)
		})
		if err != nil {
			return fmt.Errorf("write %s and %s: %w", ev, bi, err)
		}
		return nil
	})
}

// solveTries solves the batch tries times, try i with seed cfg.Seed+i (the
// first on c, the others on clusters built again from in), at most one
// solve per processor at once, and returns the cluster and result of the
// try that places the most pods, then evicts the fewest, then comes first:
// the same whatever order the solves finish in. Only the best so far and
// the solves in flight are kept.
func solveTries(in *index.Input, c *index.Cluster, cfg solver.Config, tries int) (*index.Cluster, *solver.Result, []export.Try, error) {
	out := make([]export.Try, tries)
	var (
		mu       sync.Mutex
		bestC    *index.Cluster
		bestRes  *solver.Result
		best     = -1
		firstErr error
		wg       sync.WaitGroup
	)
	sem := make(chan struct{}, min(tries, runtime.GOMAXPROCS(0)))
	for i := range tries {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			ci, tc := c, cfg
			tc.Seed = cfg.Seed + uint64(i)
			if i > 0 {
				tc.Progress = nil // the first try reports progress
				var err error
				if ci, err = index.Build(in); err != nil {
					mu.Lock()
					firstErr = cmp.Or(firstErr, err)
					mu.Unlock()
					return
				}
			}
			res := solver.Solve(ci, tc)
			t := export.Try{Seed: tc.Seed}
			for _, cm := range res.Commits {
				switch cm.Action {
				case solver.Bind:
					t.Placed++
				case solver.Evict:
					t.Evicted++
				}
			}
			mu.Lock()
			defer mu.Unlock()
			out[i] = t
			if b := out[max(best, 0)]; best < 0 || t.Placed > b.Placed || t.Placed == b.Placed && (t.Evicted < b.Evicted || t.Evicted == b.Evicted && i < best) {
				best, bestC, bestRes = i, ci, res
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, nil, nil, firstErr
	}
	out[best].Kept = true
	return bestC, bestRes, out, nil
}

// printSummary writes the one-screen summary.
func printSummary(w io.Writer, r *export.Report) {
	c, t := r.Counts, r.Timings
	fmt.Fprintf(w, "kplace: %d nodes, %d pods bound before, %d pending\n", c.Nodes, c.BoundBefore, c.Pending)
	fmt.Fprintf(w, "  placed          %8d\n", c.Placed)
	if c.Preemptors > 0 {
		fmt.Fprintf(w, "  by preemption   %8d  (%d lower-priority pods evicted)\n", c.Preemptors, c.Evicted)
	}
	if c.CrossNode > 0 {
		fmt.Fprintf(w, "  cross-node      %8d  (preemptions evicting on other nodes)\n", c.CrossNode)
	}
	if c.Requeued > 0 {
		fmt.Fprintf(w, "  evicted, again  %8d  (of %d evicted pods requeued, placed again)\n", c.Replaced, c.Requeued)
	}
	fmt.Fprintf(w, "  unschedulable   %8d\n", c.Unschedulable)
	if len(r.Tries) > 0 {
		kept, placed := r.Tries[0], make([]string, len(r.Tries))
		for i, t := range r.Tries {
			if t.Kept {
				kept = t
			}
			placed[i] = strconv.Itoa(t.Placed)
		}
		fmt.Fprintf(w, "  tries           %8d  (seeds %d-%d placed %s: kept seed %d)\n", len(r.Tries), r.Tries[0].Seed,
			r.Tries[len(r.Tries)-1].Seed, strings.Join(placed, ", "), kept.Seed)
	}
	if c.Unsupported > 0 {
		fmt.Fprintf(w, "  unsupported     %8d\n", c.Unsupported)
	}
	if c.Gated > 0 {
		fmt.Fprintf(w, "  gated           %8d\n", c.Gated)
	}
	if c.Rejected > 0 {
		fmt.Fprintf(w, "  rejected        %8d  (admission: unknown PriorityClass)\n", c.Rejected)
	}
	if c.OtherScheduler > 0 {
		fmt.Fprintf(w, "  other scheduler %8d  (skipped)\n", c.OtherScheduler)
	}
	if e := r.Engine; e != nil {
		fmt.Fprintf(w, "  classes         %8d  (%d static groups, %d heap builds, %d heap rebuilds)\n", e.Classes, e.Groups, e.Builds, e.Rebuilds)
	}
	rate := 0.0
	if t.Solve > 0 {
		rate = float64(c.Pending) / (t.Solve / 1000)
	}
	fmt.Fprintf(w, "  time: ingest %.0fms, expand %.0fms, index %.0fms, solve %.0fms (%.0f pods/s), export %.0fms\n",
		t.Ingest, t.Expand, t.Index, t.Solve, rate, t.Export)
	for _, kind := range slices.Sorted(maps.Keys(r.SkippedKinds)) {
		fmt.Fprintf(w, "  warning: skipped %d object(s) of kind %s\n", r.SkippedKinds[kind], kind)
	}
	for i, warn := range r.Warnings {
		if i == 5 {
			fmt.Fprintf(w, "  warning: ... and %d more\n", len(r.Warnings)-5)
			break
		}
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	printWorkloads(w, r)
	printRollups(w, r)
}

// printRollups writes the pending pods' roll-ups: nodes rejected per
// filter plugin, and the most frequent reasons with their counts written
// N, each in full.
func printRollups(w io.Writer, r *export.Report) {
	ru := r.Rollups
	if len(ru.ByPlugin) > 0 {
		fmt.Fprintln(w, "  nodes rejected, per filter plugin (summed over the pending pods):")
		for _, pc := range ru.ByPlugin {
			fmt.Fprintf(w, "    %-18s %10d nodes  (%d pods)\n", pc.Plugin, pc.Nodes, pc.Pods)
		}
	}
	if len(ru.ByPattern) > 0 {
		fmt.Fprintf(w, "  pending reasons (%d distinct messages, %d with the counts written N; most frequent):\n",
			len(ru.ByReason), len(ru.ByPattern))
		for i, rc := range ru.ByPattern {
			if i == 5 {
				fmt.Fprintf(w, "    ... and %d more (see the report's rollups)\n", len(ru.ByPattern)-5)
				break
			}
			fmt.Fprintf(w, "    %7d  %s\n", rc.Pods, rc.Reason)
		}
	}
}

// printWorkloads summarises the controllers: how many pods expansion
// created, and the workloads not fully placed, most pending first.
func printWorkloads(w io.Writer, r *export.Report) {
	if len(r.Workloads) == 0 {
		return
	}
	fmt.Fprintf(w, "  workloads       %8d  (%d pods created)\n", len(r.Workloads), r.Counts.Created)
	short := r.NotPlaced()
	if len(short) == 0 {
		return
	}
	fmt.Fprintf(w, "  workloads not fully placed: %d\n", len(short))
	for i, wl := range short {
		if i == 10 {
			fmt.Fprintf(w, "    ... and %d more (see the report's workloads)\n", len(short)-10)
			break
		}
		reason := ""
		if len(wl.Reasons) > 0 {
			reason = ": " + truncate(wl.Reasons[0].Reason, 120)
		}
		fmt.Fprintf(w, "    %s %s/%s: %d of %d pending%s\n", wl.Kind, wl.Namespace, wl.Name, wl.Pending, wl.Placed+wl.Pending, reason)
	}
}

// truncate shortens s to at most n bytes, cut at a space (never inside a
// word) and marked " ...".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n-3], ' ')
	if cut <= 0 {
		return s // one long word: whole
	}
	return s[:cut] + " ..."
}

// writeGenerated generates a cluster into path, compressed by its suffix.
func writeGenerated(path string, cfg bench.GenConfig) error {
	return writeGeneratedAs(path, cfg, layoutLines)
}
