package llm

import (
	"context"
	"fmt"
)

// replyEstimate is max tokens, or a typical 500.
func replyEstimate(maxTokens int) float64 {
	if maxTokens > 0 {
		return float64(maxTokens)
	}
	return 500
}

// estimatePrompt guesses a prompt's tokens: about 4 bytes a token for
// Latin text, one per character for CJK, 4 per message.
func estimatePrompt(msgs []Message) float64 {
	n := 0.0
	for _, m := range msgs {
		for _, r := range m.Content {
			if r < 0x80 {
				n += 0.25
			} else {
				n++
			}
		}
		n += 4
	}
	return n
}

// commonContexts are context sizes servers default to (Ollama's num_ctx
// 2048, later 4096; llama.cpp's -c), at which a prompt cut to fit shows.
var commonContexts = map[int]bool{2048: true, 4096: true, 8192: true, 16384: true, 32768: true, 65536: true, 131072: true}

// learnContext asks the server, once, at its first reply, the context it
// loaded the model with, where it tells (Ollama's /api/ps; llama-server's
// came from /props or its over-context error). Not at OpenAI.
func (c *Client) learnContext(ctx context.Context) {
	if c.ctxSize.Load() > 0 || c.maxCompletion || c.bat != nil {
		return
	}
	c.ollamaCtx.Do(func() {
		if n := fetchOllamaContext(ctx, c.hc, c.cfg.BaseURL, c.cfg.Model); n > 0 {
			c.ctxSize.CompareAndSwap(0, int64(n))
		}
	})
}

// truncated tells a reply to a prompt the server cut: Ollama cuts a
// prompt longer than its context and answers 200, with prompt_tokens the
// context (a prompt cut in its last message) or fewer (older messages
// dropped). Signs: prompt tokens equal to (or over) the context the server
// reported (/props, /api/ps, an over-context error); fewer than floor, the
// prompt tokens of a request this one holds (the request a re-ask repeats,
// or the same fresh request before); a common context size while the
// prompt looked at least that long; far fewer than estimated. Not retried:
// the same prompt is cut the same way.
func (c *Client) truncated(in int, est float64, floor int) *failure {
	n := int(c.ctxSize.Load())
	why := ""
	switch {
	case in <= 0:
		return nil
	case n > 0 && in >= n:
		why = fmt.Sprintf("prompt_tokens %d is its whole context", in)
	case floor > 0 && in < floor:
		why = fmt.Sprintf("prompt_tokens %d, where the request it holds had %d", in, floor)
	case commonContexts[in] && est >= 0.8*float64(in):
		why = fmt.Sprintf("prompt_tokens %d, exactly a common context size, for a prompt of about %.0f tokens", in, est)
	case est >= 1000 && float64(in)*3 < est:
		why = fmt.Sprintf("prompt_tokens %d for a prompt of about %.0f tokens", in, est)
	default:
		return nil
	}
	ctxOf := ""
	if n > 0 {
		ctxOf = fmt.Sprintf(" of %d", n)
	}
	return &failure{kind: "truncated", reason: fmt.Sprintf("the server cut the prompt to %d tokens (its context%s): %s; the reply answers part of the prompt. "+
		"Give the server a larger context (Ollama: OLLAMA_CONTEXT_LENGTH=N for ollama serve, or PARAMETER num_ctx N in the model's Modelfile; llama-server: -c)", in, ctxOf, why)}
}
