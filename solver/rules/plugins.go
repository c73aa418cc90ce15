package rules

import "strings"

// Filter plugin names, as kube-scheduler's default profile names them.
const (
	PluginNodeUnschedulable = "NodeUnschedulable"
	PluginNodeName          = "NodeName"
	PluginTaintToleration   = "TaintToleration"
	PluginNodeAffinity      = "NodeAffinity"
	PluginNodePorts         = "NodePorts"
	PluginNodeResourcesFit  = "NodeResourcesFit"
	PluginPodTopologySpread = "PodTopologySpread"
	PluginInterPodAffinity  = "InterPodAffinity"
)

// Score plugin names of the default profile.
const (
	PluginBalancedAllocation = "NodeResourcesBalancedAllocation"
	PluginImageLocality      = "ImageLocality"
)

// reasonPlugin is the filter plugin that reports each reason.
var reasonPlugin = [numReasons]string{
	NodeAffinityPreFilter:        PluginNodeAffinity,
	NodeAffinityConflict:         PluginNodeAffinity,
	NodeUnschedulable:            PluginNodeUnschedulable,
	UntoleratedTaint:             PluginTaintToleration,
	NodeAffinityMismatch:         PluginNodeAffinity,
	NodePortsConflict:            PluginNodePorts,
	TooManyPods:                  PluginNodeResourcesFit,
	Insufficient:                 PluginNodeResourcesFit,
	SpreadMissingLabel:           PluginPodTopologySpread,
	SpreadConstraintsMismatch:    PluginPodTopologySpread,
	PodAffinityMismatch:          PluginInterPodAffinity,
	PodAntiAffinityMismatch:      PluginInterPodAffinity,
	ExistingAntiAffinityMismatch: PluginInterPodAffinity,
}

// Plugin is the filter plugin that reports r ("" for a reason no filter
// reports: a pass, preemption's and the framework's own).
func (r Reason) Plugin() string {
	if r >= numReasons {
		return ""
	}
	return reasonPlugin[r]
}

// pluginOfText maps each filter reason's text to its plugin.
var pluginOfText = func() map[string]string {
	m := map[string]string{}
	for r := Reason(1); r < numReasons; r++ {
		if p := reasonPlugin[r]; p != "" && r != Insufficient {
			m[reasonText[r]] = p
		}
	}
	return m
}()

// PluginOfMessage is the filter plugin that reports msg, one of the node
// messages a FitError counts (a Reason's String or InsufficientResource);
// "" for any other text.
func PluginOfMessage(msg string) string {
	if p, ok := pluginOfText[msg]; ok {
		return p
	}
	if strings.HasPrefix(msg, reasonText[Insufficient]+" ") {
		return PluginNodeResourcesFit
	}
	return ""
}
