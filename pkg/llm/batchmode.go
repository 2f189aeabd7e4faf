package llm

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// batchCalls is a client's side of --batch (Config.Batch): the stage runs
// pass after pass over the records still waiting (cmd/internal/app); in
// each pass a call is answered from the replies the Batch API gave so far
// or, when it has none, written to the pass's requests and deferred
// (ErrDeferred). The client's own retry and re-ask loop decides the next
// attempt from a reply, as online: attempt n of a call has custom_id
// ID/Call, then ID/Call#2, #3, ..., so a retry or a re-ask is one more
// request of the next round and the same replies always lead the same
// way. Replies are keyed by custom_id and a hash of the request body, so
// a reply is never used for a request other than the one it answers.
type batchCalls struct {
	mu      sync.Mutex
	answers map[string]*batchAnswer // by key(custom_id, body)
	emitted []PendingRequest        // this pass's new requests, in order
	seen    map[string]bool
	// probing: a pass that only finds the calls still to make; replies are
	// not cached, so that the final pass sees what an online run would.
	probing bool
}

// PendingRequest is one request line of a Batch input file.
type PendingRequest struct {
	CustomID string
	Body     []byte
	Key      string
	order    int // the record's place in the input (WithBatchOrder)
	seq      int // the request's place in the pass
}

type batchOrderKey struct{}

// WithBatchOrder tells the client the place in the input of the record a
// call is made for: a round's requests are written in input order,
// whatever order the workers made them in.
func WithBatchOrder(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, batchOrderKey{}, n)
}

// batchAnswer is one line of a Batch output or error file.
type batchAnswer struct {
	status int    // response.status_code (0: no response)
	body   []byte // response.body
	code   string // error.code of a request the batch did not run (batch_expired)
	msg    string
}

// BatchKey names a request: its custom_id and a hash of its body.
func BatchKey(customID string, body []byte) string {
	h := sha256.Sum256(body)
	return customID + "\x00" + hex.EncodeToString(h[:12])
}

func newBatchCalls() *batchCalls {
	return &batchCalls{answers: map[string]*batchAnswer{}, seen: map[string]bool{}}
}

// attemptID is the custom_id of attempt n (from 0) of a call.
func attemptID(req *Request, n int) string {
	if n == 0 {
		return req.CustomID()
	}
	return req.CustomID() + "#" + strconv.Itoa(n+1)
}

// batchSend is send for --batch: the reply to attempt n, or deferred when
// the Batch API has not answered it yet (the request is then queued for
// the next round).
func (c *Client) batchSend(ctx context.Context, req *Request, n int, body []byte) (*completion, *failure, bool) {
	id := attemptID(req, n)
	key := BatchKey(id, body)
	b := c.bat
	b.mu.Lock()
	a, ok := b.answers[key]
	if !ok {
		if !b.seen[key] {
			b.seen[key] = true
			order, _ := ctx.Value(batchOrderKey{}).(int)
			b.emitted = append(b.emitted, PendingRequest{CustomID: id, Body: body, Key: key, order: order, seq: len(b.emitted)})
		}
		b.mu.Unlock()
		return nil, nil, true
	}
	b.mu.Unlock()
	switch {
	case a.code != "":
		return nil, &failure{kind: a.code, reason: fmt.Sprintf("the Batch API did not run the request (%s: %s)", a.code, a.msg), retry: true}, false
	case a.status != 200:
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		json.Unmarshal(a.body, &e)
		f := c.httpFailure(a.status, e.Error.Message, nil)
		f.reason = "in the Batch output: " + f.reason
		return nil, f, false
	}
	comp, err := decodeCompletion(a.body)
	if err != nil {
		return nil, &failure{kind: "malformed", reason: "in the Batch output: " + err.Error(), retry: true}, false
	}
	if len(comp.Choices) == 0 {
		return nil, &failure{kind: "empty", reason: "in the Batch output: a reply with no choices", retry: true}, false
	}
	return comp, nil, false
}

// BeginPass starts a pass of --batch: the requests of the last pass are
// forgotten (they were submitted, or are waiting in a batch).
func (c *Client) BeginPass(probing bool) {
	b := c.bat
	b.mu.Lock()
	b.emitted, b.seen, b.probing = nil, map[string]bool{}, probing
	b.mu.Unlock()
	c.tally.Reset()
	c.deferred.Store(0)
}

// TakeEmitted returns the pass's new requests, in the order made.
func (c *Client) TakeEmitted() []PendingRequest {
	b := c.bat
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.emitted
	b.emitted = nil
	slices.SortFunc(out, func(x, y PendingRequest) int { return cmp.Or(cmp.Compare(x.order, y.order), cmp.Compare(x.seq, y.seq)) })
	return out
}

// AddAnswers reads a Batch output or error file: keys maps each custom_id
// of the batch to its request's key.
func (c *Client) AddAnswers(data []byte, keys map[string]string) (int, error) {
	n := 0
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r BatchResponse
		if err := json.Unmarshal(line, &r); err != nil {
			return n, fmt.Errorf("line %d: %v", i+1, err)
		}
		key, ok := keys[r.CustomID]
		if !ok {
			continue // not ours (a file shared with other tools)
		}
		a := &batchAnswer{}
		switch {
		case r.Response != nil && len(r.Response.Body) > 0:
			a.status, a.body = r.Response.StatusCode, r.Response.Body
			if a.status == 0 {
				a.status = 200
			}
			if comp, err := decodeCompletion(a.body); err == nil {
				u := comp.Usage
				c.batchSpent += c.costOf(u.PromptTokens, int64(u.PromptTokensDetails.CachedTokens), u.CompletionTokens)
			}
		case r.Error != nil:
			a.code, a.msg = r.Error.Code, r.Error.Message
			if a.code == "" {
				a.code = "batch_error"
			}
		default:
			a.code, a.msg = "batch_error", "a line with neither a response nor an error"
		}
		c.bat.mu.Lock()
		c.bat.answers[key] = a
		c.bat.mu.Unlock()
		n++
	}
	return n, nil
}

// probingPass says whether replies are to be kept out of the cache.
func (c *Client) probingPass() bool {
	if c.bat == nil {
		return false
	}
	c.bat.mu.Lock()
	defer c.bat.mu.Unlock()
	return c.bat.probing
}

// InBatchMode says whether the client was made with Config.Batch.
func (c *Client) InBatchMode() bool { return c.bat != nil }

// BatchSpent is the cost of the Batch replies given to the client so far,
// at the batch price (0 for an unpriced model).
func (c *Client) BatchSpent() float64 { return c.batchSpent }

// EndUnanswered gives the requests of keys (custom_id -> request key)
// that a batch which ended with status left without a reply an error
// reply, so that each is retried as a new attempt instead of waited for.
func (c *Client) EndUnanswered(keys map[string]string, status string) {
	c.bat.mu.Lock()
	for _, k := range keys {
		if _, ok := c.bat.answers[k]; !ok {
			c.bat.answers[k] = &batchAnswer{code: "batch_" + status, msg: "the batch ended " + status + " before running it"}
		}
	}
	c.bat.mu.Unlock()
}

// BatchServices are the endpoint's files and batches APIs, with a few retries
// of their own (these calls are few, and cheap to repeat).
func (c *Client) BatchServices() (openai.FileService, openai.BatchService) {
	opts := append(append([]option.RequestOption(nil), c.opts...), option.WithMaxRetries(4))
	return openai.NewFileService(opts...), openai.NewBatchService(opts...)
}

// APIError is a Batch API error in one line, the key redacted.
func (c *Client) APIError(err error) string {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return c.httpFailure(apiErr.StatusCode, apiErr.Message, nil).reason
	}
	return c.cfg.APIKey.redact(err.Error())
}
