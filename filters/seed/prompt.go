package seed

import (
	"strings"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/normbank"
)

// promptData is what the seed prompt templates (pkg/prompt/packs/seed)
// are rendered with.
type promptData struct {
	// Culture is the culture's display name ("Korean"), CultureName its key.
	Culture, CultureName string
	// Language and Lang name the dialogue language ("Korean", "ko");
	// ScenarioLanguage and ScenarioLang the language scenarios and
	// situations are written in.
	Language, Lang                 string
	ScenarioLanguage, ScenarioLang string
	// Category is the norm's category, with spaces for underscores.
	Category, Norm string
	// GivenNames and FamilyNames are a few of the profile's names, chosen
	// per norm; FamilyFirst says how full names are written.
	GivenNames, FamilyNames []string
	FamilyFirst             bool
	Titles                  []string
	Honorifics, Distance    string
	// Sentence bounds.
	MinScenario, MaxScenario, MinSituation, MaxSituation int

	// Count is how many scenarios to write; Have are those already kept
	// (when asking for replacements).
	Count int
	Have  []string
	// Type, Scenario and Situation are the seed being elaborated or derived
	// from (Type: the type to derive).
	Type, Scenario, Situation string
	// Persona is who is talking ("age: 30-49", "relationship: colleagues"),
	// one attribute a line; empty without --personas / --vary.
	Persona []string
	// Slots, Rejected and Items are the PACT prompts' (pact.go).
	Slots    [][]string
	Rejected []string
	Items    []string
}

// Names offered per norm: enough for variety, few enough to keep the
// prompt short.
const (
	givenNames  = 8
	familyNames = 5
)

func newPromptData(norm normbank.Norm, c *normbank.Culture) promptData {
	return promptData{
		Culture: c.Display(), CultureName: c.Name,
		Language: lang.Name(lang.Normalize(c.Lang)), Lang: lang.Normalize(c.Lang),
		ScenarioLanguage: lang.Name(lang.Normalize(c.ScenarioLang)), ScenarioLang: lang.Normalize(c.ScenarioLang),
		Category: strings.ReplaceAll(norm.Category, "_", " "), Norm: norm.Text,
		GivenNames:  pick(c.Names.Given, givenNames, norm.ID),
		FamilyNames: pick(c.Names.Family, familyNames, norm.ID),
		FamilyFirst: c.Names.Order == normbank.FamilyGiven,
		Titles:      c.Titles,
		Honorifics:  oneLine(c.Honorifics), Distance: oneLine(c.Distance),
		MinScenario: MinScenarioSentences, MaxScenario: MaxScenarioSentences,
		MinSituation: MinSituationSentences, MaxSituation: MaxSituationSentences,
	}
}

// oneLine joins the lines of a profile's guidance text.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
