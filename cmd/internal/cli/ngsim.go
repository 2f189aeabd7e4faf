package cli

import (
	"fmt"
	"os"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/sim"
	"github.com/ngkit/ngkit/pkg/episode"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/spf13/pflag"
)

// Ngsim runs episode specs against assistants under test (CultureConverse).
func Ngsim(env app.Env) error {
	p := app.NewLLMProgram("ngsim", "simulated multi-turn conversations with hidden cultural constraints (CultureConverse): a simulated user, assistants under test, a judge", "[flags] [FILE...]")
	p.Details = Help("ngsim")
	p.Examples = `
ngseed --types episode --culture thai | ngsim --assistants a,b --mode benchmark | ngstats
ngsim specs.jsonl --models models.yaml --role user=sim --assistants gpt41,qwen --judge judge -o episodes.jsonl --resume
ngsim specs.jsonl --mode gold --assistant-system system.txt -o gold.jsonl && ngcat gold.jsonl --to messages -o train.jsonl
ngcat --from episodes my-specs.csv | ngsim --max-turns 6 --errors failed.jsonl -o episodes.parquet`
	o := &ngsimOptions{}
	p.AddOptions(o)
	p.WithCultures()
	p.WithPrompts("sim/user.tmpl, sim/assistant.tmpl, sim/gold.tmpl, sim/judge.tmpl")
	p.WithRoles(ngsimRoles)
	p.OwnSource = true
	return p.Run(env, func(b *app.Build) (app.RunSpec, error) {
		st, aliases, err := ngsimStage(b, o)
		if err != nil {
			return app.RunSpec{}, err
		}
		// Each spec once per assistant under test.
		src := sim.Expand(pipeline.NewFileSource(b.Args, recio.OpenOptions{Stdin: env.Stdin}), aliases, o.mode)
		return app.RunSpec{Stage: st, Source: src}, nil
	})
}

// ngsimStage is ngsim's stage and the aliases of its assistants.
func ngsimStage(b *app.Build, o *ngsimOptions) (pipeline.Stage, []string, error) {
	m := b.Models
	mode, maxTurns, system, turnRetries, noJudge := o.mode, o.maxTurns, o.system, o.turnRetries, o.noJudge
	rs := []string{roles.User, roles.Assistant}
	if !noJudge {
		rs = append(rs, roles.Judge)
	}
	if err := m.Need(rs...); err != nil {
		return nil, nil, err
	}
	opt := sim.Options{User: m.Caller(roles.User), Mode: mode, MaxTurns: maxTurns, TurnRetries: turnRetries,
		NoJudge: noJudge, Pack: b.Pack, Profile: b.Cultures.Lookup}
	if !noJudge {
		opt.Judge = m.Caller(roles.Judge)
	}
	if system != "" {
		text, err := os.ReadFile(system)
		if err != nil {
			return nil, nil, fmt.Errorf("--assistant-system: %v", err)
		}
		opt.AssistantSystem = string(text)
	}
	var aliases []string
	for _, mem := range m.Panel(roles.Assistant) {
		opt.Assistants = append(opt.Assistants, sim.Assistant{Alias: mem.Alias, Caller: mem.Caller})
		aliases = append(aliases, mem.Alias)
	}
	st, err := sim.New(opt)
	return st, aliases, err
}

// ngsimOptions are ngsim's own flags (app.Options).
type ngsimOptions struct {
	mode, system          string
	maxTurns, turnRetries int
	noJudge               bool
}

// Register adds ngsim's flags to fs.
func (o *ngsimOptions) Register(fs *pflag.FlagSet) {
	fs.StringVar(&o.mode, "mode", episode.ModeBenchmark, "the episodes' `MODE`: benchmark (the assistant gets only the conversation) or gold (its system prompt holds the hidden constraints)")
	fs.IntVar(&o.maxTurns, "max-turns", sim.DefaultMaxTurns, "most assistant replies in an episode, `N`")
	fs.StringVar(&o.system, "assistant-system", "", "the assistants' system prompt, from `FILE` (default: \"You are a helpful assistant.\")")
	fs.IntVar(&o.turnRetries, "turn-retries", sim.DefaultTurnRetries, "times more a call is made, `N`, once the client's retries are spent, before the episode fails")
	fs.BoolVar(&o.noJudge, "no-judge", false, "run the episodes without the judge (no scores)")
}

// Check: at least one assistant reply. The mode is sim.New's to check.
func (o *ngsimOptions) Check() error {
	if o.maxTurns < 1 {
		return fmt.Errorf("--max-turns %d: want at least 1", o.maxTurns)
	}
	return nil
}
