package ingest

import (
	"bytes"
	"encoding/json"
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
// internal failures, what loads is well formed, and parallel decoding
// gives the same result (or error) as sequential.
func checkLoad(t *testing.T, data []byte) {
	if len(data) > maxFuzzInput {
		return
	}
	var seqDump []byte
	var seqErr error
	for _, opts := range []Options{{Parallelism: 1}, {AdmissionDefaults: true, Parallelism: 1}, {Parallelism: 3}} {
		var in *index.Input
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			in, err = loadBytes(data, opts)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("no result after 5s for %q", data)
		}
		var d []byte
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("internal error: %v", err)
			}
		} else {
			checkInput(t, in)
			d = dump(t, in)
		}
		switch {
		case opts.Parallelism == 1 && !opts.AdmissionDefaults:
			seqDump, seqErr = d, err
		case opts.Parallelism == 3:
			if (err == nil) != (seqErr == nil) || (err != nil && err.Error() != seqErr.Error()) {
				t.Fatalf("parallel error %v, sequential %v", err, seqErr)
			}
			if !bytes.Equal(d, seqDump) {
				t.Fatalf("parallel result differs from sequential: %s", firstDiff(seqDump, d))
			}
		}
	}
}

func checkInput(t *testing.T, in *index.Input) {
	for _, p := range in.Pods {
		if p.Name == "" || p.Namespace == "" || p.SchedulerName == "" || p.PreemptionPolicy == "" {
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
	// A Deployment's pod with topology spread and pod (anti-)affinity.
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"shop","labels":{"app":"web","pod-template-hash":"6d4b9c7f5","tier":"fe"}},` +
		`"spec":{"containers":[{"name":"web","resources":{"requests":{"cpu":"100m"}}}],` +
		`"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"web"}},"matchLabelKeys":["pod-template-hash"],"minDomains":2,"nodeAffinityPolicy":"Ignore","nodeTaintsPolicy":"Honor"},` +
		`{"maxSkew":2,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{}}],` +
		`"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["cache"]}]},"namespaces":["cache"],"topologyKey":"topology.kubernetes.io/zone"}],` +
		`"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":50,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"db"}},"namespaceSelector":{},"topologyKey":"topology.kubernetes.io/zone"}}]},` +
		`"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname","matchLabelKeys":["pod-template-hash"],"mismatchLabelKeys":["tier"]}],` +
		`"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{"labelSelector":{"matchExpressions":[{"key":"batch","operator":"Exists"}]},"namespaceSelector":{"matchLabels":{"team":"data"}},"topologyKey":"kubernetes.io/hostname"}}]}}}}`,
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
	addSeeds(f, "testdata/multi.yaml", "testdata/dir/b.yaml", "testdata/dir/sub/c.yml", "testdata/relations.yaml")
	for _, s := range yamlSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkLoad(t, data) })
}

// checkJSONValue compares jp with encoding/json on one value: what
// encoding/json accepts, jp accepts (jp is more lenient: it does not check
// control characters or escapes inside skipped strings), and strings
// decode alike.
func checkJSONValue(t *testing.T, data []byte) {
	p := &jp{b: data}
	err := p.run(func() { p.skip(); p.end() })
	if json.Valid(data) && err != nil {
		if !strings.Contains(err.Error(), "nested too deeply") {
			t.Fatalf("jp rejects valid JSON %q: %v", data, err)
		}
	}
	if err != nil && strings.Contains(err.Error(), "internal error") {
		t.Fatalf("internal error on %q: %v", data, err)
	}
	var want string
	if json.Unmarshal(data, &want) == nil {
		p := &jp{b: data}
		var got string
		if err := p.run(func() { got = p.str(); p.end() }); err != nil || got != want {
			t.Fatalf("string %q: jp %q (%v), encoding/json %q", data, got, err, want)
		}
	}
}

func FuzzJSONValue(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b"`, `"a\\"`, `"\\\\\""`, `"\u00e9\ud83d\ude00"`, `"` + strings.Repeat("x", 40) + `\n"`,
		`{"a": [1, -2.5e3, true, false, null, {"b": "c"}]}`, `[]`, `{}`, ` 0 `, `"` + strings.Repeat(`\\`, 20) + `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		checkJSONValue(t, data)
	})
}

func TestScanQuote(t *testing.T) {
	for _, s := range []string{`"a"`, `"` + strings.Repeat("a", 7) + `\"x"`, `"` + strings.Repeat("a", 31) + `\\"`,
		`"` + strings.Repeat("a", 33) + `\"` + strings.Repeat("b", 50) + `"`, `"` + strings.Repeat("é", 30) + `"`,
		`"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\""`, `"` + strings.Repeat("\\\\", 50) + `"`} {
		checkJSONValue(t, []byte(s))
	}
}
