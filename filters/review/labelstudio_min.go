package review

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ngkit/ngkit/pkg/record"
)

// Label Studio's JSON_MIN export (as label-studio 1.23.2 writes it) has
// one row per submitted annotation: the task's data keys and id at the top
// level, the annotation's annotation_id, annotator, created_at, updated_at
// and lead_time, and each control's answers under the control's name
// (ParagraphLabels: the regions without id or origin; a single Choices or
// TextArea: the string; Rating: the number). A data key and a control of
// the same name (ngkit's "norm") keep the control's answers. Skipped and
// cancelled annotations and tasks nobody annotated are left out.

// minAnnotationKeys are the keys of a JSON_MIN row that are about the
// annotation, not the task's data.
var minAnnotationKeys = []string{"id", "annotation_id", "annotator", "created_at", "updated_at", "lead_time"}

// minRowTask says whether raw is a JSON_MIN row (an object with
// annotation_id and no data) and gives its task id.
func minRowTask(raw json.RawMessage) (string, bool) {
	var row map[string]json.RawMessage
	if json.Unmarshal(raw, &row) != nil {
		return "", false
	}
	if _, ok := row["annotation_id"]; !ok {
		return "", false
	}
	if _, ok := row["data"]; ok {
		return "", false
	}
	return string(row["id"]), true
}

// minToTask makes one task of the JSON export of a task's JSON_MIN rows.
func minToTask(rows []json.RawMessage) (json.RawMessage, error) {
	var t struct {
		ID          json.RawMessage  `json:"id"`
		Data        map[string]any   `json:"data"`
		Annotations []map[string]any `json:"annotations"`
	}
	// The JSON export lists a task's annotations oldest first, JSON_MIN
	// newest first: in the JSON order, so that ties go the same way.
	parsed := make([]map[string]json.RawMessage, len(rows))
	for i, raw := range rows {
		if err := json.Unmarshal(raw, &parsed[i]); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(parsed, func(a, b map[string]json.RawMessage) int {
		var x, y float64
		json.Unmarshal(a["annotation_id"], &x)
		json.Unmarshal(b["annotation_id"], &y)
		return cmp.Compare(x, y)
	})
	for i, row := range parsed {
		var result []LabelStudioResult
		data := map[string]any{}
		keys := make([]string, 0, len(row))
		for k := range row {
			keys = append(keys, k)
		}
		slices.Sort(keys) // the same result order on every run
		for _, k := range keys {
			v := row[k]
			if slices.Contains(minAnnotationKeys, k) {
				continue
			}
			r, ok := minResult(k, v)
			if !ok {
				var x any
				if err := json.Unmarshal(v, &x); err != nil {
					return nil, err
				}
				data[k] = x
				continue
			}
			result = append(result, r...)
		}
		if i == 0 {
			t.ID, t.Data = row["id"], data
		}
		t.Annotations = append(t.Annotations, map[string]any{
			"completed_by": row["annotator"], "created_at": unquote(row["created_at"]), "updated_at": unquote(row["updated_at"]),
			"was_cancelled": false, "result": result,
		})
	}
	return json.Marshal(t)
}

// minResult reads a JSON_MIN value as the results of the control k, when
// k names one of ngkit's controls and v is what that control gives.
func minResult(k string, v json.RawMessage) ([]LabelStudioResult, bool) {
	switch {
	case record.LabelSet(k) != nil:
		var regions []LabelStudioValue
		if json.Unmarshal(v, &regions) != nil {
			return nil, false // a data key of that name (the norm's text)
		}
		out := make([]LabelStudioResult, len(regions))
		for i, r := range regions {
			out[i] = LabelStudioResult{ID: fmt.Sprintf("%s_%d", k, i), FromName: k, ToName: "dialogue", Type: "paragraphlabels", Value: r}
		}
		return out, true
	case k == "verdict":
		c, ok := stringOrList(v)
		return []LabelStudioResult{{FromName: k, ToName: "dialogue", Type: "choices", Value: LabelStudioValue{Choices: c}}}, ok
	case k == "comment":
		c, ok := stringOrList(v)
		text, _ := json.Marshal(c)
		return []LabelStudioResult{{FromName: k, ToName: "dialogue", Type: "textarea", Value: LabelStudioValue{Text: text}}}, ok
	case slices.Contains(RubricScores, k):
		var n int
		if json.Unmarshal(v, &n) != nil {
			return nil, false
		}
		return []LabelStudioResult{{FromName: k, ToName: "dialogue", Type: "rating", Value: LabelStudioValue{Rating: &n}}}, true
	}
	return nil, false
}

// stringOrList reads "x", ["x", ...] or {"choices": [...]} as a list.
func stringOrList(v json.RawMessage) ([]string, bool) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return []string{s}, true
	}
	var l []string
	if json.Unmarshal(v, &l) == nil {
		return l, true
	}
	var c struct {
		Choices []string `json:"choices"`
	}
	if json.Unmarshal(v, &c) == nil && c.Choices != nil {
		return c.Choices, true
	}
	return nil, false
}

// unquote is a JSON string's value, "" for anything else.
func unquote(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}
