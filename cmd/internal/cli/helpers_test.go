package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/record"
)

// run calls a program as a user would, with stdin and captured output.
func run(t *testing.T, prog func(app.Env) error, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = exit(prog, app.Env{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// exit runs a program as main does: its error mapped to the exit status.
func exit(prog func(app.Env) error, env app.Env) int { return app.Exit(env, prog(env)) }

func sampleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../../testdata/normgenesis/*.json")
	if err != nil || len(files) != 8 {
		t.Fatalf("sample files: %v %v", files, err)
	}
	return files
}

// readJSONL parses a program's JSONL output; every line must parse.
func readJSONL(t *testing.T, s string) []*record.Record {
	t.Helper()
	return testkit.ReadJSONL(t, "output", []byte(s))
}
