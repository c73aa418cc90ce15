package solver

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunSharesRunsEachOnce: every share runs exactly once and before
// runShares returns, for section sizes up to past the helpers' buffer,
// with shares short and long, sections back to back and after the helpers
// parked (the caller takes back the shares a parked helper has not started),
// and with several callers at once (helpers held by one caller are not
// handed to another: that caller runs the shares itself).
func TestRunSharesRunsEachOnce(t *testing.T) {
	check := func(t *testing.T, k int, work time.Duration) {
		counts := make([]atomic.Int32, k)
		runShares(k, func(i int) {
			if work > 0 {
				time.Sleep(work)
			}
			counts[i].Add(1)
		})
		for i := range counts {
			if n := counts[i].Load(); n != 1 {
				t.Fatalf("k=%d: share %d ran %d times by the return", k, i, n)
			}
		}
	}
	for _, k := range []int{2, 3, 5, 17, 40} {
		for range 50 {
			check(t, k, 0)
		}
		check(t, k, 2*time.Millisecond) // the caller parks on a long share
		time.Sleep(2 * helperSpin)      // the helpers park
		check(t, k, 0)
	}
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Go(func() {
			for j := range 200 {
				work := time.Duration(0)
				if j%50 == 0 {
					work = time.Millisecond
				}
				check(t, 2+(c+j)%(runtime.GOMAXPROCS(0)+2), work)
			}
		})
	}
	wg.Wait()
}

// TestRunSharesInParallel: with two processors a helper takes the second
// share while the caller is still in the first (the first waits for it).
// Now and then the second share runs long after the first ends: the caller
// parks until it is done.
func TestRunSharesInParallel(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one processor")
	}
	for j := range 20 {
		var started, finished atomic.Bool
		overlapped := false
		runShares(2, func(i int) {
			if i == 1 {
				started.Store(true)
				if j%5 == 0 {
					time.Sleep(20 * time.Millisecond)
				}
				finished.Store(true)
				return
			}
			deadline := time.Now().Add(5 * time.Second)
			for !started.Load() && time.Now().Before(deadline) {
				runtime.Gosched()
			}
			overlapped = started.Load()
		})
		if !overlapped {
			t.Fatal("the second share did not start while the first ran")
		}
		if !finished.Load() {
			t.Fatal("runShares returned before the second share ended")
		}
		time.Sleep(helperSpin / 4)
		if t.Failed() {
			return
		}
		time.Sleep(2 * helperSpin) // the next section after the helper parked
	}
}
