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
func acceptChoice(content, finish string, top []TokenLogprob, s Sampling, sch *schema, check func(*Response) error, used tokensUsed) (*Response, *failure) {
	if (s.TopLogprobs <= 0 && !s.text) || sch != nil {
		resp, f := accept(content, finish, sch, check)
		if f != nil && f.kind == "length" {
			f.reason += cutHint(s.MaxTokens, used)
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

// tokensUsed is a reply's usage: prompt and reply tokens (0 when unknown).
type tokensUsed struct{ prompt, reply int }

// cutHint says what to do about a reply cut at the token limit: the same
// request is likely cut again. A reply shorter than --max-tokens was cut
// by the server's context, not by --max-tokens (seen with llama-server,
// whose -c is shared by its --parallel slots: a Korean prompt of 3,590
// tokens left a 4,096-token slot room for 506), and raising --max-tokens
// would not help.
func cutHint(maxTokens int, used tokensUsed) string {
	if maxTokens > 0 && used.reply > 0 && used.reply < maxTokens {
		return fmt.Sprintf(" after %d prompt and %d reply tokens, under --max-tokens %d: the server's context is full; give it more context per request (llama-server: -c, shared by --parallel slots) or ask for less", used.prompt, used.reply, maxTokens)
	}
	if maxTokens > 0 {
		return fmt.Sprintf(" of --max-tokens %d: raise --max-tokens, or ask for less", maxTokens)
	}
	return " of the server's default: set --max-tokens higher"
}
