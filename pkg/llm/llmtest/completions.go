package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Text completions: POST /v1/completions takes {model, prompt (a string,
// or a list of one), max_tokens, temperature, top_p, seed, logprobs: N}
// and is answered as a chat request whose one user message is the prompt
// (ChatRequest.Text), in OpenAI's text_completion form: choices[0].text,
// and, when logprobs N > 0 was asked, the legacy logprobs {tokens,
// token_logprobs, top_logprobs: [{token: logprob}], text_offset} (OpenAI,
// vLLM), or with Options.ChatLogprobsInText the chat form
// {content: [...]} that llama-server sends. Options.NoLogprobs and
// Options.Ollama send none, as Ollama v0.24's /v1/completions does (it
// takes logprobs: N and ignores it).

// textRequest is a /v1/completions request as received.
type textRequest struct {
	Model       string          `json:"model"`
	Prompt      json.RawMessage `json:"prompt"`
	MaxTokens   *int            `json:"max_tokens"`
	Temperature *float64        `json:"temperature"`
	TopP        *float64        `json:"top_p"`
	Seed        *int64          `json:"seed"`
	Logprobs    *int            `json:"logprobs"`
}

// decodeText reads a /v1/completions request into req.
func decodeText(body []byte, req *ChatRequest) error {
	var t textRequest
	if err := json.Unmarshal(body, &t); err != nil {
		return err
	}
	var prompt string
	if err := json.Unmarshal(t.Prompt, &prompt); err != nil {
		var list []string
		if err := json.Unmarshal(t.Prompt, &list); err != nil || len(list) != 1 {
			return fmt.Errorf("prompt: want a string or a list of one string")
		}
		prompt = list[0]
	}
	p, _ := json.Marshal(prompt)
	*req = ChatRequest{Model: t.Model, Messages: []Message{{Role: "user", Content: p}}, Text: true,
		MaxTokens: t.MaxTokens, Temperature: t.Temperature, TopP: t.TopP, Seed: t.Seed}
	if t.Logprobs != nil && *t.Logprobs > 0 {
		yes := true
		req.Logprobs, req.TopLogprobs = &yes, t.Logprobs
	}
	return nil
}

// textLogprobs is the "logprobs" value of a text completion.
func (s *Server) textLogprobs(req *ChatRequest, content string) string {
	if s.opt.NoLogprobs || s.opt.Ollama || req.Logprobs == nil {
		return "null"
	}
	top, n := s.top(req, content)
	if s.opt.ChatLogprobsInText {
		return chatLogprobs(top, n)
	}
	m := map[string]float64{}
	for _, t := range top {
		m[t.Token] = t.Logprob
	}
	b, _ := json.Marshal(map[string]any{"tokens": []string{top[0].Token}, "token_logprobs": []float64{top[0].Logprob},
		"top_logprobs": []map[string]float64{m}, "text_offset": []int{0}})
	return string(b)
}

func writeText(w http.ResponseWriter, model, content, finish string, promptTokens int, logprobs string) {
	completionID.Lock()
	completionID.n++
	id := completionID.n
	completionID.Unlock()
	text, _ := json.Marshal(content)
	w.Header().Set("Content-Type", "application/json")
	out := max(len(content)/4, 1)
	fmt.Fprintf(w, `{"id":"cmpl-fake-%d","object":"text_completion","created":%d,"model":%q,"choices":[{"index":0,"text":%s,"logprobs":%s,"finish_reason":%q}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		id, time.Now().Unix(), model, strings.TrimSpace(string(text)), logprobs, finish, max(promptTokens, 1), out, max(promptTokens, 1)+out)
}
