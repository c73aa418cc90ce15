package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kplace/kplace/live/livetest"
)

// helperEnv makes the test binary a bind process (see TestBindCrashResume):
// its value is the result file; the kubeconfig and journal follow in
// helperKubeconfig and helperJournal.
const (
	helperEnv        = "KPLACE_LIVE_BIND_HELPER"
	helperKubeconfig = "KPLACE_LIVE_BIND_KUBECONFIG"
	helperJournal    = "KPLACE_LIVE_BIND_JOURNAL"
)

func TestMain(m *testing.M) {
	if result := os.Getenv(helperEnv); result != "" {
		os.Exit(helperBind(result))
	}
	code := m.Run()
	livetest.StopShared()
	os.Exit(code)
}

// helperBind binds result slowly (20 requests per second, 4 at a time),
// for a parent that kills it midway.
func helperBind(result string) int {
	c, err := NewClient(Config{Kubeconfig: os.Getenv(helperKubeconfig), QPS: 20, Burst: 1})
	if err == nil {
		var plan *Plan
		if plan, err = ReadPlan([]string{result}); err == nil {
			_, err = Bind(context.Background(), c, plan, BindOptions{Concurrency: 4, Journal: os.Getenv(helperJournal)})
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	return 0
}

// testEnv is one test's namespace and node-name prefix on the shared
// server.
type testEnv struct {
	s    *livetest.Server
	ns   string
	dir  string
	node func(string) string
}

var nonName = regexp.MustCompile(`[^a-z0-9-]+`)

func newEnv(t *testing.T) *testEnv {
	s := livetest.Shared(t)
	ns := strings.Trim(nonName.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(ns) > 50 {
		ns = ns[:50]
	}
	return &testEnv{s: s, ns: ns, dir: t.TempDir(), node: func(n string) string { return ns + "-" + n }}
}

// client is a live client on the test server.
func (e *testEnv) client(t *testing.T, qps float32) *Client {
	c, err := NewClient(Config{Kubeconfig: e.s.Kubeconfig, QPS: qps, Burst: int(qps)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// binding and eviction write result items as kplace place does.
func binding(ns, name, uid, node string) string {
	u := ""
	if uid != "" {
		u = fmt.Sprintf(`,"uid":%q`, uid)
	}
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Binding","metadata":{"name":%q,"namespace":%q%s},"target":{"apiVersion":"v1","kind":"Node","name":%q}}`, name, ns, u, node)
}

func eviction(ns, name, uid, node, preemptor string) string {
	pre := ns + "/" + preemptor
	d := ""
	if uid != "" {
		d = fmt.Sprintf(`,"deleteOptions":{"preconditions":{"uid":%q}}`, uid)
	}
	return fmt.Sprintf(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":%q,"namespace":%q,"annotations":{"kplace.io/node":%q,"kplace.io/preemptor":%q,"oracle/preemptor":%q}}%s}`,
		name, ns, node, pre, pre, d)
}

// writeResult writes items as a v1 List, one per line, and reads it back
// as a plan.
func (e *testEnv) writeResult(t *testing.T, name string, items ...string) (string, *Plan) {
	path := writeFile(t, filepath.Join(e.dir, name), `{"apiVersion":"v1","kind":"List","metadata":{},"items":[`+"\n"+strings.Join(items, ",\n")+"\n]}\n")
	p, err := ReadPlan([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	return path, p
}

// audit returns the test namespace's audited requests.
func (e *testEnv) audit(t *testing.T) []livetest.AuditEvent {
	evs, err := e.s.Audit()
	if err != nil {
		t.Fatal(err)
	}
	var out []livetest.AuditEvent
	for _, ev := range evs {
		if ev.ObjectRef.Namespace == e.ns {
			out = append(out, ev)
		}
	}
	return out
}

// requests filters audit events by subresource and pod, and by response
// code when code > 0.
func requests(evs []livetest.AuditEvent, sub, pod string, code int) []livetest.AuditEvent {
	var out []livetest.AuditEvent
	for _, ev := range evs {
		if ev.ObjectRef.Subresource == sub && ev.ObjectRef.Name == pod && (code == 0 || ev.ResponseStatus.Code == code) {
			out = append(out, ev)
		}
	}
	return out
}

// eventually polls cond for up to limit.
func eventually(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeFile writes body to path and returns path.
func writeFile(t *testing.T, path, body string) string {
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
