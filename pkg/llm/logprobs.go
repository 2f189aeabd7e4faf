package llm

import (
	"fmt"
	"strings"
)

// TokenLogprob is one alternative of a reply's token and its natural
// log-probability, as OpenAI-compatible servers send it in
// choices[].logprobs.content[].top_logprobs.
type TokenLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// choiceLogprobs is a choice's logprobs: one entry per reply token.
type choiceLogprobs struct {
	Content []tokenLogprobs `json:"content"`
}

// tokenLogprobs is one reply token with its alternatives.
type tokenLogprobs struct {
	Token       string         `json:"token"`
	Logprob     float64        `json:"logprob"`
	TopLogprobs []TokenLogprob `json:"top_logprobs"`
}

// first is the first token's alternatives: its top_logprobs, else the
// token itself when the server sent no alternatives; nil when the reply
// has no logprobs.
func (l *choiceLogprobs) first() []TokenLogprob {
	if l == nil || len(l.Content) == 0 {
		return nil
	}
	t := l.Content[0]
	if len(t.TopLogprobs) > 0 {
		return t.TopLogprobs
	}
	return []TokenLogprob{{Token: t.Token, Logprob: t.Logprob}}
}

// acceptChoice judges a reply as accept does; a logprobs probe
// (s.TopLogprobs > 0) reads the first token's distribution, so a reply
// cut at max_tokens or empty (a first token of white space) is not a
// failure there: only the request's Check judges it, and it sees the
// alternatives in Response.TopLogprobs.
//
// A text completion (s.text) is judged the same way: it is a continuation
// that ends where max_tokens cuts it, not a reply that says when it is done.
func acceptChoice(content, finish string, top []TokenLogprob, s Sampling, sch *schema, check func(*Response) error) (*Response, *failure) {
	if (s.TopLogprobs <= 0 && !s.text) || sch != nil {
		resp, f := accept(content, finish, sch, check)
		if f != nil && f.kind == "length" {
			f.reason += cutHint(s.MaxTokens)
		}
		if resp != nil {
			resp.TopLogprobs = top
		}
		return resp, f
	}
	if finish == "content_filter" {
		return nil, &failure{kind: "content_filter", reason: "reply stopped by the content filter (finish_reason content_filter)", retry: true}
	}
	resp := &Response{Text: strings.TrimSpace(content), FinishReason: finish, raw: content, TopLogprobs: top}
	if check != nil {
		if err := check(resp); err != nil {
			return nil, &failure{kind: "check", reason: "reply failed the check: " + err.Error(), reask: true, retry: true}
		}
	}
	return resp, nil
}

// cutHint says what to do about a reply cut at the token limit: the same
// request is likely cut again.
func cutHint(maxTokens int) string {
	if maxTokens > 0 {
		return fmt.Sprintf(" of --max-tokens %d: raise --max-tokens, or ask for less", maxTokens)
	}
	return " of the server's default: set --max-tokens higher"
}
