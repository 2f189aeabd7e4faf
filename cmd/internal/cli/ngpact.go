package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/pact"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// defaultPactTemperature makes --method sample draw from the model's
// distribution when --temperature is not given (many servers default to 0
// or near it, which would give K copies of one answer).
const defaultPactTemperature = 1.0

var ngpactRoles = []llm.Role{{Name: llm.RoleSubject, Help: "the models under test (--subjects A,B,C)", Panel: true}}

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
	questions := fs.StringSlice("questions", record.PactDefaultQuestions, "question `FRAMINGS`, comma-separated: personal (what would you personally do if you were the actor), norm (what would most people in this situation consider appropriate), both the paper's; choice (what should the actor do)")
	method := fs.String("method", pact.MethodLogprobs, "how to get the distribution: `METHOD` logprobs (one call, the option labels' probabilities) or sample (--samples replies)")
	samples := fs.Int("samples", 10, "replies per item, model and framing with --method sample, `K`")
	promptLang := fs.String("prompt-lang", pact.PromptItem, "language of the prompt: `LANG` item (the item's) or en")
	fs.Lookup("questions").DefValue = strings.Join(record.PactDefaultQuestions, ",")
	var cultures app.Cultures
	cultures.Register(fs)
	var prompts app.Prompts
	prompts.Register(fs, "pact/question[.lang].tmpl")
	p.WithRoles(ngpactRoles)
	return p.RunModels(env, func(m *llm.Models) (pipeline.Stage, error) {
		if err := m.Need(llm.RoleSubject); err != nil {
			return nil, err
		}
		qs, err := pact.ParseQuestions(*questions)
		if err != nil {
			return nil, err
		}
		switch {
		case *method != pact.MethodLogprobs && *method != pact.MethodSample:
			return nil, fmt.Errorf("--method %q: want logprobs or sample", *method)
		case fs.Changed("samples") && *method != pact.MethodSample:
			return nil, errors.New("--samples goes with --method sample")
		case *samples < 1:
			return nil, fmt.Errorf("--samples %d: want at least 1", *samples)
		case *promptLang != pact.PromptItem && *promptLang != pact.PromptEnglish:
			return nil, fmt.Errorf("--prompt-lang %q: want item or en", *promptLang)
		}
		if err := cultures.Load(); err != nil {
			return nil, err
		}
		pack, err := prompts.Open()
		if err != nil {
			return nil, err
		}
		opt := pact.Options{Questions: qs, Method: *method, Samples: *samples, Seed: p.LLM.Seed,
			PromptLang: *promptLang, Pack: pack, Culture: func(name string) string {
				if c, err := cultures.Lookup(name); err == nil {
					return c.Display()
				}
				if name == "" {
					return name
				}
				return strings.ToUpper(name[:1]) + name[1:]
			}}
		if *method == pact.MethodSample && !fs.Changed("temperature") {
			t := defaultPactTemperature
			opt.Temperature = &t
		}
		seen := map[string]bool{}
		for _, s := range m.Panel(llm.RoleSubject) {
			name := s.Alias
			if name == llm.DefaultAlias && s.Model != "" {
				name = s.Model
			}
			if seen[name] {
				return nil, fmt.Errorf("--subjects: %s is given twice", name)
			}
			seen[name] = true
			opt.Subjects = append(opt.Subjects, pact.Subject{Name: name, Caller: s.Caller})
		}
		if *method == pact.MethodLogprobs && p.LLM.EmitRequests == "" && p.LLM.Responses == "" {
			for _, s := range opt.Subjects {
				if err := pact.ProbeLogprobs(context.Background(), s); err != nil {
					return nil, err
				}
			}
		}
		return pact.New(opt)
	})
}
