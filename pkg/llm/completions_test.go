package llm

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// abLogprobs is a base model that puts 0.7 on " B", 0.2 on " A".
func abLogprobs(*llmtest.ChatRequest, string) []llmtest.TopLogprob {
	return []llmtest.TopLogprob{{Token: " B", Logprob: math.Log(0.7)}, {Token: " A", Logprob: math.Log(0.2)}, {Token: "\n", Logprob: math.Log(0.1)}}
}

func textProbe(t *testing.T, c *Client) (*Response, error) {
	t.Helper()
	temp := 0.0
	return c.Call(context.Background(), Request{ID: "r1", Call: "q", Messages: []Message{User("chat form")},
		Prompt: "Question: A or B?\nAnswer:", Sampling: &Sampling{Temperature: &temp, MaxTokens: 1, TopLogprobs: 5}})
}

// A base model's call goes to POST /v1/completions with the plain-text
// prompt and logprobs as a count; the first token's alternatives come
// back most likely first, whether the server sends OpenAI's legacy form
// (a map per token: vLLM, OpenAI) or the chat form (llama-server).
func TestTextCompletionsLogprobs(t *testing.T) {
	for _, llama := range []bool{false, true} {
		srv := llmtest.New(llmtest.Options{Reply: func(*llmtest.ChatRequest) string { return " B" }, Logprobs: abLogprobs, ChatLogprobsInText: llama})
		c := testClient(t, Config{BaseURL: srv.URL, API: APICompletions})
		resp, err := textProbe(t, c)
		srv.Close()
		if err != nil {
			t.Fatalf("llama %v: %v", llama, err)
		}
		if resp.Text != "B" || len(resp.TopLogprobs) != 3 || resp.TopLogprobs[0].Token != " B" || resp.TopLogprobs[1].Token != " A" ||
			math.Abs(math.Exp(resp.TopLogprobs[1].Logprob)-0.2) > 1e-9 {
			t.Errorf("llama %v: text %q, top %+v", llama, resp.Text, resp.TopLogprobs)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("llama %v: %d requests", llama, len(reqs))
		}
		var body map[string]any
		json.Unmarshal(reqs[0].Body, &body)
		if body["prompt"] != "Question: A or B?\nAnswer:" || body["logprobs"] != 5.0 || body["max_tokens"] != 1.0 || body["messages"] != nil || body["top_logprobs"] != nil {
			t.Errorf("llama %v: body %s", llama, reqs[0].Body)
		}
		if !reqs[0].Request.Text {
			t.Errorf("llama %v: not a text request", llama)
		}
	}
}

// A server that sends no logprobs from /v1/completions (Ollama v0.24)
// gives a reply with none, for the stage to say so; a continuation cut at
// max_tokens is a reply (a base model does not stop by itself).
func TestTextCompletionsNoLogprobs(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Ollama: true, Reply: func(*llmtest.ChatRequest) string { return "face" }, Rules: []llmtest.Rule{{Contains: "cut", Content: " A, because", FinishReason: "length"}}})
	defer srv.Close()
	c := testClient(t, Config{BaseURL: srv.URL, API: APICompletions})
	resp, err := textProbe(t, c)
	if err != nil || resp.TopLogprobs != nil || resp.Text != "face" {
		t.Fatalf("%v: %+v", err, resp)
	}
	resp, err = c.Call(context.Background(), Request{ID: "r2", Call: "q", Prompt: "cut here\nAnswer:", Sampling: &Sampling{MaxTokens: 3}})
	if err != nil || resp.Text != "A, because" || resp.FinishReason != "length" {
		t.Fatalf("%v: %+v", err, resp)
	}
}

// What a base model cannot do is an error before any request: a reply
// schema, a call with no plain-text prompt, the Batch files; an unknown
// api is refused.
func TestTextCompletionsRefused(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	c := testClient(t, Config{BaseURL: srv.URL, API: APICompletions})
	_, err := c.Call(context.Background(), Request{ID: "r", Call: "situation", Schema: "echo", Prompt: "x", Messages: []Message{User("x")}})
	if err == nil || !strings.Contains(err.Error(), "cannot give replies of a JSON schema (echo)") {
		t.Errorf("schema: %v", err)
	}
	_, err = c.Call(context.Background(), Request{ID: "r", Call: "situation", Messages: []Message{User("x")}})
	if err == nil || !strings.Contains(err.Error(), "the call has no plain-text prompt") {
		t.Errorf("no prompt: %v", err)
	}
	if srv.Count() != 0 {
		t.Errorf("%d requests sent", srv.Count())
	}
	for _, cfg := range []Config{{Batch: true}, {EmitRequests: "x.jsonl"}, {Responses: "y.jsonl"}} {
		cfg.BaseURL, cfg.Model, cfg.API = srv.URL, "m", APICompletions
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "not with --batch, --emit-requests or --responses") {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	if _, err := New(Config{BaseURL: srv.URL, Model: "m", API: "text"}); err == nil || !strings.Contains(err.Error(), `api "text": want chat or completions`) {
		t.Errorf("api text: %v", err)
	}
}

// The cache keeps a text completion under its own key: the same prompt
// again is a hit, the same words asked in chat are not.
func TestTextCompletionsCache(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Logprobs: abLogprobs})
	defer srv.Close()
	dir := t.TempDir()
	text := testClient(t, Config{BaseURL: srv.URL, API: APICompletions, CacheDir: dir})
	for range 2 {
		if _, err := textProbe(t, text); err != nil {
			t.Fatal(err)
		}
	}
	chat := testClient(t, Config{BaseURL: srv.URL, CacheDir: dir})
	if _, err := chat.Call(context.Background(), Request{ID: "r1", Call: "q", Messages: []Message{User("Question: A or B?\nAnswer:")}}); err != nil {
		t.Fatal(err)
	}
	if n := srv.Count(); n != 2 {
		t.Errorf("%d requests, want 2 (one text, one chat)", n)
	}
}
