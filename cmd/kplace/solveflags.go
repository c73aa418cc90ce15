package main

import (
	"github.com/kplace/kplace/profile"
	"github.com/kplace/kplace/solver"
	"github.com/spf13/pflag"
)

// solveFlags are the scheduler's flags, the same for place and simulate.
type solveFlags struct {
	fs                                   *pflag.FlagSet
	strategy, defaultSpread, schedConfig *string
	seed                                 *uint64
	admission, preempt, crossNode        *bool
	// warnings are the settings of --scheduler-config not applied (set
	// by config), for the report.
	warnings []string
}

// addSolveFlags defines the scheduler's flags on fs.
func addSolveFlags(fs *pflag.FlagSet) *solveFlags {
	f := &solveFlags{fs: fs}
	f.strategy = fs.String("strategy", "least-allocated", "NodeResourcesFit scoring: least-allocated (spread) or most-allocated (bin packing);\n"+
		"KubeSchedulerConfiguration's LeastAllocated and MostAllocated are accepted")
	f.seed = fs.Uint64("seed", 1, "seed for deterministic tie-breaking between equally scored nodes")
	f.admission = fs.Bool("admission-defaults", true, "add the DefaultTolerationSeconds tolerations (not-ready, unreachable: 300s) to pending pods, as the API server does (a snapshot keeps the value it was converted with)")
	f.preempt = fs.Bool("preemption", true, "let a pod that fits nowhere evict lower-priority pods (kube-scheduler's DefaultPreemption); Evictions precede its Binding in the result")
	f.crossNode = fs.Bool("cross-node-preemption", false, "beyond kube-scheduler: a pod blocked on a node only by a required anti-affinity (its own or an\n"+
		"existing pod's) or a DoNotSchedule spread skew may evict lower-priority pods on other nodes of that\n"+
		"constraint's topology domain (zone, hostname, ...), when that is cheaper by kube-scheduler's candidate order")
	f.defaultSpread = fs.String("default-spread", "builtin", "cluster default topology spread constraints for pods with none of their own that a Service,\n"+
		"ReplicaSet, StatefulSet or ReplicationController selects: builtin (kube-scheduler's: hostname maxSkew 3 and zone\n"+
		"maxSkew 5, ScheduleAnyway), none, or FILE (a KubeSchedulerConfiguration, PodTopologySpreadArgs or a list);\n"+
		"PodTopologySpreadArgs' defaultingType spellings System (builtin) and List (none: an empty list) are accepted")
	f.schedConfig = fs.String("scheduler-config", "", "a KubeSchedulerConfiguration to take plugin arguments from (profile default-scheduler, else the\n"+
		"first): PodTopologySpread's default constraints, InterPodAffinity's hardPodAffinityWeight and\n"+
		"ignorePreferredTermsOfExistingPods, NodeResourcesFit's scoringStrategy type; --default-spread and\n"+
		"--strategy, when given, win. Other settings (plugin sets, weights, other plugins) are not applied: a warning names them")
	return f
}

// config makes the scheduler's configuration from the flags; an error is
// a usage error. Settings of --scheduler-config that are not applied get
// a warning in f.warnings (the commands' reports and summaries show them).
func (f *solveFlags) config() (solver.Config, error) {
	fs := f.fs
	var cfg solver.Config
	cfg.Seed = *f.seed
	cfg.NoPreemption = !*f.preempt
	cfg.CrossNodePreemption = *f.crossNode
	ignored, err := profile.Apply(&cfg, profile.Settings{
		SchedulerConfig: *f.schedConfig,
		Strategy:        *f.strategy, StrategySet: fs.Changed("strategy"),
		DefaultSpread: *f.defaultSpread, DefaultSpreadSet: fs.Changed("default-spread"),
	})
	for _, what := range ignored {
		f.warnings = append(f.warnings, *f.schedConfig+": "+what)
	}
	return cfg, err
}
