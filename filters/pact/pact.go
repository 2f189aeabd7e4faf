// Package pact is ngpact's stage: PACT (Borah, Augenstein, Mihalcea,
// 2026), whether a model follows a cultural norm or allows a personal
// preference when the two conflict. For each item (a record with a
// pact_item), each model under test and each question framing, it gets
// the model's distribution over the two options, from the option labels'
// log-probabilities in one call (MethodLogprobs) or from K sampled
// replies (MethodSample), and appends it to the record's pact results.
// The options are shown in an order drawn per call, and the draw is
// undone, to cancel position bias.
package pact

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// The methods.
const (
	MethodLogprobs = "logprobs"
	MethodSample   = "sample"
)

// TopLogprobs is how many first-token alternatives a logprobs call asks
// for (OpenAI allows up to 20).
const TopLogprobs = 10

// PromptItem and PromptEnglish are the prompt languages (--prompt-lang).
const (
	PromptItem    = "item"
	PromptEnglish = "en"
)

// Subject is a model under test.
type Subject struct {
	// Name is what the results call it (the endpoint alias, or the model
	// when there is no models file).
	Name   string
	Caller llm.Caller
	// Base: a base model, asked through the text-completions API (api
	// completions): its prompt is plain text, the chat prompt's system and
	// user parts followed by the pack's "answer" cue ("Answer:"), so that
	// its next token is the letter; its results say base.
	Base bool
}

// Options configure the stage.
type Options struct {
	Subjects  []Subject
	Questions []string // record.PactPersonal, record.PactNorm, record.PactChoice
	Method    string
	// Samples is K for MethodSample.
	Samples int
	// Temperature is the sampling temperature of MethodSample (nil: the
	// flags'); Seed draws the option orders and the samples' seeds.
	Temperature *float64
	Seed        int64
	PromptLang  string
	Pack        *prompt.Pack
	// Culture is a culture's display name for the prompts ("Korean");
	// nil: the name with a capital.
	Culture func(name string) string
}

// Stage evaluates PACT items. It is safe for concurrent use.
type Stage struct{ opt Options }

// New checks the options.
func New(opt Options) (*Stage, error) {
	switch {
	case len(opt.Subjects) == 0:
		return nil, errors.New("no model under test (--subjects A,B,...)")
	case opt.Method != MethodLogprobs && opt.Method != MethodSample:
		return nil, fmt.Errorf("--method %q: want logprobs or sample", opt.Method)
	case opt.Method == MethodSample && opt.Samples < 1:
		return nil, fmt.Errorf("--samples %d: want at least 1", opt.Samples)
	case opt.PromptLang != PromptItem && opt.PromptLang != PromptEnglish:
		return nil, fmt.Errorf("--prompt-lang %q: want item or en", opt.PromptLang)
	}
	if len(opt.Questions) == 0 {
		opt.Questions = slices.Clone(record.PactDefaultQuestions)
	}
	if opt.Pack == nil {
		opt.Pack = prompt.Builtin()
	}
	if opt.Culture == nil {
		opt.Culture = func(s string) string {
			if s == "" {
				return s
			}
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	return &Stage{opt: opt}, nil
}

// ParseQuestions parses --questions: personal, norm, choice,
// comma-separated.
func ParseQuestions(list []string) ([]string, error) {
	var out []string
	for _, q := range list {
		q = strings.ToLower(strings.TrimSpace(q))
		switch q {
		case "":
			continue
		case record.PactPersonal, record.PactNorm, record.PactChoice:
			if !slices.Contains(out, q) {
				out = append(out, q)
			}
		default:
			return nil, fmt.Errorf("--questions: unknown framing %q (framings: personal, norm, choice)", q)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("--questions: no framing (framings: personal, norm, choice)")
	}
	return out, nil
}

// Name implements pipeline.Stage.
func (s *Stage) Name() string { return "ngpact" }

// Process implements pipeline.Stage: the item with one result per subject
// and framing appended (a result of the same model and framing already
// there is replaced). A call that fails for good (the server, not the
// model's answer) fails the record, so that --resume asks again.
func (s *Stage) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	if err := record.CheckPact(rec); err != nil {
		return nil, err
	}
	type job struct {
		subj Subject
		q    string
	}
	var jobs []job
	for _, subj := range s.opt.Subjects {
		for _, q := range s.opt.Questions {
			jobs = append(jobs, job{subj, q})
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]record.PactResult, len(jobs))
	gens := make([][]record.Gen, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], gens[i], errs[i] = s.evaluate(ctx, rec, j.subj, j.q)
			if errs[i] != nil && !errors.Is(errs[i], llm.ErrDeferred) {
				cancel()
			}
		}()
	}
	wg.Wait()
	if err := llm.FirstError(errs); err != nil {
		return nil, err
	}
	for i, r := range results {
		rec.Pact = slices.DeleteFunc(rec.Pact, func(o record.PactResult) bool { return o.Model == r.Model && o.Question == r.Question })
		rec.Pact = append(rec.Pact, r)
		rec.Gen = append(rec.Gen, gens[i]...)
	}
	return []*record.Record{rec}, nil
}

// Swapped draws whether call n of an item, model and framing shows the
// allow option first (as A): a hash of the seed, the item id, the model,
// the framing and n, so a rerun shows the same order.
func Swapped(seed int64, id, model, question string, n int) bool {
	return draw(seed, id, model, question, "order", n)&1 == 1
}

func draw(seed int64, parts ...any) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, seed)
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%v", p)
	}
	return record.Mix64(h.Sum64())
}

// evaluate gets one subject's distribution for one framing.
func (s *Stage) evaluate(ctx context.Context, rec *record.Record, subj Subject, q string) (record.PactResult, []record.Gen, error) {
	res := record.PactResult{Model: subj.Name, Question: q, Method: s.opt.Method, Base: subj.Base}
	if s.opt.Method == MethodLogprobs {
		return s.byLogprobs(ctx, rec, subj, q, res)
	}
	return s.bySamples(ctx, rec, subj, q, res)
}

// errNoLogprobs: the reply carried no logprobs.
var errNoLogprobs = errors.New("the server returned no logprobs (try --method sample)")

func (s *Stage) byLogprobs(ctx context.Context, rec *record.Record, subj Subject, q string, res record.PactResult) (record.PactResult, []record.Gen, error) {
	res.Samples = 1
	swapped := Swapped(s.opt.Seed, rec.ID, subj.Name, q, 0)
	msgs, text, err := s.messages(rec, q, swapped, subj.Base)
	if err != nil {
		return res, nil, err
	}
	temp := 0.0
	var first string // the first token, for the error of a failed sample
	check := func(r *llm.Response) (any, error) {
		if r.TopLogprobs == nil {
			return errNoLogprobs, nil // not the model's fault: asking again cannot help
		}
		pA, pB := LabelProbs(r.TopLogprobs)
		if pA+pB == 0 {
			first = r.TopLogprobs[0].Token
			return nil, fmt.Errorf("the first token is %q and neither A nor B is among its %d most likely alternatives; reply with the letter A or B only", first, len(r.TopLogprobs))
		}
		return [2]float64{pA, pB}, nil
	}
	resp, err := subj.Caller.Call(ctx, llm.Request{ID: rec.ID, Call: callName(q, 0), Messages: msgs, Prompt: text, PromptPack: s.opt.Pack.Version(),
		Sampling: &llm.Sampling{Temperature: &temp, MaxTokens: 1, TopLogprobs: TopLogprobs}, Check: check})
	if err != nil {
		// Only the model's own answer is a result: a call that ended on a
		// server or transport error fails the record (an earlier bad reply
		// left first set), so that --resume asks again.
		if first != "" && errors.Is(err, llm.ErrBadReply) && ctx.Err() == nil {
			res.Error = fmt.Sprintf("no option label among the first token's top_logprobs (first token %q)", first)
			return res, nil, nil
		}
		return res, nil, err
	}
	gens := []record.Gen{resp.Gen}
	if e, ok := resp.Checked.(error); ok {
		res.Error = e.Error()
		return res, gens, nil
	}
	p := resp.Checked.([2]float64)
	pFollow := p[0] / (p[0] + p[1])
	if swapped {
		pFollow = p[1] / (p[0] + p[1])
	}
	res.Valid = 1
	Summarise(&res, &pFollow)
	return res, gens, nil
}

func (s *Stage) bySamples(ctx context.Context, rec *record.Record, subj Subject, q string, res record.PactResult) (record.PactResult, []record.Gen, error) {
	k := s.opt.Samples
	res.Samples = k
	follow := make([]int, k) // 1 follow, 0 allow, -1 not valid
	bad := make([]string, k)
	gens := make([][]record.Gen, k)
	errs := make([]error, k)
	var wg sync.WaitGroup
	for n := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			follow[n], bad[n], gens[n], errs[n] = s.sample(ctx, rec, subj, q, n)
		}()
	}
	wg.Wait()
	if err := llm.FirstError(errs); err != nil {
		return res, nil, err
	}
	var all []record.Gen
	nf := 0
	var why []string
	for n := range k {
		all = append(all, gens[n]...)
		switch follow[n] {
		case 1:
			nf++
			res.Valid++
		case 0:
			res.Valid++
		default:
			why = append(why, bad[n])
		}
	}
	if len(why) > 0 {
		res.Error = fmt.Sprintf("%d of %d samples named neither option, e.g. %s", len(why), k, why[0])
	}
	if res.Valid > 0 {
		p := float64(nf) / float64(res.Valid)
		Summarise(&res, &p)
	}
	return res, all, nil
}

// sample asks once: 1 follow, 0 allow, -1 a reply that named neither
// option after the re-asks (bad says what it was).
func (s *Stage) sample(ctx context.Context, rec *record.Record, subj Subject, q string, n int) (int, string, []record.Gen, error) {
	swapped := Swapped(s.opt.Seed, rec.ID, subj.Name, q, n)
	msgs, text, err := s.messages(rec, q, swapped, subj.Base)
	if err != nil {
		return -1, "", nil, err
	}
	optA, optB := rec.PactItem.FollowOption, rec.PactItem.AllowOption
	if swapped {
		optA, optB = optB, optA
	}
	var last string
	check := func(r *llm.Response) (any, error) {
		l := ParseAnswer(r.Text, optA, optB)
		if l == "" {
			last = r.Text
			return nil, fmt.Errorf("the reply %q names neither option; reply with the letter A or B only", cutText(r.Text, 80))
		}
		return l, nil
	}
	seed := int64(draw(s.opt.Seed, rec.ID, subj.Name, q, "sample", n) >> 1)
	samp := &llm.Sampling{Temperature: s.opt.Temperature, Seed: &seed}
	if subj.Base {
		// A base model goes on writing after the letter: its first token
		// is the answer, as the logprobs method reads it.
		samp.MaxTokens = 1
	}
	resp, err := subj.Caller.Call(ctx, llm.Request{ID: rec.ID, Call: callName(q, n), Messages: msgs, Prompt: text, PromptPack: s.opt.Pack.Version(),
		Sampling: samp, Check: check})
	if err != nil {
		if last != "" && errors.Is(err, llm.ErrBadReply) && ctx.Err() == nil {
			return -1, strconv.Quote(cutText(last, 80)), nil, nil
		}
		return -1, "", nil, err
	}
	l := resp.Checked.(string)
	if (l == LabelA) != swapped {
		return 1, "", []record.Gen{resp.Gen}, nil
	}
	return 0, "", []record.Gen{resp.Gen}, nil
}

// callName names a call in gen, the usage summary and Batch files: the
// framing, and the sample's number after the first ("choice",
// "choice.1", ...). Each model is its own endpoint, so the custom ids of
// two models never meet.
func callName(q string, n int) string {
	if n == 0 {
		return q
	}
	return q + "." + strconv.Itoa(n)
}

func cutText(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n]) + "…"
}

// promptData is what pkg/prompt/packs/pact/question*.tmpl are rendered with.
type promptData struct {
	Culture, Lang, Language   string
	Scenario, Actor, Receiver string
	Persona                   []string // the actor's attributes
	ReceiverPersona           []string // the receiver's
	Expectation, Preference   string
	// PersonaCountry and PersonaDemo: the respondent the model answers
	// as (the persona-prompted run), when the item has them.
	PersonaCountry, PersonaDemo string
	Question                    string
	OptionA, OptionB            string
}

// messages renders the question with the options in the drawn order: in
// the item's language (pact/question.LANG.tmpl, English where the pack has
// none) or in English; for a base model (base) also as plain text (see
// Subject.Base).
func (s *Stage) messages(rec *record.Record, q string, swapped, base bool) ([]llm.Message, string, error) {
	it := rec.PactItem
	d := promptData{Culture: s.opt.Culture(rec.Culture), Lang: rec.Lang, Language: lang.Name(rec.Lang),
		Scenario: rec.Scenario, Actor: it.Actor, Receiver: it.Receiver, Persona: persona.Lines(actorAttrs(rec)),
		Expectation: it.Expectation, Preference: it.Preference, Question: q,
		PersonaCountry: it.PersonaCountry, PersonaDemo: it.PersonaDemo,
		OptionA: it.FollowOption, OptionB: it.AllowOption}
	d.ReceiverPersona = persona.Lines(receiverAttrs(it))
	if d.Lang == "" {
		d.Lang = "en"
	}
	if swapped {
		d.OptionA, d.OptionB = d.OptionB, d.OptionA
	}
	variant := ""
	if s.opt.PromptLang == PromptItem && d.Lang != "en" {
		variant = d.Lang
	}
	p, err := s.opt.Pack.Render("pact", "question", variant, d)
	if err != nil {
		return nil, "", err
	}
	msgs := []llm.Message{llm.System(p.System), llm.User(p.User)}
	if !base {
		return msgs, "", nil
	}
	cue, ok, err := s.opt.Pack.RenderPart("pact", "question", variant, "answer", d)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		cue = "Answer:" // a pack of the user's without the cue
	}
	return msgs, p.System + "\n\n" + p.User + "\n\n" + cue, nil
}

// ProbeLogprobs asks a subject one tiny logprobs question before the run:
// a server that returns no logprobs in chat completions is an error that
// says so and suggests --method sample, instead of a run of failed items.
func ProbeLogprobs(ctx context.Context, s Subject) error {
	temp := 0.0
	req := llm.Request{ID: "ngpact-probe", Call: "logprobs-probe",
		Messages: []llm.Message{llm.User("Reply with one letter, A or B.")},
		Sampling: &llm.Sampling{Temperature: &temp, MaxTokens: 1, TopLogprobs: TopLogprobs}}
	if s.Base {
		req.Prompt = "Reply with one letter, A or B.\nAnswer:"
	}
	resp, err := s.Caller.Call(ctx, req)
	switch {
	case errors.Is(err, llm.ErrDeferred):
		return nil
	case err != nil:
		return fmt.Errorf("--method logprobs: model %s: the first call failed: %v", s.Name, err)
	case resp.TopLogprobs == nil && s.Base:
		return fmt.Errorf("--method logprobs: model %s (a base model, api completions) returned no logprobs in its text completion: its server does not send them from /v1/completions (Ollama's, as of v0.24, ignores logprobs there; llama-server and vLLM send them); use --method sample --samples K", s.Name)
	case resp.TopLogprobs == nil:
		return fmt.Errorf("--method logprobs: model %s returned no logprobs in its chat completion (its server does not support logprobs/top_logprobs); use --method sample --samples K", s.Name)
	}
	return nil
}
