package live

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"
)

// Config says how to reach the API server and how gently.
type Config struct {
	// Kubeconfig is the kubeconfig file; "" follows kubectl's rules
	// ($KUBECONFIG, then ~/.kube/config, then the in-cluster config).
	Kubeconfig string
	// Context is the kubeconfig context; "" is its current one.
	Context string
	// QPS and Burst are the client-side rate limit of every request (a
	// token bucket: Burst requests at once, QPS per second after).
	QPS   float32
	Burst int
	// UserAgent names the client in the API server's logs.
	UserAgent string
}

// Client is a clientset that counts its requests. It is safe for
// concurrent use.
type Client struct {
	Kube kubernetes.Interface
	// Meta reads objects' metadata only (names, uids), which costs the
	// API server far less than whole objects.
	Meta  metadata.Interface
	QPS   float32
	Burst int
	rate  *rateLog
}

// NewClient makes a client from cfg. Requests and responses use protobuf
// (cheaper for the API server than JSON).
func NewClient(cfg Config) (*Client, error) {
	if cfg.QPS <= 0 || cfg.Burst < 1 {
		return nil, fmt.Errorf("qps %v and burst %d: both must be positive", cfg.QPS, cfg.Burst)
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if cfg.Kubeconfig != "" {
		rules.ExplicitPath = cfg.Kubeconfig
	}
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: cfg.Context}).ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, errors.New("no kubeconfig found: give --kubeconfig, set KUBECONFIG, or run in a cluster")
		}
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	// One token bucket for every request, whichever clientset sends it.
	rc.QPS, rc.Burst = cfg.QPS, cfg.Burst
	rc.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	rc.ContentType = "application/vnd.kubernetes.protobuf"
	rc.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	rc.UserAgent = cfg.UserAgent
	if rc.UserAgent == "" {
		rc.UserAgent = "kplace"
	}
	c := &Client{QPS: cfg.QPS, Burst: cfg.Burst, rate: &rateLog{start: time.Now()}}
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &countingRT{rt: rt, log: c.rate} })
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		return nil, err
	}
	if c.Kube, err = kubernetes.NewForConfigAndClient(rc, hc); err != nil {
		return nil, err
	}
	if c.Meta, err = metadata.NewForConfigAndClient(rc, hc); err != nil {
		return nil, err
	}
	return c, nil
}

// Requests is the number of HTTP requests sent so far.
func (c *Client) Requests() int64 { return c.rate.total.Load() }

// RateStats are the requests sent since the client was made, and the most
// sent in any one second (whole seconds since its start).
func (c *Client) RateStats() (requests int64, peak int) {
	return c.rate.stats()
}

// countingRT counts the requests that reach the wire (after the rate
// limiter, which sits in client-go's request path).
type countingRT struct {
	rt  http.RoundTripper
	log *rateLog
}

func (t *countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	t.log.add(time.Now())
	return t.rt.RoundTrip(r)
}

// rateLog counts requests per whole second since start.
type rateLog struct {
	start  time.Time
	total  atomic.Int64
	mu     sync.Mutex
	counts []int
}

func (l *rateLog) add(now time.Time) {
	l.total.Add(1)
	sec := int(now.Sub(l.start) / time.Second)
	l.mu.Lock()
	for len(l.counts) <= sec {
		l.counts = append(l.counts, 0)
	}
	l.counts[sec]++
	l.mu.Unlock()
}

func (l *rateLog) stats() (int64, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	peak := 0
	for _, n := range l.counts {
		peak = max(peak, n)
	}
	return l.total.Load(), peak
}
