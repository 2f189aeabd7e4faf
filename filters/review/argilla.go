package review

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// ArgillaRecord is one record in Argilla 2's nested form, what
// rg.Record.to_dict() gives and rg.Record.from_dict() takes (the records
// file of Dataset.to_disk, dataset.records.to_list(flatten=False)); the
// export's status, inserted_at and updated_at are not read.
type ArgillaRecord struct {
	ID          string                       `json:"id"`
	Fields      ArgillaFields                `json:"fields"`
	Metadata    map[string]any               `json:"metadata"`
	Suggestions map[string]ArgillaSuggestion `json:"suggestions"`
	Responses   map[string][]ArgillaResponse `json:"responses"`
	Vectors     map[string][]float64         `json:"vectors"`
	ServerID    *string                      `json:"_server_id"`

	flat bool // read from the flat form, whose answers have a status
}

// ArgillaFields are the dataset's fields: the dialogue as a chat field
// (one message per turn) and the context as text fields.
type ArgillaFields struct {
	Dialogue  []ArgillaMessage `json:"dialogue"`
	Norm      string           `json:"norm"`
	Scenario  string           `json:"scenario"`
	Situation string           `json:"situation"`
}

// ArgillaMessage is one message of a chat field. Argilla's server takes a
// role of 1 to 20 characters (older servers: without spaces) and a content
// of 1 to 20,000: ngcat writes the speakers as roles A, B, ... (their
// names in the metadata's "speakers", in that order) and the content as
// "Name: text".
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

// ArgillaResponse is one reviewer's answer to a question; its status
// (draft, submitted, discarded) is in the flat export only.
type ArgillaResponse struct {
	Value  any     `json:"value"`
	UserID string  `json:"user_id"`
	Status *string `json:"status,omitempty"`
}

// Role is the chat role of the k-th speaker of a dialogue: A, B, ..., Z,
// AA, AB, ...: short, without spaces, as Argilla's ChatField takes.
func Role(k int) string {
	s := ""
	for k++; k > 0; k = (k - 1) / 26 {
		s = string(rune('A'+(k-1)%26)) + s
	}
	return s
}

// roleIndex undoes Role; -1 for anything else.
func roleIndex(role string) int {
	if role == "" || len(role) > 4 {
		return -1
	}
	k := 0
	for _, c := range role {
		if c < 'A' || c > 'Z' {
			return -1
		}
		k = k*26 + int(c-'A') + 1
	}
	return k - 1
}

// unflatten reads a record of the flat form (GenericIO._record_to_dict
// with flatten=True, as to_list(flatten=True) and to_datasets() give):
// fields and metadata as top-level keys, "<question>.suggestion" (.score,
// .agent) and "<question>.responses" with ".responses.users" and
// ".responses.status", lists of the same length. Absent values are null.
func (a *ArgillaRecord) unflatten(top map[string]json.RawMessage) error {
	a.flat = true
	str := func(k string) (string, error) {
		var s *string
		if err := json.Unmarshal(orNull(top[k]), &s); err != nil {
			return "", fmt.Errorf("%s: %w", k, err)
		}
		if s == nil {
			return "", nil
		}
		return *s, nil
	}
	var err error
	if a.ID, err = str("id"); err != nil {
		return err
	}
	if err := json.Unmarshal(orNull(top["dialogue"]), &a.Fields.Dialogue); err != nil {
		return fmt.Errorf("dialogue: %w", err)
	}
	for k, p := range map[string]*string{"norm": &a.Fields.Norm, "scenario": &a.Fields.Scenario, "situation": &a.Fields.Situation} {
		if *p, err = str(k); err != nil {
			return err
		}
	}
	a.Metadata = map[string]any{}
	for _, k := range []string{"culture", "dialogue_type", "category", "norm_id", "speakers"} {
		var v any
		if json.Unmarshal(orNull(top[k]), &v) == nil && v != nil {
			a.Metadata[k] = v
		}
	}
	a.Suggestions, a.Responses = map[string]ArgillaSuggestion{}, map[string][]ArgillaResponse{}
	for k, raw := range top {
		if q, ok := strings.CutSuffix(k, ".suggestion"); ok {
			var s ArgillaSuggestion
			json.Unmarshal(orNull(raw), &s.Value)
			json.Unmarshal(orNull(top[k+".score"]), &s.Score)
			json.Unmarshal(orNull(top[k+".agent"]), &s.Agent)
			if s.Value != nil {
				a.Suggestions[q] = s
			}
			continue
		}
		q, ok := strings.CutSuffix(k, ".responses")
		if !ok {
			continue
		}
		var values []any
		var users []string
		var status []*string
		for _, f := range []struct {
			key string
			v   any
		}{{k, &values}, {k + ".users", &users}, {k + ".status", &status}} {
			if err := json.Unmarshal(orNull(top[f.key]), f.v); err != nil {
				return fmt.Errorf("%s: %w", f.key, err)
			}
		}
		if len(users) != len(values) || len(status) != len(values) {
			return fmt.Errorf("%s: %d values, %d users, %d statuses: want as many of each", k, len(values), len(users), len(status))
		}
		for i, v := range values {
			a.Responses[q] = append(a.Responses[q], ArgillaResponse{Value: v, UserID: users[i], Status: status[i]})
		}
	}
	return nil
}

// orNull is raw, or JSON null for an absent key.
func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
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
				"norm_id": rec.NormID, "turns": len(rec.Turns), "speakers": []string{},
			},
			Suggestions: map[string]ArgillaSuggestion{},
			Responses:   map[string][]ArgillaResponse{},
			Vectors:     map[string][]float64{},
		}
		agent := labelModel(rec)
		var speakers []string
		for i, t := range rec.Turns {
			k := slices.Index(speakers, t.Speaker)
			if k < 0 {
				k, speakers = len(speakers), append(speakers, t.Speaker)
			}
			content := t.Speaker + ":"
			if text := turnText(t); text != "" {
				content += " " + text
			}
			a.Fields.Dialogue = append(a.Fields.Dialogue, ArgillaMessage{Role: Role(k), Content: content})
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
		a.Metadata["speakers"] = speakers
		return []ArgillaRecord{a}
	}
}
