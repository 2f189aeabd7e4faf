package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
		os.Exit(app.Main(Ngcat, nil))
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
	// The command that goes on from here: the same, with --resume, fed
	// again (its input is a pipe).
	if !strings.Contains(stderr, "; to go on from here, run the whole pipeline again, this stage with --resume (the stages before it start over):\n  ... | ngcat -o "+out+" --resume\n") {
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

// Ctrl-C in a pipeline (ngcat | ngcat -o out): the signal reaches both. The
// downstream one may be gone before the upstream one has seen its own
// signal; the upstream one's write then fails on the broken pipe, and it
// still ends as interrupted (130, not 141 for SIGPIPE), in one line. The
// downstream one's hint says the whole pipeline is to be run again.
func TestPipelineInterrupt(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.jsonl")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	up := exec.Command(os.Args[0])
	up.Env = append(os.Environ(), "NGKIT_TEST_NGCAT=1")
	up.Stdout = pw
	var upErr, downErr strings.Builder
	up.Stderr = &upErr
	upIn, err := up.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	down := exec.Command(os.Args[0], "-o", out)
	down.Env = up.Env
	down.Stdin = pr
	down.Stderr = &downErr
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	if err := down.Start(); err != nil {
		up.Process.Kill()
		t.Fatal(err)
	}
	pr.Close()
	pw.Close()
	// The input never ends: upstream keeps writing until it is stopped.
	go func() {
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(upIn, "{\"id\":\"r%d\",\"culture\":\"korean\"}\n", i); err != nil {
				return
			}
		}
	}()
	time.Sleep(time.Second)
	// The worst order: downstream gone first, then upstream's signal.
	down.Process.Signal(syscall.SIGINT)
	downExit := down.Wait()
	up.Process.Signal(syscall.SIGINT)
	upExit := up.Wait()
	upIn.Close()
	for _, c := range []struct {
		name string
		err  error
	}{{"upstream", upExit}, {"downstream", downExit}} {
		if ee, ok := c.err.(*exec.ExitError); !ok || ee.ExitCode() != app.ExitInterrupted {
			t.Errorf("%s: %v, want exit 130; stderr:\n%s\n%s", c.name, c.err, upErr.String(), downErr.String())
		}
	}
	if !regexp.MustCompile(`^ngcat: interrupted: \d+ records? written(, \d+ cancelled)?\n$`).MatchString(upErr.String()) {
		t.Errorf("upstream stderr, want one line:\n%s", upErr.String())
	}
	want := "; to go on from here, run the whole pipeline again, this stage with --resume (the stages before it start over):\n  ... | ngcat -o " + out + " --resume\n"
	if !strings.HasPrefix(downErr.String(), "ngcat: interrupted: ") || !strings.HasSuffix(downErr.String(), want) || strings.Count(downErr.String(), "\n") != 2 {
		t.Errorf("downstream stderr:\n%s", downErr.String())
	}
}
