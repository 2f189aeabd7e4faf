package throttle

import (
	"context"
	"testing"
	"time"
)

// A 429 halves the window, once per round; successes grow it back by
// about one per round, up to the ceiling.
func TestWindowAIMD(t *testing.T) {
	w := NewWindow(16, 0)
	ctx := context.Background()
	var slots []time.Time
	for i := 0; i < 16; i++ {
		s, _ := w.Acquire(ctx)
		slots = append(slots, s)
	}
	for _, s := range slots[:4] { // four 429s of calls started before any cut
		w.Release(s, true, false)
	}
	if l, cuts := w.Current(); l != 8 || cuts != 1 {
		t.Fatalf("after a round of 429s: limit %v, %d cuts", l, cuts)
	}
	for _, s := range slots[4:] {
		w.Release(s, false, true)
	}
	// A call started after the cut that gets a 429 cuts again.
	s, _ := w.Acquire(ctx)
	w.Release(s, true, false)
	if l, _ := w.Current(); l < 4 || l > 5 {
		t.Fatalf("second cut: %v", l)
	}
	for i := 0; i < 200; i++ {
		s, _ := w.Acquire(ctx)
		w.Release(s, false, true)
	}
	if l, _ := w.Current(); l != 16 {
		t.Errorf("grown back to %v, want 16", l)
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
