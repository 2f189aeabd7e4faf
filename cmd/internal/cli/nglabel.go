package cli

import (
	"errors"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/label"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
)

// defaultSampleTemperature makes --samples draw different labellings when
// --temperature is not given (many servers default to 0 or near it).
const defaultSampleTemperature = 0.7

// Nglabel labels the turns of dialogue records (norm adherence, intent,
// emotion, V2R stage, safety with rules-of-thumb), judges dialogue
// quality, and compares dialogues pairwise with a baseline corpus.
func Nglabel(env app.Env) error {
	p := app.NewLLMProgram("nglabel", "label dialogue turns (norm, intent, emotion, V2R stage, safety + rules-of-thumb) and judge dialogue quality with an LLM", "[flags] [FILE...]")
	p.Details = Help("nglabel")
	p.Examples = `
ngv2r < seeds.jsonl | nglabel | ngstats
nglabel dialogues.jsonl --tasks norm,intent,emotion,stage,quality -o labelled.jsonl
nglabel dialogues.jsonl --tasks safety --samples 3 --temperature 1 -o safety.jsonl
nglabel dialogues.jsonl --tasks all --explain-lang dialogue --drop-inconsistent --errors bad.jsonl
nglabel ours.jsonl --pairwise normdial.jsonl | ngstats   # normdial.jsonl: records with norm, dialogue_type, turns
nglabel dialogues.jsonl --emit-requests batch.jsonl   # then: nglabel dialogues.jsonl --responses out.jsonl
NG_BASE_URL=http://localhost:11434/v1 NG_MODEL=qwen2.5:7b nglabel dialogues.jsonl --concurrency 4`
	fs := p.Flags
	o := &nglabelOptions{fs: fs}
	p.AddOptions(o)
	p.WithCultures()
	p.WithPrompts("label/turns[.culture].tmpl, ...")
	p.WithRoles(nglabelRoles)
	return p.Run(env, app.Stage(func(b *app.Build) (pipeline.Stage, error) {
		m := b.Models
		c := m.Caller(roles.Labeller)
		opt := label.Options{Samples: o.samples, ExplainLang: o.explain, RotsLang: o.rots, DropInconsistent: o.drop,
			Judge: m.Caller(roles.Judge), Pairwise: m.Caller(roles.Pairwise), RequireAll: p.Roles.RequireAll}
		if panel := m.Panel(roles.Labeller); len(panel) > 1 {
			for _, l := range panel {
				opt.Panel = append(opt.Panel, label.Labeller{Name: l.Alias, Model: l.Model, Caller: l.Caller})
			}
		} else if p.Roles.RequireAll {
			return nil, errors.New("--require-all-labellers needs a panel: --labellers A,B,... (or --role labeller=A,B,...)")
		}
		opt.Tasks = o.parsedTasks
		if o.samples > 1 {
			if !fs.Changed("temperature") {
				t := defaultSampleTemperature
				opt.SampleTemperature = &t
			}
			opt.SampleSeed = p.LLM.Seed
		}
		opt.Pack = b.Pack
		opt.Profile = b.Cultures.Lookup
		if o.pairwise != "" {
			var err error
			if opt.Baseline, err = label.LoadBaseline(o.pairwise, o.match); err != nil {
				return nil, err
			}
		}
		need := []string{}
		if opt.Tasks.LabelsTurns() {
			need = append(need, roles.Labeller)
		}
		if opt.Tasks[label.TaskQuality] {
			need = append(need, roles.Judge)
		}
		if opt.Baseline != nil {
			need = append(need, roles.Pairwise)
		}
		if err := m.Need(need...); err != nil {
			return nil, err
		}
		return label.New(c, opt)
	}))
}

// validLang accepts a BCP-47 primary tag of 2 or 3 letters.
func validLang(s string) bool {
	if len(s) < 2 || len(s) > 3 {
		return false
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// nglabelOptions are nglabel's own flags (app.Options).
type nglabelOptions struct {
	tasks, explain, rots, pairwise, match string
	samples                               int
	drop                                  bool
	parsedTasks                           label.Tasks // from Check; nil: --pairwise alone
	fs                                    *pflag.FlagSet
}

// Register adds nglabel's flags to fs.
func (o *nglabelOptions) Register(fs *pflag.FlagSet) {
	fs.StringVar(&o.tasks, "tasks", strings.Join(label.DefaultTasks(), ","), "comma-separated label `TASKS`: "+labelTaskNames()+", quality, or all")
	fs.IntVar(&o.samples, "samples", 1, "independent labellings per dialogue, `K`; turns get the majority, the distribution and the agreement")
	fs.StringVar(&o.explain, "explain-lang", label.DefaultExplainLang, "language of the explanations: `LANG` code, or dialogue for the dialogue's language")
	fs.StringVar(&o.rots, "rots-lang", label.DefaultRotsLang, "language of the rules-of-thumb: `LANG` code, or dialogue for the dialogue's language")
	fs.BoolVar(&o.drop, "drop-inconsistent", false, "send records whose norm labels contradict their dialogue type to the errors file")
	fs.StringVar(&o.pairwise, "pairwise", "", "judge each record against its match in `FILE` (naturalness, norm appropriateness)")
	fs.StringVar(&o.match, "pairwise-match", label.MatchAuto, "how records find their --pairwise match: `MODE` auto (id, else norm and type), id, norm")
}

// Check refuses bad counts and languages and parses --tasks (not with
// --pairwise alone, which labels no task).
func (o *nglabelOptions) Check() error {
	switch {
	case o.samples < 1:
		return errors.New("--samples must be at least 1")
	case o.fs.Changed("pairwise-match") && o.pairwise == "":
		return errors.New("--pairwise-match goes with --pairwise")
	}
	for _, l := range []struct{ flag, v string }{{"--explain-lang", o.explain}, {"--rots-lang", o.rots}} {
		if l.v != "dialogue" && !validLang(l.v) {
			return errors.New(l.flag + " " + l.v + ": want a language code (en, ko, zh, ...) or dialogue")
		}
	}
	if o.pairwise == "" || o.fs.Changed("tasks") {
		t, err := label.ParseTasks(o.tasks)
		if err != nil {
			return err
		}
		o.parsedTasks = t
	}
	return nil
}

// labelTaskNames lists the turn label tasks for --tasks' usage, each with
// its first alias: "safety (+rots)".
func labelTaskNames() string {
	names := make([]string, len(record.LabelTasks))
	for i, t := range record.LabelTasks {
		names[i] = t.Name
		if len(t.Aliases) > 0 {
			names[i] += " (+" + t.Aliases[0] + ")"
		}
	}
	return strings.Join(names, ", ")
}
