package ingest

import (
	"strings"
	"testing"

	"github.com/kplace/kplace/index"
)

// TestValidPodSharedMaps: validPod passes at once a label or node selector
// map it passed for the previous pod (ingest shares equal maps), and still
// checks every other one: an invalid map after a valid one, equal in all
// but one value, is reported, and so is an invalid map used twice. Shared
// toleration lists likewise.
func TestValidPodSharedMaps(t *testing.T) {
	t.Parallel()
	good := map[string]string{"app": "web", "tier": "front"}
	bad := map[string]string{"app": "web", "tier": "-front"}
	check := func(pods []index.Pod) (int, error) {
		c := &objCtx{kind: kindPod}
		for i := range pods {
			p := &pods[i]
			c.ns, c.name = p.Namespace, p.Name
			if err := c.validPod(p); err != nil {
				return i, err
			}
		}
		return -1, nil
	}
	pod := func(name string, labels, sel map[string]string) index.Pod {
		return index.Pod{Namespace: "ns", Name: name, Labels: labels, NodeSelector: sel}
	}
	if i, err := check([]index.Pod{pod("a", good, good), pod("b", good, good), pod("c", good, nil)}); err != nil {
		t.Fatalf("pod %d: %v", i, err)
	}
	// Toleration lists: shared ones pass at once, a list starting where a
	// valid one does but longer is checked whole.
	tols := []index.Toleration{{Key: "dedicated", Operator: index.OpEqual, Value: "gpu", Effect: index.EffectNoSchedule},
		{Key: "spot", Operator: index.OpExists, Value: "-yes", Effect: index.EffectNoSchedule}}
	withTols := func(name string, ts []index.Toleration) index.Pod {
		p := pod(name, good, nil)
		p.Tolerations = ts
		return p
	}
	if i, err := check([]index.Pod{withTols("a", tols[:1]), withTols("b", tols[:1])}); err != nil {
		t.Fatalf("shared tolerations, pod %d: %v", i, err)
	}
	if i, err := check([]index.Pod{withTols("a", tols[:1]), withTols("b", tols[:1]), withTols("c", tols)}); err == nil || i != 2 || !strings.Contains(err.Error(), "spec.tolerations[1]") {
		t.Errorf("a longer list from a valid one's start: pod %d, error %v; want pod 2's spec.tolerations[1]", i, err)
	}
	for _, tc := range []struct {
		name  string
		pods  []index.Pod
		at    int
		field string
	}{
		{"labels after a valid map", []index.Pod{pod("a", good, nil), pod("b", good, nil), pod("c", bad, nil)}, 2, "metadata.labels"},
		{"selector after a valid map", []index.Pod{pod("a", good, good), pod("b", good, bad)}, 1, "spec.nodeSelector"},
		{"a valid selector map as labels", []index.Pod{pod("a", nil, good), pod("b", bad, good)}, 1, "metadata.labels"},
		{"an invalid map first", []index.Pod{pod("a", bad, nil), pod("b", bad, nil)}, 0, "metadata.labels"},
	} {
		i, err := check(tc.pods)
		if err == nil || i != tc.at || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), "-front") {
			t.Errorf("%s: pod %d, error %v; want pod %d's %s", tc.name, i, err, tc.at, tc.field)
		}
	}
}
