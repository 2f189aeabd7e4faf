package app

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// One Run for programs with and without a model: a build's Finish runs
// before the models' summary and After once the run has ended well, in an
// LLM program as in one without a model; After's error is the program's.
func TestRunFinishAndAfter(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Reply: koReply})
	defer srv.Close()
	dir := t.TempDir()
	in := writeRecords(t, dir, 3)
	for _, llmProgram := range []bool{false, true} {
		for _, afterErr := range []error{nil, errors.New("after failed")} {
			var out, errb bytes.Buffer
			env := Env{Args: []string{"--no-cache", "-o", filepath.Join(dir, "out.jsonl"), in}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
				Getenv: func(k string) string {
					return map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "m"}[k]
				}}
			p := NewProgram("plain", "", "[FILE...]")
			if llmProgram {
				p = NewLLMProgram("koecho", "", "[FILE...]")
			} else {
				p.IO.Register(p.Flags)
				env.Args = env.Args[1:] // no --no-cache without a model
			}
			err := p.Run(env, func(b *Build) (RunSpec, error) {
				spec := RunSpec{
					Finish: func() error { fmt.Fprintln(env.Stderr, "finish ran"); return nil },
					After:  func() error { fmt.Fprintln(env.Stderr, "after ran"); return afterErr },
				}
				if llmProgram {
					spec.Stage = koStage{b.Client}
				}
				return spec, nil
			})
			code := Exit(env, err)
			stderr := errb.String()
			f, a := strings.Index(stderr, "finish ran"), strings.Index(stderr, "after ran")
			if f < 0 || a < f {
				t.Errorf("llm %v: Finish and After did not both run, in that order: %q", llmProgram, stderr)
			}
			if s := strings.Index(stderr, "calls answered"); llmProgram && (s < f || s > a) {
				t.Errorf("the models' summary is not between Finish and After: %q", stderr)
			}
			if (afterErr != nil) != (code != 0) || (afterErr != nil && !strings.Contains(stderr, "after failed")) {
				t.Errorf("llm %v, After's error %v: exit %d, %q", llmProgram, afterErr, code, stderr)
			}
		}
	}
}
