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

func TestNgcatBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"id":"a"}` + "\n"
	pq := filepath.Join(dir, "ok.parquet")
	if code, _, stderr := run(t, Ngcat, good+`{"id":"b"}`+"\n", "-o", pq); code != 0 {
		t.Fatal(stderr)
	}
	pqBytes, _ := os.ReadFile(pq)
	cases := []struct {
		name, content, want string
	}{
		{"malformed.jsonl", good + good + `{"id":"c",}` + "\n", "malformed.jsonl:line 3: malformed JSON"},
		{"wrongtype.jsonl", good + `{"id":"b","turns":"hello"}` + "\n", "wrongtype.jsonl:line 2: field turns"},
		{"utf8.jsonl", good + "{\"id\":\"\xff\xfe\"}\n", "utf8.jsonl:line 2: invalid UTF-8 at byte 8"},
		{"big.jsonl", good + `{"id":"` + strings.Repeat("x", 33<<20) + `"}` + "\n", "big.jsonl:line 2: line is longer than 32 MiB"},
		{"truncated.parquet", string(pqBytes[:len(pqBytes)-9]), "truncated.parquet"},
		{"unknown.bin", "\x00\x01binary stuff", "unknown.bin: unknown input format"},
		{"array.json", `[{"id":"a"}]`, "JSON array"},
	}
	for _, c := range cases {
		in := write(c.name, c.content)
		out := filepath.Join(dir, "out-"+c.name+".parquet")
		code, _, stderr := run(t, Ngcat, "", in, "-o", out)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2", c.name, code)
		}
		if !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: stderr %q, want one line with %q", c.name, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: partial output left at %s", c.name, out)
		}
		matches, _ := filepath.Glob(filepath.Join(dir, ".out-*"))
		if len(matches) > 0 {
			t.Errorf("%s: temporary files left: %v", c.name, matches)
		}
	}
	// Release files: a truncated array and a wrong type name the file and line.
	bad := write("korean_v2r.json", "[\n {\"scenario\": \"a\", \"dialogue\": \"A: hi\"},\n {\"scenario\": 3}\n]")
	code, _, stderr := run(t, Ngcat, "", "--from", "normgenesis", bad)
	if code != 2 || !strings.Contains(stderr, "korean_v2r.json:3: element 1: field scenario: want a string") {
		t.Errorf("release with a wrong type: exit %d, %q", code, stderr)
	}
	trunc := write("chinese_adherence.json", "[\n {\"scenario\": \"a\", \"dialogue\": \"A: hi\"},\n {\"scenario\": \"b")
	code, _, stderr = run(t, Ngcat, "", "--from", "normgenesis", trunc)
	if code != 2 || !strings.Contains(stderr, "chinese_adherence.json:3: unexpected end of input") {
		t.Errorf("truncated release: exit %d, %q", code, stderr)
	}
	code, _, stderr = run(t, Ngcat, "", "--from", "normgenesis", write("dialogues.json", "[]"))
	if code != 2 || !strings.Contains(stderr, "--culture and --type") {
		t.Errorf("release without culture in the name: exit %d, %q", code, stderr)
	}
}
