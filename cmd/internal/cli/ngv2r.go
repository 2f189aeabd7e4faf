package cli

import (
	"errors"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/v2r"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
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
	o := &ngv2rOptions{}
	p.AddOptions(o)
	p.WithCultures()
	p.WithPrompts("v2r/dialogue[.culture].tmpl, v2r/fit.tmpl")
	p.WithPersonas()
	p.WithRoles(ngv2rRoles)
	return p.Run(env, app.Stage(func(b *app.Build) (pipeline.Stage, error) {
		m := b.Models
		if err := m.Need(roles.Writer); err != nil {
			return nil, err
		}
		var fit v2r.FitCheck
		if o.checkFit {
			fit = v2r.FitCheck{Judge: m.Caller(roles.Judge), MinFit: o.minFit, Rounds: o.fitRounds, KeepUnfit: o.keepUnfit}
		}
		st, err := v2r.New(m.Caller(roles.Writer), v2r.Options{
			Rules:    v2r.Rules{MinTurns: o.minTurns, MaxTurns: o.maxTurns, MinLangShare: o.minShare},
			TextMode: o.textMode,
			Pack:     b.Pack,
			Profile:  b.Cultures.Lookup,
			Fit:      fit,
		})
		if err != nil {
			return nil, err
		}
		return b.WithPersonas(st)
	}))
}

// ngv2rOptions are ngv2r's own flags (app.Options).
type ngv2rOptions struct {
	minTurns, maxTurns int
	minShare           float64
	textMode, checkFit bool
	minFit, fitRounds  int
	keepUnfit          bool
	fs                 *pflag.FlagSet
}

// Register adds ngv2r's flags to fs.
func (o *ngv2rOptions) Register(fs *pflag.FlagSet) {
	o.fs = fs
	fs.IntVar(&o.minTurns, "min-turns", record.DefaultMinTurns, "fewest turns of a dialogue, `N`")
	fs.IntVar(&o.maxTurns, "max-turns", record.DefaultMaxTurns, "most turns of a dialogue, `N` (0: no bound)")
	fs.Float64Var(&o.minShare, "min-lang-share", 1, "share of the turns the detector is sure of that must be in the dialogue's language, `SHARE` (1: all)")
	fs.BoolVar(&o.textMode, "text-mode", false, `ask for "[stage] Name: (direction) words" lines instead of JSON, for servers without JSON output`)
	fs.BoolVar(&o.checkFit, "check-fit", false, "have the judge role score each dialogue's fit to its seed, 1-5, and ask the writer again under --min-fit")
	fs.IntVar(&o.minFit, "min-fit", v2r.DefaultMinFit, "with --check-fit: the fit `S` (1-5) a dialogue must reach")
	fs.IntVar(&o.fitRounds, "fit-rounds", v2r.DefaultFitRounds, "with --check-fit: ask the writer again at most `N` times for a better fit (0: judge only)")
	fs.BoolVar(&o.keepUnfit, "keep-unfit", false, "with --check-fit: write a dialogue still under --min-fit with the defect unfit_seed instead of failing its seed")
}

// Check: the fit flags go with --check-fit. The bounds are v2r.New's.
func (o *ngv2rOptions) Check() error {
	if !o.checkFit && (o.fs.Changed("min-fit") || o.fs.Changed("fit-rounds") || o.keepUnfit) {
		return errors.New("--min-fit, --fit-rounds and --keep-unfit need --check-fit")
	}
	return nil
}
