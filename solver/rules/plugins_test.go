package rules

import "testing"

// TestPluginOfMessage maps every filter reason's text, and an Insufficient
// message of any resource, to the plugin kube-scheduler names in its
// per-plugin status; other texts map to none.
func TestPluginOfMessage(t *testing.T) {
	f := func(msg, want string) {
		t.Helper()
		if got := PluginOfMessage(msg); got != want {
			t.Errorf("PluginOfMessage(%q) = %q, want %q", msg, got, want)
		}
	}
	f(UntoleratedTaint.String(), "TaintToleration")
	f(NodeUnschedulable.String(), "NodeUnschedulable")
	f(NodeAffinityMismatch.String(), "NodeAffinity")
	f(NodeAffinityPreFilter.String(), "NodeAffinity")
	f(NodePortsConflict.String(), "NodePorts")
	f(TooManyPods.String(), "NodeResourcesFit")
	f(InsufficientResource("cpu"), "NodeResourcesFit")
	f(InsufficientResource("nvidia.com/gpu"), "NodeResourcesFit")
	f(SpreadMissingLabel.String(), "PodTopologySpread")
	f(SpreadConstraintsMismatch.String(), "PodTopologySpread")
	f(PodAffinityMismatch.String(), "InterPodAffinity")
	f(PodAntiAffinityMismatch.String(), "InterPodAffinity")
	f(ExistingAntiAffinityMismatch.String(), "InterPodAffinity")
	f(PreemptionNotHelpful.String(), "")
	f("Insufficient", "")
	f("something else", "")
}
