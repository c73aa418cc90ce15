package ingest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kplace/kplace/index"
)

// loadBytes runs Load's pipeline on data in memory (as file "in").
func loadBytes(data []byte, opts Options) (*index.Input, error) {
	l := newLoader(opts)
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	if err := l.loadFile("in", open); err != nil {
		return nil, err
	}
	if err := l.finish(); err != nil {
		return nil, err
	}
	return l.in, nil
}

const maxFuzzInput = 64 << 10

// checkLoad is the fuzz property: no panic, errors are *Error without
// internal failures, and what loads is well formed.
func checkLoad(t *testing.T, data []byte) {
	if len(data) > maxFuzzInput {
		return
	}
	for _, opts := range []Options{{}, {AdmissionDefaults: true}} {
		start := time.Now()
		in, err := loadBytes(data, opts)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("slow: %v for %d bytes", d, len(data))
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("internal error: %v", err)
			}
			continue
		}
		for _, p := range in.Pods {
			if p.Name == "" || p.Namespace == "" || p.UID == "" || p.SchedulerName == "" || p.PreemptionPolicy == "" {
				t.Fatalf("incomplete pod %+v", p)
			}
			for i, q := range p.Requests {
				if q.Value <= 0 || (i > 0 && resourceRank(q.Name) < resourceRank(p.Requests[i-1].Name)) {
					t.Fatalf("bad requests %v", p.Requests)
				}
			}
			if p.ScoreCPU < 0 || p.ScoreMemory < 0 || p.NonZeroCPU < 0 || p.NonZeroMemory < 0 {
				t.Fatalf("negative score requests %+v", p)
			}
		}
		for _, n := range in.Nodes {
			if n.Name == "" {
				t.Fatalf("node without name")
			}
		}
	}
}

func addSeeds(f *testing.F, files ...string) {
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

var jsonSeeds = []string{
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"nvidia.com/gpu":2}}}],"initContainers":[{"name":"s","restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}}],"tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}]}}`,
	`{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"},"spec":{"nodeName":"n","overhead":{"cpu":"10m"}},"status":{"phase":"Running","containerStatuses":[{"name":"c","resources":{"requests":{"cpu":"2"}}}]}}]}`,
	`[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"spec":{"taints":[{"key":"a","effect":"NoExecute"}]},"status":{"capacity":{"cpu":"4","pods":"110"}}},{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"x"},"spec":{"maxUnavailable":"50%","selector":{"matchLabels":{"a":"b"}}}}]}]`,
	`{"items":[{"metadata":{"name":"a"}}],"kind":"NamespaceList"}{"kind":"PriorityClass","apiVersion":"scheduling.k8s.io/v1","metadata":{"name":"x"},"value":5,"globalDefault":true}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"In","values":["x"]}]}]}},"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{}]}},"resources":{"limits":{"cpu":"2"}}}}`,
}

func FuzzLoadJSON(f *testing.F) {
	addSeeds(f, "testdata/list.json", "testdata/podlist.json", "testdata/dir/a.json")
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkLoad(t, data) })
}

var yamlSeeds = []string{
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: 1}}\n",
	"---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- kind: Pod\n  apiVersion: v1\n  metadata: {name: b}\n---\n# c\n",
	"- apiVersion: v1\n  kind: Namespace\n  metadata: {name: x}\n",
	"{kind: Pod, apiVersion: v1, metadata: {name: f}}\n",
}

func FuzzLoadYAML(f *testing.F) {
	addSeeds(f, "testdata/multi.yaml", "testdata/dir/b.yaml", "testdata/dir/sub/c.yml")
	for _, s := range yamlSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkLoad(t, data) })
}
