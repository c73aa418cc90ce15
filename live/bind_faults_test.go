package live

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kplace/kplace/live/livetest"
)

// faultProxy stands in front of the test API server and answers some
// pods/binding requests itself, as an overloaded or failing server (or
// network) would: for each pod, the answers to its first requests in turn
// (an HTTP code, or 0 to drop the connection); the requests after those
// go through to the server.
type faultProxy struct {
	*httptest.Server
	mu      sync.Mutex
	answers map[string][]int
	seen    map[string][]time.Time // each binding request, by pod
}

func newFaultProxy(t *testing.T, s *livetest.Server, answers map[string][]int) *faultProxy {
	target, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(s.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	p := &faultProxy{answers: answers, seen: map[string][]time.Time{}}
	p.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(r.URL.Path, "/")
		if len(parts) < 2 || parts[len(parts)-1] != "binding" {
			rp.ServeHTTP(w, r)
			return
		}
		pod := parts[len(parts)-2]
		p.mu.Lock()
		p.seen[pod] = append(p.seen[pod], time.Now())
		code, fault := 0, false
		if a := p.answers[pod]; len(a) > 0 {
			code, fault, p.answers[pod] = a[0], true, a[1:]
		}
		p.mu.Unlock()
		switch {
		case !fault:
			rp.ServeHTTP(w, r)
		case code == 0:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case code == http.StatusTooManyRequests:
			// As the API server's priority and fairness answers: the
			// delay in the header and in the Status.
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(code)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too many requests, please try again later","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"injected %d","code":%d}`, code, code)
		}
	}))
	t.Cleanup(p.Close)
	return p
}

// requests returns the times of pod's binding requests.
func (p *faultProxy) requests(pod string) []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Time(nil), p.seen[pod]...)
}

// kubeconfig writes the server's kubeconfig pointed at the proxy.
func (p *faultProxy) kubeconfig(t *testing.T, s *livetest.Server) string {
	cfg, err := clientcmd.LoadFromFile(s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.Certificate().Raw})
	for _, c := range cfg.Clusters {
		c.Server, c.CertificateAuthority, c.CertificateAuthorityData = p.URL, "", caPEM
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBindRetriesAPIErrors: API errors other than a budget's are retried
// with backoff, and at least the server's Retry-After apart: a 429 and a
// 503, and a dropped connection, until the request goes through (each Binding then
// accepted once), a 500 that persists until the retries are spent
// (reported "api error", 1 + Retries requests); a 403 is not retried.
func TestBindRetriesAPIErrors(t *testing.T) {
	e := newEnv(t)
	k := e.s.Client(t)
	ns, A := e.ns, e.node("a")
	pods := livetest.Create(t, k, livetest.Namespace(ns), livetest.Node(A, 4000, "4Gi", nil),
		livetest.Pod(ns, "busy", 100, "", 0, nil), livetest.Pod(ns, "dropped", 100, "", 0, nil),
		livetest.Pod(ns, "broken", 100, "", 0, nil), livetest.Pod(ns, "forbidden", 100, "", 0, nil))
	_, plan := e.writeResult(t, "result.json",
		binding(ns, "busy", uid(pods["busy"]), A), binding(ns, "dropped", uid(pods["dropped"]), A),
		binding(ns, "broken", uid(pods["broken"]), A), binding(ns, "forbidden", uid(pods["forbidden"]), A))
	const retries = 3
	p := newFaultProxy(t, e.s, map[string][]int{
		"busy":      {429, 503},
		"dropped":   {0},
		"broken":    {500, 500, 500, 500, 500},
		"forbidden": {403},
	})
	c, err := NewClient(Config{Kubeconfig: p.kubeconfig(t, e.s), QPS: 100, Burst: 100})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Bind(context.Background(), c, plan, BindOptions{Retries: retries, Backoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Failures {
		got[f.Name] = f.Reason
	}
	if len(got) != 2 || got["broken"] != ReasonAPIError || got["forbidden"] != ReasonAPIError || rep.Counts.Bound != 2 ||
		rep.Counts.Retried != 2+1+retries {
		t.Fatalf("failures %v, want broken and forbidden %q; counts %+v (want 2 bound, %d retried)", got, ReasonAPIError, rep.Counts, 2+1+retries)
	}
	for pod, want := range map[string]int{"busy": 3, "dropped": 2, "broken": 1 + retries, "forbidden": 1} {
		if n := len(p.requests(pod)); n != want {
			t.Errorf("%s: %d binding requests, want %d", pod, n, want)
		}
	}
	if b := p.requests("busy"); len(b) == 3 && (b[1].Sub(b[0]) < time.Second || b[2].Sub(b[1]) < 90*time.Millisecond) {
		t.Errorf("busy: retried %v after a 429 with Retry-After: 1, %v after a 503 (backoff 50ms, then 100ms)", b[1].Sub(b[0]), b[2].Sub(b[1]))
	}
	evs := e.audit(t)
	for pod, want := range map[string]int{"busy": 1, "dropped": 1, "broken": 0, "forbidden": 0} {
		if n := len(requests(evs, "binding", pod, 201)); n != want {
			t.Errorf("%s: %d bindings accepted by the server, want %d", pod, n, want)
		}
	}
	for pod, node := range map[string]string{"busy": A, "dropped": A, "broken": "", "forbidden": ""} {
		if n, err := livetest.NodeOf(k, ns, pod); err != nil || n != node {
			t.Errorf("%s on %q (%v), want %q", pod, n, err, node)
		}
	}
}
