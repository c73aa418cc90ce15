// Package scenario runs what-if scenarios on a virtual clock: a cluster
// (index.Input) and timed steps (taint, cordon, drain, fail or recover
// nodes, add or remove nodes, scale, apply), with the controllers that
// react to them as Kubernetes v1.36 runs them and kube-scheduler's
// placements, all without wall-clock time.
//
// # What runs
//
//   - The steps, at their times.
//   - The node lifecycle controller (package nodelifecycle): a failed
//     node's Ready condition becomes Unknown, it is tainted
//     node.kubernetes.io/unreachable NoSchedule at once and NoExecute at
//     its zone's rate; cordons get node.kubernetes.io/unschedulable.
//   - The taint manager (package tainteviction): pods on nodes with
//     NoExecute taints are deleted at once or after their tolerations run
//     out. Deletions, not evictions: PodDisruptionBudgets do not hold them.
//   - kubectl drain: cordon, then the nodes one after another, every pod
//     but DaemonSet and mirror pods evicted through the Eviction API,
//     which honours PodDisruptionBudgets (one budget per pod: more is an
//     error, as the API server answers); a blocked eviction is retried
//     every 5 s (kubectl's EvictErrorRetryDelay) until the drain's
//     timeout (none by default, as kubectl).
//   - The pod garbage collector: pods bound to a removed node are deleted
//     at its first pass (every 20 s) 40 s after it found them orphaned.
//   - Controllers of deleted pods: a deleted pod with a controller gets
//     replacements at once, made by ingest.Expand from the controller's
//     template (workloads.go): a ReplicaSet's or ReplicationController's
//     one pod named generateName and five characters of the seeded
//     generator; a StatefulSet's pod of the same ordinal name; a Job's new
//     pods while its active pods are fewer than its parallelism and its
//     completions unmet. A controller not in the input gets a copy of the
//     deleted pod's spec. DaemonSet and mirror pods get none; a standalone
//     pod is gone.
//   - DaemonSets: an added node gets a pod of each DaemonSet that selects
//     it, pinned to it by node affinity and placed by the scheduler, with
//     the tolerations the DaemonSet controller adds (not-ready and
//     unreachable NoExecute for ever, among others). kubectl drain leaves
//     DaemonSet pods.
//   - scale and apply: a scaled workload grows from its template and
//     shrinks as the ReplicaSet controller picks pods to delete (a
//     StatefulSet from its highest ordinal); an applied file's controllers
//     create their pods.
//   - kube-scheduler: at every instant when pods are pending and something
//     happened, solver.Session places every pending pod as Solve would
//     (priority, preemption, spread, affinity); preemption victims are
//     deleted (and replaced) and the scheduler runs again at that instant.
//     Pods are taken as running and ready once bound.
//
// # Time and order
//
// Everything happens at instants of a virtual clock from the scenario's
// start (t = 0, taken as the latest time stamp of the input). At one
// instant: the steps and other queued work (drain retries, pod GC passes)
// in order, then the node lifecycle controller's monitor pass and
// tainting pass when due, then the taint manager's timers due, then the
// scheduler. The run ends when nothing is left to happen, or at the
// scenario's until. A drain retrying evictions that nothing can unblock
// any more (nothing else left to happen and nothing changed since its
// last try) is reported as stalled and ends the run.
//
// The engine is deterministic: the same input, scenario and seed give the
// same timeline, report and state, byte for byte.
package scenario
