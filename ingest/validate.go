package ingest

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/kplace/kplace/index"
)

// Validation of the model: what API validation rejects, checked on the
// index types, so that JSON and YAML input (once converted) and snapshots
// (which skip conversion) pass the same rules. Conversion keeps only the
// checks that need the wire form: syntax and types, presence (minDomains
// set with ScheduleAnyway), and fields the model does not keep one to one
// (each container's quantities and ports). The cross-object checks
// (duplicates, a second globalDefault class) are the loader's, run
// on both paths too (see loader.apply and loader.admitSnapshot).
//
// Errors name the object and the field; the field is the object's JSON
// path where the model keeps the field one to one.

// completionsMinusOne is a Job's spec.completions of -1 as given (refused):
// the model's -1 means unset.
const completionsMinusOne = math.MinInt32

// Priority limits of scheduling.k8s.io (pkg/apis/scheduling).
const (
	highestUserPriority = 1000000000
	systemClassPrefix   = "system-"
)

// quantityInRange reports whether v, a quantity in engine units
// (millicores for cpu, whole units otherwise), is one the engine can hold:
// not negative, and below 2^63-1 (a binary-suffixed value that
// apimachinery saturates there is out of range).
func quantityInRange(v int64) bool { return v >= 0 && v < math.MaxInt64 }

// validName checks a metadata.name (and the namespace of namespaced
// objects) by the rule of c's kind.
func (c *objCtx) validName() error {
	valid, rule := index.ValidDNS1123Subdomain, "a DNS-1123 subdomain (at most 253 lower case alphanumerics, '-' and '.', each dot-separated part starting and ending alphanumeric)"
	switch c.kind {
	case kindNamespace:
		valid, rule = index.ValidDNS1123Label, dns1123LabelRule
	case index.KindService:
		valid, rule = index.ValidDNS1035Label, "a DNS-1035 label (at most 63 lower case alphanumerics and '-', starting with a letter, ending alphanumeric)"
	}
	if c.name == "" {
		return c.errf("metadata.name", "missing")
	}
	if !valid(c.name) {
		return c.errf("metadata.name", "invalid name %s: must be %s", quoteName(c.name), rule)
	}
	if namespaced(c.kind) && !index.ValidDNS1123Label(c.ns) {
		return c.errf("metadata.namespace", "invalid namespace %s: must be %s", quoteName(c.ns), dns1123LabelRule)
	}
	return nil
}

const dns1123LabelRule = "a DNS-1123 label (at most 63 lower case alphanumerics and '-', starting and ending alphanumeric)"

// labelNameProblem says what API validation finds wrong with name, which
// must be a DNS-1123 label and unique among its peers (duplicate: an
// earlier one has it): a container's, a volume claim template's. "" when
// nothing.
func labelNameProblem(name string, duplicate bool) string {
	switch {
	case name == "":
		return "required"
	case !index.ValidDNS1123Label(name):
		return "invalid name " + quoteName(name) + ": must be " + dns1123LabelRule
	case duplicate:
		return "duplicate name " + quoteName(name)
	}
	return ""
}

// quoteName quotes a name for an error, shortened when very long.
func quoteName(s string) string {
	if len(s) > 80 {
		return fmt.Sprintf("%q... (%d bytes)", s[:60], len(s))
	}
	return strconv.Quote(s)
}

// validLabels checks a label map (metadata.labels, nodeSelector,
// matchLabels) as ValidateLabels does: qualified-name keys, label values.
// Of several invalid pairs, the error names the first in key order (not
// the map's random order: the same input gives the same error).
func (c *objCtx) validLabels(m map[string]string, field *lazyPath) error {
	for k, v := range m {
		if !index.ValidQualifiedName(k) || !index.ValidLabelValue(v) {
			return c.labelErr(m, field)
		}
	}
	return nil
}

// validLabelsOnce is validLabels, passing at once the map *ok (the last
// one it passed).
func (c *objCtx) validLabelsOnce(m map[string]string, field *lazyPath, ok *map[string]string) error {
	if m != nil && reflect.ValueOf(m).UnsafePointer() == reflect.ValueOf(*ok).UnsafePointer() {
		return nil
	}
	if err := c.validLabels(m, field); err != nil {
		return err
	}
	*ok = m
	return nil
}

func (c *objCtx) labelErr(m map[string]string, field *lazyPath) error {
	for _, k := range sortedKeys(m, nil) {
		if !index.ValidQualifiedName(k) {
			return c.errf(field.String(), "invalid label key %s: %s", quoteName(k), qualifiedNameRule)
		}
		if v := m[k]; !index.ValidLabelValue(v) {
			return c.errf(field.String()+"."+k, "invalid label value %s: %s", quoteName(v), labelValueRule)
		}
	}
	return nil
}

// Paths of fields the checks start from (shared, never written).
var (
	pathLabels       = &lazyPath{name: "metadata.labels", idx: -1}
	pathNodeSelector = &lazyPath{name: "spec.nodeSelector", idx: -1}
	pathSelectorExpr = &lazyPath{name: "spec.selector.matchExpressions", idx: -1}
)

const (
	qualifiedNameRule = "want an optional DNS subdomain and '/', then at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric"
	labelValueRule    = "want at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric, or empty"
)

// validKey checks a label key used as a field value (a taint key, a
// topologyKey): field is at's path then sub.
func (c *objCtx) validKey(k string, at *lazyPath, sub string) error {
	if k == "" {
		return c.errf(at.String()+sub, "missing")
	}
	if !index.ValidQualifiedName(k) {
		return c.errf(at.String()+sub, "invalid key %s: %s", quoteName(k), qualifiedNameRule)
	}
	return nil
}

func (c *objCtx) validResources(l index.ResourceList, field string) error {
	for _, q := range l {
		if !quantityInRange(q.Value) {
			return c.errf(field+"."+q.Name, "quantity %d out of range (0 to 2^63-2)", q.Value)
		}
	}
	return nil
}

// validNode checks a node.
func (c *objCtx) validNode(n *index.Node) error {
	if err := c.validName(); err != nil {
		return err
	}
	if err := c.validLabels(n.Labels, pathLabels); err != nil {
		return err
	}
	for i := range n.Taints {
		t := &n.Taints[i]
		at := lazyPath{name: "spec.taints", idx: i}
		f := func(sub string) string { return at.String() + sub } // errors only
		if t.Key == "" {
			return c.errf(f(".key"), "taint key is empty")
		}
		if err := c.validKey(t.Key, &at, ".key"); err != nil {
			return err
		}
		if !index.ValidLabelValue(t.Value) {
			return c.errf(f(".value"), "invalid taint value %s: %s", quoteName(t.Value), labelValueRule)
		}
		if !validEffect(t.Effect) {
			return c.errf(f(".effect"), "unknown taint effect %q", t.Effect)
		}
		for j := range n.Taints[:i] {
			if n.Taints[j].Key == t.Key && n.Taints[j].Effect == t.Effect {
				return c.errf(f(""), "same key and effect (%s, %s) as spec.taints[%d]", t.Key, t.Effect, j)
			}
		}
	}
	return c.validResources(n.Allocatable, "status.allocatable")
}

// validPod checks a pod.
func (c *objCtx) validPod(p *index.Pod) error {
	if err := c.validName(); err != nil {
		return err
	}
	if err := c.validLabelsOnce(p.Labels, pathLabels, &c.labelsOK); err != nil {
		return err
	}
	if p.NodeName != "" && !index.ValidDNS1123Subdomain(p.NodeName) {
		return c.errf("spec.nodeName", "invalid node name %s", quoteName(p.NodeName))
	}
	if p.PriorityClassName != "" && p.PriorityClassName != c.classOK {
		if !index.ValidDNS1123Subdomain(p.PriorityClassName) {
			return c.errf("spec.priorityClassName", "invalid name %s: must be a DNS-1123 subdomain", quoteName(p.PriorityClassName))
		}
		c.classOK = p.PriorityClassName
	}
	if err := c.validResources(p.Requests, "spec (effective requests)"); err != nil {
		return err
	}
	for _, v := range [...]int64{p.ScoreCPU, p.ScoreMemory, p.NonZeroCPU, p.NonZeroMemory} {
		if !quantityInRange(v) {
			return c.errf("spec (scoring requests)", "quantity %d out of range (0 to 2^63-2)", v)
		}
	}
	if ts, ok := p.Tolerations, c.tolerationsOK; len(ts) == 0 || len(ts) != len(ok) || &ts[0] != &ok[0] {
		if err := c.validTolerations(ts); err != nil {
			return err
		}
		c.tolerationsOK = ts
	}
	if err := c.validLabelsOnce(p.NodeSelector, pathNodeSelector, &c.selectorOK); err != nil {
		return err
	}
	if err := c.validNodeAffinity(p); err != nil {
		return err
	}
	for _, hp := range p.HostPorts {
		if hp.Port < 1 || hp.Port > 65535 {
			return c.errf("spec (host ports)", "hostPort %d: must be in the range 1-65535", hp.Port)
		}
		if !validProtocol(hp.Protocol) {
			return c.errf("spec (host ports)", "hostPort %d: unknown protocol %q", hp.Port, hp.Protocol)
		}
	}
	if p.PreemptionPolicy != "" && !validPreemptionPolicy(p.PreemptionPolicy) {
		return c.errf("spec.preemptionPolicy", "unknown preemption policy %q", p.PreemptionPolicy)
	}
	if err := c.validSpread(p.Spread); err != nil {
		return err
	}
	const aff, anti = "spec.affinity.podAffinity", "spec.affinity.podAntiAffinity"
	if err := c.validPodAffinityTerms(p.Affinity, aff); err != nil {
		return err
	}
	if err := c.validWeightedTerms(p.PreferredAffinity, aff); err != nil {
		return err
	}
	if err := c.validPodAffinityTerms(p.AntiAffinity, anti); err != nil {
		return err
	}
	return c.validWeightedTerms(p.PreferredAntiAffinity, anti)
}

func validProtocol(p string) bool { return p == "TCP" || p == "UDP" || p == "SCTP" }

// validTolerations follows ValidateTolerations: a key is a label key; an
// empty key needs operator Exists; Exists takes no value, Equal a label
// value; tolerationSeconds only with effect NoExecute.
func (c *objCtx) validTolerations(ts []index.Toleration) error {
	for i := range ts {
		t := &ts[i]
		at := lazyPath{name: "spec.tolerations", idx: i}
		f := func(sub string) string { return at.String() + sub } // errors only
		switch t.Operator {
		case index.OpEqual, "":
			if !index.ValidLabelValue(t.Value) {
				return c.errf(f(".value"), "invalid toleration value %s: %s", quoteName(t.Value), labelValueRule)
			}
		case index.OpExists:
			if t.Value != "" {
				return c.errf(f(".value"), "must be empty when operator is Exists")
			}
		default:
			return c.errf(f(".operator"), "unknown toleration operator %q", t.Operator)
		}
		if t.Key == "" {
			if t.Operator != index.OpExists {
				return c.errf(f(".operator"), "must be Exists when key is empty (it then tolerates every taint)")
			}
		} else if err := c.validKey(t.Key, &at, ".key"); err != nil {
			return err
		}
		if t.Effect != "" && !validEffect(t.Effect) {
			return c.errf(f(".effect"), "unknown taint effect %q", t.Effect)
		}
		if t.TolerationSeconds != nil && t.Effect != index.EffectNoExecute {
			return c.errf(f(".effect"), "must be NoExecute when tolerationSeconds is set")
		}
	}
	return nil
}

func validNodeSelectorOp(op string) bool {
	switch op {
	case index.SelIn, index.SelNotIn, index.SelExists, index.SelDoesNotExist, index.SelGt, index.SelLt:
		return true
	}
	return false
}

func validLabelSelectorOp(op string) bool {
	switch op {
	case index.SelIn, index.SelNotIn, index.SelExists, index.SelDoesNotExist:
		return true
	}
	return false
}

// validOps checks the operators of a list of requirements.
func (c *objCtx) validOps(rs []index.Requirement, field *lazyPath, valid func(string) bool) error {
	for i := range rs {
		if !valid(rs[i].Operator) {
			return c.errf(field.String()+"["+strconv.Itoa(i)+"].operator", "unknown operator %q", rs[i].Operator)
		}
	}
	return nil
}

func (c *objCtx) validTerm(t *index.NodeSelectorTerm, field *lazyPath) error {
	if err := c.validOps(t.MatchExpressions, &lazyPath{up: field, name: ".matchExpressions", idx: -1}, validNodeSelectorOp); err != nil {
		return err
	}
	return c.validOps(t.MatchFields, &lazyPath{up: field, name: ".matchFields", idx: -1}, validNodeSelectorOp)
}

// validNodeAffinity checks the operators of the node affinity terms and
// the weights of the preferred ones (1-100, as
// ValidatePreferredSchedulingTerms). Requirements that are invalid
// otherwise match nothing, as in kube-scheduler.
func (c *objCtx) validNodeAffinity(p *index.Pod) error {
	const base = "spec.affinity.nodeAffinity."
	for i := range p.RequiredTerms {
		at := lazyPath{name: base + "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms", idx: i}
		if err := c.validTerm(&p.RequiredTerms[i], &at); err != nil {
			return err
		}
	}
	for i := range p.PreferredTerms {
		pt := &p.PreferredTerms[i]
		at := lazyPath{name: base + "preferredDuringSchedulingIgnoredDuringExecution", idx: i}
		if pt.Weight < 1 || pt.Weight > 100 {
			return c.errf(at.String()+".weight", "must be in the range 1-100, found %d", pt.Weight)
		}
		if err := c.validTerm(&pt.Term, &lazyPath{up: &at, name: ".preference", idx: -1}); err != nil {
			return err
		}
	}
	return nil
}

// validSelector checks a pod label selector as ValidateLabelSelector does:
// operators In, NotIn, Exists or DoesNotExist, values for In and NotIn and
// none for the others, label keys and values.
func (c *objCtx) validSelector(s *index.LabelSelector, field *lazyPath) error {
	if s == nil {
		return nil
	}
	if err := c.validLabels(s.MatchLabels, &lazyPath{up: field, name: ".matchLabels", idx: -1}); err != nil {
		return err
	}
	exprs := lazyPath{up: field, name: ".matchExpressions", idx: -1}
	if err := c.validOps(s.MatchExpressions, &exprs, validLabelSelectorOp); err != nil {
		return err
	}
	for i, r := range s.MatchExpressions {
		at := func() string { return exprs.String() + "[" + strconv.Itoa(i) + "]" } // errors only
		msg := ""
		switch r.Operator {
		case index.SelIn, index.SelNotIn:
			if len(r.Values) == 0 {
				msg = "must be specified when operator is %s"
			}
		default:
			if len(r.Values) > 0 {
				msg = "may not be specified when operator is %s"
			}
		}
		if msg != "" {
			return c.errf(at()+".values", msg, r.Operator)
		}
		if err := c.validKey(r.Key, &lazyPath{up: &exprs, idx: i}, ".key"); err != nil {
			return err
		}
		for j, v := range r.Values {
			if !index.ValidLabelValue(v) {
				return c.errf(at()+".values["+strconv.Itoa(j)+"]", "invalid label value %s: %s", quoteName(v), labelValueRule)
			}
		}
	}
	return nil
}

// validSelectorOps checks only the operators of a selector: budgets and
// workloads whose selectors are otherwise invalid match nothing.
func (c *objCtx) validSelectorOps(s *index.LabelSelector) error {
	if s == nil {
		return nil
	}
	return c.validOps(s.MatchExpressions, pathSelectorExpr, validLabelSelectorOp)
}

func validSpreadAction(s string) bool { return s == index.DoNotSchedule || s == index.ScheduleAnyway }

func validInclusionPolicy(s string) bool { return s == index.PolicyHonor || s == index.PolicyIgnore }

// validSpread checks topology spread constraints, defaults applied, as
// validateTopologySpreadConstraints does: maxSkew at least 1, a topology
// key, a known whenUnsatisfiable and node inclusion policies, minDomains
// at least 1 and only with DoNotSchedule, no two constraints with the same
// topologyKey and whenUnsatisfiable, matchLabelKeys only with a
// labelSelector.
func (c *objCtx) validSpread(cs []index.SpreadConstraint) error {
	const base = "spec.topologySpreadConstraints"
	for i := range cs {
		sc := &cs[i]
		at := lazyPath{name: base, idx: i}
		f := func(sub string) string { return at.String() + sub } // errors only
		if sc.MaxSkew < 1 {
			return c.errf(f(".maxSkew"), "must be at least 1, found %d", sc.MaxSkew)
		}
		if err := c.validKey(sc.TopologyKey, &at, ".topologyKey"); err != nil {
			return err
		}
		if !validSpreadAction(sc.WhenUnsatisfiable) {
			return c.errf(f(".whenUnsatisfiable"), "unknown action %q (want %s or %s)",
				sc.WhenUnsatisfiable, index.DoNotSchedule, index.ScheduleAnyway)
		}
		if sc.MinDomains < 1 {
			return c.errf(f(".minDomains"), "must be at least 1, found %d", sc.MinDomains)
		}
		if sc.MinDomains != 1 && sc.WhenUnsatisfiable != index.DoNotSchedule {
			return c.errf(f(".minDomains"), "may only be set when whenUnsatisfiable is %s, not %s",
				index.DoNotSchedule, sc.WhenUnsatisfiable)
		}
		if !validInclusionPolicy(sc.NodeAffinityPolicy) {
			return c.errf(f(".nodeAffinityPolicy"), "unknown policy %q (want %s or %s)", sc.NodeAffinityPolicy, index.PolicyHonor, index.PolicyIgnore)
		}
		if !validInclusionPolicy(sc.NodeTaintsPolicy) {
			return c.errf(f(".nodeTaintsPolicy"), "unknown policy %q (want %s or %s)", sc.NodeTaintsPolicy, index.PolicyHonor, index.PolicyIgnore)
		}
		for j := range cs[:i] {
			if cs[j].TopologyKey == sc.TopologyKey && cs[j].WhenUnsatisfiable == sc.WhenUnsatisfiable {
				return c.errf(f(""), "same topologyKey and whenUnsatisfiable (%s, %s) as %s[%d]",
					sc.TopologyKey, sc.WhenUnsatisfiable, base, j)
			}
		}
		if err := c.validSelector(sc.Selector, &lazyPath{up: &at, name: ".labelSelector", idx: -1}); err != nil {
			return err
		}
		if len(sc.MatchLabelKeys) > 0 && sc.Selector == nil {
			return c.errf(f(".matchLabelKeys"), "must not be set when labelSelector is not set")
		}
	}
	return nil
}

// validPodAffinityTerms checks required pod (anti-)affinity terms; base
// is the path of the PodAffinity or PodAntiAffinity.
func (c *objCtx) validPodAffinityTerms(ts []index.PodAffinityTerm, base string) error {
	root := lazyPath{name: base, idx: -1}
	for i := range ts {
		if err := c.validPodAffinityTerm(&ts[i], &lazyPath{up: &root, name: ".requiredDuringSchedulingIgnoredDuringExecution", idx: i}); err != nil {
			return err
		}
	}
	return nil
}

// validWeightedTerms checks preferred pod (anti-)affinity terms: weights
// in 1..100 (validateWeightedPodAffinityTerms).
func (c *objCtx) validWeightedTerms(ts []index.WeightedPodAffinityTerm, base string) error {
	root := lazyPath{name: base, idx: -1}
	for i := range ts {
		at := lazyPath{up: &root, name: ".preferredDuringSchedulingIgnoredDuringExecution", idx: i}
		if w := ts[i].Weight; w < 1 || w > 100 {
			return c.errf(at.String()+".weight", "must be in the range 1-100, found %d", w)
		}
		if err := c.validPodAffinityTerm(&ts[i].Term, &lazyPath{up: &at, name: ".podAffinityTerm", idx: -1}); err != nil {
			return err
		}
	}
	return nil
}

// validPodAffinityTerm checks one term as validatePodAffinityTerm does: its
// selectors, namespace names, a topology key; matchLabelKeys and
// mismatchLabelKeys only with a labelSelector, sharing no key.
func (c *objCtx) validPodAffinityTerm(t *index.PodAffinityTerm, at *lazyPath) error {
	if err := c.validSelector(t.Selector, &lazyPath{up: at, name: ".labelSelector", idx: -1}); err != nil {
		return err
	}
	if err := c.validSelector(t.NamespaceSelector, &lazyPath{up: at, name: ".namespaceSelector", idx: -1}); err != nil {
		return err
	}
	for j, ns := range t.Namespaces {
		if !index.ValidDNS1123Label(ns) {
			return c.errf(fmt.Sprintf("%s.namespaces[%d]", at.String(), j), "invalid namespace %s: must be %s", quoteName(ns), dns1123LabelRule)
		}
	}
	if err := c.validKey(t.TopologyKey, at, ".topologyKey"); err != nil {
		return err
	}
	if t.Selector == nil {
		if len(t.MatchLabelKeys) > 0 {
			return c.errf(at.String()+".matchLabelKeys", "must not be set when labelSelector is not set")
		}
		if len(t.MismatchLabelKeys) > 0 {
			return c.errf(at.String()+".mismatchLabelKeys", "must not be set when labelSelector is not set")
		}
	}
	for i, k := range t.MatchLabelKeys {
		for _, m := range t.MismatchLabelKeys {
			if m == k {
				return c.errf(fmt.Sprintf("%s.matchLabelKeys[%d]", at.String(), i), "%q is also in mismatchLabelKeys", k)
			}
		}
	}
	return nil
}

func validEffect(e string) bool {
	return e == index.EffectNoSchedule || e == index.EffectPreferNoSchedule || e == index.EffectNoExecute
}

func validPreemptionPolicy(p string) bool {
	return p == index.PreemptLowerPriority || p == index.PreemptNever
}

// validPriorityClass follows ValidatePriorityClass: names starting with
// "system-" are the built-in classes only, with their values; other
// classes are at most 1,000,000,000.
func (c *objCtx) validPriorityClass(pc *index.PriorityClass) error {
	if err := c.validName(); err != nil {
		return err
	}
	if strings.HasPrefix(pc.Name, systemClassPrefix) {
		known := false
		for _, sc := range systemPriorityClasses {
			known = known || sc.Name == pc.Name && sc.Value == pc.Value && !pc.GlobalDefault
		}
		if !known {
			return c.errf("metadata.name", "names starting with %q are reserved for the built-in classes (system-node-critical %d, system-cluster-critical %d, not globalDefault)",
				systemClassPrefix, systemPriorityClasses[0].Value, systemPriorityClasses[1].Value)
		}
	} else if pc.Value > highestUserPriority {
		return c.errf("value", "%d is above %d, the highest priority a user-defined class may have", pc.Value, highestUserPriority)
	}
	if pc.PreemptionPolicy != "" && !validPreemptionPolicy(pc.PreemptionPolicy) {
		return c.errf("preemptionPolicy", "unknown preemption policy %q", pc.PreemptionPolicy)
	}
	return nil
}

// validPDB checks a PodDisruptionBudget: minAvailable and maxUnavailable
// are a non-negative integer or a percentage up to 100%
// (validatePositiveIntOrPercent, IsNotMoreThan100Percent); its selector's
// operators are known.
func (c *objCtx) validPDB(b *index.PDB) error {
	if err := c.validName(); err != nil {
		return err
	}
	for _, f := range [...]struct{ name, v string }{{"spec.minAvailable", b.MinAvailable}, {"spec.maxUnavailable", b.MaxUnavailable}} {
		if f.v == "" {
			continue
		}
		digits, pct := strings.CutSuffix(f.v, "%")
		if n, err := strconv.ParseUint(digits, 10, 31); err != nil || pct && n > 100 {
			return c.errf(f.name, "invalid value %s: want an integer of at least 0 or a percentage from 0%% to 100%%", quoteName(f.v))
		}
	}
	if b.DisruptionsAllowed < -1 {
		return c.errf("status.disruptionsAllowed", "must be at least 0, found %d", b.DisruptionsAllowed)
	}
	return c.validSelectorOps(b.Selector)
}

// validNamespace checks a namespace's name and labels.
func (c *objCtx) validNamespace(ns *index.Namespace) error {
	if err := c.validName(); err != nil {
		return err
	}
	return c.validLabels(ns.Labels, pathLabels)
}

// validWorkload checks a Service or a controller: its kind, name,
// selector's operators and counts.
func (c *objCtx) validWorkload(w *index.Workload) error {
	switch w.Kind {
	case index.KindService, index.KindReplicaSet, index.KindStatefulSet, index.KindReplicationController,
		index.KindDeployment, index.KindDaemonSet, index.KindJob:
	default:
		return c.errf("kind", "not a workload kind: %q", w.Kind)
	}
	if err := c.validName(); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    int32
		ok   bool
	}{
		{"spec.replicas", w.Replicas, w.Replicas >= 0},
		{"spec.parallelism", w.Parallelism, w.Parallelism >= 0},
		{"spec.completions", w.Completions, w.Completions >= -1}, // -1: unset
		{"status.succeeded", w.Succeeded, w.Succeeded >= 0},
		{"spec.ordinals.start", w.OrdinalsStart, w.OrdinalsStart >= 0},
	} {
		if !f.ok {
			if f.v == completionsMinusOne {
				f.v = -1
			}
			return c.errf(f.name, "must be greater than or equal to 0, not %d", f.v)
		}
	}
	if w.Indexed && w.Completions < 0 {
		return c.errf("spec.completions", "required when completionMode is Indexed")
	}
	if w.Kind == index.KindStatefulSet && int64(w.OrdinalsStart)+int64(w.Replicas) > math.MaxInt32+1 {
		// The controller's ordinals would pass 2^31-1; kplace's are 32-bit.
		return c.errf("spec.ordinals.start", "%d plus %d replicas: ordinals past %d, more than kplace numbers", w.OrdinalsStart, w.Replicas, math.MaxInt32)
	}
	return c.validSelectorOps(w.Selector)
}
