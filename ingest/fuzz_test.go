package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/solver"
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
// internal failures, what loads is well formed, parallel decoding gives
// the same result (or error) as sequential, and what loads places (the
// solver neither panics nor hangs on anything the loader accepts).
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
			if err == nil {
				placeChecked(t, in, len(data))
			}
		}
	}
}

// placeChecked places in as kplace place would, with the solver's options
// on (preemption, requeue, cross-node preemption, default spreading; the
// strategy chosen by variant): it must end, without a panic, and every
// commit names a pod and a node of the cluster.
func placeChecked(t *testing.T, in *index.Input, variant int) {
	t.Helper()
	c, err := index.Build(in)
	if err != nil {
		t.Fatalf("index.Build refused what the loader accepted: %v", err)
	}
	cfg := solver.Config{Seed: uint64(variant), RequeueEvicted: true, CrossNodePreemption: true,
		DefaultSpread: solver.BuiltinDefaultSpread(), SystemDefaultSpread: true}
	if variant%2 == 1 {
		cfg.Strategy = solver.MostAllocated
	}
	done := make(chan *solver.Result, 1)
	go func() { done <- solver.Solve(c, cfg) }()
	var res *solver.Result
	select {
	case res = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the solve did not end in 20s")
	}
	for _, cm := range res.Commits {
		if int(cm.Pod) >= len(c.Pods) || int(cm.Node) >= len(c.Nodes) {
			t.Fatalf("commit %+v outside the cluster (%d pods, %d nodes)", cm, len(c.Pods), len(c.Nodes))
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

// layoutSeeds are lists laid out in lines, whose items the parallel reader
// cuts by their layout (spec.go): as kubectl indents them, one item per
// line with CRLF ends, and one per line but for an item that spans lines
// where another could start (a wrong guess).
var layoutSeeds = []string{
	"{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"apiVersion\": \"v1\",\n            \"kind\": \"Node\",\n" +
		"            \"metadata\": {\n                \"name\": \"n\"\n            },\n            \"status\": {\n                \"allocatable\": {\n" +
		"                    \"cpu\": \"4\",\n                    \"pods\": \"110\"\n                }\n            }\n        },\n        {\n" +
		"            \"apiVersion\": \"v1\",\n            \"kind\": \"Pod\",\n            \"metadata\": {\n                \"name\": \"p\"\n            },\n" +
		"            \"spec\": {\n                \"containers\": [\n                    {\n                        \"name\": \"c\"\n                    }\n" +
		"                ]\n            }\n        }\n    ],\n    \"kind\": \"List\"\n}\n",
	"{\"apiVersion\":\"v1\",\"items\":[\r\n{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}},\r\n" +
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\"}}\r\n],\"kind\":\"List\"}\r\n",
	"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}},\n" +
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"w\"},\"spec\":{\"containers\":[{\"name\":\"a\"},\n{\"name\":\"b\"}\n]}},\n" +
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"c\"}}\n]}\n",
}

// genSeed is a generated export (kplace gen --profile mixed --nodes 4
// --pods 12 --running 8 --seed 1): priority classes, tainted and labelled
// nodes, running and pending pods with every kind of constraint.
const genSeed = "testdata/gen-mixed.json"

// addTruncations adds data and prefixes of it cut at cuts points spread
// over it (an interrupted export), so that the fuzzer starts from the
// truncated-input paths too.
func addTruncations(f *testing.F, data []byte, cuts int) {
	f.Add(data)
	for i := 1; i <= cuts; i++ {
		f.Add(data[:len(data)*i/(cuts+1)])
	}
}

// fuzzWindow is the stream window of the load fuzzers: small, so that
// their inputs (64 KiB at most) refill and move the window, as large
// files do.
const fuzzWindow = 512

func FuzzLoadJSON(f *testing.F) {
	smallWindow(f, fuzzWindow)
	old := guessFrom
	guessFrom = 0 // guess in the short lists a fuzzer writes
	f.Cleanup(func() { guessFrom = old })
	addSeeds(f, "testdata/list.json", "testdata/podlist.json", "testdata/dir/a.json")
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	for _, s := range layoutSeeds {
		f.Add([]byte(s))
	}
	gen, err := os.ReadFile(genSeed)
	if err != nil {
		f.Fatal(err)
	}
	addTruncations(f, gen, 20)
	f.Fuzz(func(t *testing.T, data []byte) { checkLoad(t, data) })
}

var yamlSeeds = []string{
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: 1}}\n",
	"---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- kind: Pod\n  apiVersion: v1\n  metadata: {name: b}\n---\n# c\n",
	"- apiVersion: v1\n  kind: Namespace\n  metadata: {name: x}\n",
	"{kind: Pod, apiVersion: v1, metadata: {name: f}}\n",
}

func FuzzLoadYAML(f *testing.F) {
	smallWindow(f, fuzzWindow)
	addSeeds(f, "testdata/multi.yaml", "testdata/dir/b.yaml", "testdata/dir/sub/c.yml", "testdata/relations.yaml")
	for _, s := range yamlSeeds {
		f.Add([]byte(s))
	}
	gen, err := os.ReadFile(genSeed)
	if err != nil {
		f.Fatal(err)
	}
	y, err := yaml.JSONToYAML(gen)
	if err != nil {
		f.Fatal(err)
	}
	addTruncations(f, y[:min(len(y), maxFuzzInput)], 10)
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

// FuzzSnapshotValues crafts snapshots as a hostile file could hold them,
// checksums valid: the fuzz input drives edits of the values of a real
// cluster's model (any field of any object: strings, numbers, lists, maps,
// pointers), which is written as a snapshot and loaded. The load must
// refuse it with an *Error (the validation JSON input passes) or accept
// it, and then the cluster places: no panic, no hang, no unbounded
// allocation.
func FuzzSnapshotValues(f *testing.F) {
	gen, err := Load([]string{genSeed}, Options{AdmissionDefaults: true})
	if err != nil {
		f.Fatal(err)
	}
	rel, err := Load([]string{"testdata/relations.yaml"}, Options{AdmissionDefaults: true})
	if err != nil {
		f.Fatal(err)
	}
	bases := []*index.Input{gen, rel}
	for _, s := range []string{"", "\x00", "\x01\x02\x03", "\x01\x05\x00\x09\xff", "\x00\x00\x04\x01\x07", "\x01\x01\x13\x02\x00\x06"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, edits string) {
		if len(edits) > 256 {
			return
		}
		base := bases[0]
		if len(edits) > 0 && edits[0]&0x80 != 0 {
			base = bases[1]
		}
		in := deepCopy(reflect.ValueOf(base)).Interface().(*index.Input)
		editModel(in, &editor{b: []byte(edits), names: names(in)})
		loaded, err := loadBytes(snapshotBytes(t, in, true), Options{Parallelism: 2})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			return
		}
		placeChecked(t, loaded, len(edits))
	})
}

// deepCopy copies v and everything it points to (the model's types:
// structs, slices, maps, pointers, plain values), keeping nil apart from
// empty.
func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(deepCopy(v.Elem()))
		return p
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		s := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			s.Index(i).Set(deepCopy(v.Index(i)))
		}
		return s
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			m.SetMapIndex(it.Key(), deepCopy(it.Value()))
		}
		return m
	case reflect.Struct:
		s := reflect.New(v.Type()).Elem()
		for i := range v.NumField() {
			s.Field(i).Set(deepCopy(v.Field(i)))
		}
		return s
	}
	return v
}

// names collects strings of the model that edits should reuse (names of
// nodes, pods and classes, label keys and values), so that the edits
// reach references that resolve.
func names(in *index.Input) []string {
	var out []string
	for _, n := range in.Nodes {
		out = append(out, n.Name)
		for k, v := range n.Labels {
			out = append(out, k, v)
		}
	}
	for _, p := range in.Pods {
		out = append(out, p.Name, p.Namespace, p.NodeName, p.PriorityClassName)
	}
	return out
}

// editor reads edit decisions from the fuzz input.
type editor struct {
	b     []byte
	names []string
}

func (e *editor) next() int {
	if len(e.b) == 0 {
		return 0
	}
	c := e.b[0]
	e.b = e.b[1:]
	return int(c)
}

// Values the edits choose from: the boundaries of API validation, of the
// engine's arithmetic and of the enumerations.
var (
	editInts = []int64{0, 1, -1, 2, 3, 100, 101, 110, 1000, 65535, 65536, 1 << 30, 1000000001, 2000001000,
		math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, 1 << 40}
	editStrs = []string{"", "a", "default", "kubernetes.io/hostname", "topology.kubernetes.io/zone", "app", "web",
		index.EffectNoSchedule, index.EffectNoExecute, index.EffectPreferNoSchedule, index.OpExists, index.OpEqual,
		index.SelIn, index.SelNotIn, index.SelGt, index.SelLt, index.SelDoesNotExist, index.DoNotSchedule,
		index.ScheduleAnyway, index.PolicyHonor, index.PolicyIgnore, index.PreemptNever, index.PreemptLowerPriority,
		"TCP", "UDP", "SCTP", "cpu", "memory", "pods", "nvidia.com/gpu", "10", "-5", "50%", "101%", "x y", "ü",
		"system-node-critical", "metadata.name", "Service", "ReplicaSet", "volumes", "A", strings.Repeat("a", 254)}
)

// editModel applies edits to in until the input runs out: each picks a
// table, a row, and a path down to one value, which it replaces.
func editModel(in *index.Input, e *editor) {
	root := reflect.ValueOf(in).Elem()
	for len(e.b) > 0 {
		f := root.Field(e.next() % root.NumField())
		e.edit(f, 0)
	}
}

func (e *editor) edit(v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		e.edit(v.Field(e.next()%v.NumField()), depth+1)
	case reflect.Pointer:
		switch {
		case e.next()%4 == 0:
			v.SetZero()
		case v.IsNil():
			v.Set(reflect.New(v.Type().Elem()))
		default:
			e.edit(v.Elem(), depth+1)
		}
	case reflect.Slice:
		switch op := e.next() % 8; {
		case op == 0:
			v.SetZero()
		case op == 1 || v.Len() == 0:
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
			e.edit(v.Index(v.Len()-1), depth+1)
		case op == 2:
			v.Set(reflect.Append(v, v.Index(e.next()%v.Len()))) // a duplicate
		default:
			e.edit(v.Index(e.next()%v.Len()), depth+1)
		}
	case reflect.Map:
		if e.next()%4 == 0 {
			v.SetZero()
			return
		}
		m := reflect.MakeMap(v.Type()) // maps may be shared: edit a copy
		for it := v.MapRange(); it.Next(); {
			m.SetMapIndex(it.Key(), it.Value())
		}
		k, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		e.edit(k, depth+1)
		e.edit(val, depth+1)
		m.SetMapIndex(k, val)
		v.Set(m)
	case reflect.String:
		switch c := e.next(); {
		case c < 128:
			v.SetString(editStrs[c%len(editStrs)])
		case c < 192 && len(e.names) > 0:
			v.SetString(e.names[c%len(e.names)])
		default:
			n := min(c%16, len(e.b))
			v.SetString(string(e.b[:n]))
			e.b = e.b[n:]
		}
	case reflect.Int, reflect.Int32, reflect.Int64:
		x := editInts[e.next()%len(editInts)]
		if c := e.next(); c >= 200 {
			x = int64(c - 210) // small values around zero
		}
		if v.OverflowInt(x) {
			x = int64(int32(x))
		}
		v.SetInt(x)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	}
}
