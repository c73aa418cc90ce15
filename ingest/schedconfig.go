package ingest

import (
	"fmt"
	"os"

	"github.com/kplace/kplace/index"
	"sigs.k8s.io/yaml"
)

// defaultConstraint is one entry of PodTopologySpreadArgs.defaultConstraints.
type defaultConstraint struct {
	MaxSkew            int32           `json:"maxSkew"`
	TopologyKey        string          `json:"topologyKey"`
	WhenUnsatisfiable  string          `json:"whenUnsatisfiable"`
	MinDomains         *int32          `json:"minDomains"`
	NodeAffinityPolicy *string         `json:"nodeAffinityPolicy"`
	NodeTaintsPolicy   *string         `json:"nodeTaintsPolicy"`
	LabelSelector      *map[string]any `json:"labelSelector"`
	MatchLabelKeys     []string        `json:"matchLabelKeys"`
}

// spreadArgs is PodTopologySpreadArgs.
type spreadArgs struct {
	DefaultConstraints []defaultConstraint `json:"defaultConstraints"`
	DefaultingType     string              `json:"defaultingType"`
}

// ReadDefaultSpread reads cluster default topology spread constraints from
// path: a KubeSchedulerConfiguration (the PodTopologySpread args of the
// default-scheduler profile, else of the first profile that has them), a
// PodTopologySpreadArgs object, or a bare list of constraints, in YAML or
// JSON. system is true when the file asks for the built-in defaults
// (defaultingType: System with no constraints); constraints is then nil.
func ReadDefaultSpread(path string) (constraints []index.SpreadConstraint, system bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	fail := func(format string, a ...any) ([]index.SpreadConstraint, bool, error) {
		return nil, false, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, a...))
	}
	var args *spreadArgs
	var list []defaultConstraint
	if yaml.Unmarshal(data, &list) != nil {
		var doc struct {
			Kind     string `json:"kind"`
			Profiles []struct {
				SchedulerName string `json:"schedulerName"`
				PluginConfig  []struct {
					Name string     `json:"name"`
					Args spreadArgs `json:"args"`
				} `json:"pluginConfig"`
			} `json:"profiles"`
			spreadArgs
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fail("not a KubeSchedulerConfiguration, PodTopologySpreadArgs or list of constraints: %v", err)
		}
		switch doc.Kind {
		case "KubeSchedulerConfiguration":
			for _, prof := range doc.Profiles {
				for i := range prof.PluginConfig {
					pc := &prof.PluginConfig[i]
					if pc.Name != "PodTopologySpread" {
						continue
					}
					if args == nil || prof.SchedulerName == "default-scheduler" || prof.SchedulerName == "" {
						args = &pc.Args
					}
				}
			}
			if args == nil {
				return fail("no PodTopologySpread pluginConfig in any profile")
			}
		case "PodTopologySpreadArgs", "":
			args = &doc.spreadArgs
		default:
			return fail("unexpected kind %q", doc.Kind)
		}
		switch args.DefaultingType {
		case "System":
			if len(args.DefaultConstraints) > 0 {
				return fail("defaultingType System takes no defaultConstraints")
			}
			return nil, true, nil
		case "List", "":
		default:
			return fail("unknown defaultingType %q (want System or List)", args.DefaultingType)
		}
		list = args.DefaultConstraints
	}
	seen := map[[2]string]bool{}
	for i, d := range list {
		where := fmt.Sprintf("defaultConstraints[%d]", i)
		switch {
		case d.MaxSkew <= 0:
			return fail("%s: maxSkew must be greater than zero", where)
		case d.TopologyKey == "":
			return fail("%s: topologyKey is required", where)
		case d.WhenUnsatisfiable != index.DoNotSchedule && d.WhenUnsatisfiable != index.ScheduleAnyway:
			return fail("%s: whenUnsatisfiable %q (want DoNotSchedule or ScheduleAnyway)", where, d.WhenUnsatisfiable)
		case d.LabelSelector != nil:
			return fail("%s: labelSelector is not allowed: default selectors come from the pod's Services and controllers", where)
		case len(d.MatchLabelKeys) > 0:
			return fail("%s: matchLabelKeys is not allowed in default constraints", where)
		case seen[[2]string{d.TopologyKey, d.WhenUnsatisfiable}]:
			return fail("%s: duplicate topologyKey %q with whenUnsatisfiable %s", where, d.TopologyKey, d.WhenUnsatisfiable)
		}
		seen[[2]string{d.TopologyKey, d.WhenUnsatisfiable}] = true
		c := index.SpreadConstraint{MaxSkew: d.MaxSkew, TopologyKey: d.TopologyKey, WhenUnsatisfiable: d.WhenUnsatisfiable,
			MinDomains: 1, NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore}
		if d.MinDomains != nil {
			if *d.MinDomains <= 0 || d.WhenUnsatisfiable != index.DoNotSchedule {
				return fail("%s: minDomains must be positive and needs whenUnsatisfiable DoNotSchedule", where)
			}
			c.MinDomains = *d.MinDomains
		}
		for _, pol := range []struct {
			v   *string
			dst *string
		}{{d.NodeAffinityPolicy, &c.NodeAffinityPolicy}, {d.NodeTaintsPolicy, &c.NodeTaintsPolicy}} {
			if pol.v == nil {
				continue
			}
			if *pol.v != index.PolicyHonor && *pol.v != index.PolicyIgnore {
				return fail("%s: node inclusion policy %q (want Honor or Ignore)", where, *pol.v)
			}
			*pol.dst = *pol.v
		}
		constraints = append(constraints, c)
	}
	return constraints, false, nil
}
