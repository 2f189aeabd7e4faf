package audit

import (
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/record"
)

// Defect names that the audit finds itself, beside those earlier stages
// wrote into checks.defects (record.Defect* and dialogue.Defect*).
const (
	DefectEmptyTurn         = "empty_turn"
	DefectSingleSpeaker     = "single_speaker"
	DefectTooFewTurns       = "too_few_turns"
	DefectTooManyTurns      = "too_many_turns"
	DefectWrongLanguage     = "wrong_language"
	DefectDuplicateDialogue = "duplicate_dialogue"
	DefectNearDupDialogue   = "near_duplicate_dialogue"
	DefectDuplicateScenario = "duplicate_scenario"
	DefectNearDupScenario   = "near_duplicate_scenario"
	DefectEmptyScenario     = "empty_scenario"
	// DefectIncomplete marks a dialogue whose rows do not run from
	// response_id 0 without gaps, or whose last row does not end the
	// episode: rows are missing from the input (the ProsocialDialog
	// importer).
	DefectIncomplete = "incomplete_dialogue"
	// The turn rules ngv2r refuses a reply by (turns.go).
	DefectRepeatedTurn = "repeated_turn"
	DefectOneWordTurns = "one_word_turns"
	DefectNameScript   = "name_script"
)

type defectInfo struct{ kind, help string }

// defectInfos describes every defect class a report can name. A class an
// earlier stage invented (not listed) is reported with kind "other".
var defectInfos = map[string]defectInfo{
	record.DefectFailedGeneration: {"content", "the generator reported a failure (parsing_failed)"},
	record.DefectEmptyDialogue:    {"content", "no turns at all"},
	dialogue.DefectPlaceholder:    {"content", `a placeholder ("...", "...full dialogue...") instead of a dialogue`},
	record.DefectReasoning:        {"content", "model reasoning leaked into the text or the scenario"},
	DefectIncomplete:              {"content", "rows of the dialogue are missing in the imported data (ProsocialDialog response ids with gaps, no episode end)"},
	DefectEmptyTurn:               {"content", "a turn with neither text nor stage direction"},
	DefectSingleSpeaker:           {"content", "fewer than two speakers"},
	DefectRepeatedTurn:            {"content", "a turn says word for word what an earlier turn said"},
	DefectOneWordTurns:            {"content", "more than half of the turns are a single word"},
	DefectNameScript:              {"language", "a speaker's name is not in the script of the dialogue's language (Korean, Chinese, Japanese)"},
	record.DefectEndMarker:        {"format", "[END] / [끝] style end markers in the text"},
	record.DefectSeparator:        {"format", "--- or —— separator lines"},
	record.DefectHeader:           {"format", `"Dialogue:" style headers`},
	record.DefectLiteralNewline:   {"format", `a literal \n (two characters) instead of a line break`},
	record.DefectMarkdown:         {"format", "markdown emphasis (**...**)"},
	dialogue.DefectJSONResidue:    {"format", "JSON syntax left in the text"},
	record.DefectSingleLine:       {"format", "a whole dialogue on one line"},
	dialogue.DefectMergedTurns:    {"format", "several turns on one line"},
	record.DefectUnplaced:         {"format", "lines the parser could not place (kept in checks.unplaced)"},
	record.DefectMultiDialogue:    {"format", "several dialogues in one record"},
	DefectTooFewTurns:             {"length", "fewer turns than --min-turns"},
	DefectTooManyTurns:            {"length", "more turns than --max-turns"},
	DefectWrongLanguage:           {"language", "share of turns in the expected language under --min-lang-share"},
	DefectDuplicateDialogue:       {"duplicate", "the same turns (speaker, action, text) as an earlier record"},
	DefectNearDupDialogue:         {"duplicate", "turn texts similar to an earlier record's anywhere in the corpus (MinHash Jaccard of character shingles >= --dup-threshold; see near_duplicates for the clusters; exact duplicates not counted again)"},
	DefectDuplicateScenario:       {"duplicate", "the same scenario as an earlier record of the same culture and dialogue type"},
	DefectNearDupScenario:         {"duplicate", "a scenario similar to an earlier record's of the same dialogue type, in any culture (MinHash, >= --dup-threshold; exact duplicates not counted again)"},
	// Written by nglabel (filters/label): the norm labels contradict the dialogue type.
	record.DefectLabelViolationInAdherence: {"label", "an adherence dialogue has a turn labelled violated (nglabel)"},
	record.DefectLabelNoViolation:          {"label", "a violation or V2R dialogue has no turn labelled violated (nglabel)"},
	record.DefectLabelUnresolved:           {"label", "a V2R dialogue's violated turn is not followed by a recognition turn and then a repair turn labelled adhered (nglabel)"},
	// Written by ngv2r --check-fit --keep-unfit.
	record.DefectUnfitSeed: {"content", "the judge found that the dialogue does not realise its seed: quality.fit under --min-fit, the reason in quality.explanations.fit (ngv2r --check-fit --keep-unfit)"},
}

// DefectNames lists the defect classes a report can name, sorted.
func DefectNames() []string {
	var names []string
	for n := range defectInfos {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Describe gives the kind ("content", "format", "length", "language",
// "duplicate", "label") and a one-line help of a defect class; ok is false
// for a class no stage here defines.
func Describe(name string) (kind, help string, ok bool) {
	i, ok := defectInfos[name]
	return i.kind, i.help, ok
}

// TextDefects finds the format markers left in one turn's text (records
// that did not come through the dialogue parser, e.g. from an LLM stage),
// by the parser's own vocabulary (pkg/dialogue), and calls add with the
// name of each.
func TextDefects(text string, add func(string)) {
	if strings.Contains(text, `\n`) {
		add(record.DefectLiteralNewline)
	}
	if strings.Contains(text, "**") || strings.Contains(text, "__") {
		add(record.DefectMarkdown)
	}
	if dialogue.EndMarkerIn(text) != "" {
		add(record.DefectEndMarker)
	}
	if dialogue.HasReasoning(text) {
		add(record.DefectReasoning)
	}
	for line := range strings.SplitSeq(text, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "":
		case dialogue.IsSeparator(l):
			add(record.DefectSeparator)
		case dialogue.IsHeader(l):
			add(record.DefectHeader)
		case dialogue.IsJSONResidue(l):
			add(dialogue.DefectJSONResidue)
		}
	}
}

// FieldDefects finds leaked reasoning in a record's scenario and
// situation (the release has scenarios that begin "analysisWe need to
// produce JSON").
func FieldDefects(rec *record.Record) {
	if name, _ := LeakedField(rec); name != "" {
		rec.AddDefect(record.DefectReasoning)
	}
}

// LeakedField names the first of a record's scenario and situation that
// holds a model's leaked reasoning, with its text; "" when neither does.
func LeakedField(rec *record.Record) (name, text string) {
	switch {
	case dialogue.HasReasoning(rec.Scenario):
		return "scenario", rec.Scenario
	case dialogue.HasReasoning(rec.Situation):
		return "situation", rec.Situation
	}
	return "", ""
}

// repairable are the format defects the dialogue parser repairs: it takes
// the marker out of the text (end markers, separators, headers, markdown,
// a literal \n, JSON residue) or splits what was run together (a dialogue
// on one line, turns merged on a line). Importers write them into
// checks.defects so that ngstats reports what the source held; the turns
// they leave are clean.
var repairable = map[string]bool{
	record.DefectEndMarker:      true,
	record.DefectSeparator:      true,
	record.DefectHeader:         true,
	record.DefectLiteralNewline: true,
	record.DefectMarkdown:       true,
	dialogue.DefectJSONResidue:  true,
	record.DefectSingleLine:     true,
	dialogue.DefectMergedTurns:  true,
}

// Live audits a copy of rec (rec stays as it came) and returns its
// defects, minus those the parser repaired: a repairable class counts only
// when the audit finds it again in a turn's text. repaired lists the
// classes in checks.defects the turns no longer show. A record without
// turns has nothing repaired.
func (a *Audit) Live(rec *record.Record) (live, repaired []string) {
	c := *rec
	if rec.Checks != nil {
		ch := *rec.Checks
		ch.Defects = nil
		for _, d := range rec.Checks.Defects {
			if repairable[d] && len(rec.Turns) > 0 {
				repaired = append(repaired, d)
				continue
			}
			ch.Defects = append(ch.Defects, d)
		}
		c.Checks = &ch
	}
	c.Turns = slices.Clone(rec.Turns)
	a.Record(&c)
	if c.Checks != nil {
		live = c.Checks.Defects
	}
	repaired = slices.DeleteFunc(repaired, func(d string) bool { return slices.Contains(live, d) })
	return live, repaired
}

// Kinds maps each kind of defect ("content", "format", ...) to its
// classes, sorted.
func Kinds() map[string][]string {
	out := map[string][]string{}
	for _, n := range DefectNames() {
		k := defectInfos[n].kind
		out[k] = append(out[k], n)
	}
	return out
}
