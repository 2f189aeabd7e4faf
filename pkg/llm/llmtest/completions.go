package llmtest

import "github.com/ngkit/ngkit/internal/canned/wire"

// Text completions: POST /v1/completions takes {model, prompt (a string,
// or a list of one), max_tokens, temperature, top_p, seed, logprobs: N}
// and is answered as a chat request whose one user message is the prompt
// (ChatRequest.Text, wire.DecodeText), in OpenAI's text_completion form: choices[0].text,
// and, when logprobs N > 0 was asked, the legacy logprobs {tokens,
// token_logprobs, top_logprobs: [{token: logprob}], text_offset} (OpenAI,
// vLLM), or with Options.ChatLogprobsInText the chat form
// {content: [...]} that llama-server sends. Options.NoLogprobs and
// Options.Ollama send none, as Ollama v0.24's /v1/completions does (it
// takes logprobs: N and ignores it).

// textLogprobs is the "logprobs" value of a text completion.
func (s *Server) textLogprobs(req *ChatRequest, content string) string {
	if s.opt.NoLogprobs || s.opt.Ollama || req.Logprobs == nil {
		return "null"
	}
	top, n := s.top(req, content)
	if s.opt.ChatLogprobsInText {
		return wire.ChatLogprobs(top, n)
	}
	return wire.LegacyLogprobs(top)
}
