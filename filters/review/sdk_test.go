package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// item is what the source gave for one element: the record and its error.
type item struct {
	rec *record.Record
	err error
}

// readItems reads every element of files, failed ones included, and the
// summary lines.
func readItems(t *testing.T, s *Source) ([]item, []string) {
	t.Helper()
	var out []item
	for {
		it, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out, s.Notes()
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, item{it.Rec, it.Err})
	}
}

// verdictOf is a record's review in one line: "verdict/reviewers/comments", "-" for none.
func verdictOf(r *record.Record) string {
	if rv := r.Review; rv != nil {
		return fmt.Sprintf("%s/%d/%s", rv.Verdict, rv.Reviewers, strings.Join(rv.Comments, "|"))
	}
	return "-"
}

// reviewOf is a record's review and human labels in one line, for
// comparisons: "verdict/reviewers/comments turn:task=label ...".
func reviewOf(r *record.Record) string {
	var b strings.Builder
	b.WriteString(verdictOf(r))
	for i, t := range r.Turns {
		for _, task := range record.LabelTaskNames() {
			if l := t.LabelsHuman.Get(task); l != "" {
				fmt.Fprintf(&b, " %d:%s=%s", i, task, l)
			}
		}
	}
	return b.String()
}

// sdkSubmitted are the reviews of the SDK's files counting submitted answers.
var sdkSubmitted = []string{"reject/2/turn 1 is rude here 1:norm=adhered", "-", "accept/1/ 2:intent=SUG"}

// The files Argilla's SDK 2.8.0 wrote (scripts/argilla/check.py; see
// testdata/review/README.md): three records of ngcat --to argilla, u1 and
// u2 answering: r0 both submitted, r1 u1's draft and u2's discard, r2 u1
// submitted and u2's draft. Submitted answers only count in the flat
// forms; the nested form has no status and counts all; to_datasets()
// writes the suggestions as class numbers, which ngcat says it cannot read
// instead of losing the model's labels in silence.
func TestFromArgillaSDK(t *testing.T) {
	const dir = "../../testdata/review/"
	all := []string{"reject/2/turn 1 is rude here 1:norm=adhered", "reject/2/ 0:norm=adhered", "reject/2/ 2:intent=SUG"}
	ids := []string{"3e30d44398122f79", "5ef56b9fa8ab5b4b", "e3782b806605f052"}
	cultures, speakers := []string{"korean", "chinese", "american"}, []string{"민수", "孙伟", "Mike"}
	const left = "argilla: 3 responses left out (2 draft, 1 discarded): only submitted answers count"
	for _, c := range []struct {
		file        string
		want        []string
		modelLabels bool
		notes       []string
	}{
		{"argilla_sdk_flat.json", sdkSubmitted, true, []string{left}},
		{"argilla_sdk_datasets.jsonl", sdkSubmitted, false, []string{"argilla: " + dir + "argilla_sdk_datasets.jsonl has the suggestions of 3 records as class numbers, as to_datasets() writes label questions (the names stay in the dataset's features, which its JSON drops): the model's labels were not read; export with to_list(flatten=True), or join on id with the records sent for review", left}},
		{"argilla_sdk_nested.json", all, true, []string{"argilla: " + dir + "argilla_sdk_nested.json is the nested export (to_list(flatten=False), to_json): it has no response status, so drafts and discarded answers cannot be told apart and all 3 records' answers were counted; export with to_list(flatten=True) to count submitted answers only"}},
	} {
		items, notes := readItems(t, NewArgilla([]string{dir + c.file}, nil))
		if len(items) != 3 {
			t.Fatalf("%s: %d records", c.file, len(items))
		}
		for i, it := range items {
			if it.err != nil {
				t.Errorf("%s: %v", c.file, it.err)
				continue
			}
			r := it.rec
			if r.ID != ids[i] || r.Culture != cultures[i] || len(r.Turns) == 0 || r.Turns[0].Speaker != speakers[i] {
				t.Errorf("%s: record %d: id %s culture %q turns %+v", c.file, i, r.ID, r.Culture, r.Turns)
			}
			if got := reviewOf(r); got != c.want[i] {
				t.Errorf("%s: %s: %q, want %q", c.file, r.ID, got, c.want[i])
			}
			// The model's labels: norm of turn 1 and intent of turn 2, as sent.
			got := r.Turns[1].Labels.Get("norm") + "," + r.Turns[2].Labels.Get("intent")
			want := []string{"not_relevant,APO", "violated,THX", "adhered,SUG"}[i]
			if !c.modelLabels {
				want = ","
			}
			if got != want {
				t.Errorf("%s: %s: model labels %q, want %q", c.file, r.ID, got, want)
			}
		}
		if !slices.Equal(notes, c.notes) {
			t.Errorf("%s: notes\n%q\nwant\n%q", c.file, notes, c.notes)
		}
	}
}

// editFlat returns the SDK's flat export with edit applied to its records.
func editFlat(t *testing.T, edit func(recs []map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/review/argilla_sdk_flat.json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	edit(recs)
	p := filepath.Join(t.TempDir(), "edited.json")
	b, _ = json.Marshal(recs)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// An Argilla record whose fields were edited after ngcat --to argilla
// (a message no longer starting with its speaker; the dialogue cut short
// under the suggestions and answers of its last turns) fails alone with
// one line naming the record; the others come back whole.
func TestFromArgillaEditedFields(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(recs []map[string]any)
		bad  int
		want string
	}{
		{"speaker", func(recs []map[string]any) {
			m := recs[0]["dialogue"].([]any)[1].(map[string]any)
			m["content"] = "음, 민수야, 다시 써 봐."
		}, 0, `record 3e30d44398122f79: turn 1: the message does not start with its speaker "사장님" (were the record's fields edited?)`},
		{"cut", func(recs []map[string]any) {
			recs[2]["dialogue"] = recs[2]["dialogue"].([]any)[:2]
		}, 2, "record e3782b806605f052: a suggestion for turn 2, but the dialogue has 2 turns (were the record's fields edited?)"},
	} {
		items, _ := readItems(t, NewArgilla([]string{editFlat(t, c.edit)}, nil))
		if len(items) != 3 {
			t.Fatalf("%s: %d items", c.name, len(items))
		}
		for i, it := range items {
			if i == c.bad {
				if it.err == nil || it.err.Error() != c.want {
					t.Errorf("%s: record %d: error %v, want %q", c.name, i, it.err, c.want)
				}
				continue
			}
			if it.err != nil {
				t.Errorf("%s: record %d: %v", c.name, i, it.err)
			} else if got := reviewOf(it.rec); got != sdkSubmitted[i] {
				t.Errorf("%s: record %d: %q, want %q", c.name, i, got, sdkSubmitted[i])
			}
		}
	}
}

// diffHuman lists where a record's human labels differ from the model's
// ("turn:task=label"), and "none" for turns reviewed with no human label.
func diffHuman(r *record.Record) []string {
	var out []string
	for i, t := range r.Turns {
		for _, task := range []string{"norm", "intent"} {
			h, m := t.LabelsHuman.Get(task), t.Labels.Get(task)
			switch {
			case h == "":
				out = append(out, fmt.Sprintf("%d:%s none", i, task))
			case h != m:
				out = append(out, fmt.Sprintf("%d:%s=%s", i, task, h))
			}
		}
	}
	return out
}

// The exports a real Label Studio 1.23.2 server wrote
// (scripts/labelstudio-server.sh; testdata/review/README.md): task 1
// reviewed by u1 (norm of turn 1 relabelled, an intent region drawn on
// turn 2, reject, a comment) and u2 (the prediction, accept: a tie, which
// rejects, and u1's labels, given first); task 2 skipped, with a draft;
// task 3 annotated twice by u1 (accept, then reject: the newer counts) and
// cancelled by u2. JSON and JSON_MIN give the same reviews; CSV is refused.
func TestFromLabelStudioServer(t *testing.T) {
	const dir = "../../testdata/review/"
	r1 := []string{"1:norm=adhered", "2:intent=ACK"}
	const verdicts1, verdicts3 = "reject/2/turn 1 is too blunt for a boss", "reject/1/"
	const tasks = "(skipped, cancelled and draft annotations do not count; a task deleted in Label Studio is not in its export)"
	for _, c := range []struct {
		file  string
		ids   []string
		notes []string
	}{
		{"labelstudio_server_export.json", []string{"3e30d44398122f79", "5ef56b9fa8ab5b4b", "e3782b806605f052"}, []string{
			"labelstudio: 1 annotations left out: their annotator annotated the same task again, and only each annotator's newest annotation counts (first: " + dir + "labelstudio_server_export.json task 3, annotator 1)",
			"labelstudio: 3 tasks read, 2 with a submitted annotation " + tasks}},
		{"labelstudio_server_export_min.json", []string{"3e30d44398122f79", "e3782b806605f052"}, []string{
			"labelstudio: " + dir + "labelstudio_server_export_min.json is the JSON_MIN export (one row per submitted annotation): tasks nobody annotated and skipped or cancelled annotations are not in it, nor which regions came from the prediction; export JSON to keep them",
			"labelstudio: 1 annotations left out: their annotator annotated the same task again, and only each annotator's newest annotation counts (first: " + dir + "labelstudio_server_export_min.json task 3, annotator 1)",
			"labelstudio: 2 tasks read, 2 with a submitted annotation " + tasks}},
	} {
		items, notes := readItems(t, NewLabelStudio([]string{dir + c.file}, nil))
		var ids []string
		for _, it := range items {
			if it.err != nil {
				t.Errorf("%s: %v", c.file, it.err)
				continue
			}
			ids = append(ids, it.rec.ID)
			r := it.rec
			var want string
			var diff []string
			switch r.ID {
			case "3e30d44398122f79":
				want, diff = verdicts1, r1
			case "e3782b806605f052":
				want = verdicts3
			case "5ef56b9fa8ab5b4b": // skipped: nothing reviewed
				want = "-"
				for i := range r.Turns {
					diff = append(diff, fmt.Sprintf("%d:norm none", i), fmt.Sprintf("%d:intent none", i))
				}
			}
			got := verdictOf(r)
			if got != want || !slices.Equal(diffHuman(r), diff) {
				t.Errorf("%s: %s: review %q, human vs model %q; want %q, %q", c.file, r.ID, got, diffHuman(r), want, diff)
			}
		}
		if !slices.Equal(ids, c.ids) {
			t.Errorf("%s: ids %q, want %q", c.file, ids, c.ids)
		}
		if !slices.Equal(notes, c.notes) {
			t.Errorf("%s: notes\n%q\nwant\n%q", c.file, notes, c.notes)
		}
	}

	_, err := NewLabelStudio([]string{dir + "labelstudio_server_export.csv"}, nil).Next()
	if want := dir + "labelstudio_server_export.csv: a CSV export: ngcat --from labelstudio reads Label Studio's JSON export (or JSON_MIN); CSV keeps each control's answers as JSON text in a cell and loses the skipped annotations"; err == nil || err.Error() != want {
		t.Errorf("csv: %v, want %q", err, want)
	}
}

// Bad input from the server: in the export of
// project ngkit-bad, task 5's data was edited after its annotation (its
// last two turns cut: the annotation's regions on turns 3 and 4 now point
// past the dialogue) and a third task was deleted. Task 5 fails alone with
// one line naming it; task 4 comes back reviewed; the count says two tasks
// were read, to compare with the three sent.
func TestFromLabelStudioServerBad(t *testing.T) {
	items, notes := readItems(t, NewLabelStudio([]string{"../../testdata/review/labelstudio_server_bad.json"}, nil))
	if len(items) != 2 {
		t.Fatalf("%d items, want 2", len(items))
	}
	if it := items[0]; it.err != nil || verdictOf(it.rec) != "accept/1/" || len(diffHuman(it.rec)) != 0 {
		t.Errorf("task 4: %v %q %q", it.err, reviewOf(it.rec), diffHuman(it.rec))
	}
	const want = "task 5: a region over turns 3-3, but the dialogue has 3 turns (was the task's data edited after it was annotated?)"
	if it := items[1]; it.err == nil || it.err.Error() != want || it.rec.ID != "5ef56b9fa8ab5b4b" || len(it.rec.Turns) != 3 {
		t.Errorf("task 5: %v (record %s), want %q with the record", it.err, it.rec.ID, want)
	}
	if !slices.Equal(notes, []string{"labelstudio: 2 tasks read, 1 with a submitted annotation (skipped, cancelled and draft annotations do not count; a task deleted in Label Studio is not in its export)"}) {
		t.Errorf("notes %q", notes)
	}
}

// JSON_MIN rows are put together by task id, oldest annotation first (as
// the JSON export lists them, so that a tie goes the same way); a row
// without a task id is a task of its own.
func TestLabelStudioMinRows(t *testing.T) {
	row := func(id, ann int, annotator int, verdict, norm string) string {
		idKey := ""
		if id > 0 {
			idKey = fmt.Sprintf(`"id": %d, `, id)
		}
		return fmt.Sprintf(`{%s"annotation_id": %d, "annotator": %d, "norm": "the norm's text",
			"dialogue": [{"author": "A", "text": "hi"}], "ngkit_id": "r%d", "verdict": %q,
			"intent": [], "norm": [{"start": "0", "end": "0", "paragraphlabels": [%q]}]}`, idKey, ann, annotator, id, verdict, norm)
	}
	in := "[" + strings.Join([]string{
		row(1, 2, 2, "accept", "violated"), row(1, 1, 1, "reject", "adhered"), // newest first, as the server writes
		row(0, 3, 1, "accept", "adhered"), row(0, 4, 2, "reject", "violated"),
	}, ",") + "]"
	items, notes := readItems(t, NewLabelStudio(nil, strings.NewReader(in)))
	var got []string
	for _, it := range items {
		if it.err != nil {
			t.Fatal(it.err)
		}
		got = append(got, it.rec.ID+" "+reviewOf(it.rec))
	}
	want := []string{"r1 reject/2/ 0:norm=adhered", "r0 accept/1/ 0:norm=adhered", "r0 reject/1/ 0:norm=violated"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "stdin is the JSON_MIN export") {
		t.Errorf("notes %q", notes)
	}
}
