package review

import (
	"errors"
	"fmt"
	"io"
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

// reviewOf is a record's review and human labels in one line, for
// comparisons: "verdict/reviewers/comments turn:task=label ...".
func reviewOf(r *record.Record) string {
	var b strings.Builder
	if rv := r.Review; rv != nil {
		fmt.Fprintf(&b, "%s/%d/%s", rv.Verdict, rv.Reviewers, strings.Join(rv.Comments, "|"))
	} else {
		b.WriteString("-")
	}
	for i, t := range r.Turns {
		for _, task := range record.LabelTasks {
			if l := t.LabelsHuman.Get(task); l != "" {
				fmt.Fprintf(&b, " %d:%s=%s", i, task, l)
			}
		}
	}
	return b.String()
}

// The files Argilla's SDK 2.8.0 wrote (scripts/argilla/check.py; see
// testdata/review/README.md): three records of ngcat --to argilla, u1 and
// u2 answering: r0 both submitted, r1 u1's draft and u2's discard, r2 u1
// submitted and u2's draft. Submitted answers only count in the flat
// forms; the nested form has no status and counts all; to_datasets()
// writes the suggestions as class numbers, which ngcat says it cannot read
// instead of losing the model's labels in silence.
func TestFromArgillaSDK(t *testing.T) {
	const dir = "../../testdata/review/"
	submitted := []string{"reject/2/turn 1 is rude here 1:norm=adhered", "-", "accept/1/ 2:intent=SUG"}
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
		{"argilla_sdk_flat.json", submitted, true, []string{left}},
		{"argilla_sdk_datasets.jsonl", submitted, false, []string{"argilla: " + dir + "argilla_sdk_datasets.jsonl has the suggestions of 3 records as class numbers, as to_datasets() writes label questions (the names stay in the dataset's features, which its JSON drops): the model's labels were not read; export with to_list(flatten=True), or join on id with the records sent for review", left}},
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
