package cli

import (
	"errors"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/label"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/pipeline"
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
	p.Details = `
Reads dialogue records (JSONL, Parquet or Arrow; files or stdin) and writes them with
labels on every turn: turns[].labels.{norm,intent,emotion,stage,safety,rots,explanation}.
One call per dialogue (and per sample) labels all its turns at once; the reply must
have exactly one entry per turn index with labels from the closed sets, or it is asked
again with what is wrong (--max-reasks), then retried; a record that still fails goes
to the errors file. Records without turns pass through unchanged.

Tasks (--tasks, comma-separated):
  norm     adhered, violated, not_relevant (adherence to the record's norm)
  intent   ACK AGR DIS APO THX EMP JUS SUG QUE CRT NR (the NormGenesis codes)
  emotion  anger disgust fear joy sadness surprise neutral (Ekman's six + neutral)
  stage    context violation recognition repair resolution (V2R dialogues only)
  safety   casual possibly_needs_caution probably_needs_caution needs_caution
           needs_intervention (ProsocialDialog), with rules-of-thumb in rots
           ("It's wrong to ..."), one or more for every turn above casual;
           --tasks rots is the same task
  quality  the dialogue-level judge, one more call: consistency, naturalness,
           relevance, coherence, emotion (1-5) and norm (1 fully violated,
           2 partially violated, 3 violated then resolved, 4 partially adhered,
           5 fully adhered), each with an explanation, in the record's quality
Default: norm,intent,emotion,stage. "all" is every task. The stage task applies to V2R
dialogues only, the norm task to records with a norm (not to ProsocialDialog imports).
Labels of tasks not run are kept; the explanation is replaced, but for the annotators'
reasons of safety votes that are not relabelled.

--samples K draws K independent labellings of each dialogue (seeds --seed+0..K-1, at
--temperature or 0.7): each turn gets the majority label (a tie goes to the earliest
sample), the share of each label in *_dist and the agreement (the majority's share,
averaged over the tasks); labels_meta gets the mean agreement and Fleiss' kappa over
the record's turns. Safety votes aggregate as ProsocialDialog aggregated its three
annotators: any needs_intervention -> needs_intervention; all casual -> casual;
otherwise 1, 2 or 3 caution votes of 3 -> possibly, probably, needs caution (for other
K, the caution share: up to 1/3, up to 2/3, more).

Consistency checks, written into checks.defects (ngstats counts them):
  label_violation_in_adherence  an adherence dialogue has a turn labelled violated
  label_no_violation            a violation or V2R dialogue has no violated turn
  label_v2r_unresolved          a V2R dialogue's violated turn is not followed by a
                                recognition turn and then an adhered repair turn
With --drop-inconsistent such records go to the errors file instead.

--pairwise FILE judges each record against a dialogue of FILE (e.g. NormDial's
dialogues as ngkit records with their norm and dialogue_type): the one with the same
id, else one of the same norm (norm_id, or the norm's text) and dialogue type, and of
the same culture where both name one, picked by a hash of the record id
(--pairwise-match). The judge says which is more natural and which is more
norm-appropriate; the two are shown in an order drawn per pair, to cancel position
bias. The result, win/tie/loss from the record's side, goes to the field "pairwise";
ngstats reports the win rates with 95% confidence intervals. Without --tasks,
--pairwise judges pairs only. Unmatched records pass through unjudged.

Cultures: the record's culture names a profile (its display name in the prompts, its
language when the record has no lang); add one with --culture-file FILE or a NAME.yaml
in $NG_CULTURES_DIR. Prompts: label/turns, label/quality and label/pairwise in the built-in pack (Korean
prompts in Korean, others in English naming the dialogue's language); --prompts DIR
overrides them file by file.`
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
		c := m.Caller(llm.RoleLabeller)
		opt := label.Options{Samples: o.samples, ExplainLang: o.explain, RotsLang: o.rots, DropInconsistent: o.drop,
			Judge: m.Caller(llm.RoleJudge), Pairwise: m.Caller(llm.RolePairwise), RequireAll: p.Roles.RequireAll}
		if panel := m.Panel(llm.RoleLabeller); len(panel) > 1 {
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
	fs.StringVar(&o.tasks, "tasks", strings.Join(label.DefaultTasks, ","), "comma-separated label `TASKS`: norm, intent, emotion, stage, safety (+rots), quality, or all")
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
