package cli

import (
	"errors"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/v2r"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
)

// Ngv2r turns seeds into validated adherence, violation and
// Violation-to-Resolution dialogues.
func Ngv2r(env app.Env) error {
	p := app.NewLLMProgram("ngv2r", "seeds to adherence, violation and Violation-to-Resolution dialogues, validated, with an LLM", "[flags] [FILE...]")
	p.Details = `
Reads seed records (from ngseed or ngrefine: culture, category, norm, dialogue_type,
scenario, situation) and writes one dialogue record per seed, made by one LLM call.
The model answers JSON (turns of speaker, action, text and stage; optional
narration), with the JSON Schema of the dialogue type sent as response_format (or in
the prompt, when the server has no structured output: see --response-format).

Stages. V2R dialogues carry a stage on every turn: context, violation, recognition,
repair, resolution. The stages never go back in that order, and each of violation,
recognition, repair and resolution has a turn: context turns, if any, come first.
Violation dialogues carry the stage "violation" on the turns that violate the norm
(at least one); the other turns and adherence dialogues have no stage.

Validation. Every dialogue must have --min-turns to --max-turns turns, two speakers
or more, no empty turn (a turn of only a stage direction is fine), no format markers
in names, directions, texts or narration ([END], [끝], ---, headers, markdown, a
literal \n, stage tags, the name repeated in the text), the violation present for
violation and V2R dialogues, and every turn the language detector is sure of in the
seed's language (its lang, else its culture's): the share --min-lang-share, 1 by
default. This includes ngstats' own audit with the same bounds, so ngstats finds no
defect in the output. An invalid reply is asked again with the reasons
(--max-reasks), then tried afresh (--max-retries); a seed still without a valid
dialogue goes to the errors file with the reasons.

--text-mode, for servers that cannot write JSON at all, asks for one turn per line,
"Name: (stage direction) words", led by the stage tag: "[violation] Minsu: ..." (V2R:
every turn; violation dialogues: the violating turns; adherence: none). The lines
are parsed by pkg/dialogue (full-width colons, directions before or after the
colon, narration lines in brackets, [END] and other markers removed); a tag may also
follow the colon, be in 【】 or in any letter case; "[none]" is no stage. A reply
with several dialogues or lines that are neither a turn nor narration is re-asked.

Seed fit (--check-fit). The rules cannot tell a dialogue that is about something
else from one that plays out its seed. With --check-fit the judge role scores
each dialogue that passes them on how well it realises its seed (the scenario's
and situation's people, place and events, the norm, the dialogue type), 1-5 with
a reason; under --min-fit the writer is asked again, in the same conversation,
with the judge's score and reason, at most --fit-rounds times (each new dialogue
must pass the rules again and is judged again). The dialogue kept is the best
fitting; its fit and reason go to quality.fit and quality.explanations.fit. A
seed whose dialogue stays under --min-fit goes to the errors file with the
judge's reason, or, with --keep-unfit, is written with the defect unfit_seed
(for review: ngcat --drop-defects unfit_seed removes it later). Cost: one judge
call per dialogue, two more calls per fit round. Prompt: v2r/fit.tmpl.

Output: id (a hash of the seed id), parent_id (the seed id), every field of the seed
(refinement, gen and unknown fields included), lang, turns (index, speaker, action,
text, lang as detected, stage), narration, checks (the language check of the
dialogue), quality (with --check-fit: fit and its explanation), and the calls
appended to gen (dialogue, fit, dialogue.1, fit.1, ...). --resume skips seeds
whose dialogue is in the -o file.

Cultures: the seed's culture names a profile (built in: ` + strings.Join(normbank.BuiltinCultures(), ", ") + `);
add one with --culture-file FILE or a NAME.yaml in $NG_CULTURES_DIR. Prompts:
v2r/dialogue.tmpl (English, naming the output language) and v2r/dialogue.korean.tmpl
(Korean); --prompts DIR overrides them file by file.

Personas: the seed's persona (ngseed --personas / --vary) goes into the prompt
("Who is talking: age: 50-64; hierarchy: senior"). --personas FILE gives each seed
without one a persona drawn from the file by --seed and the seed's id; --vary
ATTR=v1,v2 writes each seed's dialogue once per value (every combination when
repeated): each variant seed has its own id and variant_of the seed's id, and its
dialogue carries both. --vary cannot be resumed (--resume).`
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
		if err := m.Need(llm.RoleWriter); err != nil {
			return nil, err
		}
		var fit v2r.FitCheck
		if o.checkFit {
			fit = v2r.FitCheck{Judge: m.Caller(llm.RoleJudge), MinFit: o.minFit, Rounds: o.fitRounds, KeepUnfit: o.keepUnfit}
		}
		st, err := v2r.New(m.Caller(llm.RoleWriter), v2r.Options{
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
