package app

import (
	"bytes"
	"errors"
	"fmt"
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
