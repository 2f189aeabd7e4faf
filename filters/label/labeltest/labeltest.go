// Package labeltest is the fake labelling model of nglabel's tests and
// benchmarks against pkg/llm/llmtest: the canned model
// (internal/canned/labelreply), and what tests need around it. Tests
// break its answers on purpose to exercise the re-asks.
package labeltest

import (
	"strings"

	"github.com/ngkit/ngkit/internal/canned/labelreply"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// The canned model's types and functions, by their names in the tests.
type (
	Turn   = labelreply.Turn
	Reply  = labelreply.Reply
	Prompt = labelreply.Prompt
)

var (
	Read     = labelreply.Read
	Labels   = labelreply.Labels
	Quality  = labelreply.Quality
	Pairwise = labelreply.Pairwise
	Answer   = labelreply.Answer
)

// IsReask reports whether the request asks again after an invalid reply.
func IsReask(req *llmtest.ChatRequest) bool {
	return strings.HasPrefix(req.LastUser(), "Your reply was not valid")
}

// Dialogues keeps the imported NormGenesis release records (the bundled
// sample, say, read with imports.ReadNormGenesis) with at least min turns
// (0: all, failed generations without turns too), as ngv2r would write
// them: V2R dialogues get a stage per turn (context, violation,
// recognition, repair, then resolution), the order the fake labeller
// also answers. It changes the records it is given.
func Dialogues(all []*record.Record, min int) []*record.Record {
	var out []*record.Record
	for _, rec := range all {
		if len(rec.Turns) < min {
			continue
		}
		if rec.DialogueType == record.TypeV2R {
			for i := range rec.Turns {
				rec.Turns[i].Stage = record.Stages[min4(i)]
			}
		}
		out = append(out, rec)
	}
	return out
}

func min4(i int) int { return min(i, 4) }
