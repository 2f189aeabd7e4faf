package llm

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// The built-in prices apply at api.openai.com only.
func TestBuiltinPricesOnlyAtOpenAI(t *testing.T) {
	for url, want := range map[string]bool{OpenAIBaseURL: true, "http://localhost:11434/v1": false, "https://api.openai.com.evil.example/v1": false} {
		c, err := New(Config{BaseURL: url, Model: "gpt-4o-mini"})
		if err != nil {
			t.Fatal(err)
		}
		if u := c.Usage(); u.Priced != want {
			t.Errorf("%s: priced %v, want %v", url, u.Priced, want)
		}
	}
}

// The summary is one line, an unpriced model's note short; with -v
// (Verbose) a line per call follows and the note says why, once, on the
// first line, not again on each call's line.
func TestUnpricedNoteOnce(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	for _, verbose := range []bool{false, true} {
		var stderr bytes.Buffer
		cfg := quick(srv)
		cfg.Stderr, cfg.Verbose = &stderr, verbose
		c := testClient(t, cfg)
		for _, call := range []string{"a", "b", "c"} {
			if _, err := c.Call(context.Background(), Request{Call: call, Messages: []Message{User("x")}}); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
		wantLines, note := 1, "; cost not estimated (see --prices)\n"
		if verbose {
			wantLines, note = 4, "cost not estimated (no price for fake here"
		}
		if lines, n := strings.Count(stderr.String(), "\n"), strings.Count(stderr.String(), "cost not estimated"); lines != wantLines || n != 1 ||
			!strings.Contains(strings.SplitAfterN(stderr.String(), "\n", 2)[0], note) {
			t.Errorf("verbose %v: %d lines, %d notes:\n%s", verbose, lines, n, stderr.String())
		}
	}
}

// The counters of failed calls: a call that gives up still reports its
// retries and re-asks, and attempts that never reached the server (a
// refused connection) are attempts, not requests.
func TestUsageCountsFailedCalls(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{{Content: "not JSON at all"}}})
	defer srv.Close()
	cfg := quick(srv)
	cfg.MaxRetries, cfg.MaxReasks = 1, 1
	c := testClient(t, cfg)
	if _, err := c.Call(context.Background(), Request{Call: "bad", Schema: "echo", Messages: []Message{User("x")}}); err == nil {
		t.Fatal("an invalid reply accepted")
	}
	got := *c.Usage().ByCall["bad"]
	if got.Failed != 1 || got.Attempts != 3 || got.Requests != 3 || got.Retries != 1 || got.Reasks != 1 || srv.Count() != 3 {
		t.Errorf("invalid replies: %+v, %d requests served", got, srv.Count())
	}

	dead := llmtest.New(llmtest.Options{})
	cfg = quick(dead)
	dead.Close() // nothing listens at its address now
	cfg.MaxRetries = 2
	c = testClient(t, cfg)
	if _, err := c.Call(context.Background(), Request{Call: "refused", Messages: []Message{User("x")}}); err == nil {
		t.Fatal("a call to a closed port answered")
	}
	got = *c.Usage().ByCall["refused"]
	// (A server never reached fails at its first refusal: see TestServerRestart.)
	if got.Failed != 1 || got.Attempts != 1 || got.Requests != 0 || got.Retries != 0 || got.Faults["refused"] != 1 {
		t.Errorf("refused: %+v", got)
	}
}
