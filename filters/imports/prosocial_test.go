package imports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

const prosocialSample = "../../testdata/prosocial/sample.jsonl"

// hubRow is a ProsocialDialog row with the Hub's column types (strings,
// lists of strings, int64 ids, a bool; nullable as pyarrow writes them).
type hubRow struct {
	Context                 string   `json:"context" parquet:"context,optional"`
	Response                string   `json:"response" parquet:"response,optional"`
	Rots                    []string `json:"rots" parquet:"rots,optional,list"`
	SafetyLabel             string   `json:"safety_label" parquet:"safety_label,optional"`
	SafetyAnnotations       []string `json:"safety_annotations" parquet:"safety_annotations,optional,list"`
	SafetyAnnotationReasons []string `json:"safety_annotation_reasons" parquet:"safety_annotation_reasons,optional,list"`
	Source                  string   `json:"source" parquet:"source,optional"`
	Etc                     *string  `json:"etc" parquet:"etc,optional"`
	DialogueID              int64    `json:"dialogue_id" parquet:"dialogue_id"`
	ResponseID              int64    `json:"response_id" parquet:"response_id"`
	EpisodeDone             bool     `json:"episode_done" parquet:"episode_done"`
}

func readHubRows(t testing.TB, path string) []hubRow {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []hubRow
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r hubRow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

// writeColumnar writes rows as Parquet or an Arrow IPC stream.
func writeColumnar(t testing.TB, path string, rows []hubRow) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w recio.Writer[hubRow]
	if strings.HasSuffix(path, ".parquet") {
		w, err = recio.NewParquetWriter[hubRow](f, recio.WriteOptions{})
	} else {
		w, err = recio.NewArrowWriter[hubRow](f, false)
	}
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if err := w.Write(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// drain reads a source to the end as the runner does, decoding each item;
// it stops at the first error, from reading or from decoding.
// drain reads every record of src. It takes a constructor's error too
// (drain(NewPact(...))): a constructor that failed drains nothing.
func drain(src pipeline.Source, err ...error) ([]*record.Record, error) {
	if len(err) > 0 && err[0] != nil {
		return nil, err[0]
	}
	defer src.Close()
	var recs []*record.Record
	for {
		it, err := src.Next()
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		rec := it.Rec
		if rec == nil {
			if rec, err = it.Decode(it.Raw); err != nil {
				return recs, err
			}
		}
		recs = append(recs, rec)
	}
}

func writeFile(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// row makes one JSONL row; fields in extra are added or, when nil, removed.
func row(dialogue, response int64, done bool, extra map[string]any) string {
	m := map[string]any{"context": "c" + itoa(dialogue) + "." + itoa(response), "response": "r" + itoa(dialogue) + "." + itoa(response),
		"rots": nil, "safety_label": "__casual__", "safety_annotations": []string{"casual", "casual", "casual"},
		"safety_annotation_reasons": []string{"a", "b", "c"}, "source": "sbic", "etc": nil,
		"dialogue_id": dialogue, "response_id": response, "episode_done": done}
	for k, v := range extra {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return string(b) + "\n"
}

func itoa(n int64) string { return string(rune('0' + n)) }

func TestProsocialSample(t *testing.T) {
	recs, err := drain(NewProsocial([]string{prosocialSample}, ProsocialOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	wantTurns := []int{6, 6, 8}
	ids := map[string]bool{}
	for i, r := range recs {
		if err := r.Validate(); err != nil {
			t.Errorf("record %d: %v", i, err)
		}
		ids[r.ID] = true
		if r.ID != record.NewID("prosocial", itoa(int64(i))) || r.Lang != "en" || r.DialogueType != "" {
			t.Errorf("record %d: id %s lang %q type %q", i, r.ID, r.Lang, r.DialogueType)
		}
		if len(r.Turns) != wantTurns[i] {
			t.Errorf("record %d: %d turns, want %d", i, len(r.Turns), wantTurns[i])
		}
		if r.Checks != nil {
			t.Errorf("record %d: checks %+v on a complete dialogue", i, r.Checks)
		}
		for j, tu := range r.Turns {
			wantSpeaker := ProsocialUser
			if j%2 == 1 {
				wantSpeaker = ProsocialAssistant
			}
			if tu.Speaker != wantSpeaker || tu.Text == "" {
				t.Errorf("record %d turn %d: %+v", i, j, tu)
			}
			if (tu.Labels != nil) != (j%2 == 0) {
				t.Errorf("record %d turn %d: labels %+v: want them on the context turns only", i, j, tu.Labels)
			}
		}
		if string(r.Extra["dialogue_id"]) != itoa(int64(i)) || string(r.Extra["source_file"]) != `"sample.jsonl"` {
			t.Errorf("record %d: extra %s", i, r.Extra)
		}
	}
	if len(ids) != 3 {
		t.Errorf("ids not distinct: %v", ids)
	}
	first := recs[0].Turns[0]
	if !strings.HasPrefix(first.Text, "My roommate keeps eating") || !strings.HasPrefix(recs[0].Turns[1].Text, "That could make him") {
		t.Errorf("first turns: %q / %q", first.Text, recs[0].Turns[1].Text)
	}
	l := first.Labels
	if l.Safety != "needs_caution" || len(l.Rots) != 2 || l.Rots[0] != "You shouldn't poison people." {
		t.Errorf("labels of turn 0: %+v", l)
	}
	if len(l.SafetyDist) != 2 || math.Abs(l.SafetyDist["needs_caution"]-2.0/3) > 1e-9 || math.Abs(l.SafetyDist["needs_intervention"]-1.0/3) > 1e-9 ||
		math.Abs(l.Agreement-2.0/3) > 1e-9 {
		t.Errorf("votes of turn 0: %v agreement %v", l.SafetyDist, l.Agreement)
	}
	if strings.Count(l.Explanation, "\n") != 2 || !strings.HasPrefix(l.Explanation, "Tampering with food") {
		t.Errorf("reasons of turn 0: %q", l.Explanation)
	}
	if got := []string{recs[0].Turns[2].Labels.Safety, recs[0].Turns[4].Labels.Safety, recs[1].Turns[0].Labels.Safety}; !reflect.DeepEqual(got,
		[]string{"possibly_needs_caution", "casual", "probably_needs_caution"}) {
		t.Errorf("safety labels: %v", got)
	}
	if recs[0].Turns[4].Labels.Rots != nil || recs[0].Turns[4].Labels.Agreement != 1 {
		t.Errorf("casual turn: %+v", recs[0].Turns[4].Labels)
	}
	if string(recs[0].Extra["source"]) != `"socialchemistry"` || string(recs[0].Extra["etc"]) != `"reddit/amitheasshole/handmade01"` {
		t.Errorf("source/etc: %s", recs[0].Extra)
	}
	if _, ok := recs[1].Extra["etc"]; ok {
		t.Errorf("a null etc is kept: %s", recs[1].Extra)
	}
}

// The same rows as Parquet and as Arrow give the same records.
func TestProsocialColumnar(t *testing.T) {
	want, err := drain(NewProsocial([]string{prosocialSample}, ProsocialOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rows := readHubRows(t, prosocialSample)
	for _, name := range []string{"sample.parquet", "sample.arrows"} {
		p := filepath.Join(dir, name)
		writeColumnar(t, p, rows)
		got, err := drain(NewProsocial([]string{p}, ProsocialOptions{}))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d records", name, len(got))
		}
		for i := range got {
			if string(got[i].Extra["source_file"]) != `"`+name+`"` {
				t.Errorf("%s: source_file %s", name, got[i].Extra["source_file"])
			}
			got[i].Extra["source_file"] = want[i].Extra["source_file"]
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want[i])
			if !bytes.Equal(g, w) {
				t.Errorf("%s record %d:\n got %s\nwant %s", name, i, g, w)
			}
		}
	}
	// Parquet on stdin is buffered (its footer is at the end).
	b, _ := os.ReadFile(filepath.Join(dir, "sample.parquet"))
	got, err := drain(NewProsocial(nil, ProsocialOptions{Stdin: bytes.NewReader(b)}))
	if err != nil || len(got) != 3 {
		t.Fatalf("stdin: %d records, %v", len(got), err)
	}
}

func TestProsocialGrouping(t *testing.T) {
	dir := t.TempDir()
	// Rows of a dialogue in any response order; turns follow response_id.
	p := writeFile(t, dir, "shuffled.jsonl", row(0, 2, true, nil)+row(0, 0, false, nil)+row(0, 1, false, nil)+row(1, 0, true, nil))
	recs, err := drain(NewProsocial([]string{p}, ProsocialOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || len(recs[0].Turns) != 6 || len(recs[1].Turns) != 2 {
		t.Fatalf("%d records: %+v", len(recs), recs)
	}
	for i, want := range []string{"c0.0", "r0.0", "c0.1", "r0.1", "c0.2", "r0.2"} {
		if tu := recs[0].Turns[i]; tu.Text != want || tu.Index != i {
			t.Errorf("turn %d: %+v, want text %s", i, tu, want)
		}
	}

	// Missing rows: a gap in response_id, an episode that does not end.
	p = writeFile(t, dir, "gaps.jsonl", row(0, 0, false, nil)+row(0, 2, true, nil)+row(1, 0, false, nil)+row(2, 1, true, nil))
	recs, err = drain(NewProsocial([]string{p}, ProsocialOptions{}))
	if err != nil || len(recs) != 3 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for i, r := range recs {
		if r.Checks == nil || !has(r.Checks.Defects, audit.DefectIncomplete) {
			t.Errorf("record %d: not marked incomplete: %+v", i, r.Checks)
		}
	}

	// A split sharded into two files, a dialogue across the cut; the
	// validation split has the same dialogue ids and other record ids.
	a := writeFile(t, dir, "train-00000-of-00002.jsonl", row(0, 0, true, nil)+row(1, 0, false, nil))
	b := writeFile(t, dir, "train-00001-of-00002.jsonl", row(1, 1, true, nil)+row(2, 0, true, nil))
	v := writeFile(t, dir, "valid.jsonl", row(0, 0, true, nil))
	recs, err = drain(NewProsocial([]string{a, b, v}, ProsocialOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || len(recs[1].Turns) != 4 || recs[1].Checks != nil {
		t.Fatalf("sharded: %d records: %+v", len(recs), recs)
	}
	if recs[0].ID != record.NewID("prosocial", "train", "0") || recs[3].ID != record.NewID("prosocial", "validation", "0") {
		t.Errorf("ids by split: %s %s", recs[0].ID, recs[3].ID)
	}

	// A dialogue that comes back later is an error naming both places.
	p = writeFile(t, dir, "scattered.jsonl", row(0, 0, false, nil)+row(1, 0, true, nil)+row(0, 1, true, nil))
	_, err = drain(NewProsocial([]string{p}, ProsocialOptions{}))
	if err == nil || !strings.Contains(err.Error(), "scattered.jsonl:line 3: dialogue_id 0 was read before, at "+p+":line 1") ||
		!strings.Contains(err.Error(), "contiguous") {
		t.Errorf("scattered rows: %v", err)
	}
	// Two files whose names say no split and whose ids collide: at the cut
	// (read as one dialogue going on) or further on.
	z := writeFile(t, dir, "c.jsonl", row(0, 0, true, nil)+row(1, 0, true, nil))
	w := writeFile(t, dir, "d.jsonl", row(1, 1, true, nil)+row(0, 0, true, nil))
	_, err = drain(NewProsocial([]string{z, w}, ProsocialOptions{}))
	if err == nil || !strings.Contains(err.Error(), "d.jsonl:line 2: dialogue_id 0 was read before") || !strings.Contains(err.Error(), "split in their names") {
		t.Errorf("colliding files: %v", err)
	}
	// At the cut:
	x := writeFile(t, dir, "a.jsonl", row(0, 0, true, nil))
	y := writeFile(t, dir, "b.jsonl", row(0, 0, true, nil))
	_, err = drain(NewProsocial([]string{x, y}, ProsocialOptions{}))
	if err == nil || !strings.Contains(err.Error(), "b.jsonl:line 1: dialogue_id 0: response_id 0 again") || !strings.Contains(err.Error(), "split in their names") {
		t.Errorf("colliding files: %v", err)
	}
}

func TestProsocialBadRows(t *testing.T) {
	dir := t.TempDir()
	good := row(0, 0, false, nil)
	cases := []struct{ name, body, want string }{
		{"malformed.jsonl", good + `{"dialogue_id": 0, "response_id": 1,}` + "\n", "malformed.jsonl:line 2: malformed JSON"},
		{"noid.jsonl", good + row(0, 1, true, map[string]any{"dialogue_id": nil}), "noid.jsonl:line 2: dialogue_id is missing"},
		{"strid.jsonl", good + row(0, 1, true, map[string]any{"dialogue_id": "0"}), "strid.jsonl:line 2: field dialogue_id: want an integer, got a string"},
		{"floatid.jsonl", good + row(0, 1, true, map[string]any{"dialogue_id": 0.5}), "floatid.jsonl:line 2: field dialogue_id: want an integer, got 0.5"},
		{"noresp.jsonl", good + row(0, 1, true, map[string]any{"response_id": nil}), "noresp.jsonl:line 2: response_id is missing"},
		{"dupresp.jsonl", good + row(0, 0, true, nil), "dupresp.jsonl:line 2: dialogue_id 0: response_id 0 again (also at " + filepath.Join(dir, "dupresp.jsonl") + ":line 1)"},
		{"rots.jsonl", good + row(0, 1, true, map[string]any{"rots": "be nice"}), "rots.jsonl:line 2: field rots: want a list of strings, got a string"},
		{"rotsint.jsonl", good + row(0, 1, true, map[string]any{"rots": []int{1}}), "rotsint.jsonl:line 2: field rots: want a list of strings, got a list with other values"},
		{"context.jsonl", good + row(0, 1, true, map[string]any{"context": 3}), "context.jsonl:line 2: field context: want a string, got a number"},
		{"done.jsonl", good + row(0, 1, true, map[string]any{"episode_done": "yes"}), "done.jsonl:line 2: field episode_done: want a boolean, got a string"},
		{"label.jsonl", good + row(0, 1, true, map[string]any{"safety_label": "__spicy__"}), `label.jsonl:line 2: safety_label "__spicy__" is not one of`},
		{"utf8.jsonl", good + strings.Replace(row(0, 1, true, nil), "c0.1", "c\xff", 1), "utf8.jsonl:line 2: invalid UTF-8 at byte"},
		{"notobject.jsonl", good + "{\"x\": 1}\n[1, 2]\n", "notobject.jsonl:line 2: dialogue_id is missing"},
		{"array.json", "[" + strings.TrimSpace(good) + "]", "array.json: a JSON array; want the Hugging Face rows"},
		{"records.jsonl", `{"id":"a","turns":[{"index":0,"speaker":"A","text":"hi"}],"dialogue_id":3}` + "\n", "records.jsonl:line 1: this is an ngkit record"},
	}
	for _, c := range cases {
		p := writeFile(t, dir, c.name, c.body)
		_, err := drain(NewProsocial([]string{p}, ProsocialOptions{}))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line with %q", c.name, err, c.want)
		}
	}
	// An empty file is an empty dataset, as every input is.
	if recs, err := drain(NewProsocial([]string{writeFile(t, dir, "empty.jsonl", "")}, ProsocialOptions{})); err != nil || len(recs) != 0 {
		t.Errorf("empty.jsonl: %d records, %v; want none and no error", len(recs), err)
	}
	// Columnar rows name their row; a file of records is not rows.
	recs, err := drain(NewProsocial([]string{prosocialSample}, ProsocialOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "records.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := recio.NewParquetWriter[record.Record](f, recio.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := drain(NewProsocial([]string{f.Name()}, ProsocialOptions{})); err == nil || !strings.Contains(err.Error(), "records.parquet:row 1: this is an ngkit record") {
		t.Errorf("records parquet: %v", err)
	}
	rows := readHubRows(t, prosocialSample)
	rows[4].ResponseID = rows[3].ResponseID
	p := filepath.Join(dir, "dup.parquet")
	writeColumnar(t, p, rows)
	_, err = drain(NewProsocial([]string{p}, ProsocialOptions{}))
	if err == nil || !strings.Contains(err.Error(), "dup.parquet:row 5: dialogue_id 1: response_id 0 again") {
		t.Errorf("parquet: %v", err)
	}
}

func TestSplitOf(t *testing.T) {
	for name, want := range map[string]string{
		"train.json": "train", "valid.json": "validation", "test.json": "test", "-": "", "rows.jsonl": "",
		"data/validation-00000-of-00001.parquet": "validation", "default/train/0000.parquet": "train",
		"allenai--prosocial-dialog/json-test.parquet": "test", "contest.jsonl": "", "/x/train/dump.jsonl": "train",
	} {
		if got := splitOf(name); got != want {
			t.Errorf("splitOf(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestSafetyName(t *testing.T) {
	for in, want := range map[string]string{
		"__casual__": "casual", "__possibly_needs_caution__": "possibly_needs_caution", "needs caution": "needs_caution",
		"Needs Intervention": "needs_intervention", " __needs_intervention__ ": "needs_intervention",
	} {
		if got := safetyName(in); got != want {
			t.Errorf("safetyName(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzProsocialRow: any row either fails with a one-line error or decodes
// to a dialogue that validates and encodes; the grouping key read alone
// agrees with the full decode.
func FuzzProsocialRow(f *testing.F) {
	sc := bufio.NewScanner(strings.NewReader(mustRead(f, prosocialSample)))
	for sc.Scan() {
		f.Add(append([]byte(nil), sc.Bytes()...))
	}
	f.Add([]byte(`{"dialogue_id": 1, "response_id": 0, "rots": [1]}`))
	f.Add([]byte(`{"dialogue_id": 1e3, "response_id": -1, "safety_label": "needs intervention"}`))
	f.Add([]byte(`{"dialogue_id": 9223372036854775808}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeProsocialRow(b)
		id, kerr := rowDialogueID(b)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error on several lines: %q", err)
			}
			return
		}
		if kerr != nil || id != r.DialogueID {
			t.Fatalf("key %d, %v; row dialogue_id %d", id, kerr, r.DialogueID)
		}
		rec, err := decodeProsocial([][]byte{b}, []rowPos{{"f", "line", 1}}, prosocialKey{"", id}, "f")
		if err != nil {
			if !strings.Contains(err.Error(), "safety_label") {
				t.Fatalf("decoded row fails as a dialogue: %v", err)
			}
			return
		}
		if err := rec.Validate(); err != nil {
			t.Fatalf("invalid record: %v", err)
		}
		if _, err := rec.AppendJSON(nil); err != nil {
			t.Fatalf("record does not encode: %v", err)
		}
	})
}

func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
