package ingest

import (
	"fmt"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kplace/kplace/index"
)

// relations are the pod fields podRelations fills.
type relations struct {
	Spread                                   []index.SpreadConstraint
	Affinity, AntiAffinity                   []index.PodAffinityTerm
	PreferredAffinity, PreferredAntiAffinity []index.WeightedPodAffinityTerm
}

func relationsOf(p *index.Pod) relations {
	return relations{p.Spread, p.Affinity, p.AntiAffinity, p.PreferredAffinity, p.PreferredAntiAffinity}
}

// loadPodYAMLAndJSON loads one pod written as a YAML document, and the
// same document converted to JSON, in every decoding mode; both must give
// the same pod.
func loadPodYAMLAndJSON(t *testing.T, doc string) (*index.Pod, error) {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("test input is not YAML: %v", err)
	}
	var pods [2]*index.Pod
	var errs [2]error
	for i, f := range []struct{ name, text string }{{"pod.yaml", doc}, {"pod.json", string(js)}} {
		path, err := loadText(t, f.name, f.text)
		if err != nil {
			errs[i] = err
			continue
		}
		in, err := Load([]string{path}, Options{})
		if err != nil || len(in.Pods) != 1 {
			t.Fatalf("%s: %v, %d pods", f.name, err, len(in.Pods))
		}
		pods[i] = &in.Pods[0]
		pods[i].Src = index.Source{}
	}
	if (errs[0] == nil) != (errs[1] == nil) {
		t.Fatalf("YAML error %v, JSON error %v", errs[0], errs[1])
	}
	if errs[0] != nil {
		return nil, errs[0]
	}
	if !reflect.DeepEqual(pods[0], pods[1]) {
		t.Fatalf("YAML and JSON differ:\n yaml %+v\n json %+v", relationsOf(pods[0]), relationsOf(pods[1]))
	}
	return pods[0], nil
}

func sel(labels map[string]string, exprs ...index.Requirement) *index.LabelSelector {
	return &index.LabelSelector{MatchLabels: labels, MatchExpressions: exprs}
}

func in(key string, vals ...string) index.Requirement {
	return index.Requirement{Key: key, Operator: index.SelIn, Values: vals}
}

func notIn(key string, vals ...string) index.Requirement {
	return index.Requirement{Key: key, Operator: index.SelNotIn, Values: vals}
}

// spreadDefaults is a constraint as ingest fills an unset one in.
func spreadDefaults(skew int32, key string) index.SpreadConstraint {
	return index.SpreadConstraint{MaxSkew: skew, TopologyKey: key, WhenUnsatisfiable: index.DoNotSchedule,
		MinDomains: 1, NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore}
}

func TestPodRelations(t *testing.T) {
	const head = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: shop\n  labels: {app: web, hash: h1, tier: fe}\n"
	zone := "topology.kubernetes.io/zone"
	withSel := func(c index.SpreadConstraint, s *index.LabelSelector) index.SpreadConstraint {
		c.Selector = s
		return c
	}
	cases := []struct {
		name, spec string
		want       relations
	}{
		{"none", "spec: {containers: [{name: c}]}\n", relations{}},
		{"empty lists and objects", `spec:
  topologySpreadConstraints: []
  affinity: {podAffinity: {}, podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [], preferredDuringSchedulingIgnoredDuringExecution: null}}
`, relations{}},
		{"spread defaults, no selector", `spec:
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone}
`, relations{Spread: []index.SpreadConstraint{spreadDefaults(1, "zone")}}},
		{"spread nulls are defaults", `spec:
  topologySpreadConstraints:
  - {maxSkew: 3, topologyKey: zone, whenUnsatisfiable: null, labelSelector: null, minDomains: null, nodeAffinityPolicy: null, nodeTaintsPolicy: null, matchLabelKeys: null}
`, relations{Spread: []index.SpreadConstraint{spreadDefaults(3, "zone")}}},
		{"spread every field", `spec:
  topologySpreadConstraints:
  - maxSkew: 2
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector:
      matchLabels: {app: web}
      matchExpressions: [{key: track, operator: NotIn, values: [canary]}, {key: gpu, operator: DoesNotExist}]
    minDomains: 5
    nodeAffinityPolicy: Ignore
    nodeTaintsPolicy: Honor
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {}}
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {}}}
`, relations{Spread: []index.SpreadConstraint{
			{MaxSkew: 2, TopologyKey: zone, WhenUnsatisfiable: index.DoNotSchedule, MinDomains: 5,
				Selector:           sel(map[string]string{"app": "web"}, notIn("track", "canary"), index.Requirement{Key: "gpu", Operator: index.SelDoesNotExist}),
				NodeAffinityPolicy: index.PolicyIgnore, NodeTaintsPolicy: index.PolicyHonor},
			{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: index.ScheduleAnyway, MinDomains: 1, Selector: sel(nil),
				NodeAffinityPolicy: index.PolicyHonor, NodeTaintsPolicy: index.PolicyIgnore},
			withSel(spreadDefaults(1, "zone"), sel(map[string]string{})),
		}}},
		{"spread matchLabelKeys merged for the keys the pod has", `spec:
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [hash, absent, tier]}
  - {maxSkew: 1, topologyKey: host, labelSelector: {}, matchLabelKeys: [absent]}
`, relations{Spread: []index.SpreadConstraint{
			func() index.SpreadConstraint {
				c := withSel(spreadDefaults(1, "zone"), sel(map[string]string{"app": "web"}, in("hash", "h1"), in("tier", "fe")))
				c.MatchLabelKeys = []string{"hash", "absent", "tier"}
				return c
			}(),
			func() index.SpreadConstraint {
				c := withSel(spreadDefaults(1, "host"), sel(nil))
				c.MatchLabelKeys = []string{"absent"}
				return c
			}(),
		}}},
		{"spread matchLabelKeys already merged (read back from a cluster)", `spec:
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: zone
    labelSelector: {matchExpressions: [{key: hash, operator: In, values: [h1]}, {key: hash, operator: In, values: [h0]}]}
    matchLabelKeys: [hash]
`, relations{Spread: []index.SpreadConstraint{func() index.SpreadConstraint {
			c := withSel(spreadDefaults(1, "zone"), sel(nil, in("hash", "h1"), in("hash", "h0")))
			c.MatchLabelKeys = []string{"hash"}
			return c
		}()}}},
		{"required affinity terms", `spec:
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {labelSelector: {matchLabels: {app: db}}, topologyKey: zone}
      - {labelSelector: {matchLabels: {app: db}}, topologyKey: zone, namespaces: [a, b]}
      - {labelSelector: {matchLabels: {app: db}}, topologyKey: zone, namespaceSelector: {}}
      - {labelSelector: {matchLabels: {app: db}}, topologyKey: zone, namespaces: [], namespaceSelector: {matchLabels: {team: x}}}
      - {labelSelector: {matchLabels: {app: db}}, topologyKey: zone, namespaces: [a], namespaceSelector: {matchExpressions: [{key: env, operator: In, values: [prod]}]}}
      - {topologyKey: zone, namespaceSelector: null}
`, relations{Affinity: []index.PodAffinityTerm{
			{Selector: sel(map[string]string{"app": "db"}), TopologyKey: "zone", Namespaces: []string{"shop"}},
			{Selector: sel(map[string]string{"app": "db"}), TopologyKey: "zone", Namespaces: []string{"a", "b"}},
			{Selector: sel(map[string]string{"app": "db"}), TopologyKey: "zone", NamespaceSelector: sel(nil)},
			{Selector: sel(map[string]string{"app": "db"}), TopologyKey: "zone", NamespaceSelector: sel(map[string]string{"team": "x"})},
			{Selector: sel(map[string]string{"app": "db"}), TopologyKey: "zone", Namespaces: []string{"a"}, NamespaceSelector: sel(nil, in("env", "prod"))},
			{TopologyKey: "zone", Namespaces: []string{"shop"}},
		}}},
		{"matchLabelKeys and mismatchLabelKeys merged", `spec:
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: web}}
        topologyKey: host
        matchLabelKeys: [hash, absent]
        mismatchLabelKeys: [tier, missing]
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 1
        podAffinityTerm: {labelSelector: {}, topologyKey: host, mismatchLabelKeys: [app]}
    podAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm: {labelSelector: {matchExpressions: [{key: hash, operator: In, values: [h1]}]}, topologyKey: zone, matchLabelKeys: [hash]}
`, relations{
			AntiAffinity: []index.PodAffinityTerm{{Selector: sel(map[string]string{"app": "web"}, in("hash", "h1"), notIn("tier", "fe")),
				TopologyKey: "host", Namespaces: []string{"shop"}, MatchLabelKeys: []string{"hash", "absent"}, MismatchLabelKeys: []string{"tier", "missing"}}},
			PreferredAntiAffinity: []index.WeightedPodAffinityTerm{{Weight: 1, Term: index.PodAffinityTerm{Selector: sel(nil, notIn("app", "web")),
				TopologyKey: "host", Namespaces: []string{"shop"}, MismatchLabelKeys: []string{"app"}}}},
			PreferredAffinity: []index.WeightedPodAffinityTerm{{Weight: 100, Term: index.PodAffinityTerm{Selector: sel(nil, in("hash", "h1")),
				TopologyKey: "zone", Namespaces: []string{"shop"}, MatchLabelKeys: []string{"hash"}}}},
		}},
		{"bound pod", `spec:
  nodeName: node-1
  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, labelSelector: {matchLabels: {app: web}}}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: web}}, topologyKey: host}]
    podAffinity:
      preferredDuringSchedulingIgnoredDuringExecution: [{weight: 7, podAffinityTerm: {labelSelector: {matchLabels: {app: db}}, topologyKey: zone, namespaces: [db]}}]
`, relations{
			Spread:            []index.SpreadConstraint{withSel(spreadDefaults(1, "zone"), sel(map[string]string{"app": "web"}))},
			AntiAffinity:      []index.PodAffinityTerm{{Selector: sel(map[string]string{"app": "web"}), TopologyKey: "host", Namespaces: []string{"shop"}}},
			PreferredAffinity: []index.WeightedPodAffinityTerm{{Weight: 7, Term: index.PodAffinityTerm{Selector: sel(map[string]string{"app": "db"}), TopologyKey: "zone", Namespaces: []string{"db"}}}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := loadPodYAMLAndJSON(t, head+tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := relationsOf(p); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n  %s\nwant\n  %s", show(got), show(tc.want))
			}
			if p.Unsupported != "" {
				t.Errorf("Unsupported %q", p.Unsupported)
			}
		})
	}
}

// show prints relations with selectors dereferenced.
func show(r relations) string {
	s := func(l *index.LabelSelector) string {
		if l == nil {
			return "nil"
		}
		return fmt.Sprintf("&%+v", *l)
	}
	term := func(t index.PodAffinityTerm) string {
		return fmt.Sprintf("{Selector:%s Namespaces:%q NamespaceSelector:%s TopologyKey:%s MatchLabelKeys:%q MismatchLabelKeys:%q}",
			s(t.Selector), t.Namespaces, s(t.NamespaceSelector), t.TopologyKey, t.MatchLabelKeys, t.MismatchLabelKeys)
	}
	out := ""
	for _, c := range r.Spread {
		out += fmt.Sprintf("spread %+v selector %s\n  ", c, s(c.Selector))
	}
	for name, ts := range map[string][]index.PodAffinityTerm{"affinity": r.Affinity, "anti": r.AntiAffinity} {
		for _, t := range ts {
			out += name + " " + term(t) + "\n  "
		}
	}
	for name, ts := range map[string][]index.WeightedPodAffinityTerm{"preferred": r.PreferredAffinity, "preferred anti": r.PreferredAntiAffinity} {
		for _, t := range ts {
			out += fmt.Sprintf("%s %d %s\n  ", name, t.Weight, term(t.Term))
		}
	}
	return out
}

// TestPodRelationsStillUnsupported: the relations no longer mark a pod
// unsupported; volumes and resource claims still do.
func TestPodRelationsStillUnsupported(t *testing.T) {
	p, err := loadPodYAMLAndJSON(t, `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone}]
  affinity:
    podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone}]}
    podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone}]}
  volumes: [{name: d, persistentVolumeClaim: {claimName: d}}]
`)
	if err != nil {
		t.Fatal(err)
	}
	if p.Unsupported != "volumes" || len(p.Spread) != 1 || len(p.Affinity) != 1 || len(p.AntiAffinity) != 1 {
		t.Errorf("Unsupported %q, relations %s", p.Unsupported, show(relationsOf(p)))
	}
}

func TestPodRelationErrors(t *testing.T) {
	const tsc = "spec.topologySpreadConstraints"
	const req = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"
	const antiPref = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution"
	cases := []struct {
		name, spec, want string
	}{
		{"maxSkew 0", `{"topologySpreadConstraints": [{"maxSkew": 0, "topologyKey": "z"}]}`, tsc + `[0].maxSkew: must be at least 1, found 0`},
		{"maxSkew missing", `{"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z"}, {"topologyKey": "h"}]}`, tsc + `[1].maxSkew: must be at least 1, found 0`},
		{"maxSkew negative", `{"topologySpreadConstraints": [{"maxSkew": -2, "topologyKey": "z"}]}`, tsc + `[0].maxSkew: must be at least 1, found -2`},
		{"maxSkew not a number", `{"topologySpreadConstraints": [{"maxSkew": "1", "topologyKey": "z"}]}`, tsc + `[0].maxSkew: expected an int32, found a string`},
		{"spread topologyKey missing", `{"topologySpreadConstraints": [{"maxSkew": 1}]}`, tsc + `[0].topologyKey: missing`},
		{"unknown whenUnsatisfiable", `{"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "whenUnsatisfiable": "Never"}]}`,
			tsc + `[0].whenUnsatisfiable: unknown action "Never" (want DoNotSchedule or ScheduleAnyway)`},
		{"minDomains 0", `{"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "minDomains": 0}]}`, tsc + `[0].minDomains: must be at least 1, found 0`},
		{"minDomains with ScheduleAnyway", `{"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 2}]}`,
			tsc + `[0].minDomains: may only be set when whenUnsatisfiable is DoNotSchedule, not ScheduleAnyway`},
		{"unknown nodeAffinityPolicy", `{"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "nodeAffinityPolicy": "Maybe"}]}`,
			tsc + `[0].nodeAffinityPolicy: unknown policy "Maybe" (want Honor or Ignore)`},
		{"empty nodeTaintsPolicy", `{"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "nodeTaintsPolicy": ""}]}`,
			tsc + `[0].nodeTaintsPolicy: unknown policy "" (want Honor or Ignore)`},
		{"repeated constraint", `{"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z"}, {"maxSkew": 1, "topologyKey": "h"}, {"maxSkew": 2, "topologyKey": "z", "whenUnsatisfiable": "DoNotSchedule"}]}`,
			tsc + `[2]: same topologyKey and whenUnsatisfiable (z, DoNotSchedule) as ` + tsc + `[0]`},
		{"spread matchLabelKeys without selector", `{"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "matchLabelKeys": ["app"]}]}`,
			tsc + `[0].matchLabelKeys: must not be set when labelSelector is not set`},
		{"spread selector operator", `{"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "labelSelector": {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}}]}`,
			tsc + `[0].labelSelector.matchExpressions[0].operator: unknown operator "Gt"`},
		{"spread selector In without values", `{"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "labelSelector": {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}}]}`,
			tsc + `[0].labelSelector.matchExpressions[0].values: must be specified when operator is In`},
		{"spread selector not an object", `{"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "labelSelector": "app=web"}]}`,
			tsc + `[0].labelSelector: expected '{', found a string`},
		{"affinity topologyKey missing", `{"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}}]}}}`, req + `[0].topologyKey: missing`},
		{"affinity selector operator", `{"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchExpressions": [{"key": "a", "operator": "in", "values": ["x"]}]}, "topologyKey": "z"}]}}}`,
			req + `[0].labelSelector.matchExpressions[0].operator: unknown operator "in"`},
		{"namespaceSelector Exists with values", `{"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"namespaceSelector": {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}, "topologyKey": "z"}]}}}`,
			req + `[0].namespaceSelector.matchExpressions[0].values: may not be specified when operator is Exists`},
		{"mismatchLabelKeys without selector", `{"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"mismatchLabelKeys": ["a"], "topologyKey": "z"}]}}}`,
			req + `[0].mismatchLabelKeys: must not be set when labelSelector is not set`},
		{"key in matchLabelKeys and mismatchLabelKeys", `{"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}, "matchLabelKeys": ["a", "b"], "mismatchLabelKeys": ["b"], "topologyKey": "z"}]}}}`,
			req + `[0].matchLabelKeys[1]: "b" is also in mismatchLabelKeys`},
		{"weight 0", `{"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"podAffinityTerm": {"topologyKey": "z"}}]}}}`,
			antiPref + `[0].weight: must be in the range 1-100, found 0`},
		{"weight negative", `{"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "podAffinityTerm": {"topologyKey": "z"}}, {"weight": -5, "podAffinityTerm": {"topologyKey": "z"}}]}}}`,
			antiPref + `[1].weight: must be in the range 1-100, found -5`},
		{"weight 101", `{"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 101, "podAffinityTerm": {"topologyKey": "z"}}]}}}`,
			antiPref + `[0].weight: must be in the range 1-100, found 101`},
		{"preferred term topologyKey missing", `{"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {}}]}}}`,
			antiPref + `[0].podAffinityTerm.topologyKey: missing`},
		{"namespaces not a list", `{"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"namespaces": "a", "topologyKey": "z"}]}}}`,
			req + `[0].namespaces: expected '[', found a string`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The pod is the second item of a list, on line 3.
			text := "{\"kind\": \"List\", \"items\": [\n{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"shop\"}},\n" +
				`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "shop"}, "spec": ` + tc.spec + "}\n]}\n"
			path, err := loadText(t, "pods.json", text)
			wantErr(t, path, err, "pods.json:3: Pod shop/p: "+tc.want)
			// The same in YAML (JSON is flow-style YAML), on line 4.
			text = "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec: " + tc.spec + "\n"
			path, err = loadText(t, "pods.yaml", text)
			wantErr(t, path, err, "pods.yaml:5: Pod shop/p: "+tc.want)
		})
	}
}
