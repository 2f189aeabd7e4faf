package llm

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// --concurrency auto takes llama-server's slots from /props; a server
// that does not say gets the default, with a note. (The flag itself:
// TestConcurrencyFlag in cmd/internal/app.)
func TestConcurrencyAutoReadsSlots(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Slots: 3, Context: 4096})
	defer srv.Close()
	var stderr bytes.Buffer
	c := testClient(t, Config{BaseURL: srv.URL + "/", ConcurrencyAuto: true, Stage: "ngv2r", Stderr: &stderr})
	if c.cfg.Concurrency != 3 || c.Workers() != 6 || c.ctxSize.Load() != 4096 {
		t.Errorf("concurrency %d, workers %d, context %d", c.cfg.Concurrency, c.Workers(), c.ctxSize.Load())
	}
	if !strings.Contains(stderr.String(), "has 3 slots (4096 tokens of context each); 3 calls in flight") {
		t.Errorf("stderr: %s", stderr.String())
	}
	plain := newFake(t)
	stderr.Reset()
	c = testClient(t, Config{BaseURL: plain.URL, ConcurrencyAuto: true, Stage: "ngv2r", Stderr: &stderr})
	if c.cfg.Concurrency != 16 || !strings.Contains(stderr.String(), "does not say how many requests it serves at once (GET /props: HTTP 404); using 16") {
		t.Errorf("concurrency %d, stderr: %s", c.cfg.Concurrency, stderr.String())
	}
	// Ollama (no /props, /api/version answers) starts the window at 4,
	// up to 16: the window finds the rest.
	ol := llmtest.New(llmtest.Options{Ollama: true})
	defer ol.Close()
	stderr.Reset()
	c = testClient(t, Config{BaseURL: ol.URL, ConcurrencyAuto: true, Stage: "ngv2r", Stderr: &stderr})
	if limit, _ := c.win.Current(); c.cfg.Concurrency != 16 || limit != 4 || !strings.Contains(stderr.String(), "is Ollama 0.24.0, which does not say") ||
		!strings.Contains(stderr.String(), "starting at 4 calls in flight, up to 16") {
		t.Errorf("Ollama: ceiling %d, window %g, stderr: %s", c.cfg.Concurrency, limit, stderr.String())
	}
}

// A server that queues instead of answering 429 shows it in its
// latency: a timeout, or a reply slower than half of --timeout, halves
// the window as a 429 does.
func TestQueueingShrinksTheWindow(t *testing.T) {
	for name, opt := range map[string]llmtest.Options{
		"slow replies": {Latency: 150 * time.Millisecond},
		"timeouts":     {Sequence: []llmtest.Fault{llmtest.Slow, llmtest.Slow, llmtest.Slow, llmtest.Slow}, SlowFor: time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(opt)
			defer srv.Close()
			cfg := quick(srv)
			cfg.Concurrency, cfg.Timeout = 8, 200*time.Millisecond
			c := testClient(t, cfg)
			var wg sync.WaitGroup
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					if _, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User(strings.Repeat("x", i+1))}}); err != nil {
						t.Error(err)
					}
				}(i)
			}
			wg.Wait()
			if limit, cuts := c.win.Current(); cuts == 0 || limit >= 8 || c.Usage().WindowCuts != cuts {
				t.Errorf("window %.1f after %d cuts (usage report: %d)", limit, cuts, c.Usage().WindowCuts)
			}
		})
	}
	// Quick replies leave it alone.
	srv := newFake(t)
	c := testClient(t, quick(srv))
	for i := 0; i < 8; i++ {
		c.Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}})
	}
	if _, cuts := c.win.Current(); cuts != 0 {
		t.Errorf("%d cuts on a quick server", cuts)
	}
}

// A prompt the server cut to its context without a word (Ollama) fails
// the call with the reason, without retries; the others pass.
func TestSilentTruncationFails(t *testing.T) {
	long := strings.Repeat("The guest thanks the host for the dinner. ", 300) // ~12.6k bytes, ~3.2k tokens
	for name, tc := range map[string]struct {
		opt  llmtest.Options
		want string
	}{
		"prompt_tokens at a common context": {llmtest.Options{Context: 2048}, "to 2048 tokens (its context): prompt_tokens 2048, exactly a common context size"},
		"far fewer than estimated":          {llmtest.Options{Context: 700}, "to 700 tokens (its context): prompt_tokens 700 for a prompt of about 3"},
		"the context /props reported":       {llmtest.Options{Context: 3000, Slots: 1}, "to 3000 tokens (its context of 3000): prompt_tokens 3000 is its whole context"},
		// Ollama at OLLAMA_CONTEXT_LENGTH=3000: only its /api/ps tells.
		"the context Ollama's /api/ps reported": {llmtest.Options{Context: 3000, Ollama: true}, "to 3000 tokens (its context of 3000): prompt_tokens 3000 is its whole context"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(tc.opt)
			defer srv.Close()
			cfg := quick(srv)
			cfg.ConcurrencyAuto = tc.opt.Slots > 0
			c := testClient(t, cfg)
			_, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User(long)}})
			if err == nil || !strings.Contains(err.Error(), "the server cut the prompt "+tc.want) || !strings.Contains(err.Error(), "OLLAMA_CONTEXT_LENGTH") || srv.Count() != 1 {
				t.Errorf("%v after %d requests", err, srv.Count())
			}
			if _, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User("short")}}); err != nil {
				t.Errorf("short prompt: %v", err)
			}
		})
	}
}

// Ollama dropping the oldest user message of a re-ask conversation that
// outgrew its context (seen at 4096: a re-ask at 1,452 prompt tokens
// after a first request of 3,695): the re-ask holds the first request, so
// fewer prompt tokens than it had say the prompt was cut.
func TestReaskCutByOllama(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Context: 4096, Ollama: true, Rules: []llmtest.Rule{{Content: "no"}}})
	defer srv.Close()
	c := testClient(t, quick(srv))
	sys, user := strings.Repeat("Write as a host would. ", 260), strings.Repeat("The guest thanks the host. ", 380) // ~1.5k and ~2.6k tokens: 4068 in all
	fails := func(*Response) (any, error) { return nil, errors.New("not yet") }
	_, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{System(sys), User(user)}, Check: fails})
	if err == nil || !strings.Contains(err.Error(), "the server cut the prompt to ") || !strings.Contains(err.Error(), "where the request it holds had ") || srv.Count() != 2 {
		t.Errorf("%v after %d requests", err, srv.Count())
	}
}

// gen keeps the model asked for and the one the server says answered.
func TestGenRecordsRequestedAndAnsweredModel(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Model: "model.gguf"})
	defer srv.Close()
	cfg := quick(srv)
	cfg.Model, cfg.CacheDir = "gpt-4o-mini", t.TempDir()
	for _, hit := range []bool{false, true} {
		resp, err := testClient(t, cfg).Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}})
		if err != nil || resp.Gen.Model != "gpt-4o-mini" || resp.Gen.ModelAnswered != "model.gguf" || resp.Gen.CacheHit != hit {
			t.Errorf("cache hit %v: %+v %v", hit, resp, err)
		}
	}
}
