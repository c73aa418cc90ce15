package tainteviction

import (
	"math"
	"time"

	"github.com/kplace/kplace/index"
)

// Forever is what MinTolerationTime returns when the used tolerations
// tolerate the taints forever (getMinTolerationTime's -1).
const Forever = time.Duration(-1)

// NoExecuteTaints returns the NoExecute taints of taints, in order
// (getNoExecuteTaints); nil when there are none.
func NoExecuteTaints(taints []index.Taint) []index.Taint {
	var out []index.Taint
	for _, t := range taints {
		if t.Effect == index.EffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// MatchingTolerations reports whether tolerations tolerate every taint and,
// when they do, the toleration each taint uses: the first one, in the pod's
// order, that tolerates it (v1helper.GetMatchingTolerations; a toleration
// may be used by several taints and is then listed once per taint). With no
// taints it returns true and no toleration; with taints and no
// tolerations, false.
func MatchingTolerations(taints []index.Taint, tolerations []index.Toleration) (bool, []index.Toleration) {
	if len(taints) == 0 {
		return true, nil
	}
	if len(tolerations) == 0 {
		return false, nil
	}
	used := make([]index.Toleration, 0, len(taints))
	for i := range taints {
		j := index.FirstToleration(tolerations, &taints[i])
		if j < 0 {
			return false, nil
		}
		used = append(used, tolerations[j])
	}
	return true, used
}

// MinTolerationTime returns how long the used tolerations let a pod stay
// (getMinTolerationTime): the smallest tolerationSeconds among them, 0 as
// soon as one is 0 or less, Forever when none has seconds. An empty list
// gives 0, as upstream (the controller never asks with no taints).
func MinTolerationTime(used []index.Toleration) time.Duration {
	if len(used) == 0 {
		return 0
	}
	least := int64(math.MaxInt64)
	for i := range used {
		s := used[i].TolerationSeconds
		if s == nil {
			continue
		}
		if *s <= 0 {
			return 0
		}
		least = min(least, *s)
	}
	if least == math.MaxInt64 {
		return Forever
	}
	// time.Duration(seconds) * time.Second, as upstream (it overflows for
	// values past 292 years, as upstream does).
	return time.Duration(least) * time.Second
}
