package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kplace/kplace/bench"
	"github.com/kplace/kplace/live/livetest"
)

// TestLiveScale (make live-scale; KPLACE_LIVE_SCALE=1) is the timed run:
// a realistic cluster of 2,000 nodes, 4,000 running and 20,000 pending
// pods (KPLACE_LIVE_SCALE_NODES, _PODS, _RUNNING change the sizes) is
// created through the API, then kplace snapshot, place and bind run
// against it, each timed. Every Binding must be accepted and every pod's
// spec.nodeName must equal the plan. Controllers are not created (their
// pods are: what the cluster's controllers made), so expansion adds none.
func TestLiveScale(t *testing.T) {
	if os.Getenv("KPLACE_LIVE_SCALE") == "" {
		t.Skip("the timed run: make live-scale (KPLACE_LIVE_SCALE=1)")
	}
	size := func(env string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(env)); err == nil {
			return v
		}
		return def
	}
	cfg := bench.GenConfig{Profile: "realistic", Nodes: size("KPLACE_LIVE_SCALE_NODES", 2000),
		Pods: size("KPLACE_LIVE_SCALE_PODS", 20000), Running: size("KPLACE_LIVE_SCALE_RUNNING", 4000), Seed: 1}
	s := livetest.Shared(t)
	k := s.Client(t)
	dir := t.TempDir()
	var gen bytes.Buffer
	if err := bench.Generate(cfg, &gen); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	counts := createGenerated(t, k, gen.Bytes())
	tCreate := time.Since(t0)
	t.Logf("created through the API in %.1fs: %v", tCreate.Seconds(), counts)

	kc := "--kubeconfig=" + s.Kubeconfig
	snap, result, report := filepath.Join(dir, "cluster.json.zst"), filepath.Join(dir, "result.json"), filepath.Join(dir, "bind.json")
	phase := func(name string, args ...string) time.Duration {
		t0 := time.Now()
		code, errs := runCapture(t, args...)
		d := time.Since(t0)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		t.Logf("%s: %.2fs\n%s", name, d.Seconds(), errs)
		return d
	}
	// The binder's rate limit: KPLACE_LIVE_SCALE_QPS (500 requests a
	// second), burst 100.
	qps := os.Getenv("KPLACE_LIVE_SCALE_QPS")
	if qps == "" {
		qps = "500"
	}
	dSnap := phase("snapshot", "snapshot", kc, "-o", snap)
	dPlace := phase("place", "place", "-f", snap, "-o", result)
	dBind := phase("bind", "bind", "-f", result, kc, "--qps", qps, "--burst", "100", "--concurrency", "32", "--report", report)

	want := resultBindings(t, result)
	var rep struct {
		Counts   map[string]int
		Failures []any
		Requests int
		QPS      float64 `json:"qps"`
		PeakQPS  int     `json:"peak_qps"`
	}
	if b, err := os.ReadFile(report); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("report: %v", err)
	}
	if len(rep.Failures) != 0 || rep.Counts["bound"] != len(want) {
		t.Fatalf("bind: %d of %d Bindings accepted, failures %v", rep.Counts["bound"], len(want), rep.Failures)
	}
	// The limiter: no second above the rate plus the burst; without
	// Evictions, one request a Binding and the node list's pages.
	if limit, _ := strconv.Atoi(qps); rep.PeakQPS > limit+100 {
		t.Errorf("bind: %d requests in one second, over %d qps and burst 100", rep.PeakQPS, limit)
	}
	if rep.Counts["evictions"] == 0 && rep.Requests != len(want)+(cfg.Nodes+499)/500+1 { // +1: the cordoned nodes' list
		t.Errorf("bind: %d requests for %d Bindings and %d nodes", rep.Requests, len(want), cfg.Nodes)
	}
	got := map[string]string{}
	cont := ""
	for {
		l, err := k.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{Limit: 5000, Continue: cont})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range l.Items {
			got[p.Namespace+"/"+p.Name] = p.Spec.NodeName
		}
		if cont = l.Continue; cont == "" {
			break
		}
	}
	wrong := 0
	for pod, node := range want {
		if got[pod] != node {
			wrong++
			if wrong <= 5 {
				t.Errorf("%s on %q, the plan says %q", pod, got[pod], node)
			}
		}
	}
	t.Logf("TIMED RUN: %d nodes, %d running + %d pending pods created through the API in %.1fs; snapshot %.2fs, place %.2fs, bind %.2fs "+
		"(%d Bindings, %d Evictions; %d requests, %.0f/s, peak %d in one second, limit %s qps, burst 100); %d pods' spec.nodeName checked, %d wrong",
		cfg.Nodes, cfg.Running, cfg.Pods, tCreate.Seconds(), dSnap.Seconds(), dPlace.Seconds(), dBind.Seconds(),
		len(want), rep.Counts["evictions"], rep.Requests, rep.QPS, rep.PeakQPS, qps, len(want), wrong)
}

// createGenerated creates a generated cluster's Namespaces,
// PriorityClasses, Nodes, Services, PodDisruptionBudgets and Pods through
// the API (as they would be read back: server-set fields dropped, the
// priority left to the Priority admission, pods without a grace period so
// an eviction removes them at once), 32 at a time. It returns the counts
// by kind.
func createGenerated(t *testing.T, k kubernetes.Interface, list []byte) map[string]int {
	var doc struct{ Items []json.RawMessage }
	if err := json.Unmarshal(list, &doc); err != nil {
		t.Fatal(err)
	}
	dec := scheme.Codecs.UniversalDeserializer()
	byKind := map[string][]runtime.Object{}
	namespaces := map[string]bool{}
	for _, raw := range doc.Items {
		obj, _, err := dec.Decode(raw, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := meta(obj)
		if m == nil {
			continue
		}
		m.ResourceVersion, m.UID, m.ManagedFields, m.Generation = "", "", nil, 0
		if m.Namespace != "" {
			namespaces[m.Namespace] = true
		}
		kind := fmt.Sprintf("%T", obj)
		byKind[kind] = append(byKind[kind], obj)
	}
	// The RuntimeClasses the pods name, with the overhead they carry (the
	// RuntimeClass admission checks both).
	rcs := map[string]corev1.ResourceList{}
	for _, obj := range byKind["*v1.Pod"] {
		if p := obj.(*corev1.Pod); p.Spec.RuntimeClassName != nil {
			rcs[*p.Spec.RuntimeClassName] = p.Spec.Overhead
		}
	}
	for name, overhead := range rcs {
		rc := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Handler: name}
		if overhead != nil {
			rc.Overhead = &nodev1.Overhead{PodFixed: overhead}
		}
		if _, err := k.NodeV1().RuntimeClasses().Create(context.Background(), rc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	for ns := range namespaces {
		if _, err := k.CoreV1().Namespaces().Create(context.Background(), livetest.Namespace(ns), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	counts := map[string]int{"Namespace": len(namespaces)}
	for _, kind := range []string{"*v1.PriorityClass", "*v1.Node", "*v1.Service", "*v1.PodDisruptionBudget", "*v1.Pod"} {
		objs := byKind[kind]
		var next, done atomic.Int64
		var wg sync.WaitGroup
		var mu sync.Mutex
		var firstErr error
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1)) - 1
					if i >= len(objs) {
						return
					}
					if err := createOne(k, objs[i]); err != nil {
						mu.Lock()
						firstErr = err
						mu.Unlock()
						return
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		if firstErr != nil {
			t.Fatalf("create %s: %v", kind, firstErr)
		}
		counts[strings.TrimPrefix(kind, "*v1.")] = int(done.Load())
	}
	return counts
}

func meta(obj runtime.Object) (*metav1.ObjectMeta, bool) {
	switch o := obj.(type) {
	case *schedulingv1.PriorityClass:
		return &o.ObjectMeta, true
	case *corev1.Node:
		return &o.ObjectMeta, true
	case *corev1.Service:
		return &o.ObjectMeta, true
	case *policyv1.PodDisruptionBudget:
		return &o.ObjectMeta, true
	case *corev1.Pod:
		return &o.ObjectMeta, true
	}
	return nil, false
}

// createOne creates one object; a built-in PriorityClass the server has
// already is skipped.
func createOne(k kubernetes.Interface, obj runtime.Object) error {
	ctx := context.Background()
	var err error
	switch o := obj.(type) {
	case *schedulingv1.PriorityClass:
		if strings.HasPrefix(o.Name, "system-") {
			return nil
		}
		_, err = k.SchedulingV1().PriorityClasses().Create(ctx, o, metav1.CreateOptions{})
	case *corev1.Node:
		err = livetest.CreateNode(ctx, k, o)
	case *corev1.Service:
		// Headless: the test server's service range holds 254 addresses.
		// Scheduling reads only a Service's selector.
		o.Spec = corev1.ServiceSpec{Selector: o.Spec.Selector, Ports: o.Spec.Ports, ClusterIP: corev1.ClusterIPNone}
		for i := range o.Spec.Ports {
			o.Spec.Ports[i].NodePort = 0
		}
		_, err = k.CoreV1().Services(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	case *policyv1.PodDisruptionBudget:
		_, err = k.PolicyV1().PodDisruptionBudgets(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	case *corev1.Pod:
		zero := int64(0)
		o.Spec.Priority, o.Spec.PreemptionPolicy, o.Spec.TerminationGracePeriodSeconds = nil, nil, &zero
		// The test server refuses privileged containers (its default
		// --allow-privileged=false); scheduling does not read the flag.
		for _, cs := range [][]corev1.Container{o.Spec.InitContainers, o.Spec.Containers} {
			for i := range cs {
				if sc := cs[i].SecurityContext; sc != nil {
					sc.Privileged = nil
				}
			}
		}
		_, err = k.CoreV1().Pods(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	}
	return err
}
