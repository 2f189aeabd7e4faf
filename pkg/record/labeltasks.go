package record

import "slices"

// LabelTask is one turn label: its row in LabelTasks holds all that
// nglabel, ngstats, the review exports and importers, the dataset card and
// the help need to know of it, so that a new label is one row (and its
// fields in Labels, ModelLabels and TurnRow, and the schemas' entries that
// the tests ask for).
type LabelTask struct {
	// Name is the task (nglabel --tasks, ngcat --review-tasks) and the
	// label's field in labels, labels_human, by_model and the label_turns
	// reply; Name+"_dist" holds its shares over samples.
	Name string
	// Values is the closed set, in the order prompts, schemas, review
	// configs and reports list it.
	Values []string
	// Title names the labels in prose (the dataset card): "norm adherence".
	Title string
	// Help follows the values in the task's line of nglabel's help.
	Help string
	// Prompt describes the label to the labelling model in the built-in
	// label/turns prompts, after "- name: " (English; a pack's template may
	// say it in its own words).
	Prompt string
	// Aliases are other names --tasks accepts for the task.
	Aliases []string
	// Types are the dialogue types the label applies to (nil: every type);
	// NeedsNorm: only records with a norm to adhere to (a ProsocialDialog
	// import has none).
	Types     []string
	NeedsNorm bool
	// Default: labelled when nglabel's --tasks is not given, and reviewed
	// when ngcat's --review-tasks is not given.
	Default bool
	// Merge is how several votes (samples, a panel's labellers) become one
	// label: MergeMajority or MergeSafety.
	Merge string
	// Rots: the label comes with rules-of-thumb (labels.rots), one or more
	// for every value but the first.
	Rots bool
	// Field, Dist and ByModel point at the label's fields in Labels (its
	// label and its shares) and in ModelLabels; Column at its column in
	// TurnRow (nil: none).
	Field   func(*Labels) *string
	Dist    func(*Labels) *map[string]float64
	ByModel func(*ModelLabels) *string
	Column  func(*TurnRow) *string
}

// How the votes of a label are merged (LabelTask.Merge).
const (
	// MergeMajority: the most frequent label, the earliest vote on a tie.
	MergeMajority = "majority"
	// MergeSafety: ProsocialDialog's rule of its three annotators (any
	// needs_intervention wins; otherwise by the share of caution votes).
	MergeSafety = "safety"
)

// LabelTasks are the turn labels, in report order. Tests append rows (and
// restore the table) to check that a new label reaches every program.
var LabelTasks = []LabelTask{
	{Name: "norm", Values: NormLabels, Title: "norm adherence",
		Help:      "(adherence to the record's norm)",
		Prompt:    `how the turn relates to the social norm given with the dialogue. "adhered": the turn follows it; "violated": the turn goes against it; "not_relevant": the norm does not bear on what this turn says or does.`,
		NeedsNorm: true, Default: true, Merge: MergeMajority,
		Field:   func(l *Labels) *string { return &l.Norm },
		Dist:    func(l *Labels) *map[string]float64 { return &l.NormDist },
		ByModel: func(m *ModelLabels) *string { return &m.Norm },
		Column:  func(r *TurnRow) *string { return &r.Norm }},
	{Name: "intent", Values: Intents, Title: "intent",
		Help:    "(the NormGenesis codes)",
		Prompt:  "the speaker's main communicative intent in this turn, one code: ACK acknowledgment, AGR agreement, DIS disagreement, APO apology, THX gratitude, EMP empathy or support, JUS excuse or justification, SUG suggestion or advice, QUE question or request for information, CRT criticism, NR none of these.",
		Default: true, Merge: MergeMajority,
		Field:   func(l *Labels) *string { return &l.Intent },
		Dist:    func(l *Labels) *map[string]float64 { return &l.IntentDist },
		ByModel: func(m *ModelLabels) *string { return &m.Intent },
		Column:  func(r *TurnRow) *string { return &r.Intent }},
	{Name: "emotion", Values: Emotions, Title: "emotion",
		Help:    "(Ekman's six + neutral)",
		Prompt:  "the emotion the speaker expresses in this turn, one of anger, disgust, fear, joy, sadness, surprise (Ekman's six basic emotions) or neutral when no emotion stands out.",
		Default: true, Merge: MergeMajority,
		Field:   func(l *Labels) *string { return &l.Emotion },
		Dist:    func(l *Labels) *map[string]float64 { return &l.EmotionDist },
		ByModel: func(m *ModelLabels) *string { return &m.Emotion },
		Column:  func(r *TurnRow) *string { return &r.Emotion }},
	{Name: "stage", Values: Stages, Title: "stage",
		Help:   "(V2R dialogues only)",
		Prompt: `where the turn stands in this violation-to-resolution dialogue. "context": before the norm is broken; "violation": the turn in which the norm is broken; "recognition": someone points the violation out, or the one who broke the norm realises it; "repair": the one who broke the norm apologises, explains or makes amends; "resolution": the others accept, and the relationship and the conversation settle.`,
		Types:  []string{TypeV2R}, Default: true, Merge: MergeMajority,
		Field:   func(l *Labels) *string { return &l.Stage },
		Dist:    func(l *Labels) *map[string]float64 { return &l.StageDist },
		ByModel: func(m *ModelLabels) *string { return &m.Stage },
		Column:  func(r *TurnRow) *string { return &r.LabelStage }},
	{Name: "safety", Values: SafetyLabels, Title: "safety",
		Help:    `(ProsocialDialog), with rules-of-thumb in rots ("It's wrong to ..."), one or more for every turn above casual; --tasks rots is the same task`,
		Prompt:  `whether the turn calls for care from a conversational partner, on the ProsocialDialog scale: "casual" (nothing problematic), "possibly_needs_caution", "probably_needs_caution", "needs_caution" (the turn is rude, hurtful, unethical or risky in a way that should be addressed), "needs_intervention" (someone's safety is at stake and help is needed now).`,
		Aliases: []string{"rots", "safety+rots"}, Merge: MergeSafety, Rots: true,
		Field:   func(l *Labels) *string { return &l.Safety },
		Dist:    func(l *Labels) *map[string]float64 { return &l.SafetyDist },
		ByModel: func(m *ModelLabels) *string { return &m.Safety },
		Column:  func(r *TurnRow) *string { return &r.Safety }},
}

// LabelTaskOf is the row of a task (nil: not a turn label).
func LabelTaskOf(task string) *LabelTask {
	for i := range LabelTasks {
		if LabelTasks[i].Name == task {
			return &LabelTasks[i]
		}
	}
	return nil
}

// LabelTaskNames are the tasks' names, in report order.
func LabelTaskNames() []string {
	out := make([]string, len(LabelTasks))
	for i, t := range LabelTasks {
		out[i] = t.Name
	}
	return out
}

// DefaultLabelTasks are the names of the tasks labelled and reviewed by
// default (Default), in report order.
func DefaultLabelTasks() []string {
	var out []string
	for _, t := range LabelTasks {
		if t.Default {
			out = append(out, t.Name)
		}
	}
	return out
}

// AppliesTo reports whether the label applies to rec: its dialogue type is
// one of Types, and it has a norm when the label needs one.
func (t *LabelTask) AppliesTo(rec *Record) bool {
	return (t.Types == nil || slices.Contains(t.Types, rec.DialogueType)) && (!t.NeedsNorm || rec.Norm != "")
}

// LabelSet is the closed set of labels of a task (nil: not a task).
func LabelSet(task string) []string {
	if t := LabelTaskOf(task); t != nil {
		return t.Values
	}
	return nil
}

// Get is the label of a task ("" when l is nil or has none).
func (l *Labels) Get(task string) string {
	if l == nil {
		return ""
	}
	if t := LabelTaskOf(task); t != nil {
		return *t.Field(l)
	}
	return ""
}

// Set sets the label of a task; it reports false for an unknown task.
func (l *Labels) Set(task, v string) bool {
	t := LabelTaskOf(task)
	if t == nil {
		return false
	}
	*t.Field(l) = v
	return true
}

// GetDist is the shares of a task's labels over samples (nil: none).
func (l *Labels) GetDist(task string) map[string]float64 {
	if t := LabelTaskOf(task); l != nil && t != nil {
		return *t.Dist(l)
	}
	return nil
}

// Get is the labeller's label of a task ("" when it has none).
func (m *ModelLabels) Get(task string) string {
	if t := LabelTaskOf(task); t != nil {
		return *t.ByModel(m)
	}
	return ""
}
