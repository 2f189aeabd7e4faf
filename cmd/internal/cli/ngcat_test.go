package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNgcatHeadSampleSplitExplode(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.parquet")
	if code, _, stderr := run(t, Ngcat, "", append([]string{"--from", "normgenesis", "-o", src}, sampleFiles(t)...)...); code != 0 {
		t.Fatal(stderr)
	}
	code, out, _ := run(t, Ngcat, "", src, "--head", "3")
	if code != 0 || len(readJSONL(t, out)) != 3 {
		t.Errorf("--head 3: exit %d, %d records", code, len(readJSONL(t, out)))
	}
	_, a, _ := run(t, Ngcat, "", src, "--sample", "10", "--seed", "7")
	_, b, _ := run(t, Ngcat, "", src, "--sample", "10", "--seed", "7", "--shard", "0/1")
	_, c, _ := run(t, Ngcat, "", src, "--sample", "10", "--seed", "8")
	if len(readJSONL(t, a)) != 10 || a != b || a == c {
		t.Errorf("--sample is not deterministic by seed")
	}
	// Splits: files per split, every record in exactly one, same as the field.
	code, _, stderr := run(t, Ngcat, "", src, "--split", "train=0.8,test=0.2", "-o", filepath.Join(dir, "{split}.jsonl"))
	if code != 0 {
		t.Fatal(stderr)
	}
	train, _ := os.ReadFile(filepath.Join(dir, "train.jsonl"))
	test, _ := os.ReadFile(filepath.Join(dir, "test.jsonl"))
	nTrain, nTest := len(readJSONL(t, string(train))), len(readJSONL(t, string(test)))
	if nTrain+nTest != 135 || nTest < 15 || nTest > 45 {
		t.Errorf("split sizes %d/%d", nTrain, nTest)
	}
	_, tagged, _ := run(t, Ngcat, "", src, "--split", "train=0.8,test=0.2")
	for _, r := range readJSONL(t, tagged) {
		s, _ := r.ExtraString("split")
		if (s == "test") != strings.Contains(string(test), `"id":"`+r.ID+`"`) {
			t.Errorf("%s: split field %q disagrees with the split files", r.ID, s)
		}
	}
	// Explode: one row per turn.
	code, out, _ = run(t, Ngcat, "", src, "--explode", "turns")
	turns := 0
	for _, r := range readJSONL(t, func() string { _, o, _ := run(t, Ngcat, "", src); return o }()) {
		turns += len(r.Turns)
	}
	rows := strings.Count(out, "\n")
	if code != 0 || rows != turns || !strings.Contains(out, `"turn_index":0`) {
		t.Errorf("--explode turns: exit %d, %d rows for %d turns", code, rows, turns)
	}
	if code, _, stderr := run(t, Ngcat, "", src, "--explode", "turns", "-o", filepath.Join(dir, "turns.parquet")); code != 0 {
		t.Errorf("explode to parquet: %s", stderr)
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
