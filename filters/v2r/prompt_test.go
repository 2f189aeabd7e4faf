package v2r

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/golden"

	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

const goldenDir = "../../testdata/prompts/v2r"

// The prompts as rendered for a seed of each culture and type, in JSON
// mode and in text mode, against golden files (go test -update rewrites
// them; review the diff).
func TestPromptsGolden(t *testing.T) {
	pack := prompt.Builtin()
	for _, culture := range cultures {
		c, err := normbank.BuiltinProfile(culture)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range record.DialogueTypes {
			seed := releasePairs(t, culture, typ)[0].seed
			for _, text := range []bool{false, true} {
				name := culture + "_" + typ
				if text {
					name += "_text"
				}
				p, err := pack.Render(PromptStage, PromptTask, culture, promptData(seed, c, seed.Lang, defaultRules, text))
				if err != nil {
					t.Fatal(err)
				}
				got := "=== system\n" + p.System + "\n=== user\n" + p.User + "\n"
				if strings.Contains(got, "<no value>") || strings.Contains(got, "\n\n\n") {
					t.Errorf("%s: empty value or stray blank lines:\n%s", name, got)
				}
				path := filepath.Join(goldenDir, name+".golden")
				golden.Check(t, path, got)
			}
		}
	}
}

// A culture of the user's (here Japanese, from a profile file) gets the
// generic prompt, in English, naming its language.
func TestPromptForAUserCulture(t *testing.T) {
	c := &normbank.Culture{Name: "japanese", DisplayName: "Japanese", Lang: "ja", ScenarioLang: "ja",
		Names:  normbank.Names{Order: normbank.FamilyGiven, Given: []string{"翔太", "美咲"}, Family: []string{"佐藤"}},
		Titles: []string{"さん"}, Honorifics: "Use keigo with seniors.", Distance: "Uchi and soto."}
	seed := &record.Record{ID: "s1", Culture: "japanese", DialogueType: "v2r", Category: "respond_compliments", Norm: "Deflect praise.", Scenario: "A compliment at work."}
	p, err := prompt.Builtin().Render(PromptStage, PromptTask, "japanese", promptData(seed, c, "ja", defaultRules, false))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"set in Japanese culture and written entirely in Japanese", "Use keigo with seniors.", "Norm category: respond compliments", "leaves unnamed: 佐藤"} {
		if !strings.Contains(p.System+p.User, want) {
			t.Errorf("missing %q in:\n%s\n%s", want, p.System, p.User)
		}
	}
}

// The seed-fit judge's prompt (--check-fit), for a V2R seed of each
// culture with its own release dialogue.
func TestFitPromptGolden(t *testing.T) {
	pack := prompt.Builtin()
	for _, culture := range cultures {
		c, err := normbank.BuiltinProfile(culture)
		if err != nil {
			t.Fatal(err)
		}
		p := releasePairs(t, culture, record.TypeV2R)[0]
		d := &record.Record{Turns: p.d.Turns}
		data := FitData{Culture: c.Display(), Language: langName(p.seed.Lang), Category: p.seed.Category, Norm: p.seed.Norm,
			Type: p.seed.DialogueType, Scenario: p.seed.Scenario, Situation: p.seed.Situation, Dialogue: dialogue.Transcript(d.Turns, true), Turns: len(d.Turns)}
		r, err := pack.Render(PromptStage, FitTask, culture, data)
		if err != nil {
			t.Fatal(err)
		}
		got := "=== system\n" + r.System + "\n=== user\n" + r.User + "\n"
		if strings.Contains(got, "<no value>") || strings.Contains(got, "\n\n\n") {
			t.Errorf("%s: empty value or stray blank lines:\n%s", culture, got)
		}
		golden.Check(t, filepath.Join(goldenDir, "fit_"+culture+".golden"), got)
	}
}
