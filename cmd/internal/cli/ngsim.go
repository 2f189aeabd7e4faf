package cli

import (
	"fmt"
	"os"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/sim"
	"github.com/ngkit/ngkit/pkg/episode"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
)

// ngsimRoles are ngsim's model roles: the simulated user, the assistants
// under test (several at once: --assistants) and the judge.
var ngsimRoles = []llm.Role{
	{Name: llm.RoleUser, Help: "the simulated user: plays the spec's person, reveals the hidden constraints as the spec says"},
	{Name: llm.RoleAssistant, Help: "the assistants under test (--assistants A,B: every spec against each), called with plain chat messages", Panel: true},
	{Name: llm.RoleJudge, Help: "scores each episode and gives an outcome per hidden constraint (--judge ALIAS)"},
}

// Ngsim runs episode specs against assistants under test (CultureConverse).
func Ngsim(env app.Env) error {
	p := app.NewLLMProgram("ngsim", "simulated multi-turn conversations with hidden cultural constraints (CultureConverse): a simulated user, assistants under test, a judge", "[flags] [FILE...]")
	p.Details = Help("ngsim")
	p.Examples = `
ngseed --types episode --culture thai | ngsim --assistants a,b --mode benchmark | ngstats
ngsim specs.jsonl --models models.yaml --role user=sim --assistants gpt41,qwen --judge judge -o episodes.jsonl --resume
ngsim specs.jsonl --mode gold --assistant-system system.txt -o gold.jsonl && ngcat gold.jsonl --to messages -o train.jsonl
ngcat --from episodes my-specs.csv | ngsim --max-turns 6 --errors failed.jsonl -o episodes.parquet`
	fs := p.Flags
	mode := fs.String("mode", episode.ModeBenchmark, "the episodes' `MODE`: benchmark (the assistant gets only the conversation) or gold (its system prompt holds the hidden constraints)")
	maxTurns := fs.Int("max-turns", sim.DefaultMaxTurns, "most assistant replies in an episode, `N`")
	system := fs.String("assistant-system", "", "the assistants' system prompt, from `FILE` (default: \"You are a helpful assistant.\")")
	turnRetries := fs.Int("turn-retries", sim.DefaultTurnRetries, "times more a call is made, `N`, once the client's retries are spent, before the episode fails")
	noJudge := fs.Bool("no-judge", false, "run the episodes without the judge (no scores)")
	var cultures app.Cultures
	cultures.Register(fs)
	var prompts app.Prompts
	prompts.Register(fs, "sim/user.tmpl, sim/assistant.tmpl, sim/gold.tmpl, sim/judge.tmpl")

	var aliases []string
	p.Source = func(args []string) (pipeline.Source, error) {
		return sim.Expand(pipeline.NewFileSource(args, recio.OpenOptions{Stdin: env.Stdin}), aliases, *mode), nil
	}
	p.WithRoles(ngsimRoles)
	return p.RunModels(env, func(m *llm.Models) (pipeline.Stage, error) {
		if *maxTurns < 1 {
			return nil, fmt.Errorf("--max-turns %d: want at least 1", *maxTurns)
		}
		roles := []string{llm.RoleUser, llm.RoleAssistant}
		if !*noJudge {
			roles = append(roles, llm.RoleJudge)
		}
		if err := m.Need(roles...); err != nil {
			return nil, err
		}
		if err := cultures.Load(); err != nil {
			return nil, err
		}
		pack, err := prompts.Open()
		if err != nil {
			return nil, err
		}
		opt := sim.Options{User: m.Caller(llm.RoleUser), Mode: *mode, MaxTurns: *maxTurns, TurnRetries: *turnRetries,
			NoJudge: *noJudge, Pack: pack, Profile: cultures.Lookup}
		if !*noJudge {
			opt.Judge = m.Caller(llm.RoleJudge)
		}
		if *system != "" {
			b, err := os.ReadFile(*system)
			if err != nil {
				return nil, fmt.Errorf("--assistant-system: %v", err)
			}
			opt.AssistantSystem = string(b)
		}
		for _, mem := range m.Panel(llm.RoleAssistant) {
			opt.Assistants = append(opt.Assistants, sim.Assistant{Alias: mem.Alias, Caller: mem.Caller})
			aliases = append(aliases, mem.Alias)
		}
		return sim.New(opt)
	})
}
