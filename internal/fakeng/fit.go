package fakeng

import (
	"encoding/json"

	"github.com/ngkit/ngkit/filters/v2r/v2rtest"
	"github.com/ngkit/ngkit/internal/fakefit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// fit answers ngv2r's seed-fit judge (schemas/llm/v2r_fit) with
// internal/fakefit's judgement of the seed and dialogue in the prompt: a
// dialogue whose speakers the scenario and situation do not name (the
// dialogue of another seed) scores low, with the reason.
func fit(req *llmtest.ChatRequest) string {
	score, why := fakefit.FromPrompt(v2rtest.FirstUser(req))
	b, _ := json.Marshal(map[string]any{"score": score, "explanation": why})
	return string(b)
}
