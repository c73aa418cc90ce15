// Package rules holds the default kube-scheduler profile's rules (v1.36) as
// small pure functions over index types: no solver state, no caches. Each
// file mirrors one upstream plugin (pkg/scheduler/framework/plugins/...) and
// names it in its opening comment; reasons.go holds every reason string,
// behind a typed code whose String is kube-scheduler's wording.
//
// The solver's fast paths and the reference solver (solver/reference) both
// call these functions, so a rule is written once. Functions take the
// smallest inputs they need (counts, requests, labels) so that a hot path
// can call them on its own columns; they allocate nothing unless their
// comment says otherwise.
//
// Two rules stay defined in index, where ingest and the solver's indexes
// already use them, and are called from here: the toleration match
// (index.Toleration.ToleratesTaint, wrapped by [Tolerates] and
// [FirstToleration]) and the host port clash (index.PortKey.Conflicts,
// wrapped by [PortsConflict]).
package rules
