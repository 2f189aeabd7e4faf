package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/pipeline"
)

// failReader fails the test if the program reads its input.
type failReader struct{ t *testing.T }

func (r failReader) Read([]byte) (int, error) {
	r.t.Error("input read before the flags were checked")
	return 0, os.ErrClosed
}

func TestNgcatWhere(t *testing.T) {
	dir := t.TempDir()
	imported := filepath.Join(dir, "all.jsonl")
	if code, _, stderr := run(t, Ngcat, "", append([]string{"--from", "normgenesis", "-o", imported}, sampleFiles(t)...)...); code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	errs := filepath.Join(dir, "dropped.jsonl")
	code, out, stderr := run(t, Ngcat, "", imported, "--where", `culture == "korean" && len(turns) >= 8`, "--errors", errs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	kept := readJSONL(t, out)
	for _, r := range kept {
		if r.Culture != "korean" || len(r.Turns) < 8 {
			t.Errorf("%s kept: %s, %d turns", r.ID, r.Culture, len(r.Turns))
		}
	}
	raw, err := os.ReadFile(errs)
	if err != nil {
		t.Fatal(err)
	}
	var dropped []pipeline.ErrorRecord
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var e pipeline.ErrorRecord
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(e.Error, "--where") || e.Record == nil || e.Record.ID != e.ID {
			t.Errorf("dropped record line: %+v", e)
		}
		dropped = append(dropped, e)
	}
	if len(kept) == 0 || len(kept)+len(dropped) != 135 {
		t.Errorf("%d kept + %d dropped, want 135", len(kept), len(dropped))
	}
	if !strings.Contains(stderr, "of 135 records dropped (in "+errs+")") {
		t.Errorf("no count on stderr: %q", stderr)
	}

	// An unknown field is refused before anything is read.
	var errb strings.Builder
	code = Ngcat(pipeline.Env{Args: []string{"--where", "quality.nrom >= 4"}, Stdin: failReader{t}, Stdout: &strings.Builder{}, Stderr: &errb})
	if code != 2 || !strings.Contains(errb.String(), `quality has no field "nrom"`) || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("unknown field: exit %d, %q", code, errb.String())
	}
}

// --drop-defects any leaves nothing for ngstats to report but duplicates.
func TestNgcatDropDefects(t *testing.T) {
	code, out, stderr := run(t, Ngcat, "", append([]string{"--from", "normgenesis", "--drop-defects", "any"}, sampleFiles(t)...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	n := len(readJSONL(t, out))
	if n == 0 || n >= 135 {
		t.Fatalf("%d records kept of 135", n)
	}
	code, rep, stderr := run(t, Ngstats, out, "--json")
	if code != 0 {
		t.Fatalf("ngstats: %s", stderr)
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(rep), &r); err != nil {
		t.Fatal(err)
	}
	for _, d := range r.Defects {
		if !strings.Contains(d.Name, "duplicate") {
			t.Errorf("defect %s left in %d records", d.Name, d.Count)
		}
	}
	if code, _, stderr := run(t, Ngcat, "", "--drop-defects", "duplicate_dialogue"); code != 2 || !strings.Contains(stderr, "--dedup") {
		t.Errorf("duplicates in --drop-defects: exit %d %q", code, stderr)
	}
}
