// Package refine is ngrefine's stage: exemplar-guided iterative refinement
// of seeds (NormGenesis module 3). For each seed record (culture,
// category, dialogue_type, norm, scenario, situation):
//
//  1. the k exemplars of the same culture and category (and dialogue type,
//     when the pool has some) most similar to the seed are picked with
//     pkg/normbank's character n-gram TF-IDF index;
//  2. a judge call scores the seed 1-5 on task relevance and linguistic
//     quality, with a short critique;
//  3. while a score is below the bar (or the seed breaks the exemplar rule
//     of pkg/normbank: length, markers, language) and rounds are left, the
//     seed is rewritten toward the exemplars with the critique, and the
//     rewrite is judged again, now also on semantic preservation against
//     the seed as it came in;
//  4. the record keeps the accepted version, or the best one with
//     accepted=false, and a refinement summary.
//
// The record keeps its id: refinement improves a seed in place.
package refine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// Defaults of the options, as ngrefine's flags.
const (
	DefaultK         = 3
	DefaultMinScore  = 4
	DefaultMaxRounds = 3
)

// Options configure a Stage.
type Options struct {
	// K is the number of exemplars given to each rewrite (>= 1).
	K int
	// MinScore is the bar every criterion must reach (1-5).
	MinScore int
	// MaxRounds is the most rewrites of one seed (0: judge only).
	MaxRounds int
	// DropRejected fails a seed that never reaches the bar (it goes to the
	// errors file) instead of keeping its best version.
	DropRejected bool
	// Exemplars is the pool to pick from: normbank.BuiltinExemplars() or
	// a user's file (normbank.LoadExemplars).
	Exemplars []normbank.Exemplar
	// ExemplarSource names the pool in errors: "builtin" or the file.
	ExemplarSource string
	// Pack holds the prompts (refine/judge and refine/rewrite).
	Pack *prompt.Pack
	// Profile finds a culture's profile; nil: normbank.Profile.
	Profile func(name string) (*normbank.Culture, error)
	// Judge makes the judge calls (nil: the stage's caller, which then
	// rewrites and judges alike).
	Judge llm.Caller
	// Self takes the exemplars from the run's own seeds (--exemplars self):
	// FirstPass must run before Process; Exemplars may then be empty.
	Self bool
	// Warn, when set, is told once per culture that has no exemplars at all
	// (its seeds then fail, or, with Self, are rewritten with the critique
	// alone).
	Warn func(format string, args ...any)
}

// Stage refines seed records; it is safe for concurrent use.
type Stage struct {
	caller llm.Caller
	opt    Options

	cultures cache[*culture]
	pools    cache[*pools]
	warned   sync.Map // culture -> true, once told it has no exemplars
	self     selfState
}

// CheckCounts refuses K, MinScore and MaxRounds out of range (usage
// errors, worded as ngrefine's flags).
func CheckCounts(opt Options) error {
	switch {
	case opt.K < 1:
		return fmt.Errorf("--k %d: want at least 1 exemplar", opt.K)
	case opt.MinScore < 1 || opt.MinScore > 5:
		return fmt.Errorf("--min-score %d: want 1-5", opt.MinScore)
	case opt.MaxRounds < 0:
		return fmt.Errorf("--max-rounds %d: cannot be negative", opt.MaxRounds)
	}
	return nil
}

// New makes the stage; errors are the options' (usage errors).
func New(caller llm.Caller, opt Options) (*Stage, error) {
	if err := CheckCounts(opt); err != nil {
		return nil, err
	}
	switch {
	case len(opt.Exemplars) == 0 && !opt.Self:
		return nil, errors.New("no exemplars to refine toward")
	case opt.Pack == nil:
		return nil, errors.New("no prompt pack")
	}
	if opt.Profile == nil {
		opt.Profile = normbank.Profile
	}
	if opt.Judge == nil {
		opt.Judge = caller
	}
	return &Stage{caller: caller, opt: opt, self: selfState{judged: map[string]*judged0{}}}, nil
}

// Name implements pipeline.Stage.
func (s *Stage) Name() string { return "ngrefine" }

// Process refines one seed. The input record is changed only on success:
// a record that fails reaches the errors file as it came in.
func (s *Stage) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	if err := needs(rec); err != nil {
		return nil, err
	}
	cu, err := s.culture(rec.Culture)
	if err != nil {
		return nil, err
	}
	exemplars, err := s.exemplars(rec)
	if err != nil {
		return nil, err
	}
	r := &run{s: s, rec: rec, cu: cu, exemplars: exemplars}
	if err := r.refine(ctx); err != nil {
		return nil, err
	}
	best := r.best
	ref := &record.Refinement{
		Rounds:   r.rounds,
		Before:   scoresPtr(r.first.scores),
		After:    scoresPtr(best.scores),
		Accepted: best.passes(s.opt.MinScore),
		Critique: best.critique,
	}
	for _, e := range exemplars {
		ref.ExemplarIDs = append(ref.ExemplarIDs, e.ID)
	}
	if !ref.Accepted && s.opt.DropRejected {
		return nil, fmt.Errorf("not accepted after %d rewrite round(s): best scores %s, want %d or more on each%s; critique: %s",
			r.rounds, formatScores(best.scores), s.opt.MinScore, problemsNote(best.problems), best.critique)
	}
	rec.Scenario, rec.Situation = best.scenario, best.situation
	rec.Refinement = ref
	rec.Gen = append(rec.Gen, r.gens...)
	return []*record.Record{rec}, nil
}

// needs checks that a record is a seed that can be refined.
func needs(rec *record.Record) error {
	var missing []string
	for _, f := range []struct{ name, v string }{
		{"culture", rec.Culture}, {"category", rec.Category}, {"norm", rec.Norm},
		{"scenario", rec.Scenario}, {"situation", rec.Situation},
	} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("not a seed to refine: no %s", strings.Join(missing, ", "))
	}
	return nil
}

func scoresPtr(s record.Scores) *record.Scores { return &s }

func problemsNote(p []string) string {
	if len(p) == 0 {
		return ""
	}
	return " and " + strings.Join(p, "; ")
}
