package rules

import "testing"

// TestReasonWording pins every reason to kube-scheduler v1.36's words (the
// plugins' ErrReason constants and the framework's messages).
func TestReasonWording(t *testing.T) {
	for _, tc := range []struct {
		r    Reason
		want string
	}{
		{NodeAffinityPreFilter, "node(s) didn't satisfy plugin(s) [NodeAffinity]"},
		{NodeAffinityConflict, "pod affinity terms conflict"},
		{NodeUnschedulable, "node(s) were unschedulable"},
		{UntoleratedTaint, "node(s) had untolerated taint(s)"},
		{NodeAffinityMismatch, "node(s) didn't match Pod's node affinity/selector"},
		{NodePortsConflict, "node(s) didn't have free ports for the requested pod ports"},
		{TooManyPods, "Too many pods"},
		{SpreadMissingLabel, "node(s) didn't match pod topology spread constraints (missing required label)"},
		{SpreadConstraintsMismatch, "node(s) didn't match pod topology spread constraints"},
		{PodAffinityMismatch, "node(s) didn't match pod affinity rules"},
		{PodAntiAffinityMismatch, "node(s) didn't match pod anti-affinity rules"},
		{ExistingAntiAffinityMismatch, "node(s) didn't satisfy existing pods anti-affinity rules"},
		{NoNodesAvailable, "no nodes available to schedule pods"},
		{PreemptionNotHelpful, "Preemption is not helpful for scheduling"},
		{NoPreemptionVictims, "No preemption victims found for incoming pod"},
		{PreemptionNever, "not eligible due to preemptionPolicy=Never."},
		{NoClaimsToDeallocate, "no new claims to deallocate"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("Reason(%d) = %q, want %q", tc.r, got, tc.want)
		}
	}
	for r := None + 1; r < numReasons; r++ {
		if r.String() == "" {
			t.Errorf("Reason(%d) has no words", r)
		}
	}
	if got := InsufficientResource("nvidia.com/gpu"); got != "Insufficient nvidia.com/gpu" {
		t.Errorf("InsufficientResource = %q", got)
	}
}

// TestMessages checks the FitError formats, with the examples of the
// design notes: parts sorted as strings ("10 ..." before "2 ...").
func TestMessages(t *testing.T) {
	f := func(got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
	f(FitMessage(5, map[string]int{NodeAffinityMismatch.String(): 1, SpreadConstraintsMismatch.String(): 4})+" "+
		PreemptionMessage(5, map[string]int{PreemptionNotHelpful.String(): 1, NoPreemptionVictims.String(): 4}),
		"0/5 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 4 node(s) didn't match pod topology spread constraints. "+
			"no new claims to deallocate, preemption: 0/5 nodes are available: 1 Preemption is not helpful for scheduling, 4 No preemption victims found for incoming pod.")
	f(FitMessage(1, map[string]int{InsufficientResource("cpu"): 1})+" "+NeverMessage(),
		"0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.")
	f(FitMessage(12, map[string]int{TooManyPods.String(): 2, UntoleratedTaint.String(): 10}),
		"0/12 nodes are available: 10 node(s) had untolerated taint(s), 2 Too many pods.")
	f(NoPreemptionMessage(), "no new claims to deallocate.")
	f(ConflictMessage(3), "0/3 nodes are available: pod affinity terms conflict.")
	f(GatedMessage([]string{"a", "b"}), "waiting for scheduling gates: [a b]")
	f(UnsupportedMessage("volumes"), "unsupported: volumes")
}
