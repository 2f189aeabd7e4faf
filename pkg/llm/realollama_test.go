package llm

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// realOllama is the base URL of a real Ollama (v0.24.0 from
// ../shared/ollama, the tiny model as babel-tiny), which
// scripts/realserver.sh starts and names in NGKIT_OLLAMA_URL, with the
// context it was started with (OLLAMA_CONTEXT_LENGTH) in NGKIT_OLLAMA_CTX.
func realOllama(t *testing.T) (string, int) {
	u := os.Getenv("NGKIT_OLLAMA_URL")
	n, _ := strconv.Atoi(os.Getenv("NGKIT_OLLAMA_CTX"))
	if u == "" || n == 0 {
		t.Skip("no real Ollama: scripts/realserver.sh runs this test against ../shared/ollama (NGKIT_OLLAMA_URL, NGKIT_OLLAMA_CTX)")
	}
	return u, n
}

// Ollama cuts a prompt over its context to the context and answers 200;
// at a context that is no common size (3000) only /api/ps tells it, and
// the call fails with the size and how to raise it. A prompt that fits
// passes.
func TestRealOllamaCutPrompt(t *testing.T) {
	u, n := realOllama(t)
	cfg := realConfig(u)
	cfg.APIKey = NewSecret("")
	cfg.Sampling.MaxTokens = 5
	c := testClient(t, cfg)
	// babel-tiny's vocabulary has a token for each common English word,
	// so about a token a word and its space: n+300 words is over n.
	long := strings.Repeat("host ", n+300)
	_, err := c.Call(context.Background(), Request{Call: "long", Messages: []Message{User(long)}})
	want := fmt.Sprintf("the server cut the prompt to %d tokens (its context of %d)", n, n)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "OLLAMA_CONTEXT_LENGTH") {
		t.Errorf("over the context: %v", err)
	}
	// (One token with its logprobs: a reply cut at max_tokens is no failure then.)
	if _, err := c.Call(context.Background(), Request{Call: "short", Messages: []Message{User("Say hello.")},
		Sampling: &Sampling{MaxTokens: 1, TopLogprobs: 1}}); err != nil {
		t.Errorf("short prompt: %v", err)
	}
}

// --concurrency auto on the real Ollama: found as Ollama by its
// /api/version, the window starts at 4.
func TestRealOllamaConcurrencyAuto(t *testing.T) {
	u, _ := realOllama(t)
	var stderr strings.Builder
	cfg := realConfig(u)
	cfg.APIKey, cfg.ConcurrencyAuto, cfg.Stderr = NewSecret(""), true, &stderr
	c := testClient(t, cfg)
	if limit, _ := c.win.Current(); c.cfg.Concurrency != 16 || limit != 4 || !strings.Contains(stderr.String(), "is Ollama 0.24.0") {
		t.Errorf("ceiling %d, window %g: %s", c.cfg.Concurrency, limit, stderr.String())
	}
}
