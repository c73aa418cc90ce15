package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
)

// Configuration files the table refers to by name.
var files = map[string]string{
	// Sets all three: MostAllocated, a zone constraint of its own, and
	// InterPodAffinity's arguments; and one setting kplace ignores.
	"full.yaml": `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 2
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 7
      ignorePreferredTermsOfExistingPods: true
  - name: NodeAffinity
    args:
      addedAffinity: {}
`,
	// Sets the strategy only: the default spread is not the file's.
	"least.yaml": `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: LeastAllocated
`,
	// Asks for the built-in default constraints (defaultingType System).
	"system.yaml": `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: System
`,
	// A --default-spread file: one hostname constraint.
	"host.yaml": `- maxSkew: 4
  topologyKey: kubernetes.io/hostname
  whenUnsatisfiable: ScheduleAnyway
`,
	"bad.yaml": "profiles: [",
}

// TestApply: each setting's source under every combination of given,
// left at its default, and set by the configuration file.
func TestApply(t *testing.T) {
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := func(name string) string {
		if name == "" {
			return ""
		}
		return filepath.Join(dir, name)
	}
	zone2 := []index.SpreadConstraint{{MaxSkew: 2, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: "DoNotSchedule"}}
	host4 := []index.SpreadConstraint{{MaxSkew: 4, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: "ScheduleAnyway"}}
	builtin := solver.BuiltinDefaultSpread()
	w7 := int32(7)
	type want struct {
		strategy        solver.Strategy
		spread          []index.SpreadConstraint
		system          bool
		weight          *int32
		ignorePreferred bool
		ignored         int    // settings not applied
		err             string // a substring of the error; "" for none
	}
	for _, tc := range []struct {
		name                   string
		config                 string // a file of files, or ""
		strategy, spread       string
		strategySet, spreadSet bool
		want                   want
	}{
		{name: "defaults", strategy: "least-allocated", spread: "builtin",
			want: want{strategy: solver.LeastAllocated, spread: builtin, system: true}},
		{name: "flags only", strategy: "most-allocated", strategySet: true, spread: "none", spreadSet: true,
			want: want{strategy: solver.MostAllocated}},
		{name: "default-spread file", strategy: "least-allocated", spread: "host.yaml", spreadSet: true,
			want: want{strategy: solver.LeastAllocated, spread: host4}},
		{name: "config wins over defaults", config: "full.yaml", strategy: "least-allocated", spread: "builtin",
			want: want{strategy: solver.MostAllocated, spread: zone2, weight: &w7, ignorePreferred: true, ignored: 1}},
		{name: "explicit strategy wins over config", config: "full.yaml", strategy: "least-allocated", strategySet: true, spread: "builtin",
			want: want{strategy: solver.LeastAllocated, spread: zone2, weight: &w7, ignorePreferred: true, ignored: 1}},
		{name: "explicit spread wins over config", config: "full.yaml", strategy: "least-allocated", spread: "none", spreadSet: true,
			want: want{strategy: solver.MostAllocated, weight: &w7, ignorePreferred: true, ignored: 1}},
		{name: "explicit spread file wins over config", config: "full.yaml", strategy: "least-allocated", spread: "host.yaml", spreadSet: true,
			want: want{strategy: solver.MostAllocated, spread: host4, weight: &w7, ignorePreferred: true, ignored: 1}},
		{name: "config without spread leaves the default", config: "least.yaml", strategy: "most-allocated", spread: "none",
			want: want{strategy: solver.LeastAllocated}},
		{name: "config asks for the system defaults", config: "system.yaml", strategy: "most-allocated", spread: "none",
			want: want{strategy: solver.MostAllocated, spread: builtin, system: true}},
		{name: "bad config", config: "bad.yaml", strategy: "least-allocated", spread: "builtin",
			want: want{err: "--scheduler-config: "}},
		{name: "missing default-spread file", strategy: "least-allocated", spread: "absent.yaml", spreadSet: true,
			want: want{err: "--default-spread: "}},
		{name: "unknown strategy", strategy: "packed", strategySet: true, spread: "builtin",
			want: want{err: `unknown --strategy "packed"`}},
		{name: "config's ignored settings come with a later error", config: "full.yaml", strategy: "packed", strategySet: true, spread: "builtin",
			want: want{err: `unknown --strategy "packed"`, ignored: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spread := tc.spread
			if _, ok := files[spread]; ok || strings.HasSuffix(spread, ".yaml") {
				spread = path(spread)
			}
			var cfg solver.Config
			ignored, err := Apply(&cfg, Settings{
				SchedulerConfig: path(tc.config),
				Strategy:        tc.strategy, StrategySet: tc.strategySet,
				DefaultSpread: spread, DefaultSpreadSet: tc.spreadSet,
			})
			if len(ignored) != tc.want.ignored {
				t.Errorf("ignored = %q, want %d settings", ignored, tc.want.ignored)
			}
			if tc.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.want.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := want{strategy: cfg.Strategy, spread: cfg.DefaultSpread, system: cfg.SystemDefaultSpread,
				weight: cfg.HardPodAffinityWeight, ignorePreferred: cfg.IgnorePreferredTermsOfExistingPods, ignored: len(ignored)}
			if got.strategy != tc.want.strategy || got.system != tc.want.system || got.ignorePreferred != tc.want.ignorePreferred {
				t.Errorf("strategy, system, ignorePreferred = %v, %v, %v; want %v, %v, %v",
					got.strategy, got.system, got.ignorePreferred, tc.want.strategy, tc.want.system, tc.want.ignorePreferred)
			}
			if (got.weight == nil) != (tc.want.weight == nil) || got.weight != nil && *got.weight != *tc.want.weight {
				t.Errorf("HardPodAffinityWeight = %v, want %v", got.weight, tc.want.weight)
			}
			if !spreadEqual(got.spread, tc.want.spread) {
				t.Errorf("DefaultSpread = %+v, want %+v", got.spread, tc.want.spread)
			}
		})
	}
}

// spreadEqual compares the fields the files set.
func spreadEqual(a, b []index.SpreadConstraint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].MaxSkew != b[i].MaxSkew || a[i].TopologyKey != b[i].TopologyKey || a[i].WhenUnsatisfiable != b[i].WhenUnsatisfiable {
			return false
		}
	}
	return true
}
