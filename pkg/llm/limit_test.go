package llm

import (
	"context"
	"testing"
	"time"
)

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
	if used := c.tpm.Balance(); used < 900 {
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
	if l, _ := c.win.Current(); l != 4 || c.win.InFlight() != 0 {
		t.Errorf("window %v, %d in flight", l, c.win.InFlight())
	}
}
