package refine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// version is one scenario/situation pair of a seed and its judgement.
type version struct {
	scenario, situation string
	scores              record.Scores
	critique            string
	// problems are the audit rules the text breaks (only the seed as it
	// came in can have any: rewrites that break one are refused).
	problems []string
}

// min is the lowest score given (0 when none was).
func (v *version) min() float64 {
	m := math.Inf(1)
	for _, s := range []float64{v.scores.TaskRelevance, v.scores.LinguisticQuality, v.scores.SemanticPreservation} {
		if s > 0 {
			m = math.Min(m, s)
		}
	}
	if math.IsInf(m, 1) {
		return 0
	}
	return m
}

// passes: every criterion scored reaches the bar, and no audit rule is broken.
func (v *version) passes(bar int) bool {
	return len(v.problems) == 0 && v.min() >= float64(bar)
}

// beats says whether v, judged after b, is kept over b: a version that
// breaks no rule before one that does, then the higher lowest score,
// ties to v, the later one.
func (v *version) beats(b *version) bool {
	if (len(v.problems) == 0) != (len(b.problems) == 0) {
		return len(v.problems) == 0
	}
	return v.min() >= b.min()
}

// run is the refinement of one seed.
type run struct {
	s         *Stage
	rec       *record.Record
	cu        *culture
	exemplars []normbank.Exemplar

	first, best *version
	rounds      int
	gens        []record.Gen
}

// refine judges the seed, then rewrites and judges again until a version
// passes or the rounds are spent. Each rewrite starts from the previous
// version and its critique; semantic preservation is always judged
// against the seed as it came in, so that drift over rounds shows.
func (r *run) refine(ctx context.Context) error {
	orig := &version{scenario: r.rec.Scenario, situation: r.rec.Situation}
	orig.problems = r.cu.audit(orig)
	if j := r.s.firstJudgement(r.rec); j != nil { // --exemplars self judged it already
		orig.scores, orig.critique = j.v.scores, j.v.critique
		r.gens = append(r.gens, j.gens...)
	} else if err := r.judge(ctx, orig, nil, 0); err != nil {
		return err
	}
	r.first, r.best = orig, orig
	cur := orig
	for !cur.passes(r.s.opt.MinScore) && r.rounds < r.s.opt.MaxRounds {
		r.rounds++
		next, err := r.rewrite(ctx, cur, orig, r.rounds)
		if err != nil {
			return err
		}
		if err := r.judge(ctx, next, orig, r.rounds); err != nil {
			return err
		}
		if next.beats(r.best) {
			r.best = next
		}
		cur = next
	}
	return nil
}

// judgement is the judge's reply (schemas/llm/refine_judge and
// refine_rejudge; the schema keeps the scores within 1-5).
type judgement struct {
	TaskRelevance        int    `json:"task_relevance"`
	LinguisticQuality    int    `json:"linguistic_quality"`
	SemanticPreservation int    `json:"semantic_preservation"`
	Critique             string `json:"critique"`
}

// judge scores v; orig is the seed as it came in when v is a rewrite.
func (r *run) judge(ctx context.Context, v, orig *version, round int) error {
	d := r.data(v)
	schema := "refine_judge"
	if orig != nil {
		d.Original = &seedText{orig.scenario, orig.situation}
		schema = "refine_rejudge"
	}
	resp, err := r.call(ctx, "judge", round, d, schema, nil)
	if err != nil {
		return err
	}
	var j judgement
	if err := resp.Decode(&j); err != nil {
		return fmt.Errorf("call judge.%d: %w", round, err)
	}
	v.scores = record.Scores{TaskRelevance: float64(j.TaskRelevance), LinguisticQuality: float64(j.LinguisticQuality),
		SemanticPreservation: float64(j.SemanticPreservation)}
	v.critique = strings.TrimSpace(j.Critique)
	return nil
}

// rewrite asks for cur rewritten toward the exemplars with its critique.
// A rewrite that breaks an audit rule (length, markers, language) or
// changes nothing is refused and asked for again by the runtime.
func (r *run) rewrite(ctx context.Context, cur, orig *version, round int) (*version, error) {
	d := r.data(cur)
	for _, e := range r.exemplars {
		d.Exemplars = append(d.Exemplars, seedText{e.Scenario, e.Situation})
	}
	d.Scores, d.Critique, d.Problems = cur.scores, cur.critique, cur.problems
	if cur != orig {
		d.Original = &seedText{orig.scenario, orig.situation}
	}
	decode := func(resp *llm.Response) (*version, error) {
		var out struct{ Scenario, Situation string }
		if err := resp.Decode(&out); err != nil {
			return nil, err
		}
		v := &version{scenario: strings.TrimSpace(out.Scenario), situation: strings.TrimSpace(out.Situation)}
		if v.scenario == cur.scenario && v.situation == cur.situation {
			return nil, errors.New("the rewrite is the seed unchanged")
		}
		if p := r.cu.audit(v); len(p) > 0 {
			return nil, errors.New(strings.Join(p, "; "))
		}
		return v, nil
	}
	check := func(resp *llm.Response) (any, error) { return decode(resp) }
	resp, err := r.call(ctx, "rewrite", round, d, "refine_rewrite", check)
	if err != nil {
		return nil, err
	}
	v, err := decode(resp)
	if err != nil {
		return nil, fmt.Errorf("call rewrite.%d: %w", round, err)
	}
	return v, nil
}

// call renders refine/<task> for the culture and makes the call, named
// <task>.<round> (unique within the record, as Batch custom ids must be).
func (r *run) call(ctx context.Context, task string, round int, d *promptData, schema string, check func(*llm.Response) (any, error)) (*llm.Response, error) {
	pack := r.s.opt.Pack
	p, err := pack.Render("refine", task, r.cu.p.Name, d)
	if err != nil {
		return nil, err
	}
	c := r.s.caller
	if task == "judge" {
		c = r.s.opt.Judge
	}
	resp, err := c.Call(ctx, llm.Request{
		ID: r.rec.ID, Call: fmt.Sprintf("%s.%d", task, round),
		Messages:   []llm.Message{llm.System(p.System), llm.User(p.User)},
		Schema:     schema,
		PromptPack: pack.Version(),
		Check:      check,
	})
	if err != nil {
		return nil, err
	}
	r.gens = append(r.gens, resp.Gen)
	return resp, nil
}

// formatScores writes scores for messages: "task_relevance 3, ...".
func formatScores(s record.Scores) string {
	parts := []string{fmt.Sprintf("task_relevance %g", s.TaskRelevance), fmt.Sprintf("linguistic_quality %g", s.LinguisticQuality)}
	if s.SemanticPreservation > 0 {
		parts = append(parts, fmt.Sprintf("semantic_preservation %g", s.SemanticPreservation))
	}
	return strings.Join(parts, ", ")
}
