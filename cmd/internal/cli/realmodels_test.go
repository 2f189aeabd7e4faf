package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// realStep is one step of a scripts/realmodels.sh run kept as a fixture
// (testdata/realmodels, made by scripts/realmodels-fixtures.sh).
type realStep struct {
	Name    string           `json:"name"`
	Model   string           `json:"model"`
	Stage   string           `json:"stage"`
	Culture string           `json:"culture"`
	Input   *string          `json:"input"`
	Args    []string         `json:"args"`
	Out     []map[string]any `json:"out"` // the records written, without gen (timings)
	Errors  []struct {
		ID    string `json:"id"`
		Error string `json:"error"`
	} `json:"errors"`
}

// The base URL in an error message is the proxy's of the real run, the
// replay server's here.
var baseURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/v1`)

// scenarioIndex is the scenario a seed failure names. When a model wrote
// a norm's scenarios alike, their situation requests are the same request,
// answered from the recording in the order they arrive: which scenario
// met the failing replies first is the scheduler's, not the program's.
var scenarioIndex = regexp.MustCompile(`^(\S+: )scenario [0-9]+: `)

// Each step of the real-model runs, again on the fake in --replay mode
// answering with the real replies recorded: the same records written (by
// id) and the same failures with the same reasons, without a server. A
// change in a parser, a validator or a prompt shows here as a different
// outcome (or as a request with no recorded reply).
func TestRealModelReplay(t *testing.T) {
	dir := "../../../testdata/realmodels"
	steps := readRealSteps(t, filepath.Join(dir, "steps.jsonl"))
	if len(steps) == 0 {
		t.Fatal("no steps in testdata/realmodels/steps.jsonl")
	}
	for _, s := range steps {
		t.Run(s.Name, func(t *testing.T) {
			exs, err := llmtest.ReadRecording(filepath.Join(dir, s.Name+".rec.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			rp := llmtest.NewReplayer(exs)
			srv := httptest.NewServer(rp)
			defer srv.Close()
			url := srv.URL + "/v1"
			tmp := t.TempDir()
			prog := Programs[s.Args[0]]
			if prog == nil {
				t.Fatalf("no program %q", s.Args[0])
			}
			var args []string
			for _, a := range s.Args[1:] {
				if a == "MODELS" { // the panel's models file, pointing at the replay
					a = filepath.Join(tmp, "models.yaml")
					m := fmt.Sprintf("endpoints:\n  smol: {base_url: %s, model: smollm2-135m-instruct-q4_1}\n  qwen: {base_url: %s, model: qwen2.5-coder-1.5b-instruct-q4_k_m}\n", url, url)
					if err := os.WriteFile(a, []byte(m), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				args = append(args, a)
			}
			out, errs := filepath.Join(tmp, "out.jsonl"), filepath.Join(tmp, "errors.jsonl")
			args = append(args, "-q", "-o", out, "--errors", errs, "--backoff", "1ms")
			if s.Input != nil {
				args = append(args, filepath.Join(dir, *s.Input))
			}
			var stdout, stderr bytes.Buffer
			vars := map[string]string{"NG_BASE_URL": url, "NG_MODEL": "smollm2-135m-instruct-q4_1"}
			code := exit(prog, app.Env{Args: args, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
				Getenv: func(k string) string { return vars[k] }})
			if code != 0 && code != 1 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if _, miss := rp.Stats(); miss > 0 {
				t.Errorf("%d requests had no recorded reply (a prompt or request changed?); stderr: %s", miss, stderr.String())
			}
			got := readLines(t, out)
			if len(got) != len(s.Out) {
				t.Errorf("%d records written, %d in the real run", len(got), len(s.Out))
			}
			for i := 0; i < len(got) && i < len(s.Out); i++ {
				delete(got[i], "gen")
				g, _ := json.Marshal(got[i]) // maps marshal with sorted keys
				w, _ := json.Marshal(s.Out[i])
				if !bytes.Equal(g, w) {
					t.Errorf("record %d:\n%s\nreal run:\n%s", i+1, g, w)
				}
			}
			var gotErrs, want []string
			for _, r := range readLines(t, errs) {
				gotErrs = append(gotErrs, normErr(fmt.Sprintf("%v: %v", r["id"], fmt.Sprint(r["error"]))))
			}
			for _, e := range s.Errors {
				want = append(want, normErr(e.ID+": "+e.Error))
			}
			sort.Strings(gotErrs)
			sort.Strings(want)
			if strings.Join(gotErrs, "\n") != strings.Join(want, "\n") {
				t.Errorf("failures:\n%s\nreal run:\n%s", strings.Join(gotErrs, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// normErr is a failure as the replay compares it: the server's address
// and the scenario index left out.
func normErr(s string) string {
	return scenarioIndex.ReplaceAllString(baseURL.ReplaceAllString(s, "URL"), "${1}scenario N: ")
}

func readRealSteps(t *testing.T, path string) []realStep {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []realStep
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		var s realStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		steps = append(steps, s)
	}
	return steps
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for i, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		recs = append(recs, m)
	}
	return recs
}
