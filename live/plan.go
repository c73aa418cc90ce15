package live

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kplace/kplace/export"
)

// Op is what an item of a plan does.
type Op uint8

// Ops.
const (
	OpBind  Op = iota // POST pods/binding
	OpEvict           // POST pods/eviction
)

func (o Op) String() string {
	if o == OpEvict {
		return "Eviction"
	}
	return "Binding"
}

// Item is one Binding or Eviction of a result.
type Item struct {
	Op              Op
	Namespace, Name string
	// UID is the Binding's metadata.uid, or the Eviction's
	// deleteOptions.preconditions.uid: "" sends none.
	UID string
	// Node is the Binding's target, or the node the Eviction's victim
	// leaves (its kplace.io/node annotation; "" when the result does not
	// say: Bind then asks the API server).
	Node string
	// Preemptor is the Eviction's preemptor, "namespace/name" ("" when
	// unknown).
	Preemptor string
	// DeleteOptions are the Eviction's, as the result gives them.
	DeleteOptions *metav1.DeleteOptions
	// Src is "file: item N" for messages.
	Src string
}

// Key is the item's pod as "namespace/name".
func (it *Item) Key() string { return it.Namespace + "/" + it.Name }

// Plan is a result to apply, in commit order.
type Plan struct {
	Items []Item
	// Digest is the SHA-256 of the result files' bytes, in order: a
	// journal belongs to the plan with its digest.
	Digest string
	// Files are the result files read.
	Files []string
}

// ReadPlan reads the result files in order (a v1 List, JSON lines or a
// stream of objects each; "-" is stdin) into one plan. Items other than v1
// Bindings and policy/v1 Evictions, and items without what they need, are
// errors naming the file, the item and the field.
func ReadPlan(paths []string) (*Plan, error) {
	p := &Plan{Files: paths}
	h := sha256.New()
	for _, path := range paths {
		var r io.Reader = os.Stdin
		if path != "-" {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			r = f
		}
		h.Write([]byte{0}) // between files: the digest does not depend on their names
		if err := p.read(path, io.TeeReader(bufio.NewReaderSize(r, 1<<20), h)); err != nil {
			return nil, err
		}
	}
	p.Digest = hex.EncodeToString(h.Sum(nil))
	return p, nil
}

// rawItem is the part of a Binding, an Eviction or a List that a plan uses.
type rawItem struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		UID         string            `json:"uid"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Target *struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"target"`
	DeleteOptions *metav1.DeleteOptions `json:"deleteOptions"`
}

// read reads one file's objects, streaming a List's items.
func (p *Plan) read(path string, r io.Reader) error {
	dec := json.NewDecoder(r)
	n := 0 // items read from this file
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return fmt.Errorf("%s: offset %d: want a JSON object, found %v", path, dec.InputOffset(), tok)
		}
		var it rawItem
		isList := false
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return fmt.Errorf("%s: %w", path, unexpectedEOF(err))
			}
			k, _ := kt.(string)
			switch k {
			case "items":
				isList = true
				if err := p.readItems(path, dec, &n); err != nil {
					return err
				}
			case "apiVersion":
				err = dec.Decode(&it.APIVersion)
			case "kind":
				err = dec.Decode(&it.Kind)
			case "metadata":
				err = dec.Decode(&it.Metadata)
			case "target":
				err = dec.Decode(&it.Target)
			case "deleteOptions":
				err = dec.Decode(&it.DeleteOptions)
			default:
				var skip json.RawMessage
				err = dec.Decode(&skip)
			}
			if err != nil {
				return fmt.Errorf("%s: item %d: %s: %w", path, n, k, err)
			}
		}
		if _, err := dec.Token(); err != nil { // '}'
			return fmt.Errorf("%s: %w", path, unexpectedEOF(err))
		}
		if isList {
			if it.Kind != "List" && (len(it.Kind) < 4 || it.Kind[len(it.Kind)-4:] != "List") {
				return fmt.Errorf("%s: an object with items of kind %q: want a List", path, it.Kind)
			}
			continue
		}
		if err := p.add(path, n, &it); err != nil {
			return err
		}
		n++
	}
}

// readItems reads a List's items array.
func (p *Plan) readItems(path string, dec *json.Decoder, n *int) error {
	if t, err := dec.Token(); err != nil {
		return fmt.Errorf("%s: items: %w", path, err)
	} else if d, ok := t.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("%s: items: want an array", path)
	}
	for dec.More() {
		var it rawItem
		if err := dec.Decode(&it); err != nil {
			return fmt.Errorf("%s: item %d: %w", path, *n, err)
		}
		if err := p.add(path, *n, &it); err != nil {
			return err
		}
		*n++
	}
	if _, err := dec.Token(); err != nil { // ']'
		return fmt.Errorf("%s: items: %w", path, unexpectedEOF(err))
	}
	return nil
}

// unexpectedEOF is err, io.EOF inside a value being io.ErrUnexpectedEOF.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// add checks one object and appends it as an item.
func (p *Plan) add(path string, n int, r *rawItem) error {
	src := fmt.Sprintf("%s: item %d", path, n)
	m := &r.Metadata
	it := Item{Namespace: m.Namespace, Name: m.Name, Src: src}
	if it.Namespace == "" {
		it.Namespace = "default"
	}
	fail := func(field, msg string) error {
		return fmt.Errorf("%s: %s %s: %s: %s", src, r.Kind, it.Key(), field, msg)
	}
	switch {
	case r.APIVersion == "v1" && r.Kind == "Binding":
		it.Op, it.UID = OpBind, m.UID
		if r.Target == nil || r.Target.Name == "" {
			return fail("target.name", "required")
		}
		if r.Target.Kind != "" && r.Target.Kind != "Node" {
			return fail("target.kind", fmt.Sprintf("%q: want Node", r.Target.Kind))
		}
		it.Node = r.Target.Name
	case (r.APIVersion == "policy/v1" || r.APIVersion == "policy/v1beta1") && r.Kind == "Eviction":
		it.Op, it.DeleteOptions = OpEvict, r.DeleteOptions
		if o := r.DeleteOptions; o != nil && o.Preconditions != nil && o.Preconditions.UID != nil {
			it.UID = string(*o.Preconditions.UID)
		}
		it.Node = m.Annotations[export.NodeAnnotation]
		it.Preemptor = m.Annotations[export.PreemptorAnnotation]
	default:
		return errors.New(src + ": " + fmt.Sprintf("%s %q: only v1 Binding and policy/v1 Eviction can be applied", r.APIVersion, r.Kind))
	}
	if m.Name == "" {
		return fail("metadata.name", "required")
	}
	p.Items = append(p.Items, it)
	return nil
}
