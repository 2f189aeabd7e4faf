package throttle

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// 429s in a quarter of the last window's calls halve it, once per round;
// successes grow it back by about one per round, up to the ceiling.
func TestWindowAIMD(t *testing.T) {
	w := NewWindow(16, 0)
	ctx := context.Background()
	var slots []time.Time
	for i := 0; i < 16; i++ {
		s, _ := w.Acquire(ctx)
		slots = append(slots, s)
	}
	for i, s := range slots[:4] { // four 429s of calls started before any cut
		if l, cuts := w.Current(); l != 16 || cuts != 0 {
			t.Fatalf("after %d of 16 calls got a 429: limit %v, %d cuts", i, l, cuts)
		}
		w.Release(s, true, false)
	}
	if l, cuts := w.Current(); l != 8 || cuts != 1 {
		t.Fatalf("after a quarter of 16 calls got a 429: limit %v, %d cuts", l, cuts)
	}
	for _, s := range slots[4:] { // pre-cut calls: their 429s would not count
		w.Release(s, false, true)
	}
	// Calls started after the cut: one 429 in 8 is noise, two cut again.
	s, _ := w.Acquire(ctx)
	w.Release(s, true, false)
	if l, cuts := w.Current(); l < 8 || cuts != 1 {
		t.Fatalf("one 429 of 8 calls cut the window to %v", l)
	}
	s, _ = w.Acquire(ctx)
	w.Release(s, true, false)
	if l, cuts := w.Current(); l < 4 || l > 5 || cuts != 2 {
		t.Fatalf("second cut: %v, %d cuts", l, cuts)
	}
	for i := 0; i < 200; i++ {
		s, _ := w.Acquire(ctx)
		w.Release(s, false, true)
	}
	if l, _ := w.Current(); l != 16 {
		t.Errorf("grown back to %v, want 16", l)
	}
}

// Failures at random, whatever the load (a flaky proxy: 7% of calls a
// 429 or a timeout), leave the window nearly whole; a server refusing
// every call still brings it down to one.
func TestWindowRandomFaults(t *testing.T) {
	w := NewWindow(64, 0)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	var low float64 = 64
	for range 20000 {
		s, _ := w.Acquire(ctx)
		fault := rng.Float64() < 0.07
		w.Release(s, fault, !fault)
		l, _ := w.Current()
		low = min(low, l)
	}
	if low < 32 {
		t.Errorf("random 7%% faults brought the window down to %v of 64", low)
	}
	for range 200 {
		s, _ := w.Acquire(ctx)
		time.Sleep(time.Microsecond) // started after the last cut
		w.Release(s, true, false)
	}
	if l, _ := w.Current(); l != 1 {
		t.Errorf("a server refusing every call left the window at %v", l)
	}
}

// At most limit calls hold a slot; a waiter gets the slot freed, and a
// cancelled waiter leaves the queue.
func TestWindowBlocks(t *testing.T) {
	w := NewWindow(1, 0)
	s, _ := w.Acquire(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := w.Acquire(ctx); err == nil {
		t.Fatal("second acquire did not wait")
	}
	got := make(chan struct{})
	go func() { w.Acquire(context.Background()); close(got) }()
	time.Sleep(10 * time.Millisecond)
	w.Release(s, false, true)
	select {
	case <-got:
	case <-time.After(time.Second):
		t.Fatal("waiter not woken")
	}
}

// The bucket lets a burst through, then paces; an estimate corrected
// down gives tokens back.
func TestBucket(t *testing.T) {
	b := NewBucket(6000) // 100/s, holds 1000
	ctx := context.Background()
	start := time.Now()
	if err := b.Take(ctx, 1000); err != nil || time.Since(start) > 20*time.Millisecond {
		t.Fatalf("burst waited %s", time.Since(start))
	}
	start = time.Now()
	b.Take(ctx, 5)
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("empty bucket: waited only %s for 5 tokens at 100/s", d)
	}
	b.Adjust(-500) // the call used 500 fewer than estimated
	start = time.Now()
	b.Take(ctx, 400)
	if d := time.Since(start); d > 20*time.Millisecond {
		t.Errorf("refunded tokens not available: waited %s", d)
	}
	var none *Bucket
	if none.Take(ctx, 1e9) != nil {
		t.Error("nil bucket limits")
	}
}
