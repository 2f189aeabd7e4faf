package llm

import (
	"context"
	"sync"
	"time"
)

// window is the adaptive concurrency limit (AIMD, as TCP congestion
// control and NeMo Data Designer do it): at most limit calls in flight; a
// 429 halves the limit, each success adds 1/limit, so the limit grows back
// by about one per round of calls, up to max. Waiters are served in order.
type window struct {
	mu       sync.Mutex
	limit    float64
	max      int
	inflight int
	waiters  []chan struct{}
	lastCut  time.Time
	cuts     int
	// held is the time slots were held, summed over calls (for the
	// window's utilisation in the usage report).
	held time.Duration
}

func newWindow(max int) *window {
	if max < 1 {
		max = 1
	}
	return &window{limit: float64(max), max: max}
}

// acquire waits for a slot; it returns the time it got it (for release).
func (w *window) acquire(ctx context.Context) (time.Time, error) {
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

// release frees a slot taken at start. throttled says the server answered
// 429: the limit is halved, once per round (a call that started before
// the last cut says nothing new about the cut limit).
func (w *window) release(start time.Time, throttled, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inflight--
	w.held += time.Since(start)
	switch {
	case throttled && start.After(w.lastCut):
		w.limit /= 2
		if w.limit < 1 {
			w.limit = 1
		}
		w.lastCut = time.Now()
		w.cuts++
	case ok && w.limit < float64(w.max):
		w.limit += 1 / w.limit
		if w.limit > float64(w.max) {
			w.limit = float64(w.max)
		}
	}
	w.wake()
}

func (w *window) wake() {
	for len(w.waiters) > 0 && w.inflight < int(w.limit) {
		close(w.waiters[0])
		w.waiters = w.waiters[1:]
		w.inflight++
	}
}

// busy is the time slots were held so far, over all calls.
func (w *window) busy() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held
}

// current returns the limit, for tests and the summary.
func (w *window) current() (limit float64, cuts int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.limit, w.cuts
}

// bucket is a token bucket that may go into debt: take waits until the
// balance covers n (at most a full bucket), then subtracts n; adjust
// corrects an estimate once the real cost is known (the usage the server
// returns), charging the difference or giving it back.
type bucket struct {
	mu     sync.Mutex
	rate   float64 // tokens per second
	size   float64
	tokens float64
	last   time.Time
}

// newBucket is refilled with perMinute tokens a minute, evenly, and holds
// ten seconds' worth: providers enforce their per-minute limits over
// shorter spans, so a whole minute's burst at the start would be refused.
// nil (no limit) when perMinute <= 0.
func newBucket(perMinute int) *bucket {
	if perMinute <= 0 {
		return nil
	}
	size := max(float64(perMinute)/6, 1)
	return &bucket{rate: float64(perMinute) / 60, size: size, tokens: size, last: time.Now()}
}

func (b *bucket) refill(now time.Time) {
	b.tokens += now.Sub(b.last).Seconds() * b.rate
	if b.tokens > b.size {
		b.tokens = b.size
	}
	b.last = now
}

func (b *bucket) take(ctx context.Context, n float64) error {
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

func (b *bucket) adjust(delta float64) {
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

// inflightNow is the calls in flight (tests, the progress line).
func (w *window) inflightNow() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.inflight
}
