package solver

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Helpers: the goroutines that take the shares of a parallel section.
//
// A solve at 100,000 nodes opens about 100,000 parallel sections (builds,
// lean fills and refills, big syncs), most of them a fraction of a
// millisecond long. A goroutine started per share waits for the runtime to
// wake a thread for it: tens of microseconds on a virtual machine, as much
// as the share's own work. A helper instead spins for a while after each
// share it runs (the caller's serial work between two sections is short),
// so the next share is taken within a cache-line transfer; an idle helper
// parks. The caller runs the first share itself, then takes back the
// shares no helper has started and runs them: a late helper costs nothing
// but the caller's time, and a section never takes much longer than
// running its shares in turn.

// helperSpin is how long a helper looks for a share before it parks.
const helperSpin = 500 * time.Microsecond

// helper is one goroutine of the pool.
type helper struct {
	busy   atomic.Bool // claimed by a caller, from handing a share to its end
	share  atomic.Pointer[share]
	parked atomic.Bool
	wake   chan struct{} // a token for a parked helper
}

// share is one f(i) of a parallel section, handed to a helper.
type share struct {
	f    func(int)
	i    int
	done atomic.Bool
	// waiting is set by a caller that parks on ready (made then) for a
	// long share.
	waiting atomic.Bool
	ready   chan struct{}
}

var pool struct {
	mu      sync.Mutex
	helpers []*helper
}

// helpersFor returns up to n helpers claimed for the caller: at most one
// per processor but the caller's, and fewer when other callers hold them
// (the caller runs those shares itself).
func helpersFor(n int, buf []*helper) []*helper {
	pool.mu.Lock()
	n = min(n, runtime.GOMAXPROCS(0)-1)
	for len(pool.helpers) < n {
		h := &helper{wake: make(chan struct{}, 1)}
		pool.helpers = append(pool.helpers, h)
		go h.loop()
	}
	hs := pool.helpers
	pool.mu.Unlock()
	out := buf[:0]
	for _, h := range hs {
		if len(out) == n {
			break
		}
		if h.busy.CompareAndSwap(false, true) {
			out = append(out, h)
		}
	}
	return out
}

// give hands sh to the claimed helper h.
func (h *helper) give(sh *share) {
	h.share.Store(sh)
	if h.parked.Load() {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

// loop takes shares for ever: spinning for helperSpin after each, then
// parked until a caller hands it one.
func (h *helper) loop() {
	for {
		sh := h.spin()
		if sh == nil {
			h.parked.Store(true)
			if sh = h.share.Swap(nil); sh == nil { // handed over while parking
				<-h.wake
				h.parked.Store(false)
				continue
			}
			h.parked.Store(false)
		}
		sh.f(sh.i)
		h.busy.Store(false)
		sh.done.Store(true)
		if sh.waiting.Load() {
			sh.ready <- struct{}{}
		}
	}
}

// spin looks for a share for helperSpin, yielding the processor every
// 1,024 looks (a microsecond or two: the garbage collector's workers and
// the solver's own goroutines may want it; yielding every 64 slowed the
// mixed 1,000-node benchmark by about 5%).
func (h *helper) spin() *share {
	start := time.Now()
	for i := 1; ; i++ {
		if h.share.Load() != nil { // loads keep the line shared until a share comes
			return h.share.Swap(nil)
		}
		if i%1024 == 0 {
			if time.Since(start) > helperSpin {
				return nil
			}
			runtime.Gosched()
		}
	}
}

// runShares runs f(0), ..., f(k-1) on the caller and the pool's helpers,
// and returns when all have run.
func runShares(k int, f func(i int)) {
	var hbuf [16]*helper
	hs := helpersFor(k-1, hbuf[:])
	shares := make([]share, len(hs))
	for j, h := range hs {
		shares[j] = share{f: f, i: j + 1}
		h.give(&shares[j])
	}
	f(0)
	for i := len(hs) + 1; i < k; i++ {
		f(i) // no helper for it
	}
	for j, h := range hs {
		sh := &shares[j]
		if h.share.CompareAndSwap(sh, nil) {
			// The helper has not taken it (parked, or not yet
			// scheduled): the caller runs it and frees the helper.
			h.busy.Store(false)
			f(sh.i)
			continue
		}
		for spins := 1; !sh.done.Load(); spins++ {
			if spins%64 != 0 {
				continue
			}
			if spins < 64*1024 {
				runtime.Gosched()
				continue
			}
			sh.ready = make(chan struct{}, 1) // the store below publishes it
			sh.waiting.Store(true)
			if !sh.done.Load() {
				<-sh.ready
			}
			break
		}
	}
}
