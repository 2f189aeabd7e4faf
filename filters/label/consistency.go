package label

import (
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// Consistency defects: the norm labels contradict the dialogue type.
// Written into checks.defects (ngstats lists them); --drop-inconsistent
// sends such records to the errors file instead.
const (
	// DefectViolationInAdherence: an adherence dialogue with a turn
	// labelled violated.
	DefectViolationInAdherence = record.DefectLabelViolationInAdherence
	// DefectNoViolation: a violation or V2R dialogue with no turn
	// labelled violated.
	DefectNoViolation = record.DefectLabelNoViolation
	// DefectUnresolved: a V2R dialogue whose violated turn is not followed
	// by a recognition turn and, after it, a repair turn labelled adhered.
	DefectUnresolved = record.DefectLabelUnresolved
)

// Defects lists the consistency defects, for documentation.
var Defects = []string{DefectViolationInAdherence, DefectNoViolation, DefectUnresolved}

// defectHelp says what each defect means (error messages, --help).
var defectHelp = map[string]string{
	DefectViolationInAdherence: "an adherence dialogue has a turn labelled violated",
	DefectNoViolation:          "a violation or V2R dialogue has no turn labelled violated",
	DefectUnresolved:           "a V2R dialogue's violated turn is not followed by recognition and an adhered repair",
}

// Consistency checks a record's norm labels against its dialogue type and
// returns the defects found (none when the turns carry no norm labels).
//
// V2R: after the first violated turn there must be a turn in the
// recognition stage and, after that, one in the repair stage labelled
// adhered. A turn's stage is its stage label, else the stage the generator
// gave it (turn.stage). When no turn has a stage at all, a later adhered
// turn is enough.
func Consistency(rec *record.Record) []string {
	violated, labelled := -1, false
	for i, t := range rec.Turns {
		if t.Labels == nil || t.Labels.Norm == "" {
			continue
		}
		labelled = true
		if t.Labels.Norm == "violated" && violated < 0 {
			violated = i
		}
	}
	if !labelled {
		return nil
	}
	switch rec.DialogueType {
	case record.TypeAdherence:
		if violated >= 0 {
			return []string{DefectViolationInAdherence}
		}
	case record.TypeViolation:
		if violated < 0 {
			return []string{DefectNoViolation}
		}
	case record.TypeV2R:
		if violated < 0 {
			return []string{DefectNoViolation}
		}
		if !record.V2RResolved(rec.Turns, violated) {
			return []string{DefectUnresolved}
		}
	}
	return nil
}

// setConsistency replaces the record's consistency defects by found.
func setConsistency(rec *record.Record, found []string) {
	if rec.Checks != nil {
		rec.Checks.Defects = slices.DeleteFunc(rec.Checks.Defects, func(d string) bool { return slices.Contains(Defects, d) })
	}
	for _, d := range found {
		rec.AddDefect(d)
	}
	if rec.Checks != nil && len(rec.Checks.Defects) == 0 {
		rec.Checks.Defects = nil
		if c := rec.Checks; c.LangExpected == "" && c.LangOK == nil && c.LangShare == 0 && len(c.Unplaced) == 0 {
			rec.Checks = nil
		}
	}
}

// describe names defects with their meaning, for an error message.
func describe(defects []string) string {
	parts := make([]string, len(defects))
	for i, d := range defects {
		parts[i] = d + " (" + defectHelp[d] + ")"
	}
	return strings.Join(parts, ", ")
}
