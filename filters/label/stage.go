// Package label is nglabel's stage: turn-level labels (norm adherence,
// speaker intent, emotion, V2R stage, ProsocialDialog safety with
// rules-of-thumb) from one LLM call per dialogue and sample, aggregated
// over --samples labellings (majority, distribution, agreement); the
// dialogue-level quality judge; pairwise judgements against a baseline
// corpus; and consistency checks of the norm labels against the dialogue
// type.
package label

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// Options configure the stage.
type Options struct {
	// Tasks to label; none (with a Baseline) judges pairs only.
	Tasks Tasks
	// Samples is the number of independent labellings per dialogue (>= 1).
	Samples int
	// SampleTemperature and SampleSeed make the samples differ when
	// Samples > 1: sample i is drawn with seed SampleSeed+i and, when
	// SampleTemperature is not nil, that temperature (nil: the client's).
	SampleTemperature *float64
	SampleSeed        int64
	// ExplainLang and RotsLang are the languages of the explanations and
	// of the rules-of-thumb: "dialogue" or a language code; "" is
	// DefaultExplainLang and DefaultRotsLang.
	ExplainLang, RotsLang string
	// DropInconsistent fails records with consistency defects instead of
	// writing them with the defects in checks.
	DropInconsistent bool
	// Baseline, when set, has every record judged against its match.
	Baseline *Baseline
	// Pack holds the prompts (prompt.Builtin() when nil).
	Pack *prompt.Pack
	// Panel, with two or more labellers, has every labeller label each
	// dialogue (Samples times each): turns get the majority over all
	// their labellings, each labeller's own label in labels.by_model,
	// and labels_meta the panel's agreement (panel.go). Empty: the
	// stage's caller labels alone.
	Panel []Labeller
	// RequireAll fails a record when a labeller of the panel gave no
	// labels; otherwise the others' labels are kept and labels_meta
	// names the failed one.
	RequireAll bool
	// Judge makes the quality calls and Pairwise the pairwise ones (nil:
	// the stage's caller).
	Judge, Pairwise llm.Caller
	// Profile finds a culture's profile; normbank.Profile when nil.
	Profile func(name string) (*normbank.Culture, error)
}

// Stage labels records; it is a pipeline.Stage.
type Stage struct {
	caller   llm.Caller
	opt      Options
	profiles sync.Map // culture -> *normbank.Culture (nil: none)
	schemas  sync.Map // tasks joined by "," -> *llm.Schema
}

// turnsSchema is label_turns as sent to the server for these tasks: each
// entry must carry the tasks' labels. The file requires only index and
// explanation (it serves every task set), so a grammar engine let real
// models (SmolLM2, Qwen2.5-Coder) write the label into explanation and
// leave the label out, every time; validation stays the file's (nglabel
// checks the labels itself and names what is missing). A label of the
// table that the file lacks (a test holds the file to the table; a row
// added in a test is not in it) is added with its values, to what is
// validated too.
func (s *Stage) turnsSchema(tasks []string) (*llm.Schema, error) {
	key := strings.Join(tasks, ",")
	if v, ok := s.schemas.Load(key); ok {
		return v.(*llm.Schema), nil
	}
	var missing []string
	edit := func(doc map[string]any) {
		props, _ := doc["properties"].(map[string]any)
		turns, _ := props["turns"].(map[string]any)
		items, _ := turns["items"].(map[string]any)
		if items == nil {
			return
		}
		req, _ := items["required"].([]any)
		labels, _ := items["properties"].(map[string]any)
		for _, t := range tasks {
			req = append(req, t)
			if _, ok := labels[t]; !ok && labels != nil {
				missing = append(missing, t)
				enum := []any{}
				for _, v := range rowOf(t).Values {
					enum = append(enum, v)
				}
				labels[t] = map[string]any{"type": "string", "enum": enum}
			}
		}
		items["required"] = req
	}
	sch, err := llm.DeriveSent("label_turns", edit)
	if err == nil && len(missing) > 0 {
		sch, err = llm.DeriveSchema("label_turns", edit)
	}
	if err != nil {
		return nil, err
	}
	v, _ := s.schemas.LoadOrStore(key, sch)
	return v.(*llm.Schema), nil
}

// New returns the stage. (It has no options to refuse yet; the error
// keeps its shape that of every LLM stage.)
func New(caller llm.Caller, opt Options) (*Stage, error) {
	if opt.Samples < 1 {
		opt.Samples = 1
	}
	if opt.Pack == nil {
		opt.Pack = prompt.Builtin()
	}
	if opt.Judge == nil {
		opt.Judge = caller
	}
	if opt.Pairwise == nil {
		opt.Pairwise = caller
	}
	if len(opt.Panel) == 0 {
		opt.Panel = []Labeller{{Caller: caller}}
	}
	if opt.Profile == nil {
		opt.Profile = normbank.Profile
	}
	return &Stage{caller: caller, opt: opt}, nil
}

// Name implements pipeline.Stage.
func (s *Stage) Name() string { return "nglabel" }

// Call names, for gen, the usage summary and Batch custom ids.
const (
	CallLabels   = "labels"
	CallQuality  = "quality"
	CallPairwise = "pairwise"
)

// Process implements pipeline.Stage: every call first, then the record is
// changed, so a record that fails goes to the errors file as it came in.
// A dialogue without turns passes through unlabelled.
func (s *Stage) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	if len(rec.Turns) == 0 {
		return []*record.Record{rec}, nil
	}
	var (
		gens     []record.Gen
		deferred bool
		model    string
	)
	// keep records a call's provenance; with --emit-requests every call
	// of the record is written before the record is deferred.
	keep := func(resp *llm.Response, err error) (bool, error) {
		if errors.Is(err, llm.ErrDeferred) {
			deferred = true
			return false, nil
		}
		if err != nil {
			return false, err
		}
		gens = append(gens, resp.Gen)
		if model == "" {
			model = resp.Gen.Model
		}
		return true, nil
	}

	tasks := s.opt.Tasks.For(rec)
	var (
		samples [][]turnLabels
		panel   *panelResult
	)
	if len(tasks) > 0 {
		spec := s.spec(rec, tasks)
		p, err := s.opt.Pack.Render(PackStage, "turns", rec.Culture, s.newPromptData(rec, tasks, s.opt.ExplainLang, s.opt.RotsLang))
		if err != nil {
			return nil, err
		}
		if panel, err = s.askPanel(ctx, rec, spec, p, keep); err != nil {
			return nil, err
		}
		samples = panel.all()
	}

	var quality *record.Quality
	if s.opt.Tasks[TaskQuality] {
		q, err := s.quality(ctx, rec)
		if ok, err := keep(q.resp, err); err != nil {
			return nil, err
		} else if ok {
			quality = q.q
		}
	}

	var pair *Pairwise
	if s.opt.Baseline != nil {
		if other, by := s.opt.Baseline.Find(rec); other != nil {
			pw, resp, err := s.pairwise(ctx, rec, other, by)
			if ok, err := keep(resp, err); err != nil {
				return nil, err
			} else if ok {
				pair = pw
			}
		}
	}
	if deferred {
		return nil, llm.ErrDeferred
	}

	if len(samples) > 0 {
		applyTurns(rec, tasks, samples)
		panel.apply(rec, tasks)
	}
	if quality != nil {
		rec.Quality = quality
	}
	if pair != nil {
		rec.SetExtra(PairwiseKey, pair)
	}
	if len(samples) > 0 || quality != nil {
		s.setMeta(rec, tasks, model, quality != nil, len(samples))
		panel.setMeta(rec, tasks)
	}
	rec.Gen = append(rec.Gen, gens...)
	found := Consistency(rec)
	setConsistency(rec, found)
	if s.opt.DropInconsistent && len(found) > 0 {
		return nil, fmt.Errorf("inconsistent labels (--drop-inconsistent): %s", describe(found))
	}
	return []*record.Record{rec}, nil
}

func (s *Stage) spec(rec *record.Record, tasks []string) turnsSpec {
	dl := s.dialogueLang(rec)
	return turnsSpec{turns: len(rec.Turns), tasks: tasks,
		explainLang: resolveLang(s.opt.ExplainLang, DefaultExplainLang, dl), rotsLang: resolveLang(s.opt.RotsLang, DefaultRotsLang, dl)}
}

// callName names sample i: "labels", or "labels.1".."labels.k".
func (s *Stage) callName(i int) string {
	if s.opt.Samples == 1 {
		return CallLabels
	}
	return CallLabels + "." + strconv.Itoa(i+1)
}

// sampling makes sample i differ from the others (only with --samples).
func (s *Stage) sampling(i int) *llm.Sampling {
	if s.opt.Samples == 1 {
		return nil
	}
	seed := s.opt.SampleSeed + int64(i)
	return &llm.Sampling{Temperature: s.opt.SampleTemperature, Seed: &seed}
}

// setMeta records how the labels were made: the model, the tasks (with
// those of earlier runs that this one did not redo), and with several
// samples their number and agreement.
func (s *Stage) setMeta(rec *record.Record, tasks []string, model string, quality bool, labellings int) {
	m := rec.LabelsMeta
	if m == nil {
		m = &record.LabelsMeta{}
		rec.LabelsMeta = m
	}
	if model != "" {
		m.Model = model
	}
	done := slices.Clone(tasks)
	if quality {
		done = append(done, TaskQuality)
	}
	for _, t := range done {
		if !slices.Contains(m.Tasks, t) {
			m.Tasks = append(m.Tasks, t)
		}
	}
	all := AllTasks()
	order := func(t string) int {
		if i := slices.Index(all, t); i >= 0 {
			return i
		}
		return len(all)
	}
	slices.SortFunc(m.Tasks, func(a, b string) int { return order(a) - order(b) })
	if labellings == 0 {
		return
	}
	// With a panel the labellings are every sample of every labeller
	// that answered.
	m.Samples = labellings
	m.Agreement, m.Kappa = 0, 0
	if labellings > 1 {
		m.Agreement, m.Kappa = recordAgreement(rec, tasks, labellings)
	}
}
