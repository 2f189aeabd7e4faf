// Package throttle keeps a client's calls within what the server allows:
// the adaptive concurrency window (Window) and the token buckets of
// --rpm and --tpm (Bucket). It knows nothing of requests: the client
// (pkg/llm) takes a slot and tokens before each attempt and gives them
// back after.
package throttle

import (
	"context"
	"sync"
	"time"
)

// Window is the adaptive concurrency limit (AIMD, as TCP congestion
// control and NeMo Data Designer do it): at most limit calls in flight;
// congestion (a 429, a timeout, a slow reply) in a quarter of the last
// limit calls halves the limit, each success adds 1/limit, so the limit
// grows back by about one per round of calls, up to max. Waiters are
// served in order.
//
// A quarter, not any one: a server over its limit refuses or queues much
// of what it is sent, while a flaky network or proxy fails calls at
// random whatever the load; halving on each such failure kept the window
// at a few calls (with 7% of calls failing so, 500 calls at 64 saw 12
// cuts and the window 11% used).
type Window struct {
	mu       sync.Mutex
	limit    float64
	max      int
	inflight int
	waiters  []chan struct{}
	lastCut  time.Time
	cuts     int
	// recent holds the last max outcomes, true for congestion, as a ring
	// (next: where the next goes); congested counts the trues among the
	// last limit of them when a call ends.
	recent []bool
	next   int
	// held is the time slots were held, summed over calls (for the
	// window's utilisation in the usage report).
	held time.Duration
}

// NewWindow is a window of at most max calls that starts at start calls
// when that is fewer (0: at max).
func NewWindow(max, start int) *Window {
	if max < 1 {
		max = 1
	}
	w := &Window{limit: float64(max), max: max, recent: make([]bool, max)}
	if start > 0 && start < max {
		w.limit = float64(start)
	}
	return w
}

// Acquire waits for a slot; it returns the time it got it (for Release).
func (w *Window) Acquire(ctx context.Context) (time.Time, error) {
	w.mu.Lock()
	if len(w.waiters) == 0 && w.inflight < int(w.limit) {
		w.inflight++
		w.mu.Unlock()
		return time.Now(), nil
	}
	ch := make(chan struct{})
	w.waiters = append(w.waiters, ch)
	w.mu.Unlock()
	select {
	case <-ch:
		return time.Now(), nil
	case <-ctx.Done():
		w.mu.Lock()
		defer w.mu.Unlock()
		for i, c := range w.waiters {
			if c == ch {
				w.waiters = append(w.waiters[:i], w.waiters[i+1:]...)
				return time.Time{}, ctx.Err()
			}
		}
		// Granted meanwhile: give the slot back.
		w.inflight--
		w.wake()
		return time.Time{}, ctx.Err()
	}
}

// Release frees a slot taken at start. throttled says the call met
// congestion (a 429, a timeout, a slow reply): when a quarter of the last
// limit calls did, the limit is halved. A call that started before the
// last cut says nothing about the cut limit, so it does not count.
func (w *Window) Release(start time.Time, throttled, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inflight--
	w.held += time.Since(start)
	throttled = throttled && start.After(w.lastCut)
	w.recent[w.next] = throttled
	w.next = (w.next + 1) % len(w.recent)
	switch {
	case throttled && w.congested() >= max(1, int(w.limit)/4):
		w.limit /= 2
		if w.limit < 1 {
			w.limit = 1
		}
		w.lastCut = time.Now()
		w.cuts++
		clear(w.recent) // what came before the cut says nothing of the new limit
	case ok && w.limit < float64(w.max):
		w.limit += 1 / w.limit
		if w.limit > float64(w.max) {
			w.limit = float64(w.max)
		}
	}
	w.wake()
}

// congested counts the congestion among the last limit outcomes.
func (w *Window) congested() int {
	n, i := 0, w.next
	for range min(int(w.limit), len(w.recent)) {
		i = (i - 1 + len(w.recent)) % len(w.recent)
		if w.recent[i] {
			n++
		}
	}
	return n
}

func (w *Window) wake() {
	for len(w.waiters) > 0 && w.inflight < int(w.limit) {
		close(w.waiters[0])
		w.waiters = w.waiters[1:]
		w.inflight++
	}
}

// Busy is the time slots were held so far, over all calls.
func (w *Window) Busy() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held
}

// Current returns the limit, for tests and the summary.
func (w *Window) Current() (limit float64, cuts int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.limit, w.cuts
}

// Bucket is a token bucket that may go into debt: Take waits until the
// balance covers n (at most a full bucket), then subtracts n; Adjust
// corrects an estimate once the real cost is known (the usage the server
// returns), charging the difference or giving it back.
type Bucket struct {
	mu     sync.Mutex
	rate   float64 // tokens per second
	size   float64
	tokens float64
	last   time.Time
}

// NewBucket is refilled with perMinute tokens a minute, evenly, and holds
// ten seconds' worth: providers enforce their per-minute limits over
// shorter spans, so a whole minute's burst at the start would be refused.
// nil (no limit) when perMinute <= 0.
func NewBucket(perMinute int) *Bucket {
	if perMinute <= 0 {
		return nil
	}
	size := max(float64(perMinute)/6, 1)
	return &Bucket{rate: float64(perMinute) / 60, size: size, tokens: size, last: time.Now()}
}

func (b *Bucket) refill(now time.Time) {
	b.tokens += now.Sub(b.last).Seconds() * b.rate
	if b.tokens > b.size {
		b.tokens = b.size
	}
	b.last = now
}

// Take waits until the bucket covers n tokens (a nil bucket at once),
// then takes them.
func (b *Bucket) Take(ctx context.Context, n float64) error {
	if b == nil {
		return nil
	}
	for {
		b.mu.Lock()
		b.refill(time.Now())
		need := n
		if need > b.size {
			need = b.size
		}
		if b.tokens >= need {
			b.tokens -= n
			b.mu.Unlock()
			return nil
		}
		wait := time.Duration((need - b.tokens) / b.rate * float64(time.Second))
		b.mu.Unlock()
		if wait < time.Millisecond {
			wait = time.Millisecond
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// Adjust charges delta more tokens (fewer, when negative) than taken:
// the real cost of a call once known.
func (b *Bucket) Adjust(delta float64) {
	if b == nil || delta == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(time.Now())
	b.tokens -= delta
	if b.tokens > b.size {
		b.tokens = b.size
	}
}

// InFlight is the calls in flight (tests, the progress line).
func (w *Window) InFlight() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.inflight
}

// Balance is the tokens the bucket holds now (below 0: in debt).
func (b *Bucket) Balance() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tokens
}
