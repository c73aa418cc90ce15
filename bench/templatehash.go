package bench

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/dump"
)

// podTemplateHash is the deployment controller's pod-template-hash of a
// pod template (a Deployment's spec.template, as JSON, API defaults
// applied as the API server stores them): FNV-32a over the deep dump of
// the decoded v1.PodTemplateSpec, then the collision count (nil when the
// Deployment has none) as 8 little-endian bytes, the sum's decimal string
// encoded with the safe alphabet (upstream pkg/controller ComputeHash with
// pkg/util/hash DeepHashObject). The dump covers every field of the Go
// type, so the value belongs to the k8s.io/api version linked (v0.36.3:
// what a v1.36 controller computes).
func podTemplateHash(template []byte, collisionCount *int32) (string, error) {
	var t corev1.PodTemplateSpec
	if err := json.Unmarshal(template, &t); err != nil {
		return "", fmt.Errorf("bench: pod template: %w", err)
	}
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(t))
	if collisionCount != nil {
		var b [8]byte
		binary.LittleEndian.PutUint32(b[:], uint32(*collisionCount))
		h.Write(b[:])
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32())), nil
}
