package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/export"
	"github.com/ngkit/ngkit/filters/label/labeltest"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

const prosocialRows = "../../../testdata/prosocial/sample.jsonl"

// --to prosocial is the inverse of --from prosocial: the rows written as
// Parquet import back to the same records.
func TestNgcatToProsocialRoundTrip(t *testing.T) {
	code, direct, stderr := run(t, Ngcat, "", "--from", "prosocial", prosocialRows)
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	code, rows, stderr := run(t, Ngcat, direct, "--to", "prosocial")
	if code != 0 || strings.Count(rows, "\n") != 10 {
		t.Fatalf("export: exit %d, %d rows: %s", code, strings.Count(rows, "\n"), stderr)
	}
	pq := filepath.Join(t.TempDir(), "rows.parquet")
	if code, _, stderr := run(t, Ngcat, direct, "--to", "prosocial", "-o", pq); code != 0 {
		t.Fatalf("export parquet: exit %d: %s", code, stderr)
	}
	code, back, stderr := run(t, Ngcat, "", "--from", "prosocial", pq)
	if code != 0 {
		t.Fatalf("re-import: exit %d: %s", code, stderr)
	}
	a, b := readJSONL(t, direct), readJSONL(t, back)
	if len(a) != len(b) || len(a) != 3 {
		t.Fatalf("%d records, then %d", len(a), len(b))
	}
	for i := range a {
		delete(a[i].Extra, "source_file")
		delete(b[i].Extra, "source_file")
		ja, _ := a[i].AppendJSON(nil)
		jb, _ := b[i].AppendJSON(nil)
		if !bytes.Equal(ja, jb) {
			t.Errorf("record %d changed:\n%s\n%s", i, ja, jb)
		}
	}
}

// Dialogues labelled for safety by nglabel become ProsocialDialog rows:
// one per pair of turns, with the labels of the context turn.
func TestNglabelSafetyToProsocial(t *testing.T) {
	in, recs := labelInput(t)
	srv := labelFake(t, llmtest.Options{Reply: labeltest.Answer})
	code, labelled, stderr := labelRun(t, srv, "", in, "--tasks", "safety", "--samples", "3", "--no-cache", "-q")
	if code != 0 {
		t.Fatalf("nglabel: exit %d: %s", code, stderr)
	}
	code, rows, stderr := run(t, Ngcat, labelled, "--to", "prosocial")
	if code != 0 {
		t.Fatalf("ngcat: exit %d: %s", code, stderr)
	}
	var want []export.ProsocialRow
	for _, r := range readJSONL(t, labelled) {
		want = append(want, export.Prosocial(r)...)
	}
	lines := strings.Split(strings.TrimSpace(rows), "\n")
	if len(lines) != len(want) || len(want) < len(recs) {
		t.Fatalf("%d rows, want %d", len(lines), len(want))
	}
	for i, l := range lines {
		var row export.ProsocialRow
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		w := want[i]
		if row.SafetyLabel != w.SafetyLabel || !strings.HasPrefix(row.SafetyLabel, "__") || len(row.SafetyAnnotations) != 3 ||
			row.Source != export.DefaultSource || row.Etc == nil || row.Context != w.Context || row.DialogueID != w.DialogueID {
			t.Fatalf("row %d: %s", i, l)
		}
	}
}
