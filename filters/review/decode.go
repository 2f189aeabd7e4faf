package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// lsExportTask is a task of a Label Studio JSON export
// (labelstud.io/guide/export: the data as imported, the annotations).
type lsExportTask struct {
	Data        json.RawMessage `json:"data"`
	Annotations []struct {
		WasCancelled bool                `json:"was_cancelled"`
		Result       []LabelStudioResult `json:"result"`
	} `json:"annotations"`
}

// paragraphIndex reads a region's start or end: a number, or a number in
// a string, as Label Studio writes them.
func paragraphIndex(raw json.RawMessage) (int, error) {
	s := strings.Trim(string(raw), `"`)
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("paragraph index %s is not a paragraph number", raw)
	}
	return n, nil
}

// DecodeLabelStudio turns one task of a Label Studio export into the
// record it was made of (data.ngkit_record, from ngcat --to labelstudio;
// else a record rebuilt from data.dialogue and the context), with each
// reviewer's ParagraphLabels regions as the turns' labels_human (the
// majority over reviewers), and the verdict and comments as its review.
// Cancelled (skipped) annotations do not count.
func DecodeLabelStudio(raw []byte) (*record.Record, error) {
	var t lsExportTask
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	if len(t.Data) == 0 {
		return nil, errors.New(`a Label Studio task has "data"`)
	}
	var d struct {
		LabelStudioData
		Record *record.Record `json:"ngkit_record"`
	}
	if err := json.Unmarshal(t.Data, &d); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	rec := d.Record
	if rec == nil {
		if len(d.Dialogue) == 0 {
			return nil, errors.New("data has neither ngkit_record nor dialogue: not a task of ngcat --to labelstudio")
		}
		rec = &record.Record{ID: d.NgkitID, Culture: d.Culture, DialogueType: d.DialogueType, Category: d.Category,
			Norm: d.Norm, Scenario: d.Scenario, Situation: d.Situation}
		for i, p := range d.Dialogue {
			action, text := splitAction(p.Text)
			rec.Turns = append(rec.Turns, record.Turn{Index: i, Speaker: p.Author, Action: action, Text: text})
		}
	}
	labels := map[int]map[string]*votes{}
	verdict := &votes{}
	var comments []string
	reviewers := 0
	var ratingSum, ratingN [3]float64 // RubricScores
	for _, a := range t.Annotations {
		if a.WasCancelled {
			continue
		}
		reviewers++
		mine := map[[2]string]bool{} // one vote per reviewer, turn and task
		for _, r := range a.Result {
			switch r.Type {
			case "paragraphlabels":
				if record.LabelSet(r.FromName) == nil || len(r.Value.ParagraphLabels) == 0 {
					continue // another control of the user's config
				}
				start, err := paragraphIndex(r.Value.Start)
				if err != nil {
					return nil, err
				}
				end, err := paragraphIndex(r.Value.End)
				if err != nil {
					return nil, err
				}
				for i := start; i <= end; i++ {
					k := [2]string{strconv.Itoa(i), r.FromName}
					if mine[k] {
						continue
					}
					mine[k] = true
					if labels[i] == nil {
						labels[i] = map[string]*votes{}
					}
					v := labels[i][r.FromName]
					if v == nil {
						v = &votes{}
						labels[i][r.FromName] = v
					}
					v.add(r.Value.ParagraphLabels[0])
				}
			case "rating":
				i := slices.Index(RubricScores, r.FromName)
				if i < 0 || r.Value.Rating == nil {
					continue // another control of the user's config
				}
				if v := *r.Value.Rating; v < 1 || v > 5 {
					return nil, fmt.Errorf("rating %s %d: want 1 to 5", r.FromName, v)
				}
				ratingSum[i] += float64(*r.Value.Rating)
				ratingN[i]++
			case "choices":
				if r.FromName == "verdict" && len(r.Value.Choices) > 0 {
					c := r.Value.Choices[0]
					if c != record.VerdictAccept && c != record.VerdictReject {
						return nil, fmt.Errorf("verdict %q: want accept or reject", c)
					}
					verdict.add(c)
				}
			case "textarea":
				var texts []string
				if json.Unmarshal(r.Value.Text, &texts) == nil {
					for _, s := range texts {
						if s = strings.TrimSpace(s); s != "" {
							comments = append(comments, s)
						}
					}
				}
			}
		}
	}
	if err := apply(rec, ToolLabelStudio, labels, verdict, comments, reviewers); err != nil {
		return nil, fmt.Errorf("record %s: %w", rec.ID, err)
	}
	if ratingN != [3]float64{} {
		if rec.Sim == nil {
			return nil, fmt.Errorf("record %s: rubric ratings for a record that is not a simulated episode", rec.ID)
		}
		h := &record.SimHuman{Reviewers: reviewers}
		for i, f := range []**float64{&h.Assistance, &h.Cultural, &h.Language} {
			if ratingN[i] > 0 {
				m := ratingSum[i] / ratingN[i]
				*f = &m
			}
		}
		rec.Sim.Human = h
	}
	return rec, nil
}

// DecodeArgilla turns one record of an Argilla 2 export
// (rg.Record.to_dict(): fields, metadata, suggestions, responses) made by
// ngcat --to argilla back into a dialogue record: id, context and turns
// from the fields and metadata, the model's labels from the suggestions,
// the reviewers' answers to the per-turn questions (norm_3, ...) as
// labels_human (the majority over reviewers), and the verdict and comment
// questions as its review. The rest of the original record stays in the
// corpus: join on id to get it back.
func DecodeArgilla(raw []byte) (*record.Record, error) {
	var a ArgillaRecord
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	if a.ID == "" || len(a.Fields.Dialogue) == 0 {
		return nil, errors.New("an Argilla record of ngcat --to argilla has an id and fields.dialogue")
	}
	meta := func(k string) string { s, _ := a.Metadata[k].(string); return s }
	rec := &record.Record{ID: a.ID, Culture: meta("culture"), DialogueType: meta("dialogue_type"), Category: meta("category"),
		NormID: meta("norm_id"), Norm: a.Fields.Norm, Scenario: a.Fields.Scenario, Situation: a.Fields.Situation}
	for i, m := range a.Fields.Dialogue {
		action, text := splitAction(m.Content)
		rec.Turns = append(rec.Turns, record.Turn{Index: i, Speaker: m.Role, Action: action, Text: text})
	}
	for q, s := range a.Suggestions {
		task, i, ok := ParseArgillaQuestion(q)
		v, _ := s.Value.(string)
		if !ok || v == "" || i >= len(rec.Turns) {
			continue
		}
		t := &rec.Turns[i]
		if t.Labels == nil {
			t.Labels = &record.Labels{}
		}
		t.Labels.Set(task, v)
	}
	labels := map[int]map[string]*votes{}
	verdict := &votes{}
	var comments []string
	users := map[string]bool{}
	qs := make([]string, 0, len(a.Responses))
	for q := range a.Responses {
		qs = append(qs, q)
	}
	slices.Sort(qs) // the same comments order on every run
	for _, q := range qs {
		for _, r := range a.Responses[q] {
			users[r.UserID] = true
			v, _ := r.Value.(string)
			switch {
			case q == "verdict":
				if v != record.VerdictAccept && v != record.VerdictReject {
					return nil, fmt.Errorf("record %s: verdict %q: want accept or reject", a.ID, v)
				}
				verdict.add(v)
			case q == "comment":
				if v = strings.TrimSpace(v); v != "" {
					comments = append(comments, v)
				}
			default:
				task, i, ok := ParseArgillaQuestion(q)
				if !ok || v == "" {
					continue
				}
				if labels[i] == nil {
					labels[i] = map[string]*votes{}
				}
				if labels[i][task] == nil {
					labels[i][task] = &votes{}
				}
				labels[i][task].add(v)
			}
		}
	}
	if err := apply(rec, ToolArgilla, labels, verdict, comments, len(users)); err != nil {
		return nil, fmt.Errorf("record %s: %w", a.ID, err)
	}
	return rec, nil
}
