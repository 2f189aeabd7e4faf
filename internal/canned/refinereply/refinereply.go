// Package refinereply is the canned refinement judge of ngrefine: the
// judge's replies and the reply that accepts a seed as it is (the
// built-in demo model's; ngrefine's scripted test model,
// filters/refine/refinetest, writes its replies with these too).
package refinereply

import (
	"encoding/json"

	"github.com/ngkit/ngkit/internal/canned/wire"
)

// Request kinds, the reply schemas' titles.
const (
	Judge   = "refine_judge"
	Rejudge = "refine_rejudge"
	Rewrite = "refine_rewrite"
)

// Kind is the reply schema's title of a request ("" if none).
func Kind(req *wire.ChatRequest) string {
	var s struct{ Title string }
	json.Unmarshal(req.Schema(), &s)
	return s.Title
}

// Accept is a judge reply with 5 on every criterion (for Judge and
// Rejudge); "{}" for other kinds.
func Accept(kind string) string {
	switch kind {
	case Judge:
		return Judged(5, 5, 0, "Nothing to change.")
	case Rejudge:
		return Judged(5, 5, 5, "Nothing to change.")
	}
	return "{}"
}

// Judged is a judge reply; sp 0 leaves semantic preservation out.
func Judged(tr, lq, sp int, critique string) string {
	m := map[string]any{"task_relevance": tr, "linguistic_quality": lq, "critique": critique}
	if sp > 0 {
		m["semantic_preservation"] = sp
	}
	b, _ := json.Marshal(m)
	return string(b)
}
