package label

import (
	"context"
	"strings"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/record"
)

// Quality criteria, in the order of record.Quality: the six of
// NormGenesis and the seed fit.
var qualityCriteria = []string{"consistency", "naturalness", "relevance", "coherence", "emotion", "norm", "fit"}

type scored struct {
	Score       int    `json:"score"`
	Explanation string `json:"explanation"`
}

type qualityResult struct {
	q    *record.Quality
	resp *llm.Response
}

// quality asks the dialogue-level judge for the seven 1-5 scores.
func (s *Stage) quality(ctx context.Context, rec *record.Record) (qualityResult, error) {
	p, err := s.opt.Pack.Render(PackStage, "quality", rec.Culture, s.newPromptData(rec, nil, s.opt.ExplainLang, s.opt.RotsLang))
	if err != nil {
		return qualityResult{}, err
	}
	resp, err := s.opt.Judge.Call(ctx, llm.Request{
		ID: rec.ID, Call: CallQuality, Schema: "label_quality", PromptPack: s.opt.Pack.Version(),
		Messages: []llm.Message{llm.System(p.System), llm.User(p.User)},
	})
	if err != nil {
		return qualityResult{resp: resp}, err
	}
	var reply map[string]scored
	if err := resp.Decode(&reply); err != nil {
		return qualityResult{}, err
	}
	q := &record.Quality{Explanations: map[string]string{}}
	scores := []*int{&q.Consistency, &q.Naturalness, &q.Relevance, &q.Coherence, &q.Emotion, &q.Norm, &q.Fit}
	for i, c := range qualityCriteria {
		v := reply[c]
		*scores[i] = v.Score
		if e := strings.TrimSpace(v.Explanation); e != "" {
			q.Explanations[c] = e
		}
	}
	if strings.TrimSpace(rec.Scenario) == "" && strings.TrimSpace(rec.Situation) == "" {
		// No seed to fit (an imported dialogue): the judge's fit means nothing.
		q.Fit = 0
		delete(q.Explanations, "fit")
	}
	return qualityResult{q: q, resp: resp}, nil
}

type verdict struct {
	Winner      string `json:"winner"`
	Explanation string `json:"explanation"`
}

// pairwise asks which of the record's and the baseline's dialogues is more
// natural and more norm-appropriate, in an order drawn per pair.
func (s *Stage) pairwise(ctx context.Context, rec, other *record.Record, by string) (*Pairwise, *llm.Response, error) {
	first := recordFirst(rec.ID, other.ID)
	d := s.newPromptData(rec, nil, s.opt.ExplainLang, s.opt.RotsLang)
	d.Dialogue, d.Other = renderPlain(rec.Turns), renderPlain(other.Turns)
	if !first {
		d.Dialogue, d.Other = d.Other, d.Dialogue
	}
	p, err := s.opt.Pack.Render(PackStage, "pairwise", rec.Culture, d)
	if err != nil {
		return nil, nil, err
	}
	resp, err := s.opt.Pairwise.Call(ctx, llm.Request{
		ID: rec.ID, Call: CallPairwise, Schema: "label_pairwise", PromptPack: s.opt.Pack.Version(),
		Messages: []llm.Message{llm.System(p.System), llm.User(p.User)},
	})
	if err != nil {
		return nil, resp, err
	}
	var reply struct {
		Naturalness verdict `json:"naturalness"`
		Norm        verdict `json:"norm"`
	}
	if err := resp.Decode(&reply); err != nil {
		return nil, nil, err
	}
	pw := &Pairwise{Against: other.ID, By: by, First: "baseline",
		Naturalness: outcome(reply.Naturalness.Winner, first), Norm: outcome(reply.Norm.Winner, first),
		Explanations: map[string]string{}}
	if first {
		pw.First = "record"
	}
	for k, v := range map[string]verdict{"naturalness": reply.Naturalness, "norm": reply.Norm} {
		if e := strings.TrimSpace(v.Explanation); e != "" {
			pw.Explanations[k] = e
		}
	}
	return pw, resp, nil
}
