package solver

// The property tests' random batches, for the external differential test
// (diff_test.go, package solver_test, which may import packages that
// import solver).
var (
	RandomCluster       = randomCluster
	RandomSpreadCluster = randomSpreadCluster
	RandomRelCluster    = randomRelCluster
	PreemptionInput     = preemptionInput
	CloneInput          = cloneInput
)
