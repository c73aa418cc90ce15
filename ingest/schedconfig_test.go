package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
)

func TestReadDefaultSpread(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg := write("cfg.yaml", `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: PodTopologySpread
    args:
      defaultConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: ScheduleAnyway
      - maxSkew: 2
        topologyKey: kubernetes.io/hostname
        whenUnsatisfiable: DoNotSchedule
        minDomains: 3
        nodeTaintsPolicy: Honor
      defaultingType: List
`)
	cs, system, err := ReadDefaultSpread(cfg)
	if err != nil || system {
		t.Fatalf("err %v system %v", err, system)
	}
	want := []index.SpreadConstraint{
		{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: "ScheduleAnyway", MinDomains: 1, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Ignore"},
		{MaxSkew: 2, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: "DoNotSchedule", MinDomains: 3, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Honor"},
	}
	if len(cs) != 2 || cs[0].TopologyKey != want[0].TopologyKey || cs[1].MinDomains != 3 || cs[1].NodeTaintsPolicy != "Honor" || cs[0].MinDomains != 1 {
		t.Errorf("got %+v\nwant %+v", cs, want)
	}
	list := write("list.yaml", "- maxSkew: 4\n  topologyKey: zone\n  whenUnsatisfiable: ScheduleAnyway\n")
	if cs, _, err := ReadDefaultSpread(list); err != nil || len(cs) != 1 || cs[0].MaxSkew != 4 {
		t.Errorf("list: %+v %v", cs, err)
	}
	sys := write("sys.yaml", "kind: PodTopologySpreadArgs\ndefaultingType: System\n")
	if cs, system, err := ReadDefaultSpread(sys); err != nil || !system || cs != nil {
		t.Errorf("System: %+v %v %v", cs, system, err)
	}
	for name, body := range map[string]string{
		"skew.yaml":     "- maxSkew: 0\n  topologyKey: zone\n  whenUnsatisfiable: ScheduleAnyway\n",
		"when.yaml":     "- maxSkew: 1\n  topologyKey: zone\n  whenUnsatisfiable: Sometimes\n",
		"selector.yaml": "- maxSkew: 1\n  topologyKey: zone\n  whenUnsatisfiable: ScheduleAnyway\n  labelSelector: {matchLabels: {a: b}}\n",
		"dup.yaml":      "- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}\n- {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}\n",
		"kind.yaml":     "kind: Pod\n",
	} {
		p := write(name, body)
		if _, _, err := ReadDefaultSpread(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err %v, want an error naming the file", name, err)
		}
	}
}

func TestReadSchedulerConfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cfg.yaml")
	body := `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: other
  pluginConfig:
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 7}
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: ImageLocality}]
  pluginConfig:
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 5, ignorePreferredTermsOfExistingPods: true}
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 20}
`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := ReadSchedulerConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if sc.HardPodAffinityWeight == nil || *sc.HardPodAffinityWeight != 5 || !sc.IgnorePreferredTermsOfExistingPods {
		t.Errorf("InterPodAffinity from the default-scheduler profile: %+v", sc)
	}
	if !sc.SpreadSet || sc.SpreadSystem || len(sc.Spread) != 1 || sc.Spread[0].MaxSkew != 2 || sc.Spread[0].TopologyKey != "zone" {
		t.Errorf("spread: %+v", sc)
	}
	if sc.Strategy != "MostAllocated" {
		t.Errorf("strategy %q", sc.Strategy)
	}
	want := []string{`profile "default-scheduler": plugins (kplace runs the default plugin set and weights)`, `profile "default-scheduler": pluginConfig DefaultPreemption`}
	if strings.Join(sc.Ignored, "|") != strings.Join(want, "|") {
		t.Errorf("ignored %q\nwant %q", sc.Ignored, want)
	}
	// No profiles: kube-scheduler's defaults, nothing set.
	if err := os.WriteFile(p, []byte("kind: KubeSchedulerConfiguration\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sc, err := ReadSchedulerConfig(p); err != nil || sc.SpreadSet || sc.HardPodAffinityWeight != nil || sc.Strategy != "" {
		t.Errorf("empty: %+v %v", sc, err)
	}
	// A bad spread constraint names the profile and plugin.
	bad := "kind: KubeSchedulerConfiguration\nprofiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args: {defaultConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]}\n"
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSchedulerConfig(p); err == nil || !strings.Contains(err.Error(), "pluginConfig PodTopologySpread") || !strings.Contains(err.Error(), "maxSkew") {
		t.Errorf("bad constraint: %v", err)
	}
}

// FuzzReadSchedulerConfig: any bytes give a config or an error naming the
// file, never a panic; what it returns passes kube-scheduler's checks.
func FuzzReadSchedulerConfig(f *testing.F) {
	for _, seed := range []string{
		"kind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 5, ignorePreferredTermsOfExistingPods: true}\n",
		"kind: KubeSchedulerConfiguration\nprofiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args: {defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 2}]}\n",
		"kind: KubeSchedulerConfiguration\nprofiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]}}\n",
		`{"kind":"KubeSchedulerConfiguration","profiles":[{"plugins":{"score":{"enabled":[{"name":"X"}]}}}]}`,
		"kind: KubeSchedulerConfiguration\nprofiles: 3\n",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "cfg.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sc, err := ReadSchedulerConfig(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if w := sc.HardPodAffinityWeight; w != nil && (*w < 0 || *w > 100) {
			t.Fatalf("hardPodAffinityWeight %d accepted", *w)
		}
		if sc.Strategy != "" && sc.Strategy != "LeastAllocated" && sc.Strategy != "MostAllocated" {
			t.Fatalf("strategy %q accepted", sc.Strategy)
		}
		for _, c := range sc.Spread {
			if c.MaxSkew <= 0 || c.TopologyKey == "" || c.MinDomains < 1 {
				t.Fatalf("invalid constraint accepted: %+v", c)
			}
		}
	})
}
