package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kplace/kplace/index"
	"github.com/kplace/kplace/ingest"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// Scenario is a parsed scenario file: steps in time order.
type Scenario struct {
	// File is where it was read from ("" for shorthand flags); Dir is the
	// directory its relative file names are taken from.
	File, Dir string
	Steps     []Step
	// Until ends the run at this virtual time (0: when nothing is left
	// to happen).
	Until time.Duration
}

// Actions.
const (
	ActTaint        = "taint"
	ActCordon       = "cordon"
	ActUncordon     = "uncordon"
	ActDrain        = "drain"
	ActFailNodes    = "failNodes"
	ActRecoverNodes = "recoverNodes"
	ActAddNodes     = "addNodes"
	ActRemoveNodes  = "removeNodes"
	ActScale        = "scale"
	ActApply        = "apply"
)

var actions = []string{ActTaint, ActCordon, ActUncordon, ActDrain, ActFailNodes, ActRecoverNodes, ActAddNodes, ActRemoveNodes, ActScale, ActApply}

// Step is one action at a virtual time.
type Step struct {
	Index  int // in the file, from 0
	At     time.Duration
	Action string
	// Nodes selects the nodes of taint, cordon, uncordon, drain,
	// failNodes, recoverNodes and removeNodes.
	Nodes Selector
	// taint: Add (replacing a taint of the same key and effect) and
	// Remove (by key and effect; an empty effect removes every effect).
	Add, Remove []index.Taint
	// drain: Timeout (nil: the run's default).
	Timeout *time.Duration
	// addNodes: Count nodes named NamePrefix0, NamePrefix1, ... from
	// Template (its labels get kubernetes.io/hostname).
	Count      int
	NamePrefix string
	Template   []byte // the Node as JSON, or nil with TemplateFile
	// TemplateFile and File are file names, relative to Scenario.Dir.
	TemplateFile string
	// scale: Kind, Namespace, Name, Replicas.
	Kind, Namespace, Name string
	Replicas              int
	// apply: File.
	File string
}

// Describe is a short text for the step.
func (s *Step) Describe() string {
	switch s.Action {
	case ActTaint:
		var parts []string
		for _, t := range s.Add {
			parts = append(parts, TaintString(t))
		}
		for _, t := range s.Remove {
			parts = append(parts, TaintString(t)+"-")
		}
		return fmt.Sprintf("taint %s %s", s.Nodes.Text, strings.Join(parts, " "))
	case ActAddNodes:
		return fmt.Sprintf("addNodes %d x %s*", s.Count, s.NamePrefix)
	case ActScale:
		return fmt.Sprintf("scale %s %s/%s to %d", s.Kind, s.Namespace, s.Name, s.Replicas)
	case ActApply:
		return "apply " + s.File
	}
	return s.Action + " " + s.Nodes.Text
}

// TaintString writes a taint as kubectl taint takes it: key[=value]:effect
// (key[=value] when the effect is empty).
func TaintString(t index.Taint) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + t.Effect
	}
	return s
}

// Error is an invalid scenario: the file, the field and what is wrong.
type Error struct {
	File, Field, Msg string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.File + ": " + e.Msg
	}
	return e.File + ": " + e.Field + ": " + e.Msg
}

// Load reads and validates a scenario file.
func Load(path string) (*Scenario, error) {
	raw, err := ingest.ReadConfigFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, raw)
}

// Parse validates a scenario (YAML or JSON) read from file.
func Parse(file string, raw []byte) (*Scenario, error) {
	bad := func(field, format string, args ...any) error {
		return &Error{File: file, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	// One document: a second one would be ignored, steps and all.
	var js []byte
	err := ingest.YAMLDocuments(file, raw, func(doc []byte, line int) error {
		j, err := yaml.YAMLToJSONStrict(doc) // a key given twice is an error, not the last one
		switch {
		case err != nil:
			msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
			msg = strings.Join(strings.Fields(strings.TrimPrefix(msg, "yaml: unmarshal errors:")), " ")
			return bad("", "%s", msg)
		case string(bytes.TrimSpace(j)) == "null": // nothing but comments
		case js != nil:
			return bad("", "a second YAML document at line %d: a scenario file holds one (its steps: one list)", line)
		default:
			js = j
		}
		return nil
	})
	var se *Error
	var ie *ingest.Error
	switch {
	case err == nil:
	case errors.As(err, &se):
		return nil, err
	case errors.As(err, &ie) && ie.Line > 0 && !strings.HasPrefix(ie.Msg, fmt.Sprintf("line %d ", ie.Line)):
		return nil, bad("", "line %d: %s", ie.Line, ie.Msg)
	case errors.As(err, &ie):
		return nil, bad("", "%s", ie.Msg)
	default:
		return nil, bad("", "%v", err)
	}
	if js == nil {
		return nil, bad("", "empty: want a Scenario object (kind: Scenario, steps: [...])")
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, bad("", "%v", err)
	}
	doc, ok := top.(map[string]any)
	if !ok {
		return nil, bad("", "want a Scenario object (kind: Scenario, steps: [...])")
	}
	sc := &Scenario{File: file, Dir: filepath.Dir(file)}
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		v := doc[k]
		switch k {
		case "apiVersion", "metadata", "description":
		case "kind":
			if v != "Scenario" {
				return nil, bad("kind", "%s, want Scenario", show(v))
			}
		case "until":
			if sc.Until, err = duration(v); err != nil {
				return nil, bad("until", "%v", err)
			}
		case "steps":
			list, ok := v.([]any)
			if !ok {
				return nil, bad("steps", "want a list of steps")
			}
			for i, item := range list {
				st, err := parseStep(i, item)
				if err != nil {
					var e *Error
					if errorsAs(err, &e) {
						e.File = file
					}
					return nil, err
				}
				sc.Steps = append(sc.Steps, st)
			}
		default:
			return nil, bad(k, "unknown field (want kind, steps, until)")
		}
	}
	if doc["kind"] == nil {
		return nil, bad("kind", "missing (want kind: Scenario)")
	}
	if doc["steps"] == nil {
		return nil, bad("steps", "missing")
	}
	slices.SortStableFunc(sc.Steps, func(a, b Step) int { return int(min(max(a.At-b.At, -1), 1)) })
	return sc, nil
}

func errorsAs(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

func show(v any) string {
	b, _ := json.Marshal(v)
	if _, ok := v.(bool); ok {
		// YAML 1.1 reads y, n, yes, no, on and off as booleans too.
		return string(b) + " (a YAML boolean: quote the value for a string)"
	}
	return string(b)
}

// duration reads "90s", "5m", "1h30m" or a number of seconds.
func duration(v any) (time.Duration, error) {
	var d time.Duration
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		// >=: float64(math.MaxInt64) is 2^63, which no Duration holds.
		if err != nil || f < 0 || f >= math.MaxInt64/float64(time.Second) {
			return 0, fmt.Errorf("%s is not a duration (seconds, or like 90s, 5m)", x)
		}
		d = time.Duration(f * float64(time.Second))
	case string:
		var err error
		if d, err = time.ParseDuration(x); err != nil {
			return 0, fmt.Errorf("%q is not a duration (like 90s, 5m, 1h30m)", x)
		}
	default:
		return 0, fmt.Errorf("%s is not a duration (like 90s, 5m)", show(v))
	}
	if d < 0 {
		return 0, fmt.Errorf("%v is negative", d)
	}
	return d, nil
}

func parseStep(i int, item any) (Step, error) {
	at := fmt.Sprintf("steps[%d]", i)
	bad := func(field, format string, args ...any) error {
		return &Error{Field: at + field, Msg: fmt.Sprintf(format, args...)}
	}
	m, ok := item.(map[string]any)
	if !ok {
		return Step{}, bad("", "want an object with at: and one action")
	}
	st := Step{Index: i}
	atV, ok := m["at"]
	if !ok {
		return st, bad(".at", "missing (a duration such as 90s)")
	}
	var err error
	if st.At, err = duration(atV); err != nil {
		return st, bad(".at", "%v", err)
	}
	var body map[string]any
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k == "at" {
			continue
		}
		if !slices.Contains(actions, k) {
			return st, bad("."+k, "unknown action (want one of %s)", strings.Join(actions, ", "))
		}
		if st.Action != "" {
			return st, bad("", "two actions, %s and %s: one per step", st.Action, k)
		}
		st.Action = k
		if body, ok = m[k].(map[string]any); !ok {
			return st, bad("."+k, "want an object")
		}
	}
	if st.Action == "" {
		return st, bad("", "no action (want one of %s)", strings.Join(actions, ", "))
	}
	base := "." + st.Action
	allowed := map[string][]string{
		ActTaint: {"nodes", "add", "remove"}, ActCordon: {"nodes"}, ActUncordon: {"nodes"},
		ActDrain: {"nodes", "timeout"}, ActFailNodes: {"nodes"}, ActRecoverNodes: {"nodes"}, ActRemoveNodes: {"nodes"},
		ActAddNodes: {"count", "template", "namePrefix"}, ActScale: {"kind", "namespace", "name", "replicas"}, ActApply: {"file"},
	}[st.Action]
	for _, k := range slices.Sorted(maps.Keys(body)) {
		if !slices.Contains(allowed, k) {
			return st, bad(base+"."+k, "unknown field (want %s)", strings.Join(allowed, ", "))
		}
	}
	str := func(k string, required bool) (string, error) {
		v, ok := body[k]
		if !ok {
			if required {
				return "", bad(base+"."+k, "missing")
			}
			return "", nil
		}
		s, ok := v.(string)
		if !ok || required && s == "" {
			return "", bad(base+"."+k, "want a non-empty string, not %s", show(v))
		}
		return s, nil
	}
	integer := func(k string, least int) (int, error) {
		v, ok := body[k]
		if !ok {
			return 0, bad(base+"."+k, "missing")
		}
		n, ok := v.(json.Number)
		x, err := strconv.Atoi(string(n))
		if !ok || err != nil || x < least {
			return 0, bad(base+"."+k, "want a whole number of at least %d, not %s", least, show(v))
		}
		return x, nil
	}
	if slices.Contains(allowed, "nodes") {
		text, err := str("nodes", true)
		if err != nil {
			return st, err
		}
		if st.Nodes, err = ParseSelector(text); err != nil {
			return st, bad(base+".nodes", "%v", err)
		}
	}
	switch st.Action {
	case ActTaint:
		if st.Add, err = taintList(body["add"], true, at+base+".add"); err != nil {
			return st, err
		}
		// kubectl taint refuses two taints of one key and effect: a node
		// carrying both would be no valid Node (place refuses it).
		for i := range st.Add {
			for j := range i {
				if st.Add[j].Key == st.Add[i].Key && st.Add[j].Effect == st.Add[i].Effect {
					return st, bad(fmt.Sprintf("%s.add[%d]", base, i), "a second taint of key %q and effect %s in one step", st.Add[i].Key, st.Add[i].Effect)
				}
			}
		}
		if st.Remove, err = taintList(body["remove"], false, at+base+".remove"); err != nil {
			return st, err
		}
		if len(st.Add) == 0 && len(st.Remove) == 0 {
			return st, bad(base, "neither add nor remove")
		}
	case ActDrain:
		if v, ok := body["timeout"]; ok {
			d, err := duration(v)
			if err != nil {
				return st, bad(base+".timeout", "%v", err)
			}
			st.Timeout = &d
		}
	case ActAddNodes:
		if st.Count, err = integer("count", 1); err != nil {
			return st, err
		}
		if st.NamePrefix, err = str("namePrefix", false); err != nil {
			return st, err
		}
		switch t := body["template"].(type) {
		case nil:
			return st, bad(base+".template", "missing (a Node object, or a file holding one)")
		case string:
			if t == "" {
				return st, bad(base+".template", "empty file name")
			}
			st.TemplateFile = t
		case map[string]any:
			if k, ok := t["kind"]; ok && k != "Node" {
				return st, bad(base+".template.kind", "%s, want Node", show(k))
			}
			t["kind"], t["apiVersion"] = "Node", "v1"
			if md, ok := t["metadata"].(map[string]any); !ok || md["name"] == nil {
				if md == nil {
					md = map[string]any{}
				}
				md["name"] = "template" // the nodes get their own names
				t["metadata"] = md
			}
			if st.Template, err = json.Marshal(t); err != nil {
				return st, bad(base+".template", "%v", err)
			}
		default:
			return st, bad(base+".template", "want a Node object or a file name, not %s", show(t))
		}
		if st.NamePrefix != "" {
			for _, msg := range validation.IsDNS1123Subdomain(st.NamePrefix + "0") {
				return st, bad(base+".namePrefix", "%q makes invalid node names: %s", st.NamePrefix, msg)
			}
		}
	case ActScale:
		if st.Kind, err = str("kind", true); err != nil {
			return st, err
		}
		if !slices.Contains(scaleKinds, st.Kind) {
			return st, bad(base+".kind", "%q, want one of %s", st.Kind, strings.Join(scaleKinds, ", "))
		}
		if st.Namespace, err = str("namespace", false); err != nil {
			return st, err
		}
		if st.Namespace == "" {
			st.Namespace = "default"
		}
		if st.Name, err = str("name", true); err != nil {
			return st, err
		}
		if st.Replicas, err = integer("replicas", 0); err != nil {
			return st, err
		}
	case ActApply:
		if st.File, err = str("file", true); err != nil {
			return st, err
		}
	}
	return st, nil
}

// scaleKinds are the workloads scale understands.
var scaleKinds = []string{"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"}

// taintList reads taints to add (key and effect required) or to remove
// (key required, effect optional).
func taintList(v any, add bool, field string) ([]index.Taint, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, &Error{Field: field, Msg: "want a list of taints"}
	}
	var out []index.Taint
	for i, item := range list {
		f := fmt.Sprintf("%s[%d]", field, i)
		m, ok := item.(map[string]any)
		if !ok {
			return nil, &Error{Field: f, Msg: "want {key, value, effect}"}
		}
		var t index.Taint
		for _, k := range slices.Sorted(maps.Keys(m)) {
			s, ok := m[k].(string)
			if !ok {
				return nil, &Error{Field: f + "." + k, Msg: fmt.Sprintf("want a string, not %s", show(m[k]))}
			}
			switch {
			case k == "key":
				t.Key = s
			case k == "value" && add:
				t.Value = s
			case k == "effect":
				t.Effect = s
			default:
				want := "key, effect"
				if add {
					want = "key, value, effect"
				}
				return nil, &Error{Field: f + "." + k, Msg: "unknown field (want " + want + ")"}
			}
		}
		if t.Key == "" {
			return nil, &Error{Field: f + ".key", Msg: "missing"}
		}
		for _, msg := range validation.IsQualifiedName(t.Key) {
			return nil, &Error{Field: f + ".key", Msg: fmt.Sprintf("%q: %s", t.Key, msg)}
		}
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			return nil, &Error{Field: f + ".value", Msg: fmt.Sprintf("%q: %s", t.Value, msg)}
		}
		switch t.Effect {
		case index.EffectNoSchedule, index.EffectPreferNoSchedule, index.EffectNoExecute:
		case "":
			if add {
				return nil, &Error{Field: f + ".effect", Msg: "missing (NoSchedule, PreferNoSchedule or NoExecute)"}
			}
		default:
			return nil, &Error{Field: f + ".effect", Msg: fmt.Sprintf("%q is not a taint effect (NoSchedule, PreferNoSchedule or NoExecute)", t.Effect)}
		}
		out = append(out, t)
	}
	return out, nil
}

// Selector picks nodes: by name, or by a label selector.
type Selector struct {
	Text string
	// Name is set for a node name; Labels otherwise.
	Name   string
	Labels labels.Selector
}

// ParseSelector reads a node name (a word with no selector operator) or a
// label selector in kubectl's syntax (topology.kubernetes.io/zone=a,
// pool in (gpu,cpu), !spot).
func ParseSelector(s string) (Selector, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Selector{}, fmt.Errorf("empty selector")
	}
	if !strings.ContainsAny(s, "=!,() ") {
		for _, msg := range validation.IsDNS1123Subdomain(s) {
			return Selector{}, fmt.Errorf("%q is neither a node name (%s) nor a label selector", s, msg)
		}
		return Selector{Text: s, Name: s}, nil
	}
	sel, err := labels.Parse(s)
	if err != nil {
		return Selector{}, fmt.Errorf("%q: %v", s, err)
	}
	return Selector{Text: s, Labels: sel}, nil
}

// Match reports whether a node matches.
func (s *Selector) Match(name string, nodeLabels map[string]string) bool {
	if s.Labels == nil {
		return name == s.Name
	}
	return s.Labels.Matches(labels.Set(nodeLabels))
}
