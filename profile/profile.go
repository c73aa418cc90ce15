// Package profile resolves the scheduler profile a run solves with from
// the three settings that can each set part of it: a
// KubeSchedulerConfiguration (--scheduler-config), the NodeResourcesFit
// scoring strategy (--strategy) and the cluster default spread
// constraints (--default-spread).
//
// The precedence: a setting given explicitly wins over the configuration
// file; the configuration file wins over a setting left at its default;
// a setting neither gives takes its default (least-allocated; the
// built-in default constraints).
package profile

import (
	"errors"
	"fmt"

	"github.com/kplace/kplace/ingest"
	"github.com/kplace/kplace/solver"
)

// Settings are the three settings as given. A setting's Set field
// records whether it was given explicitly (a flag changed on the command
// line), not left at its default.
type Settings struct {
	// SchedulerConfig is the path of a KubeSchedulerConfiguration; ""
	// for none.
	SchedulerConfig string
	// Strategy is least-allocated or most-allocated.
	Strategy    string
	StrategySet bool // Strategy also takes LeastAllocated and MostAllocated
	// DefaultSpread is builtin (or System), none (or List), or the path of a file holding
	// default constraints (a KubeSchedulerConfiguration,
	// PodTopologySpreadArgs or a list).
	DefaultSpread    string
	DefaultSpreadSet bool
}

// Apply sets cfg's Strategy, DefaultSpread, SystemDefaultSpread,
// HardPodAffinityWeight and IgnorePreferredTermsOfExistingPods from s.
// It returns a phrase for each field of the configuration file it does
// not know or does not apply (for warnings), also when it returns an error after reading that file. An
// error names the setting (--scheduler-config, --default-spread,
// --strategy) and the file.
func Apply(cfg *solver.Config, s Settings) (ignored []string, err error) {
	strategy := s.Strategy
	spreadTaken := false // from the configuration file
	if s.SchedulerConfig != "" {
		sc, err := ingest.ReadSchedulerConfig(s.SchedulerConfig)
		if err != nil {
			return nil, fmt.Errorf("--scheduler-config: %w", err)
		}
		for _, field := range sc.Unknown {
			ignored = append(ignored, "unknown field "+field+" (not a KubeSchedulerConfiguration v1 field): ignored")
		}
		for _, what := range sc.Ignored {
			ignored = append(ignored, what+": not applied")
		}
		cfg.HardPodAffinityWeight = sc.HardPodAffinityWeight
		cfg.IgnorePreferredTermsOfExistingPods = sc.IgnorePreferredTermsOfExistingPods
		if !s.StrategySet {
			switch sc.Strategy {
			case "MostAllocated":
				strategy = "most-allocated"
			case "LeastAllocated":
				strategy = "least-allocated"
			}
		}
		if !s.DefaultSpreadSet && sc.SpreadSet {
			cfg.DefaultSpread, cfg.SystemDefaultSpread = sc.Spread, sc.SpreadSystem
			if sc.SpreadSystem {
				cfg.DefaultSpread = solver.BuiltinDefaultSpread()
			}
			spreadTaken = true
		}
	}
	switch {
	case spreadTaken:
	case s.DefaultSpread == "builtin" || s.DefaultSpread == "System":
		cfg.DefaultSpread, cfg.SystemDefaultSpread = solver.BuiltinDefaultSpread(), true
	case s.DefaultSpread == "none" || s.DefaultSpread == "List":
	default:
		cs, system, err := ingest.ReadDefaultSpread(s.DefaultSpread)
		if err != nil {
			return ignored, fmt.Errorf("--default-spread: %w", err)
		}
		if system {
			cs = solver.BuiltinDefaultSpread()
		}
		cfg.DefaultSpread, cfg.SystemDefaultSpread = cs, system
	}
	switch strategy {
	case "least-allocated", "LeastAllocated":
		cfg.Strategy = solver.LeastAllocated
	case "most-allocated", "MostAllocated":
		cfg.Strategy = solver.MostAllocated
	default:
		return ignored, errors.New("unknown --strategy \"" + strategy + "\" (want least-allocated or most-allocated, or LeastAllocated or MostAllocated)")
	}
	return ignored, nil
}
