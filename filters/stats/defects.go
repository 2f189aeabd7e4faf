package stats

import (
	"strings"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/record"
)

// Defect names that ngstats finds itself, beside those earlier stages wrote
// into checks.defects (record.Defect* and dialogue.Defect*).
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
)

type defectInfo struct{ kind, help string }

// defectInfos describes every defect class a report can name. A class an
// earlier stage invented (not listed) is reported with kind "other".
var defectInfos = map[string]defectInfo{
	record.DefectFailedGeneration: {"content", "the generator reported a failure (parsing_failed)"},
	record.DefectEmptyDialogue:    {"content", "no turns at all"},
	dialogue.DefectPlaceholder:    {"content", `a placeholder ("...", "...full dialogue...") instead of a dialogue`},
	record.DefectReasoning:        {"content", "model reasoning leaked into the text or the scenario"},
	imports.DefectIncomplete:      {"content", "rows of the dialogue are missing in the imported data (ProsocialDialog response ids with gaps, no episode end)"},
	DefectEmptyTurn:               {"content", "a turn with neither text nor stage direction"},
	DefectSingleSpeaker:           {"content", "fewer than two speakers"},
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
}

// textDefects finds format markers left in one turn's text (records that
// did not come through the dialogue parser, e.g. from an LLM stage).
func textDefects(text string, add func(string)) {
	if strings.Contains(text, `\n`) {
		add(record.DefectLiteralNewline)
	}
	if strings.Contains(text, "**") || strings.Contains(text, "__") {
		add(record.DefectMarkdown)
	}
	up := strings.ToUpper(text)
	for _, m := range endMarkers {
		if strings.Contains(up, m) {
			add(record.DefectEndMarker)
			break
		}
	}
	for line := range strings.SplitSeq(text, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "":
		case strings.Trim(l, "-—–=*_ ") == "" && len(l) >= 3:
			add(record.DefectSeparator)
		case isHeader(l):
			add(record.DefectHeader)
		}
	}
}

var endMarkers = []string{"[END]", "【END】", "(END)", "[끝]", "[结束]", "【结束】", "[完]", "<END>"}

// isHeader spots a line that only names the text: "Dialogue:", "## 对话",
// "대화 2:".
func isHeader(l string) bool {
	low := strings.ToLower(strings.Trim(l, "#*:： "))
	low = strings.TrimRight(low, "0123456789 ")
	switch low {
	case "dialogue", "conversation", "对话", "對話", "대화":
		return true
	}
	return false
}
