package llm

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// A logprobs probe (Sampling.TopLogprobs): the request asks for logprobs
// and top_logprobs; the first token's alternatives come back in
// Response.TopLogprobs, also from the cache; a reply cut at max_tokens 1
// is accepted; a server that sends none leaves them nil.
func TestLogprobsProbe(t *testing.T) {
	top := []llmtest.TopLogprob{{Token: "B", Logprob: math.Log(0.7)}, {Token: "A", Logprob: math.Log(0.2)}, {Token: "The", Logprob: math.Log(0.1)}}
	srv := llmtest.New(llmtest.Options{
		Rules:    []llmtest.Rule{{Content: "B", FinishReason: "length"}},
		Logprobs: func(*llmtest.ChatRequest, string) []llmtest.TopLogprob { return top },
	})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	temp := 0.0
	req := Request{ID: "r", Call: "probe", Messages: []Message{User("A or B?")},
		Sampling: &Sampling{Temperature: &temp, MaxTokens: 1, TopLogprobs: 2}}
	for i, want := range []bool{false, true} { // live, then the cache
		c := testClient(t, Config{BaseURL: srv.URL, Model: "fake", CacheDir: dir, MaxRetries: 1})
		resp, err := c.Call(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Gen.CacheHit != want || resp.Text != "B" || len(resp.TopLogprobs) != 2 ||
			resp.TopLogprobs[0].Token != "B" || math.Abs(resp.TopLogprobs[1].Logprob-math.Log(0.2)) > 1e-12 {
			t.Errorf("call %d: %+v cache %v", i, resp.TopLogprobs, resp.Gen.CacheHit)
		}
	}
	if n := srv.Count(); n != 1 {
		t.Errorf("%d requests, want 1 (then the cache)", n)
	}
	var body struct {
		Logprobs    bool `json:"logprobs"`
		TopLogprobs int  `json:"top_logprobs"`
		MaxTokens   int  `json:"max_tokens"`
	}
	json.Unmarshal(srv.Requests()[0].Body, &body)
	if !body.Logprobs || body.TopLogprobs != 2 || body.MaxTokens != 1 {
		t.Errorf("request %s", srv.Requests()[0].Body)
	}

	// The same messages without TopLogprobs are another cache key, and an
	// ordinary call still refuses a reply cut at the limit.
	c := testClient(t, Config{BaseURL: srv.URL, Model: "fake", CacheDir: dir, MaxRetries: 0})
	if _, err := c.Call(context.Background(), Request{ID: "r", Call: "plain", Messages: req.Messages}); err == nil {
		t.Error("a reply cut at max_tokens was accepted without TopLogprobs")
	}

	none := llmtest.New(llmtest.Options{NoLogprobs: true})
	t.Cleanup(none.Close)
	c = testClient(t, Config{BaseURL: none.URL, Model: "fake"})
	resp, err := c.Call(context.Background(), req)
	if err != nil || resp.TopLogprobs != nil {
		t.Errorf("server without logprobs: %v %+v", err, resp)
	}
}
