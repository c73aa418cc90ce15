package nodelifecycle

// Zone disruption states (ZoneState).
type ZoneState string

// Zone states.
const (
	StateInitial           ZoneState = "Initial"
	StateNormal            ZoneState = "Normal"
	StateFullDisruption    ZoneState = "FullDisruption"
	StatePartialDisruption ZoneState = "PartialDisruption"
)

// Labels the controller reads.
const (
	labelZoneBeta    = "failure-domain.beta.kubernetes.io/zone"
	labelZone        = "topology.kubernetes.io/zone"
	labelRegionBeta  = "failure-domain.beta.kubernetes.io/region"
	labelRegion      = "topology.kubernetes.io/region"
	labelExcludeZone = "node.kubernetes.io/exclude-disruption"
)

// ZoneKey is a node's zone as the controller keys it
// (k8s.io/component-helpers/node/topology.GetZoneKey): region and zone from
// the beta labels, else the GA ones, joined by ":\x00:"; "" when the node
// has neither.
func ZoneKey(labels map[string]string) string {
	zone, ok := labels[labelZoneBeta]
	if !ok {
		zone = labels[labelZone]
	}
	region, ok := labels[labelRegionBeta]
	if !ok {
		region = labels[labelRegion]
	}
	if region == "" && zone == "" {
		return ""
	}
	return region + ":\x00:" + zone
}

// ZoneName is the printable part of a zone key: the zone label's value
// ("" for the zone of nodes without zone labels).
func ZoneName(key string) string {
	for i := 0; i+3 <= len(key); i++ {
		if key[i:i+3] == ":\x00:" {
			return key[i+3:]
		}
	}
	return key
}

// Excluded reports whether a node is left out of its zone's disruption
// count (isNodeExcludedFromDisruptionChecks).
func Excluded(labels map[string]string) bool {
	_, ok := labels[labelExcludeZone]
	return ok
}

// ComputeZoneState returns a zone's state from the number of its nodes
// whose Ready condition is True and of the others (ComputeZoneState).
func ComputeZoneState(ready, notReady int, unhealthyThreshold float32) ZoneState {
	switch {
	case ready == 0 && notReady > 0:
		return StateFullDisruption
	case notReady > 2 && float32(notReady)/float32(notReady+ready) >= unhealthyThreshold:
		return StatePartialDisruption
	}
	return StateNormal
}

// zoneRate is setLimiterInZone's rate for a zone of size nodes in state
// (HealthyQPSFunc, ReducedQPSFunc); ok false for a state that sets none.
func (cfg *Config) zoneRate(state ZoneState, size int) (float32, bool) {
	switch state {
	case StateNormal, StateFullDisruption:
		return cfg.EvictionRate, true
	case StatePartialDisruption:
		if int32(size) > cfg.LargeClusterSizeThreshold {
			return cfg.SecondaryEvictionRate, true
		}
		return 0, true
	}
	return 0, false
}
