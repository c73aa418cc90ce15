package ingest

import (
	"bytes"
	"strconv"

	"github.com/kplace/kplace/index"
)

// Workloads: Services keep their selectors (default topology spreading);
// controllers (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
// ReplicationController) also keep what their controllers read to create
// pods, with the API server's defaults, and their pod template as JSON.

// annTemplateGeneration is the DaemonSet annotation holding its template
// generation (the pod-template-generation label of its pods).
const annTemplateGeneration = "deprecated.daemonset.template.generation"

// wireWorkloadSpec holds the spec fields of controllers that pods and other
// kinds do not have.
type wireWorkloadSpec struct {
	Replicas, Parallelism, Completions *int32
	CompletionMode                     string
	Suspend, ManualSelector            bool
	OrdinalsStart                      *int32 // spec.ordinals.start
	ServiceName                        string
	ClaimTemplates                     []byte // spec.volumeClaimTemplates, copied
}

// wireWorkloadStatus holds controllers' status fields.
type wireWorkloadStatus struct {
	Finished                        bool // a Complete or Failed condition is True
	Succeeded                       int32
	CompletedIndexes, FailedIndexes string
	CollisionCount                  *int32
	UpdateRevision                  string
}

// workloadSpecField parses spec field k when it is a controller's; false
// when k is not one (the caller skips it).
func (p *jp) workloadSpecField(w *wireWorkloadSpec, k []byte) bool {
	switch string(k) {
	case "replicas":
		w.Replicas = p.optInt32()
	case "parallelism":
		w.Parallelism = p.optInt32()
	case "completions":
		w.Completions = p.optInt32()
	case "completionMode":
		w.CompletionMode = p.str()
	case "suspend":
		w.Suspend = p.boolean()
	case "manualSelector":
		w.ManualSelector = p.boolean()
	case "serviceName":
		w.ServiceName = p.str()
	case "ordinals":
		w.OrdinalsStart = nil
		if p.objStart() {
			for first := true; ; {
				k := p.next(&first)
				if k == nil {
					break
				}
				if string(k) == "start" {
					w.OrdinalsStart = p.optInt32()
				} else {
					p.skip()
				}
			}
		}
	case "volumeClaimTemplates":
		w.ClaimTemplates = nil
		if raw := p.raw(); !isNull(raw) {
			w.ClaimTemplates = bytes.Clone(raw)
		}
	default:
		return false
	}
	return true
}

// workloadStatusField parses status field k when it is a controller's.
func (p *jp) workloadStatusField(w *wireWorkloadStatus, k []byte) bool {
	switch string(k) {
	case "succeeded":
		w.Succeeded = p.int32()
	case "completedIndexes":
		w.CompletedIndexes = p.str()
	case "failedIndexes":
		w.FailedIndexes = p.str()
	case "collisionCount":
		w.CollisionCount = p.optInt32()
	case "updateRevision":
		w.UpdateRevision = p.str()
	default:
		return false
	}
	return true
}

// annotation reads an annotations object and returns the value of key
// ("" when absent); the other annotations are skipped.
func (p *jp) annotation(key string) string {
	v := ""
	if !p.objStart() {
		return v
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return v
		}
		if string(k) == key && p.peek() == '"' {
			v = p.str()
		} else {
			p.skip()
		}
	}
}

// convertWorkload converts a Service or a controller.
func (c *objCtx) convertWorkload(o *wireObject) (index.Workload, error) {
	w := index.Workload{Kind: c.kind, Namespace: c.ns, Name: o.Metadata.Name, Src: c.src}
	s := &o.Spec
	tmpl := s.Template
	if isNull(tmpl) {
		tmpl = nil
	}
	var tmplLabels map[string]string
	if tmpl != nil && c.kind != index.KindService {
		tp, err := templateParts(tmpl)
		if err != nil {
			return w, c.errf("spec.template", "%v", err)
		}
		tmplLabels = tp.labels
	}
	switch c.kind {
	case index.KindService, index.KindReplicationController:
		m, set, err := c.mapSelector(s.Selector, "spec.selector")
		if err != nil {
			return w, err
		}
		if c.kind == index.KindReplicationController && len(m) == 0 && tmplLabels != nil {
			m, set = tmplLabels, true // API defaulting
		}
		if set {
			w.Selector = &index.LabelSelector{MatchLabels: m}
		}
	default:
		sel, err := c.labelSelector(s.Selector, "spec.selector")
		if err != nil {
			return w, err
		}
		w.Selector = sel
	}
	if c.kind == index.KindService {
		return w, nil
	}
	return w, c.controller(o, &w, tmpl)
}

// controller fills the controller fields of w, API defaults applied, and
// rejects the values API validation rejects.
func (c *objCtx) controller(o *wireObject, w *index.Workload, tmpl []byte) error {
	s, st := &o.Spec.W, &o.Status.W
	w.UID = o.Metadata.UID
	for _, or := range o.Metadata.OwnerReferences {
		if or.Controller {
			w.Owner = &index.OwnerRef{Kind: or.Kind, Name: or.Name, APIVersion: or.APIVersion, UID: or.UID}
			break
		}
	}
	if bad := o.Metadata.CreatedBad; bad != "" {
		return c.errf("metadata.creationTimestamp", "invalid time %q (want RFC 3339)", bad)
	}
	w.CreationUnix = o.Metadata.Created
	w.Template = tmpl // a controller without one creates nothing (Expand says so)
	orDefault := func(v *int32, def int32) int32 {
		if v == nil {
			return def
		}
		return *v // validWorkload checks the value
	}
	w.Replicas, w.Parallelism, w.Completions = 0, 0, 0
	switch c.kind {
	case index.KindJob:
		// SetDefaults_Job: both unset means one completion, one at a time.
		completions, parallelism := s.Completions, s.Parallelism
		if completions == nil && parallelism == nil {
			one := int32(1)
			completions = &one
		}
		w.Parallelism, w.Completions = orDefault(parallelism, 1), orDefault(completions, -1)
		if completions != nil && *completions < 0 {
			// Negative: refused, not taken as unset (-1 in the model).
			w.Completions = *completions
			if *completions == -1 {
				w.Completions = completionsMinusOne
			}
		}
		switch s.CompletionMode {
		case "", "NonIndexed":
		case "Indexed":
			w.Indexed = true
		default:
			return c.errf("spec.completionMode", "unknown completion mode %q (want NonIndexed or Indexed)", s.CompletionMode)
		}
		w.Suspend, w.ManualSelector, w.Finished = s.Suspend, s.ManualSelector, st.Finished
		w.Succeeded, w.CompletedIndexes, w.FailedIndexes = st.Succeeded, st.CompletedIndexes, st.FailedIndexes
	case index.KindDaemonSet:
	default:
		w.Replicas = orDefault(s.Replicas, 1)
	}
	if c.kind == index.KindStatefulSet {
		w.OrdinalsStart = orDefault(s.OrdinalsStart, 0)
		w.ServiceName, w.UpdateRevision, w.ClaimTemplates = s.ServiceName, st.UpdateRevision, s.ClaimTemplates
	}
	w.CollisionCount = -1
	if st.CollisionCount != nil {
		w.CollisionCount = *st.CollisionCount
	}
	w.TemplateGeneration = -1
	if c.kind == index.KindDaemonSet && o.Metadata.TemplateGeneration != "" {
		// The controller ignores a value it cannot parse.
		if g, err := strconv.ParseInt(o.Metadata.TemplateGeneration, 10, 64); err == nil {
			w.TemplateGeneration = g
		}
	}
	return nil
}
