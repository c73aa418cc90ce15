package ingest

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

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

// readConfig reads a configuration file within the input limits: at most
// DefaultMaxObjectSize bytes, also as the JSON its YAML aliases expand to
// (a path such as /dev/zero, or an alias bomb, is refused, not read to
// the end).
func readConfig(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, DefaultMaxObjectSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > DefaultMaxObjectSize {
		return nil, fmt.Errorf("%s: larger than %s bytes", path, FormatSize(DefaultMaxObjectSize))
	}
	if err := checkYAMLAliases(data, DefaultMaxObjectSize); err != nil {
		err.(*limitError).flag = "" // no flag raises it
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return data, nil
}

// ReadDefaultSpread reads cluster default topology spread constraints from
// path: a KubeSchedulerConfiguration (the PodTopologySpread args of the
// default-scheduler profile, else of the first profile that has them), a
// PodTopologySpreadArgs object, or a bare list of constraints, in YAML or
// JSON. system is true when the file asks for the built-in defaults
// (defaultingType: System with no constraints); constraints is then nil.
func ReadDefaultSpread(path string) (constraints []index.SpreadConstraint, system bool, err error) {
	data, err := readConfig(path)
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
		list = nil
	}
	if args != nil {
		return spreadFromArgs(args, fail)
	}
	return validateConstraints(list, fail)
}

// spreadFromArgs validates PodTopologySpreadArgs: system is true for
// defaultingType System (no constraints).
func spreadFromArgs(args *spreadArgs, fail func(string, ...any) ([]index.SpreadConstraint, bool, error)) ([]index.SpreadConstraint, bool, error) {
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
	return validateConstraints(args.DefaultConstraints, fail)
}

// validateConstraints checks default constraints as kube-scheduler's
// configuration validation does and applies their defaults.
func validateConstraints(list []defaultConstraint, fail func(string, ...any) ([]index.SpreadConstraint, bool, error)) (constraints []index.SpreadConstraint, system bool, err error) {
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

// SchedulerConfig is what kplace takes from a KubeSchedulerConfiguration:
// the plugin arguments of the profile it places for (schedulerName
// default-scheduler, or the first profile).
type SchedulerConfig struct {
	// Spread holds PodTopologySpread's default constraints when SpreadSet
	// (SpreadSystem: the built-in ones). Without a PodTopologySpread
	// pluginConfig kube-scheduler uses the built-in ones.
	Spread                  []index.SpreadConstraint
	SpreadSet, SpreadSystem bool
	// HardPodAffinityWeight and IgnorePreferredTermsOfExistingPods are
	// InterPodAffinity's arguments (nil weight: not set, default 1).
	HardPodAffinityWeight              *int32
	IgnorePreferredTermsOfExistingPods bool
	// Strategy is NodeResourcesFit's scoringStrategy.type ("" when not
	// set): LeastAllocated or MostAllocated.
	Strategy string
	// Ignored names what the file sets that kplace does not apply (other
	// plugins' arguments, plugin sets and weights), for a warning.
	Ignored []string
	// Unknown names the fields that are not KubeSchedulerConfiguration v1
	// fields (a typo, or another version's), for a warning:
	// kube-scheduler's strict decoding would refuse the file.
	Unknown []string
}

// ReadSchedulerConfig reads a KubeSchedulerConfiguration (YAML or JSON)
// and validates the arguments kplace applies as kube-scheduler does.
// Arguments it cannot apply (a scoring strategy other than LeastAllocated
// or MostAllocated, resource weights other than cpu and memory at 1) are
// errors; other plugins' settings are listed in Ignored.
func ReadSchedulerConfig(path string) (*SchedulerConfig, error) {
	data, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	fail := func(format string, a ...any) (*SchedulerConfig, error) {
		return nil, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, a...))
	}
	type resource struct {
		Name   string `json:"name"`
		Weight int64  `json:"weight"`
	}
	var doc struct {
		Kind     string `json:"kind"`
		Profiles []struct {
			SchedulerName string         `json:"schedulerName"`
			Plugins       map[string]any `json:"plugins"`
			PluginConfig  []struct {
				Name string `json:"name"`
				Args struct {
					spreadArgs
					HardPodAffinityWeight              *int32   `json:"hardPodAffinityWeight"`
					IgnorePreferredTermsOfExistingPods bool     `json:"ignorePreferredTermsOfExistingPods"`
					IgnoredResources                   []string `json:"ignoredResources"`
					IgnoredResourceGroups              []string `json:"ignoredResourceGroups"`
					ScoringStrategy                    *struct {
						Type      string     `json:"type"`
						Resources []resource `json:"resources"`
					} `json:"scoringStrategy"`
				} `json:"args"`
			} `json:"pluginConfig"`
		} `json:"profiles"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fail("not a KubeSchedulerConfiguration: %v", err)
	}
	if doc.Kind != "KubeSchedulerConfiguration" {
		return fail("kind %q, want KubeSchedulerConfiguration", doc.Kind)
	}
	var generic map[string]any
	if err := yaml.Unmarshal(data, &generic); err != nil {
		return fail("not a KubeSchedulerConfiguration: %v", err)
	}
	unknown := unknownSchedulerFields(generic)
	var ignored []string
	if _, ok := generic["percentageOfNodesToScore"]; ok {
		ignored = append(ignored, "percentageOfNodesToScore (kplace scores every feasible node)")
	}
	if _, ok := generic["extenders"]; ok {
		ignored = append(ignored, "extenders")
	}
	if len(doc.Profiles) == 0 {
		return &SchedulerConfig{Ignored: ignored, Unknown: unknown}, nil // kube-scheduler's defaults
	}
	prof := &doc.Profiles[0]
	for i := range doc.Profiles {
		if n := doc.Profiles[i].SchedulerName; n == "default-scheduler" || n == "" {
			prof = &doc.Profiles[i]
			break
		}
	}
	where := fmt.Sprintf("profile %q", prof.SchedulerName)
	out := &SchedulerConfig{Ignored: ignored, Unknown: unknown}
	if len(prof.Plugins) > 0 {
		out.Ignored = append(out.Ignored, where+": plugins (kplace runs the default plugin set and weights)")
	}
	for i := range prof.PluginConfig {
		pc := &prof.PluginConfig[i]
		at := fmt.Sprintf("%s: pluginConfig %s", where, pc.Name)
		switch pc.Name {
		case "PodTopologySpread":
			cs, system, err := spreadFromArgs(&pc.Args.spreadArgs, func(format string, a ...any) ([]index.SpreadConstraint, bool, error) {
				return nil, false, fmt.Errorf("%s: %s: %s", path, at, fmt.Sprintf(format, a...))
			})
			if err != nil {
				return nil, err
			}
			out.Spread, out.SpreadSet, out.SpreadSystem = cs, true, system
		case "InterPodAffinity":
			if w := pc.Args.HardPodAffinityWeight; w != nil {
				if *w < 0 || *w > 100 {
					return fail("%s: hardPodAffinityWeight %d not in the range [0, 100]", at, *w)
				}
				out.HardPodAffinityWeight = w
			}
			out.IgnorePreferredTermsOfExistingPods = pc.Args.IgnorePreferredTermsOfExistingPods
		case "NodeResourcesFit":
			if len(pc.Args.IgnoredResources) > 0 || len(pc.Args.IgnoredResourceGroups) > 0 {
				out.Ignored = append(out.Ignored, at+": ignoredResources and ignoredResourceGroups")
			}
			st := pc.Args.ScoringStrategy
			if st == nil {
				continue
			}
			switch st.Type {
			case "", "LeastAllocated", "MostAllocated":
				out.Strategy = st.Type
			default:
				return fail("%s: scoringStrategy %q is not supported (LeastAllocated or MostAllocated)", at, st.Type)
			}
			if len(st.Resources) > 0 {
				// kplace scores cpu and memory at weight 1, the default.
				rs := st.Resources
				ok := len(rs) == 2 && rs[0].Weight == 1 && rs[1].Weight == 1 &&
					(rs[0].Name == "cpu" && rs[1].Name == "memory" || rs[0].Name == "memory" && rs[1].Name == "cpu")
				if !ok {
					return fail("%s: scoring resources other than cpu and memory at weight 1 are not supported", at)
				}
			}
		default:
			out.Ignored = append(out.Ignored, at)
		}
	}
	return out, nil
}

// unknownSchedulerFields lists the fields of a KubeSchedulerConfiguration
// (decoded generically) that kubescheduler.config.k8s.io/v1 does not
// define: at the top, in profiles, in pluginConfig entries, and in the
// arguments of the plugins kplace reads. Paths as "profiles[0].plugin".
func unknownSchedulerFields(doc map[string]any) []string {
	var out []string
	check := func(at string, m map[string]any, known ...string) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(known, k) {
				out = append(out, at+k)
			}
		}
	}
	check("", doc, "apiVersion", "kind", "parallelism", "leaderElection", "clientConnection", "enableProfiling",
		"enableContentionProfiling", "percentageOfNodesToScore", "podInitialBackoffSeconds", "podMaxBackoffSeconds",
		"profiles", "extenders", "delayCacheUntilActive")
	profiles, _ := doc["profiles"].([]any)
	for i, p := range profiles {
		pm, _ := p.(map[string]any)
		at := fmt.Sprintf("profiles[%d].", i)
		check(at, pm, "schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig")
		pcs, _ := pm["pluginConfig"].([]any)
		for j, pc := range pcs {
			pcm, _ := pc.(map[string]any)
			at := fmt.Sprintf("%spluginConfig[%d].", at, j)
			check(at, pcm, "name", "args")
			args, _ := pcm["args"].(map[string]any)
			switch pcm["name"] {
			case "PodTopologySpread":
				check(at+"args.", args, "apiVersion", "kind", "defaultConstraints", "defaultingType")
			case "InterPodAffinity":
				check(at+"args.", args, "apiVersion", "kind", "hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods")
			case "NodeResourcesFit":
				check(at+"args.", args, "apiVersion", "kind", "ignoredResources", "ignoredResourceGroups", "scoringStrategy")
			}
		}
	}
	return out
}
