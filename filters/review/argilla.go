package review

import (
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// ArgillaRecord is one record in Argilla 2's export form, what
// rg.Record.to_dict() gives and rg.Record.from_dict() takes (the records
// file of Dataset.to_disk, dataset.records.to_list(flatten=False)).
type ArgillaRecord struct {
	ID          string                       `json:"id"`
	Fields      ArgillaFields                `json:"fields"`
	Metadata    map[string]any               `json:"metadata"`
	Suggestions map[string]ArgillaSuggestion `json:"suggestions"`
	Responses   map[string][]ArgillaResponse `json:"responses"`
	Vectors     map[string][]float64         `json:"vectors"`
	ServerID    *string                      `json:"_server_id"`
}

// ArgillaFields are the dataset's fields: the dialogue as a chat field
// (one message per turn, the speaker as its role) and the context as text
// fields.
type ArgillaFields struct {
	Dialogue  []ArgillaMessage `json:"dialogue"`
	Norm      string           `json:"norm"`
	Scenario  string           `json:"scenario"`
	Situation string           `json:"situation"`
}

// ArgillaMessage is one message of a chat field.
type ArgillaMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ArgillaSuggestion is a question's suggested answer.
type ArgillaSuggestion struct {
	Value any      `json:"value"`
	Score *float64 `json:"score"`
	Agent string   `json:"agent"`
}

// ArgillaResponse is one reviewer's answer to a question.
type ArgillaResponse struct {
	Value  any    `json:"value"`
	UserID string `json:"user_id"`
}

// ArgillaQuestion names the question of a task on turn i: "norm_3".
func ArgillaQuestion(task string, i int) string { return fmt.Sprintf("%s_%d", task, i) }

// ParseArgillaQuestion splits "norm_3" into its task and turn.
func ParseArgillaQuestion(q string) (task string, turn int, ok bool) {
	i := strings.LastIndexByte(q, '_')
	if i < 0 || record.LabelSet(q[:i]) == nil {
		return "", 0, false
	}
	if _, err := fmt.Sscanf(q[i+1:], "%d", &turn); err != nil || turn < 0 || fmt.Sprint(turn) != q[i+1:] {
		return "", 0, false
	}
	return q[:i], turn, true
}

// Argilla makes one Argilla record of a dialogue, its turn labels as
// suggestions of the per-turn questions (norm_0, intent_0, ...); records
// without turns make none.
func Argilla(tasks []string) func(*record.Record) []ArgillaRecord {
	return func(rec *record.Record) []ArgillaRecord {
		if len(rec.Turns) == 0 {
			return nil
		}
		a := ArgillaRecord{
			ID:     rec.ID,
			Fields: ArgillaFields{Norm: rec.Norm, Scenario: rec.Scenario, Situation: rec.Situation},
			Metadata: map[string]any{
				"culture": rec.Culture, "dialogue_type": rec.DialogueType, "category": rec.Category,
				"norm_id": rec.NormID, "turns": len(rec.Turns),
			},
			Suggestions: map[string]ArgillaSuggestion{},
			Responses:   map[string][]ArgillaResponse{},
			Vectors:     map[string][]float64{},
		}
		agent := labelModel(rec)
		for i, t := range rec.Turns {
			a.Fields.Dialogue = append(a.Fields.Dialogue, ArgillaMessage{Role: t.Speaker, Content: turnText(t)})
			for _, task := range tasks {
				if l := t.Labels.Get(task); l != "" {
					s := ArgillaSuggestion{Value: l, Agent: agent}
					if ag := t.Labels.Agreement; ag > 0 {
						s.Score = &ag
					}
					a.Suggestions[ArgillaQuestion(task, i)] = s
				}
			}
		}
		return []ArgillaRecord{a}
	}
}
