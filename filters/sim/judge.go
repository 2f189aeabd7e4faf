package sim

import (
	"context"
	"fmt"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/record"
)

// judge scores the finished episode (sim/judge: the rubrics are in the
// prompt pack) and keeps the verdict in out.Sim.Judge.
func (s *Stage) judge(ctx context.Context, r *episodeRun) error {
	data := r.data
	data.Turns = r.out.Turns
	p, err := s.opt.Pack.Render("sim", "judge", r.out.Culture, data)
	if err != nil {
		return err
	}
	check := func(resp *llm.Response) (any, error) { return parseJudge(resp.JSON, r.ep.Constraints) }
	resp, err := s.call(ctx, s.opt.Judge, llm.Request{ID: r.out.ID, Call: "judge", ReplySchema: r.schemas.judge,
		Messages: []llm.Message{llm.System(p.System), llm.User(p.User)}, PromptPack: s.opt.Pack.Version(), Check: check})
	if err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	r.out.Gen = append(r.out.Gen, resp.Gen)
	r.out.Sim.Judge, _ = resp.Checked.(*record.SimJudge)
	return nil
}
