package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"testing"
)

// Exit is the one mapping from a program's error to its exit status and
// its line on stderr.
func TestExitMapsErrors(t *testing.T) {
	for _, c := range []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, 0, ""},
		{errHelped, 0, ""},
		{UsageError("ngcat", errors.New("--head and --sample take a positive count")), 2, "ngcat: --head and --sample take a positive count\n"},
		{InputError("ngcat", errors.New("in.jsonl:line 3: malformed JSON")), 2, "ngcat: in.jsonl:line 3: malformed JSON\n"},
		{FailedError("ngv2r", "2 of 9 records failed (see e.jsonl)"), 1, "ngv2r: 2 of 9 records failed (see e.jsonl)\n"},
		{FailedError("ngv2r", ""), 1, ""},
		{InterruptedError("ngv2r", "interrupted: 3 records written, 1 failed or cancelled"), 130, "ngv2r: interrupted: 3 records written, 1 failed or cancelled\n"},
		{fmt.Errorf("wrapped: %w", FailedError("ngstats", "--fail-on: x")), 1, "ngstats: --fail-on: x\n"},
		{errors.New("not an ExitError"), 2, "not an ExitError\n"},
	} {
		var stderr bytes.Buffer
		if code := Exit(Env{Stderr: &stderr}, c.err); code != c.code || stderr.String() != c.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.err, code, stderr.String(), c.code, c.stderr)
		}
	}
}

// An ExitError keeps its cause: errors.Is and errors.As reach it through
// the exit status, and Exit still prints the one line.
func TestExitErrorKeepsCause(t *testing.T) {
	cause := &os.PathError{Op: "open", Path: "in.jsonl", Err: fs.ErrNotExist}
	for _, err := range []error{
		UsageError("ngcat", cause),
		InputError("ngcat", fmt.Errorf("reading: %w", cause)),
		fmt.Errorf("outer: %w", UsageError("ngcat", cause)),
	} {
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v: errors.Is(fs.ErrNotExist) is false", err)
		}
		var pe *os.PathError
		if !errors.As(err, &pe) || pe.Path != "in.jsonl" {
			t.Errorf("%v: errors.As(*os.PathError) = %v", err, pe)
		}
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage {
			t.Errorf("%v: no ExitError with code 2", err)
		}
	}
	if errors.Unwrap(FailedError("ngv2r", "2 of 9 records failed")) != nil {
		t.Error("FailedError has a cause; want none")
	}
	// A flag error keeps pflag's error.
	p := NewProgram("x", "", "")
	_, err := p.Parse(Env{Args: []string{"--nope"}, Stdout: io.Discard})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Err == nil || ee.Code != ExitUsage {
		t.Errorf("flag error %v: want an ExitError with its cause", err)
	}
}
