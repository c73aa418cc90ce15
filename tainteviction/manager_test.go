package tainteviction

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kplace/kplace/index"
	"sigs.k8s.io/yaml"
)

func secs(s int64) *int64 { return &s }

func tol(key, op, value, effect string, seconds *int64) index.Toleration {
	return index.Toleration{Key: key, Operator: op, Value: value, Effect: effect, TolerationSeconds: seconds}
}

func noExec(key, value string) index.Taint {
	return index.Taint{Key: key, Value: value, Effect: index.EffectNoExecute}
}

const (
	unreachable = "node.kubernetes.io/unreachable"
	notReady    = "node.kubernetes.io/not-ready"
)

// defaults are the DefaultTolerationSeconds admission plugin's tolerations.
var defaults = []index.Toleration{
	tol(notReady, index.OpExists, "", index.EffectNoExecute, secs(300)),
	tol(unreachable, index.OpExists, "", index.EffectNoExecute, secs(300)),
}

func TestMinTolerationTime(t *testing.T) {
	f := func(name string, taints []index.Taint, tols []index.Toleration, wantAll bool, want time.Duration) {
		t.Helper()
		all, used := MatchingTolerations(taints, tols)
		if all != wantAll {
			t.Fatalf("%s: all tolerated = %v, want %v", name, all, wantAll)
		}
		if !all {
			return
		}
		if got := MinTolerationTime(used); got != want {
			t.Errorf("%s: min toleration = %v, want %v", name, got, want)
		}
	}
	k1 := []index.Taint{noExec("key1", "value1")}
	f("first matching toleration, not the smallest", k1, []index.Toleration{
		tol("key1", index.OpExists, "", index.EffectNoExecute, secs(8)),
		tol("", index.OpExists, "", index.EffectNoExecute, secs(3)),
	}, true, 8*time.Second)
	f("order reversed: the wildcard comes first", k1, []index.Toleration{
		tol("", index.OpExists, "", index.EffectNoExecute, secs(3)),
		tol("key1", index.OpExists, "", index.EffectNoExecute, secs(8)),
	}, true, 3*time.Second)
	f("first match has no seconds: forever, a later one with seconds is not used", k1, []index.Toleration{
		tol("key1", index.OpEqual, "value1", index.EffectNoExecute, nil),
		tol("key1", index.OpExists, "", "", secs(5)),
	}, true, Forever)
	f("two taints, each its own first match: the smaller wins", []index.Taint{noExec("a", ""), noExec("b", "")}, []index.Toleration{
		tol("a", index.OpExists, "", index.EffectNoExecute, secs(10)),
		tol("b", index.OpExists, "", index.EffectNoExecute, secs(5)),
	}, true, 5*time.Second)
	f("used tolerations mixing forever and seconds", []index.Taint{noExec("a", ""), noExec("b", "")}, []index.Toleration{
		tol("a", index.OpExists, "", index.EffectNoExecute, nil),
		tol("b", index.OpExists, "", "", secs(20)),
	}, true, 20*time.Second)
	f("zero seconds: at once", k1, []index.Toleration{tol("key1", index.OpExists, "", "", secs(0))}, true, 0)
	f("negative seconds: at once", k1, []index.Toleration{tol("key1", index.OpExists, "", "", secs(-7))}, true, 0)
	f("untolerated taint", []index.Taint{noExec("key1", "value1"), noExec("other", "")}, []index.Toleration{tol("key1", index.OpExists, "", "", secs(9))}, false, 0)
	f("Equal with another value does not tolerate", k1, []index.Toleration{tol("key1", index.OpEqual, "value2", index.EffectNoExecute, secs(9))}, false, 0)
	f("empty operator means Equal", k1, []index.Toleration{tol("key1", "", "value1", index.EffectNoExecute, secs(4))}, true, 4*time.Second)
	f("NoSchedule toleration does not tolerate NoExecute", k1, []index.Toleration{tol("key1", index.OpExists, "", index.EffectNoSchedule, secs(4))}, false, 0)
	f("no tolerations", k1, nil, false, 0)
	f("the admission defaults on an unreachable node: 300 s", []index.Taint{noExec(unreachable, "")}, defaults, true, 300*time.Second)
	f("the admission defaults do not tolerate another key", k1, defaults, false, 0)
}

// TestSeedTolerations: the seed's pod tolerating not-ready and unreachable
// for 180 s is deleted 180 s after either taint, not the default 300 s.
func TestSeedTolerations(t *testing.T) {
	raw, err := os.ReadFile("testdata/seed-tolerations.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tolerations []struct {
			Key, Operator, Value, Effect string
			TolerationSeconds            *int64 `json:"tolerationSeconds"`
		} `json:"tolerations"`
	}
	if err := yaml.UnmarshalStrict(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var tols []index.Toleration
	for _, x := range doc.Tolerations {
		tols = append(tols, tol(x.Key, x.Operator, x.Value, x.Effect, x.TolerationSeconds))
	}
	for _, key := range []string{unreachable, notReady} {
		got := run(t, []step{{at: 10, add: []index.Taint{noExec(key, "")}}}, []Pod[string]{{Key: "seed", Tolerations: tols}}, 0)
		if want := "190s seed"; got != want {
			t.Errorf("%s: deletions %q, want %q", key, got, want)
		}
	}
}

// step changes node1's taints at a whole second, or binds a pod there.
type step struct {
	at          int64
	add, remove []index.Taint // remove matches by key and effect
	bind        *Pod[string]  // a pod bound to node1 at that time
	deleted     string        // a pod deleted at that time (by someone else)
}

// run plays steps against a manager (node1 starts with no taints and
// holds pods), firing due workers between them, until horizon seconds past
// the last step, and returns the deletions as "Ns pod" in order.
func run(t *testing.T, steps []step, pods []Pod[string], horizon int64) string {
	t.Helper()
	m := NewManager[string, string]()
	on := slices.Clone(pods)
	var taints []index.Taint
	var out []string
	del := func(key string, at time.Duration) {
		out = append(out, fmt.Sprintf("%ds %s", at/time.Second, key))
		on = slices.DeleteFunc(on, func(p Pod[string]) bool { return p.Key == key })
		m.PodDeleted(key)
	}
	fire := func(until time.Duration) {
		for {
			k, w, ok := m.Due(until)
			if !ok {
				return
			}
			del(k, w.FireAt)
		}
	}
	apply := func(changes []Change[string], now time.Duration) {
		for _, c := range changes {
			if c.Outcome == DeleteNow {
				del(c.Key, now)
			}
		}
	}
	last := time.Duration(0)
	for _, s := range steps {
		now := time.Duration(s.at) * time.Second
		fire(now - 1)
		switch {
		case s.bind != nil:
			on = append(on, *s.bind)
			apply([]Change[string]{m.PodUpdated(*s.bind, "node1", now)}, now)
		case s.deleted != "":
			del(s.deleted, now)
		default:
			next := slices.DeleteFunc(slices.Clone(taints), func(x index.Taint) bool {
				for _, r := range s.remove {
					if x.Key == r.Key && (r.Effect == "" || x.Effect == r.Effect) {
						return true
					}
				}
				return false
			})
			next = append(next, s.add...)
			changed := !slices.Equal(NoExecuteTaints(taints), NoExecuteTaints(next))
			taints = next
			if changed {
				apply(m.NodeUpdated("node1", taints, on, now, nil), now)
			}
		}
		last = now
	}
	fire(last + time.Duration(horizon)*time.Second + 1000*time.Second)
	return strings.Join(out, ", ")
}

func TestManager(t *testing.T) {
	k1 := noExec("key1", "value1")
	intolerant := Pod[string]{Key: "intolerant"}
	tolerates := func(key string, s *int64) Pod[string] {
		return Pod[string]{Key: key, Tolerations: []index.Toleration{tol("key1", index.OpExists, "", index.EffectNoExecute, s)}}
	}
	cases := []struct {
		name  string
		pods  []Pod[string]
		steps []step
		want  string
	}{
		{"not tolerated: deleted at once; tolerated with seconds: after them; forever: never",
			[]Pod[string]{intolerant, tolerates("two", secs(2)), tolerates("forever", nil)},
			[]step{{at: 1, add: []index.Taint{k1}}},
			"1s intolerant, 3s two"},
		{"a taint removed before its timer fires cancels the deletion",
			[]Pod[string]{tolerates("six", secs(6)), tolerates("two", secs(2))},
			[]step{{at: 1, add: []index.Taint{k1}}, {at: 5, remove: []index.Taint{k1}}},
			"3s two"},
		{"the oracle's testdata: first matching toleration, 8 s not 3 s",
			[]Pod[string]{{Key: "min", Tolerations: []index.Toleration{
				tol("key1", index.OpExists, "", index.EffectNoExecute, secs(8)),
				tol("", index.OpExists, "", index.EffectNoExecute, secs(3))}}},
			[]step{{at: 1, add: []index.Taint{k1}}},
			"9s min"},
		{"a taint added while a deletion is scheduled keeps the earlier schedule (not 2+3)",
			[]Pod[string]{{Key: "p", Tolerations: []index.Toleration{
				tol("key1", index.OpExists, "", index.EffectNoExecute, secs(10)),
				tol("key2", index.OpExists, "", index.EffectNoExecute, secs(3))}}},
			[]step{{at: 0, add: []index.Taint{k1}}, {at: 2, add: []index.Taint{noExec("key2", "")}}},
			"10s p"},
		{"a taint added at the same instant replaces the worker, keeping its start",
			[]Pod[string]{{Key: "p", Tolerations: []index.Toleration{
				tol("key1", index.OpExists, "", index.EffectNoExecute, secs(10)),
				tol("key2", index.OpExists, "", index.EffectNoExecute, secs(3))}}},
			[]step{{at: 4, add: []index.Taint{k1}}, {at: 4, add: []index.Taint{noExec("key2", "")}}},
			"7s p"},
		{"a taint added later with a longer toleration does not extend it either",
			[]Pod[string]{{Key: "p", Tolerations: []index.Toleration{
				tol("key1", index.OpExists, "", index.EffectNoExecute, secs(10)),
				tol("key2", index.OpExists, "", index.EffectNoExecute, secs(30))}}},
			[]step{{at: 0, add: []index.Taint{k1}}, {at: 5, remove: []index.Taint{k1}, add: []index.Taint{noExec("key2", "")}}},
			"10s p"},
		{"an untolerated taint added while a deletion is scheduled deletes at once",
			[]Pod[string]{tolerates("p", secs(10))},
			[]step{{at: 0, add: []index.Taint{k1}}, {at: 4, add: []index.Taint{noExec("other", "")}}},
			"4s p"},
		{"tolerating the new taints forever cancels the scheduled deletion",
			[]Pod[string]{{Key: "p", Tolerations: []index.Toleration{
				tol("key1", index.OpExists, "", index.EffectNoExecute, secs(10)),
				tol("key2", index.OpExists, "", index.EffectNoExecute, nil)}}},
			[]step{{at: 0, add: []index.Taint{k1}}, {at: 4, remove: []index.Taint{k1}, add: []index.Taint{noExec("key2", "")}}},
			""},
		{"a NoSchedule taint is not the taint manager's",
			[]Pod[string]{intolerant},
			[]step{{at: 0, add: []index.Taint{{Key: "key1", Effect: index.EffectNoSchedule}, {Key: "key1", Effect: index.EffectPreferNoSchedule}}}},
			""},
		{"removing one of two NoExecute taints reprocesses without moving the schedule",
			[]Pod[string]{{Key: "p", Tolerations: []index.Toleration{
				tol("key1", index.OpExists, "", index.EffectNoExecute, secs(10)),
				tol("key2", index.OpExists, "", index.EffectNoExecute, secs(5))}}},
			[]step{{at: 0, add: []index.Taint{k1, noExec("key2", "")}}, {at: 2, remove: []index.Taint{{Key: "key2"}}}},
			"5s p"},
		{"zero seconds: deleted when the taint comes",
			[]Pod[string]{tolerates("zero", secs(0))},
			[]step{{at: 3, add: []index.Taint{k1}}},
			"3s zero"},
		{"a pod bound to a tainted node starts its own timer then",
			nil,
			[]step{{at: 1, add: []index.Taint{k1}}, {at: 6, bind: &Pod[string]{Key: "late", Tolerations: []index.Toleration{tol("key1", index.OpExists, "", "", secs(4))}}}},
			"10s late"},
		{"an intolerant pod bound to a tainted node goes at once",
			nil,
			[]step{{at: 1, add: []index.Taint{k1}}, {at: 6, bind: &intolerant}},
			"6s intolerant"},
		{"a pod deleted by someone else has its work cancelled",
			[]Pod[string]{tolerates("p", secs(10)), tolerates("q", secs(10))},
			[]step{{at: 0, add: []index.Taint{k1}}, {at: 3, deleted: "p"}},
			"3s p, 10s q"},
		// The seed's StatefulSet story: the taint comes, the pod goes, the
		// taint goes, the set recreates the pod under the same name on the
		// node, and the taint comes back quickly. The seed's controller kept
		// the fired key and skipped the new work; v1.36 drops the key once
		// the deletion has run, so the new pod is deleted again.
		{"the seed's re-taint: a recreated pod of the same name is deleted again",
			[]Pod[string]{{Key: "sts-0"}},
			[]step{
				{at: 1, add: []index.Taint{{Key: "node.kubernetes.io/unschedulable", Effect: index.EffectNoExecute}}},
				{at: 2, remove: []index.Taint{{Key: "node.kubernetes.io/unschedulable"}}},
				{at: 3, bind: &Pod[string]{Key: "sts-0"}},
				{at: 4, add: []index.Taint{{Key: "node.kubernetes.io/unschedulable", Effect: index.EffectNoExecute}}},
			},
			"1s sts-0, 4s sts-0"},
		{"the admission defaults on an unreachable node: 300 s",
			[]Pod[string]{{Key: "web", Tolerations: defaults}, {Key: "daemon", Tolerations: []index.Toleration{tol(unreachable, index.OpExists, "", index.EffectNoExecute, nil)}}},
			[]step{{at: 40, add: []index.Taint{noExec(unreachable, "")}}},
			"340s web"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := run(t, c.steps, c.pods, 0); got != c.want {
				t.Errorf("deletions %q, want %q", got, c.want)
			}
		})
	}
}

func TestQueue(t *testing.T) {
	q := NewQueue[int]()
	if added, now := q.AddWork(1, 0, 5*time.Second); !added || now {
		t.Fatal("first AddWork")
	}
	if added, _ := q.AddWork(1, 0, time.Second); added {
		t.Error("AddWork of an existing key must skip")
	}
	if _, now := q.AddWork(2, 3*time.Second, 3*time.Second); !now {
		t.Error("FireAt == CreatedAt must run at once")
	}
	if _, ok := q.Get(2); ok {
		t.Error("work run at once must leave no entry")
	}
	q.AddWork(3, 0, 5*time.Second)
	q.AddWork(4, 0, 2*time.Second)
	if !q.CancelWork(4) || q.CancelWork(4) {
		t.Error("CancelWork reports whether there was work")
	}
	var got []int
	for {
		k, _, ok := q.PopDue(5 * time.Second)
		if !ok {
			break
		}
		got = append(got, k)
	}
	if !slices.Equal(got, []int{1, 3}) || q.Len() != 0 {
		t.Errorf("fired %v (left %d), want [1 3] in the order added", got, q.Len())
	}
}
