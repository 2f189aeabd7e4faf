package record

import (
	"errors"
	"fmt"
	"regexp"
)

// Closed label sets (DEVELOPING.md, "Closed label sets").
var (
	DialogueTypes = []string{TypeAdherence, TypeViolation, TypeV2R}
	Categories    = []string{"apology", "compliment", "condolence", "criticism", "empathy", "greeting",
		"leave", "persuasion", "request", "respect", "respond_compliments", "thanks"}
	NormLabels = []string{"adhered", "violated", "not_relevant"}
	Intents    = []string{"ACK", "AGR", "DIS", "APO", "THX", "EMP", "JUS", "SUG", "QUE", "CRT", "NR"}
	// Emotions are Ekman's six basic emotions plus neutral.
	Emotions     = []string{"anger", "disgust", "fear", "joy", "sadness", "surprise", "neutral"}
	Stages       = []string{"context", "violation", "recognition", "repair", "resolution"}
	SafetyLabels = []string{"casual", "possibly_needs_caution", "probably_needs_caution", "needs_caution", "needs_intervention"}
)

var langTag = regexp.MustCompile(`^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$`)

func in(set []string, v string) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// Validate checks the record's invariants: an id, known dialogue type,
// BCP-47 language tags, turns indexed 0..n-1, labels from the closed sets,
// scores in range, narration positions within the turns and in order, a
// culture that is a culture name. Culture and category
// are open sets (users add their own).
func (r *Record) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if r.ID == "" {
		bad("id is empty")
	}
	if r.DialogueType != "" && !in(DialogueTypes, r.DialogueType) {
		bad("dialogue_type %q is not one of %v", r.DialogueType, DialogueTypes)
	}
	if err := CheckCulture(r.Culture); err != nil {
		errs = append(errs, err)
	}
	if r.Lang != "" && !langTag.MatchString(r.Lang) {
		bad("lang %q is not a BCP-47 tag", r.Lang)
	}
	for i, t := range r.Turns {
		if t.Index != i {
			bad("turns[%d].index is %d", i, t.Index)
		}
		if t.Lang != "" && !langTag.MatchString(t.Lang) {
			bad("turns[%d].lang %q is not a BCP-47 tag", i, t.Lang)
		}
		if t.Stage != "" && !in(Stages, t.Stage) {
			bad("turns[%d].stage %q is not one of %v", i, t.Stage, Stages)
		}
		if l := t.Labels; l != nil {
			for _, task := range LabelTasks {
				if v := *task.Field(l); v != "" && !in(task.Values, v) {
					bad("turns[%d].labels.%s %q is not one of %v", i, task.Name, v, task.Values)
				}
			}
			if l.Agreement < 0 || l.Agreement > 1 {
				bad("turns[%d].labels.agreement %v is outside [0,1]", i, l.Agreement)
			}
		}
	}
	if len(r.NarrationAt) > 0 && len(r.NarrationAt) != len(r.Narration) {
		bad("narration_at has %d positions for %d narration lines", len(r.NarrationAt), len(r.Narration))
	}
	lo := 0 // positions go in the narration's order
	for i, at := range r.NarrationAt {
		if at < lo || at > len(r.Turns) {
			bad("narration_at[%d] is %d: want %d to %d", i, at, lo, len(r.Turns))
			continue
		}
		lo = at
	}
	if q := r.Quality; q != nil {
		for name, v := range map[string]int{"consistency": q.Consistency, "naturalness": q.Naturalness,
			"relevance": q.Relevance, "coherence": q.Coherence, "emotion": q.Emotion, "norm": q.Norm, "fit": q.Fit} {
			if v != 0 && (v < 1 || v > 5) {
				bad("quality.%s %d is outside 1-5", name, v)
			}
		}
	}
	return errors.Join(errs...)
}
