package llm

import (
	"bytes"
	"encoding/json"
	"sync"
)

// chatBody is a chat-completions request as the SDK's
// ChatCompletionNewParams encodes the fields we set, in its key order
// (TestBodyIsTheSDKs). Encoding it with encoding/json costs a fraction
// of the SDK's reflective encoder (param.MarshalWithExtras), which was
// about a third of the client's allocations: at --concurrency 256 the
// garbage collector took half of the CPU.
type chatBody struct {
	Messages            []chatMessage   `json:"messages"`
	Model               string          `json:"model,omitempty"`
	Logprobs            bool            `json:"logprobs,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	Seed                *int64          `json:"seed,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopLogprobs         int             `json:"top_logprobs,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
}

type chatMessage struct {
	Content string `json:"content"`
	Role    string `json:"role"`
}

type responseFormat struct {
	JSONSchema *jsonSchemaFormat `json:"json_schema,omitempty"`
	Type       string            `json:"type"`
}

type jsonSchemaFormat struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

var bodyBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// body builds and encodes the chat-completions request: msgs are what
// withFormat made of the call's messages.
func (c *Client) body(msgs []Message, sch *schema, s Sampling, mode int) ([]byte, error) {
	p := chatBody{Model: c.cfg.Model, Messages: make([]chatMessage, len(msgs)),
		Temperature: s.Temperature, TopP: s.TopP, Seed: s.Seed}
	for i, m := range msgs {
		role := m.Role
		if role != "system" && role != "assistant" {
			role = "user"
		}
		p.Messages[i] = chatMessage{Content: m.Content, Role: role}
	}
	if s.TopLogprobs > 0 {
		p.Logprobs, p.TopLogprobs = true, s.TopLogprobs
	}
	if s.MaxTokens > 0 {
		if c.maxCompletion {
			p.MaxCompletionTokens = s.MaxTokens
		} else {
			p.MaxTokens = s.MaxTokens
		}
	}
	if sch != nil {
		switch mode {
		case formatJSONSchema:
			p.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchemaFormat{Name: sch.name, Schema: sch.doc}}
		case formatJSONObject:
			p.ResponseFormat = &responseFormat{Type: "json_object"}
		}
	}
	buf := bodyBufs.Get().(*bytes.Buffer)
	defer bodyBufs.Put(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false) // as the SDK: dialogue text keeps its < > &
	if err := enc.Encode(&p); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}
