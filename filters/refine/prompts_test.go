package refine

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden prompts in testdata/prompts/refine")

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
			golden(t, filepath.Join("..", "..", "testdata", "prompts", "refine", culture+".golden"), b.String())
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./filters/refine -run Golden -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the prompts sent (run with -update and review the diff):\n%s", path, got)
	}
}
