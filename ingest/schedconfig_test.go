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
