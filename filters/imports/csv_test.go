package imports

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

func TestCSVSource(t *testing.T) {
	dir := t.TempDir()
	// a BOM, a quoted multi-line cell with a quote inside, a mapped column,
	// an extra column, CRLF rows
	f := writeFile(t, dir, "data.csv", "\ufeffid,Dialogue,Culture,Situation\r\n"+
		"7,\"Family member: Are you \"\"ok\"\"?\nSecurity guard: Yes.\",american,At the gate.\r\n"+
		"8,\"Store clerk: Hi.\",american,A store clerk greets Sarah.\r\n")
	src, err := NewCSV([]string{f}, CSVOptions{TextColumn: "Dialogue", Columns: map[string]string{"culture": "Culture", "situation": "Situation"},
		Fields: Fields{Type: "violation"}})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := drain(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.Culture != "american" || r.Lang != "en" || r.DialogueType != "violation" || r.Situation != "At the gate." {
		t.Errorf("fields: %+v", r)
	}
	if len(r.Turns) != 2 || r.Turns[0].Speaker != "Family member" || r.Turns[0].Text != `Are you "ok"?` || r.Turns[1].Speaker != "Security guard" {
		t.Errorf("turns: %+v", r.Turns)
	}
	if string(r.Extra["csv_id"]) != `"7"` || string(r.Extra["source_index"]) != "0" || r.ID != record.NewID("csv", f, "0") {
		t.Errorf("extra %s, id %s", r.Extra, r.ID)
	}
	if _, ok := r.Extra["Culture"]; ok {
		t.Error("a mapped column is also in extra")
	}
	// an unmapped column named like a record field is kept apart
	p0 := writeFile(t, dir, "clash.csv", "Dialogue,Culture\nA: hi,x\n")
	src, _ = NewCSV([]string{p0}, CSVOptions{TextColumn: "Dialogue", Fields: Fields{Culture: "american"}})
	if recs, err := drain(src); err != nil || recs[0].Culture != "american" || string(recs[0].Extra["csv_Culture"]) != `"x"` {
		t.Errorf("clash: %v %+v", err, recs)
	}
	// the situation names a lone lower-case role: it is a speaker
	if len(recs[1].Turns) != 1 || recs[1].Turns[0].Speaker != "Store clerk" {
		t.Errorf("situation hint: %+v (%+v)", recs[1].Turns, recs[1].Checks)
	}
	for _, x := range recs {
		if err := x.Validate(); err != nil {
			t.Error(err)
		}
	}

	// TSV, by name
	tsv := writeFile(t, dir, "data.tsv", "text\tnote\nA: \"hi\"\tx\nB: yo\ty\n")
	src, _ = NewCSV([]string{tsv}, CSVOptions{TextColumn: "text"})
	if recs, err := drain(src); err != nil || len(recs) != 2 || recs[0].Turns[0].Text != "hi" || string(recs[1].Extra["note"]) != `"y"` {
		t.Errorf("tsv: %v %+v", err, recs)
	}

	for _, c := range []struct{ body, col, want string }{
		{"a,b\n1,2,3\n", "a", "bad.csv:row 1 (line 2): 3 cells, the header has 2"},
		{"a,b\n1,2\n\"x,3\n", "a", "bad.csv:row 2 (line 3): extraneous or missing \" in quoted-field"},
		{"a,b\n1,2\n", "Dialogue", `bad.csv: no column "Dialogue" (--text-column); the columns are "a", "b"`},
		{"a,b\n1,caf\xe9\n", "a", `bad.csv:row 1: column "b": not UTF-8 text`},
		{"a,b\n", "a", "bad.csv: no rows under the header"},
		{"", "a", "bad.csv: empty input (no header row)"},
	} {
		p := writeFile(t, dir, "bad.csv", c.body)
		src, _ := NewCSV([]string{p}, CSVOptions{TextColumn: c.col})
		if _, err := drain(src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
	p := writeFile(t, dir, "types.csv", "d,t\nA: hi,chat\n")
	src, _ = NewCSV([]string{p}, CSVOptions{TextColumn: "d", Columns: map[string]string{"dialogue_type": "t"}})
	if _, err := drain(src); err == nil || !strings.Contains(err.Error(), `dialogue type "chat"`) {
		t.Errorf("bad type: %v", err)
	}
	if _, err := NewCSV(nil, CSVOptions{}); err == nil {
		t.Error("no --text-column accepted")
	}
}

// TestMultipleDialogues: every block's turns are kept, in order, flagged;
// SplitDialogues makes a record of each.
func TestMultipleDialogues(t *testing.T) {
	text := "Dialogue 1:\nA: hi\nB: hello\n\nDialogue 2:\nC: yo\nD: hey\nC: bye"
	rec := decodeTranscript(text, "x.txt", 0)
	if len(rec.Turns) != 5 || rec.Turns[4].Index != 4 || rec.Turns[2].Speaker != "C" || !has(rec.Checks.Defects, record.DefectMultiDialogue) {
		t.Fatalf("%+v %+v", rec.Turns, rec.Checks)
	}
	out, err := SplitDialogues.Process(context.Background(), rec)
	if err != nil || len(out) != 2 {
		t.Fatalf("%v %d", err, len(out))
	}
	if len(out[0].Turns) != 2 || len(out[1].Turns) != 3 || out[1].Turns[0].Index != 0 || out[1].ID != record.NewID(rec.ID, "block", "1") ||
		string(out[1].Extra["source_block"]) != "1" || has(out[1].Checks.Defects, record.DefectMultiDialogue) {
		t.Errorf("split: %+v / %+v", out[0], out[1])
	}
	if len(rec.Turns) != 5 {
		t.Error("the split changed its input")
	}
	one := decodeTranscript("A: hi\nB: yo", "x.txt", 1)
	if out, _ := SplitDialogues.Process(context.Background(), one); len(out) != 1 || out[0] != one {
		t.Error("a single dialogue was not passed through")
	}
}

func TestEmptyDialogueBetweenSeparators(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "a.txt", "A: one\nB: two\n---\n\n---\nC: three\nD: four\n")
	recs, err := drain(mustText(t, []string{f}, TextOptions{Separator: "---", Fields: Fields{Culture: "korean", Category: "apology", Norm: "Say sorry."}}))
	if err != nil || len(recs) != 3 {
		t.Fatalf("%v %d", err, len(recs))
	}
	if len(recs[1].Turns) != 0 || !has(recs[1].Checks.Defects, record.DefectEmptyDialogue) || string(recs[2].Extra["source_index"]) != "2" {
		t.Errorf("%+v / %s", recs[1], recs[2].Extra)
	}
	for _, r := range recs {
		if r.Culture != "korean" || r.Lang != "ko" || r.Category != "apology" || r.NormID != record.NormID("korean", "apology", "Say sorry.") {
			t.Errorf("fields: %+v", r)
		}
	}
}

// TestFieldsOnEveryImport: the fields of --culture and the others reach the
// records of --from prosocial and --from normgenesis too.
func TestFieldsOnEveryImport(t *testing.T) {
	f := Fields{Culture: "american", Type: "v2r", Category: "apology", Norm: "Say sorry."}
	recs, err := drain(NewProsocial([]string{prosocialSample}, ProsocialOptions{Fields: f}))
	if err != nil || len(recs) == 0 {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Culture != "american" || r.Lang != "en" || r.DialogueType != "v2r" || r.Category != "apology" || r.NormID == "" {
			t.Errorf("prosocial: %+v", r)
		}
	}
	g, err := NewNormGenesis([]string{"../../testdata/normgenesis/korean_violation.json"}, NormGenesisOptions{Fields: Fields{Lang: "ko-KR", Category: "greeting"}})
	if err != nil {
		t.Fatal(err)
	}
	recs, err = drain(g)
	if err != nil || len(recs) == 0 {
		t.Fatal(err)
	}
	if r := recs[0]; r.Culture != "korean" || r.Lang != "ko-KR" || r.Category != "greeting" || r.DialogueType != "violation" {
		t.Errorf("normgenesis: %+v", r)
	}
	if err := (Fields{Type: "chat"}).Check(); err == nil {
		t.Error("an unknown type accepted")
	}
}

// FuzzCSV: a CSV either stops with an error naming the file, or gives one
// record per data row, each with its text in extra "dialogue".
func FuzzCSV(f *testing.F) {
	f.Add("d,x\n\"A: hi\nB: yo\",1\n")
	f.Add("\ufeffd\nA: hi\n\"\"\n")
	f.Add("d,x\n1,2,3\n")
	f.Fuzz(func(t *testing.T, body string) {
		dir := t.TempDir()
		p := writeFile(t, dir, "f.csv", body)
		src, _ := NewCSV([]string{p}, CSVOptions{TextColumn: "d"})
		recs, err := drain(src)
		if err != nil {
			if !strings.Contains(err.Error(), "f.csv") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for i, r := range recs {
			if string(r.Extra["source_index"]) != strconv.Itoa(i) {
				t.Fatalf("record %d: source_index %s", i, r.Extra["source_index"])
			}
			if _, ok := r.Extra["dialogue"]; !ok {
				t.Fatalf("record %d: no dialogue", i)
			}
		}
	})
}
