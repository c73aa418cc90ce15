package ingest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/rand"
	kdump "k8s.io/utils/dump"
)

// Pod templates as their controllers read them: the hashes that name
// ReplicaSets and revisions, and template equality. A template is hashed
// as the API server stores it (defaulted): an exported controller's
// template is stored already, a manifest's is defaulted first
// (apidefaults.go).

// Labels and annotations the controllers write.
const (
	labelPodTemplateHash   = "pod-template-hash"        // apps.DefaultDeploymentUniqueLabelKey
	labelRevisionHash      = "controller-revision-hash" // apps.ControllerRevisionHashLabelKey
	labelTemplateGen       = "pod-template-generation"  // DaemonSetTemplateGenerationKey
	labelSTSPodName        = "statefulset.kubernetes.io/pod-name"
	labelPodIndex          = "apps.kubernetes.io/pod-index"
	labelCompletionIndex   = "batch.kubernetes.io/job-completion-index" // also the annotation
	labelJobControllerUID  = "batch.kubernetes.io/controller-uid"
	labelJobName           = "batch.kubernetes.io/job-name"
	labelLegacyJobUID      = "controller-uid"
	labelLegacyJobName     = "job-name"
	finalizerJobTracking   = "batch.kubernetes.io/job-tracking"
	envCompletionIndex     = "JOB_COMPLETION_INDEX"
	maxGeneratedNameLength = 63 - 5 // names.MaxGeneratedNameLength
)

// decodeTemplate decodes a PodTemplateSpec.
func decodeTemplate(raw []byte) (*corev1.PodTemplateSpec, error) {
	t := new(corev1.PodTemplateSpec)
	if err := json.Unmarshal(raw, t); err != nil {
		return nil, err
	}
	return t, nil
}

// TemplateHash returns the deployment controller's pod-template-hash of a
// pod template given as JSON (a Deployment's spec.template as the API
// server stores it), with the Deployment's collision count (nil when it
// has none): templateHash over the decoded template.
func TemplateHash(template []byte, collisionCount *int32) (string, error) {
	t, err := decodeTemplate(template)
	if err != nil {
		return "", fmt.Errorf("pod template: %w", err)
	}
	cc := int32(-1)
	if collisionCount != nil {
		cc = *collisionCount
	}
	return templateHash(t, cc), nil
}

// templateHash is the deployment controller's ComputeHash (also the
// DaemonSet revision hash): FNV-32a over the template's deep dump, then the
// collision count (when set, collisionCount >= 0) as eight little-endian
// bytes, written as the decimal of the sum, safely encoded.
func templateHash(t *corev1.PodTemplateSpec, collisionCount int32) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", kdump.ForHash(*t))
	if collisionCount >= 0 {
		var b [8]byte
		binary.LittleEndian.PutUint32(b[:], uint32(collisionCount))
		h.Write(b[:])
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// statefulSetRevision is the name of the ControllerRevision the
// StatefulSet controller makes for template t (the controller-revision-hash
// label of its pods): the set's name and the FNV-32 hash of the revision's
// patch, {"spec":{"template":T with "$patch":"replace"}} with T the
// template's JSON encoding re-marshalled through a map (sorted keys), then
// the collision count in decimal (0 when unset: the controller always
// passes one).
func statefulSetRevision(name string, t *corev1.PodTemplateSpec, collisionCount int32) (string, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", err
	}
	m["$patch"] = "replace"
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"template": m}})
	if err != nil {
		return "", err
	}
	h := fnv.New32()
	h.Write(patch)
	h.Write([]byte(strconv.FormatInt(int64(max(collisionCount, 0)), 10)))
	hash := rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
	if len(name) > 223 {
		name = name[:223]
	}
	return name + "-" + hash, nil
}

// deployTemplate is a Deployment's template for equalIgnoreHash, decoded
// on the first comparison that needs it and kept for the next ones (a
// Deployment is compared with each of its ReplicaSets until one matches).
type deployTemplate struct {
	raw     []byte
	dec     *corev1.PodTemplateSpec
	decoded bool
	// images are raw's (templateImages), read on the first comparison
	// that needs them.
	images           []string
	imaged, imagesOK bool
}

// equalIgnoreHash is the deployment controller's EqualIgnoreHash: the two
// templates, without their pod-template-hash labels, are semantically
// equal. rs is a ReplicaSet's template. Comparing the bytes, but for the
// whitespace between tokens, with the ReplicaSet's label cut out answers
// for exported objects (the API server writes both alike; an export
// indents both alike, or neither); otherwise the templates are decoded and
// compared as apimachinery's Semantic.DeepEqual does.
func (d *deployTemplate) equalIgnoreHash(rs []byte) bool {
	if cut, ok := cutLabel(rs, labelPodTemplateHash); ok && (bytes.Equal(cut, d.raw) || sameTokens(cut, d.raw)) {
		return true
	}
	// Templates of other revisions mostly differ in their images: a
	// difference there answers without decoding.
	if !d.imaged {
		d.imaged = true
		d.images, d.imagesOK = templateImages(d.raw)
	}
	if d.imagesOK {
		if imgs, ok := templateImages(rs); ok && !slices.Equal(imgs, d.images) {
			return false
		}
	}
	if !d.decoded {
		d.decoded = true
		if t, err := decodeTemplate(d.raw); err == nil {
			delete(t.Labels, labelPodTemplateHash)
			d.dec = t
		}
	}
	t, err := decodeTemplate(rs)
	if err != nil || d.dec == nil {
		return false
	}
	delete(t.Labels, labelPodTemplateHash)
	return apiequality.Semantic.DeepEqual(t, d.dec)
}

// templateImages returns the images of pod template t's init containers
// then its containers, each list ended by "\x00" (no image holds one), as
// encoding/json decodes them into a PodTemplateSpec: keys matched without
// regard to case, a null image, container or list left empty. ok is false
// when t does not parse so, or repeats a key on the way (encoding/json
// would merge or overwrite: the caller decodes instead). The rest of t is
// skipped unchecked: the images are right whenever t decodes.
func templateImages(t []byte) (imgs []string, ok bool) {
	p := &jp{b: t}
	var lists [2][]string // init containers', containers'
	err := p.run(func() {
		p.foldFields([]string{"spec"}, func(int) {
			p.foldFields([]string{"initContainers", "containers"}, func(i int) {
				lists[i] = nil
				if p.arrStart() {
					for first := true; p.more(&first); {
						img := ""
						p.foldFields([]string{"image"}, func(int) { img = p.str() })
						lists[i] = append(lists[i], img)
					}
				}
			})
		})
	})
	if err != nil {
		return nil, false
	}
	imgs = append(append(lists[0], "\x00"), lists[1]...)
	return append(imgs, "\x00"), true
}

// foldFields walks an object (null: none), calling f with the index in
// names of each key it holds that names lists, matched as encoding/json
// matches field names (without regard to case), and skipping the others.
// A key of names repeated fails: encoding/json would merge or overwrite.
func (p *jp) foldFields(names []string, f func(i int)) {
	if !p.objStart() {
		return
	}
	var seen uint64
	for first := true; ; {
		k := p.next(&first)
		if k == nil {
			return
		}
		i := slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(string(k), n) })
		if i < 0 {
			p.skip()
			continue
		}
		if seen&(1<<i) != 0 {
			p.fail("%s repeated", names[i])
		}
		seen |= 1 << i
		f(i)
	}
}

// cutLabel returns template t without its label key: the member and the
// comma that separated it from a neighbour, however the text is laid out
// (the whitespace left is for sameTokens to ignore). False when t does not
// parse, or has no such label or more than one.
func cutLabel(t []byte, key string) ([]byte, bool) {
	tp, err := templateParts(t)
	if _, ok := tp.labels[key]; err != nil || !ok {
		return nil, false
	}
	start, end, n := 0, 0, 0
	p := &jp{b: t[:tp.labelsHi], i: tp.labelsLo}
	err = p.run(func() {
		if !p.objStart() {
			return
		}
		for first := true; ; {
			lead, sep := first, p.i // before the member's ',' (or after '{')
			k := p.next(&first)
			if k == nil {
				return
			}
			p.skip()
			if string(k) != key {
				continue
			}
			n++
			start, end = sep, p.i
			if lead { // the member's own ',' goes, if another follows
				if c := p.peek(); c == ',' {
					end = p.i + 1
				}
			}
		}
	})
	if err != nil || n != 1 {
		return nil, false
	}
	out := make([]byte, 0, len(t)-(end-start))
	return append(append(out, t[:start]...), t[end:]...), true
}

// sameTokens reports whether JSON texts a and b differ at most in the
// whitespace between their tokens (in valid JSON a separator stands between
// any two values, so no two tokens run together where space is taken out).
func sameTokens(a, b []byte) bool {
	i, j := 0, 0
	inStr := false
	for {
		if !inStr {
			for i < len(a) && isSpace(a[i]) {
				i++
			}
			for j < len(b) && isSpace(b[j]) {
				j++
			}
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		c := a[i]
		if c != b[j] {
			return false
		}
		i++
		j++
		switch {
		case !inStr:
			inStr = c == '"'
		case c == '\\': // the escaped byte matches too
			if i == len(a) || j == len(b) || a[i] != b[j] {
				return false
			}
			i++
			j++
		case c == '"':
			inStr = false
		}
	}
}
