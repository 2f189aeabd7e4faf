package refine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/golden"
)

// The prompts of a two-round refinement in each culture, as sent, against
// golden files. The seed is a flawed release seed of the culture (a Korean
// seed in English, situations of 6-7 sentences), so the first rewrite
// prompt lists the broken rules; the second shows the original seed.
func TestGoldenPrompts(t *testing.T) {
	for _, culture := range []string{"american", "chinese", "korean"} {
		t.Run(culture, func(t *testing.T) {
			seed := pick(t, culture, kindFlawed, "")[0]
			rw := pick(t, culture, kindClean, seed.Category)
			f := &fakeCaller{}
			f.script(seed.ID, "judge.0", judged(4, 4, 0, "Fine as a story."))
			f.script(seed.ID, "rewrite.1", rewritten(rw[0]))
			f.script(seed.ID, "judge.1", judged(3, 4, 2, "The rewrite drifts from the original people."))
			f.script(seed.ID, "rewrite.2", rewritten(rw[1]))
			f.script(seed.ID, "judge.2", judged(5, 5, 5, "Good."))
			out, err := testStage(t, f, nil).Process(context.Background(), seed)
			if err != nil {
				t.Fatal(err)
			}
			if ref := out[0].Refinement; !ref.Accepted || ref.Rounds != 2 {
				t.Fatalf("refinement %+v", ref)
			}
			var b strings.Builder
			for _, req := range f.reqs {
				fmt.Fprintf(&b, "===== %s (schema %s) =====\n", req.Call, req.Schema)
				for _, m := range req.Messages {
					fmt.Fprintf(&b, "----- %s -----\n%s\n", m.Role, m.Content)
				}
			}
			golden.Check(t, filepath.Join("..", "..", "testdata", "prompts", "refine", culture+".golden"), b.String())
		})
	}
}
