package nodelifecycle

import "time"

// limiter is a zone queue's rate limiter on the virtual clock: client-go's
// flowcontrol token bucket (golang.org/x/time/rate, burst 1), or, for a
// rate of 0 or less, its fake never-accepting limiter, which reports a
// rate of 1 (flowcontrol.fakeNeverRateLimiter.QPS), as SwapLimiter reads it.
type limiter struct {
	qps    float32 // as given; never: the rate is 0 or less
	never  bool
	tokens float64
	last   time.Duration
	// started is false until the first accepted token: a new bucket is
	// full (rate.Limiter's zero last time is long ago).
	started bool
}

func newLimiter(qps float32) *limiter {
	if qps <= 0 {
		return &limiter{qps: qps, never: true}
	}
	return &limiter{qps: qps, tokens: evictionBurst}
}

// rate returns what flowcontrol's QPS() says.
func (l *limiter) rate() float32 {
	if l.never {
		return 1
	}
	return l.qps
}

// advance is rate.Limiter.advance: the tokens at now, not stored.
func (l *limiter) advance(now time.Duration) float64 {
	if !l.started {
		return evictionBurst
	}
	last := min(l.last, now)
	tokens := l.tokens + (now-last).Seconds()*float64(l.qps)
	return min(tokens, evictionBurst)
}

// accepts reports whether tryAccept would take a token at now: the deficit
// left after taking one must round to a wait of 0 ns
// (rate.Limit.durationFromTokens truncates).
func (l *limiter) accepts(now time.Duration) (bool, float64) {
	if l.never {
		return false, 0
	}
	tokens := l.advance(now) - 1
	if tokens < 0 && time.Duration(-tokens/float64(l.qps)*float64(time.Second)) > 0 {
		return false, 0
	}
	return true, tokens
}

// tryAccept is TryAccept (rate.Limiter.AllowN(now, 1)).
func (l *limiter) tryAccept(now time.Duration) bool {
	ok, tokens := l.accepts(now)
	if ok {
		l.tokens, l.last, l.started = tokens, now, true
	}
	return ok
}

// nextAccept returns the first multiple of period at or after now at which
// tryAccept would succeed; false for a never limiter.
func (l *limiter) nextAccept(now, period time.Duration) (time.Duration, bool) {
	if l.never {
		return 0, false
	}
	t := ceilTo(now, period)
	if ok, _ := l.accepts(t); ok {
		return t, true
	}
	need := 1 - l.advance(t)
	t = ceilTo(t+time.Duration(need/float64(l.qps)*float64(time.Second)), period)
	for {
		if ok, _ := l.accepts(t); ok {
			return t, true
		}
		t += period
	}
}

// ceilTo rounds t up to a multiple of period.
func ceilTo(t, period time.Duration) time.Duration {
	if r := t % period; r != 0 {
		if t < 0 {
			return t - r
		}
		return t - r + period
	}
	return t
}
