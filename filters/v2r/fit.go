package v2r

import (
	"context"
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// The seed-fit check (ngv2r --check-fit): after a dialogue
// passes the rules, the judge role scores how well it realises its seed
// (scenario, situation, norm, dialogue type), 1-5, with a reason. Under
// the bar the writer is asked again in the same conversation, given the
// judge's score and reason, up to FitRounds times; each new dialogue must
// pass the rules again and is judged again. A dialogue that stays under
// the bar fails the seed (the errors file has the judge's reason), or,
// with KeepUnfit, is written with the defect unfit_seed.

// Defaults of the fit check, as ngv2r's flags.
const (
	DefaultMinFit    = 4
	DefaultFitRounds = 2
	// FitTask names the judge's template, v2r/fit.tmpl, and FitSchema its
	// reply schema.
	FitTask   = "fit"
	FitSchema = "v2r_fit"
)

// FitCheck configures the seed-fit check; a nil Judge is no check.
type FitCheck struct {
	// Judge makes the fit calls (the program's judge role).
	Judge llm.Caller
	// MinFit is the bar, 1-5: a dialogue scored under it is asked again.
	MinFit int
	// Rounds is the most re-asks of the writer for fit (0: judge only).
	Rounds int
	// KeepUnfit writes a dialogue still under the bar with the defect
	// unfit_seed instead of failing the seed.
	KeepUnfit bool
}

func (f FitCheck) validate() error {
	if f.Judge == nil {
		return nil
	}
	switch {
	case f.MinFit < 1 || f.MinFit > 5:
		return fmt.Errorf("--min-fit %d: want 1-5", f.MinFit)
	case f.Rounds < 0:
		return fmt.Errorf("--fit-rounds %d: cannot be negative", f.Rounds)
	}
	return nil
}

// FitData is what v2r/fit.tmpl sees.
type FitData struct {
	Culture, Language   string
	Category, Norm      string
	Type                string
	Scenario, Situation string
	// Dialogue is the dialogue, a "[index] Speaker: (action) text" line
	// per turn; Turns their number.
	Dialogue string
	Turns    int
}

type fitResult struct {
	score int
	why   string
}

// judgeFit asks the judge how well d realises the seed.
func (s *Stage) judgeFit(ctx context.Context, seed *record.Record, c *normbank.Culture, lng string, d *record.Record, round int) (fitResult, *llm.Response, error) {
	data := FitData{
		Culture: c.Display(), Language: langName(lng),
		Category: strings.ReplaceAll(seed.Category, "_", " "), Norm: seed.Norm, Type: seed.DialogueType,
		Scenario: strings.TrimSpace(seed.Scenario), Situation: strings.TrimSpace(seed.Situation),
		Dialogue: dialogue.Transcript(d.Turns, true), Turns: len(d.Turns),
	}
	p, err := s.opt.Pack.Render(PromptStage, FitTask, seed.Culture, data)
	if err != nil {
		return fitResult{}, nil, err
	}
	resp, err := s.opt.Fit.Judge.Call(ctx, llm.Request{
		ID: seed.ID, Call: callName(FitTask, round), Schema: FitSchema, PromptPack: s.opt.Pack.Version(),
		Messages: []llm.Message{llm.System(p.System), llm.User(p.User)},
	})
	if err != nil {
		return fitResult{}, nil, err
	}
	var reply struct {
		Score       int    `json:"score"`
		Explanation string `json:"explanation"`
	}
	if err := resp.Decode(&reply); err != nil {
		return fitResult{}, nil, fmt.Errorf("call %s: %w", callName(FitTask, round), err)
	}
	return fitResult{reply.Score, strings.TrimSpace(reply.Explanation)}, resp, nil
}

// callName names the calls of a record: "dialogue", "fit", then
// "dialogue.1", "fit.1", ... for the fit rounds (unique within the
// record, as Batch custom ids must be).
func callName(task string, round int) string {
	if round == 0 {
		return task
	}
	return fmt.Sprintf("%s.%d", task, round)
}

// fitReask is the writer's next message when the judge found the
// dialogue under the bar.
func fitReask(f fitResult, min int) string {
	return fmt.Sprintf("A reviewer checked whether your dialogue realises the seed and scored it %d of 5 (it must reach %d): %s "+
		"Write the dialogue again so that it plays out exactly this scenario and situation, with the people they name, the norm and the dialogue type, following every rule above. Reply in the same format.",
		f.score, min, strings.TrimRight(f.why, " ")+map[bool]string{true: "", false: "."}[strings.HasSuffix(f.why, ".")])
}
