// Package solver places pending pods on an index.Cluster with kube-scheduler
// semantics, in one batch.
//
// # How a batch runs
//
// Pending pods are ordered by priority (higher first), then creation time
// (older first), then input order. Pods whose placement-relevant fields are
// equal (tolerations, node selector and affinity, requests, host ports) form
// an equivalence class; classes with the same tolerations and node affinity
// share a group. Keys are encoded and deduplicated on every processor, one
// range of the queue each. For each group the static filters (NodeUnschedulable,
// TaintToleration, NodeAffinity and its PreFilter node-name set) are
// evaluated once as bitmap algebra over the index, giving the statically
// feasible node set and the per-filter rejection counts used in
// unschedulable messages. Groups are initialised in the background, on every
// processor, in the order the queue first needs them; placement waits only
// for the group it needs, so set-up overlaps the placement loop. The bitmaps
// of toleration lists and selector terms are shared through a memo.
//
// Each class keeps a heap of (score, tie-break, node, generation) holding
// its best max(k, 16) fitting nodes for k pods left, and remembers the best
// entry it cut off. The cluster logs every node change
// (index.Cluster.Changes); before a class places a pod it replays the log
// entries since its last turn, re-scoring only the nodes that changed.
// Entries whose generation is older than the node's are dropped when they
// reach the top; when the top no longer beats the cut, the heap is rebuilt.
// Placing a pod costs O(log k) plus the changes replayed and allocates
// nothing.
//
// A (re)build scans the group's feasible nodes on every processor (build.go)
// and prunes in two stages: a class-independent bound per node plus the
// class's static scores (a tight loop over three small columns), then the
// class's own bound, NodeResourcesFit and BalancedAllocation computed in
// float32 from requested fractions with a margin that keeps it above the
// exact integer score (usually within a point). Only nodes that can beat the
// worker's keep-th best get the fit check and the exact score.
//
// # Scores
//
// The default profile's plugins that matter without topology spread and
// inter-pod affinity, with their weights: NodeResourcesFit (1, LeastAllocated
// or MostAllocated over the non-zero cpu and memory requests),
// NodeResourcesBalancedAllocation (1, v1.36's improvement form),
// TaintToleration (3, PreferNoSchedule taints), NodeAffinity (2, preferred
// terms), in kube-scheduler's integer arithmetic. TaintToleration and
// NodeAffinity normalise over the nodes that fit, as in every scheduling
// cycle: a class rebuilds when the nodes holding a maximum stop fitting.
// Ties go to the node with the larger seeded hash of its id, then the lower
// id: deterministic per Config.Seed.
package solver
