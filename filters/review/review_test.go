package review

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/pkg/record"
)

func labelled() *record.Record {
	return &record.Record{ID: "ko-1", Culture: "korean", DialogueType: "adherence", Category: "apology",
		Norm: "늦었을 때는 윗사람에게 먼저 정중히 사과한다.", Scenario: "민수가 보고서를 늦게 제출한다.",
		LabelsMeta: &record.LabelsMeta{Model: "qwen"},
		Turns: []record.Turn{
			{Index: 0, Speaker: "민수", Action: "고개를 숙이며", Text: "부장님, 보고서가 늦어서 죄송합니다.", Labels: &record.Labels{Norm: "adhered", Intent: "APO"}},
			{Index: 1, Speaker: "부장", Text: "다음부터는 미리 말해 줘요.", Labels: &record.Labels{Norm: "not_relevant", Intent: "SUG", Agreement: 0.67}},
			{Index: 2, Speaker: "민수", Text: "네, 꼭 그러겠습니다 🙂", Labels: &record.Labels{Norm: "adhered"}},
		}}
}

// asJSON is v as generic JSON, to check the exact keys a tool reads.
func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The task has the keys of Label Studio's import format (start and end as
// strings: the editor's ParagraphsRegion types them so and places no
// numeric region on a paragraph): data with the
// Paragraphs list of {author, text}, predictions with model_version and
// result items {id, from_name, to_name, type, value{start, end,
// startOffset, endOffset, paragraphlabels}}, offsets in UTF-16 units.
func TestLabelStudioTask(t *testing.T) {
	tasks := LabelStudio([]string{"norm", "intent"})(labelled())
	if len(tasks) != 1 {
		t.Fatalf("%d tasks", len(tasks))
	}
	m := asJSON(t, tasks[0])
	data := m["data"].(map[string]any)
	dlg := data["dialogue"].([]any)
	if len(dlg) != 3 || dlg[0].(map[string]any)["author"] != "민수" || dlg[0].(map[string]any)["text"] != "(고개를 숙이며) 부장님, 보고서가 늦어서 죄송합니다." {
		t.Errorf("dialogue %v", dlg)
	}
	for _, k := range []string{"culture", "dialogue_type", "category", "norm", "scenario", "situation", "ngkit_id", "ngkit_record"} {
		if _, ok := data[k]; !ok {
			t.Errorf("data lacks %s", k)
		}
	}
	pred := m["predictions"].([]any)[0].(map[string]any)
	if pred["model_version"] != "nglabel qwen" {
		t.Errorf("model_version %v", pred["model_version"])
	}
	res := pred["result"].([]any)
	if len(res) != 5 { // norm x3, intent x2
		t.Fatalf("%d results: %v", len(res), res)
	}
	last := res[4].(map[string]any)
	v := last["value"].(map[string]any)
	if last["from_name"] != "norm" || last["to_name"] != "dialogue" || last["type"] != "paragraphlabels" ||
		v["start"] != "2" || v["end"] != "2" || v["startOffset"] != 0.0 || v["endOffset"] != 14.0 || // 12 runes + 🙂 (2 UTF-16 units)
		v["paragraphlabels"].([]any)[0] != "adhered" {
		t.Errorf("last result %v", last)
	}
	if LabelStudio(nil)(&record.Record{ID: "seed"}) != nil {
		t.Error("a record without turns made a task")
	}
}

// The labeling config is XML that names the controls the results use,
// with every label of each task.
func TestLabelStudioConfig(t *testing.T) {
	cfg := LabelStudioConfig([]string{"norm", "intent"})
	d := xml.NewDecoder(strings.NewReader(cfg))
	controls := map[string][]string{}
	var cur string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("config is not XML: %v\n%s", err, cfg)
		}
		if se, ok := tok.(xml.StartElement); ok {
			attr := map[string]string{}
			for _, a := range se.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch se.Name.Local {
			case "ParagraphLabels", "Choices", "TextArea":
				cur = attr["name"]
				if attr["toName"] != "dialogue" {
					t.Errorf("%s toName %q", cur, attr["toName"])
				}
				controls[cur] = nil
			case "Label", "Choice":
				controls[cur] = append(controls[cur], attr["value"])
			case "Paragraphs":
				if attr["name"] != "dialogue" || attr["value"] != "$dialogue" || attr["nameKey"] != "author" || attr["textKey"] != "text" {
					t.Errorf("Paragraphs %v", attr)
				}
			}
		}
	}
	if !slices.Equal(controls["norm"], record.NormLabels) || !slices.Equal(controls["intent"], record.Intents) ||
		!slices.Equal(controls["verdict"], []string{"accept", "reject"}) {
		t.Errorf("controls %v", controls)
	}
	if _, ok := controls["comment"]; !ok {
		t.Error("no comment")
	}
}

func readAll(t *testing.T, s *Source) []*record.Record {
	t.Helper()
	out, err := imports.ReadAll(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func humanNorms(r *record.Record) []string {
	var out []string
	for _, t := range r.Turns {
		out = append(out, t.LabelsHuman.Get("norm"))
	}
	return out
}

// A Label Studio export as the tool writes it: the majority of the two
// reviewers per turn (a tie goes to the first), regions over two
// paragraphs, start as a string or a number, the cancelled annotation not
// counted, a 1-1 verdict tie rejects, the unreviewed task passes through.
func TestFromLabelStudioExport(t *testing.T) {
	recs := readAll(t, NewLabelStudio([]string{"../../testdata/review/labelstudio_export.json"}, nil))
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.ID != "ko-1" || r.Culture != "korean" || len(r.Turns) != 3 || r.Turns[0].Action != "고개를 숙이며" || r.Turns[0].Text != "부장님, 보고서가 늦어서 죄송합니다." {
		t.Errorf("record rebuilt from data: %+v", r)
	}
	if got := humanNorms(r); !slices.Equal(got, []string{"adhered", "not_relevant", "not_relevant"}) {
		t.Errorf("human norm labels %v", got)
	}
	if r.Turns[0].LabelsHuman.Intent != "APO" {
		t.Errorf("intent %+v", r.Turns[0].LabelsHuman)
	}
	if rv := r.Review; rv == nil || rv.Tool != "labelstudio" || rv.Verdict != "reject" || rv.Reviewers != 2 || !slices.Equal(rv.Comments, []string{"자연스러워요"}) {
		t.Errorf("review %+v", r.Review)
	}
	if recs[1].Review != nil || recs[1].Turns[0].LabelsHuman != nil {
		t.Errorf("unreviewed task: %+v", recs[1])
	}
}

// A task made by LabelStudio comes back as the same record, plus what the
// reviewer changed: here one turn relabelled.
func TestLabelStudioRoundTrip(t *testing.T) {
	rec := labelled()
	task := LabelStudio([]string{"norm"})(rec)[0]
	res := slices.Clone(task.Predictions[0].Result)
	res[2].Value.ParagraphLabels = []string{"violated"}
	res = append(res, LabelStudioResult{FromName: "verdict", ToName: "dialogue", Type: "choices", Value: LabelStudioValue{Choices: []string{"accept"}}})
	exp := map[string]any{"id": 9, "data": task.Data, "annotations": []any{map[string]any{"id": 1, "result": res, "was_cancelled": false, "completed_by": 1}}}
	b, _ := json.Marshal([]any{exp})
	got := readAll(t, NewLabelStudio(nil, strings.NewReader(string(b))))[0]
	if got.ID != rec.ID || got.LabelsMeta == nil || got.Turns[1].Labels.Agreement != 0.67 {
		t.Errorf("the record did not come back whole: %+v", got)
	}
	if h := humanNorms(got); !slices.Equal(h, []string{"adhered", "not_relevant", "violated"}) {
		t.Errorf("human labels %v", h)
	}
	if got.Review.Verdict != "accept" || got.Review.Reviewers != 1 {
		t.Errorf("review %+v", got.Review)
	}
}

// The Argilla record has the keys of rg.Record.from_dict: id, fields (a
// chat field of {role, content}), metadata, suggestions {value, score,
// agent}, responses, vectors.
func TestArgillaRecord(t *testing.T) {
	m := asJSON(t, Argilla([]string{"norm", "intent"})(labelled())[0])
	for _, k := range []string{"id", "fields", "metadata", "suggestions", "responses", "vectors", "_server_id"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s", k)
		}
	}
	f := m["fields"].(map[string]any)
	msg := f["dialogue"].([]any)[0].(map[string]any)
	if msg["role"] != "A" || msg["content"] != "민수: (고개를 숙이며) 부장님, 보고서가 늦어서 죄송합니다." || f["norm"] == "" {
		t.Errorf("fields %v", f)
	}
	if r := f["dialogue"].([]any)[1].(map[string]any)["role"]; r != "B" {
		t.Errorf("second speaker's role %v", r)
	}
	if sp := m["metadata"].(map[string]any)["speakers"]; fmt.Sprint(sp) != "[민수 부장]" {
		t.Errorf("speakers %v", sp)
	}
	s := m["suggestions"].(map[string]any)
	if len(s) != 5 || s["norm_1"].(map[string]any)["value"] != "not_relevant" || s["norm_1"].(map[string]any)["score"] != 0.67 ||
		s["intent_0"].(map[string]any)["agent"] != "nglabel qwen" || s["norm_0"].(map[string]any)["score"] != nil {
		t.Errorf("suggestions %v", s)
	}
	if m["metadata"].(map[string]any)["culture"] != "korean" {
		t.Errorf("metadata %v", m["metadata"])
	}
}

func TestFromArgillaExport(t *testing.T) {
	f, err := os.Open("../../testdata/review/argilla_export.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := readAll(t, NewArgilla(nil, f))
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.ID != "ko-1" || r.Culture != "korean" || r.NormID != "n1" || r.Turns[0].Action != "고개를 숙이며" || r.Turns[1].Labels.Norm != "not_relevant" {
		t.Errorf("record %+v", r)
	}
	if got := humanNorms(r); !slices.Equal(got, []string{"adhered", "", "violated"}) {
		t.Errorf("human norm labels %v", got)
	}
	if rv := r.Review; rv == nil || rv.Tool != "argilla" || rv.Verdict != "reject" || rv.Reviewers != 2 || len(rv.Comments) != 1 {
		t.Errorf("review %+v", r.Review)
	}
	if err := r.Validate(); err != nil {
		t.Error(err)
	}
}

func TestReviewErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[{"data": {"dialogue": [{"author":"A","text":"x"}]}, "annotations": [{"result": [{"from_name":"norm","to_name":"dialogue","type":"paragraphlabels","value":{"start":"4","end":"4","paragraphlabels":["adhered"]}}]}]}]`, "turns 4-4, but the dialogue has 1 turns"},
		{`[{"data": {"dialogue": [{"author":"A","text":"x"}]}, "annotations": [{"result": [{"from_name":"norm","to_name":"dialogue","type":"paragraphlabels","value":{"start":0,"end":"x","paragraphlabels":["adhered"]}}]}]}]`, `paragraph index "x"`},
		{`[{"data": {"dialogue": [{"author":"A","text":"x"}]}, "annotations": [{"result": [{"from_name":"norm","to_name":"dialogue","type":"paragraphlabels","value":{"start":"0","end":"0","paragraphlabels":["fine"]}}]}]}]`, `"fine" is not one of`},
		{`[{"data": {"other": 1}}]`, "not a task of ngcat --to labelstudio"},
		{`[{"data": 1`, "element 1"},
	} {
		s := NewLabelStudio(nil, strings.NewReader(c.in))
		it, err := s.Next()
		if err == nil {
			if err = it.Err; it.Rec == nil {
				t.Errorf("%s: no record for the errors file", c.in)
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.in, err, c.want)
		}
	}
	if _, _, ok := ParseArgillaQuestion("norm_x"); ok {
		t.Error("norm_x parsed")
	}
	if task, i, ok := ParseArgillaQuestion("intent_12"); !ok || task != "intent" || i != 12 {
		t.Error("intent_12")
	}
}

// A region's start and end read as strings and as numbers; anything else
// is not a paragraph.
func TestParagraphIndex(t *testing.T) {
	for in, want := range map[string]int{`"2"`: 2, `2`: 2, `"0"`: 0, `0`: 0, `"17"`: 17} {
		if n, err := paragraphIndex(json.RawMessage(in)); err != nil || n != want {
			t.Errorf("%s: %d %v, want %d", in, n, err, want)
		}
	}
	for _, in := range []string{`"a"`, `-1`, `"-1"`, `1.5`, `"1.5"`, `""`, `null`, `"\"2"`, `[2]`} {
		if n, err := paragraphIndex(json.RawMessage(in)); err == nil {
			t.Errorf("%s read as %d", in, n)
		}
	}
}

// lsTask is a Label Studio export of one task of three turns with the
// given annotations.
func lsTask(annotations string) string {
	return `[{"id": 1, "data": {"ngkit_id": "d", "dialogue": [{"author": "A", "text": "one"}, {"author": "B", "text": "two"}, {"author": "A", "text": "three"}]},
	"annotations": [` + annotations + `]}]`
}

// lsRegion is a norm region over turn i.
func lsRegion(i int, label, origin string) string {
	return fmt.Sprintf(`{"id": "r%d%s", "from_name": "norm", "to_name": "dialogue", "type": "paragraphlabels", "origin": %q, "value": {"start": "%d", "end": "%d", "startOffset": 0, "endOffset": 3, "paragraphlabels": [%q]}}`, i, label, origin, i, i, label)
}

// A reviewer who draws a region over a turn instead of relabelling the
// predicted one, which stays in the annotation: their region wins, before
// or after it in result order; of two of their own, the later one.
func TestLabelStudioReviewerRegionWins(t *testing.T) {
	res := strings.Join([]string{
		lsRegion(0, "adhered", "prediction"), lsRegion(0, "violated", "manual"), // drawn after the prediction
		lsRegion(1, "violated", "prediction-changed"), lsRegion(1, "adhered", "prediction"), // changed, before an untouched one
		lsRegion(2, "adhered", "manual"), lsRegion(2, "not_relevant", "manual"), // two of their own
	}, ",")
	recs := readAll(t, NewLabelStudio(nil, strings.NewReader(lsTask(`{"completed_by": 1, "result": [`+res+`]}`))))
	if got := humanNorms(recs[0]); !slices.Equal(got, []string{"violated", "violated", "not_relevant"}) {
		t.Errorf("human norms %v, want the reviewer's", got)
	}
	// Without origins (older exports) the later region wins.
	res = lsRegion(0, "adhered", "") + "," + lsRegion(0, "violated", "")
	recs = readAll(t, NewLabelStudio(nil, strings.NewReader(lsTask(`{"completed_by": 1, "result": [`+res+`]}`))))
	if got := humanNorms(recs[0]); got[0] != "violated" {
		t.Errorf("human norms %v", got)
	}
}

// One vote per annotator (completed_by, a number or an object), their
// newest annotation by updated_at whatever the list order; a user whose
// newest annotation is skipped does not count.
func TestLabelStudioOneVotePerAnnotator(t *testing.T) {
	verdict := func(v string) string {
		return `{"from_name": "verdict", "to_name": "dialogue", "type": "choices", "value": {"choices": ["` + v + `"]}}`
	}
	ann := func(who, updated, region, v string, cancelled bool) string {
		return fmt.Sprintf(`{"completed_by": %s, "updated_at": %q, "was_cancelled": %v, "result": [%s, %s]}`, who, updated, cancelled, region, verdict(v))
	}
	in := lsTask(strings.Join([]string{
		ann("1", "2026-11-30T10:00:00.5Z", lsRegion(0, "adhered", "manual"), "accept", false),                        // user 1, newest
		ann("2", "2026-11-30T09:00:00Z", lsRegion(0, "violated", "manual"), "reject", false),                         // user 2
		ann("1", "2026-11-30T10:00:00Z", lsRegion(0, "violated", "manual"), "reject", false),                         // user 1, older
		ann(`{"id": 3, "email": "c@x"}`, "2026-11-30T08:00:00Z", lsRegion(0, "violated", "manual"), "reject", false), // user 3, older
		ann(`{"id": 3, "email": "c@x"}`, "2026-11-30T11:00:00Z", lsRegion(0, "violated", "manual"), "reject", true),  // user 3 skipped it at last
		ann("4", "2026-11-30T09:30:00Z", lsRegion(0, "adhered", "manual"), "accept", false),                          // user 4
	}, ","))
	r := readAll(t, NewLabelStudio(nil, strings.NewReader(in)))[0]
	// Users 1, 2 and 4 count: adhered 2 to 1, accept 2 to 1.
	if r.Review == nil || r.Review.Reviewers != 3 || r.Review.Verdict != "accept" || r.Turns[0].LabelsHuman.Norm != "adhered" {
		t.Errorf("review %+v, turn 0 %+v", r.Review, r.Turns[0].LabelsHuman)
	}
}

// Roles are A..Z, AA, AB, ...: 1 to 20 characters without spaces, as
// Argilla's ChatField takes, and read back as the same speaker.
func TestArgillaRoles(t *testing.T) {
	for k, want := range map[int]string{0: "A", 1: "B", 25: "Z", 26: "AA", 27: "AB", 51: "AZ", 52: "BA", 701: "ZZ", 702: "AAA"} {
		if got := Role(k); got != want {
			t.Errorf("Role(%d) = %s, want %s", k, got, want)
		}
	}
	for k := range 20000 {
		if r := Role(k); roleIndex(r) != k || len(r) > 20 || strings.ContainsAny(r, " \t\n") {
			t.Fatalf("Role(%d) = %q reads back as %d", k, r, roleIndex(r))
		}
	}
	for _, r := range []string{"", "a", "A1", "민수", "User"} {
		if roleIndex(r) >= 0 {
			t.Errorf("%q read as a role", r)
		}
	}
}

// readArgilla reads an export and returns the records and the summary lines.
func readArgilla(t *testing.T, path string) ([]*record.Record, []string) {
	t.Helper()
	s := NewArgilla([]string{path}, nil)
	return readAll(t, s), s.Notes()
}

// The Argilla SDK's export forms of one review (testdata/review, see its
// README): five records, u1 and u2 answering; a2's u2 discarded, a3 has
// only u1's draft, a4 has u2's draft beside u1's submitted answers, a5 no
// answer. The flat forms (to_list(flatten=True) written with default=str,
// to_datasets().to_json()) count submitted answers only and say what was
// left out; the nested form has no status, counts all and says so.
func TestFromArgillaForms(t *testing.T) {
	type want struct {
		verdict   string
		reviewers int
		norms     []string
	}
	submitted := []want{
		{"reject", 2, []string{"adhered", "violated"}},
		{"accept", 1, []string{"adhered", "not_relevant"}},
		{"", 0, []string{"", ""}},
		{"reject", 1, []string{"violated", "not_relevant"}},
		{"", 0, []string{"", ""}},
	}
	all := []want{
		{"reject", 2, []string{"adhered", "violated"}},
		{"reject", 2, []string{"adhered", "not_relevant"}}, // 1-1: a tie rejects
		{"reject", 1, []string{"violated", ""}},
		{"reject", 2, []string{"violated", "not_relevant"}}, // violated given first
		{"", 0, []string{"", ""}},
	}
	check := func(name string, recs []*record.Record, w []want) {
		t.Helper()
		if len(recs) != 5 {
			t.Fatalf("%s: %d records", name, len(recs))
		}
		for i, r := range recs {
			got := want{norms: humanNorms(r)}
			if r.Review != nil {
				got.verdict, got.reviewers = r.Review.Verdict, r.Review.Reviewers
			}
			if fmt.Sprint(got) != fmt.Sprint(w[i]) {
				t.Errorf("%s: %s: %v, want %v", name, r.ID, got, w[i])
			}
			if r.Turns[0].Labels.Norm != "adhered" || r.Turns[1].Labels.Norm != "not_relevant" || r.Culture != "american" {
				t.Errorf("%s: %s: model labels or context lost: %+v", name, r.ID, r)
			}
		}
		if r := recs[0]; r.Turns[1].Speaker != "Ben Carter (host)" || r.Turns[0].Action != "smiles" || r.Turns[0].Text != "Thanks so much for having me!" ||
			!slices.Equal(r.Review.Comments, []string{"Ben sounds curt."}) {
			t.Errorf("%s: a1 %+v %+v", name, r.Turns, r.Review)
		}
		if r := recs[4]; r.Turns[0].Speaker != "민수" || r.Turns[0].Text != "초대해 주셔서 감사합니다 🙂" || r.Turns[1].Speaker != "부장" || r.Turns[1].Text != "" {
			t.Errorf("%s: a5 turns %+v", name, r.Turns)
		}
	}
	const left = "argilla: 3 responses left out (2 draft, 1 discarded): only submitted answers count"
	for _, f := range []string{"argilla_flat.json"} {
		recs, notes := readArgilla(t, "../../testdata/review/"+f)
		check(f, recs, submitted)
		if !slices.Equal(notes, []string{left}) {
			t.Errorf("%s: notes %q", f, notes)
		}
	}
	recs, notes := readArgilla(t, "../../testdata/review/argilla_nested.json")
	check("argilla_nested.json", recs, all)
	if len(notes) != 1 || !strings.Contains(notes[0], "argilla_nested.json is the nested export") || !strings.Contains(notes[0], "export with to_list(flatten=True) to count") {
		t.Errorf("nested: notes %q", notes)
	}
}

// Episodes go to Label Studio with the judge's rubric scores as the
// prediction (Rating controls in the config), and come back with the
// reviewers' mean scores in sim.human.
func TestLabelStudioRubric(t *testing.T) {
	rec := &record.Record{ID: "ep-1", Culture: "thai",
		Turns: []record.Turn{{Index: 0, Speaker: "user", Text: "hi"}, {Index: 1, Speaker: "assistant", Text: "hello"}},
		Sim:   &record.Sim{Assistant: "a", Mode: "benchmark", End: "goal_met", Judge: &record.SimJudge{Assistance: 4, Cultural: 2, Language: 5}}}
	tasks, err := ParseReviewTasks("rubric")
	if err != nil {
		t.Fatal(err)
	}
	cfg := LabelStudioConfig(tasks)
	for _, s := range RubricScores {
		if !strings.Contains(cfg, `<Rating name="`+s+`" toName="dialogue" maxRating="5"`) {
			t.Errorf("config has no rating %s:\n%s", s, cfg)
		}
	}
	if strings.Contains(cfg, "ParagraphLabels") {
		t.Errorf("a rubric config with turn labels:\n%s", cfg)
	}
	task := LabelStudio(tasks)(rec)[0]
	if len(task.Predictions) != 1 || len(task.Predictions[0].Result) != 3 || *task.Predictions[0].Result[1].Value.Rating != 2 {
		t.Fatalf("predictions %+v", task.Predictions)
	}
	rating := func(name string, v int) LabelStudioResult {
		return LabelStudioResult{FromName: name, ToName: "dialogue", Type: "rating", Value: LabelStudioValue{Rating: &v}}
	}
	exp := map[string]any{"id": 1, "data": task.Data, "annotations": []any{
		map[string]any{"id": 1, "result": []LabelStudioResult{rating("assistance", 4), rating("cultural", 3), rating("language", 5)}},
		map[string]any{"id": 2, "result": []LabelStudioResult{rating("assistance", 5), rating("cultural", 4)}},
	}}
	b, _ := json.Marshal([]any{exp})
	got := readAll(t, NewLabelStudio(nil, strings.NewReader(string(b))))[0]
	h := got.Sim.Human
	if h == nil || h.Reviewers != 2 || *h.Assistance != 4.5 || *h.Cultural != 3.5 || *h.Language != 5 || got.Sim.Judge.Cultural != 2 {
		t.Fatalf("human %+v judge %+v", h, got.Sim.Judge)
	}
	if _, err := ParseReviewTasks("rubric,norm"); err != nil {
		t.Error(err)
	}
}
