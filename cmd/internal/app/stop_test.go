package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// A malformed line 3 of 200: exit 2, no call for any record after it,
// and the error is the last line on stderr (the usage summary before it).
func TestMalformedLineCostsNoLaterCall(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Reply: koReply})
	defer srv.Close()
	dir := t.TempDir()
	in := writeRecords(t, dir, 200)
	b, _ := os.ReadFile(in)
	lines := strings.Split(string(b), "\n")
	lines[2] = `{"id": "k0002", "scenario": `
	os.WriteFile(in, []byte(strings.Join(lines, "\n")), 0o644)
	code, _, stderr := run(t, map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"},
		"--no-cache", "--concurrency", "16", "-o", filepath.Join(dir, "out.jsonl"), in)
	if code != 2 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "record k0001") {
		t.Errorf("the records cancelled by the fatal error are reported: %s", stderr)
	}
	if l := lastLine(stderr); !strings.Contains(l, "in.jsonl:line 3") || strings.Contains(l, "calls answered") {
		t.Errorf("last line on stderr: %q (all: %s)", l, stderr)
	}
	for _, r := range srv.Requests() {
		if u := r.Request.LastUser(); u != "scenario 0" && u != "scenario 1" {
			t.Errorf("a call was made for %q, after the malformed line 3", u)
		}
	}
}

// A model that fails every record: the run stops within the first few
// dozen records with exit 1 and a line that says what kept failing; once
// the model is fixed, --resume does the rest.
func TestErrorRateStopThenResume(t *testing.T) {
	broken := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{{Content: `{"text":"Hello there, friend.","lang":"en"}`}}})
	defer broken.Close()
	dir := t.TempDir()
	const n = 300
	in := writeRecords(t, dir, n)
	out, errs := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "errors.jsonl")
	args := []string{"--no-cache", "--concurrency", "4", "--max-retries", "1", "--max-reasks", "1", "--backoff", "1ms", "-o", out, "--errors", errs, in}
	code, _, stderr := run(t, map[string]string{"NG_BASE_URL": broken.URL, "NG_MODEL": "fake"}, args...)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	l := lastLine(stderr)
	if !strings.Contains(l, "stopped early: 20 of the last 20 records failed (--max-error-rate 0.9)") || !strings.Contains(l, "reply failed the check") || !strings.Contains(l, "--resume") {
		t.Errorf("last line: %q", l)
	}
	if got := broken.Count(); got > 3*60 {
		t.Errorf("%d requests before the stop (3 per record)", got)
	}
	failed, _ := readErrorIDs(t, errs)
	done := readRecords(t, out)
	if len(done) != 0 || len(failed) == 0 || len(failed) > 60 {
		t.Errorf("%d written, %d in the errors file", len(done), len(failed))
	}

	good := llmtest.New(llmtest.Options{Reply: koReply})
	defer good.Close()
	code, _, stderr = run(t, map[string]string{"NG_BASE_URL": good.URL, "NG_MODEL": "fake"}, append([]string{"--resume"}, args...)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if final := readRecords(t, out); !slices.Equal(ids(final), wantIDs(n)) {
		t.Errorf("after resume: %d records", len(final))
	}
}
