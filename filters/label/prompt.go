package label

import (
	"strings"

	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// PackStage is the prompt pack directory of nglabel's templates:
// label/turns, label/quality and label/pairwise, per culture.
const PackStage = "label"

// Default languages of the explanations and the rules-of-thumb.
const (
	DefaultExplainLang = "en"
	DefaultRotsLang    = "dialogue"
)

// promptData is what the label templates see.
type promptData struct {
	// Culture is the culture's display name ("Korean"), CultureKey its key.
	Culture, CultureKey string
	// Language is the English name of the dialogue's language, LangCode
	// its code.
	Language, LangCode string
	Category, Norm     string
	DialogueType       string
	Scenario           string
	Situation          string
	// Dialogue is the dialogue, one "[index] Speaker: (action) text" line
	// per turn; Turns the number of turns, LastIndex the last index.
	Dialogue  string
	Turns     int
	LastIndex int
	// Labels are the labels asked for, in order (the templates list them);
	// Ask says which are, by the title-cased name ({{if .Ask.Norm}}), for
	// every label of the table.
	Labels          []askedLabel
	Ask             map[string]bool
	ExplainLang     string // English name of the explanations' language
	RotsLang        string // English name of the rules-of-thumb's language
	ExplainLangCode string
	RotsLangCode    string
	// Example is one entry of the reply, with the fields asked for.
	Example string
	// Other is the second dialogue of a pairwise judgement (A = Dialogue,
	// B = Other), with its own speakers.
	Other string
}

// askedLabel is a label asked for, as the templates see it: its name, its
// description for the labeller (record.LabelTask.Prompt), its values and
// whether rules-of-thumb ground it.
type askedLabel struct {
	Name, Prompt string
	Values       []string
	Rots         bool
}

// dialogueLang is the language a record's dialogue is in: its lang, else
// its culture's.
func (s *Stage) dialogueLang(rec *record.Record) string {
	if rec.Lang != "" {
		return lang.Normalize(rec.Lang)
	}
	if l := normbank.CultureLang(rec.Culture); l != "" {
		return lang.Normalize(l)
	}
	if p := s.profile(rec.Culture); p != nil && p.Lang != "" {
		return lang.Normalize(p.Lang)
	}
	return ""
}

// profile is the culture's profile (nil: none), looked up once per run
// through Options.Profile: reading one parses YAML, far more work than
// labelling a record takes.
func (s *Stage) profile(culture string) *normbank.Culture {
	if culture == "" {
		return nil
	}
	if p, ok := s.profiles.Load(culture); ok {
		return p.(*normbank.Culture)
	}
	p, err := s.opt.Profile(culture)
	if err != nil {
		p = nil
	}
	v, _ := s.profiles.LoadOrStore(culture, p)
	return v.(*normbank.Culture)
}

// cultureName is how prompts name a record's culture.
func (s *Stage) cultureName(culture string) string {
	if culture == "" {
		return "the speakers'"
	}
	if p := s.profile(culture); p != nil && p.DisplayName != "" {
		return p.DisplayName
	}
	return strings.ToUpper(culture[:1]) + culture[1:]
}

// renderTurns writes the turns one per line with their index, the form
// the label prompts refer to. Line breaks inside a turn become spaces, so
// a line is always one turn.
func renderTurns(turns []record.Turn) string { return dialogue.Transcript(turns, true) }

// renderPlain writes the turns without indexes (pairwise judgements).
func renderPlain(turns []record.Turn) string { return dialogue.Transcript(turns, false) }

// resolveLang turns an --explain-lang or --rots-lang value into a code:
// "dialogue" is the dialogue's language (English when unknown); "" is def.
func resolveLang(want, def, dialogue string) string {
	if want == "" {
		want = def
	}
	if want == "dialogue" {
		if dialogue == "" {
			return "en"
		}
		return dialogue
	}
	return lang.Normalize(want)
}

// newPromptData fills the template data of a record.
func (s *Stage) newPromptData(rec *record.Record, tasks []string, explain, rots string) promptData {
	dl := s.dialogueLang(rec)
	d := promptData{
		Culture: s.cultureName(rec.Culture), CultureKey: rec.Culture,
		Language: LangName(dl), LangCode: dl,
		Category: rec.Category, Norm: rec.Norm, DialogueType: rec.DialogueType,
		Scenario: rec.Scenario, Situation: rec.Situation,
		Dialogue: renderTurns(rec.Turns), Turns: len(rec.Turns), LastIndex: len(rec.Turns) - 1,
	}
	if d.Language == "" {
		d.Language = "the dialogue's language"
	}
	d.ExplainLangCode = resolveLang(explain, DefaultExplainLang, dl)
	d.RotsLangCode = resolveLang(rots, DefaultRotsLang, dl)
	d.ExplainLang, d.RotsLang = LangName(d.ExplainLangCode), LangName(d.RotsLangCode)
	ex := []string{`"index": 0`}
	d.Ask = make(map[string]bool, len(record.LabelTasks))
	for _, row := range record.LabelTasks {
		d.Ask[strings.ToUpper(row.Name[:1])+row.Name[1:]] = false
	}
	for _, t := range tasks {
		row := rowOf(t)
		d.Ask[strings.ToUpper(t[:1])+t[1:]] = true
		d.Labels = append(d.Labels, askedLabel{Name: t, Prompt: row.Prompt, Values: row.Values, Rots: row.Rots})
		ex = append(ex, `"`+t+`": "..."`)
		if row.Rots {
			ex = append(ex, `"rots": ["..."]`)
		}
	}
	ex = append(ex, `"explanation": "..."`)
	d.Example = "{" + strings.Join(ex, ", ") + "}"
	return d
}
