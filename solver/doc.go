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
// range of the queue each; the pod-relative part of a key (spread
// constraints, affinity terms, the counters of existing pods' terms that
// match the pod) is worked out once per labels map, owner and terms, which
// the pods of one workload share (relMemoKey). For each group the static
// filters (NodeUnschedulable, TaintToleration, NodeAffinity and its
// PreFilter node-name set) are evaluated once as bitmap algebra over the
// index, giving the statically feasible node set and the per-filter
// rejection counts used in unschedulable messages. Groups are initialised
// in the background, on every processor, in the order the queue first
// needs them; placement waits only for the group it needs, so set-up
// overlaps the placement loop. The bitmaps of toleration lists and selector
// terms are shared through a memo.
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
//
// # Glossary
//
// The words the code and its comments use for its own structures:
//
//   - entry: one scored node in a class heap (score, tie-break hash, node,
//     generation); stale once the node's generation moves on (heap.go).
//   - cut: the best entry a class heap left out when it was built; the heap
//     is rebuilt when its top no longer beats it.
//   - twin: classes of a group that differ only in their pod-relative part
//     (same demand, same domain split), so they score every node alike.
//   - template: a twin key's filter-free heap of every fitting node, kept on
//     the group; a twin's build takes its best entries through its own
//     filters instead of scanning the cluster (template.go).
//   - park: to set aside a node a pod-relative filter rejected, under the
//     counter that rejected it, until that counter relaxes (podrel.go).
//   - carry: a counter of the weights of the bound pods carrying one
//     scoring (anti-)affinity term; an incoming pod the term matches reads
//     it (podrel.go, kCarry).
//   - repel: a counter of the bound pods carrying a required anti-affinity
//     term that matches the incoming pod: it keeps that pod out of their
//     domains (existing pods' anti-affinity).
//   - bare node, bare bucket: a node on which every per-node dimension of a
//     lean class (a hostname count) is 0, so that its bucket depends on its
//     domain alone; a lean class keeps one truncated bare bucket per domain
//     (lean.go).
//   - room: the nodes filed by free cpu and free memory in power-of-two
//     levels, so that a build visits only nodes with room (room.go).
//   - oneHeap: the Config switch that turns domain-split heaps and templates
//     off, the reference they are tested against.
//
// Preemption (preempt.go, blocks.go, sureviol.go):
//
//   - bound: a lower bound of a node's dry run on the first four candidate
//     criteria (violations, highest victim priority, priority sum, victim
//     count), found from the node's lower-priority sums without a dry run.
//   - floor: a bound no node of a 64-node block can beat; a block is queued
//     by its floor and its nodes are bounded only when the floor beats the
//     candidate heap's top.
//   - settle: to pop from the candidate heap: stale entries dropped, and
//     the blocks whose floor beats the top bounded, until the top beats
//     every floor left.
//   - loose: a block's count of nodes bounded, in node order, above its
//     floor (bounded for nothing); past refineAfter the block is refined.
//   - refine: to compute the bounds of a block's remaining nodes alone into
//     a small heap, so that the block's floor follows them.
//   - sure (sure violation): a bound pod matching a budget with no
//     disruption left, so that evicting it surely violates; kube-scheduler
//     reprieves such pods first, and the bounds count them as kept.
//   - split: a node's victims with their PDB violations and the reprieve
//     order they make (splitOf).
//   - columnar class: a preempting class with no host ports and no
//     pod-relative filter, whose dry-run verdicts and bounds come from the
//     resource columns alone (columnarCols, columnarVerdicts).
package solver
