package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadText writes text to a file named name and loads it.
// Every mode must report the same error.
func loadText(t *testing.T, name, text string) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var first error
	for i, m := range modes {
		_, err := Load([]string{path}, Options{AdmissionDefaults: true, Parallelism: m.parallelism})
		if i == 0 {
			first = err
		} else if (err == nil) != (first == nil) || (err != nil && err.Error() != first.Error()) {
			t.Errorf("%s: error %v, %s: %v", modes[0].name, first, m.name, err)
		}
	}
	return path, first
}

// wantErr checks that err is an *Error whose text, with the file's
// directory removed, equals want.
func wantErr(t *testing.T, path string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not an *Error", err, err)
	}
	got := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")
	if got != want {
		t.Errorf("error\n  got:  %s\n  want: %s", got, want)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name, file, text, want string
	}{
		{"bad quantity in a list", "pods.json", `{
  "kind": "List",
  "items": [
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ok"}, "spec": {"containers": [{"name": "c"}]}},
    {
      "apiVersion": "v1",
      "kind": "Pod",
      "metadata": {"name": "web-1"},
      "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "abc"}}}]}
    }
  ]
}`, `pods.json:5: Pod default/web-1: spec.containers[0].resources.requests.cpu: invalid quantity "abc"`},
		{"bad quantity in YAML", "pods.yaml", `
apiVersion: v1
kind: Node
metadata: {name: node1}
---
# the pod
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: shop
spec:
  initContainers:
  - name: c
    resources: {limits: {memory: 12Qi}}
`, `pods.yaml:7: Pod shop/web-1: spec.initContainers[0].resources.limits.memory: invalid quantity "12Qi"`},
		{"bad quantity in a YAML list item", "list.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: a}
- apiVersion: v1
  kind: Node
  metadata: {name: b}
  status: {allocatable: {cpu: "1,5"}}
`, `list.yaml:7: Node b: status.allocatable.cpu: invalid quantity "1,5"`},
		{"negative quantity", "n.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"overhead": {"cpu": "-1"}}}`,
			`n.json:1: Pod default/p: spec.overhead.cpu: negative quantity`},
		{"quantity out of range", "n.json", `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"capacity": {"memory": "100E"}}}`,
			`n.json:1: Node n: status.capacity.memory: quantity "100E" out of range`},
		{"duplicate", "dup.yaml", `apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec: {containers: [{name: c}]}
`, `dup.yaml:6: Pod default/p: duplicate object: first defined at dup.yaml:1`},
		{"unknown toleration operator", "t.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"tolerations": [{"key": "a"}, {"key": "b", "operator": "Match"}]}}`,
			`t.json:1: Pod default/p: spec.tolerations[1].operator: unknown toleration operator "Match"`},
		{"bad toleration effect", "t.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"tolerations": [{"key": "a", "effect": "NoScheduleX"}]}}`,
			`t.json:1: Pod default/p: spec.tolerations[0].effect: unknown taint effect "NoScheduleX"`},
		{"bad taint effect", "n.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: node1}\nspec: {taints: [{key: a, effect: Sometimes}]}\n",
			`n.yaml:1: Node node1: spec.taints[0].effect: unknown taint effect "Sometimes"`},
		{"bad node selector operator", "a.yaml", `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Like, values: [x]}]}]
`, `a.yaml:1: Pod default/p: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: unknown operator "Like"`},
		{"bad preemption policy", "p.json", `{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "x"}, "value": 1, "preemptionPolicy": "Sometimes"}`,
			`p.json:1: PriorityClass x: preemptionPolicy: unknown preemption policy "Sometimes"`},
		{"bad PDB selector", "p.json", `{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "x"}, "spec": {"minAvailable": 1.5}}`,
			`p.json:1: PodDisruptionBudget default/x: spec.minAvailable: not an int32 or a string: 1.5`},
		{"type mismatch", "pods.json", `[
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
   "spec": {"containers": [{"name": "c", "ports": [
     {"containerPort": "http"}]}]}}
]`, `pods.json:4: Pod default/p: spec.containers[0].ports[0].containerPort: expected an int32, found a string`},
		{"int out of range", "pods.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"priority": 3000000000}}`,
			`pods.json:1: Pod default/p: spec.priority: expected an int32, found 3000000000`},
		{"malformed JSON in an item", "pods.json", `{"kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Pod",
   "metadata": {"name": "p"}
   "spec": {}}
]}`, `pods.json:4: Pod default/p: expected ',' or '}', found a string`},
		{"malformed JSON between items", "pods.json", `{"kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}
  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b"}}
]}`, `pods.json:3: invalid JSON: expected ',' or ']' after a list item, found '{'`},
		{"truncated JSON", "pods.json", `{"kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}},
  {"apiVersion": "v1", "kind": "Namespace", "metad`, `pods.json:3: unexpected end of JSON input (truncated file?)`},
		{"no kind", "x.json", `{"apiVersion": "v1", "metadata": {"name": "x"}}`, `x.json:1: x: object has no kind`},
		{"List item without kind", "x.json", `{"kind": "List", "items": [{"metadata": {"name": "x"}}]}`,
			`x.json:1: x: list item has no kind (in a "List")`},
		{"bad apiVersion", "x.yaml", "apiVersion: a/b/c\nkind: Pod\nmetadata: {name: x}\n",
			`x.yaml:1: Pod x: apiVersion: invalid apiVersion "a/b/c"`},
		{"no name", "x.yaml", "apiVersion: v1\nkind: Node\nmetadata: {labels: {a: b}}\n",
			`x.yaml:1: Node (no name): metadata.name: missing`},
		{"bad timestamp", "x.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, creationTimestamp: yesterday}\n",
			`x.yaml:1: Pod default/p: metadata.creationTimestamp: invalid time "yesterday" (want RFC 3339)`},
		{"bad start time", "x.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nstatus: {startTime: soon}\n",
			`x.yaml:1: Pod default/p: status.startTime: invalid time "soon" (want RFC 3339)`},
		{"YAML syntax", "x.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: [unclosed\n",
			`x.yaml:8: invalid YAML: yaml: line 8: did not find expected ',' or ']'`},
		{"YAML separator", "x.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n--- junk\n",
			`x.yaml:4: invalid YAML document marker: --- junk`},
		{"top-level scalar", "x.json", `[1]`, `x.json:1: invalid JSON: expected a list item (an object), found a number`},
		{"negative host port", "p.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": -80}]}]}}`,
			`p.json:1: Pod default/p: spec.containers[0].ports[0].hostPort: must be in the range 1-65535 (or 0: none), found -80`},
		{"host port too large", "p.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"initContainers": [{"name": "s", "restartPolicy": "Always", "ports": [{"containerPort": 80, "hostPort": 65536}]}]}}`,
			`p.json:1: Pod default/p: spec.initContainers[0].ports[0].hostPort: must be in the range 1-65535 (or 0: none), found 65536`},
		{"saturated cpu", "p.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "9999999999999999999Ei"}}}]}}`,
			`p.json:1: Pod default/p: spec.containers[0].resources.requests.cpu: quantity "9999999999999999999Ei" out of range`},
		{"saturated memory", "p.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"memory": "9999999999999999999Ei"}}}]}}`,
			`p.json:1: Pod default/p: spec.containers[0].resources.requests.memory: quantity "9999999999999999999Ei" out of range`},
		{"saturated allocatable", "n.json", `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"memory": "8Ei"}}}`,
			`n.json:1: Node n: status.allocatable.memory: quantity "8Ei" out of range`},
		{"name with a space", "p.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web 1"}}`,
			`p.json:1: Pod default/"web 1": metadata.name: invalid name "web 1": must be a DNS-1123 subdomain (at most 253 lower case alphanumerics, '-' and '.', each dot-separated part starting and ending alphanumeric)`},
		{"name with a newline", "p.json", `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n\n1"}}`,
			`p.json:1: Node "n\n1": metadata.name: invalid name "n\n1": must be a DNS-1123 subdomain (at most 253 lower case alphanumerics, '-' and '.', each dot-separated part starting and ending alphanumeric)`},
		{"name with NUL", "p.json", `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n\u00001"}}`,
			`p.json:1: Node "n\x001": metadata.name: invalid name "n\x001": must be a DNS-1123 subdomain (at most 253 lower case alphanumerics, '-' and '.', each dot-separated part starting and ending alphanumeric)`},
		{"name of invalid UTF-8", "p.json", "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"web-\xff\"}}",
			"p.json:1: Pod default/\"web-\ufffd\": metadata.name: invalid name \"web-\ufffd\": must be a DNS-1123 subdomain (at most 253 lower case alphanumerics, '-' and '.', each dot-separated part starting and ending alphanumeric)"},
		{"name too long", "p.json", `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "` + strings.Repeat("a", 254) + `"}}`,
			`p.json:1: Node ` + strings.Repeat("a", 254) + `: metadata.name: invalid name "` + strings.Repeat("a", 60) + `"... (254 bytes): must be a DNS-1123 subdomain (at most 253 lower case alphanumerics, '-' and '.', each dot-separated part starting and ending alphanumeric)`},
		{"a label's error before the name (YAML sorts the keys)", "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: shop, labels: {app: yes}}\nspec: {containers: [{name: c}]}\n",
			`p.yaml:1: Pod shop/web-1: metadata.labels.app: expected a string value, found a boolean`},
		{"two containers of one name", "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {initContainers: [{name: c}], containers: [{name: a}, {name: c}]}\n",
			`p.yaml:1: Pod default/p: spec.initContainers[0].name: duplicate name "c"`},
		{"two of many containers of one name", "p.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [` + manyContainers(20) + `, {"name": "c7"}]}}`,
			`p.json:1: Pod default/p: spec.containers[20].name: duplicate name "c7"`},
		{"a container without a name", "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{image: x}]}\n",
			`p.yaml:1: Pod default/p: spec.containers[0].name: required`},
		{"an init container's restart policy", "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {initContainers: [{name: i, restartPolicy: Sometimes}], containers: [{name: c}]}\n",
			`p.yaml:1: Pod default/p: spec.initContainers[0].restartPolicy: unsupported value "Sometimes": want Always, OnFailure or Never`},
		{"a YAML list of strings", "x.yaml", "- a\n- b\n",
			`x.yaml:1: invalid YAML document: expected a list item (an object), found a string`},
		{"junk after a document end", "x.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n... junk\n",
			`x.yaml:4: invalid YAML document marker: ... junk`},
		{"lines ending in a lone CR", "n.yaml", "apiVersion: v1\rkind: Node\rmetadata: {name: n1}\r---\rapiVersion: v1\rkind: Pod\rmetadata: {name: p}\r",
			`n.yaml:1: lines end in a lone CR (\r): convert them to LF (\n) or CRLF`},
		{"two controllers", "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: a, uid: u1, controller: true}\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: b, uid: u2, controller: true}\nspec: {containers: [{name: c}]}\n",
			`p.yaml:1: Pod default/p: metadata.ownerReferences[1].controller: only one reference can have controller set to true (also ReplicaSet/a)`},
		{"two kinds", "n.json", `{"apiVersion": "v1", "kind": "Pod", "kind": "Node", "metadata": {"name": "x"}}`,
			`n.json:1: kind: duplicate field`},
		{"two kinds in a list item", "n.json", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "kind": "Node", "metadata": {"name": "x"}}]}`,
			`n.json:1: Pod default/x: kind: duplicate field`},
		{"two items arrays", "n.json", `{"apiVersion": "v1", "kind": "List", "items": [], "items": []}`,
			`n.json:1: items: duplicate field`},
		{"a Node with items", "n.json", `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]}`,
			`n.json:1: a Node with items: only a List (kind List, PodList, ...) holds items`},
		{"items before the kind", "n.json", `{"items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}], "kind": "Pod", "apiVersion": "v1"}`,
			`n.json:1: a Pod with items: only a List (kind List, PodList, ...) holds items`},
		{"priority class name with an escape", "p.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"priorityClassName": "x\u001b[2J\ny", "containers": [{"name": "c"}]}}`,
			`p.json:1: Pod default/p: spec.priorityClassName: invalid name "x\x1b[2J\ny": must be a DNS-1123 subdomain`},
		{"namespace with capitals", "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: Shop}\n",
			`p.yaml:1: Pod Shop/p: metadata.namespace: invalid namespace "Shop": must be a DNS-1123 label (at most 63 lower case alphanumerics and '-', starting and ending alphanumeric)`},
		{"service name", "s.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: 1web}\n",
			`s.yaml:1: Service default/1web: metadata.name: invalid name "1web": must be a DNS-1035 label (at most 63 lower case alphanumerics and '-', starting with a letter, ending alphanumeric)`},
		{"two bad labels", "n.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: node1, labels: {z: '-', b: 'x y', a: ok, c: 'p q', 'k k': v}}\n",
			`n.yaml:1: Node node1: metadata.labels.b: invalid label value "x y": want at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric, or empty`},
		{"label value", "n.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: node1, labels: {zone: 'a b'}}\n",
			`n.yaml:1: Node node1: metadata.labels.zone: invalid label value "a b": want at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric, or empty`},
		{"taint key", "n.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: node1}\nspec: {taints: [{key: 'a/b/c', effect: NoSchedule}]}\n",
			`n.yaml:1: Node node1: spec.taints[0].key: invalid key "a/b/c": want an optional DNS subdomain and '/', then at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric`},
		{"toleration value with Exists", "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {tolerations: [{key: a, operator: Exists, value: x}]}\n",
			`p.yaml:1: Pod default/p: spec.tolerations[0].value: must be empty when operator is Exists`},
		{"toleration seconds without NoExecute", "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {tolerations: [{key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]}\n",
			`p.yaml:1: Pod default/p: spec.tolerations[0].effect: must be NoExecute when tolerationSeconds is set`},
		{"preferred node affinity weight", "p.yaml", `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - {weight: 1073741824, preference: {matchExpressions: [{key: a, operator: Exists}]}}
`, `p.yaml:1: Pod default/p: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: must be in the range 1-100, found 1073741824`},
		{"user priority class too high", "pc.yaml", "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: vip}\nvalue: 1000000001\n",
			`pc.yaml:1: PriorityClass vip: value: 1000000001 is above 1000000000, the highest priority a user-defined class may have`},
		{"system priority class", "pc.yaml", "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-vip}\nvalue: 5\n",
			`pc.yaml:1: PriorityClass system-vip: metadata.name: names starting with "system-" are reserved for the built-in classes (system-node-critical 2000001000, system-cluster-critical 2000000000, not globalDefault)`},
		{"two global defaults", "pc.yaml", "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 5\nglobalDefault: true\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: b}\nvalue: 6\nglobalDefault: true\n",
			`pc.yaml:7: PriorityClass b: globalDefault: PriorityClass a is the global default already`},
		{"PDB percentage", "b.yaml", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {maxUnavailable: 150%}\n",
			`b.yaml:1: PodDisruptionBudget default/b: spec.maxUnavailable: invalid value "150%": want an integer of at least 0 or a percentage from 0% to 100%`},
		{"PDB negative status", "b.yaml", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {minAvailable: 1}\nstatus: {disruptionsAllowed: -3}\n",
			`b.yaml:1: PodDisruptionBudget default/b: status.disruptionsAllowed: must be at least 0, found -3`},
		{"deep nesting", "x.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"x": ` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}`,
			`x.json:1: Pod default/p: spec.x` + strings.Repeat("[0]", maxPathSegments-1) + `...: nested too deeply`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, err := loadText(t, tc.file, tc.text)
			wantErr(t, path, err, tc.want)
		})
	}
}

func TestCompressionErrors(t *testing.T) {
	data, err := os.ReadFile("testdata/list.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"gz", "zst"} {
		z := compress(t, data, kind)
		dir := t.TempDir()
		// Truncated: the stream ends early.
		trunc := filepath.Join(dir, "list.json."+kind)
		os.WriteFile(trunc, z[:len(z)*2/3], 0o644)
		_, err := Load([]string{trunc}, Options{})
		var e *Error
		if err == nil || !errors.As(err, &e) || e.File != trunc {
			t.Errorf("%s truncated: error %v", kind, err)
		} else if !strings.Contains(err.Error(), "truncated") && !strings.Contains(err.Error(), "unexpected") {
			t.Errorf("%s truncated: %v", kind, err)
		}
		// Corrupt: bytes flipped in the middle.
		bad := append([]byte(nil), z...)
		for i := len(bad) / 2; i < len(bad)/2+16; i++ {
			bad[i] ^= 0x5a
		}
		corrupt := filepath.Join(dir, "corrupt.json."+kind)
		os.WriteFile(corrupt, bad, 0o644)
		if _, err := Load([]string{corrupt}, Options{}); err == nil || !errors.As(err, &e) || e.File != corrupt {
			t.Errorf("%s corrupt: error %v", kind, err)
		}
		// Only the magic number.
		stub := filepath.Join(dir, "stub.json."+kind)
		os.WriteFile(stub, z[:4], 0o644)
		if _, err := Load([]string{stub}, Options{}); err == nil {
			t.Errorf("%s stub: no error", kind)
		}
	}
}

func TestPathErrors(t *testing.T) {
	if _, err := Load([]string{"testdata/no-such-file.json"}, Options{}); err == nil {
		t.Error("missing file: no error")
	}
	if _, err := Load([]string{t.TempDir()}, Options{}); err == nil || !strings.Contains(err.Error(), "no input files") {
		t.Errorf("empty directory: %v", err)
	}
}

func TestFlowStyleYAMLFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flow.yaml")
	os.WriteFile(path, []byte("{apiVersion: v1, kind: Node, metadata: {name: node1}}\n"), 0o644)
	in, err := Load([]string{path}, Options{})
	if err != nil || len(in.Nodes) != 1 || in.Nodes[0].Name != "node1" {
		t.Fatalf("flow style YAML: %v %+v", err, in)
	}
	// A JSON error that is not YAML either reports the JSON error.
	_, err = loadText(t, "bad.json", "{\"kind\": \"Node\",, }")
	if err == nil || !strings.Contains(err.Error(), "bad.json:1: invalid JSON") {
		t.Errorf("bad JSON: %v", err)
	}
}

// TestErrorShortensLongNames: an object's name past any valid length is
// shortened in the error's prefix (a 1 MB name is not a 1 MB line).
func TestErrorShortensLongNames(t *testing.T) {
	e := &Error{File: "f.json", Kind: "Pod", Namespace: "ns", Name: strings.Repeat("a", 1<<20), Field: "metadata.name", Msg: "invalid"}
	want := `f.json: Pod ns/"` + strings.Repeat("a", 60) + `"... (1048576 bytes): metadata.name: invalid`
	if got := e.Error(); got != want {
		t.Errorf("%.200s...\nwant %s", got, want)
	}
}

// manyContainers is n containers named c0 to c(n-1), as JSON list items.
func manyContainers(n int) string {
	cs := make([]string, n)
	for i := range cs {
		cs[i] = fmt.Sprintf(`{"name": "c%d"}`, i)
	}
	return strings.Join(cs, ", ")
}
