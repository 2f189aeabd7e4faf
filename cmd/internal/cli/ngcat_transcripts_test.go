package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNgcatCSVToStats: a user's CSV of transcripts becomes a checked corpus
// with one command: ngcat --from csv ... | ngstats.
func TestNgcatCSVToStats(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "data.csv")
	body := "\ufeffDialogue,Culture,Situation\n" +
		"\"Family member: Are you ok?\nSecurity guard: Yes, sir. Thank you for asking.\",x,At the gate.\n" +
		"\"1. Sarah: Hi, I am sorry I am late.\n2. Tom: No problem, come in.\",y,Dinner.\n"
	if err := os.WriteFile(csv, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, Ngcat, "", "--from", "csv", "--text-column", "Dialogue", "--culture", "american", "--type", "violation", csv)
	if code != 0 {
		t.Fatalf("ngcat: exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != 2 || len(recs[0].Turns) != 2 || recs[0].Turns[1].Speaker != "Security guard" || recs[1].Turns[0].Speaker != "Sarah" {
		t.Fatalf("records: %+v", recs)
	}
	for _, r := range recs {
		if r.Culture != "american" || r.Lang != "en" || r.DialogueType != "violation" {
			t.Errorf("%s: %s %s %s", r.ID, r.Culture, r.Lang, r.DialogueType)
		}
	}
	code, report, stderr := run(t, Ngstats, out)
	if code != 0 {
		t.Fatalf("ngstats: exit %d: %s", code, stderr)
	}
	// the language of the corpus is checked against its culture
	if !strings.Contains(report, "Language consistency") || !regexpLine(report, `american\s+en\s+2\s+4`) {
		t.Errorf("report:\n%s", report)
	}

	// bad input: a missing column or a ragged row is exit 2 with one line
	for _, c := range []struct{ body, col, want string }{
		{"a,b\n1,2\n", "Dialogue", `bad.csv: no column "Dialogue" (--text-column)`},
		{"Dialogue,b\nA: hi,2\nB: yo,2,3\n", "Dialogue", "bad.csv:row 2 (line 3): 3 cells, the header has 2"},
	} {
		p := filepath.Join(dir, "bad.csv")
		os.WriteFile(p, []byte(c.body), 0o644)
		code, _, stderr := run(t, Ngcat, "", "--from", "csv", "--text-column", c.col, p)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, %q, want %q", c.body, code, stderr, c.want)
		}
	}
}

func TestNgcatSplitDialogues(t *testing.T) {
	in := "Dialogue 1:\nA: hi\nB: hello\nDialogue 2:\nC: yo\nD: hey\nC: bye\n"
	code, out, stderr := run(t, Ngcat, in, "--from", "text", "--separator", "none")
	if code != 0 {
		t.Fatal(stderr)
	}
	if recs := readJSONL(t, out); len(recs) != 1 || len(recs[0].Turns) != 5 {
		t.Fatalf("without --split-dialogues: %+v", recs)
	}
	code, out, stderr = run(t, Ngcat, in, "--from", "text", "--separator", "none", "--split-dialogues", "--culture", "american")
	if code != 0 {
		t.Fatal(stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != 2 || len(recs[0].Turns) != 2 || len(recs[1].Turns) != 3 || recs[0].ID == recs[1].ID || recs[1].Culture != "american" {
		t.Fatalf("with --split-dialogues: %+v", recs)
	}
}

// TestNgcatMessagesRoundTrip: --from messages then --to messages gives the
// file back.
func TestNgcatMessagesRoundTrip(t *testing.T) {
	in := `{"messages":[{"role":"system","content":"Be kind."},{"role":"user","content":"Hi & bye <3"},{"role":"assistant","content":"안녕히 가세요"}]}` + "\n"
	code, recs, stderr := run(t, Ngcat, in, "--from", "messages", "--culture", "korean")
	if code != 0 {
		t.Fatal(stderr)
	}
	code, out, stderr := run(t, Ngcat, recs, "--to", "messages")
	if code != 0 {
		t.Fatal(stderr)
	}
	if out != in {
		t.Errorf("round trip:\n got %s\nwant %s", out, in)
	}
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "system.tmpl")
	os.WriteFile(tmpl, []byte("Culture: {{.Culture}}"), 0o644)
	code, out, stderr = run(t, Ngcat, recs, "--to", "messages", "--per-turn", "--assistant", "first", "--system-template", tmpl)
	if code != 0 {
		t.Fatal(stderr)
	}
	want := `{"messages":[{"role":"system","content":"Culture: korean"},{"role":"assistant","content":"Hi & bye <3"}]}` + "\n"
	if out != want {
		t.Errorf("per turn:\n got %s\nwant %s", out, want)
	}
	os.WriteFile(tmpl, []byte("{{.Nrom}}"), 0o644)
	if code, _, stderr := run(t, Ngcat, recs, "--to", "messages", "--system-template", tmpl); code != 2 || !strings.Contains(stderr, "Nrom") {
		t.Errorf("bad template: exit %d %q", code, stderr)
	}
}

// regexpLine reports whether some line of s matches the pattern.
func regexpLine(s, pattern string) bool {
	re := regexp.MustCompile(pattern)
	for _, l := range strings.Split(s, "\n") {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}
