// Package llm is the LLM runtime every generating and labelling program
// shares (DEVELOPING.md, "The LLM runtime and model roles"): one client
// for any OpenAI-compatible chat or completions endpoint, built on
// github.com/openai/openai-go/v3, with adaptive concurrency and rpm/tpm
// limits (pkg/llm/throttle), retries and re-asks, validated structured
// output (the reply read by pkg/llm/extract), a shared on-disk cache, and
// usage and cost accounting (pkg/llm/usage); its side of OpenAI Batch
// files and the Batch API (emit the requests, replay the replies; the
// rounds are pkg/llm/batch's). The models file and the programs' model
// roles are pkg/llm/roles'.
//
// A stage calls Client.Call (or a role's Caller) from Process; the shared
// runner (pkg/pipeline) gives the concurrency: the program runs
// --concurrency workers, each blocked in a call while the client keeps the
// server's limits. cmd/internal/app wires the shared flags, the runner and
// the clients.
package llm

import (
	"encoding/json"
	"errors"

	"github.com/ngkit/ngkit/pkg/record"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// System, User and Assistant make messages.
func System(s string) Message    { return Message{Role: "system", Content: s} }
func User(s string) Message      { return Message{Role: "user", Content: s} }
func Assistant(s string) Message { return Message{Role: "assistant", Content: s} }

// Sampling holds the sampling parameters; nil and 0 mean "the server's
// default" (nothing is sent).
type Sampling struct {
	Temperature *float64
	TopP        *float64
	MaxTokens   int
	Seed        *int64
	// TopLogprobs, when above 0, asks for the log-probabilities of that
	// many most likely first tokens (logprobs, top_logprobs): a probe that
	// reads the first token's distribution (ngpact --method logprobs), so
	// a reply cut at max_tokens or empty is accepted (see Response.TopLogprobs).
	TopLogprobs int

	// text: the call goes to the text-completions API (completions.go).
	text bool
}

// deterministic: at temperature 0 the same request gets the same reply.
func (s Sampling) deterministic() bool { return s.Temperature != nil && *s.Temperature == 0 }

// over returns s with the fields set in o replaced.
func (s Sampling) over(o *Sampling) Sampling {
	if o == nil {
		return s
	}
	if o.Temperature != nil {
		s.Temperature = o.Temperature
	}
	if o.TopP != nil {
		s.TopP = o.TopP
	}
	if o.MaxTokens > 0 {
		s.MaxTokens = o.MaxTokens
	}
	if o.Seed != nil {
		s.Seed = o.Seed
	}
	if o.TopLogprobs > 0 {
		s.TopLogprobs = o.TopLogprobs
	}
	return s
}

// Request is one logical call: what to ask, and how to judge the reply.
type Request struct {
	// ID is the id of the record the call is for, and Call the name of the
	// call within the stage ("situation", "dialogue", "label"): together
	// they name it in Batch files (custom_id = ID + "/" + Call), in the
	// record's gen and in the usage summary.
	ID   string
	Call string
	// Role is the program's model role the call is made for (writer,
	// judge, labeller, ...), in gen and the usage summary; the caller a
	// role hands out (Models.Caller) sets it.
	Role string
	// Messages are sent as they are.
	Messages []Message
	// Prompt is the request as plain text, for an endpoint of a base
	// model (api: completions, completions.go): sent as the prompt of POST
	// /v1/completions in place of Messages, and written so that the reply
	// continues it. A chat endpoint ignores it.
	Prompt string
	// Schema names a reply schema, schemas/llm/<Schema>.schema.json: the
	// reply must be JSON valid against it (sent as response_format
	// json_schema where the server supports it, asked for in the prompt
	// otherwise; an invalid reply is re-asked with the error). Empty: a
	// free-text reply.
	Schema string
	// ReplySchema, when set, is the reply schema in place of Schema's file:
	// one made for this request from a file (DeriveSchema), used the same
	// way. Schema is then empty or the same name.
	ReplySchema *Schema
	// Sampling overrides the flags' sampling parameters where set.
	Sampling *Sampling
	// PromptPack is the version of the prompts used, kept in gen.
	PromptPack string
	// Check, when set, judges an otherwise valid reply (its language, for
	// example): an error makes the reply a failure that is asked again
	// with the error as the reason, within --max-reasks, then retried
	// afresh like an empty one, within --max-retries. What it read from an
	// accepted reply (a decoded dialogue, say) it returns, and the
	// Response keeps it as Checked.
	Check func(*Response) (any, error)
}

// RunCheck runs the request's Check on a reply and keeps its value in
// resp.Checked; nil when there is no Check. The client calls it on every
// reply it accepts (the cache's and --responses' too); a fake caller in a
// test calls it the same way.
func (r *Request) RunCheck(resp *Response) error {
	if r.Check == nil {
		return nil
	}
	v, err := r.Check(resp)
	if err != nil {
		return err
	}
	resp.Checked = v
	return nil
}

// CustomID names a call in Batch files.
func (r *Request) CustomID() string { return r.ID + "/" + r.Call }

// Response is an accepted reply.
type Response struct {
	// Text is the reply, with a leading reasoning block removed.
	Text string
	// JSON is the JSON value extracted from Text and validated, when the
	// request named a schema.
	JSON         json.RawMessage
	FinishReason string
	// Gen is the provenance of the call, for the record's gen list.
	Gen record.Gen
	// Checked is what the request's Check returned for this reply.
	Checked any
	// TopLogprobs are the first token's most likely alternatives, when the
	// request asked for them (Sampling.TopLogprobs) and the server sent
	// them; nil when it sent none.
	TopLogprobs []TokenLogprob

	raw string // the content as sent, for the cache
}

// Decode unmarshals the reply's JSON into v.
func (r *Response) Decode(v any) error {
	if r.JSON == nil {
		return errors.New("the reply has no JSON (the call named no schema)")
	}
	return json.Unmarshal(r.JSON, v)
}

// ErrDeferred is returned by Call when the request was written to the
// --emit-requests file instead of being sent: the record is finished when
// the replies come back (--responses). An LLM program (cmd/internal/app)
// drops such records from the output without failing them.
var ErrDeferred = errors.New("llm: request written to the --emit-requests file, not answered yet")

// ErrBadReply marks a call that failed for good on what the model
// answered (a reply that is invalid, cut, empty or fails the request's
// Check), as opposed to the server or the network failing (refused or
// dropped connections, 5xx, timeouts, the deadline): a stage may keep a
// bad answer as a result, but never a server failure (--resume retries
// the record).
var ErrBadReply = errors.New("llm: the model's replies were not usable")

// badReply is a final error that is ErrBadReply.
type badReply struct{ msg string }

func (e badReply) Error() string        { return e.msg }
func (e badReply) Is(target error) bool { return target == ErrBadReply }
