package export

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/pkg/record"
)

const prosocialSample = "../../testdata/prosocial/sample.jsonl"

func importProsocial(t *testing.T, path string) []*record.Record {
	t.Helper()
	src, err := imports.NewProsocial([]string{path}, imports.ProsocialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	out, err := imports.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Rows -> records (--from prosocial) -> rows (--to prosocial) gives the
// rows back, every column equal; safety_annotations as a multiset (the
// import keeps votes as shares, not in order).
func TestProsocialRoundTrip(t *testing.T) {
	b, err := os.ReadFile(prosocialSample)
	if err != nil {
		t.Fatal(err)
	}
	var want []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		want = append(want, m)
	}
	var got []map[string]any
	for _, rec := range importProsocial(t, prosocialSample) {
		for _, row := range Prosocial(rec) {
			rb, _ := json.Marshal(row)
			var m map[string]any
			json.Unmarshal(rb, &m)
			got = append(got, m)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows back, want %d", len(got), len(want))
	}
	for i := range want {
		for _, m := range []map[string]any{got[i], want[i]} {
			if v, ok := m["safety_annotations"].([]any); ok {
				slices.SortFunc(v, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
			}
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			for k := range want[i] {
				if !reflect.DeepEqual(got[i][k], want[i][k]) {
					t.Errorf("row %d %s: %v, want %v", i, k, got[i][k], want[i][k])
				}
			}
		}
	}
}

// An nglabel-labelled dialogue: pairs of turns, the context turn's labels,
// votes from three samples spelled as annotators, a stage direction kept,
// an odd last turn with an empty response, keys from the record id.
func TestProsocialFromLabelledDialogue(t *testing.T) {
	rec := &record.Record{ID: "abc123", Culture: "korean", LabelsMeta: &record.LabelsMeta{Samples: 3},
		Turns: []record.Turn{
			{Index: 0, Speaker: "민수", Action: "한숨을 쉬며", Text: "또 늦었네.", Labels: &record.Labels{
				Safety: "probably_needs_caution", Rots: []string{"남을 탓하는 것은 좋지 않다."}, Explanation: "Blames the other.",
				SafetyDist: map[string]float64{"casual": 1.0 / 3, "needs_caution": 1.0 / 3, "probably_needs_caution": 1.0 / 3}}},
			{Index: 1, Speaker: "지영", Text: "미안해, 차가 막혔어.", Labels: &record.Labels{Safety: "casual"}},
			{Index: 2, Speaker: "민수", Text: "괜찮아.", Labels: &record.Labels{Safety: "casual", SafetyDist: map[string]float64{"casual": 1}}},
		}}
	rows := Prosocial(rec)
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	r0, r1 := rows[0], rows[1]
	if r0.Context != "(한숨을 쉬며) 또 늦었네." || r0.Response != "미안해, 차가 막혔어." || r0.SafetyLabel != "__probably_needs_caution__" ||
		!reflect.DeepEqual(r0.SafetyAnnotations, []string{"casual", "needs caution", "needs caution"}) ||
		!reflect.DeepEqual(r0.SafetyAnnotationReasons, []string{"Blames the other."}) || r0.Rots[0] != "남을 탓하는 것은 좋지 않다." ||
		r0.ResponseID != 0 || r0.EpisodeDone || r0.Source != "ngkit" || r0.Etc == nil || *r0.Etc != "abc123" {
		t.Errorf("row 0: %+v", r0)
	}
	if r1.Context != "괜찮아." || r1.Response != "" || !r1.EpisodeDone || r1.ResponseID != 1 || r1.DialogueID != r0.DialogueID || r0.DialogueID < 0 ||
		!reflect.DeepEqual(r1.SafetyAnnotations, []string{"casual", "casual", "casual"}) {
		t.Errorf("row 1: %+v", r1)
	}
	if Prosocial(&record.Record{ID: "empty"}) != nil {
		t.Error("rows for a record without turns")
	}
}
