package ingest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
)

func podsByName(in *index.Input) map[string]index.Pod {
	m := map[string]index.Pod{}
	for _, p := range in.Pods {
		m[p.Name] = p
	}
	return m
}

const classes = `
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: gold}
value: 1000
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: default-high}
value: 50
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: default-low}
value: 20
globalDefault: true
preemptionPolicy: Never
---
`

func TestPriorityResolution(t *testing.T) {
	in, err := loadYAML(t, classes+`
kind: Pod
apiVersion: v1
metadata: {name: named}
spec: {priorityClassName: gold, containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: unnamed}
spec: {containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: builtin}
spec: {priorityClassName: system-cluster-critical, containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: carries}
spec: {priority: 7, priorityClassName: gold, containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: carries-policy}
spec: {priority: 7, preemptionPolicy: PreemptLowerPriority, priorityClassName: gold, containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: unknown}
spec: {priorityClassName: nope, containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: unknown-bound, namespace: elsewhere}
spec: {nodeName: node1, priorityClassName: nope, containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: unknown-bound-carries}
spec: {nodeName: node1, priority: 3, priorityClassName: nope, containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: unknown-only-ns, namespace: ghost-ns}
spec: {priorityClassName: nope, containers: [{name: c}]}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pods := podsByName(in)
	f := func(name string, prio int32, class, policy, rejected string) {
		t.Helper()
		p, ok := pods[name]
		if !ok {
			t.Errorf("%s missing", name)
			return
		}
		if p.Priority != prio || p.PriorityClassName != class || p.PreemptionPolicy != policy || p.Rejected != rejected {
			t.Errorf("%s: priority %d class %q policy %q rejected %q; want %d %q %q %q",
				name, p.Priority, p.PriorityClassName, p.PreemptionPolicy, p.Rejected, prio, class, policy, rejected)
		}
	}
	f("named", 1000, "gold", "Never", "")
	// Several global defaults: the lowest value wins (as the plugin picks).
	f("unnamed", 20, "default-low", "Never", "")
	f("builtin", 2000000000, "system-cluster-critical", "PreemptLowerPriority", "")
	// A pod carrying a priority keeps it; a missing policy comes from the class.
	f("carries", 7, "gold", "Never", "")
	f("carries-policy", 7, "gold", "PreemptLowerPriority", "")
	f("unknown", 0, "nope", "PreemptLowerPriority", `pods "unknown" is forbidden: no PriorityClass with name nope was found`)
	f("unknown-bound", 0, "nope", "PreemptLowerPriority", "")
	f("unknown-bound-carries", 3, "nope", "PreemptLowerPriority", "")

	// Built-in classes are listed after the input's.
	var names []string
	for _, pc := range in.PriorityClasses {
		names = append(names, pc.Name)
	}
	if got := strings.Join(names, ","); got != "gold,default-high,default-low,system-node-critical,system-cluster-critical" {
		t.Errorf("classes %s", got)
	}
	// Namespaces of admitted pods exist; a rejected pod's does not.
	var nss []string
	for _, ns := range in.Namespaces {
		nss = append(nss, ns.Name)
	}
	if got := strings.Join(nss, ","); got != "default,elsewhere" {
		t.Errorf("namespaces %s", got)
	}
}

func TestBuiltinClassOverride(t *testing.T) {
	in, err := loadYAML(t, `
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-node-critical}
value: 2000001000
description: exported from the cluster
---
kind: Pod
apiVersion: v1
metadata: {name: p}
spec: {priorityClassName: system-node-critical, containers: [{name: c}]}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.PriorityClasses) != 2 || in.Pods[0].Priority != 2000001000 {
		t.Errorf("classes %+v, pod priority %d", in.PriorityClasses, in.Pods[0].Priority)
	}
}

func TestDefaultTolerations(t *testing.T) {
	text := `
kind: Pod
apiVersion: v1
metadata: {name: none}
spec: {containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: has-not-ready}
spec:
  containers: [{name: c}]
  tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 10}]
---
kind: Pod
apiVersion: v1
metadata: {name: tolerates-all}
spec:
  containers: [{name: c}]
  tolerations: [{operator: Exists}]
---
kind: Pod
apiVersion: v1
metadata: {name: empty-key-noexecute}
spec:
  containers: [{name: c}]
  tolerations: [{operator: Exists, effect: NoExecute}]
---
kind: Pod
apiVersion: v1
metadata: {name: wrong-effect}
spec:
  containers: [{name: c}]
  tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoSchedule}]
---
kind: Pod
apiVersion: v1
metadata: {name: bound}
spec: {nodeName: node1, containers: [{name: c}]}
`
	summary := func(p index.Pod) string {
		var parts []string
		for _, t := range p.Tolerations {
			s := t.Key + ":" + t.Operator + ":" + t.Effect
			if t.TolerationSeconds != nil {
				s += ":" + strconv.FormatInt(*t.TolerationSeconds, 10)
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " ")
	}
	const nr = "node.kubernetes.io/not-ready:Exists:NoExecute:300"
	const un = "node.kubernetes.io/unreachable:Exists:NoExecute:300"
	want := map[string]string{
		"none":                nr + " " + un,
		"has-not-ready":       "node.kubernetes.io/not-ready:Exists:NoExecute:10 " + un,
		"tolerates-all":       ":Exists:",
		"empty-key-noexecute": ":Exists:NoExecute",
		"wrong-effect":        "node.kubernetes.io/unreachable:Exists:NoSchedule " + nr + " " + un,
		"bound":               "",
	}
	in, err := loadYAML(t, text, Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range podsByName(in) {
		if got := summary(p); got != want[name] {
			t.Errorf("%s: tolerations %q, want %q", name, got, want[name])
		}
	}
	// Without admission defaults nothing is added.
	in, err = loadYAML(t, text, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range podsByName(in) {
		if got := summary(p); strings.Contains(got, ":300") {
			t.Errorf("%s: default tolerations added without AdmissionDefaults: %q", name, got)
		}
	}
}

func TestSkippedAndDropped(t *testing.T) {
	in, err := loadYAML(t, `
kind: Pod
apiVersion: v1
metadata: {name: foreign}
spec: {schedulerName: other, containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: foreign-bound}
spec: {schedulerName: other, nodeName: node1, containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: failed}
spec: {containers: [{name: c}]}
status: {phase: Failed}
---
kind: Secret
apiVersion: v1
metadata: {name: s}
---
kind: CronJob
apiVersion: batch/v1
metadata: {name: d}
---
kind: Binding
metadata: {name: b}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Pods) != 1 || in.Pods[0].Name != "foreign-bound" {
		t.Errorf("pods %+v", in.Pods)
	}
	if in.OtherScheduler != 1 || in.FinishedPods != 1 {
		t.Errorf("other %d finished %d", in.OtherScheduler, in.FinishedPods)
	}
	if got := in.SkippedKinds; len(got) != 3 || got["v1 Secret"] != 1 || got["batch/v1 CronJob"] != 1 || got["Binding"] != 1 {
		t.Errorf("skipped %v", got)
	}
}

func TestUIDs(t *testing.T) {
	in, err := loadYAML(t, `
kind: Pod
apiVersion: v1
metadata: {name: a, uid: same}
spec: {containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: b, uid: same}
spec: {containers: [{name: c}]}
---
kind: Pod
apiVersion: v1
metadata: {name: c, namespace: batch}
spec: {containers: [{name: c}]}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A pod keeps the uid the input gives it, even one an earlier pod
	// repeats (a binder's uid precondition then tells which one is real),
	// and a pod without one gets none: kplace makes no uid up.
	pods := podsByName(in)
	for name, want := range map[string]string{"a": "same", "b": "same", "c": ""} {
		if got := pods[name].UID; got != want {
			t.Errorf("%s: uid %q, want %q", name, got, want)
		}
	}
}
