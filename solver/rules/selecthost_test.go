package rules

import (
	"slices"
	"testing"
)

// TestBetterNode: higher score, then higher tie value, then lower id.
func TestBetterNode(t *testing.T) {
	for _, tc := range []struct {
		sa       int64
		ta, na   uint32
		sb       int64
		tb, nb   uint32
		aBetter  bool
		scenario string
	}{
		{10, 0, 5, 9, 100, 1, true, "score first"},
		{10, 7, 5, 10, 6, 1, true, "then the tie value"},
		{10, 7, 1, 10, 7, 5, true, "then the lower id"},
		{10, 7, 5, 10, 7, 1, false, "the higher id loses"},
	} {
		if got := BetterNode(tc.sa, tc.ta, tc.na, tc.sb, tc.tb, tc.nb); got != tc.aBetter {
			t.Errorf("%s: BetterNode = %v", tc.scenario, got)
		}
	}
}

// TestNodeTie: the tie values are a function of seed and node (the same
// on every run), and another seed orders equal nodes otherwise.
func TestNodeTie(t *testing.T) {
	order := func(seed uint64) []uint32 {
		ids := []uint32{0, 1, 2, 3, 4, 5, 6, 7}
		slices.SortFunc(ids, func(a, b uint32) int {
			if BetterNode(0, NodeTie(seed, a), a, 0, NodeTie(seed, b), b) {
				return -1
			}
			return 1
		})
		return ids
	}
	if !slices.Equal(order(1), order(1)) {
		t.Fatal("the tie order is not a function of the seed")
	}
	if slices.Equal(order(1), order(2)) && slices.Equal(order(2), order(3)) {
		t.Error("seeds 1, 2 and 3 order eight equal nodes alike")
	}
	if NodeTie(1, 3) != 0xb27281e9 {
		t.Errorf("NodeTie(1, 3) = %#x: the tie values changed (results would change with them)", NodeTie(1, 3))
	}
}

// TestQueueCompare: priority descending, then creation ascending, else
// input order (0).
func TestQueueCompare(t *testing.T) {
	for _, tc := range []struct {
		pa     int32
		ca     int64
		pb     int32
		cb     int64
		want   int
		reason string
	}{
		{10, 5, 0, 1, -1, "higher priority first"},
		{0, 1, 10, 5, 1, "lower priority after"},
		{5, 1, 5, 2, -1, "older first"},
		{5, 2, 5, 2, 0, "ties keep input order"},
	} {
		if got := QueueCompare(tc.pa, tc.ca, tc.pb, tc.cb); got != tc.want {
			t.Errorf("%s: QueueCompare = %d, want %d", tc.reason, got, tc.want)
		}
	}
}
