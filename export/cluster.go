package export

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/kplace/kplace/index"
)

// WriteCluster writes in as a kubectl-style JSON v1 List, one item per line:
// PriorityClasses, Namespaces, Nodes, PodDisruptionBudgets, the workloads
// (Services' selectors; controllers with their counts, templates and the
// status their controllers read), then Pods, each list in its input order. Reading the file back (ingest)
// gives the same model, and kube-scheduler reads it with the same
// semantics (the oracle's validate): see writePod for how a pod's
// effective and non-zero requests are kept.
func WriteCluster(w io.Writer, in *index.Input) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(`{"apiVersion":"v1","kind":"List","metadata":{},"items":[`)
	first := true
	item := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if !first {
			bw.WriteByte(',')
		}
		first = false
		bw.WriteByte('\n')
		_, err = bw.Write(b)
		return err
	}
	for i := range in.PriorityClasses {
		if err := item(priorityClassJSON(&in.PriorityClasses[i])); err != nil {
			return err
		}
	}
	for i := range in.Namespaces {
		ns := &in.Namespaces[i]
		if err := item(object{APIVersion: "v1", Kind: "Namespace", Metadata: meta{Name: ns.Name, Labels: ns.Labels}}); err != nil {
			return err
		}
	}
	for i := range in.Nodes {
		if err := item(nodeJSON(&in.Nodes[i])); err != nil {
			return err
		}
	}
	for i := range in.PDBs {
		if err := item(pdbJSON(&in.PDBs[i])); err != nil {
			return err
		}
	}
	for i := range in.Workloads {
		if err := item(workloadJSON(&in.Workloads[i])); err != nil {
			return err
		}
	}
	for i := range in.Pods {
		o, err := podJSON(&in.Pods[i])
		if err != nil {
			return err
		}
		if err := item(o); err != nil {
			return err
		}
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// The JSON shapes of the objects, as the API server prints them (only the
// fields the model holds).

type object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   meta   `json:"metadata"`
	Spec       any    `json:"spec,omitempty"`
	Status     any    `json:"status,omitempty"`
	// PriorityClass fields.
	Value            *int32 `json:"value,omitempty"`
	GlobalDefault    bool   `json:"globalDefault,omitempty"`
	PreemptionPolicy string `json:"preemptionPolicy,omitempty"`
}

type meta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace,omitempty"`
	UID               string            `json:"uid,omitempty"`
	CreationTimestamp string            `json:"creationTimestamp,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	OwnerReferences   []ownerRef        `json:"ownerReferences,omitempty"`
}

type ownerRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
	Controller bool   `json:"controller"`
}

func priorityClassJSON(pc *index.PriorityClass) object {
	v := pc.Value
	return object{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass", Metadata: meta{Name: pc.Name},
		Value: &v, GlobalDefault: pc.GlobalDefault, PreemptionPolicy: pc.PreemptionPolicy}
}

type taintJSON struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

func nodeJSON(n *index.Node) object {
	var taints []taintJSON
	for _, t := range n.Taints {
		taints = append(taints, taintJSON{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	alloc := quantities(n.Allocatable)
	return object{APIVersion: "v1", Kind: "Node", Metadata: meta{Name: n.Name, Labels: n.Labels},
		Spec: struct {
			Unschedulable bool        `json:"unschedulable,omitempty"`
			Taints        []taintJSON `json:"taints,omitempty"`
		}{n.Unschedulable, taints},
		Status: struct {
			Capacity    map[string]string `json:"capacity"`
			Allocatable map[string]string `json:"allocatable"`
			Images      []imageJSON       `json:"images,omitempty"`
		}{alloc, alloc, imagesJSON(n.Images)}}
}

type imageJSON struct {
	Names     []string `json:"names"`
	SizeBytes int64    `json:"sizeBytes"`
}

func imagesJSON(ims []index.NodeImage) []imageJSON {
	var out []imageJSON
	for _, im := range ims {
		out = append(out, imageJSON{im.Names, im.Size})
	}
	return out
}

// quantities writes amounts in their units: cpu in millicores, the rest as
// integers.
func quantities(l index.ResourceList) map[string]string {
	m := make(map[string]string, len(l))
	for _, q := range l {
		m[q.Name] = quantity(q.Name, q.Value)
	}
	return m
}

func quantity(name string, v int64) string {
	if name == index.NameCPU {
		return strconv.FormatInt(v, 10) + "m"
	}
	return strconv.FormatInt(v, 10)
}

type labelSelectorJSON struct {
	MatchLabels      map[string]string `json:"matchLabels,omitempty"`
	MatchExpressions []requirementJSON `json:"matchExpressions,omitempty"`
}

type requirementJSON struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

func selectorJSON(ls *index.LabelSelector) *labelSelectorJSON {
	if ls == nil {
		return nil
	}
	return &labelSelectorJSON{MatchLabels: ls.MatchLabels, MatchExpressions: requirements(ls.MatchExpressions)}
}

func requirements(rs []index.Requirement) []requirementJSON {
	var out []requirementJSON
	for _, r := range rs {
		out = append(out, requirementJSON{Key: r.Key, Operator: r.Operator, Values: r.Values})
	}
	return out
}

// intOrString writes an IntOrString as a number when it is one.
func intOrString(s string) any {
	if s == "" {
		return nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return s
}

func pdbJSON(b *index.PDB) object {
	o := object{APIVersion: "policy/v1", Kind: "PodDisruptionBudget", Metadata: meta{Name: b.Name, Namespace: b.Namespace},
		Spec: struct {
			MinAvailable   any                `json:"minAvailable,omitempty"`
			MaxUnavailable any                `json:"maxUnavailable,omitempty"`
			Selector       *labelSelectorJSON `json:"selector,omitempty"`
		}{intOrString(b.MinAvailable), intOrString(b.MaxUnavailable), selectorJSON(b.Selector)}}
	if b.DisruptionsAllowed >= 0 {
		o.Status = struct {
			DisruptionsAllowed int32 `json:"disruptionsAllowed"`
		}{b.DisruptionsAllowed}
	}
	return o
}

// workloadJSON writes a Service's selector, or a controller with what its
// controller reads (ingest's index.Workload): counts, template, status.
func workloadJSON(w *index.Workload) object {
	o := object{APIVersion: "apps/v1", Kind: w.Kind, Metadata: meta{Name: w.Name, Namespace: w.Namespace, UID: w.UID,
		CreationTimestamp: timestamp(w.CreationUnix)}}
	if w.Owner != nil {
		o.Metadata.OwnerReferences = []ownerRef{{APIVersion: w.Owner.APIVersion, Kind: w.Owner.Kind, Name: w.Owner.Name,
			UID: w.Owner.UID, Controller: true}}
	}
	spec := map[string]any{}
	switch w.Kind {
	case index.KindService, index.KindReplicationController:
		o.APIVersion = "v1"
		if w.Selector != nil {
			sel := w.Selector.MatchLabels
			if sel == nil {
				sel = map[string]string{}
			}
			spec["selector"] = sel
		}
	default:
		if sel := selectorJSON(w.Selector); sel != nil {
			spec["selector"] = sel
		}
	}
	if w.Kind == index.KindService {
		o.Spec = spec
		return o
	}
	if w.Template != nil {
		spec["template"] = json.RawMessage(w.Template)
	}
	status := map[string]any{}
	switch w.Kind {
	case index.KindJob:
		o.APIVersion = "batch/v1"
		spec["parallelism"] = w.Parallelism
		if w.Completions >= 0 {
			spec["completions"] = w.Completions
		}
		if w.Indexed {
			spec["completionMode"] = "Indexed"
		}
		if w.Suspend {
			spec["suspend"] = true
		}
		if w.ManualSelector {
			spec["manualSelector"] = true
		}
		if w.Finished {
			status["conditions"] = []map[string]string{{"type": "Complete", "status": "True"}}
		}
		if w.Succeeded != 0 {
			status["succeeded"] = w.Succeeded
		}
		if w.CompletedIndexes != "" {
			status["completedIndexes"] = w.CompletedIndexes
		}
		if w.FailedIndexes != "" {
			status["failedIndexes"] = w.FailedIndexes
		}
	case index.KindDaemonSet:
		if w.TemplateGeneration >= 0 {
			o.Metadata.Annotations = map[string]string{"deprecated.daemonset.template.generation": strconv.FormatInt(w.TemplateGeneration, 10)}
		}
	default:
		spec["replicas"] = w.Replicas
	}
	if w.Kind == index.KindStatefulSet {
		if w.OrdinalsStart != 0 {
			spec["ordinals"] = map[string]int32{"start": w.OrdinalsStart}
		}
		if w.ServiceName != "" {
			spec["serviceName"] = w.ServiceName
		}
		if w.ClaimTemplates != nil {
			spec["volumeClaimTemplates"] = json.RawMessage(w.ClaimTemplates)
		}
		if w.UpdateRevision != "" {
			status["updateRevision"] = w.UpdateRevision
		}
	}
	if w.CollisionCount >= 0 {
		status["collisionCount"] = w.CollisionCount
	}
	o.Spec = spec
	if len(status) > 0 {
		o.Status = status
	}
	return o
}

func timestamp(unix int64) string {
	if unix == 0 {
		return ""
	}
	return time.Unix(unix, 0).UTC().Format(time.RFC3339)
}
