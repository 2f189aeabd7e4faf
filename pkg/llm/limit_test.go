package llm

import (
	"context"
	"testing"
	"time"
)

// A 429 halves the window, once per round; successes grow it back by
// about one per round, up to the ceiling.
func TestWindowAIMD(t *testing.T) {
	w := newWindow(16)
	ctx := context.Background()
	var slots []time.Time
	for i := 0; i < 16; i++ {
		s, _ := w.acquire(ctx)
		slots = append(slots, s)
	}
	for _, s := range slots[:4] { // four 429s of calls started before any cut
		w.release(s, true, false)
	}
	if l, cuts := w.current(); l != 8 || cuts != 1 {
		t.Fatalf("after a round of 429s: limit %v, %d cuts", l, cuts)
	}
	for _, s := range slots[4:] {
		w.release(s, false, true)
	}
	// A call started after the cut that gets a 429 cuts again.
	s, _ := w.acquire(ctx)
	w.release(s, true, false)
	if l, _ := w.current(); l < 4 || l > 5 {
		t.Fatalf("second cut: %v", l)
	}
	for i := 0; i < 200; i++ {
		s, _ := w.acquire(ctx)
		w.release(s, false, true)
	}
	if l, _ := w.current(); l != 16 {
		t.Errorf("grown back to %v, want 16", l)
	}
}

// At most limit calls hold a slot; a waiter gets the slot freed, and a
// cancelled waiter leaves the queue.
func TestWindowBlocks(t *testing.T) {
	w := newWindow(1)
	s, _ := w.acquire(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := w.acquire(ctx); err == nil {
		t.Fatal("second acquire did not wait")
	}
	got := make(chan struct{})
	go func() { w.acquire(context.Background()); close(got) }()
	time.Sleep(10 * time.Millisecond)
	w.release(s, false, true)
	select {
	case <-got:
	case <-time.After(time.Second):
		t.Fatal("waiter not woken")
	}
}

// The bucket lets a burst through, then paces; an estimate corrected
// down gives tokens back.
func TestBucket(t *testing.T) {
	b := newBucket(6000) // 100/s, holds 1000
	ctx := context.Background()
	start := time.Now()
	if err := b.take(ctx, 1000); err != nil || time.Since(start) > 20*time.Millisecond {
		t.Fatalf("burst waited %s", time.Since(start))
	}
	start = time.Now()
	b.take(ctx, 5)
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("empty bucket: waited only %s for 5 tokens at 100/s", d)
	}
	b.adjust(-500) // the call used 500 fewer than estimated
	start = time.Now()
	b.take(ctx, 400)
	if d := time.Since(start); d > 20*time.Millisecond {
		t.Errorf("refunded tokens not available: waited %s", d)
	}
	var none *bucket
	if none.take(ctx, 1e9) != nil {
		t.Error("nil bucket limits")
	}
}

// --rpm paces the requests through a client.
func TestRPMPacesRequests(t *testing.T) {
	srv := newFake(t)
	cfg := quick(srv)
	cfg.RPM = 600 // 10/s, a burst of 100
	c := testClient(t, cfg)
	start := time.Now()
	for i := 0; i < 103; i++ {
		if _, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("103 calls at 600 rpm took %s", d)
	}
}

// --tpm charges an estimate before each request (prompt + max tokens) and
// gives back what the reply's usage shows was not spent.
func TestTPMCorrectsEstimates(t *testing.T) {
	srv := newFake(t)
	cfg := quick(srv)
	cfg.TPM = 6000 // 100 tokens/s, holds 1000
	cfg.Sampling.MaxTokens = 900
	c := testClient(t, cfg)
	start := time.Now()
	for i := 0; i < 3; i++ {
		if _, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User("hi")}}); err != nil {
			t.Fatal(err)
		}
	}
	// Each call is estimated at ~905 tokens and uses ~20: with the refunds
	// the three go at once; without them the second would wait ~8 s.
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("3 calls took %s", d)
	}
	if used := c.tpm.tokens; used < 900 {
		t.Errorf("bucket holds %.0f after refunds", used)
	}
	if got := srv.Requests()[0].Request.MaxTokens; got == nil || *got != 900 {
		t.Errorf("max_tokens sent: %v", got)
	}
}

// A call waiting for the rate limit ends when its context does, without
// sending.
func TestRateWaitIsCancellable(t *testing.T) {
	srv := newFake(t)
	cfg := quick(srv)
	cfg.RPM = 1 // one now, the next in a minute
	c := testClient(t, cfg)
	if _, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Call(ctx, Request{Call: "c", Messages: []Message{User("y")}})
	if err == nil || srv.Count() != 1 {
		t.Errorf("%v, %d requests", err, srv.Count())
	}
	if l, _ := c.win.current(); l != 4 || c.win.inflight != 0 {
		t.Errorf("window %v, %d in flight", l, c.win.inflight)
	}
}
