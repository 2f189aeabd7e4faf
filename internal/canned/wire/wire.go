// Package wire is the server side of the OpenAI-compatible API as the
// canned models speak it: the chat and text completion requests as
// received (ChatRequest), the completion, logprobs and error bodies sent
// back, and Handler, an endpoint that answers every request from a reply
// function. The built-in demo model (cmd/internal/demo) is served by
// Handler; the test server (pkg/llm/llmtest), which adds faults, scripts
// and a record of requests, writes its bodies with the same functions.
package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Message is a chat message as received.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Text is the content as a string (text parts joined).
func (m Message) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// ChatRequest is a chat-completions request as received.
type ChatRequest struct {
	Model          string    `json:"model"`
	Messages       []Message `json:"messages"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
	TopP                *float64 `json:"top_p"`
	Seed                *int64   `json:"seed"`
	Logprobs            *bool    `json:"logprobs"`
	TopLogprobs         *int     `json:"top_logprobs"`
	// Text: the request came to /v1/completions (DecodeText): its
	// prompt is the one user message, and the reply is a text completion.
	Text bool `json:"-"`
}

// LastUser is the content of the last user message.
func (r *ChatRequest) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// Schema is the JSON Schema the request asks the reply to match: the
// response_format's, or one given in the system prompt after "JSON
// Schema:"; nil when none.
func (r *ChatRequest) Schema() json.RawMessage {
	if rf := r.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		return rf.JSONSchema.Schema
	}
	for _, m := range r.Messages {
		t := m.Text()
		if i := strings.Index(t, "JSON Schema:"); i >= 0 {
			s := strings.TrimSpace(t[i+len("JSON Schema:"):])
			if json.Valid([]byte(s)) {
				return json.RawMessage(s)
			}
		}
	}
	return nil
}

// SchemaName is the name of the reply schema the request asks for: the
// response_format's, or the title of the schema given in the prompt. The
// canned models of every stage answer by it.
func (r *ChatRequest) SchemaName() string {
	if rf := r.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Name != "" {
		return rf.JSONSchema.Name
	}
	var s struct{ Title string }
	json.Unmarshal(r.Schema(), &s)
	return s.Title
}

// Text completions: POST /v1/completions takes {model, prompt (a string,
// or a list of one), max_tokens, temperature, top_p, seed, logprobs: N}
// and is answered as a chat request whose one user message is the prompt
// (ChatRequest.Text), in OpenAI's text_completion form: choices[0].text,
// and, when logprobs N > 0 was asked, the legacy logprobs {tokens,
// token_logprobs, top_logprobs: [{token: logprob}], text_offset} (OpenAI,
// vLLM), or the chat form {content: [...]} that llama-server sends.

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

// DecodeText reads a /v1/completions request into req.
func DecodeText(body []byte, req *ChatRequest) error {
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

// Logprobs: a request that asks for them (logprobs: true, top_logprobs N)
// gets, as OpenAI and llama-server send them, choices[0].logprobs.content
// with the first token of the reply and its top_logprobs, at most N of
// them (at least 1). A model with a known distribution gives that first
// token's alternatives, most likely first (Alternatives); by default the
// reply's first token alone has probability 1.

// TopLogprob is one alternative of the first token.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// Alternatives gives the first token's alternatives of a reply, most
// likely first (nil: the default).
type Alternatives func(req *ChatRequest, content string) []TopLogprob

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

// Top is the first token's alternatives the request gets, most likely
// first, and how many it asked for.
func Top(alts Alternatives, req *ChatRequest, content string) ([]TopLogprob, int) {
	var top []TopLogprob
	if alts != nil {
		top = alts(req, content)
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

// ChatLogprobs is the logprobs object of a chat completion: content with
// the first token and (when n > 0) its alternatives.
func ChatLogprobs(top []TopLogprob, n int) string {
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

// LegacyLogprobs is the logprobs object of a text completion in
// OpenAI's legacy form (tokens, token_logprobs, top_logprobs, text_offset).
func LegacyLogprobs(top []TopLogprob) string {
	m := map[string]float64{}
	for _, t := range top {
		m[t.Token] = t.Logprob
	}
	b, _ := json.Marshal(map[string]any{"tokens": []string{top[0].Token}, "token_logprobs": []float64{top[0].Logprob},
		"top_logprobs": []map[string]float64{m}, "text_offset": []int{0}})
	return string(b)
}

var completionID struct {
	sync.Mutex
	n int
}

func nextID() int {
	completionID.Lock()
	defer completionID.Unlock()
	completionID.n++
	return completionID.n
}

// WriteCompletion writes a chat completion; logprobs is the choice's
// "logprobs" member with its trailing comma, or "". Tokens are 4 bytes.
func WriteCompletion(w http.ResponseWriter, model, content, finish string, promptTokens, cachedTokens int, logprobs string) {
	id := nextID()
	var c bytes.Buffer
	enc := json.NewEncoder(&c)
	enc.SetEscapeHTML(false) // as servers send it: <think> stays <think>
	enc.Encode(content)
	details := ""
	if cachedTokens > 0 {
		details = fmt.Sprintf(`,"prompt_tokens_details":{"cached_tokens":%d}`, cachedTokens)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-fake-%d","object":"chat.completion","created":%d,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},%s"finish_reason":%q}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d%s}}`,
		id, time.Now().Unix(), model, bytes.TrimSpace(c.Bytes()), logprobs, finish, max(promptTokens, 1), max(len(content)/4, 1), max(promptTokens, 1)+max(len(content)/4, 1), details)
}

// WriteText writes a text completion; logprobs is its "logprobs" value.
func WriteText(w http.ResponseWriter, model, content, finish string, promptTokens int, logprobs string) {
	id := nextID()
	text, _ := json.Marshal(content)
	w.Header().Set("Content-Type", "application/json")
	out := max(len(content)/4, 1)
	fmt.Fprintf(w, `{"id":"cmpl-fake-%d","object":"text_completion","created":%d,"model":%q,"choices":[{"index":0,"text":%s,"logprobs":%s,"finish_reason":%q}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		id, time.Now().Unix(), model, strings.TrimSpace(string(text)), logprobs, finish, max(promptTokens, 1), out, max(promptTokens, 1)+out)
}

// WriteError writes an error body of the status, with the headers h.
func WriteError(w http.ResponseWriter, status int, msg string, h http.Header) {
	for k, v := range h {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "fake_error", "code": strconv.Itoa(status)}})
	w.Write(b)
}
