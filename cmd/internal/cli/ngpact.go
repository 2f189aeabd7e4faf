package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/pact"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
)

// defaultPactTemperature makes --method sample draw from the model's
// distribution when --temperature is not given (many servers default to 0
// or near it, which would give K copies of one answer).
const defaultPactTemperature = 1.0

// Ngpact evaluates PACT items: for each model under test and question
// framing, the distribution over following the culture and allowing the
// preference.
func Ngpact(env app.Env) error {
	p := app.NewLLMProgram("ngpact", "PACT: does a model follow the cultural norm or allow the personal preference? distributions per model and question framing", "[flags] [FILE...]")
	p.Details = Help("ngpact")
	p.Examples = `
ngseed --types pact --culture korean --vary age=18-29,30-49,50+ | ngpact --models models.yaml --subjects gpt,qwen | ngstats
ngpact items.jsonl --subjects gpt --questions choice,norm -o results.jsonl
ngpact items.jsonl --method sample --samples 10 --temperature 1 --subjects llama
ngcat --from pact survey.csv | ngpact --prompt-lang en --subjects a,b,c -o results.parquet
NG_BASE_URL=http://localhost:8080/v1 NG_MODEL=local ngpact items.jsonl --method logprobs`
	fs := p.Flags
	o := &ngpactOptions{fs: fs}
	p.AddOptions(o)
	fs.StringVar(&p.LLM.API, "api", llm.APIChat, "how the models are asked: `API` chat (chat completions) or completions (a base model: a plain-text prompt to /v1/completions); a models file's api: sets it per endpoint")
	p.WithCultures()
	p.WithPrompts("pact/question[.lang].tmpl")
	p.WithRoles(ngpactRoles)
	return p.Run(env, app.Stage(func(b *app.Build) (pipeline.Stage, error) {
		m := b.Models
		if err := m.Need(roles.Subject); err != nil {
			return nil, err
		}
		pack := b.Pack
		opt := pact.Options{Questions: o.parsed, Method: o.method, Samples: o.samples, Seed: p.LLM.Seed,
			PromptLang: o.promptLang, Pack: pack, Culture: func(name string) string {
				if c, err := b.Cultures.Lookup(name); err == nil {
					return c.Display()
				}
				if name == "" {
					return name
				}
				return strings.ToUpper(name[:1]) + name[1:]
			}}
		if o.method == pact.MethodSample && !fs.Changed("temperature") {
			t := defaultPactTemperature
			opt.Temperature = &t
		}
		seen := map[string]bool{}
		for _, s := range m.Panel(roles.Subject) {
			name := s.Alias
			if name == llm.DefaultAlias && s.Model != "" {
				name = s.Model
			}
			if seen[name] {
				return nil, fmt.Errorf("--subjects: %s is given twice", name)
			}
			seen[name] = true
			opt.Subjects = append(opt.Subjects, pact.Subject{Name: name, Caller: s.Caller, Base: s.API == llm.APICompletions})
		}
		if o.method == pact.MethodLogprobs && p.LLM.EmitRequests == "" && p.LLM.Responses == "" {
			for _, s := range opt.Subjects {
				if err := pact.ProbeLogprobs(context.Background(), s); err != nil {
					return nil, err
				}
			}
		}
		return pact.New(opt)
	}))
}

// ngpactOptions are ngpact's own flags (app.Options).
type ngpactOptions struct {
	questions          []string
	method, promptLang string
	samples            int
	parsed             []string // the framings, from Check
	fs                 *pflag.FlagSet
}

// Register adds ngpact's flags to fs.
func (o *ngpactOptions) Register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&o.questions, "questions", record.PactDefaultQuestions, "question `FRAMINGS`, comma-separated: personal (what would you personally do if you were the actor), norm (what would most people in this situation consider appropriate), both the paper's; choice (what should the actor do)")
	fs.StringVar(&o.method, "method", pact.MethodLogprobs, "how to get the distribution: `METHOD` logprobs (one call, the option labels' probabilities) or sample (--samples replies)")
	fs.IntVar(&o.samples, "samples", 10, "replies per item, model and framing with --method sample, `K`")
	fs.StringVar(&o.promptLang, "prompt-lang", pact.PromptItem, "language of the prompt: `LANG` item (the item's) or en")
	fs.Lookup("questions").DefValue = strings.Join(record.PactDefaultQuestions, ",")
}

// Check parses --questions and refuses the other flags' bad values.
func (o *ngpactOptions) Check() error {
	qs, err := pact.ParseQuestions(o.questions)
	if err != nil {
		return err
	}
	o.parsed = qs
	switch {
	case o.method != pact.MethodLogprobs && o.method != pact.MethodSample:
		return fmt.Errorf("--method %q: want logprobs or sample", o.method)
	case o.fs.Changed("samples") && o.method != pact.MethodSample:
		return errors.New("--samples goes with --method sample")
	case o.samples < 1:
		return fmt.Errorf("--samples %d: want at least 1", o.samples)
	case o.promptLang != pact.PromptItem && o.promptLang != pact.PromptEnglish:
		return fmt.Errorf("--prompt-lang %q: want item or en", o.promptLang)
	}
	return nil
}
