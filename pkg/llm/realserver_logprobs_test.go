package llm

import (
	"context"
	"testing"
)

// llama-server returns logprobs in chat completions (what ngpact
// --method logprobs needs): with logprobs and top_logprobs 5 at
// temperature 0 and max_tokens 1, the reply (finish_reason length,
// accepted by the probe) carries the first token's 5 most likely
// alternatives, most likely first, and the token it wrote is the first.
func TestRealServerLogprobs(t *testing.T) {
	u := realServer(t)
	c := testClient(t, realConfig(u))
	temp := 0.0
	resp, err := c.Call(context.Background(), Request{Call: "logprobs", Messages: []Message{User("Answer with A or B only. A or B?")},
		Sampling: &Sampling{Temperature: &temp, MaxTokens: 1, TopLogprobs: 5}})
	if err != nil {
		t.Fatal(err)
	}
	top := resp.TopLogprobs
	if len(top) != 5 {
		t.Fatalf("%d alternatives, want 5: %+v", len(top), top)
	}
	for i, x := range top {
		if x.Logprob > 0 || i > 0 && x.Logprob > top[i-1].Logprob {
			t.Errorf("alternative %d: %+v (want log-probabilities <= 0, most likely first)", i, x)
		}
	}
	if resp.FinishReason != "length" || resp.Text != top[0].Token {
		t.Errorf("reply %q (%s), want the most likely first token %q cut at max_tokens 1", resp.Text, resp.FinishReason, top[0].Token)
	}
	t.Logf("first token %q, alternatives %+v", resp.Text, top)
}
