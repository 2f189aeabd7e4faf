package cli

import (
	"path/filepath"
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
