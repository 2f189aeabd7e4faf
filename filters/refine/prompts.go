package refine

import (
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/record"
)

// promptData is what the refine templates see (pkg/prompt/packs/refine).
type promptData struct {
	// Culture is the culture's display name ("Korean"); Language and
	// LanguageSelf name the scenario language in English and in itself.
	Culture, Language, LanguageSelf string
	Category, Norm, DialogueType    string
	// Honorifics, Distance and Titles come from the culture profile.
	Honorifics, Distance string
	Titles               []string
	// ScenarioSentences and SituationSentences are the length rules,
	// "1-2" and "3-5".
	ScenarioSentences, SituationSentences string
	MinScore                              int
	// Scenario and Situation are the version judged or rewritten.
	Scenario, Situation string
	// Persona is the seed's persona, "attribute: value" per attribute
	// (--personas / --vary, here or upstream); empty without one.
	Persona []string
	// Original is the seed as it came in: set when judging a rewrite, and
	// when rewriting a rewrite.
	Original *seedText
	// Rewrite only: the exemplars, and the judgement of the version.
	Exemplars []seedText
	Scores    record.Scores
	Critique  string
	Problems  []string
}

type seedText struct{ Scenario, Situation string }

func (r *run) data(v *version) *promptData {
	p := r.cu.p
	return &promptData{
		Culture: p.Display(), Language: r.cu.language, LanguageSelf: r.cu.languageSelf,
		Category: r.rec.Category, Norm: r.rec.Norm, DialogueType: key(r.rec.DialogueType),
		Honorifics: oneLine(p.Honorifics), Distance: oneLine(p.Distance), Titles: p.Titles,
		ScenarioSentences:  fmt.Sprintf("%d-%d", normbank.MinScenarioSentences, normbank.MaxScenarioSentences),
		SituationSentences: fmt.Sprintf("%d-%d", normbank.MinSituationSentences, normbank.MaxSituationSentences),
		MinScore:           r.s.opt.MinScore,
		Scenario:           v.scenario, Situation: v.situation,
		Persona: persona.Lines(r.rec.Persona),
	}
}

// oneLine joins the lines of a profile's guidance (YAML folds them at 80
// columns) into one paragraph.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
