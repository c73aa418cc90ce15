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
// A few rules are defined in index, the bottom layer, where ingest (the
// controllers' expansion) and index's node sets use them too, and are
// called from here: the toleration match (index.Toleration.ToleratesTaint
// and index.Tolerates, behind [Tolerates] and [FirstToleration]), the
// taints the filter reads (index.Taint.Filters, in [TaintFilter]), the
// node selector requirement's parse and match (index.Requirement's Valid,
// Matches, FieldValid and MatchesField, behind [RequirementValid],
// [MatchRequirement], [FieldRequirementValid] and [MatchFieldRequirement]),
// the host port clash (index.PortKey.Conflicts, behind [PortsConflict]),
// the label-selector conversion (index.SelectorOf, behind
// [LabelSelector]), the label-map match (index.MatchesSet, behind
// [MatchLabelMap]) and the empty node selector term (index.EmptyTerm).
// index's node sets (RequiredNodes, TermNodes, UntoleratedNodes) ask
// those predicates once per distinct taint, label value or named node, so
// that the set form and the per-node form are one rule.
package rules
