package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --split's field says the split whose file holds the record (head,
// sample, the split files and explode: testdata/cli/ngcat/select.yaml).
func TestNgcatSplitFieldMatchesFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.parquet")
	if code, _, stderr := run(t, Ngcat, "", append([]string{"--from", "normgenesis", "-o", src}, sampleFiles(t)...)...); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := run(t, Ngcat, "", src, "--split", "train=0.8,test=0.2", "-o", filepath.Join(dir, "{split}.jsonl")); code != 0 {
		t.Fatal(stderr)
	}
	test, _ := os.ReadFile(filepath.Join(dir, "test.jsonl"))
	_, tagged, _ := run(t, Ngcat, "", src, "--split", "train=0.8,test=0.2")
	for _, r := range readJSONL(t, tagged) {
		s, _ := r.ExtraString("split")
		if (s == "test") != strings.Contains(string(test), `"id":"`+r.ID+`"`) {
			t.Errorf("%s: split field %q disagrees with the split files", r.ID, s)
		}
	}
}

// A line over 32 MiB is exit 2 with one line that says so, and no output
// left (the other bad inputs are cases in testdata/cli/ngcat/badinput.yaml;
// this one is too big to keep there).
func TestNgcatLineTooLong(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(in, []byte(`{"id":"a"}`+"\n"+`{"id":"`+strings.Repeat("x", 33<<20)+`"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.parquet")
	code, _, stderr := run(t, Ngcat, "", in, "-o", out)
	if code != 2 || !strings.Contains(stderr, "big.jsonl:line 2: line is longer than 32 MiB") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*out*")); len(m) > 0 {
		t.Errorf("output left: %v", m)
	}
}
