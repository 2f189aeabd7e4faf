package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// The APIs an endpoint is called through (api in a models file, ngpact's
// --api): chat completions (POST /v1/chat/completions, the default), or
// text completions (POST /v1/completions) for a base model, one with no
// chat template: the request is its Prompt, plain text that the model
// continues, and the logprobs of the continuation's first token are read
// as they are in chat (OpenAI's legacy logprobs: N, or llama-server's
// chat-shaped ones).
const (
	APIChat        = "chat"
	APICompletions = "completions"
)

// CheckAPI is the error for an api value that is neither.
func CheckAPI(s string) error {
	if s != "" && s != APIChat && s != APICompletions {
		return fmt.Errorf("api %q: want chat or completions (a base model, through /v1/completions)", s)
	}
	return nil
}

// checkAPI is New's check of the configuration's API: text completions
// are called live, one by one (the Batch files are chat requests).
func (cfg Config) checkAPI() error {
	if err := CheckAPI(cfg.API); err != nil {
		return err
	}
	if cfg.API == APICompletions && (cfg.Batch || cfg.EmitRequests != "" || cfg.Responses != "") {
		return fmt.Errorf("model %s uses api completions (a base model): not with --batch, --emit-requests or --responses, whose files hold chat requests", cfg.Model)
	}
	return nil
}

// textAPI reports whether the client calls the text-completions API.
func (c *Client) textAPI() bool { return c.cfg.API == APICompletions }

// asText makes a request for the text-completions API: its Prompt as the
// one "prompt" message the rest of the client sees (the cache key, the
// token estimate; a re-ask, which needs a conversation, is never made),
// and samp marked so that a continuation cut at max_tokens is a reply.
// A request without a Prompt, or with a reply schema, is an error: only
// stages that write plain-text prompts (ngpact) can call a base model.
func (c *Client) asText(req *Request, sch *schema, samp *Sampling) error {
	if !c.textAPI() {
		return nil
	}
	switch {
	case sch != nil:
		return fmt.Errorf("call %s: model %s uses api completions (a base model), which cannot give replies of a JSON schema (%s)", req.Call, c.cfg.Model, sch.name)
	case req.Prompt == "":
		return fmt.Errorf("call %s: model %s uses api completions (a base model), and the call has no plain-text prompt", req.Call, c.cfg.Model)
	}
	req.Messages = []Message{{Role: "prompt", Content: req.Prompt}}
	samp.text = true
	return nil
}

// sendAny sends one attempt through the endpoint's API: msgs are what
// withFormat made of the request (for text completions, the prompt).
func (c *Client) sendAny(ctx context.Context, msgs []Message, sch *schema, s Sampling, mode int) (*completion, *failure) {
	if !c.textAPI() {
		body, err := c.body(msgs, sch, s, mode)
		if err != nil {
			return nil, &failure{kind: "request", reason: err.Error()}
		}
		return c.send(ctx, body)
	}
	return c.sendText(ctx, msgs[0].Content, s)
}

// sendText makes one text-completions request with the per-request
// timeout. The reply is returned as a chat completion's (its text as the
// message content, its first token's alternatives as logprobs), so that
// the rest of the client judges both alike.
func (c *Client) sendText(ctx context.Context, prompt string, s Sampling) (*completion, *failure) {
	p := openai.CompletionNewParams{Model: openai.CompletionNewParamsModel(c.cfg.Model),
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)}}
	if s.Temperature != nil {
		p.Temperature = openai.Float(*s.Temperature)
	}
	if s.TopP != nil {
		p.TopP = openai.Float(*s.TopP)
	}
	if s.Seed != nil {
		p.Seed = openai.Int(*s.Seed)
	}
	if s.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(s.MaxTokens))
	}
	if s.TopLogprobs > 0 {
		p.Logprobs = openai.Int(int64(s.TopLogprobs)) // the legacy form: a count
	}
	svc := openai.NewCompletionService(c.opts...)
	raw, f := c.post(ctx, func(actx context.Context, opts ...option.RequestOption) error {
		_, err := svc.New(actx, p, opts...)
		return err
	})
	if f != nil {
		return nil, f
	}
	comp, err := decodeText(raw)
	if err != nil {
		return nil, &failure{kind: "malformed", reason: err.Error(), retry: true}
	}
	return comp, nil
}

// textReply is the part of a text-completions reply that differs from a
// chat completion's: the text, and logprobs in OpenAI's legacy form
// (tokens, token_logprobs, top_logprobs: one map of token to logprob per
// token; OpenAI, vLLM) or in the chat form (content: llama-server).
type textReply struct {
	Choices []struct {
		Text     string `json:"text"`
		Logprobs *struct {
			Tokens        []string             `json:"tokens"`
			TokenLogprobs []float64            `json:"token_logprobs"`
			TopLogprobs   []map[string]float64 `json:"top_logprobs"`
		} `json:"logprobs"`
	} `json:"choices"`
}

// decodeText reads a text-completions reply as a chat completion.
func decodeText(b []byte) (*completion, error) {
	comp, err := decodeCompletion(b) // model, usage, finish_reason, logprobs.content
	if err != nil {
		return nil, err
	}
	var t textReply
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("malformed reply body: %v", err)
	}
	if len(t.Choices) == 0 || len(comp.Choices) == 0 {
		return nil, errors.New("reply has no choices")
	}
	ch := &comp.Choices[0]
	ch.Message.Content = t.Choices[0].Text
	if l := t.Choices[0].Logprobs; l != nil && ch.Logprobs.first() == nil && len(l.Tokens) > 0 {
		first := tokenLogprobs{Token: l.Tokens[0]}
		if len(l.TokenLogprobs) > 0 {
			first.Logprob = l.TokenLogprobs[0]
		}
		if len(l.TopLogprobs) > 0 {
			for tok, lp := range l.TopLogprobs[0] {
				first.TopLogprobs = append(first.TopLogprobs, TokenLogprob{Token: tok, Logprob: lp})
			}
			// A map has no order: most likely first, as the chat form is.
			slices.SortFunc(first.TopLogprobs, func(a, b TokenLogprob) int {
				if a.Logprob != b.Logprob {
					if a.Logprob > b.Logprob {
						return -1
					}
					return 1
				}
				return strings.Compare(a.Token, b.Token)
			})
		}
		ch.Logprobs = &choiceLogprobs{Content: []tokenLogprobs{first}}
	}
	return comp, nil
}
