package cli

import (
	"errors"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/v2r"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// Ngv2r turns seeds into validated adherence, violation and
// Violation-to-Resolution dialogues.
func Ngv2r(env app.Env) error {
	p := app.NewLLMProgram("ngv2r", "seeds to adherence, violation and Violation-to-Resolution dialogues, validated, with an LLM", "[flags] [FILE...]")
	p.Details = Help("ngv2r")
	p.Examples = `
ngseed --culture korean --types adherence,violation,v2r | ngrefine | ngv2r -o dialogues.parquet
ngv2r seeds.jsonl -o dialogues.jsonl --errors failed.jsonl
ngv2r seeds.jsonl --text-mode --base-url http://localhost:8080/v1 --model local
ngv2r seeds.parquet --min-turns 6 --max-turns 12 -o dialogues.parquet --resume
ngv2r seeds.jsonl --prompts my-prompts/ --culture-file cultures/korean-busan.yaml
ngv2r seeds.jsonl --check-fit --min-fit 4 --errors unfit.jsonl -o dialogues.jsonl
ngv2r seeds.jsonl --check-fit --judge big --models models.yaml --keep-unfit | ngstats
ngv2r seeds.jsonl | ngstats --fail-on any=0
ngv2r seeds.jsonl --vary gender=female,male --seed 7 | ngstats --by gender`
	fs := p.Flags
	minTurns := fs.Int("min-turns", record.DefaultMinTurns, "fewest turns of a dialogue, `N`")
	maxTurns := fs.Int("max-turns", record.DefaultMaxTurns, "most turns of a dialogue, `N` (0: no bound)")
	minShare := fs.Float64("min-lang-share", 1, "share of the turns the detector is sure of that must be in the dialogue's language, `SHARE` (1: all)")
	textMode := fs.Bool("text-mode", false, `ask for "[stage] Name: (direction) words" lines instead of JSON, for servers without JSON output`)
	checkFit := fs.Bool("check-fit", false, "have the judge role score each dialogue's fit to its seed, 1-5, and ask the writer again under --min-fit")
	minFit := fs.Int("min-fit", v2r.DefaultMinFit, "with --check-fit: the fit `S` (1-5) a dialogue must reach")
	fitRounds := fs.Int("fit-rounds", v2r.DefaultFitRounds, "with --check-fit: ask the writer again at most `N` times for a better fit (0: judge only)")
	keepUnfit := fs.Bool("keep-unfit", false, "with --check-fit: write a dialogue still under --min-fit with the defect unfit_seed instead of failing its seed")
	var cultures app.Cultures
	cultures.Register(fs)
	var prompts app.Prompts
	prompts.Register(fs, "v2r/dialogue[.culture].tmpl, v2r/fit.tmpl")
	var personas app.Personas
	personas.Register(fs)
	p.WithRoles(ngv2rRoles)
	return p.RunModels(env, func(m *llm.Models) (pipeline.Stage, error) {
		if err := m.Need(llm.RoleWriter); err != nil {
			return nil, err
		}
		c := m.Caller(llm.RoleWriter)
		var fit v2r.FitCheck
		switch {
		case *checkFit:
			fit = v2r.FitCheck{Judge: m.Caller(llm.RoleJudge), MinFit: *minFit, Rounds: *fitRounds, KeepUnfit: *keepUnfit}
		case p.Flags.Changed("min-fit") || p.Flags.Changed("fit-rounds") || *keepUnfit:
			return nil, errors.New("--min-fit, --fit-rounds and --keep-unfit need --check-fit")
		}
		if err := cultures.Load(); err != nil {
			return nil, err
		}
		pack, err := prompts.Open()
		if err != nil {
			return nil, err
		}
		st, err := v2r.New(c, v2r.Options{
			Rules:    v2r.Rules{MinTurns: *minTurns, MaxTurns: *maxTurns, MinLangShare: *minShare},
			TextMode: *textMode,
			Pack:     pack,
			Profile:  cultures.Lookup,
			Fit:      fit,
		})
		if err != nil {
			return nil, err
		}
		return personas.Wrap(st, p.LLM.Seed, p.IO.Resume)
	})
}
