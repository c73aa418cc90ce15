package rules

// Reason strings, as kube-scheduler v1.36 prints them: the filter plugins'
// ErrReason* constants, the framework's FitError format
// (pkg/scheduler/framework/types.go), the PreFilter node-name status
// (pkg/scheduler/schedule_one.go), DefaultPreemption's dry-run statuses
// (pkg/scheduler/framework/preemption) and the DynamicResources PostFilter
// message that v1.36 prints before preemption's.

import (
	"fmt"
	"sort"
	"strings"
)

// Reason is why a node fails a filter, or why preemption did not help.
type Reason uint8

// Reasons. None is a pass.
const (
	None Reason = iota
	// NodeAffinityPreFilter: outside NodeAffinity's PreFilterResult (the
	// node names required through matchFields metadata.name).
	NodeAffinityPreFilter
	// NodeAffinityConflict: the required terms' node-name sets are
	// disjoint (NodeAffinity's PreFilter rejects the pod).
	NodeAffinityConflict
	NodeUnschedulable
	UntoleratedTaint
	NodeAffinityMismatch
	NodePortsConflict
	TooManyPods
	// Insufficient is "Insufficient <resource>" (see InsufficientResource).
	Insufficient
	SpreadMissingLabel
	SpreadConstraintsMismatch
	PodAffinityMismatch
	PodAntiAffinityMismatch
	ExistingAntiAffinityMismatch
	// NoNodesAvailable: the cluster has no node at all.
	NoNodesAvailable
	PreemptionNotHelpful
	NoPreemptionVictims
	PreemptionNever
	NoClaimsToDeallocate
	numReasons
)

var reasonText = [numReasons]string{
	None:                         "",
	NodeAffinityPreFilter:        "node(s) didn't satisfy plugin(s) [NodeAffinity]",
	NodeAffinityConflict:         "pod affinity terms conflict",
	NodeUnschedulable:            "node(s) were unschedulable",
	UntoleratedTaint:             "node(s) had untolerated taint(s)",
	NodeAffinityMismatch:         "node(s) didn't match Pod's node affinity/selector",
	NodePortsConflict:            "node(s) didn't have free ports for the requested pod ports",
	TooManyPods:                  "Too many pods",
	Insufficient:                 "Insufficient",
	SpreadMissingLabel:           "node(s) didn't match pod topology spread constraints (missing required label)",
	SpreadConstraintsMismatch:    "node(s) didn't match pod topology spread constraints",
	PodAffinityMismatch:          "node(s) didn't match pod affinity rules",
	PodAntiAffinityMismatch:      "node(s) didn't match pod anti-affinity rules",
	ExistingAntiAffinityMismatch: "node(s) didn't satisfy existing pods anti-affinity rules",
	NoNodesAvailable:             "no nodes available to schedule pods",
	PreemptionNotHelpful:         "Preemption is not helpful for scheduling",
	NoPreemptionVictims:          "No preemption victims found for incoming pod",
	PreemptionNever:              "not eligible due to preemptionPolicy=Never.",
	NoClaimsToDeallocate:         "no new claims to deallocate",
}

// String is the reason in kube-scheduler's words.
func (r Reason) String() string {
	if r >= numReasons {
		return fmt.Sprintf("Reason(%d)", r)
	}
	return reasonText[r]
}

// InsufficientResource is NodeResourcesFit's reason for resource name.
func InsufficientResource(name string) string { return reasonText[Insufficient] + " " + name }

// FitMessage formats "0/N nodes are available: <count reason>, ... ." with
// the parts sorted as strings, as kube-scheduler's FitError does.
func FitMessage(numNodes int, counts map[string]int) string {
	parts := make([]string, 0, len(counts))
	for msg, k := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", k, msg))
	}
	sort.Strings(parts)
	return fmt.Sprintf("0/%d nodes are available: %s.", numNodes, strings.Join(parts, ", "))
}

// ConflictMessage is the whole message of a pod NodeAffinity's PreFilter
// rejects (no PostFilter part: every node is unresolvable).
func ConflictMessage(numNodes int) string {
	return fmt.Sprintf("0/%d nodes are available: %s.", numNodes, NodeAffinityConflict)
}

// PreemptionMessage is the PostFilter part after a dry run that found no
// candidate: the DynamicResources message, then preemption's own FitError
// over the nodes' dry-run statuses (counts).
func PreemptionMessage(numNodes int, counts map[string]int) string {
	return NoClaimsToDeallocate.String() + ", preemption: " + FitMessage(numNodes, counts)
}

// NeverMessage is the PostFilter part for a pod whose preemptionPolicy is
// Never.
func NeverMessage() string {
	return NoClaimsToDeallocate.String() + ", preemption: " + PreemptionNever.String()
}

// NoPreemptionMessage is the PostFilter part with preemption disabled.
func NoPreemptionMessage() string { return NoClaimsToDeallocate.String() + "." }

// GatedMessage is the SchedulingGates plugin's message for a pod waiting
// on gates.
func GatedMessage(gates []string) string {
	return fmt.Sprintf("waiting for scheduling gates: %v", gates)
}

// UnsupportedMessage is kplace's message for a pod with a hard constraint
// it cannot honour (field names it).
func UnsupportedMessage(field string) string { return "unsupported: " + field }
