package llm

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/ngkit/ngkit/pkg/llm/usage"
	"github.com/ngkit/ngkit/pkg/record"
)

// live calls the model until a reply is accepted or the retries are spent.
func (c *Client) live(ctx context.Context, req Request, sch *schema, samp Sampling, st *usage.CallStats, gen *record.Gen) (*Response, error) {
	a := &liveCall{c: c, req: req, sch: sch, samp: samp, st: st, gen: gen, parent: ctx, msgs: req.Messages}
	if !c.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, c.deadline)
		defer cancel()
	}
	defer func() { st.Retries, st.Reasks = int64(a.retries), int64(a.reasks) }() // failed calls too
	for {
		mode := c.mode()
		send := c.withFormat(a.msgs, sch, mode)
		estPrompt := estimatePrompt(send)
		est := estPrompt + replyEstimate(samp.MaxTokens) // for the tpm bucket
		comp, f, err := a.send(ctx, send, mode, &est)
		if err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, a.stopped()
		}
		if comp != nil {
			resp, f2, reask := a.check(ctx, comp, mode, est, estPrompt)
			if f2 == nil {
				return resp, nil
			}
			if f = f2; reask {
				continue
			}
		} else {
			c.tpm.Adjust(-est) // not served: nothing was spent
		}
		if err := a.again(ctx, comp != nil, f, mode); err != nil {
			return nil, err
		}
	}
}

// liveCall is one call of live across its attempts.
type liveCall struct {
	c      *Client
	req    Request
	sch    *schema
	samp   Sampling
	st     *usage.CallStats
	gen    *record.Gen
	parent context.Context // the caller's, without the run's deadline
	msgs   []Message       // the request, or the re-ask conversation

	retries, reasks, waits int
	// freshAnswered: the fresh request (no re-ask in it) got a reply of
	// the model's, under response format freshMode.
	freshAnswered bool
	freshMode     int
	freshIn       int // prompt tokens of the fresh request
	lastIn        int // and of the last one
}

// stopped is the error of a call the interrupt or the run's deadline
// stopped.
func (a *liveCall) stopped() error {
	if a.parent.Err() != nil {
		return fmt.Errorf("not answered: %w", context.Cause(a.parent))
	}
	return fmt.Errorf("not answered: the run's --deadline (%s) passed", a.c.cfg.Deadline)
}

// send sends one attempt: to the Batch API, or within the window and
// the rate buckets (est is the tpm bucket's estimate: none for the Batch
// API). An error ends the call.
func (a *liveCall) send(ctx context.Context, send []Message, mode int, est *float64) (*completion, *failure, error) {
	c, st := a.c, a.st
	var comp *completion
	var f *failure
	var sent int64 // when the request went out (UnixNano)
	if c.bat != nil {
		var deferred bool
		body, err := c.body(send, a.sch, a.samp, mode)
		if err != nil {
			f = &failure{kind: "request", reason: err.Error()}
		} else if comp, f, deferred = c.batchSend(ctx, &a.req, int(st.Attempts), body); deferred {
			return nil, nil, ErrDeferred
		}
		*est = 0 // no tpm bucket for the Batch API
	} else {
		slot, err := c.win.Acquire(ctx)
		if err != nil {
			return nil, nil, a.stopped()
		}
		// The rate buckets after the slot: their tokens are spent when the
		// request really goes out, not while it waits for the window.
		if err = c.rpm.Take(ctx, 1); err == nil {
			err = c.tpm.Take(ctx, *est)
		}
		if err != nil {
			c.win.Release(slot, false, false)
			return nil, nil, a.stopped()
		}
		sent = time.Now().UnixNano()
		comp, f = c.sendAny(ctx, send, a.sch, a.samp, mode)
		// Local servers queue what their slots cannot take instead of
		// answering 429: a timeout, or a reply that took more than half
		// the timeout, says the window is too wide as a 429 does.
		slow := f == nil && time.Since(slot) > c.cfg.Timeout/2
		c.win.Release(slot, slow || f != nil && (f.throttled || f.kind == "timeout"), f == nil)
	}
	st.Attempts++
	if f == nil || !f.unreached {
		st.Requests++
		// The server is up if it answered: not a connection it dropped
		// (a server dying drops those in flight) or a timeout.
		if c.bat == nil && (f == nil || f.kind != "connection" && f.kind != "timeout") {
			c.answered(sent)
		}
		// A server took the connection, then dropped it: it was there
		// (dying, say), so a refusal next is waited out; the refusal
		// clock is not reset, as it has not answered.
		if c.bat == nil && f != nil && f.kind == "connection" {
			c.reached.Store(true)
		}
	}
	return comp, f, nil
}

// check counts a reply's tokens and accepts it, or says why not; reask:
// the model is asked again to correct it, in the same attempt.
func (a *liveCall) check(ctx context.Context, comp *completion, mode int, est, estPrompt float64) (_ *Response, _ *failure, reask bool) {
	c, st, gen := a.c, a.st, a.gen
	in, out := comp.Usage.PromptTokens, comp.Usage.CompletionTokens
	gen.TokensIn += in
	gen.TokensOut += out
	st.TokensIn += int64(in)
	st.TokensCached += int64(comp.Usage.PromptTokensDetails.CachedTokens)
	st.TokensOut += int64(out)
	c.tpm.Adjust(float64(in+out) - est)
	gen.ModelAnswered = comp.Model
	// A re-ask holds the request before it, so it cannot have
	// fewer prompt tokens; a fresh attempt has the fresh request's.
	floor := a.lastIn
	if len(a.msgs) == len(a.req.Messages) {
		floor = a.freshIn
		a.freshAnswered, a.freshMode, a.freshIn = true, mode, in
	}
	a.lastIn = in
	c.learnContext(ctx)
	choice := comp.Choices[0]
	f := c.truncated(in, estPrompt, floor)
	if f == nil {
		f = unanswered(choice.Message.Content, choice.Message.ReasoningContent, choice.Message.Refusal, choice.FinishReason)
	}
	var resp *Response
	if f == nil {
		resp, f = acceptChoice(choice.Message.Content, choice.FinishReason, choice.Logprobs.first(), a.samp, a.sch, a.req.RunCheck, tokensUsed{in, out})
	}
	if f == nil {
		gen.Retries = a.retries + a.reasks
		return resp, nil, false
	}
	if f.notJSON && mode == formatJSONObject && c.auto() {
		// llama-server takes json_object and does not enforce it.
		c.stepDown(mode, "a reply to it was not JSON: the server does not enforce it")
	}
	if f.reask && a.reasks < c.cfg.MaxReasks && !c.textAPI() {
		a.reasks++
		st.Fault(f.kind)
		again := "Reply again with only the corrected JSON object."
		if a.sch == nil {
			again = "Reply again, corrected, in the same format."
		}
		a.msgs = append(append(a.msgs[:len(a.msgs):len(a.msgs)], Assistant(choice.Message.Content)),
			User("Your reply was not valid: "+f.reason+". "+again))
		return nil, f, true
	}
	return nil, f, false
}

// again handles a failed attempt (replied: the model's reply was
// unusable, not missing): nil to try again (after waiting when the
// server is busy or down), or the call's error.
func (a *liveCall) again(ctx context.Context, replied bool, f *failure, mode int) error {
	c, st := a.c, a.st
	if !replied && f.unreached {
		st.Fault(f.kind)
		a.waits++
		if err := c.awaitServer(ctx, f, a.waits); err != nil {
			if ctx.Err() != nil {
				return a.stopped()
			}
			return err
		}
		return nil // the same request, not a retry: the server never saw it
	}
	if f.badFormat && c.auto() && mode < formatPrompt {
		st.Fault(f.kind)
		c.stepDown(mode, f.reason)
		return nil
	}
	st.Fault(f.kind)
	if f.badFormat {
		return fmt.Errorf("%s (the server cannot use response_format %s here; try --response-format prompt)", f.reason, formatNames[mode])
	}
	if !f.retry {
		return final(replied && f.kind != "truncated", f.reason)
	}
	if a.retries >= c.cfg.MaxRetries {
		return final(replied && f.kind != "truncated", fmt.Sprintf("gave up after %s: %s", plural(a.retries+a.reasks+1, "attempt"), f.reason))
	}
	if replied && a.freshAnswered && a.samp.deterministic() && c.mode() == a.freshMode && c.bat == nil {
		// A fresh attempt would resend a request the model answered
		// (unusably), unchanged: at temperature 0, for the same reply.
		return final(true, fmt.Sprintf("gave up after %s: %s (at temperature 0 a fresh attempt would be the same request, for the same reply)",
			plural(a.retries+a.reasks+1, "attempt"), f.reason))
	}
	a.retries++
	a.msgs = a.req.Messages // a fresh attempt, not the re-ask conversation
	if f.reask || c.bat != nil {
		return nil // a bad reply, not a busy server (or the next round): no need to wait
	}
	if err := Sleep(ctx, c.backoff(a.retries, f.after)); err != nil {
		return a.stopped()
	}
	return nil
}

// answered notes that the server answered a request sent at sent
// (UnixNano): it is up. A reply to a request sent before the refusals
// began (an answer still on its way when the server died) says nothing
// about now, so it does not end the outage: the next refusal would be
// said on stderr a second time for the same restart.
func (c *Client) answered(sent int64) {
	c.reached.Store(true)
	if d := c.down.Load(); d != 0 && sent >= d && c.down.CompareAndSwap(d, 0) {
		c.downNoted.Store(false)
	}
}

// awaitServer handles a refused connection (n: the call's nth). A server
// that never answered fails the call at once: nothing listens there (a
// wrong --base-url, a server not started), and waiting would only delay
// the error. One that answered before is restarting: it is waited for,
// with backoff, up to --wait-server from its first refusal, which is
// said once on stderr; after that the calls fail.
func (c *Client) awaitServer(ctx context.Context, f *failure, n int) error {
	if !c.reached.Load() {
		return fmt.Errorf("connection refused at %s: no server is listening there (is the server running? start it, or check --base-url); not retried, as it has not answered in this run", RedactURL(c.cfg.BaseURL))
	}
	now := time.Now().UnixNano()
	c.down.CompareAndSwap(0, now)
	since := time.Duration(now - c.down.Load())
	if since >= c.cfg.WaitServer {
		return fmt.Errorf("%s: the server has refused connections for %s (--wait-server %s)", f.reason, since.Round(time.Second), c.cfg.WaitServer)
	}
	if c.cfg.Stderr != nil && c.downNoted.CompareAndSwap(false, true) {
		fmt.Fprintf(c.cfg.Stderr, "%s: %s refused; retrying for up to %s (--wait-server)\n", c.cfg.Stage, RedactURL(c.cfg.BaseURL), c.cfg.WaitServer)
	}
	return Sleep(ctx, min(c.backoff(n, 0), 5*time.Second, c.cfg.WaitServer-since))
}

// final is the error of a call that failed for good: ErrBadReply when
// its last attempt got a reply of the model's, a plain error when the
// server or the network failed it (a prompt the server cut included).
func final(replied bool, msg string) error {
	if replied {
		return badReply{msg}
	}
	return errors.New(msg)
}

// backoff is the wait before retry n: exponential with jitter (half to
// all of Backoff·2^(n-1)), at least what the server asked, at most the cap.
func (c *Client) backoff(n int, after time.Duration) time.Duration {
	d := c.cfg.Backoff << min(n-1, 20)
	if d <= 0 || d > c.cfg.RetryAfterCap {
		d = c.cfg.RetryAfterCap
	}
	d = d/2 + jitter(d/2)
	if after > d {
		d = after
	}
	return min(d, c.cfg.RetryAfterCap)
}

// Sleep waits d, or until ctx is done (the client's backoff and the
// Batch API's polling).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RedactURL drops the user info and query of a URL, where keys hide.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
