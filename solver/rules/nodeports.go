package rules

// NodePorts (pkg/scheduler/framework/plugins/nodeports): a node is
// infeasible when a host port the pod wants (protocol, port, IP) is in use
// there; 0.0.0.0 clashes with every IP. The clash of two ports is
// index.PortKey.Conflicts; index.Cluster.DemandOf fills in the defaults
// (IP 0.0.0.0, protocol TCP).

import "github.com/kplace/kplace/index"

// PortsConflict reports whether any of want clashes with one of used.
func PortsConflict(used, want []index.PortKey) bool {
	for _, u := range used {
		for _, w := range want {
			if u.Conflicts(w) {
				return true
			}
		}
	}
	return false
}

// PortsFilter is the filter: NodePortsConflict or None.
func PortsFilter(used, want []index.PortKey) Reason {
	if len(want) > 0 && PortsConflict(used, want) {
		return NodePortsConflict
	}
	return None
}
