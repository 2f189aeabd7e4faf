package label

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/internal/golden"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// Golden prompts per culture: every label template rendered for a release
// dialogue of each culture (all turn tasks asked, so every section shows).
func TestPromptsGolden(t *testing.T) {
	recs := sample(t)
	pack := prompt.Builtin()
	st := newStage(t, nil, Options{})
	all := record.LabelTaskNames()
	for _, ct := range [][2]string{{"korean", "violation"}, {"chinese", "v2r"}, {"american", "v2r"}} {
		rec := pick(t, recs, ct[0], ct[1])
		rec.Turns = rec.Turns[:min(len(rec.Turns), 6)] // shorter goldens
		other := pickNth(t, recs, ct[0], ct[1], 1)
		other.Turns = other.Turns[:3]
		for _, task := range []string{"turns", "quality", "pairwise"} {
			d := st.newPromptData(rec, all, "", "")
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
	p, err := pack.Render(PackStage, "turns", "korean", st.newPromptData(rec, []string{"safety"}, "dialogue", "en"))
	if err != nil || !strings.Contains(p.System, "경험칙(rule-of-thumb) 하나 이상을 영어로") || !strings.Contains(p.System, "한국어로 쓴 짧은 한 문장") {
		t.Errorf("korean languages: %v\n%s", err, p.System)
	}
	p, err = pack.Render(PackStage, "turns", "chinese", st.newPromptData(pick(t, recs, "chinese", "violation"), []string{"norm"}, "dialogue", ""))
	if err != nil || !strings.Contains(p.System, "one short sentence in Chinese") || strings.Contains(p.System, "stage:") || strings.Contains(p.System, "rots") {
		t.Errorf("chinese, norm only: %v\n%s", err, p.System)
	}
}

// A culture's profile comes from Options.Profile (nglabel passes the
// --culture-file lookup), once per culture and run: its display name is
// the prompt's, its language the dialogue's when the record has none.
func TestPromptsUseTheProfileLookup(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	st := newStage(t, nil, Options{Profile: func(name string) (*normbank.Culture, error) {
		mu.Lock()
		defer mu.Unlock()
		calls[name]++
		if name != "klingon" {
			return nil, normbank.ErrUnknownCulture
		}
		return &normbank.Culture{Name: "klingon", DisplayName: "Klingon Empire", Lang: "ko"}, nil
	}})
	for range 3 {
		d := st.newPromptData(&record.Record{ID: "x", Culture: "klingon"}, []string{"norm"}, "", "")
		if d.Culture != "Klingon Empire" || d.LangCode != "ko" {
			t.Fatalf("prompt data from the profile: culture %q, lang %q", d.Culture, d.LangCode)
		}
		if d := st.newPromptData(&record.Record{ID: "y", Culture: "vulcan"}, []string{"norm"}, "", ""); d.Culture != "Vulcan" || d.LangCode != "" {
			t.Fatalf("a culture without a profile: culture %q, lang %q", d.Culture, d.LangCode)
		}
	}
	if calls["klingon"] != 1 || calls["vulcan"] != 1 {
		t.Errorf("profile lookups: %v, want one per culture", calls)
	}
}
