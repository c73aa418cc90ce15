package nodelifecycle

import "time"

// Config holds the controller's settings, each a kube-controller-manager
// flag with its upstream default (see DefaultConfig).
type Config struct {
	// MonitorPeriod is --node-monitor-period: how often monitorNodeHealth
	// runs. Default 5s (k8s.io/cloud-provider config/v1alpha1/defaults.go).
	MonitorPeriod time.Duration
	// MonitorGracePeriod is --node-monitor-grace-period: how long a node
	// may go without renewing its lease before its Ready condition becomes
	// Unknown. Default 50s (pkg/controller/nodelifecycle/config/v1alpha1/
	// defaults.go).
	MonitorGracePeriod time.Duration
	// EvictionRate is --node-eviction-rate: nodes per second tainted
	// NoExecute in a zone that is Normal or in FullDisruption. Default 0.1
	// (cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go).
	EvictionRate float32
	// SecondaryEvictionRate is --secondary-node-eviction-rate: the rate
	// in a PartialDisruption zone larger than LargeClusterSizeThreshold.
	// Default 0.01 (same file).
	SecondaryEvictionRate float32
	// LargeClusterSizeThreshold is --large-cluster-size-threshold: a
	// PartialDisruption zone of this many nodes or fewer is not tainted
	// at all. Default 50 (same file).
	LargeClusterSizeThreshold int32
	// UnhealthyZoneThreshold is --unhealthy-zone-threshold: the fraction
	// of not-Ready nodes (more than two) that makes a zone
	// PartialDisruption. Default 0.55 (same file).
	UnhealthyZoneThreshold float32
}

// EvictionPeriod is how often the NoExecute tainting pass runs
// (pkg/controller/nodelifecycle/scheduler.NodeEvictionPeriod, a constant
// upstream).
const EvictionPeriod = 100 * time.Millisecond

// evictionBurst is scheduler.EvictionRateLimiterBurst.
const evictionBurst = 1

// DefaultConfig returns kube-controller-manager's defaults.
func DefaultConfig() Config {
	return Config{
		MonitorPeriod:             5 * time.Second,
		MonitorGracePeriod:        50 * time.Second,
		EvictionRate:              0.1,
		SecondaryEvictionRate:     0.01,
		LargeClusterSizeThreshold: 50,
		UnhealthyZoneThreshold:    0.55,
	}
}
