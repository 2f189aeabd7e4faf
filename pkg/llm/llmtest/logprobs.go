package llmtest

import (
	"encoding/json"
	"strings"
	"unicode"
)

// Logprobs: a request that asks for them (logprobs: true, top_logprobs N)
// gets, as OpenAI and llama-server send them, choices[0].logprobs.content
// with the first token of the reply and its top_logprobs, at most N of
// them (at least 1). Options.Logprobs, when set, gives that first token's
// alternatives, most likely first (a fake model with a known
// distribution, internal/fakeng); by default the reply's first token alone
// has probability 1. Options.NoLogprobs ignores the request, as servers
// without logprobs in chat completions do.

// TopLogprob is one alternative of the first token.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// FirstToken is the default tokenizer's first token of s: a run of
// letters or digits, else one other character ("" for "").
func FirstToken(s string) string {
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if i == 0 {
				return string(r)
			}
			return s[:i]
		}
	}
	return s
}

// logprobs is the "logprobs" member of the choice, with its trailing
// comma, or "" when the request asked for none.
func (s *Server) logprobs(req *ChatRequest, content string) string {
	if s.opt.NoLogprobs || req.Logprobs == nil || !*req.Logprobs {
		return ""
	}
	return `"logprobs":` + chatLogprobs(s.top(req, content)) + ","
}

// top is the first token's alternatives the request gets, most likely
// first, and how many it asked for.
func (s *Server) top(req *ChatRequest, content string) ([]TopLogprob, int) {
	var top []TopLogprob
	if s.opt.Logprobs != nil {
		top = s.opt.Logprobs(req, content)
	}
	if len(top) == 0 {
		top = []TopLogprob{{Token: FirstToken(content), Logprob: 0}}
	}
	n := 0
	if req.TopLogprobs != nil {
		n = *req.TopLogprobs
	}
	return top[:min(max(n, 1), len(top))], n
}

// chatLogprobs is the logprobs object of a chat completion: content with
// the first token and (when n > 0) its alternatives.
func chatLogprobs(top []TopLogprob, n int) string {
	type tok struct {
		Token       string       `json:"token"`
		Logprob     float64      `json:"logprob"`
		Bytes       []int        `json:"bytes"`
		TopLogprobs []TopLogprob `json:"top_logprobs"`
	}
	first := tok{Token: top[0].Token, Logprob: top[0].Logprob, TopLogprobs: top}
	if n == 0 {
		first.TopLogprobs = []TopLogprob{}
	}
	for _, b := range []byte(first.Token) {
		first.Bytes = append(first.Bytes, int(b))
	}
	b, _ := json.Marshal(map[string]any{"content": []tok{first}})
	return strings.TrimSpace(string(b))
}
