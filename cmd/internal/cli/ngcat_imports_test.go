package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/export"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

const prosocialSample = "../../../testdata/prosocial/sample.jsonl"

// sampleParquet writes the JSONL sample as the Hub's Parquet.
func sampleParquet(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(prosocialSample)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := recio.NewParquetWriter[export.ProsocialRow](f, recio.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r export.ProsocialRow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestNgcatImportsProsocial(t *testing.T) {
	code, out, stderr := run(t, Ngcat, "", "--from", "prosocial", prosocialSample)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.ID, err)
		}
		if r.Turns[0].Speaker != "user" || r.Turns[0].Labels == nil || r.Turns[0].Labels.Safety == "" || r.Turns[1].Speaker != "assistant" {
			t.Errorf("%s: turns %+v", r.ID, r.Turns[:2])
		}
		if _, ok := r.Extra["source"]; !ok {
			t.Errorf("%s: source not kept: %s", r.ID, r.Extra)
		}
	}

	// The Hub's Parquet of the train split, to Parquet and back.
	dir := t.TempDir()
	in := filepath.Join(dir, "train-00000-of-00001.parquet")
	sampleParquet(t, in)
	pq := filepath.Join(dir, "prosocial.parquet")
	if code, _, stderr := run(t, Ngcat, "", "--from", "prosocial", in, "-o", pq); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, out, stderr = run(t, Ngcat, "", pq)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	back := readJSONL(t, out)
	if len(back) != 3 || back[2].ID != record.NewID("prosocial", "train", "2") || len(back[2].Turns) != 8 ||
		back[2].Turns[2].Labels.SafetyDist["needs_intervention"] == 0 {
		t.Fatalf("read back: %+v", back)
	}

	// Rows on stdin.
	b, _ := os.ReadFile(prosocialSample)
	code, out, stderr = run(t, Ngcat, string(b), "--from", "prosocial")
	if code != 0 || len(readJSONL(t, out)) != 3 {
		t.Fatalf("stdin: exit %d: %s", code, stderr)
	}
}

func TestNgcatImportsText(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("Mike: Hi.\nSarah: Hello!\n---\nTom: Sorry.\nAnn: It's fine.\n\nTom: Thanks.\n"), 0o644)
	os.WriteFile(b, []byte("Ben: Thanks for dinner.\nAmy: Any time.\n"), 0o644)
	code, out, stderr := run(t, Ngcat, "", "--from", "text", "--separator", "---", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != 3 || len(recs[1].Turns) != 3 || recs[2].Turns[1].Speaker != "Amy" {
		t.Fatalf("%d records: %+v", len(recs), recs)
	}
	// Blank lines by default: "---" is no separator then (the parser notes
	// it), and the last turn of a.txt stands alone.
	code, out, _ = run(t, Ngcat, "", "--from", "text", a, b)
	recs = readJSONL(t, out)
	if code != 0 || len(recs) != 3 || len(recs[0].Turns) != 4 || recs[0].Checks == nil || !contains(recs[0].Checks.Defects, record.DefectSeparator) || len(recs[1].Turns) != 1 {
		t.Fatalf("blank lines: exit %d, %+v", code, recs)
	}
	code, out, _ = run(t, Ngcat, "", "--from", "text", "--separator", "none", a, b)
	if code != 0 || len(readJSONL(t, out)) != 2 {
		t.Fatalf("one per file: exit %d, %d records", code, len(readJSONL(t, out)))
	}
}

func TestNgcatImportsBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	row := `{"context":"c","response":"r","dialogue_id":%s,"response_id":0}` + "\n"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--from", "prosocial", write("bad.jsonl", strings.Replace(row, "%s", "0", 1)+`{"dialogue_id":1,}`+"\n")}, "bad.jsonl:line 2: malformed JSON"},
		{[]string{"--from", "prosocial", write("noid.jsonl", strings.Replace(row, "%s", "0", 1)+strings.Replace(row, "%s", "null", 1))}, "noid.jsonl:line 2: dialogue_id is missing"},
		{[]string{"--from", "prosocial", write("order.jsonl", strings.Replace(row, "%s", "0", 1)+strings.Replace(row, "%s", "1", 1)+strings.Replace(row, "%s", "0", 1))}, "order.jsonl:line 3: dialogue_id 0 was read before"},
		{[]string{"--from", "text", write("latin1.txt", "A: caf\xe9\n")}, "latin1.txt:line 1: not UTF-8 text"},
	}
	for _, c := range cases {
		out := filepath.Join(dir, "out.parquet")
		code, _, stderr := run(t, Ngcat, "", append(c.args, "-o", out)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: output left behind", c.args)
		}
	}
}

func TestNgcatImportsUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--separator", "---", "x.jsonl"}, "--separator goes with --from text"},
		{[]string{"--from", "prosocial", "--separator", "---"}, "--separator goes with --from text"},
		{[]string{"--culture", "korean", "x.jsonl"}, "--culture, --type, --lang, --category and --norm go with --from"},
		{[]string{"--from", "text", "--type", "chat"}, `--type "chat": want adherence, violation or v2r`},
		{[]string{"--from", "text", "--separator", "a\nb"}, "cannot hold a line break"},
		{[]string{"--from", "xml"}, "want normgenesis, prosocial, text, csv, tsv, messages, pact, episodes, labelstudio or argilla"},
		{[]string{"--from", "csv"}, "--from csv needs --text-column COLUMN"},
		{[]string{"--from", "csv", "--text-column", "d", "--column", "speaker=x"}, "speaker is no field a column can fill"},
		{[]string{"--from", "csv", "--text-column", "d", "--column", "culture"}, `--column "culture": want FIELD=COLUMN`},
		{[]string{"--from", "text", "--text-column", "d"}, "--text-column and --column go with --from csv or tsv"},
		{[]string{"--from", "prosocial", "--split-dialogues"}, "--split-dialogues goes with --from normgenesis, text, csv or tsv"},
		{[]string{"--per-turn", "x.jsonl"}, "--per-turn, --assistant and --system-template go with --to messages"},
		{[]string{"--to", "messages", "--system-template", "/nonexistent/t.tmpl", "x.jsonl"}, "--system-template: open /nonexistent/t.tmpl"},
		{[]string{"--to", "xml", "x.jsonl"}, "want prosocial, messages, labelstudio or argilla"},
	} {
		code, _, stderr := run(t, Ngcat, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q, want %q", c.args, code, stderr, c.want)
		}
	}
}
