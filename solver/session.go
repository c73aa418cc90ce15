package solver

import (
	"fmt"

	"github.com/kplace/kplace/index"
)

// Session solves a sequence of batches over one cluster that changes
// between them, as a live cluster does (pods deleted, created, bound;
// taints and cordons changed, through index.Cluster's methods): each batch
// places the pods in c.Pending at that moment, with everything Solve does.
// Between batches it keeps the records it derives from every node and
// refreshes only the nodes changed since (index.Cluster.Changes), so a
// small batch on a large cluster does not pay for the whole cluster; and
// it keeps the cluster's lower-priority sums whole (a lone Solve narrows
// them as its queue goes down in priority).
//
// The nodes must stay the same: after nodes are added or removed, build a
// new cluster and a new Session. Not safe for concurrent use.
type Session struct {
	c      *index.Cluster
	cfg    Config
	arrays *nodeArrays
	// cursor is how much of c.Changes the arrays have seen.
	cursor int
}

// NewSession starts a session over c.
func NewSession(c *index.Cluster, cfg Config) *Session {
	if !cfg.NoPreemption {
		c.EnsureLow()
	}
	return &Session{c: c, cfg: cfg}
}

// Solve places the pods of c.Pending, as Solve does, and returns the
// result; c is updated.
func (ss *Session) Solve() *Result {
	c := ss.c
	var s *Solver
	if ss.arrays == nil {
		s = newSolver(c, ss.cfg)
	} else {
		if len(ss.arrays.hot) != c.NumNodes() {
			panic(fmt.Sprintf("solver: a session over %d nodes given a cluster of %d", len(ss.arrays.hot), c.NumNodes()))
		}
		s = baseSolver(c, ss.cfg)
		s.nodeArrays = *ss.arrays
		for _, ch := range c.Changes[ss.cursor:] {
			if ch.Gen == c.Gen[ch.Node] { // the node's last change
				s.refreshNode(ch.Node)
			}
		}
	}
	s.session = true
	res := s.solve()
	arrays := s.nodeArrays // not the solver itself: the batch's state goes
	ss.arrays = &arrays
	ss.cursor = len(c.Changes)
	return res
}
