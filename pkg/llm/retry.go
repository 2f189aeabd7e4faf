package llm

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/ngkit/ngkit/pkg/record"
)

// live calls the model until a reply is accepted or the retries are spent.
func (c *Client) live(ctx context.Context, req Request, sch *schema, samp Sampling, st *CallStats, gen *record.Gen) (*Response, error) {
	parent := ctx
	if !c.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, c.deadline)
		defer cancel()
	}
	stopped := func() error {
		if parent.Err() != nil {
			return fmt.Errorf("not answered: %w", context.Cause(parent))
		}
		return fmt.Errorf("not answered: the run's --deadline (%s) passed", c.cfg.Deadline)
	}
	msgs := req.Messages
	retries, reasks, waits := 0, 0, 0
	defer func() { st.Retries, st.Reasks = int64(retries), int64(reasks) }() // failed calls too
	// freshAnswered: the fresh request (no re-ask in it) got a reply of
	// the model's, under response format freshMode.
	freshAnswered, freshMode := false, 0
	freshIn, lastIn := 0, 0 // prompt tokens of the fresh request, and of the last one
	for {
		mode := c.mode()
		send := c.withFormat(msgs, sch, mode)
		estPrompt := estimatePrompt(send)
		est := estPrompt + replyEstimate(samp.MaxTokens) // for the tpm bucket
		var comp *completion
		var f *failure
		if c.bat != nil {
			var deferred bool
			if comp, f, deferred = c.batchSend(ctx, &req, int(st.Attempts), c.params(send, sch, samp, mode)); deferred {
				return nil, ErrDeferred
			}
			est = 0 // no tpm bucket for the Batch API
		} else {
			slot, err := c.win.acquire(ctx)
			if err != nil {
				return nil, stopped()
			}
			// The rate buckets after the slot: their tokens are spent when the
			// request really goes out, not while it waits for the window.
			if err = c.rpm.take(ctx, 1); err == nil {
				err = c.tpm.take(ctx, est)
			}
			if err != nil {
				c.win.release(slot, false, false)
				return nil, stopped()
			}
			comp, f = c.sendAny(ctx, send, sch, samp, mode)
			// Local servers queue what their slots cannot take instead of
			// answering 429: a timeout, or a reply that took more than half
			// the timeout, says the window is too wide as a 429 does.
			slow := f == nil && time.Since(slot) > c.cfg.Timeout/2
			c.win.release(slot, slow || f != nil && (f.throttled || f.kind == "timeout"), f == nil)
		}
		st.Attempts++
		if f == nil || !f.unreached {
			st.Requests++
			// The server is up if it answered: not a connection it dropped
			// (a server dying drops those in flight) or a timeout.
			if c.bat == nil && (f == nil || f.kind != "connection" && f.kind != "timeout") {
				c.answered()
			}
			// A server took the connection, then dropped it: it was there
			// (dying, say), so a refusal next is waited out; the refusal
			// clock is not reset, as it has not answered.
			if c.bat == nil && f != nil && f.kind == "connection" {
				c.reached.Store(true)
			}
		}
		if ctx.Err() != nil {
			return nil, stopped()
		}
		var resp *Response
		if comp != nil {
			in, out := comp.Usage.PromptTokens, comp.Usage.CompletionTokens
			gen.TokensIn += in
			gen.TokensOut += out
			st.TokensIn += int64(in)
			st.TokensCached += int64(comp.Usage.PromptTokensDetails.CachedTokens)
			st.TokensOut += int64(out)
			c.tpm.adjust(float64(in+out) - est)
			gen.ModelAnswered = comp.Model
			// A re-ask holds the request before it, so it cannot have
			// fewer prompt tokens; a fresh attempt has the fresh request's.
			floor := lastIn
			if len(msgs) == len(req.Messages) {
				floor = freshIn
				freshAnswered, freshMode, freshIn = true, mode, in
			}
			lastIn = in
			c.learnContext(ctx)
			choice := comp.Choices[0]
			if f = c.truncated(in, estPrompt, floor); f == nil {
				f = unanswered(choice.Message.Content, choice.Message.ReasoningContent, choice.Message.Refusal, choice.FinishReason)
			}
			if f == nil {
				resp, f = acceptChoice(choice.Message.Content, choice.FinishReason, choice.Logprobs.first(), samp, sch, req.RunCheck, tokensUsed{in, out})
			}
			if f == nil {
				gen.Retries = retries + reasks
				return resp, nil
			}
			if f.notJSON && mode == formatJSONObject && c.auto() {
				// llama-server takes json_object and does not enforce it.
				c.stepDown(mode, "a reply to it was not JSON: the server does not enforce it")
			}
			if f.reask && reasks < c.cfg.MaxReasks && !c.textAPI() {
				reasks++
				st.fault(f.kind)
				again := "Reply again with only the corrected JSON object."
				if sch == nil {
					again = "Reply again, corrected, in the same format."
				}
				msgs = append(append(msgs[:len(msgs):len(msgs)], Assistant(choice.Message.Content)),
					User("Your reply was not valid: "+f.reason+". "+again))
				continue
			}
		} else {
			c.tpm.adjust(-est) // not served: nothing was spent
		}
		if comp == nil && f.unreached {
			st.fault(f.kind)
			waits++
			if err := c.awaitServer(ctx, f, waits); err != nil {
				if ctx.Err() != nil {
					return nil, stopped()
				}
				return nil, err
			}
			continue // the same request, not a retry: the server never saw it
		}
		if f.badFormat && c.auto() && mode < formatPrompt {
			st.fault(f.kind)
			c.stepDown(mode, f.reason)
			continue
		}
		st.fault(f.kind)
		if f.badFormat {
			return nil, fmt.Errorf("%s (the server cannot use response_format %s here; try --response-format prompt)", f.reason, formatNames[mode])
		}
		if !f.retry {
			return nil, final(comp != nil && f.kind != "truncated", f.reason)
		}
		if retries >= c.cfg.MaxRetries {
			return nil, final(comp != nil && f.kind != "truncated", fmt.Sprintf("gave up after %s: %s", plural(retries+reasks+1, "attempt"), f.reason))
		}
		if comp != nil && freshAnswered && samp.deterministic() && c.mode() == freshMode && c.bat == nil {
			// A fresh attempt would resend a request the model answered
			// (unusably), unchanged: at temperature 0, for the same reply.
			return nil, final(true, fmt.Sprintf("gave up after %s: %s (at temperature 0 a fresh attempt would be the same request, for the same reply)",
				plural(retries+reasks+1, "attempt"), f.reason))
		}
		retries++
		msgs = req.Messages // a fresh attempt, not the re-ask conversation
		if f.reask || c.bat != nil {
			continue // a bad reply, not a busy server (or the next round): no need to wait
		}
		if err := sleep(ctx, c.backoff(retries, f.after)); err != nil {
			return nil, stopped()
		}
	}
}

// answered notes that the server answered a request: it is up.
func (c *Client) answered() {
	c.reached.Store(true)
	if c.down.Load() != 0 {
		c.down.Store(0)
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
		return fmt.Errorf("connection refused at %s: no server is listening there (is the server running? start it, or check --base-url); not retried, as it has not answered in this run", redactURL(c.cfg.BaseURL))
	}
	now := time.Now().UnixNano()
	c.down.CompareAndSwap(0, now)
	since := time.Duration(now - c.down.Load())
	if since >= c.cfg.WaitServer {
		return fmt.Errorf("%s: the server has refused connections for %s (--wait-server %s)", f.reason, since.Round(time.Second), c.cfg.WaitServer)
	}
	if c.cfg.Stderr != nil && c.downNoted.CompareAndSwap(false, true) {
		fmt.Fprintf(c.cfg.Stderr, "%s: %s refused; retrying for up to %s (--wait-server)\n", c.cfg.Stage, redactURL(c.cfg.BaseURL), c.cfg.WaitServer)
	}
	return sleep(ctx, min(c.backoff(n, 0), 5*time.Second, c.cfg.WaitServer-since))
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

func (s *CallStats) fault(kind string) {
	if s.Faults == nil {
		s.Faults = map[string]int64{}
	}
	s.Faults[kind]++
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

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// redactURL drops the user info and query of a URL, where keys hide.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
