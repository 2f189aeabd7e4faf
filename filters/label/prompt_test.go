package label

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/golden"

	"github.com/ngkit/ngkit/pkg/prompt"
)

// Golden prompts per culture: every label template rendered for a release
// dialogue of each culture (all turn tasks asked, so every section shows).
func TestPromptsGolden(t *testing.T) {
	recs := sample(t)
	pack := prompt.Builtin()
	all := []string{TaskNorm, TaskIntent, TaskEmotion, TaskStage, TaskSafety}
	for _, ct := range [][2]string{{"korean", "violation"}, {"chinese", "v2r"}, {"american", "v2r"}} {
		rec := pick(t, recs, ct[0], ct[1])
		rec.Turns = rec.Turns[:min(len(rec.Turns), 6)] // shorter goldens
		other := pickNth(t, recs, ct[0], ct[1], 1)
		other.Turns = other.Turns[:3]
		for _, task := range []string{"turns", "quality", "pairwise"} {
			d := newPromptData(rec, all, "", "")
			if task == "pairwise" {
				d.Dialogue, d.Other = renderPlain(rec.Turns), renderPlain(other.Turns)
			}
			p, err := pack.Render(PackStage, task, rec.Culture, d)
			if err != nil {
				t.Fatal(err)
			}
			got := "== system ==\n" + p.System + "\n== user ==\n" + p.User + "\n"
			golden.Check(t, filepath.Join("../../testdata/prompts/label", task+"."+ct[0]+".golden"), got)
		}
	}
	// Explanations in the dialogue's language, rules-of-thumb in English.
	rec := pick(t, recs, "korean", "adherence")
	p, err := pack.Render(PackStage, "turns", "korean", newPromptData(rec, []string{TaskSafety}, "dialogue", "en"))
	if err != nil || !strings.Contains(p.User, "경험칙(rule-of-thumb) 하나 이상을 영어로") || !strings.Contains(p.User, "한국어로 쓴 짧은 한 문장") {
		t.Errorf("korean languages: %v\n%s", err, p.User)
	}
	p, err = pack.Render(PackStage, "turns", "chinese", newPromptData(pick(t, recs, "chinese", "violation"), []string{TaskNorm}, "dialogue", ""))
	if err != nil || !strings.Contains(p.User, "one short sentence in Chinese") || strings.Contains(p.User, "stage:") || strings.Contains(p.User, "rots") {
		t.Errorf("chinese, norm only: %v\n%s", err, p.User)
	}
}
