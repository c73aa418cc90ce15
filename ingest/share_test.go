package ingest

import (
	"reflect"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestSharer: pods with equal labels, tolerations, requests, images and
// owner share one copy; unequal ones keep their own; an append to a shared
// list copies it rather than write into another pod's.
func TestSharer(t *testing.T) {
	s := newSharer()
	sec := int64(300)
	mk := func(app string, secs int64) index.Pod {
		v := secs
		return index.Pod{
			Labels:      map[string]string{"app": app, "tier": "web"},
			Tolerations: append(make([]index.Toleration, 0, 4), index.Toleration{Key: "k", Operator: index.OpExists, Effect: index.EffectNoExecute, TolerationSeconds: &v}),
			Requests:    index.ResourceList{{Name: index.NameCPU, Value: 100}},
			Images:      []string{"nginx:1.27"},
			Owner:       &index.OwnerRef{Kind: "ReplicaSet", Name: "web-1", APIVersion: "apps/v1", UID: "u1"},
		}
	}
	a, b, c := mk("web", sec), mk("web", sec), mk("api", sec)
	d := mk("web", 60)
	for _, p := range []*index.Pod{&a, &b, &c, &d} {
		s.share(p)
	}
	if mapID(a.Labels) != mapID(b.Labels) || mapID(a.Labels) == mapID(c.Labels) {
		t.Errorf("labels: a and b must share, a and c not")
	}
	if &a.Tolerations[0] != &b.Tolerations[0] || &a.Tolerations[0] == &d.Tolerations[0] {
		t.Errorf("tolerations: a and b must share, a and d (other seconds) not")
	}
	if &a.Requests[0] != &c.Requests[0] || &a.Images[0] != &c.Images[0] || a.Owner != c.Owner {
		t.Errorf("requests, images and owner: equal values must be shared")
	}
	if cap(a.Tolerations) != len(a.Tolerations) {
		t.Fatalf("a shared list has spare capacity %d: an append would write into it", cap(a.Tolerations)-len(a.Tolerations))
	}
	a.Tolerations = append(a.Tolerations, index.Toleration{Key: "x"})
	if len(b.Tolerations) != 1 || &a.Tolerations[0] == &b.Tolerations[0] {
		t.Errorf("append to a's tolerations changed b's")
	}
	if a.Labels["app"] != "web" || c.Labels["app"] != "api" || *d.Tolerations[0].TolerationSeconds != 60 {
		t.Errorf("values changed by sharing")
	}
}

// mapID is a map's identity.
func mapID(m map[string]string) uintptr { return reflect.ValueOf(m).Pointer() }
