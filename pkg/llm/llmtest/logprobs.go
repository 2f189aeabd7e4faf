package llmtest

import "github.com/ngkit/ngkit/internal/canned/wire"

// Logprobs: a request that asks for them (logprobs: true, top_logprobs N)
// gets, as OpenAI and llama-server send them, choices[0].logprobs.content
// with the first token of the reply and its top_logprobs, at most N of
// them (at least 1). Options.Logprobs, when set, gives that first token's
// alternatives, most likely first (a fake model with a known
// distribution, internal/canned); by default the reply's first token alone
// has probability 1. Options.NoLogprobs ignores the request, as servers
// without logprobs in chat completions do.

// TopLogprob is one alternative of the first token.
type TopLogprob = wire.TopLogprob

// FirstToken is the default tokenizer's first token of s: a run of
// letters or digits, else one other character ("" for "").
func FirstToken(s string) string { return wire.FirstToken(s) }

// logprobs is the "logprobs" member of the choice, with its trailing
// comma, or "" when the request asked for none.
func (s *Server) logprobs(req *ChatRequest, content string) string {
	if s.opt.NoLogprobs || req.Logprobs == nil || !*req.Logprobs {
		return ""
	}
	return `"logprobs":` + wire.ChatLogprobs(s.top(req, content)) + ","
}

// top is the first token's alternatives the request gets, most likely
// first, and how many it asked for.
func (s *Server) top(req *ChatRequest, content string) ([]TopLogprob, int) {
	return wire.Top(s.opt.Logprobs, req, content)
}
