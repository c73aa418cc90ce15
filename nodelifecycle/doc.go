// Package nodelifecycle models how Kubernetes v1.36's node lifecycle
// controller (k8s.io/kubernetes/pkg/controller/nodelifecycle) handles a
// node that stops reporting, on a virtual clock: when its Ready condition
// becomes Unknown, the taints it gets, and how fast, zone by zone.
//
// # What the model does (node_lifecycle_controller.go)
//
// monitorNodeHealth runs every node-monitor-period. A node whose kubelet
// has not renewed its lease for longer than node-monitor-grace-period gets
// Ready=Unknown (tryUpdateNodeHealth); the node update that follows makes
// doNoScheduleTaintingPass add node.kubernetes.io/unreachable:NoSchedule
// at once. processTaintBaseEviction then queues the node in its zone's
// rate-limited queue (markNodeForTainting), and doNoExecuteTaintingPass,
// every 100 ms (scheduler.NodeEvictionPeriod), takes nodes off each zone's
// queue as its token bucket allows (burst 1) and adds
// node.kubernetes.io/unreachable:NoExecute (the taint manager then deletes
// the pods, see package tainteviction). A node whose Ready condition is
// True again loses the unreachable and not-ready NoExecute taints at the
// next monitor pass (markNodeAsReachable) and its NoSchedule ones at once.
//
// After each pass handleDisruption computes every zone's state
// (ComputeZoneState): FullDisruption when no node of the zone is Ready,
// PartialDisruption when more than two are not Ready and they are at
// least unhealthy-zone-threshold of the zone, Normal otherwise; nodes
// labelled node.kubernetes.io/exclude-disruption do not count. The zone's
// queue is then rate limited at node-eviction-rate (Normal and
// FullDisruption), or secondary-node-eviction-rate when PartialDisruption
// and the zone has more than large-cluster-size-threshold nodes, else 0.
// When every zone is in FullDisruption the controller removes the
// NoExecute condition taints from every node and stops (the master
// disruption mode); when one zone comes back it resets every node's probe
// time and the zones' limiters.
//
// # Where the model chooses
//
// Upstream runs on wall-clock timers in parallel goroutines; the model
// fixes what is left open there:
//   - Passes run on a grid from the scenario's start: monitor passes at
//     multiples of node-monitor-period, tainting passes at multiples of
//     100 ms; at one instant the monitor pass comes first.
//   - A failed node's kubelet renewed its lease at the instant it failed
//     and stopped then; the controller saw that renewal at its first pass
//     at or after it (probeTimestamp), so the node becomes Unknown at the
//     first pass strictly after probeTimestamp + node-monitor-grace-period.
//     A real node renews every 10 s, so its detection can come up to 10 s
//     earlier.
//   - Every pass re-queues every queued node not yet tainted with the
//     pass's time (markNodeForTainting removes and adds it), so they share
//     one ProcessAt and upstream takes them in heap order, which is
//     arbitrary; the model takes them in node order (input order, then
//     nodes added). Zones are visited in the order of their keys.
//   - The token bucket is golang.org/x/time/rate's, in its own float64
//     arithmetic on the virtual clock, with the float32 rates upstream
//     passes (0.1 is 0.10000000149 tokens per second).
//   - Only the Ready condition is modelled: NoSchedule taints of other
//     conditions (memory, disk, pid pressure, network) are left as the
//     input has them.
//   - node-startup-grace-period is not a setting: it applies to nodes that
//     never posted a Ready condition, and every modelled node has one.
//
// The controller reads and changes node taints through the [Cluster] its
// caller gives; it holds no cluster itself.
package nodelifecycle
