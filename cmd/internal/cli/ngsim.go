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
	"github.com/spf13/pflag"
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
	p.Details = `
Reads episode specs (from ngseed --types episode, or ngcat --from episodes FILE)
and writes one episode record per spec and assistant: the spec, turns (speaker
user / assistant, text, detected lang), sim (assistant alias, mode, how it
ended, the constraints the user revealed, the judge's verdict) and gen per call
and role. Its id is a hash of the spec's id, the assistant and the mode;
parent_id is the spec's id.

An episode starts with the spec's opening message. The assistant answers, as
a deployed assistant is called: its system prompt (--assistant-system FILE, or
a plain "You are a helpful assistant."), then the conversation as user and
assistant messages, no reply schema. The simulated user then writes its next
message (JSON: message, goal_met, revealed): it plays the spec's person and
reveals the hidden constraints only as each one's reveal mode allows (implicit:
hints; explicit: in its own words when relevant; never). The loop ends when the
user says the goal is met, or after --max-turns assistant replies. A user
message in the wrong language, that copies a hidden constraint's wording, or
that claims to reveal a constraint never to be revealed is asked again
(--max-reasks).

--mode benchmark gives the assistant only the conversation; --mode gold adds the
user's constraints to its system prompt (oracle-guided), to make training
dialogues (ngcat --to messages exports them).

The judge scores each episode 1-5 on assistance quality, cultural
appropriateness and language consistency, with rationales, and gives each hidden
constraint one outcome: inferred_and_respected, respected_without_asking,
violated, not_addressed. The rubrics are in the prompt pack (sim/judge.tmpl;
--prompts DIR overrides it).

Faults: episodes run concurrently, each one's turns in order. A failed call is
retried by the client (--max-retries) and then --turn-retries more times, with
the conversation so far; an episode that still cannot finish goes to the errors
file with its partial transcript and the reason. With the cache (on by default)
and --resume, a rerun skips the episodes written and replays the finished turns
of the others from the cache: it pays only for the unfinished turns.

Prompts: sim/user, sim/assistant, sim/gold and sim/judge in the built-in pack.`
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
	roles := []string{llm.RoleUser, llm.RoleAssistant}
	if !noJudge {
		roles = append(roles, llm.RoleJudge)
	}
	if err := m.Need(roles...); err != nil {
		return nil, nil, err
	}
	opt := sim.Options{User: m.Caller(llm.RoleUser), Mode: mode, MaxTurns: maxTurns, TurnRetries: turnRetries,
		NoJudge: noJudge, Pack: b.Pack, Profile: b.Cultures.Lookup}
	if !noJudge {
		opt.Judge = m.Caller(llm.RoleJudge)
	}
	if system != "" {
		text, err := os.ReadFile(system)
		if err != nil {
			return nil, nil, fmt.Errorf("--assistant-system: %v", err)
		}
		opt.AssistantSystem = string(text)
	}
	var aliases []string
	for _, mem := range m.Panel(llm.RoleAssistant) {
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
