package cli

import (
	"errors"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/label"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/pipeline"
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
	tasksFlag := fs.String("tasks", strings.Join(label.DefaultTasks, ","), "comma-separated label `TASKS`: norm, intent, emotion, stage, safety (+rots), quality, or all")
	samples := fs.Int("samples", 1, "independent labellings per dialogue, `K`; turns get the majority, the distribution and the agreement")
	explain := fs.String("explain-lang", label.DefaultExplainLang, "language of the explanations: `LANG` code, or dialogue for the dialogue's language")
	rots := fs.String("rots-lang", label.DefaultRotsLang, "language of the rules-of-thumb: `LANG` code, or dialogue for the dialogue's language")
	drop := fs.Bool("drop-inconsistent", false, "send records whose norm labels contradict their dialogue type to the errors file")
	pairwise := fs.String("pairwise", "", "judge each record against its match in `FILE` (naturalness, norm appropriateness)")
	match := fs.String("pairwise-match", label.MatchAuto, "how records find their --pairwise match: `MODE` auto (id, else norm and type), id, norm")
	var cultures app.Cultures
	cultures.Register(fs)
	var prompts app.Prompts
	prompts.Register(fs, "label/turns[.culture].tmpl, ...")
	p.WithRoles(nglabelRoles)
	return p.RunModels(env, func(m *llm.Models) (pipeline.Stage, error) {
		if err := cultures.Load(); err != nil {
			return nil, err
		}
		c := m.Caller(llm.RoleLabeller)
		opt := label.Options{Samples: *samples, ExplainLang: *explain, RotsLang: *rots, DropInconsistent: *drop,
			Judge: m.Caller(llm.RoleJudge), Pairwise: m.Caller(llm.RolePairwise), RequireAll: p.Roles.RequireAll}
		if panel := m.Panel(llm.RoleLabeller); len(panel) > 1 {
			for _, l := range panel {
				opt.Panel = append(opt.Panel, label.Labeller{Name: l.Alias, Model: l.Model, Caller: l.Caller})
			}
		} else if p.Roles.RequireAll {
			return nil, errors.New("--require-all-labellers needs a panel: --labellers A,B,... (or --role labeller=A,B,...)")
		}
		switch {
		case *samples < 1:
			return nil, errors.New("--samples must be at least 1")
		case fs.Changed("pairwise-match") && *pairwise == "":
			return nil, errors.New("--pairwise-match goes with --pairwise")
		}
		for _, l := range []struct{ flag, v string }{{"--explain-lang", *explain}, {"--rots-lang", *rots}} {
			if l.v != "dialogue" && !validLang(l.v) {
				return nil, errors.New(l.flag + " " + l.v + ": want a language code (en, ko, zh, ...) or dialogue")
			}
		}
		if *pairwise == "" || fs.Changed("tasks") {
			t, err := label.ParseTasks(*tasksFlag)
			if err != nil {
				return nil, err
			}
			opt.Tasks = t
		}
		if *samples > 1 {
			if !fs.Changed("temperature") {
				t := defaultSampleTemperature
				opt.SampleTemperature = &t
			}
			opt.SampleSeed = p.LLM.Seed
		}
		pack, err := prompts.Open()
		if err != nil {
			return nil, err
		}
		opt.Pack = pack
		opt.Profile = cultures.Lookup
		if *pairwise != "" {
			if opt.Baseline, err = label.LoadBaseline(*pairwise, *match); err != nil {
				return nil, err
			}
		}
		need := []string{}
		if opt.Tasks.LabelsTurns() {
			need = append(need, llm.RoleLabeller)
		}
		if opt.Tasks[label.TaskQuality] {
			need = append(need, llm.RoleJudge)
		}
		if opt.Baseline != nil {
			need = append(need, llm.RolePairwise)
		}
		if err := m.Need(need...); err != nil {
			return nil, err
		}
		return label.New(c, opt)
	})
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
