package bench

// The fieldsV1 blobs of managedFields: the set of fields an Update wrote,
// as the API server's structured-merge-diff records it when the update
// creates the object. A field is `f:<name>`; an item of an associative list
// is `k:{<its key fields>}`, an item of a set `v:<value>`; `.` marks the
// field itself as set, which an update records for list items and for the
// fields that a zero-valued object lacks (pointers, and slices and maps
// tagged omitempty); a leaf (a scalar, an empty object, an atomic list or
// struct) is `{}`. Children are sorted.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// listKeys names the key fields of associative lists, by element type (the
// +listMapKey markers of k8s.io/api); lists of other element types are
// atomic (+listType=atomic, or no marker), but for sets (setLists).
var listKeys = map[reflect.Type][]string{
	reflect.TypeFor[corev1.Container]():                {"name"},
	reflect.TypeFor[corev1.ContainerPort]():            {"containerPort", "protocol"},
	reflect.TypeFor[corev1.EnvVar]():                   {"name"},
	reflect.TypeFor[corev1.VolumeMount]():              {"mountPath"},
	reflect.TypeFor[corev1.Volume]():                   {"name"},
	reflect.TypeFor[corev1.LocalObjectReference]():     {"name"},
	reflect.TypeFor[corev1.TopologySpreadConstraint](): {"topologyKey", "whenUnsatisfiable"},
	reflect.TypeFor[corev1.PodCondition]():             {"type"},
	reflect.TypeFor[corev1.PodIP]():                    {"ip"},
	reflect.TypeFor[corev1.HostIP]():                   {"ip"},
	reflect.TypeFor[corev1.ServicePort]():              {"port", "protocol"},
	reflect.TypeFor[corev1.NodeCondition]():            {"type"},
	reflect.TypeFor[corev1.NodeAddress]():              {"type"},
	reflect.TypeFor[metav1.OwnerReference]():           {"uid"},
	reflect.TypeFor[appsv1.DeploymentCondition]():      {"type"},
	reflect.TypeFor[appsv1.ReplicaSetCondition]():      {"type"},
	reflect.TypeFor[corev1.PodSchedulingGate]():        {"name"},
	reflect.TypeFor[corev1.PodResourceClaim]():         {"name"},
	reflect.TypeFor[corev1.EphemeralContainer]():       {"name"},
	reflect.TypeFor[corev1.ContainerResizePolicy]():    {"resourceName"},
	reflect.TypeFor[corev1.HostAlias]():                {"ip"},
	reflect.TypeFor[corev1.ResourceClaim]():            {"name"},
	reflect.TypeFor[metav1.Condition]():                {"type"},
	reflect.TypeFor[corev1.VolumeDevice]():             {"devicePath"},
}

// setLists are the +listType=set fields, by element type and field name.
var setLists = map[string]bool{"finalizers": true}

// atomicStructs are the +structType=atomic types: recorded as one leaf.
var atomicStructs = map[reflect.Type]bool{
	reflect.TypeFor[metav1.LabelSelector]():  true,
	reflect.TypeFor[corev1.NodeSelector]():   true,
	reflect.TypeFor[metav1.OwnerReference](): true,
}

// fsNode is one node of a field set.
type fsNode struct {
	self     bool
	children map[string]*fsNode
}

func (n *fsNode) child(k string) *fsNode {
	if n.children == nil {
		n.children = map[string]*fsNode{}
	}
	c := n.children[k]
	if c == nil {
		c = &fsNode{}
		n.children[k] = c
	}
	return c
}

func (n *fsNode) append(b []byte) []byte {
	b = append(b, '{')
	first := true
	if n.self && len(n.children) > 0 {
		b = append(b, `".":{}`...)
		first = false
	}
	keys := make([]string, 0, len(n.children))
	for k := range n.children {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendStr(b, k)
		b = append(b, ':')
		b = n.children[k].append(b)
	}
	return append(b, '}')
}

// fieldsSet returns the fieldsV1 set (a JSON object) of obj, a JSON object
// whose fields are those of the Go type typ (a struct type of k8s.io/api).
func fieldsSet(obj []byte, typ reflect.Type) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(obj))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("bench: fieldsV1 of %s: %w", typ, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("bench: fieldsV1 of %s: not an object", typ)
	}
	root := &fsNode{}
	if err := walkStruct(root, m, typ); err != nil {
		return nil, err
	}
	return root.append(nil), nil
}

var jsonFields sync.Map // reflect.Type -> map[string]reflect.StructField

// structFields maps the JSON names of t's fields (inline ones included) to
// the fields.
func structFields(t reflect.Type) map[string]reflect.StructField {
	if m, ok := jsonFields.Load(t); ok {
		return m.(map[string]reflect.StructField)
	}
	m := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" && strings.Contains(opts, "inline") || f.Anonymous && name == "" {
			for k, v := range structFields(f.Type) {
				m[k] = v
			}
			continue
		}
		m[name] = f
	}
	jsonFields.Store(t, m)
	return m
}

func walkStruct(n *fsNode, m map[string]any, t reflect.Type) error {
	fields := structFields(t)
	for k, v := range m {
		f, ok := fields[k]
		if !ok {
			return fmt.Errorf("bench: fieldsV1: %s has no field %q", t, k)
		}
		_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		optional := ft.Kind() == reflect.Pointer ||
			(ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map) && strings.Contains(opts, "omitempty")
		if err := walkValue(n.child("f:"+k), k, v, ft, optional); err != nil {
			return err
		}
	}
	return nil
}

func walkValue(n *fsNode, name string, v any, t reflect.Type, optional bool) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 || atomicStructs[t] {
			n.self = true
			return nil
		}
		n.self = optional
		if t.Kind() == reflect.Map {
			for k := range x {
				n.child("f:" + k).self = true
			}
			return nil
		}
		if t.Kind() != reflect.Struct {
			return fmt.Errorf("bench: fieldsV1: %s is an object, not %s", name, t)
		}
		return walkStruct(n, x, t)
	case []any:
		et := t.Elem()
		for et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		keys := listKeys[et]
		switch {
		case setLists[name]:
			n.self = optional
			for _, it := range x {
				b, _ := json.Marshal(it)
				n.child("v:" + string(b)).self = true
			}
			return nil
		case len(keys) == 0:
			n.self = true
			return nil
		}
		n.self = optional
		for _, it := range x {
			im, ok := it.(map[string]any)
			if !ok {
				return fmt.Errorf("bench: fieldsV1: an item of %s is not an object", name)
			}
			kb := []byte("k:{")
			for i, key := range keys {
				if i > 0 {
					kb = append(kb, ',')
				}
				kb = appendStr(kb, key)
				kb = append(kb, ':')
				vb, _ := json.Marshal(im[key])
				kb = append(kb, vb...)
			}
			c := n.child(string(append(kb, '}')))
			c.self = true
			if atomicStructs[et] {
				continue
			}
			if err := walkStruct(c, im, et); err != nil {
				return err
			}
		}
		return nil
	}
	n.self = true
	return nil
}
