package canned

import (
	"encoding/json"

	"github.com/ngkit/ngkit/internal/canned/v2rreply"
	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/internal/fakefit"
)

// fit answers ngv2r's seed-fit judge (schemas/llm/v2r_fit) with
// internal/fakefit's judgement of the seed and dialogue in the prompt: a
// dialogue whose speakers the scenario and situation do not name (the
// dialogue of another seed) scores low, with the reason.
func fit(req *wire.ChatRequest) string {
	score, why := fakefit.FromPrompt(v2rreply.FirstUser(req))
	b, _ := json.Marshal(map[string]any{"score": score, "explanation": why})
	return string(b)
}
