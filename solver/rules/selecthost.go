package rules

// selectHost (pkg/scheduler/schedule_one.go): the node with the highest
// total score wins; kube-scheduler breaks ties between equal scores at
// random. kplace breaks them by a seeded hash of the node id, then by the
// lower node id, so a run is deterministic per seed and each seed is an
// outcome kube-scheduler could reach.

// NodeTie is node n's tie-break value under seed: among nodes of equal
// score the higher value wins.
func NodeTie(seed uint64, n uint32) uint32 {
	return uint32(mix(seed ^ (uint64(n) * 0x9e3779b97f4a7c15)))
}

// BetterNode reports whether node a (score, tie value, id) beats node b:
// higher score, then higher tie value, then lower id.
func BetterNode(scoreA int64, tieA, nodeA uint32, scoreB int64, tieB, nodeB uint32) bool {
	if scoreA != scoreB {
		return scoreA > scoreB
	}
	if tieA != tieB {
		return tieA > tieB
	}
	return nodeA < nodeB
}

// mix is splitmix64's finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
