package pact_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/pact"
	"github.com/ngkit/ngkit/internal/fakeng"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// asBase makes a subject a base model: api completions.
func asBase(_ *llmtest.Options, c *llm.Config) { c.API = llm.APICompletions }

// A base model and an instruct model with the same bias, in one run: the
// base model is asked in plain text through /v1/completions, ending in
// the language's answer cue; both give the same exact distribution, and
// only the base model's results say base.
func TestBaseModel(t *testing.T) {
	base, bsrv := subject(t, "base", injected, asBase)
	base.Base = true
	inst, isrv := subject(t, "inst", injected)
	if err := pact.ProbeLogprobs(context.Background(), base); err != nil {
		t.Fatalf("probe: %v", err)
	}
	st, err := pact.New(pact.Options{Subjects: []pact.Subject{base, inst}, Questions: []string{record.PactPersonal, record.PactNorm},
		Method: pact.MethodLogprobs, PromptLang: pact.PromptItem, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	recs := itemsInLang(1)
	res := testkit.Run(t, st, recs, 4)
	if len(res.Errors) > 0 || len(res.Out) != len(recs) {
		t.Fatalf("%d out, errors %v", len(res.Out), res.Errors)
	}
	for _, r := range res.Out {
		for _, p := range r.Pact {
			want := injected.PFollow(r.Culture, r.Persona, p.Question == record.PactNorm)
			if p.PFollow == nil || math.Abs(*p.PFollow-want) > 1e-9 || p.Base != (p.Model == "base") {
				t.Errorf("%s %s %s: %+v, want p_follow %g", r.ID, p.Model, p.Question, p, want)
			}
		}
	}
	cues := map[string]bool{}
	for _, rq := range bsrv.Requests() {
		u := rq.Request.LastUser()
		if !rq.Request.Text || len(rq.Request.Messages) != 1 {
			t.Fatalf("base model asked in chat: %s", rq.Body)
		}
		if rq.Request.TopLogprobs == nil || *rq.Request.TopLogprobs != pact.TopLogprobs {
			t.Errorf("logprobs: %s", rq.Body)
		}
		if u == "Reply with one letter, A or B.\nAnswer:" { // the probe
			continue
		}
		// The system part, the user part (ending in its "A or B only"
		// line), then the cue.
		for _, c := range []struct{ open, end string }{{"You answer", "Answer with A or B only.\n\nAnswer:"}, {"당신은", "A 또는 B로만 답하세요.\n\n답:"}, {"你回答", "只回答 A 或 B。\n\n答："}} {
			if strings.HasPrefix(u, c.open) && strings.HasSuffix(u, c.end) {
				cues[c.end] = true
			}
		}
	}
	if len(cues) != 3 {
		t.Errorf("answer cues seen: %v", cues)
	}
	for _, rq := range isrv.Requests() {
		if rq.Request.Text {
			t.Fatalf("instruct model asked as a base model: %s", rq.Body)
		}
	}
}

// A server whose /v1/completions sends no logprobs (Ollama v0.24): the
// probe says so in one line, naming the server's limitation and
// --method sample, which works there.
func TestBaseModelNoLogprobs(t *testing.T) {
	s, _ := subject(t, "olbase", fakeng.PactBias{}, asBase, func(o *llmtest.Options, _ *llm.Config) { o.Ollama = true })
	s.Base = true
	err := pact.ProbeLogprobs(context.Background(), s)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "model olbase (a base model, api completions) returned no logprobs in its text completion") ||
		!strings.Contains(err.Error(), "Ollama's, as of v0.24, ignores logprobs there") || !strings.Contains(err.Error(), "--method sample") {
		t.Fatalf("probe: %v", err)
	}
	st, _ := pact.New(pact.Options{Subjects: []pact.Subject{s}, Questions: []string{record.PactNorm}, Method: pact.MethodSample, Samples: 4, PromptLang: pact.PromptItem})
	res := testkit.Run(t, st, items(1)[:1], 1)
	if len(res.Out) != 1 {
		t.Fatalf("errors %v", res.Errors)
	}
	if p := res.Out[0].Pact[0]; p.Valid != 4 || !p.Base {
		t.Errorf("%+v", p)
	}
}
