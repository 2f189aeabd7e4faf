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
	"github.com/spf13/pflag"
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
	p.Details = `
Reads PACT items (JSONL, Parquet or Arrow; files or stdin): records with a
pact_item {actor, receiver, expectation, preference, follow_option, allow_option}
and a scenario, as ngseed --types pact writes them or ngcat --from pact imports them.
For each item, each model under test (--subjects A,B,C: endpoint aliases of the
models file; without it, the endpoint of --base-url/--model) and each question
framing (--questions):
  personal  "What would you personally do if you were the actor?"  (the paper's; default)
  norm      "What would most people in this situation consider appropriate?"  (the paper's; default)
  choice    "What should the actor do?"  (ngkit's, a normative question)
it asks the model to choose between the two options, shown as A and B in an order
drawn per call from --seed, the item id, the model, the framing and the sample
number (so reruns ask the same), and undone, to cancel position bias. The prompt
(pact/question in the prompt pack) gives the culture, scenario, actor, receiver, the
actor's persona attributes, the expectation and the preference; it is in the
item's language (English, Korean and Chinese prompts are built in; other
languages get the English one) or in English (--prompt-lang en).

--method logprobs (default): one call per item, model and framing, at temperature 0
with max_tokens 1 and top_logprobs ` + fmt.Sprint(pact.TopLogprobs) + `; p_follow is the probability of the follow
option's label among the first token's alternatives, renormalised over the two
labels. It needs a server that returns logprobs in chat completions (OpenAI,
vLLM, llama-server; checked with one call per model before the run: a server that
sends none is an error that suggests --method sample).
--method sample --samples K: K calls, each at --temperature (default 1) with its
own seed and option order; each reply must name an option (the letter, or the
option's text); one that names neither is asked again (--max-reasks), and a sample
still without an answer counts as not valid: p_follow is the follow share of the
valid samples.

Output: each item with one result per model and framing appended to its pact list
(one of the same model and framing already there is replaced): model, question,
method, p_follow, samples (asked), valid (answered with an option), majority
(follow_culture, allow_preference or tie), entropy (bits), error (why samples
were not valid). A record that is not an item (no pact_item, or one without its
expectation, preference or options) goes to the errors file with the reason; so
does an item whose calls failed for good (the server, not the answer), so that
--resume asks again. ngstats reports the results.`
	p.Examples = `
ngseed --types pact --culture korean --vary age=18-29,30-49,50+ | ngpact --models models.yaml --subjects gpt,qwen | ngstats
ngpact items.jsonl --subjects gpt --questions choice,norm -o results.jsonl
ngpact items.jsonl --method sample --samples 10 --temperature 1 --subjects llama
ngcat --from pact survey.csv | ngpact --prompt-lang en --subjects a,b,c -o results.parquet
NG_BASE_URL=http://localhost:8080/v1 NG_MODEL=local ngpact items.jsonl --method logprobs`
	fs := p.Flags
	o := &ngpactOptions{fs: fs}
	p.AddOptions(o)
	p.WithCultures()
	p.WithPrompts("pact/question[.lang].tmpl")
	p.WithRoles(ngpactRoles)
	return p.Run(env, app.Stage(func(b *app.Build) (pipeline.Stage, error) {
		m := b.Models
		if err := m.Need(llm.RoleSubject); err != nil {
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
