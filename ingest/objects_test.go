package ingest

import (
	"testing"

	"github.com/kplace/kplace/index"
)

func TestLoadMore(t *testing.T) {
	known := []index.PriorityClass{{Name: "high", Value: 1000, PreemptionPolicy: index.PreemptNever}}
	data := []byte(`
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 5
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: web}
spec: {priorityClassName: high, containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: web}
spec: {priorityClassName: low, containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: c, namespace: web}
spec: {priorityClassName: nope, containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: pinned, namespace: web}
spec: {nodeName: n1, containers: [{name: c, image: x}]}
`)
	in, err := LoadMore(nil, "apply.yaml", data, known, Options{AdmissionDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.PriorityClasses) != 1 || in.PriorityClasses[0].Name != "low" {
		t.Errorf("classes %+v, want only the new one", in.PriorityClasses)
	}
	got := map[string]index.Pod{}
	for _, p := range in.Pods {
		got[p.Name] = p
	}
	if a := got["a"]; a.Priority != 1000 || a.PreemptionPolicy != index.PreemptNever || len(a.Tolerations) != 2 {
		t.Errorf("pod a (a known class): priority %d, policy %s, %d tolerations", a.Priority, a.PreemptionPolicy, len(a.Tolerations))
	}
	if b := got["b"]; b.Priority != 5 {
		t.Errorf("pod b (a class of the same file): priority %d", b.Priority)
	}
	if c := got["c"]; c.Rejected == "" {
		t.Error("pod c names no class: it must be rejected")
	}
	// Created now, so admitted as any pod is: a bound one gets the
	// DefaultTolerationSeconds tolerations too (an exported one would not).
	if p := got["pinned"]; len(p.Tolerations) != 2 {
		t.Errorf("pod pinned (created bound): %d tolerations, want the 2 defaults", len(p.Tolerations))
	}
	if _, err := LoadMore(nil, "bad.yaml", []byte("kind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, resources: {requests: {cpu: lots}}}]}\n"), nil, Options{}); err == nil {
		t.Error("a bad quantity must be an error")
	}
}
