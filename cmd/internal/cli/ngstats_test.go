package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/golden"
)

// sampleJSONL imports the release sample once per test into a JSONL file.
func sampleJSONL(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sample.jsonl")
	if code, _, stderr := run(t, Ngcat, "", append([]string{"--from", "normgenesis", "-o", path}, sampleFiles(t)...)...); code != 0 {
		t.Fatalf("ngcat: exit %d: %s", code, stderr)
	}
	return path
}

// TestNgstatsGoldenReports checks the text, JSON and Markdown reports of the
// release sample against golden files.
func TestNgstatsGoldenReports(t *testing.T) {
	in := sampleJSONL(t)
	for _, f := range []struct{ flag, file string }{{"", "sample.txt"}, {"--json", "sample.json"}, {"--markdown", "sample.md"}} {
		args := []string{in, "-j", "2"}
		if f.flag != "" {
			args = append(args, f.flag)
		}
		code, out, stderr := run(t, Ngstats, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		golden.Check(t, filepath.Join("../../../testdata/ngstats", f.file), out)
	}
}

// ngstats warns on stderr of a model that labelled every turn one way
// (the recorded Qwen2.5-Coder labelling), and not of the release's sample,
// whose turns carry no model's labels; -q silences it.
func TestNgstatsWarnsOfOneClassLabellings(t *testing.T) {
	var step struct{ Out []map[string]any }
	for _, s := range readRealSteps(t, "../../../testdata/realmodels/steps.jsonl") {
		if s.Name == "korean-nglabel-qwen" {
			step.Out = s.Out
		}
	}
	if len(step.Out) != 1 {
		t.Fatal("no recorded Qwen labelling")
	}
	b, _ := json.Marshal(step.Out[0])
	path := filepath.Join(t.TempDir(), "qwen.jsonl")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, Ngstats, "", "--json", path)
	if code != 0 || !strings.Contains(stderr, "ngstats: warning: qwen2.5-coder-1.5b-instruct-q4_k_m gave every turn one norm label in 1 of 1 dialogues (100.00%; not_relevant 1)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, _, stderr := run(t, Ngstats, "", "-q", "--json", path); stderr != "" {
		t.Errorf("-q: stderr %q", stderr)
	}
	if code, _, stderr := run(t, Ngstats, "", sampleJSONL(t)); code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("release sample: exit %d, stderr %q", code, stderr)
	}
}
