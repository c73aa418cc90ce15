package solver

// switches turn accelerations off, and hooks check them, for the tests
// that compare an acceleration with its reference. They are a field of
// Config (zero: every acceleration on, no hook), not package variables,
// so that tests setting them run in parallel with the others.
type switches struct {
	// noColumnarVerdicts turns columnarVerdicts off: every node is evaluated
	// in full.
	noColumnarVerdicts bool
	// noLeastSample turns sampleLeast off.
	noLeastSample bool
	// sparseWords, when not 0, replaces defaultSparseWords.
	sparseWords int
	// noRunReprieve makes selectVictims reprieve pod by pod in every case.
	noRunReprieve bool
	// noSplitCache makes splitOf make every split afresh.
	noSplitCache bool
	// eagerBounds makes every build bound every feasible node.
	eagerBounds bool
	// noVictimCache makes preempt evaluate every node it takes again.
	noVictimCache bool
	// eagerSample makes every build evaluate its sampled nodes at once.
	eagerSample bool
	// noEntBudgets makes initSure read every bound pod's budgets from
	// its entry.
	noEntBudgets bool
	// noListUpkeep makes node lists be rebuilt after every change.
	noListUpkeep bool
	// noRelMemo makes distinctKeys encode every pod's pod-relative part.
	noRelMemo bool
	// checkChoice, when set, is called with every node preempt takes.
	checkChoice func(s *Solver, cl *class, prio int32, chosen candidate)
	// checkBound, when set, is called with every bound evalNode makes
	// and the node's exact evaluation.
	checkBound func(cl *class, bound, exact candidate)
	// minParallelSync, when not 0, replaces minParallelSync;
	// minBareBits, when not 0, minBareBits.
	minParallelSync, minBareBits int
	// groupLead, when not 0, replaces groupLead.
	groupLead int
	// checkBare, when set, is called with every bare bucket a lean fill
	// or refill makes, and the entries it keeps.
	checkBare func(s *Solver, cl *class, b *buckets, id int32, keep int)
	// bucketsFrom, when not 0, replaces minBucketNodes.
	bucketsFrom int
	// noUniform turns placeUniform off: every scoring class fills.
	noUniform bool
	// noRunBuilds makes every build of a class without a pod-relative
	// part scan its feasible nodes (scanScore) rather than a run order.
	noRunBuilds bool
}
