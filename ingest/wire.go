package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/kplace/kplace/index"
)

// Wire types: the subset of the Kubernetes JSON shapes kplace reads. One
// union struct holds every kind, so a list item is decoded in a single pass
// before its kind is looked at; every other field is skipped.

type wireObject struct {
	APIVersion string
	Kind       string
	Metadata   wireMeta
	Spec       wireSpec
	Status     wireStatus

	// PriorityClass (top-level fields).
	Value            int32
	GlobalDefault    bool
	PreemptionPolicy *string

	// A List nested inside a list: its items, copied. HasItems: the
	// object has an "items" field (null included).
	Items    [][]byte
	HasItems bool
}

type wireMeta struct {
	Name            string
	Namespace       string
	UID             string
	Labels          map[string]string
	Created         int64  // creationTimestamp, Unix seconds
	CreatedBad      string // creationTimestamp when it is not RFC 3339
	OwnerReferences []wireOwner
	// TemplateGeneration is the annotation
	// deprecated.daemonset.template.generation ("" when absent); no other
	// annotation is kept.
	TemplateGeneration string
}

type wireOwner struct {
	APIVersion, Kind, Name, UID string
	Controller                  bool
}

type wireSpec struct {
	// Pod
	NodeName                  string
	SchedulerName             string
	Containers                []wireContainer
	InitContainers            []wireContainer
	Overhead                  resList
	Resources                 *wireResources
	Tolerations               []wireToleration
	NodeSelector              map[string]string
	Affinity                  *wireAffinity
	TopologySpreadConstraints []wireSpread
	ClaimVolumes              bool
	ImageVolumes              []string // volumes[].image.reference
	PriorityClassName         string
	Priority                  *int32
	PreemptionPolicy          *string
	SchedulingGates           []string // gate names
	ResourceClaims            int      // count
	HostNetwork               bool

	// Node
	Taints        []wireTaint
	Unschedulable bool

	// PodDisruptionBudget, Service, ReplicaSet, StatefulSet,
	// ReplicationController: the selector's shape depends on the kind, so
	// its text is kept (copied) and decoded on conversion.
	Selector       []byte
	MinAvailable   intOrString
	MaxUnavailable intOrString
	// Template is spec.template, copied (workloads only have one).
	Template []byte
	W        wireWorkloadSpec // the other fields of controllers' specs
}

type wireContainer struct {
	Name          string
	Image         string
	RestartPolicy string
	Resources     wireResources
	Ports         []wirePort
}

type wireResources struct {
	Requests resList
	Limits   resList
}

type wirePort struct {
	ContainerPort int32
	HostPort      int32
	Protocol      string
	HostIP        string
}

type wireToleration struct {
	Key, Operator, Value, Effect string
	TolerationSeconds            *int64
}

type wireTaint struct {
	Key, Value, Effect string
}

type wireAffinity struct {
	HasNodeAffinity bool
	Required        *[]wireTerm // nil: no required node affinity
	Preferred       []wirePreferred
	PodAffinity     wirePodAffinity // spec.affinity.podAffinity
	PodAntiAffinity wirePodAffinity // spec.affinity.podAntiAffinity
}

// wirePodAffinity is a PodAffinity or PodAntiAffinity.
type wirePodAffinity struct {
	Required  []wirePodAffinityTerm // requiredDuringSchedulingIgnoredDuringExecution
	Preferred []wireWeightedPodAffinityTerm
}

type wirePodAffinityTerm struct {
	LabelSelector     *wireLabelSelector // nil: absent or null
	Namespaces        []string
	NamespaceSelector *wireLabelSelector
	TopologyKey       string
	MatchLabelKeys    []string
	MismatchLabelKeys []string
}

type wireWeightedPodAffinityTerm struct {
	Weight int32
	Term   wirePodAffinityTerm // podAffinityTerm
}

// wireSpread is a TopologySpreadConstraint; pointers are nil when unset.
type wireSpread struct {
	MaxSkew            int32
	TopologyKey        string
	WhenUnsatisfiable  string
	LabelSelector      *wireLabelSelector
	MinDomains         *int32
	MatchLabelKeys     []string
	NodeAffinityPolicy *string
	NodeTaintsPolicy   *string
}

type wirePreferred struct {
	Weight     int32
	Preference wireTerm
}

type wireTerm struct {
	MatchExpressions []wireRequirement
	MatchFields      []wireRequirement
}

// wireRequirement has index.Requirement's shape: conversion validates the
// parsed list and keeps it.
type wireRequirement = index.Requirement

type wireLabelSelector struct {
	MatchLabels      map[string]string
	MatchExpressions []wireRequirement
}

type wireStatus struct {
	// Pod
	Phase                 string
	Started               int64  // startTime, Unix seconds
	StartedBad            string // startTime when it is not RFC 3339
	ResizeInfeasible      bool   // condition PodResizePending has reason Infeasible
	ContainerStatuses     []wireContainerStatus
	InitContainerStatuses []wireContainerStatus
	Resources             *wireResources
	AllocatedResources    resList

	// Node
	Allocatable resList
	Capacity    resList
	Images      []wireImage

	// PodDisruptionBudget
	DisruptionsAllowed *int32

	W wireWorkloadStatus // controllers' status fields
}

type wireContainerStatus struct {
	Name               string
	Resources          *wireResources
	AllocatedResources resList
}

// intOrString keeps an IntOrString's JSON text (checked on conversion).
type intOrString string

// text returns "5" or "50%"; "" when unset.
func (v intOrString) text() (string, error) {
	if v == "" || v == "null" {
		return "", nil
	}
	if v[0] == '"' {
		p := &jp{b: []byte(v)}
		var s string
		err := p.run(func() { s = p.str() })
		return s, err
	}
	n, err := strconv.ParseInt(string(v), 10, 32)
	if err != nil {
		return "", errors.New("not an int32 or a string: " + abbreviate(string(v)))
	}
	return strconv.FormatInt(n, 10), nil
}

func abbreviate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// resEntry is one resource of a ResourceList, its quantity parsed.
type resEntry struct {
	name string
	v    amount
	neg  bool
	bad  string // the quantity's text when it does not parse (err set)
	err  error
}

// resList is a ResourceList as it appears on the wire. set distinguishes an
// absent (or null) list from an empty one.
type resList struct {
	set     bool
	entries []resEntry
}

// run calls f, turning a parse failure into an error.
func (p *jp) run(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case *parseError:
				err = e
			case runtime.Error:
				// A bug, not bad input: report it rather than crash.
				err = &parseError{off: p.i, msg: fmt.Sprintf("internal error: %v", e)}
			default:
				panic(r)
			}
		}
	}()
	f()
	return nil
}

// Parsers for the wire types.

func (p *jp) object(o *wireObject) {
	if !p.objStart() {
		p.fail("expected an object, found null")
	}
	var seen uint8
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return
		}
		if b := topFieldBit(k); b != 0 {
			if seen&b != 0 {
				p.fail("duplicate field")
			}
			seen |= b
		}
		p.objectField(o, k)
	}
}

// objectField parses the value of one top-level field of an object.
func (p *jp) objectField(o *wireObject, k []byte) {
	switch string(k) {
	case "apiVersion":
		o.APIVersion = p.istr()
	case "kind":
		o.Kind = p.istr()
	case "metadata":
		p.meta(&o.Metadata)
	case "spec":
		p.spec(&o.Spec)
	case "status":
		p.status(&o.Status)
	case "value":
		o.Value = p.int32()
	case "globalDefault":
		o.GlobalDefault = p.boolean()
	case "preemptionPolicy":
		o.PreemptionPolicy = p.optStr()
	case "items":
		o.Items, o.HasItems = nil, true
		if p.arrStart() {
			for first := true; p.more(&first); {
				o.Items = append(o.Items, append([]byte(nil), p.raw()...))
			}
		}
	default:
		p.skip()
	}
}

func (p *jp) meta(m *wireMeta) {
	if !p.objStart() {
		return
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return
		}
		switch string(k) {
		case "name":
			m.Name = p.str()
		case "namespace":
			m.Namespace = p.istr()
		case "uid":
			m.UID = p.str()
		case "labels":
			m.Labels = p.labelMap()
		case "creationTimestamp":
			m.Created, m.CreatedBad = p.timestamp()
		case "annotations":
			m.TemplateGeneration = p.annotation(annTemplateGeneration)
		case "ownerReferences":
			m.OwnerReferences = nil
			if p.arrStart() {
				for first := true; p.more(&first); {
					m.OwnerReferences = append(m.OwnerReferences, p.owner())
				}
			}
		default:
			p.skip()
		}
	}
}

func (p *jp) owner() wireOwner {
	var o wireOwner
	if !p.objStart() {
		return o
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return o
		}
		switch string(k) {
		case "apiVersion":
			o.APIVersion = p.istr()
		case "kind":
			o.Kind = p.istr()
		case "name":
			o.Name = p.istr()
		case "uid":
			o.UID = p.str()
		case "controller":
			o.Controller = p.boolean()
		default:
			p.skip()
		}
	}
}

func (p *jp) spec(s *wireSpec) {
	if !p.objStart() {
		return
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return
		}
		switch string(k) {
		case "nodeName":
			s.NodeName = p.istr()
		case "schedulerName":
			s.SchedulerName = p.istr()
		case "containers":
			s.Containers = p.containers()
		case "initContainers":
			s.InitContainers = p.containers()
		case "overhead":
			s.Overhead = p.resList()
		case "resources":
			s.Resources = nil
			if p.peek() != 'n' {
				s.Resources = new(wireResources)
			}
			p.resources(s.Resources)
		case "tolerations":
			s.Tolerations = nil
			if p.arrStart() {
				s.Tolerations = p.tolerationList()
				for first := true; p.more(&first); {
					s.Tolerations = append(s.Tolerations, p.toleration())
				}
			}
		case "nodeSelector":
			s.NodeSelector = p.strMap()
		case "affinity":
			s.Affinity = p.affinity()
		case "topologySpreadConstraints":
			s.TopologySpreadConstraints = nil
			if p.arrStart() {
				for first := true; p.more(&first); {
					s.TopologySpreadConstraints = append(s.TopologySpreadConstraints, p.spread())
				}
			}
		case "volumes":
			s.ClaimVolumes, s.ImageVolumes = p.volumes()
		case "priorityClassName":
			s.PriorityClassName = p.istr()
		case "priority":
			s.Priority = p.optInt32()
		case "preemptionPolicy":
			s.PreemptionPolicy = p.optStr()
		case "schedulingGates":
			s.SchedulingGates = nil
			if p.arrStart() {
				for first := true; p.more(&first); {
					s.SchedulingGates = append(s.SchedulingGates, p.gateName())
				}
			}
		case "resourceClaims":
			s.ResourceClaims = p.count()
		case "hostNetwork":
			s.HostNetwork = p.boolean()
		case "taints":
			s.Taints = nil
			if p.arrStart() {
				for first := true; p.more(&first); {
					s.Taints = append(s.Taints, p.taint())
				}
			}
		case "unschedulable":
			s.Unschedulable = p.boolean()
		case "selector":
			s.Selector = append([]byte(nil), p.raw()...)
		case "minAvailable":
			s.MinAvailable = intOrString(p.raw())
		case "maxUnavailable":
			s.MaxUnavailable = intOrString(p.raw())
		case "template":
			s.Template = bytes.Clone(p.raw())
		default:
			if !p.workloadSpecField(&s.W, k) {
				p.skip()
			}
		}
	}
}

func (p *jp) containers() []wireContainer {
	if !p.arrStart() {
		return nil
	}
	var out []wireContainer
	for first := true; p.more(&first); {
		var c wireContainer
		if p.objStart() {
			for first := true; ; {
				k := p.next(&first)
				if k == nil {
					break
				}
				switch string(k) {
				case "name":
					c.Name = p.istr()
				case "image":
					c.Image = p.imageStr()
				case "restartPolicy":
					c.RestartPolicy = p.istr()
				case "resources":
					p.resources(&c.Resources)
				case "ports":
					c.Ports = nil
					if p.arrStart() {
						for first := true; p.more(&first); {
							c.Ports = append(c.Ports, p.port())
						}
					}
				default:
					p.skip()
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// resources parses a ResourceRequirements; r nil means skip.
func (p *jp) resources(r *wireResources) {
	if r == nil || !p.objStart() {
		if r == nil {
			p.skip()
		}
		return
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return
		}
		switch string(k) {
		case "requests":
			r.Requests = p.resList()
		case "limits":
			r.Limits = p.resList()
		default:
			p.skip()
		}
	}
}

// resList parses a flat object of quantities, keeping each value's text
// (quotes included) as Quantity.UnmarshalJSON sees it.
func (p *jp) resList() resList {
	var l resList
	if p.isNull() {
		return l
	}
	if p.peek() != '{' {
		p.fail("expected a resource list (an object), found %s", p.describe())
	}
	p.objStart()
	l.set = true
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return l
		}
		var e resEntry
		switch p.peek() {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			raw := p.raw()
			txt := quantityBytes(raw)
			var err error
			if e.v, e.neg, err = parseQuantity(string(txt)); err == nil && !e.v.fits(string(k) == index.NameCPU) {
				err = errQuantityRange
			}
			if err != nil {
				e.bad, e.err = string(txt), err
			}
		case 'n':
			p.literal("null") // a null Quantity is a present zero
		default:
			p.fail("expected a quantity, found %s", p.describe())
		}
		e.name = p.internBytes(k)
		replaced := false // later duplicates win, as in a map
		for i := range l.entries {
			if l.entries[i].name == e.name {
				l.entries[i] = e
				replaced = true
			}
		}
		if !replaced {
			if l.entries == nil {
				l.entries = p.resEntries()
			}
			l.entries = append(l.entries, e)
		}
	}
}

func (p *jp) port() wirePort {
	var pt wirePort
	if !p.objStart() {
		return pt
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return pt
		}
		switch string(k) {
		case "containerPort":
			pt.ContainerPort = p.int32()
		case "hostPort":
			pt.HostPort = p.int32()
		case "protocol":
			pt.Protocol = p.istr()
		case "hostIP":
			pt.HostIP = p.istr()
		default:
			p.skip()
		}
	}
}

// gateName reads a PodSchedulingGate's name.
func (p *jp) gateName() string {
	var name string
	if !p.objStart() {
		return name
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return name
		}
		if string(k) == "name" {
			name = p.istr()
		} else {
			p.skip()
		}
	}
}

func (p *jp) toleration() wireToleration {
	var t wireToleration
	if !p.objStart() {
		return t
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return t
		}
		switch string(k) {
		case "key":
			t.Key = p.istr()
		case "operator":
			t.Operator = p.istr()
		case "value":
			t.Value = p.istr()
		case "effect":
			t.Effect = p.istr()
		case "tolerationSeconds":
			t.TolerationSeconds = p.optInt64()
		default:
			p.skip()
		}
	}
}

func (p *jp) taint() wireTaint {
	var t wireTaint
	if !p.objStart() {
		return t
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return t
		}
		switch string(k) {
		case "key":
			t.Key = p.istr()
		case "value":
			t.Value = p.istr()
		case "effect":
			t.Effect = p.istr()
		default:
			p.skip()
		}
	}
}

// volumes reports whether a volume uses a persistentVolumeClaim or an
// ephemeral volume, and returns the references of the image volumes.
func (p *jp) volumes() (claims bool, images []string) {
	if !p.arrStart() {
		return false, nil
	}
	for first := true; p.more(&first); {
		if !p.objStart() {
			continue
		}
		for first := true; ; {
			k := p.next(&first)
			if k == nil {
				break
			}
			switch string(k) {
			case "persistentVolumeClaim", "ephemeral":
				if p.present() {
					claims = true
				}
			case "image":
				if !p.objStart() {
					continue
				}
				for first := true; ; {
					k := p.next(&first)
					if k == nil {
						break
					}
					if string(k) == "reference" {
						images = append(images, p.imageStr())
					} else {
						p.skip()
					}
				}
			default:
				p.skip()
			}
		}
	}
	return claims, images
}

func (p *jp) affinity() *wireAffinity {
	if !p.objStart() {
		return nil
	}
	a := new(wireAffinity)
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return a
		}
		switch string(k) {
		case "nodeAffinity":
			p.nodeAffinity(a)
		case "podAffinity":
			a.PodAffinity = p.podAffinity()
		case "podAntiAffinity":
			a.PodAntiAffinity = p.podAffinity()
		default:
			p.skip()
		}
	}
}

// podAffinity parses a PodAffinity or PodAntiAffinity (null: none).
func (p *jp) podAffinity() wirePodAffinity {
	var a wirePodAffinity
	if !p.objStart() {
		return a
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return a
		}
		switch string(k) {
		case "requiredDuringSchedulingIgnoredDuringExecution":
			a.Required = nil
			if p.arrStart() {
				for first := true; p.more(&first); {
					a.Required = append(a.Required, p.podAffinityTerm())
				}
			}
		case "preferredDuringSchedulingIgnoredDuringExecution":
			a.Preferred = nil
			if !p.arrStart() {
				continue
			}
			for first := true; p.more(&first); {
				var w wireWeightedPodAffinityTerm
				if p.objStart() {
					for first := true; ; {
						k := p.next(&first)
						if k == nil {
							break
						}
						switch string(k) {
						case "weight":
							w.Weight = p.int32()
						case "podAffinityTerm":
							w.Term = p.podAffinityTerm()
						default:
							p.skip()
						}
					}
				}
				a.Preferred = append(a.Preferred, w)
			}
		default:
			p.skip()
		}
	}
}

func (p *jp) podAffinityTerm() wirePodAffinityTerm {
	var t wirePodAffinityTerm
	if !p.objStart() {
		return t
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return t
		}
		switch string(k) {
		case "labelSelector":
			t.LabelSelector = p.labelSelector()
		case "namespaces":
			t.Namespaces = p.strSlice()
		case "namespaceSelector":
			t.NamespaceSelector = p.labelSelector()
		case "topologyKey":
			t.TopologyKey = p.istr()
		case "matchLabelKeys":
			t.MatchLabelKeys = p.strSlice()
		case "mismatchLabelKeys":
			t.MismatchLabelKeys = p.strSlice()
		default:
			p.skip()
		}
	}
}

// spread parses a TopologySpreadConstraint.
func (p *jp) spread() wireSpread {
	var c wireSpread
	if !p.objStart() {
		return c
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return c
		}
		switch string(k) {
		case "maxSkew":
			c.MaxSkew = p.int32()
		case "topologyKey":
			c.TopologyKey = p.istr()
		case "whenUnsatisfiable":
			c.WhenUnsatisfiable = p.istr()
		case "labelSelector":
			c.LabelSelector = p.labelSelector()
		case "minDomains":
			c.MinDomains = p.optInt32()
		case "matchLabelKeys":
			c.MatchLabelKeys = p.strSlice()
		case "nodeAffinityPolicy":
			c.NodeAffinityPolicy = p.optStr()
		case "nodeTaintsPolicy":
			c.NodeTaintsPolicy = p.optStr()
		default:
			p.skip()
		}
	}
}

func (p *jp) nodeAffinity(a *wireAffinity) {
	if !p.objStart() {
		return
	}
	a.HasNodeAffinity = true
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return
		}
		switch string(k) {
		case "requiredDuringSchedulingIgnoredDuringExecution":
			a.Required = nil
			if !p.objStart() {
				continue
			}
			terms := []wireTerm{}
			for first := true; ; {
				k := p.next(&first)
				if k == nil {
					break
				}
				if string(k) != "nodeSelectorTerms" {
					p.skip()
					continue
				}
				terms = terms[:0]
				if p.arrStart() {
					for first := true; p.more(&first); {
						terms = append(terms, p.term())
					}
				}
			}
			a.Required = &terms
		case "preferredDuringSchedulingIgnoredDuringExecution":
			a.Preferred = nil
			if !p.arrStart() {
				continue
			}
			for first := true; p.more(&first); {
				var w wirePreferred
				if p.objStart() {
					for first := true; ; {
						k := p.next(&first)
						if k == nil {
							break
						}
						switch string(k) {
						case "weight":
							w.Weight = p.int32()
						case "preference":
							w.Preference = p.term()
						default:
							p.skip()
						}
					}
				}
				a.Preferred = append(a.Preferred, w)
			}
		default:
			p.skip()
		}
	}
}

func (p *jp) term() wireTerm {
	var t wireTerm
	if !p.objStart() {
		return t
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return t
		}
		switch string(k) {
		case "matchExpressions":
			t.MatchExpressions = p.requirements()
		case "matchFields":
			t.MatchFields = p.requirements()
		default:
			p.skip()
		}
	}
}

func (p *jp) requirements() []wireRequirement {
	if !p.arrStart() {
		return nil
	}
	var out []wireRequirement
	for first := true; p.more(&first); {
		var r wireRequirement
		if p.objStart() {
			for first := true; ; {
				k := p.next(&first)
				if k == nil {
					break
				}
				switch string(k) {
				case "key":
					r.Key = p.istr()
				case "operator":
					r.Operator = p.istr()
				case "values":
					r.Values = p.strSlice()
				default:
					p.skip()
				}
			}
		}
		out = append(out, r)
	}
	return out
}

func (p *jp) labelSelector() *wireLabelSelector {
	if !p.objStart() {
		return nil
	}
	s := new(wireLabelSelector)
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return s
		}
		switch string(k) {
		case "matchLabels":
			s.MatchLabels = p.strMap()
		case "matchExpressions":
			s.MatchExpressions = p.requirements()
		default:
			p.skip()
		}
	}
}

func (p *jp) status(s *wireStatus) {
	if !p.objStart() {
		return
	}
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return
		}
		switch string(k) {
		case "phase":
			s.Phase = p.istr()
		case "startTime":
			s.Started, s.StartedBad = p.timestamp()
		case "conditions":
			s.ResizeInfeasible, s.W.Finished = false, false
			if p.arrStart() {
				seen := false
				for first := true; p.more(&first); {
					// The first PodResizePending condition decides.
					typ, reason, finished := p.condition()
					if typ && !seen {
						seen = true
						s.ResizeInfeasible = reason
					}
					s.W.Finished = s.W.Finished || finished
				}
			}
		case "containerStatuses":
			s.ContainerStatuses = p.containerStatuses()
		case "initContainerStatuses":
			s.InitContainerStatuses = p.containerStatuses()
		case "resources":
			s.Resources = nil
			if p.peek() != 'n' {
				s.Resources = new(wireResources)
			}
			p.resources(s.Resources)
		case "allocatedResources":
			s.AllocatedResources = p.resList()
		case "allocatable":
			s.Allocatable = p.resList()
		case "capacity":
			s.Capacity = p.resList()
		case "images":
			s.Images = p.images()
		case "disruptionsAllowed":
			s.DisruptionsAllowed = p.optInt32()
		default:
			if !p.workloadStatusField(&s.W, k) {
				p.skip()
			}
		}
	}
}

// condition reads a condition: whether it is a pod's PodResizePending,
// whether its reason is Infeasible, and whether it is a Job's Complete or
// Failed condition with status True (the Job is finished).
func (p *jp) condition() (resize, infeasible, finished bool) {
	if !p.objStart() {
		return false, false, false
	}
	done, isTrue := false, false
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return resize, infeasible, done && isTrue
		}
		switch string(k) {
		case "type":
			if !p.isNull() {
				typ := p.strBytes()
				resize = string(typ) == "PodResizePending"
				done = string(typ) == "Complete" || string(typ) == "Failed"
			}
		case "reason":
			if !p.isNull() {
				infeasible = string(p.strBytes()) == "Infeasible"
			}
		case "status":
			if !p.isNull() {
				isTrue = string(p.strBytes()) == "True"
			}
		default:
			p.skip()
		}
	}
}

func (p *jp) containerStatuses() []wireContainerStatus {
	if !p.arrStart() {
		return nil
	}
	var out []wireContainerStatus
	for first := true; p.more(&first); {
		var cs wireContainerStatus
		if p.objStart() {
			for first := true; ; {
				k := p.next(&first)
				if k == nil {
					break
				}
				switch string(k) {
				case "name":
					cs.Name = p.istr()
				case "resources":
					cs.Resources = nil
					if p.peek() != 'n' {
						cs.Resources = new(wireResources)
					}
					p.resources(cs.Resources)
				case "allocatedResources":
					cs.AllocatedResources = p.resList()
				default:
					p.skip()
				}
			}
		}
		out = append(out, cs)
	}
	return out
}

// wireImage is one entry of a node's status.images.
type wireImage struct {
	Names []string
	Size  int64
}

// images parses a node's status.images.
func (p *jp) images() []wireImage {
	if !p.arrStart() {
		return nil
	}
	var out []wireImage
	for first := true; p.more(&first); {
		var im wireImage
		if p.objStart() {
			for first := true; ; {
				k := p.next(&first)
				if k == nil {
					break
				}
				switch string(k) {
				case "names":
					im.Names = p.stringsOf((*jp).imageStr)
				case "sizeBytes":
					im.Size = p.integer(math.MinInt64, math.MaxInt64, "an int64")
				default:
					p.skip()
				}
			}
		}
		out = append(out, im)
	}
	return out
}
