package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/ngkit/ngkit/pkg/llm/extract"
	"github.com/ngkit/ngkit/pkg/vocab"
)

// completion is the part of a chat-completions reply we use, decoded by
// hand: cheaper than the SDK's generic decoder and tolerant of servers
// that leave fields out.
type completion struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
			// ReasoningContent is the thinking llama-server (with
			// --reasoning-format deepseek, its default), vLLM and DeepSeek's
			// API return beside the answer.
			ReasoningContent string `json:"reasoning_content"`
		} `json:"message"`
		FinishReason string          `json:"finish_reason"`
		Logprobs     *choiceLogprobs `json:"logprobs"`
	} `json:"choices"`
	Usage struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails struct {
			// CachedTokens are prompt tokens served from the provider's
			// prompt cache (OpenAI: a shared prefix of 1024 tokens or more).
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

func decodeCompletion(b []byte) (*completion, error) {
	var c completion
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("malformed reply body: %v", err)
	}
	return &c, nil
}

// failure is why one attempt did not give an accepted reply.
type failure struct {
	kind   string // short, for the usage faults: 429, 5xx, timeout, ...
	reason string // for the error message
	retry  bool   // worth another attempt
	reask  bool   // the reply was invalid: ask again with the reason
	after  time.Duration
	// throttled: a 429, which cuts the concurrency window.
	throttled bool
	// badFormat: the server could not use the request's response format
	// (see formatFailure); auto mode steps down the ladder.
	badFormat bool
	// notJSON: a reply with no JSON at all, which under json_object says
	// that the server does not enforce it.
	notJSON bool
	// unreached: the request never reached the server (the connection
	// was refused, or the dial failed).
	unreached bool
}

// send makes one chat-completions request (body, as c.body encoded it)
// with the per-request timeout.
func (c *Client) send(ctx context.Context, body []byte) (*completion, *failure) {
	raw, f := c.post(ctx, func(actx context.Context, opts ...option.RequestOption) error {
		return c.postRaw(actx, "chat/completions", body, opts...)
	})
	if f != nil {
		return nil, f
	}
	comp, derr := decodeCompletion(raw)
	if derr != nil {
		return nil, &failure{kind: "malformed", reason: derr.Error(), retry: true}
	}
	if len(comp.Choices) == 0 {
		return nil, &failure{kind: "malformed", reason: "reply has no choices", retry: true}
	}
	return comp, nil
}

// post makes one request of the SDK (do, given the options that keep
// the reply's body) with the per-request timeout: the body of the reply,
// or why there is none.
func (c *Client) post(ctx context.Context, do func(context.Context, ...option.RequestOption) error) ([]byte, *failure) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var raw []byte
	var hres *http.Response
	err := do(actx, option.WithResponseBodyInto(&raw), option.WithResponseInto(&hres))
	if err != nil {
		if ctx.Err() != nil {
			return nil, &failure{kind: "cancelled", reason: ctx.Err().Error()}
		}
		if actx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, &failure{kind: "timeout", reason: fmt.Sprintf("no reply within --timeout %s", c.cfg.Timeout), retry: true}
		}
		var apiErr *openai.Error
		status, msg, raw := 0, "", ""
		var header http.Header
		if errors.As(err, &apiErr) {
			status, msg, raw = apiErr.StatusCode, apiErr.Message, apiErr.RawJSON()
			if apiErr.Response != nil {
				header = apiErr.Response.Header
			}
		} else if hres != nil && hres.StatusCode >= 400 {
			status, header = hres.StatusCode, hres.Header // a body that is not an OpenAI error
		}
		if status == 0 {
			f := &failure{kind: "connection", reason: "connection failed: " + c.cfg.APIKey.redact(err.Error()), retry: true}
			if op := (*net.OpError)(nil); errors.As(err, &op) && op.Op == "dial" {
				f.kind, f.unreached = "refused", true
			}
			return nil, f
		}
		f := c.httpFailure(status, msg, header)
		if status == http.StatusBadRequest {
			c.overContext(f, raw)
		}
		return nil, f
	}
	return raw, nil
}

// httpFailure classifies an HTTP error: 429, 408, 409 and 5xx are worth
// retrying (after the server's Retry-After, if any); 400, 401, 403, 404
// and other 4xx are not.
func (c *Client) httpFailure(status int, msg string, h http.Header) *failure {
	reason := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	if msg = strings.TrimSpace(msg); msg != "" {
		reason += ": " + cut(c.cfg.APIKey.redact(msg), 300)
	}
	if status == http.StatusUnauthorized && !c.cfg.APIKey.IsSet() && c.cfg.KeyWithheld != "" {
		reason += " (" + withheldNote(c.cfg.KeyWithheld) + ")"
	}
	f := &failure{kind: strconv.Itoa(status), reason: reason, after: retryAfter(h)}
	switch {
	case formatFailure(status, msg):
		f.kind, f.badFormat = "format", true // the same request fails the same way: no retry
	case status == http.StatusTooManyRequests:
		f.retry, f.throttled = true, true
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500:
		f.retry = true
	}
	if status >= 500 && !f.badFormat {
		f.kind = "5xx"
	}
	return f
}

// overContext explains llama-server's 400 for a prompt longer than a
// slot's context ({"type": "exceed_context_size_error", "n_prompt_tokens":
// N, "n_ctx": M}), and remembers the context for truncated.
func (c *Client) overContext(f *failure, raw string) {
	var e struct {
		Type    string `json:"type"`
		NPrompt int    `json:"n_prompt_tokens"`
		NCtx    int    `json:"n_ctx"`
	}
	if json.Unmarshal([]byte(raw), &e) != nil || e.NCtx <= 0 {
		return
	}
	c.ctxSize.Store(int64(e.NCtx))
	f.kind = "context"
	f.reason = fmt.Sprintf("the prompt (%d tokens) is longer than the server's context of %d tokens (llama-server: each slot gets -c divided by --parallel): %s",
		e.NPrompt, e.NCtx, f.reason)
}

// formatFailure tells the errors that say the server cannot use the
// response format asked for, as real servers answer them: a 400 naming
// response_format or json_schema (no structured outputs); llama.cpp's 400
// "Failed to initialize samplers" (the grammar could not be set up) and
// its 500 "Failed to parse input" (it dropped a grammar it could not
// compile, or could not parse what it generated as the JSON asked for);
// Ollama's 500 "invalid JSON schema in format" (a schema it cannot turn
// into a grammar). None of them is transient: the same request fails again.
func formatFailure(status int, msg string) bool {
	l := strings.ToLower(msg)
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return strings.Contains(l, "response_format") || strings.Contains(l, "json_schema") ||
			strings.Contains(l, "response format") || strings.Contains(l, "failed to initialize samplers") ||
			strings.Contains(l, "grammar")
	case http.StatusInternalServerError:
		return strings.Contains(l, "failed to parse input") || strings.Contains(l, "failed to initialize samplers") ||
			strings.Contains(l, "invalid json schema in format")
	}
	return false
}

// retryAfter reads Retry-After-Ms (OpenAI, Azure) or Retry-After
// (seconds or an HTTP date).
func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(time.Until(t), 0)
		}
	}
	return 0
}

// accept judges a reply: stop reasons, reasoning, emptiness, JSON and the
// schema, then the caller's check.
func accept(content, finish string, sch *schema, check func(*Response) error) (*Response, *failure) {
	switch finish {
	case "length":
		return nil, &failure{kind: "length", reason: "reply cut at the token limit (finish_reason length)", retry: true}
	case "content_filter":
		return nil, &failure{kind: "content_filter", reason: "reply stopped by the content filter (finish_reason content_filter)", retry: true}
	}
	text, leaked := extract.StripReasoning(content)
	if leaked {
		return nil, &failure{kind: "reasoning", reason: "reasoning leaked into the reply (a <think> block not closed, or not at the start): the server should return it apart (llama-server: --reasoning-format deepseek), or raise --max-tokens if the thinking was cut", retry: true}
	}
	if text == "" {
		return nil, &failure{kind: "empty", reason: "empty reply", retry: true}
	}
	resp := &Response{Text: text, FinishReason: finish, raw: content}
	if sch != nil {
		b, err := extract.JSON(text)
		if err != nil {
			if vocab.Refused(text) {
				return nil, &failure{kind: "refusal", reason: fmt.Sprintf("the model refused instead of answering (%q): write the content asked for", cut(text, 120)), reask: true, retry: true, notJSON: true}
			}
			return nil, &failure{kind: "invalid", reason: err.Error(), reask: true, retry: true, notJSON: true}
		}
		if err = sch.validate(b); err != nil {
			// Asked again with the reason (--max-reasks), then tried
			// afresh (--max-retries), as the checks below.
			return nil, &failure{kind: "invalid", reason: err.Error(), reask: true, retry: true}
		}
		resp.JSON = b
	}
	if check != nil {
		if err := check(resp); err != nil {
			// Asked again with the reason first (--max-reasks), then
			// tried afresh (--max-retries): a model often fixes what it is
			// told, and a fresh sample escapes one that it cannot.
			return nil, &failure{kind: "check", reason: "reply failed the check: " + err.Error(), reask: true, retry: true}
		}
	}
	return resp, nil
}

// unanswered is the failure of a reply whose content is empty although
// the model said something elsewhere: its thinking only, in
// reasoning_content (it spent the reply on it), or a refusal in the
// refusal field (OpenAI). nil otherwise: accept judges the content.
func unanswered(content, reasoning, refusal, finish string) *failure {
	if strings.TrimSpace(content) != "" {
		return nil
	}
	if r := strings.TrimSpace(refusal); r != "" {
		return &failure{kind: "refusal", reason: fmt.Sprintf("the model refused instead of answering (%q)", cut(r, 120)), retry: true}
	}
	if strings.TrimSpace(reasoning) == "" {
		return nil
	}
	why := "the model ended its reply"
	if finish == "length" {
		why = "the token limit (finish_reason length) ended the reply"
	}
	return &failure{kind: "reasoning", retry: true, reason: fmt.Sprintf(
		"empty reply: %s while it was still thinking (%d characters in reasoning_content, no answer): raise --max-tokens, or turn the model's thinking off",
		why, len(reasoning))}
}
