package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/kplace/kplace/export"
	"github.com/kplace/kplace/htmlreport"
	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
	"github.com/kplace/kplace/nodelifecycle"
	"github.com/kplace/kplace/scenario"
	"github.com/spf13/cobra"
)

// simulateConfig is everything one simulate run needs.
type simulateConfig struct {
	paths     []string
	admission bool
	// admissionSet: --admission-defaults was given.
	admissionSet bool
	sc           *scenario.Scenario
	engine       scenario.Config
	// Outputs ("" for none).
	timeline, state, report, placements, placementsState string
	// warnings are the flags' warnings, copied into the report.
	warnings []string
	// html is the HTML report's file (--html).
	html  string
	quiet bool
	// expand adds the pods the input's controllers would create now and
	// that it lacks, pending at t = 0 (--expand).
	expand bool
}

func newSimulateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "simulate -f CLUSTER --scenario scenario.yaml [--timeline t.jsonl] [-o state.json] [--report r.json] [flags]",
		Short: "Play a what-if scenario on a virtual clock (controllers and scheduler)",
		Long: `Plays a what-if scenario on a virtual clock: its steps (taint, cordon, drain, fail or
recover nodes, add or remove nodes, scale, apply), the node lifecycle controller and
the NoExecute taint manager as Kubernetes v1.36 runs them, and the scheduler (as
place) whenever pods wait. Writes a timeline, a step-by-step report, a story on
stderr and the final state. The scenario format is in docs/scenarios.md.`,
		Example: `  # A scenario file (examples/zone-failure.yaml in the repository)
  kplace simulate -f cluster.json --scenario examples/zone-failure.yaml --timeline timeline.jsonl --report report.json

  # Shorthand: the nodes of zone us-east-1a fail at 60s; the clock stops at 1h
  kplace simulate -f cluster.json --fail-nodes topology.kubernetes.io/zone=us-east-1a --at 60s --until 1h

  # Drain the gpu pool (a label selector) and keep the final state
  kplace simulate -f cluster.json --drain 'pool in (gpu)' -o state.json`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	input := addInputFlags(fs, "input file or directory, as for place, or one snapshot")
	scenarioFile := fs.String("scenario", "", "the scenario: YAML with kind: Scenario and steps: (see docs/scenarios.md)")
	timeline := fs.String("timeline", "", "timeline file: JSON lines in time order (t, event, pod, node, reason)")
	out := fs.StringP("output", "o", "", "the final state as a cluster: a kplace snapshot when the name ends in .arrow, else\n"+
		"a kubectl-style JSON List (.gz, .zst compressed by suffix); place and simulate read it back")
	report := fs.String("report", "", "JSON report: step by step, capacity lost and added, pods displaced, placed again, pending")
	html := fs.String("html", "", "HTML report: one self-contained page with charts (utilisation per zone and pool at the start and\n"+
		"the end, pending pods, preemptions, spread skew); see docs/report.md")
	placements := fs.String("placements", "", "the scheduler's Bindings and Evictions of the run that replay on --placements-state, in commit order")
	placementsState := fs.String("placements-state", "", "the final state with the run's placements undone (pods the scheduler bound pending again,\n"+
		"pods it preempted back), for: oracle validate -in STATE -result PLACEMENTS")
	at := fs.Duration("at", 0, "when the shorthand steps below happen (instead of --scenario)")
	failNodes := fs.String("fail-nodes", "", "shorthand: failNodes on these nodes (a node name or a label selector)")
	drainNodes := fs.String("drain", "", "shorthand: drain these nodes")
	cordonNodes := fs.String("cordon", "", "shorthand: cordon these nodes")
	removeNodes := fs.String("remove-nodes", "", "shorthand: removeNodes on these nodes")
	taintNodes := fs.String("taint-nodes", "", "shorthand: taint these nodes with --taint")
	taints := fs.StringArray("taint", nil, "shorthand: a taint to add, KEY[=VALUE]:EFFECT, or to remove, KEY[:EFFECT]- (repeatable)")
	until := fs.Duration("until", 0, "end the run at this virtual time (default: when nothing is left to happen)")
	solveFlags := addSolveFlags(fs)
	lc := nodelifecycle.DefaultConfig()
	fs.DurationVar(&lc.MonitorPeriod, "node-monitor-period", lc.MonitorPeriod, "node lifecycle controller: how often it checks node health (kube-controller-manager's default)")
	fs.DurationVar(&lc.MonitorGracePeriod, "node-monitor-grace-period", lc.MonitorGracePeriod, "node lifecycle controller: how long a node may go without a heartbeat before Ready=Unknown")
	fs.Float32Var(&lc.EvictionRate, "node-eviction-rate", lc.EvictionRate, "node lifecycle controller: nodes per second tainted NoExecute in a healthy (or fully disrupted) zone")
	fs.Float32Var(&lc.SecondaryEvictionRate, "secondary-node-eviction-rate", lc.SecondaryEvictionRate, "node lifecycle controller: the rate in a partially disrupted zone larger than --large-cluster-size-threshold")
	fs.Int32Var(&lc.LargeClusterSizeThreshold, "large-cluster-size-threshold", lc.LargeClusterSizeThreshold, "node lifecycle controller: a partially disrupted zone of at most this many nodes is not tainted at all")
	fs.Float32Var(&lc.UnhealthyZoneThreshold, "unhealthy-zone-threshold", lc.UnhealthyZoneThreshold, "node lifecycle controller: the share of not-Ready nodes (more than 2) that makes a zone partially disrupted")
	drainTimeout := fs.Duration("drain-timeout", 0, "kubectl drain --timeout for each node (0: none, kubectl's default); a drain step's timeout wins")
	expand := fs.Bool("expand", true, "start with the pods the input's Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs and\n"+
		"ReplicationControllers would create now and that the input lacks, pending at t = 0, as place adds them")
	quiet := fs.BoolP("quiet", "q", false, "no story on stderr")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	usage := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "kplace simulate: "+format+"\n", a...)
		return 2
	}
	completeSolveFlags(cmd)
	run := func() int {
		if len(*input.paths) == 0 {
			return usage("no input: give -f FILE|DIR")
		}
		for _, o := range []output{{"-o", *out}, {"--placements-state", *placementsState}} {
			if err := checkWrites(o.flag, o.path, export.FormatList, true); err != nil {
				return usage("%v", err)
			}
		}
		if err := checkWrites("--placements", *placements, export.FormatList, false); err != nil {
			return usage("%v", err)
		}
		for _, o := range []output{{"--timeline", *timeline}, {"--report", *report}, {"--html", *html}, {"--cpuprofile", *cpuprofile}} {
			if err := checkOutputPath(o.flag, o.path); err != nil {
				return usage("%v", err)
			}
		}
		paths, err := input.files()
		if err != nil {
			return fail(err)
		}
		// No output may overwrite another, an input or the scenario file.
		inputs := paths
		if *scenarioFile != "" {
			inputs = append(slices.Clip(paths), *scenarioFile)
		}
		if err := checkOutputs(inputs, output{"-o", *out}, output{"--placements-state", *placementsState}, output{"--placements", *placements},
			output{"--timeline", *timeline}, output{"--report", *report}, output{"--html", *html}, output{"--cpuprofile", *cpuprofile}); err != nil {
			return usage("%v", err)
		}
		if *drainTimeout < 0 {
			return usage("--drain-timeout %v: must not be negative (0: none)", *drainTimeout)
		}
		solve, err := solveFlags.config()
		if err != nil {
			return usage("%v", err)
		}
		if lc.MonitorPeriod <= 0 || lc.MonitorGracePeriod < 0 || lc.EvictionRate < 0 || lc.SecondaryEvictionRate < 0 || lc.UnhealthyZoneThreshold < 0 {
			return usage("node lifecycle settings must not be negative (and --node-monitor-period must be positive)")
		}
		cfg := simulateConfig{paths: paths, admission: *solveFlags.admission, admissionSet: fs.Changed("admission-defaults"),
			timeline: *timeline, state: *out, report: *report, placements: *placements, placementsState: *placementsState, quiet: *quiet, expand: *expand,
			engine: scenario.Config{Solve: solve, Lifecycle: lc, DrainTimeout: *drainTimeout}, warnings: solveFlags.warnings, html: *html}
		shorthand := map[string]string{scenario.ActFailNodes: *failNodes, scenario.ActDrain: *drainNodes, scenario.ActCordon: *cordonNodes,
			scenario.ActRemoveNodes: *removeNodes, scenario.ActTaint: *taintNodes}
		var short []string
		for _, act := range []string{scenario.ActFailNodes, scenario.ActDrain, scenario.ActCordon, scenario.ActRemoveNodes, scenario.ActTaint} {
			if shorthand[act] != "" {
				short = append(short, act)
			}
		}
		switch {
		case *scenarioFile != "" && len(short) > 0:
			return usage("--scenario and the shorthand step flags are exclusive")
		case *scenarioFile != "":
			if cfg.sc, err = scenario.Load(*scenarioFile); err != nil {
				return usage("%v", err)
			}
		case len(short) > 0:
			if cfg.sc, err = shorthandScenario(short, shorthand, *taints, *at); err != nil {
				return usage("%v", err)
			}
		default:
			return usage("no scenario: give --scenario FILE or a shorthand step (--fail-nodes, --drain, --cordon, --remove-nodes, --taint-nodes)")
		}
		if *until < 0 {
			return usage("--until %v: must not be negative", *until)
		}
		if *until > 0 {
			cfg.sc.Until = *until
		}
		if u := cfg.sc.Until; u > 0 {
			for _, st := range cfg.sc.Steps {
				if st.At > u {
					return usage("a step at %v comes after the end (until %v): it would never run", st.At, u)
				}
			}
		}
		stop, err := cpuProfile(*cpuprofile)
		if err != nil {
			return fail(err)
		}
		defer stop()
		rep, err := simulate(cfg)
		if err != nil {
			return fail(err)
		}
		if !cfg.quiet {
			printStory(os.Stderr, rep, cfg.sc)
		}
		return 0
	}
	cmd.RunE = func(*cobra.Command, []string) error { return codeErr(run()) }
	return cmd
}

// cpuProfile starts a CPU profile into path ("": none); stop ends it.
func cpuProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	pf, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		pf.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); pf.Close() }, nil
}

// shorthandScenario makes the scenario of the shorthand flags: one step
// each, at the same time, in a fixed order.
func shorthandScenario(acts []string, nodes map[string]string, taints []string, at time.Duration) (*scenario.Scenario, error) {
	var b strings.Builder
	b.WriteString("kind: Scenario\nsteps:\n")
	for _, act := range acts {
		fmt.Fprintf(&b, "- at: %q\n  %s:\n    nodes: %q\n", at.String(), act, nodes[act])
		if act != scenario.ActTaint {
			continue
		}
		if len(taints) == 0 {
			return nil, errors.New("--taint-nodes needs --taint")
		}
		var add, remove []string
		for _, t := range taints {
			if k, ok := strings.CutSuffix(t, "-"); ok {
				key, effect, _ := strings.Cut(k, ":")
				remove = append(remove, fmt.Sprintf("{key: %q, effect: %q}", key, effect))
				continue
			}
			kv, effect, ok := strings.Cut(t, ":")
			if !ok {
				return nil, fmt.Errorf("--taint %q: want KEY[=VALUE]:EFFECT or KEY[:EFFECT]-", t)
			}
			key, value, _ := strings.Cut(kv, "=")
			add = append(add, fmt.Sprintf("{key: %q, value: %q, effect: %q}", key, value, effect))
		}
		fmt.Fprintf(&b, "    add: [%s]\n    remove: [%s]\n", strings.Join(add, ", "), strings.Join(remove, ", "))
	}
	return scenario.Parse("command line", []byte(b.String()))
}

// simulate loads the cluster, runs the scenario and writes the outputs.
func simulate(cfg simulateConfig) (*scenario.Report, error) {
	t0 := time.Now()
	in, info, err := loadInput(cfg.paths, ingest.Options{AdmissionDefaults: cfg.admission, AdmissionDefaultsSet: cfg.admissionSet})
	if err != nil {
		return nil, err
	}
	cfg.engine.Admission = info.AdmissionDefaults
	tLoaded := time.Now()
	exp := &ingest.Expansion{}
	if cfg.expand {
		if exp, err = ingest.Expand(in, ingest.ExpandOptions{Seed: cfg.engine.Solve.Seed, AdmissionDefaults: info.AdmissionDefaults}); err != nil {
			return nil, err
		}
	}
	e, err := scenario.New(in, cfg.sc, cfg.engine)
	if err != nil {
		return nil, err
	}
	var before htmlreport.Usage
	if cfg.html != "" {
		before = htmlreport.Measure(e.Cluster())
	}
	t1 := time.Now()
	var t2 time.Time
	run := func(w io.Writer) error {
		err := e.Run(w)
		t2 = time.Now()
		return err
	}
	if cfg.timeline != "" {
		err = export.WriteFileAtomic(cfg.timeline, run)
	} else {
		err = run(nil)
	}
	if err != nil {
		return nil, err
	}
	if cfg.state != "" {
		if err := writeState(cfg.state, e.State(), info.AdmissionDefaults); err != nil {
			return nil, err
		}
	}
	if cfg.placements != "" || cfg.placementsState != "" {
		state, c, res := e.Replay()
		if cfg.placementsState != "" {
			if err := writeState(cfg.placementsState, state, info.AdmissionDefaults); err != nil {
				return nil, err
			}
		}
		if cfg.placements != "" {
			err := writeCompressed(cfg.placements, func(w io.Writer) error { return export.WriteCommits(w, c, res, export.FormatList) })
			if err != nil {
				return nil, fmt.Errorf("write %s: %w", cfg.placements, err)
			}
		}
	}
	rep := e.Report()
	rep.Warnings = append(slices.Clip(exp.Warnings), rep.Warnings...)
	rep.Warnings = append(rep.Warnings, cfg.warnings...)
	t3 := time.Now()
	rep.Timings.Load, rep.Timings.Setup, rep.Timings.Simulate = ms(tLoaded.Sub(t0)), ms(t1.Sub(tLoaded)), ms(t2.Sub(t1))
	rep.Timings.Write, rep.Timings.Total = ms(t3.Sub(t2)), ms(t3.Sub(t0))
	if cfg.report != "" {
		err := export.WriteFileAtomic(cfg.report, func(w io.Writer) error { return writeJSON(w, rep) })
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", cfg.report, err)
		}
	}
	if cfg.html != "" {
		_, c, res := e.Replay()
		title := "kplace simulate"
		if cfg.sc.File != "" {
			title += ": " + filepath.Base(cfg.sc.File)
		}
		page := htmlreport.BuildScenario(title, before, c, res, rep)
		if err := export.WriteFileAtomic(cfg.html, page.Write); err != nil {
			return nil, fmt.Errorf("write %s: %w", cfg.html, err)
		}
	}
	return rep, nil
}

// writeState writes a cluster: a snapshot for .arrow, else a JSON List
// (compressed by suffix).
func writeState(path string, in *index.Input, admission bool) error {
	err := export.WriteFileAtomic(path, func(w io.Writer) error {
		if strings.HasSuffix(path, ".arrow") {
			return ingest.WriteSnapshot(w, in, ingest.SnapshotOptions{AdmissionDefaults: admission})
		}
		cw, closeFn, err := compressTo(w, path)
		if err != nil {
			return err
		}
		if err := export.WriteCluster(cw, in); err != nil {
			return err
		}
		return closeFn()
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// printStory writes the one-screen story of a run.
func printStory(w io.Writer, r *scenario.Report, sc *scenario.Scenario) {
	src := sc.File
	fmt.Fprintf(w, "kplace simulate: %d nodes, %d pods (%d pending); %s: %d step(s), %s of virtual time\n",
		r.Nodes, r.Pods, r.PendingAtStart, src, len(r.Steps), virtual(r.EndS))
	for _, s := range r.Steps {
		fmt.Fprintf(w, "  [%d] %-9s %s  (%d node(s))\n", s.Index, virtual(s.AtS), truncate(s.Description, 90), s.Nodes)
		if len(s.CapacityLost) > 0 || len(s.CapacityAdded) > 0 {
			fmt.Fprintf(w, "      capacity: %s\n", capacityText(s.CapacityLost, s.CapacityAdded))
		}
		if s.Displaced > 0 || s.Created > 0 {
			var by []string
			for _, k := range slices.Sorted(maps.Keys(s.DisplacedBy)) {
				by = append(by, fmt.Sprintf("%s %d", k, s.DisplacedBy[k]))
			}
			line := fmt.Sprintf("displaced %d (%s), placed again %d, not replaced %d", s.Displaced, strings.Join(by, ", "), s.Replaced, s.Lost)
			if s.Created > 0 {
				line += fmt.Sprintf("; created %d, placed %d", s.Created, s.Placed)
			}
			fmt.Fprintf(w, "      %s\n", line)
			when := "never"
			if v, ok := s.TimeToReplace.(float64); ok {
				when = "after " + virtual(v)
			}
			if s.Displaced > 0 {
				fmt.Fprintf(w, "      all placed again: %s; pending now %d (peak %d at %s)\n", when, s.Pending, s.PeakPending, virtual(s.PeakPendingAt))
			}
		}
		if s.EvictionRefusals > 0 {
			fmt.Fprintf(w, "      evictions refused (PodDisruptionBudgets): %d\n", s.EvictionRefusals)
		}
		if len(s.Drain) > 0 {
			kinds := map[string]int{}
			for _, d := range s.Drain {
				kinds[strings.SplitN(d.Result, ":", 2)[0]]++
			}
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(kinds)) {
				parts = append(parts, fmt.Sprintf("%d %s", kinds[k], k))
			}
			fmt.Fprintf(w, "      drain of %d node(s): %s\n", len(s.Drain), strings.Join(parts, ", "))
		}
		shown := 0
		for _, d := range s.Drain {
			if d.Result == "drained" || strings.HasPrefix(d.Result, "not reached") {
				continue
			}
			if shown == 3 {
				fmt.Fprintln(w, "      ... (see the report)")
				break
			}
			shown++
			fmt.Fprintf(w, "      drain %s: %s (%s .. %s, %d evicted, %d refusals)\n", d.Node, truncate(d.Result, 100), virtual(d.StartedS), virtual(d.FinishedS), d.Evicted, d.Blocked)
		}
	}
	fmt.Fprintf(w, "  total: displaced %d, placed again %d, placed %d, pending %d (peak %d at %s); %d scheduler runs, %d events\n",
		r.Displaced, r.Replaced, r.Placed, r.Pending, r.PeakPending, virtual(r.PeakPendingAt), r.SchedulerRuns, r.Events)
	reasons := map[string]int{}
	for _, p := range r.PendingPods {
		reasons[p.Reason]++
	}
	if top := scenario.TopReasons(reasons, 3); len(top) > 0 {
		fmt.Fprintln(w, "  pending reasons (most frequent):")
		for _, rc := range top {
			fmt.Fprintf(w, "    %7d  %s\n", rc.Pods, rc.Reason)
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	t := r.Timings
	fmt.Fprintf(w, "  time: load %.0fms, set up %.0fms, simulate %.0fms (scheduler %.0fms), write %.0fms\n", t.Load, t.Setup, t.Simulate, t.Scheduler, t.Write)
}

// virtual writes seconds of virtual time.
func virtual(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(time.Millisecond).String()
}

func capacityText(lost, added map[string]int64) string {
	part := func(m map[string]int64) string {
		var out []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			v := m[k]
			switch k {
			case "ephemeral-storage":
			case "cpu":
				out = append(out, fmt.Sprintf("%g cpu", float64(v)/1000))
			case "memory":
				out = append(out, fmt.Sprintf("%.1fGi memory", float64(v)/(1<<30)))
			default:
				if v != 0 { // nodes list resources they have none of (hugepages: 0)
					out = append(out, fmt.Sprintf("%d %s", v, k))
				}
			}
		}
		return strings.Join(out, ", ")
	}
	var s []string
	if len(lost) > 0 {
		s = append(s, "lost "+part(lost))
	}
	if len(added) > 0 {
		s = append(s, "added "+part(added))
	}
	return strings.Join(s, "; ")
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
