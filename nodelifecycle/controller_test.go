package nodelifecycle

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kplace/kplace/index"
)

func TestComputeZoneState(t *testing.T) {
	f := func(ready, notReady int, want ZoneState) {
		t.Helper()
		if got := ComputeZoneState(ready, notReady, 0.55); got != want {
			t.Errorf("ready %d, not ready %d: %s, want %s", ready, notReady, got, want)
		}
	}
	f(0, 1, StateFullDisruption)
	f(0, 3, StateFullDisruption)
	f(0, 0, StateNormal)
	f(1, 3, StatePartialDisruption) // 0.75
	f(2, 3, StatePartialDisruption) // 0.6
	f(3, 3, PartialOrNormal(3, 3))  // 0.5 < 0.55
	f(1, 2, StateNormal)            // not more than two
	f(7, 3, StateNormal)            // 0.3
	f(9, 11, StatePartialDisruption)
}

// PartialOrNormal is the expected state by the rule's own arithmetic, for
// a case at the threshold's edge.
func PartialOrNormal(ready, notReady int) ZoneState {
	if notReady > 2 && float32(notReady)/float32(ready+notReady) >= 0.55 {
		return StatePartialDisruption
	}
	return StateNormal
}

func TestZoneRate(t *testing.T) {
	cfg := DefaultConfig()
	f := func(s ZoneState, size int, want float32) {
		t.Helper()
		if got, _ := cfg.zoneRate(s, size); got != want {
			t.Errorf("%s, %d nodes: rate %v, want %v", s, size, got, want)
		}
	}
	f(StateNormal, 3, 0.1)
	f(StateFullDisruption, 1000, 0.1)
	f(StatePartialDisruption, 50, 0) // not larger than the threshold
	f(StatePartialDisruption, 51, 0.01)
}

func TestZoneKey(t *testing.T) {
	if got := ZoneKey(map[string]string{labelZone: "a", labelRegion: "r"}); got != "r:\x00:a" || ZoneName(got) != "a" {
		t.Errorf("GA labels: %q", got)
	}
	if got := ZoneKey(map[string]string{labelZone: "a", labelZoneBeta: "b"}); got != ":\x00:b" {
		t.Errorf("the beta zone label wins: %q", got)
	}
	if got := ZoneKey(map[string]string{"x": "y"}); got != "" {
		t.Errorf("no zone: %q", got)
	}
}

func TestLimiter(t *testing.T) {
	l := newLimiter(0.1)
	var got []string
	now := time.Duration(0)
	for range 4 {
		at, ok := l.nextAccept(now, EvictionPeriod)
		if !ok || !l.tryAccept(at) {
			t.Fatal("no token")
		}
		got = append(got, at.String())
		now = at
	}
	if want := "0s 10s 20s 30s"; strings.Join(got, " ") != want {
		t.Errorf("tokens at %v, want %s (float32 0.1 is a hair above 0.1/s)", got, want)
	}
	if l.tryAccept(now + 9999*time.Millisecond) {
		t.Error("a token before 10 s")
	}
	if never := newLimiter(0); never.tryAccept(time.Hour) || never.rate() != 1 {
		t.Error("a rate of 0 never accepts and reports 1 (fakeNeverRateLimiter)")
	}
}

// fake is a Cluster recording taint changes.
type fake struct {
	now    *time.Duration
	taints map[string][]index.Taint
	log    []string
	c      *Controller
	cordon map[string]bool
}

func (f *fake) Taints(node string) []index.Taint { return f.taints[node] }

func (f *fake) SwapTaints(node string, add, remove []index.Taint) {
	for _, r := range remove {
		f.taints[node] = slices.DeleteFunc(f.taints[node], func(t index.Taint) bool {
			if t.Key == r.Key && t.Effect == r.Effect {
				f.log = append(f.log, fmt.Sprintf("%v -%s:%s %s", *f.now, short(t.Key), t.Effect, node))
				return true
			}
			return false
		})
	}
	for _, a := range add {
		f.taints[node] = append(f.taints[node], a)
		f.log = append(f.log, fmt.Sprintf("%v +%s:%s %s", *f.now, short(a.Key), a.Effect, node))
	}
}

func short(key string) string { return strings.TrimPrefix(key, "node.kubernetes.io/") }

func (f *fake) ReadyChanged(node string, ready Status) {
	f.log = append(f.log, fmt.Sprintf("%v ready=%s %s", *f.now, ready, node))
	f.c.SyncNoSchedule(node, f.cordon[node])
}

func (f *fake) ZoneChanged(zone string, from, to ZoneState) {
	f.log = append(f.log, fmt.Sprintf("%v zone %s %s", *f.now, ZoneName(zone), to))
}

type ev struct {
	at   time.Duration
	what string // fail, recover, remove, cordon, untaint (the unreachable NoExecute, by someone else)
	node string
}

// drive runs the controller over nodes (name -> zone) with the events,
// until horizon, and returns the log of taint, ready and zone changes.
func drive(t *testing.T, cfg Config, nodes [][2]string, evs []ev, horizon time.Duration) []string {
	t.Helper()
	var now time.Duration
	f := &fake{now: &now, taints: map[string][]index.Taint{}, cordon: map[string]bool{}}
	c := New(cfg, f)
	f.c = c
	for _, n := range nodes {
		labels := map[string]string{labelZone: n[1]}
		if strings.HasPrefix(n[0], "excl") {
			labels[labelExcludeZone] = ""
		}
		c.Known(n[0], labels, ReadyTrue, true)
	}
	c.Monitor(0)
	for {
		next := horizon
		if len(evs) > 0 {
			next = min(next, evs[0].at)
		}
		if m, ok := c.NextMonitor(now); ok {
			next = min(next, m)
		}
		if p, ok := c.NextTaintPass(now); ok {
			next = min(next, p)
		}
		if next >= horizon {
			return f.log
		}
		now = next
		for len(evs) > 0 && evs[0].at == now {
			e := evs[0]
			evs = evs[1:]
			switch e.what {
			case "fail":
				c.Fail(e.node, now)
			case "recover":
				c.Recover(e.node)
			case "remove":
				c.RemoveNode(e.node)
			case "cordon":
				f.cordon[e.node] = true
				c.SyncNoSchedule(e.node, true)
			case "untaint":
				f.SwapTaints(e.node, nil, []index.Taint{unreachableNoExec})
				c.TaintsChanged(e.node)
			}
		}
		if m, ok := c.NextMonitor(now); ok && m == now {
			c.Monitor(now)
		}
		if p, ok := c.NextTaintPass(now); ok && p == now {
			c.TaintPass(now)
		}
		now++ // this instant is done: look past it
	}
}

func zoneNodes(zone string, names ...string) [][2]string {
	var out [][2]string
	for _, n := range names {
		out = append(out, [2]string{n, zone})
	}
	return out
}

func s(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }

func TestController(t *testing.T) {
	cfg := DefaultConfig()
	big := func(zone string, n int) [][2]string {
		var out [][2]string
		for i := range n {
			out = append(out, [2]string{fmt.Sprintf("%s%02d", zone, i), zone})
		}
		return out
	}
	cases := []struct {
		name  string
		nodes [][2]string
		evs   []ev
		want  []string
	}{
		{"one node of four: Unknown at the first pass after probe + 50 s, both taints at once",
			zoneNodes("a", "n1", "n2", "n3", "n4"),
			[]ev{{s(62), "fail", "n2"}},
			[]string{"2m0s ready=Unknown n2", "2m0s +unreachable:NoSchedule n2", "2m0s +unreachable:NoExecute n2"}},
		{"a failure on the pass grid: probe 60 s, not Unknown at 110 s, at 115 s",
			zoneNodes("a", "n1", "n2", "n3", "n4"),
			[]ev{{s(60), "fail", "n2"}},
			[]string{"1m55s ready=Unknown n2", "1m55s +unreachable:NoSchedule n2", "1m55s +unreachable:NoExecute n2"}},
		{"a pass at exactly probe + grace does not mark the node yet (strictly after)",
			zoneNodes("a", "n1", "n2", "n3", "n4"),
			[]ev{{0, "fail", "n1"}, {s(50), "untaint", "n2"}},
			[]string{"55s ready=Unknown n1", "55s +unreachable:NoSchedule n1", "55s +unreachable:NoExecute n1"}},
		{"a whole zone: FullDisruption, one NoExecute taint per 10 s, in node order",
			append(zoneNodes("a", "a1", "a2", "a3"), zoneNodes("b", "b1", "b2")...),
			[]ev{{0, "fail", "a3"}, {0, "fail", "a1"}, {0, "fail", "a2"}},
			[]string{"55s ready=Unknown a1", "55s +unreachable:NoSchedule a1", "55s ready=Unknown a2", "55s +unreachable:NoSchedule a2",
				"55s ready=Unknown a3", "55s +unreachable:NoSchedule a3", "55s zone a FullDisruption",
				"55s +unreachable:NoExecute a1", "1m5s +unreachable:NoExecute a2", "1m15s +unreachable:NoExecute a3"}},
		{"PartialDisruption in a small zone stops tainting",
			append(zoneNodes("a", "a1", "a2", "a3", "a4"), zoneNodes("b", "b1")...),
			[]ev{{0, "fail", "a1"}, {0, "fail", "a2"}, {0, "fail", "a3"}},
			[]string{"55s ready=Unknown a1", "55s +unreachable:NoSchedule a1", "55s ready=Unknown a2", "55s +unreachable:NoSchedule a2",
				"55s ready=Unknown a3", "55s +unreachable:NoSchedule a3", "55s zone a PartialDisruption"}},
		{"recovery: NoSchedule off at once, NoExecute at the next monitor pass",
			zoneNodes("a", "n1", "n2", "n3"),
			[]ev{{0, "fail", "n1"}, {s(101), "recover", "n1"}},
			[]string{"55s ready=Unknown n1", "55s +unreachable:NoSchedule n1", "55s +unreachable:NoExecute n1",
				"1m41s ready=True n1", "1m41s -unreachable:NoSchedule n1", "1m45s -unreachable:NoExecute n1"}},
		{"recovered before the grace period: nothing",
			zoneNodes("a", "n1", "n2"),
			[]ev{{0, "fail", "n1"}, {s(30), "recover", "n1"}},
			nil},
		{"every zone down: master disruption mode, no NoExecute taint",
			append(zoneNodes("a", "a1"), zoneNodes("b", "b1")...),
			[]ev{{0, "fail", "a1"}, {0, "fail", "b1"}},
			[]string{"55s ready=Unknown a1", "55s +unreachable:NoSchedule a1", "55s ready=Unknown b1", "55s +unreachable:NoSchedule b1",
				"55s zone a FullDisruption", "55s zone b FullDisruption"}},
		// The pass at 200 s swaps zone a's never-limiter for a 0.1/s bucket,
		// drained because the old one had no token (SwapLimiter): 10 s later.
		{"leaving master disruption mode: the other zone's node is tainted 10 s later",
			append(zoneNodes("a", "a1"), zoneNodes("b", "b1")...),
			[]ev{{0, "fail", "a1"}, {0, "fail", "b1"}, {s(200), "recover", "b1"}},
			[]string{"55s ready=Unknown a1", "55s +unreachable:NoSchedule a1", "55s ready=Unknown b1", "55s +unreachable:NoSchedule b1",
				"55s zone a FullDisruption", "55s zone b FullDisruption",
				"3m20s ready=True b1", "3m20s -unreachable:NoSchedule b1", "3m20s zone b Normal", "3m30s +unreachable:NoExecute a1"}},
		{"a removed node still takes its token",
			append(zoneNodes("a", "a1", "a2", "a3"), zoneNodes("b", "b1")...),
			[]ev{{0, "fail", "a1"}, {0, "fail", "a2"}, {0, "fail", "a3"}, {s(60), "remove", "a2"}},
			[]string{"55s ready=Unknown a1", "55s +unreachable:NoSchedule a1", "55s ready=Unknown a2", "55s +unreachable:NoSchedule a2",
				"55s ready=Unknown a3", "55s +unreachable:NoSchedule a3", "55s zone a FullDisruption",
				"55s +unreachable:NoExecute a1", "1m15s +unreachable:NoExecute a3"}},
		{"excluded nodes do not count: the zone is Full with one excluded node up",
			append(zoneNodes("a", "a1", "excl-a"), zoneNodes("b", "b1")...),
			[]ev{{0, "fail", "a1"}},
			[]string{"55s ready=Unknown a1", "55s +unreachable:NoSchedule a1", "55s zone a FullDisruption", "55s +unreachable:NoExecute a1"}},
		{"cordon: the unschedulable NoSchedule taint",
			zoneNodes("a", "n1"),
			[]ev{{s(3), "cordon", "n1"}},
			[]string{"3s +unschedulable:NoSchedule n1"}},
		{"the unreachable NoExecute taint removed by hand comes back through the queue",
			zoneNodes("a", "n1", "n2", "n3"),
			[]ev{{0, "fail", "n1"}, {s(70), "untaint", "n1"}},
			[]string{"55s ready=Unknown n1", "55s +unreachable:NoSchedule n1", "55s +unreachable:NoExecute n1",
				"1m10s -unreachable:NoExecute n1", "1m10s +unreachable:NoExecute n1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := drive(t, cfg, c.nodes, c.evs, time.Hour)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}

	// A PartialDisruption zone larger than the threshold: the secondary
	// rate, about one node per 100 s, the first at once (the old bucket
	// held its token, so the new one stays full). float32(0.01) is a hair
	// below 0.01, so after 100 s the bucket lacks 2e-8 tokens, a wait of
	// 2 us: each token comes one 100 ms pass later.
	nodes := big("z", 60)
	var evs []ev
	for i := range 40 {
		evs = append(evs, ev{0, "fail", fmt.Sprintf("z%02d", i)})
	}
	var noExec []string
	for _, l := range drive(t, cfg, nodes, evs, 400*time.Second) {
		if strings.Contains(l, "NoExecute") {
			noExec = append(noExec, l)
		}
	}
	want := []string{"55s +unreachable:NoExecute z00", "2m35.1s +unreachable:NoExecute z01", "4m15.2s +unreachable:NoExecute z02", "5m55.3s +unreachable:NoExecute z03"}
	if strings.Join(noExec, "\n") != strings.Join(want, "\n") {
		t.Errorf("large partial zone:\n  %s\nwant\n  %s", strings.Join(noExec, "\n  "), strings.Join(want, "\n  "))
	}
}
