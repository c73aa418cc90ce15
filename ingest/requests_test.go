package ingest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/kplace/kplace/index"
)

// loadYAML loads one YAML text.
func loadYAML(t *testing.T, text string, opts Options) (*index.Input, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load([]string{path}, opts)
}

func onePod(t *testing.T, spec string) index.Pod {
	t.Helper()
	in, err := loadYAML(t, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Pods) != 1 {
		t.Fatalf("%d pods", len(in.Pods))
	}
	return in.Pods[0]
}

func TestEffectiveRequests(t *testing.T) {
	cases := []struct {
		name                   string
		pod                    string
		want                   string // Requests as name=value,...
		scoreCPU, scoreMemory  int64
		nonZeroCPU, nonZeroMem int64
	}{
		{"sum of containers", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  containers:
  - {name: a, resources: {requests: {cpu: 100m, memory: 1Gi}}}
  - {name: b, resources: {requests: {cpu: 200m, nvidia.com/gpu: 1}}}
`, "cpu=300,memory=1073741824,nvidia.com/gpu=1", 300, 1073741824 + 200<<20, 300, 1073741824 + 200<<20},
		{"requests default to limits", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  containers:
  - {name: a, resources: {limits: {cpu: "1", memory: 1Gi}, requests: {cpu: 500m}}}
`, "cpu=500,memory=1073741824", 500, 1 << 30, 500, 1 << 30},
		{"init container larger than the app", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  initContainers:
  - {name: i, resources: {requests: {cpu: "2", memory: 10Mi}}}
  containers:
  - {name: a, resources: {requests: {cpu: 500m, memory: 1Gi}}}
`, "cpu=2000,memory=1073741824", 2000, 1 << 30, 2000, 1 << 30},
		// The sidecar KEP example: init use = sidecars before it + itself.
		{"sidecars and init containers", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  initContainers:
  - {name: s1, restartPolicy: Always, resources: {requests: {cpu: "1"}}}
  - {name: i1, resources: {requests: {cpu: "3"}}}
  - {name: s2, restartPolicy: Always, resources: {requests: {cpu: "2"}}}
  - {name: i2, resources: {requests: {cpu: "2"}}}
  containers:
  - {name: a, resources: {requests: {cpu: "1"}}}
`, "cpu=5000", 5000, 3 * 200 << 20, 5000, 3 * 200 << 20},
		{"overhead", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  overhead: {cpu: 250m, memory: 120Mi}
  containers:
  - {name: a, resources: {requests: {cpu: "1"}}}
`, "cpu=1250,memory=125829120", 1250, 320 << 20, 1250, 320 << 20},
		{"pod-level requests replace cpu and memory only", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  resources: {requests: {cpu: "2", memory: 1Gi}}
  containers:
  - {name: a, resources: {requests: {cpu: 100m, memory: 10Mi, ephemeral-storage: 1Gi}}}
`, "cpu=2000,memory=1073741824,ephemeral-storage=1073741824", 2000, 1 << 30, 2000, 1 << 30},
		// Scoring defaults each container's missing memory (200Mi), but the
		// node accounting only when the pod requests no memory at all.
		{"pod-level cpu only", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  resources: {requests: {cpu: "1"}}
  containers:
  - {name: a, resources: {requests: {memory: 10Mi}}}
  - {name: b}
`, "cpu=1000,memory=10485760", 1000, 210 << 20, 1000, 10 << 20},
		{"pod-level limits default the requests", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  resources: {limits: {cpu: "4", memory: 2Gi}}
  containers:
  - {name: a, resources: {requests: {cpu: 100m}}}
`, "cpu=100,memory=2147483648", 100, 2 << 30, 100, 2 << 30},
		{"explicit zero is not missing", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  containers:
  - {name: a, resources: {requests: {cpu: "0", memory: "0"}}}
`, "", 0, 0, 0, 0},
		{"exact sums before rounding", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  containers:
  - {name: a, resources: {requests: {memory: "0.5", cpu: 0.0001}}}
  - {name: b, resources: {requests: {memory: "0.5", cpu: 0.0001}}}
`, "cpu=2,memory=1", 2, 1, 2, 1},
		{"names the scheduler ignores", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  containers:
  - {name: a, resources: {requests: {pods: "1", foo: "3", example.com/bar: "2", hugepages-2Mi: 4Mi, requests.example.com/x: "1"}}}
`, "example.com/bar=2,hugepages-2Mi=4194304", 100, 200 << 20, 100, 200 << 20},
		// In-place resize: a bound pod counts max(spec, actuated, allocated).
		{"resize in progress", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  nodeName: node1
  containers:
  - {name: a, resources: {requests: {cpu: "1", memory: 1Gi}}}
status:
  containerStatuses:
  - {name: a, allocatedResources: {cpu: "2"}, resources: {requests: {cpu: 1500m, memory: 2Gi}}}
`, "cpu=2000,memory=2147483648", 2000, 2 << 30, 2000, 2 << 30},
		{"resize infeasible ignores spec", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  nodeName: node1
  containers:
  - {name: a, resources: {requests: {cpu: "3", memory: 1Gi}}}
status:
  conditions:
  - {type: PodResizePending, reason: Infeasible}
  containerStatuses:
  - {name: a, allocatedResources: {cpu: "1"}, resources: {requests: {cpu: "1", memory: 1Gi}}}
`, "cpu=1000,memory=1073741824", 1000, 1 << 30, 1000, 1 << 30},
		{"status ignored for pending pods", `
kind: Pod
apiVersion: v1
metadata: {name: p}
spec:
  containers:
  - {name: a, resources: {requests: {cpu: "1"}}}
status:
  containerStatuses:
  - {name: a, resources: {requests: {cpu: "5"}}}
`, "cpu=1000", 1000, 200 << 20, 1000, 200 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := onePod(t, tc.pod)
			got := ""
			for i, q := range p.Requests {
				if i > 0 {
					got += ","
				}
				got += fmt.Sprintf("%s=%d", q.Name, q.Value)
			}
			if got != tc.want {
				t.Errorf("Requests = %s, want %s", got, tc.want)
			}
			if p.ScoreCPU != tc.scoreCPU || p.ScoreMemory != tc.scoreMemory {
				t.Errorf("Score = %d, %d, want %d, %d", p.ScoreCPU, p.ScoreMemory, tc.scoreCPU, tc.scoreMemory)
			}
			if p.NonZeroCPU != tc.nonZeroCPU || p.NonZeroMemory != tc.nonZeroMem {
				t.Errorf("NonZero = %d, %d, want %d, %d", p.NonZeroCPU, p.NonZeroMemory, tc.nonZeroCPU, tc.nonZeroMem)
			}
		})
	}
}

// randomPod builds a pod exercising containers, init containers, sidecars,
// overhead, pod-level requests and (bound pods) resize status. Requests are
// explicit (no limits-only defaulting) and milli-exact, so the typed pod
// is what the API server would store.
func randomPod(r *rand.Rand, i int) *v1.Pod {
	names := []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage, "example.com/gpu", "hugepages-2Mi"}
	qty := func(name v1.ResourceName) resource.Quantity {
		switch r.IntN(8) {
		case 0:
			return resource.MustParse("0")
		case 1:
			return *resource.NewMilliQuantity(int64(r.IntN(5000)), resource.DecimalSI)
		}
		if name == v1.ResourceCPU {
			return *resource.NewMilliQuantity(int64(1+r.IntN(4000)), resource.DecimalSI)
		}
		return *resource.NewQuantity(int64(1+r.IntN(1<<30)), resource.BinarySI)
	}
	list := func() v1.ResourceList {
		if r.IntN(4) == 0 {
			return nil
		}
		l := v1.ResourceList{}
		for _, n := range names {
			if r.IntN(3) == 0 {
				l[n] = qty(n)
			}
		}
		return l
	}
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"}}
	pod.Name = fmt.Sprintf("p%d", i)
	for c := 0; c < 1+r.IntN(3); c++ {
		pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: fmt.Sprintf("c%d", c),
			Resources: v1.ResourceRequirements{Requests: list()}})
	}
	for c := 0; c < r.IntN(4); c++ {
		ic := v1.Container{Name: fmt.Sprintf("i%d", c), Resources: v1.ResourceRequirements{Requests: list()}}
		if r.IntN(2) == 0 {
			ic.RestartPolicy = &always
		}
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, ic)
	}
	if r.IntN(4) == 0 {
		pod.Spec.Overhead = list()
	}
	if r.IntN(4) == 0 {
		req := v1.ResourceList{}
		for _, n := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, "hugepages-2Mi"} {
			if r.IntN(2) == 0 {
				req[n] = qty(n)
			}
		}
		pod.Spec.Resources = &v1.ResourceRequirements{Requests: req}
	}
	if r.IntN(2) == 0 {
		pod.Spec.NodeName = "n"
		status := func(name string) v1.ContainerStatus {
			cs := v1.ContainerStatus{Name: name, AllocatedResources: list()}
			if r.IntN(3) > 0 {
				cs.Resources = &v1.ResourceRequirements{Requests: list()}
			}
			return cs
		}
		for _, c := range pod.Spec.Containers {
			if r.IntN(2) == 0 {
				pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, status(c.Name))
			}
		}
		for _, c := range pod.Spec.InitContainers {
			if r.IntN(2) == 0 {
				pod.Status.InitContainerStatuses = append(pod.Status.InitContainerStatuses, status(c.Name))
			}
		}
		if r.IntN(4) == 0 {
			pod.Status.Resources = &v1.ResourceRequirements{Requests: list()}
			pod.Status.AllocatedResources = list()
		}
		switch r.IntN(4) {
		case 0:
			pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Reason: v1.PodReasonInfeasible}}
		case 1:
			pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Reason: v1.PodReasonDeferred}}
		}
	}
	return pod
}

// TestRequestsAgainstComponentHelpers compares Requests, ScoreCPU/Memory
// and NonZeroCPU/Memory with k8s.io/component-helpers PodRequests as the
// v1.36 scheduler calls it.
func TestRequestsAgainstComponentHelpers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 3000
	var pods []*v1.Pod
	list := map[string]any{"apiVersion": "v1", "kind": "List"}
	var items []any
	for i := 0; i < n; i++ {
		p := randomPod(r, i)
		pods = append(pods, p)
		items = append(items, p)
	}
	list["items"] = items
	data, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pods.json")
	os.WriteFile(path, data, 0o644)
	in := mustLoad(t, Options{}, path)
	if len(in.Pods) != n {
		t.Fatalf("%d pods", len(in.Pods))
	}
	var f resourceFilter
	for i, want := range pods {
		got := in.Pods[i]
		bound := want.Spec.NodeName != ""
		opts := resourcehelper.PodResourcesOptions{UseStatusResources: bound, InPlacePodLevelResourcesVerticalScalingEnabled: true}
		reqs := resourcehelper.PodRequests(want, opts)
		var wantList index.ResourceList
		for name, q := range reqs {
			if !f.podResource(string(name)) || q.IsZero() {
				continue
			}
			v := q.Value()
			if name == v1.ResourceCPU {
				v = q.MilliValue()
			}
			wantList = append(wantList, index.Quantity{Name: string(name), Value: v})
		}
		sortResources(wantList)
		if fmt.Sprint(wantList) != fmt.Sprint(got.Requests) {
			js, _ := json.Marshal(want)
			t.Fatalf("pod %d Requests = %v, want %v\n%s", i, got.Requests, wantList, js)
		}
		nm := v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("200Mi")}
		so := opts
		so.NonMissingContainerRequests = nm
		score := resourcehelper.PodRequests(want, so)
		if c, m := score.Cpu().MilliValue(), score.Memory().Value(); c != got.ScoreCPU || m != got.ScoreMemory {
			js, _ := json.Marshal(want)
			t.Fatalf("pod %d Score = %d, %d, want %d, %d\n%s", i, got.ScoreCPU, got.ScoreMemory, c, m, js)
		}
		// PodInfo.CalculateResource.
		nonMissing := nm
		if resourcehelper.IsPodLevelRequestsSet(want) {
			nonMissing = v1.ResourceList{}
			if _, ok := reqs[v1.ResourceCPU]; !ok {
				nonMissing[v1.ResourceCPU] = nm[v1.ResourceCPU]
			}
			if _, ok := reqs[v1.ResourceMemory]; !ok {
				nonMissing[v1.ResourceMemory] = nm[v1.ResourceMemory]
			}
		}
		nz := reqs
		if len(nonMissing) > 0 {
			no := opts
			no.NonMissingContainerRequests = nonMissing
			nz = resourcehelper.PodRequests(want, no)
		}
		if c, m := nz.Cpu().MilliValue(), nz.Memory().Value(); c != got.NonZeroCPU || m != got.NonZeroMemory {
			js, _ := json.Marshal(want)
			t.Fatalf("pod %d NonZero = %d, %d, want %d, %d\n%s", i, got.NonZeroCPU, got.NonZeroMemory, c, m, js)
		}
	}
}

func TestPodTimes(t *testing.T) {
	in, err := loadYAML(t, `apiVersion: v1
kind: Pod
metadata: {name: a, creationTimestamp: "2024-05-01T10:00:00Z"}
spec: {nodeName: n1}
status: {startTime: "2024-05-01T10:00:07Z"}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := in.Pods[0], in.Pods[1]
	if a.CreationUnix != 1714557600 || a.StartUnix != 1714557607 {
		t.Errorf("pod a: creation %d start %d, want 1714557600 1714557607", a.CreationUnix, a.StartUnix)
	}
	if b.CreationUnix != 0 || b.StartUnix != 0 {
		t.Errorf("pod b: creation %d start %d, want 0 0", b.CreationUnix, b.StartUnix)
	}
}
