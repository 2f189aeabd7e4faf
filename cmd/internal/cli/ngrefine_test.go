package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/refine/refinetest"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

var refineFixture = sync.OnceValues(func() ([]*record.Record, error) {
	return refinetest.LoadFixture("../../../testdata/refine/release.jsonl")
})

// refineSeeds returns n clean fixture seeds of each culture, of distinct
// categories, with the pool left for rewrites.
func refineSeeds(t *testing.T, n int) ([]*record.Record, *refinetest.Pool) {
	t.Helper()
	recs, err := refineFixture()
	if err != nil {
		t.Fatal(err)
	}
	pool := refinetest.NewPool(recs)
	var seeds []*record.Record
	for _, culture := range []string{"american", "chinese", "korean"} {
		for _, category := range []string{"apology", "request", "thanks", "greeting"}[:n] {
			r, ok := pool.Take(culture, category)
			if !ok {
				t.Fatalf("no %s %s seed", culture, category)
			}
			c := *r
			seeds = append(seeds, &c)
		}
	}
	return seeds, pool
}

// refineScript scripts a seed: its scores, then rewrites from the pool
// with theirs.
func refineScript(t *testing.T, pool *refinetest.Pool, seed *record.Record, scores ...[3]int) *refinetest.Script {
	t.Helper()
	s := &refinetest.Script{Versions: []refinetest.Version{{Scenario: seed.Scenario, Situation: seed.Situation, TR: scores[0][0], LQ: scores[0][1]}}}
	for _, sc := range scores[1:] {
		r, ok := pool.Take(seed.Culture, seed.Category)
		if !ok {
			t.Fatalf("no rewrite left for %s/%s", seed.Culture, seed.Category)
		}
		s.Versions = append(s.Versions, refinetest.Version{Scenario: r.Scenario, Situation: r.Situation, TR: sc[0], LQ: sc[1], SP: sc[2]})
	}
	return s
}

// refineRun runs ngrefine against srv (no cache, fast retries, quiet).
func refineRun(t *testing.T, srv *llmtest.Server, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	vars := map[string]string{"NG_MODEL": "fake"}
	if srv != nil {
		vars["NG_BASE_URL"] = srv.URL
	}
	args = testkit.FastRetryFlags(args...)
	code = exit(Ngrefine, app.Env{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }})
	return code, out.String(), errb.String()
}

// Seeds of the three cultures: accepted as they came, after a rewrite,
// and never (dropped with --drop-rejected, exit 1); the output is valid
// records with their ids, and ngstats finds no defect in it.
func TestNgrefineEndToEnd(t *testing.T) {
	seeds, pool := refineSeeds(t, 3)
	model := refinetest.New()
	want := map[string]string{} // id -> "as-is", "rewritten", "rejected"
	for i, s := range seeds {
		switch i % 3 {
		case 0:
			model.Add(refineScript(t, pool, s, [3]int{4, 5}))
			want[s.ID] = "as-is"
		case 1:
			model.Add(refineScript(t, pool, s, [3]int{2, 3}, [3]int{5, 4, 4}))
			want[s.ID] = "rewritten"
		case 2:
			model.Add(refineScript(t, pool, s, [3]int{2, 2}, [3]int{3, 3, 3}))
			want[s.ID] = "rejected"
		}
	}
	srv := llmtest.New(llmtest.Options{Reply: model.Reply})
	defer srv.Close()
	dir := t.TempDir()
	errs := filepath.Join(dir, "rejected.jsonl")
	code, out, stderr := refineRun(t, srv, testkit.JSONL(t, seeds), "--max-rounds", "1", "--drop-rejected", "--errors", errs)
	if code != app.ExitFailed {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	failed := testkit.ErrorMap(t, errs)
	if len(recs) != 6 || len(failed) != 3 {
		t.Fatalf("%d out, %d failed: %v", len(recs), len(failed), failed)
	}
	in := map[string]*record.Record{}
	for _, s := range seeds {
		in[s.ID] = s
	}
	for _, r := range recs {
		s := in[r.ID]
		if err := r.Validate(); err != nil || s == nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		ref := r.Refinement
		switch want[r.ID] {
		case "as-is":
			if !ref.Accepted || ref.Rounds != 0 || r.Scenario != s.Scenario {
				t.Errorf("%s: %+v", r.ID, ref)
			}
		case "rewritten":
			if !ref.Accepted || ref.Rounds != 1 || r.Scenario == s.Scenario || ref.After.SemanticPreservation != 4 {
				t.Errorf("%s: %+v", r.ID, ref)
			}
		default:
			t.Errorf("%s: a rejected seed was written", r.ID)
		}
		if src, _ := r.ExtraString("source_file"); src == "" {
			t.Errorf("%s: fields no stage owns were not passed through", r.ID)
		}
	}
	for id, reason := range failed {
		if want[id] != "rejected" || !strings.Contains(reason, "not accepted after 1 rewrite round(s)") {
			t.Errorf("%s: %s", id, reason)
		}
	}
	// ngstats reads the refined seeds and finds no defect.
	code, report, stderr := run(t, Ngstats, out, "--json")
	if code != 0 || !strings.Contains(report, `"defects": []`) && !strings.Contains(report, `"defects":[]`) {
		var rep struct{ Defects any }
		json.Unmarshal([]byte(report), &rep)
		t.Errorf("ngstats exit %d: defects %v %s", code, rep.Defects, stderr)
	}
}

// --exemplars FILE replaces the built-in exemplars; --k picks how many.
func TestNgrefineUserExemplars(t *testing.T) {
	seeds, pool := refineSeeds(t, 1)
	var ex []*record.Record
	for _, s := range seeds {
		r, _ := pool.Take(s.Culture, s.Category)
		ex = append(ex, r)
	}
	dir := t.TempDir()
	exFile := filepath.Join(dir, "exemplars.jsonl")
	os.WriteFile(exFile, []byte(testkit.JSONL(t, ex)), 0o644)
	srv := llmtest.New(llmtest.Options{Reply: refinetest.New().Reply}) // accepts every seed
	defer srv.Close()
	code, out, stderr := refineRun(t, srv, testkit.JSONL(t, seeds), "--exemplars", exFile, "--k", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for i, r := range readJSONL(t, out) {
		if ids := r.Refinement.ExemplarIDs; len(ids) != 1 || ids[0] != ex[i].ID {
			t.Errorf("%s: exemplars %v, want [%s] (the only one of its culture and category)", r.ID, ids, ex[i].ID)
		}
	}
}

// OpenAI Batch files across rounds: a first run writes every seed's
// judge.0 request; a run with their replies finishes the seeds that pass
// and writes the rewrite.1 requests of the others.
func TestNgrefineBatchRounds(t *testing.T) {
	seeds, _ := refineSeeds(t, 1)
	dir := t.TempDir()
	req1, req2, resp := filepath.Join(dir, "req1.jsonl"), filepath.Join(dir, "req2.jsonl"), filepath.Join(dir, "resp.jsonl")
	in := testkit.JSONL(t, seeds)
	code, out, stderr := refineRun(t, nil, in, "--emit-requests", req1)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, output %q: %s", code, out, stderr)
	}
	// The requests come in the order the calls were made, not the input's.
	b, _ := os.ReadFile(req1)
	want := map[string]bool{}
	for _, s := range seeds {
		want[s.ID+"/judge.0"] = true
	}
	var replies strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			CustomID string `json:"custom_id"`
		}
		json.Unmarshal([]byte(l), &r)
		if !want[r.CustomID] {
			t.Fatalf("custom_id %q", r.CustomID)
		}
		delete(want, r.CustomID)
		content := refinetest.Judged(5, 5, 0, "Good.")
		if r.CustomID == seeds[0].ID+"/judge.0" {
			content = refinetest.Judged(2, 5, 0, "Not about the norm.")
		}
		line, _ := json.Marshal(map[string]string{"custom_id": r.CustomID, "content": content})
		replies.Write(append(line, '\n'))
	}
	if len(want) > 0 {
		t.Fatalf("no requests for %v", want)
	}
	os.WriteFile(resp, []byte(replies.String()), 0o644)
	code, out, stderr = refineRun(t, nil, in, "--responses", resp, "--emit-requests", req2)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != len(seeds)-1 || recs[0].ID != seeds[1].ID || !recs[0].Refinement.Accepted {
		t.Fatalf("%d records out", len(recs))
	}
	b, _ = os.ReadFile(req2)
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"custom_id":"`+seeds[0].ID+`/rewrite.1"`) ||
		!strings.Contains(lines[0], "Not about the norm.") {
		t.Errorf("second requests file: %s", b)
	}
}

// testdata/refine/fakellm-accept.jsonl, the fakellm --script for shell
// pipelines, makes ngrefine accept every seed that keeps the rules as it
// came (as ngseed writes them), in every culture, with one call each.
func TestNgrefineFakellmAcceptScript(t *testing.T) {
	b, err := os.ReadFile("../../../testdata/refine/fakellm-accept.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var rules []llmtest.Rule
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r llmtest.Rule
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r)
	}
	srv := llmtest.New(llmtest.Options{Rules: rules})
	defer srv.Close()
	seeds, _ := refineSeeds(t, 4)
	code, out, stderr := refineRun(t, srv, testkit.JSONL(t, seeds))
	recs := readJSONL(t, out)
	if code != 0 || len(recs) != len(seeds) || srv.Count() != len(seeds) {
		t.Fatalf("exit %d, %d records, %d requests: %s", code, len(recs), srv.Count(), stderr)
	}
	for _, r := range recs {
		if !r.Refinement.Accepted || r.Refinement.Rounds != 0 {
			t.Errorf("%s: %+v", r.ID, r.Refinement)
		}
	}
}

// --prompts DIR overrides a template; the records say so in gen. A
// culture's own built-in file (refine/judge.korean.tmpl) still comes
// before the user's generic one, as pkg/prompt looks them up.
func TestNgrefinePromptsOverride(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "refine"), 0o755)
	os.WriteFile(filepath.Join(dir, "refine", "judge.tmpl"), []byte(`{{define "system"}}Judge seeds.{{end}}
{{define "user"}}MY JUDGE {{.Norm}}: {{.Scenario}} / {{.Situation}}{{end}}`), 0o644)
	srv := llmtest.New(llmtest.Options{Reply: refinetest.New().Reply})
	defer srv.Close()
	seeds, _ := refineSeeds(t, 1)
	code, out, stderr := refineRun(t, srv, testkit.JSONL(t, seeds), "--prompts", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	for _, r := range recs {
		if pp := r.Gen[0].PromptPack; !strings.Contains(pp, "+") {
			t.Errorf("%s: prompt pack %q does not show the override", r.ID, pp)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != len(seeds) {
		t.Fatalf("%d requests", len(reqs))
	}
	mine := 0
	for _, q := range reqs {
		last := q.Request.LastUser()
		switch {
		case strings.HasPrefix(last, "MY JUDGE "):
			mine++
		case !strings.HasPrefix(last, "범주: "):
			t.Errorf("prompt %.60q", last)
		}
	}
	if mine != 2*len(seeds)/3 {
		t.Errorf("%d of %d prompts from the override, want the american and chinese ones", mine, len(seeds))
	}
}
