package rules

// The default profile's score plugins and weights
// (pkg/scheduler/apis/config/v1/default_plugins.go) and the shared score
// normalisation (pkg/scheduler/framework/plugins/helper/normalize_score.go).

// MaxNodeScore is the highest score a plugin gives a node.
const MaxNodeScore int64 = 100

// Score plugin weights of the default profile.
const (
	WeightTaintToleration     = 3
	WeightNodeAffinity        = 2
	WeightNodeResourcesFit    = 1
	WeightBalancedAllocation  = 1
	WeightPodTopologySpread   = 2
	WeightInterPodAffinity    = 2
	WeightImageLocality       = 1
	DefaultHardAffinityWeight = 1 // InterPodAffinityArgs.hardPodAffinityWeight
)

// NormalizeScore is DefaultNormalizeScore for one node's score given the
// highest score over the nodes scored (maxScore >= 0): scaled to
// [0, MaxNodeScore], reversed when reverse is set.
func NormalizeScore(score, maxScore int64, reverse bool) int64 {
	if maxScore == 0 {
		if reverse {
			return MaxNodeScore
		}
		return 0
	}
	s := MaxNodeScore * score / maxScore
	if reverse {
		s = MaxNodeScore - s
	}
	return s
}
