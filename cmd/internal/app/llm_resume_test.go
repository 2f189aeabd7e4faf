package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// Ctrl-C in the middle of a run, then the same command with --resume:
// the final output has the ids of an uninterrupted run, no file is
// truncated under its final name, and the rerun pays only for what was
// not finished.
func TestInterruptThenResume(t *testing.T) {
	const n = 300
	srv := llmtest.New(llmtest.Options{Latency: 20 * time.Millisecond, Reply: koReply})
	defer srv.Close()
	dir := t.TempDir()
	in := writeRecords(t, dir, n)
	out, errs, cache := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "errors.jsonl"), filepath.Join(dir, "cache")
	args := []string{"--concurrency", "8", "--cache", cache, "-o", out, "--errors", errs, in}

	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "NGKIT_TEST_ROLE=koecho", "NG_BASE_URL="+srv.URL, "NG_MODEL=fake")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); srv.Count() < n/3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the child made %d requests in 30 s: %s", srv.Count(), stderr.String())
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("output visible under its final name before the end")
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitInterrupted {
		t.Fatalf("exit: %v; stderr: %s", err, stderr.String())
	}
	done := readRecords(t, out) // every line parses: nothing truncated
	cancelled, _ := readErrorIDs(t, errs)
	if len(done) == 0 || len(done) >= n {
		t.Fatalf("interrupted run wrote %d of %d records", len(done), n)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	before := srv.Count()

	code, _, stderr2 := run(t, map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}, append([]string{"--resume"}, args...)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr2)
	}
	final := readRecords(t, out)
	if !slices.Equal(ids(final), wantIDs(n)) {
		t.Fatalf("after resume: %d records, want the %d ids of a full run", len(final), n)
	}
	if paid := srv.Count() - before; paid > n-len(done) {
		t.Errorf("resume sent %d requests for %d missing records", paid, n-len(done))
	}
	for _, r := range final {
		if r.Situation == "" {
			t.Fatalf("record %s without situation", r.ID)
		}
	}
	t.Logf("interrupted: %d written, %d cancelled into the errors file; resume sent %d requests", len(done), len(cancelled), srv.Count()-before)
}
