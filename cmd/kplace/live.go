package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/kplace/kplace/live"
)

// liveFlags are the flags of every command that talks to a cluster.
type liveFlags struct {
	kubeconfig, context *string
	qps                 *float32
	burst               *int
}

// addLiveFlags adds --kubeconfig, --context, --qps and --burst with the
// given rate limit defaults.
func addLiveFlags(fs *pflag.FlagSet, qps float32, burst int) liveFlags {
	return liveFlags{
		kubeconfig: fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)"),
		context:    fs.String("context", "", "kubeconfig context (default: its current context)"),
		qps:        fs.Float32("qps", qps, "client-side limit of requests per second to the API server"),
		burst:      fs.Int("burst", burst, "requests the client may send at once before --qps holds it back"),
	}
}

// check refuses rate limits that are not positive: a usage error, found
// before anything is read or sent.
func (f liveFlags) check() error {
	if *f.qps <= 0 || *f.burst <= 0 {
		return fmt.Errorf("--qps %g, --burst %d: both must be positive", *f.qps, *f.burst)
	}
	return nil
}

// client makes the live client the flags describe.
func (f liveFlags) client() (*live.Client, error) {
	return live.NewClient(live.Config{Kubeconfig: *f.kubeconfig, Context: *f.context, QPS: *f.qps, Burst: *f.burst,
		UserAgent: "kplace/" + version})
}
