package v2r

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// PromptStage and PromptTask name the templates:
// pkg/prompt/packs/v2r/dialogue[.<culture>].tmpl.
const (
	PromptStage = "v2r"
	PromptTask  = "dialogue"
)

// Options configure the stage.
type Options struct {
	Rules
	// TextMode asks for "Name: (action) text" lines instead of JSON.
	TextMode bool
	// Pack holds the prompts; prompt.Builtin() when nil.
	Pack *prompt.Pack
	// Profile finds a culture's profile; normbank.Profile when nil.
	Profile func(name string) (*normbank.Culture, error)
	// Fit is the seed-fit check (--check-fit); none when Fit.Judge is nil.
	Fit FitCheck
}

// Stage makes one dialogue per seed record.
type Stage struct {
	caller   llm.Caller
	opt      Options
	profiles sync.Map // culture -> profileResult
}

type profileResult struct {
	c   *normbank.Culture
	err error
}

// New makes the stage; the rules must be sane (2 <= MinTurns <= MaxTurns
// or MaxTurns 0, a share in [0, 1]).
func New(caller llm.Caller, opt Options) (*Stage, error) {
	switch {
	case opt.MinTurns < 2:
		return nil, fmt.Errorf("--min-turns %d: a dialogue has at least 2 turns", opt.MinTurns)
	case opt.MaxTurns != 0 && opt.MaxTurns < opt.MinTurns:
		return nil, fmt.Errorf("--max-turns %d is below --min-turns %d", opt.MaxTurns, opt.MinTurns)
	case opt.MaxTurns < 0:
		return nil, fmt.Errorf("--max-turns %d: want 0 (no bound) or more", opt.MaxTurns)
	case opt.MinLangShare < 0 || opt.MinLangShare > 1:
		return nil, fmt.Errorf("--min-lang-share %v: want a share between 0 and 1", opt.MinLangShare)
	}
	if err := opt.Fit.validate(); err != nil {
		return nil, err
	}
	if opt.Pack == nil {
		opt.Pack = prompt.Builtin()
	}
	if opt.Profile == nil {
		opt.Profile = normbank.Profile
	}
	return &Stage{caller: caller, opt: opt}, nil
}

// Name implements pipeline.Stage.
func (s *Stage) Name() string { return "ngv2r" }

// Process implements pipeline.Stage: the seed in, its dialogue out.
func (s *Stage) Process(ctx context.Context, seed *record.Record) ([]*record.Record, error) {
	c, typ, expected, err := s.seedInfo(seed)
	if err != nil {
		return nil, err
	}
	data := promptData(seed, c, expected, s.opt.Rules, s.opt.TextMode)
	p, err := s.opt.Pack.Render(PromptStage, PromptTask, seed.Culture, data)
	if err != nil {
		return nil, err
	}
	req := llm.Request{
		ID: seed.ID, Call: "dialogue", PromptPack: s.opt.Pack.Version(),
		Messages: []llm.Message{llm.System(p.System), llm.User(p.User)},
		// The value is the accepted dialogue, audited.
		Check: func(r *llm.Response) (any, error) {
			d, err := s.read(r, typ)
			if err != nil {
				return nil, err
			}
			return s.opt.CheckFor(d, typ, seed.Culture, expected)
		},
	}
	if !s.opt.TextMode {
		req.Schema = SchemaName(typ)
	}
	resp, err := s.caller.Call(ctx, req)
	if err != nil {
		return nil, err
	}
	got, err := checked(resp, req.Call)
	if err != nil {
		return nil, err
	}
	gens := []record.Gen{resp.Gen}
	var fit *fitResult
	if s.opt.Fit.Judge != nil {
		if got, fit, err = s.fitLoop(ctx, seed, c, expected, req, resp, got, &gens); err != nil {
			return nil, err
		}
	}
	out := *seed
	out.ID = record.NewID(seed.ID, "dialogue")
	out.ParentID = seed.ID
	out.Lang = expected
	out.Turns, out.Narration, out.NarrationAt = got.Turns, got.Narration, got.NarrationAt
	out.Checks = got.Checks // the dialogue's, not the seed's
	out.Gen = append(slices.Clip(seed.Gen), gens...)
	if fit != nil {
		out.Quality = &record.Quality{Fit: fit.score, Explanations: map[string]string{"fit": fit.why}}
		if fit.score < s.opt.Fit.MinFit {
			out.AddDefect(record.DefectUnfitSeed)
		}
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("output record: %w", err)
	}
	return []*record.Record{&out}, nil
}

// checked is the dialogue a writer's reply was accepted as.
func checked(resp *llm.Response, call string) (*record.Record, error) {
	got, _ := resp.Checked.(*record.Record)
	if got == nil {
		return nil, fmt.Errorf("call %s: the reply was accepted without being checked", call)
	}
	return got, nil
}

// fitLoop judges the seed fit of the accepted dialogue got (the reply
// resp to req) and, while it is under the bar and rounds are left, asks
// the writer again in the same conversation with the judge's reason. It
// returns the best-fitting dialogue (ties to the later) and its fit, or
// an error when that is under the bar and unfit dialogues are not kept.
// Every call's gen is appended to gens.
func (s *Stage) fitLoop(ctx context.Context, seed *record.Record, c *normbank.Culture, lng string, req llm.Request, resp *llm.Response, got *record.Record, gens *[]record.Gen) (*record.Record, *fitResult, error) {
	f := s.opt.Fit
	var best *record.Record
	var bestFit fitResult
	msgs := req.Messages
	for round := 0; ; round++ {
		r, jr, err := s.judgeFit(ctx, seed, c, lng, got, round)
		if err != nil {
			return nil, nil, err
		}
		*gens = append(*gens, jr.Gen)
		if best == nil || r.score >= bestFit.score {
			best, bestFit = got, r
		}
		if r.score >= f.MinFit || round == f.Rounds {
			break
		}
		msgs = append(msgs[:len(msgs):len(msgs)], llm.Assistant(resp.Text), llm.User(fitReask(r, f.MinFit)))
		again := req
		again.Messages, again.Call = msgs, callName(req.Call, round+1)
		if resp, err = s.caller.Call(ctx, again); err != nil {
			return nil, nil, err
		}
		if got, err = checked(resp, again.Call); err != nil {
			return nil, nil, err
		}
		*gens = append(*gens, resp.Gen)
	}
	if bestFit.score < f.MinFit && !f.KeepUnfit {
		return nil, nil, fmt.Errorf("the dialogue does not fit its seed: fit %d of 5 after %s, --min-fit %d; the judge: %s",
			bestFit.score, plural(f.Rounds, "rewrite"), f.MinFit, bestFit.why)
	}
	return best, &bestFit, nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// SchemaName is the reply schema of a dialogue type
// (schemas/llm/v2r_dialogue_<type>.schema.json).
func SchemaName(typ string) string { return "v2r_dialogue_" + typ }

// read turns a reply into a dialogue.
func (s *Stage) read(r *llm.Response, typ string) (*Dialogue, error) {
	if s.opt.TextMode {
		return ParseText(r.Text, typ)
	}
	return ParseJSON(r.JSON, typ)
}

// seedInfo checks that a seed has what the prompt needs and returns its
// culture profile, dialogue type and expected language.
func (s *Stage) seedInfo(seed *record.Record) (c *normbank.Culture, typ, expected string, err error) {
	var missing []string
	if seed.Culture == "" {
		missing = append(missing, "culture")
	}
	if strings.TrimSpace(seed.Norm) == "" {
		missing = append(missing, "norm")
	}
	if strings.TrimSpace(seed.Scenario) == "" && strings.TrimSpace(seed.Situation) == "" {
		missing = append(missing, "scenario or situation")
	}
	if seed.DialogueType == "" {
		missing = append(missing, "dialogue_type")
	}
	if len(missing) > 0 {
		return nil, "", "", fmt.Errorf("the seed has no %s (ngv2r reads the records of ngseed or ngrefine)", strings.Join(missing, ", no "))
	}
	// A seed whose scenario is a model's leaked reasoning (the release has
	// scenarios that begin "analysisWe need to check consistency") would
	// pass it on to the dialogue record, which ngstats then flags: refuse
	// it before paying for a call.
	if name, text := audit.LeakedField(seed); name != "" {
		return nil, "", "", fmt.Errorf("the seed's %s is a model's leaked reasoning (%q): fix the seed or leave it out (ngcat --drop-defects leaked_reasoning, after ngstats flags it)", name, short(text))
	}
	typ = seed.DialogueType
	if !slices.Contains(record.DialogueTypes, typ) {
		return nil, "", "", fmt.Errorf("dialogue_type %q: want adherence, violation or v2r", typ)
	}
	if c, err = s.profile(seed.Culture); err != nil {
		return nil, "", "", err
	}
	expected = lang.Normalize(seed.Lang)
	if expected == "" {
		expected = lang.Normalize(c.Lang)
	}
	if expected == "" {
		return nil, "", "", errors.New("no dialogue language: the seed has no lang and its culture profile none")
	}
	return c, typ, expected, nil
}

// profile looks a culture up once per run.
func (s *Stage) profile(name string) (*normbank.Culture, error) {
	if v, ok := s.profiles.Load(name); ok {
		r := v.(profileResult)
		return r.c, r.err
	}
	c, err := s.opt.Profile(name)
	v, _ := s.profiles.LoadOrStore(name, profileResult{c, err})
	r := v.(profileResult)
	return r.c, r.err
}
