package v2r

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/record"
)

// Dialogue is a dialogue read from a reply, before validation.
type Dialogue struct {
	Turns     []record.Turn
	Narration []string
	// NarrationAt is where each narration line stands (record.NarrationAt);
	// nil for a JSON reply, whose narration list has no positions.
	NarrationAt []int
}

// Rules are the bounds every dialogue must keep (see the package doc).
type Rules struct {
	MinTurns, MaxTurns int
	// MinLangShare is the share of the turns whose language the detector
	// is sure of that must be in the expected language (1: all).
	MinLangShare float64
	// Detector is lang.Default() when nil: the one ngstats uses.
	Detector *lang.Detector
}

// maxNameRunes bounds a speaker's name ("Sarah (VP of Operations)" fits):
// a longer one is a turn's text in the wrong field.
const maxNameRunes = 40

// maxProblems bounds the reasons given back to the model: enough to fix
// the reply, short enough to read.
const maxProblems = 6

// stageTag finds a stage written into the text, as in text mode.
var stageTag = regexp.MustCompile(`(?i)[\[【(（]\s*(` + strings.Join(record.Stages, "|") + `)\s*[\]】)）]`)

// Check validates d, a dialogue of type typ that should be in language
// expected, and returns it audited: turns numbered from 0, turn.lang set,
// and the language checks (lang_expected, lang_ok, lang_share). The error
// lists what is wrong, in words the model can act on.
func (r Rules) Check(d *Dialogue, typ, expected string) (*record.Record, error) {
	return r.CheckFor(d, typ, "", expected)
}

// CheckFor is Check for a dialogue of a culture: when the culture's profile
// names several languages and expected is one of them (Singapore), a turn
// in any of them counts as in the expected language, and lang_expected
// says which of them the dialogue is in.
func (r Rules) CheckFor(d *Dialogue, typ, culture, expected string) (*record.Record, error) {
	var probs problems
	marked := false // a format marker was reported
	n := len(d.Turns)
	switch {
	case n == 0:
		return nil, errors.New("the dialogue has no turns")
	case r.MinTurns > 0 && n < r.MinTurns:
		probs.add("the dialogue has %s, fewer than %d: write %s turns", turnCount(n), r.MinTurns, r.span())
	case r.MaxTurns > 0 && n > r.MaxTurns:
		probs.add("the dialogue has %s, more than %d: write %s turns", turnCount(n), r.MaxTurns, r.span())
	}
	var speakers []string
	for i := range d.Turns {
		t := &d.Turns[i]
		t.Index = i
		if t.Speaker != "" && !slices.Contains(speakers, t.Speaker) {
			speakers = append(speakers, t.Speaker)
		}
	}
	if len(speakers) < 2 {
		probs.add("only one speaker (%s): write a conversation between at least two people", strings.Join(speakers, ""))
	}
	for i, t := range d.Turns {
		who := turnName(i, t.Speaker)
		switch {
		case t.Speaker == "":
			probs.add("turn %d has no speaker", i+1)
		case t.Text == "" && t.Action == "":
			probs.add("%s is empty", who)
		}
		if m := markers(t.Speaker, true); m != "" {
			probs.add("%s: the speaker's name has %s: give the name only", who, m)
		} else if strings.ContainsAny(t.Speaker, ":：") || utf8.RuneCountInString(t.Speaker) > maxNameRunes {
			probs.add("%s: the speaker field holds more than a name: give the name only", turnName(i, short(t.Speaker)))
		}
		if m := markers(t.Action, true); m != "" {
			probs.add("%s: the stage direction has %s", who, m)
		}
		if m := markers(t.Text, false); m != "" {
			probs.add("%s: the text has %s: write only what is said", who, m)
			marked = true
		}
		if t.Speaker != "" && (strings.HasPrefix(t.Text, t.Speaker+":") || strings.HasPrefix(t.Text, t.Speaker+"：")) {
			probs.add("%s: the text repeats the speaker's name: write only what is said", who)
		}
	}
	probs.addErr(repeatedTurns(d.Turns))
	probs.addErr(wordTurns(d.Turns))
	probs.addErr(namesInScript(speakers, audit.AcceptedLangs(&record.Record{Culture: culture}, expected)))
	for _, l := range d.Narration {
		if m := markers(l, true); m != "" {
			probs.add("a narration line has %s", m)
		}
	}
	probs.addErr(checkStages(d.Turns, typ))

	// The audit ngstats runs, on a record of the turns alone.
	rec := &record.Record{Culture: culture, Lang: expected, Turns: d.Turns, Narration: d.Narration, NarrationAt: d.NarrationAt}
	(&audit.Audit{Detector: r.Detector, MinTurns: r.MinTurns, MaxTurns: r.MaxTurns, MinLangShare: r.MinLangShare}).Record(rec)
	accepted := audit.AcceptedLangs(rec, expected)
	var wrong []string
	for i, t := range rec.Turns {
		if t.Lang != "" && !slices.Contains(accepted, t.Lang) {
			wrong = append(wrong, fmt.Sprintf("%s is in %s", turnName(i, t.Speaker), langName(t.Lang)))
		}
	}
	if rec.Checks != nil && rec.Checks.LangOK != nil && !*rec.Checks.LangOK {
		if len(wrong) > 3 {
			wrong = append(wrong[:3], fmt.Sprintf("%d more turns are not", len(wrong)-3))
		}
		probs.add("%s: write every turn in %s", strings.Join(wrong, ", "), langName(expected))
	}
	if rec.Checks != nil {
		for _, def := range rec.Checks.Defects {
			if !covered(def, marked) {
				probs.add("ngstats would report the defect %s", def)
			}
		}
		rec.Checks.Defects = nil
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	return rec, nil
}

// repeatedTurns words the audit's repeated turns (audit.RepeatedTurns)
// for the model.
func repeatedTurns(turns []record.Turn) error {
	var probs problems
	for _, r := range audit.RepeatedTurns(turns) {
		t, o := turns[r.Turn], turns[r.Of]
		probs.add("%s repeats %s word for word (%q): write each turn anew, moving the conversation on", turnName(r.Turn, t.Speaker), turnName(r.Of, o.Speaker), short(t.Text))
		if len(probs) == 3 {
			break
		}
	}
	return probs.err()
}

// wordTurns refuses a dialogue whose turns are mostly a single word
// (audit.OneWordTurns).
func wordTurns(turns []record.Turn) error {
	idx, mostly := audit.OneWordTurns(turns)
	if !mostly {
		return nil
	}
	var words []string
	for _, i := range idx[:min(len(idx), 4)] {
		words = append(words, fmt.Sprintf("%q", short(turns[i].Text)))
	}
	return fmt.Errorf("%d of %s are a single word (%s): write what each person says, in sentences", len(idx), turnCount(len(turns)), strings.Join(words, ", "))
}

// namesInScript reports speakers whose names have letters but none of the
// script of the dialogue's language (audit.NamesOutsideScript).
func namesInScript(speakers, accepted []string) error {
	script, wrong := audit.NamesOutsideScript(speakers, accepted)
	if len(wrong) == 0 {
		return nil
	}
	for i := range wrong {
		wrong[i] = short(wrong[i])
	}
	return fmt.Errorf("speakers named outside %s (%s): give the people names of the culture, written in %s", script, strings.Join(wrong, ", "), script)
}

func turnCount(n int) string {
	if n == 1 {
		return "1 turn"
	}
	return fmt.Sprintf("%d turns", n)
}

func (r Rules) span() string {
	switch {
	case r.MaxTurns > 0:
		return fmt.Sprintf("%d to %d", r.MinTurns, r.MaxTurns)
	default:
		return fmt.Sprintf("at least %d", r.MinTurns)
	}
}

// checkStages checks the stages of a dialogue of type typ.
func checkStages(turns []record.Turn, typ string) error {
	switch typ {
	case record.TypeViolation:
		for _, t := range turns {
			if t.Stage == "violation" {
				return nil
			}
		}
		return errors.New(`no turn is marked as the violation of the norm (stage "violation"): the dialogue must show the norm being violated`)
	case record.TypeV2R:
		var probs problems
		prev, seen := 0, make([]bool, len(record.Stages))
		for i, t := range turns {
			k := record.StageIndex(t.Stage)
			if k < 0 {
				if t.Stage == "" {
					probs.add("%s has no stage", turnName(i, t.Speaker))
				} else {
					probs.add("%s has the unknown stage %q", turnName(i, t.Speaker), t.Stage)
				}
				continue
			}
			if k < prev && len(probs) == 0 {
				probs.add("%s goes back from %s to %s: the stages must follow context (optional, first), violation, recognition, repair, resolution, never going back",
					turnName(i, t.Speaker), record.Stages[prev], t.Stage)
			}
			prev = max(prev, k)
			seen[k] = true
		}
		var missing []string
		for k := 1; k < len(record.Stages); k++ {
			if !seen[k] {
				missing = append(missing, record.Stages[k])
			}
		}
		if len(missing) > 0 {
			probs.add("no %s turn: a Violation-to-Resolution dialogue passes through violation, recognition, repair and resolution, in that order", strings.Join(missing, ", no "))
		}
		return probs.err()
	}
	return nil
}

// markers describes the format markers in s ("" when none): what
// dialogue.Clean would remove, a literal \n, a stage tag; in a name or a
// direction (oneLine), a line break too.
func markers(s string, oneLine bool) string {
	var found []string
	if strings.Contains(s, `\n`) {
		found = append(found, `a literal \n`)
	}
	if oneLine && strings.ContainsAny(s, "\n\r") {
		found = append(found, "a line break")
	}
	if m := stageTag.FindString(s); m != "" {
		found = append(found, fmt.Sprintf("the stage tag %q", m))
	}
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && dialogue.Clean(l) != l {
			found = append(found, "format markers ("+whichMarker(l)+")")
			break
		}
	}
	return strings.Join(found, " and ")
}

// whichMarker names what dialogue.Clean removes from a line, for the
// model to see what to leave out.
func whichMarker(l string) string {
	switch c := dialogue.Clean(l); {
	case dialogue.EndMarkerIn(l) != "":
		return "the end marker " + dialogue.EndMarkerIn(l)
	case strings.Contains(l, "**") || strings.Contains(l, "__"):
		return "markdown **"
	case strings.HasPrefix(l, "#"):
		return "a markdown heading"
	case c == "":
		return fmt.Sprintf("the line %q", short(l))
	case strings.Count(l, "*") > strings.Count(c, "*"):
		return "markdown *"
	default:
		return fmt.Sprintf("%q", short(l))
	}
}

// covered tells whether an Audit defect is already among the problems,
// named in words: all but the format markers of a text, which are when
// markers found some (it finds all that the audit does, and more).
func covered(defect string, marked bool) bool {
	switch defect {
	case audit.DefectEmptyTurn, audit.DefectSingleSpeaker, audit.DefectTooFewTurns, audit.DefectTooManyTurns, audit.DefectWrongLanguage,
		audit.DefectRepeatedTurn, audit.DefectOneWordTurns, audit.DefectNameScript:
		return true
	}
	return marked
}

type problems []string

func (p *problems) add(format string, a ...any) { *p = append(*p, fmt.Sprintf(format, a...)) }

func (p *problems) addErr(err error) {
	if err != nil {
		*p = append(*p, err.Error())
	}
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	if len(p) > maxProblems {
		p = append(p[:maxProblems:maxProblems], fmt.Sprintf("%d more problems", len(p)-maxProblems))
	}
	return errors.New(strings.Join(p, "; "))
}

func turnName(i int, speaker string) string {
	if speaker == "" {
		return fmt.Sprintf("turn %d", i+1)
	}
	return fmt.Sprintf("turn %d (%s)", i+1, speaker)
}

// short cuts s for a message.
func short(s string) string {
	r := []rune(s)
	if len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return s
}
