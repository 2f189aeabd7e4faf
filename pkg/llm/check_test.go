package llm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// A reply that fails the stage's Check is asked again with the reason
// (--max-reasks), then tried afresh (--max-retries); the error names the
// reason. A free-text call is asked for "the same format", not JSON.
func TestCheckFailureIsReaskedWithTheReason(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{
		{Contains: "too short", Content: "long enough now"},
		{Content: "short"},
	}})
	defer srv.Close()
	check := func(r *Response) (any, error) {
		if len(r.Text) < 10 {
			return nil, errors.New("too short")
		}
		return len(r.Text), nil
	}
	resp, err := testClient(t, quick(srv)).Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}, Check: check})
	if err != nil || resp.Text != "long enough now" || resp.Gen.Retries != 1 || resp.Checked != len("long enough now") {
		t.Fatalf("%+v %v", resp, err)
	}
	msgs := srv.Requests()[1].Request.Messages
	if len(msgs) != 3 || msgs[1].Text() != "short" || msgs[2].Text() != "Your reply was not valid: reply failed the check: too short. Reply again, corrected, in the same format." {
		t.Fatalf("re-ask: %+v", msgs)
	}

	never := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{{Content: "short"}}})
	defer never.Close()
	cfg := quick(never) // 2 re-asks, 3 retries
	_, err = testClient(t, cfg).Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}, Check: check})
	if err == nil || !strings.Contains(err.Error(), "reply failed the check: too short") || never.Count() != 1+2+3 {
		t.Fatalf("%v after %d requests", err, never.Count())
	}
	// The retries after the re-asks start afresh, without the conversation.
	if reqs := never.Requests(); len(reqs[3].Request.Messages) != 1 || len(reqs[2].Request.Messages) != 5 {
		t.Errorf("messages per request: %d %d", len(reqs[2].Request.Messages), len(reqs[3].Request.Messages))
	}
}
