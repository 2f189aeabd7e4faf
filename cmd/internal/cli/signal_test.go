package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ngkit/ngkit/cmd/internal/app"
)

// TestMain lets a test run this test binary as ngcat in a child process,
// for what needs a real process: signals.
func TestMain(m *testing.M) {
	if os.Getenv("NGKIT_TEST_NGCAT") == "1" {
		os.Exit(app.Main(Ngcat))
	}
	os.Exit(m.Run())
}

// Ctrl-C while the input is still open: what was read is written, the -o
// file is committed whole, and the exit status is 130.
func TestNgcatInterruptFlushesWhatIsDone(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.parquet")
	stderr := interruptNgcat(t, out, 100, "-o", out)
	if !strings.Contains(stderr, "interrupted: 100 records written") {
		t.Errorf("stderr: %s", stderr)
	}
	// The command that goes on from here: the same, with --resume.
	if !strings.Contains(stderr, "; to go on from here, run:\n  ngcat -o "+out+" --resume\n") {
		t.Errorf("no --resume command: %s", stderr)
	}
	code, got, errs := run(t, Ngcat, "", out)
	if code != 0 || strings.Count(got, "\n") != 100 || !strings.Contains(got, `"id":"r99"`) {
		t.Errorf("committed output: exit %d, %d lines, %s", code, strings.Count(got, "\n"), errs)
	}
}

// interruptNgcat runs ngcat with args in a child process, writes n records
// to its stdin and, with stdin still open, checks that nothing is visible
// at path yet, then sends SIGINT and checks the exit status is 130. It
// returns the child's stderr.
func interruptNgcat(t *testing.T, path string, n int, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "NGKIT_TEST_NGCAT=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(stdin, "{\"id\":\"r%d\",\"culture\":\"korean\"}\n", i)
	}
	time.Sleep(time.Second) // stdin stays open: ngcat is waiting for more
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		cmd.Process.Kill()
		t.Fatalf("%s visible before the end", path)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	stdin.Close()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != app.ExitInterrupted {
		t.Fatalf("exit: %v; stderr %s", err, stderr.String())
	}
	return stderr.String()
}
