// Package tainteviction models the NoExecute taint manager of Kubernetes
// v1.36 (k8s.io/kubernetes/pkg/controller/tainteviction, the "taint
// eviction controller") on a virtual clock: which pods on a node with
// NoExecute taints are deleted, and when.
//
// # Rules (taint_eviction.go)
//
//   - A pod on a node with NoExecute taints that does not tolerate every one
//     of them is deleted at once ([Manager.NodeUpdated], processPodOnNode).
//   - Otherwise each taint uses the first toleration, in the pod's order,
//     that tolerates it ([MatchingTolerations], v1helper.GetMatchingTolerations);
//     the pod is deleted after the smallest tolerationSeconds among those
//     used tolerations ([MinTolerationTime], getMinTolerationTime): a value
//     of 0 or less means at once, none of them with seconds means never.
//   - A pod with a deletion already scheduled keeps it when the node's
//     taints change: processPodOnNode keeps the old worker when the old
//     start plus the new toleration is before now plus the new toleration,
//     which is always true for a worker made before now; only a worker made
//     at the same instant is replaced, with its start kept.
//   - Removing every NoExecute taint cancels the pending deletions of the
//     node's pods; a deleted pod's work is cancelled.
//   - These are deletions, not evictions: PodDisruptionBudgets do not stop
//     them.
//
// # The timer model (timed_workers.go)
//
// [Queue] keeps one worker per pod key (CreatedAt, FireAt). AddWork skips a
// key that already has one; a worker whose FireAt is not after its CreatedAt
// runs at once and leaves no entry (v1.36 deletes a key once its work has
// run, so a pod recreated under the same name can be scheduled again; the
// controller the seed describes kept the key and skipped it). Workers fire
// at their FireAt exactly: the model has no wall-clock latency, so the real
// controller's deletions come a few tens of milliseconds later.
//
// The package is pure: it holds no cluster, only taints, tolerations and
// keys the caller chooses, and returns what to delete; the caller deletes.
package tainteviction
