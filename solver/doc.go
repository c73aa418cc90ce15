// Package solver places pending pods on an index.Cluster with kube-scheduler
// semantics, in one batch.
//
// # How a batch runs
//
// Pending pods are ordered by priority (higher first), then creation time
// (older first), then input order. Pods whose placement-relevant fields are
// equal (tolerations, node selector and affinity, requests, host ports) form
// an equivalence class. For each class the static filters (NodeUnschedulable,
// TaintToleration, NodeAffinity) are evaluated once as bitmap algebra over
// the index, giving the class's statically feasible node set and the per
// filter rejection counts used in unschedulable messages.
//
// Each class keeps a max-heap of (score, tie-break, node, generation) over
// its feasible nodes that currently fit. The cluster logs every node change
// (index.Cluster.Changes); before a class places a pod it replays the log
// entries since its last turn, re-scoring only the nodes that changed.
// Entries whose generation is older than the node's are discarded when they
// reach the top, so the top valid entry is always the best node: placing a
// pod costs O(log F) plus the changes replayed, never a scan of all nodes.
//
// # Scores
//
// The default profile's plugins that matter without topology spread and
// inter-pod affinity, with their weights: NodeResourcesFit (1, LeastAllocated
// or MostAllocated over cpu and memory non-zero requests),
// NodeResourcesBalancedAllocation (1), TaintToleration (3, PreferNoSchedule
// taints), NodeAffinity (2, preferred terms). The normalisation maxima of
// TaintToleration and NodeAffinity are taken over the class's feasible nodes
// that fit when the class is first scored. Ties go to the node with the
// larger seeded hash of its id, then the lower id: deterministic per --seed.
package solver
