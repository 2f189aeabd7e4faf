package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// TestMain lets tests run this binary as the test program (koecho) in a
// child process: for signals and for several processes sharing a cache.
func TestMain(m *testing.M) {
	if os.Getenv("NGKIT_TEST_ROLE") == "koecho" {
		os.Exit(Main(koecho, nil))
	}
	os.Exit(m.Run())
}

// koStage is the minimal LLM stage that runs the runtime end to end
// through the shared runner until the real stages exist: it asks for one
// Korean sentence about the record's scenario (schema echo), checks the
// reply's language, and writes it to situation with the call's gen.
type koStage struct{ c *llm.Client }

func (koStage) Name() string { return "koecho" }

func (s koStage) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	resp, err := s.c.Call(ctx, llm.Request{
		ID: rec.ID, Call: "situation", PromptPack: "test-v1", Schema: "echo",
		Messages: []llm.Message{
			llm.System("Write one Korean sentence about the scenario the user gives."),
			llm.User(rec.Scenario),
		},
		Check: koreanCheck,
	})
	if err != nil {
		return nil, err
	}
	var out struct{ Text, Lang string }
	if err := resp.Decode(&out); err != nil {
		return nil, err
	}
	rec.Situation = out.Text
	rec.Gen = append(rec.Gen, resp.Gen)
	return []*record.Record{rec}, nil
}

var koDetector = func() *lang.Detector {
	d, err := lang.New("ko", "en") // one Latin candidate: no lingua models
	if err != nil {
		panic(err)
	}
	return d
}()

func koreanCheck(r *llm.Response) (any, error) {
	var out struct{ Text string }
	if err := r.Decode(&out); err != nil {
		return nil, err
	}
	if share, langs := koDetector.Check([]string{out.Text}, "ko"); share < 0.5 {
		return nil, fmt.Errorf("reply is in %v, not Korean", langs)
	}
	return out.Text, nil
}

// koecho is the test program: the shared flags, the runner, koStage.
func koecho(env Env) error {
	p := NewLLMProgram("koecho", "one Korean sentence per record (test stage)", "[flags] [FILE...]")
	return p.Run(env, func(b *Build) (RunSpec, error) { return RunSpec{Stage: koStage{b.Client}}, nil })
}

// koReply is llmtest.KoreanReply, the fake model of these tests.
var koReply = llmtest.KoreanReply

// run runs koecho in this process with args and the environment vars.
func run(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }}
	code = Exit(env, koecho(env))
	return code, out.String(), errb.String()
}

// writeRecords writes n input records with ids k000..., scenario "scenario N".
func writeRecords(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "{\"id\":\"k%04d\",\"culture\":\"korean\",\"scenario\":\"scenario %d\"}\n", i, i)
	}
	path := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readRecords reads a JSONL file of records; every line must parse.
func readRecords(t *testing.T, path string) []*record.Record {
	t.Helper()
	return testkit.ReadFile(t, path)
}

// readErrorIDs reads the ids of an errors file.
func readErrorIDs(t *testing.T, path string) (ids []string, reasons []string) {
	t.Helper()
	for _, e := range testkit.ReadErrors(t, path) {
		ids = append(ids, e.ID)
		reasons = append(reasons, e.Error)
	}
	return ids, reasons
}

func ids(recs []*record.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	sort.Strings(out)
	return out
}

func wantIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("k%04d", i)
	}
	return out
}
