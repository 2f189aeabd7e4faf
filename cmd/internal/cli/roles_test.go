package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/label/labeltest"
	"github.com/ngkit/ngkit/filters/refine/refinetest"
	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/llm/usage"
	"github.com/ngkit/ngkit/pkg/record"
)

// runWith runs a program with the environment vars.
func runWith(prog func(app.Env) error, vars map[string]string, stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = exit(prog, app.Env{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }})
	return code, out.String(), errb.String()
}

func modelsFile(t *testing.T, eps map[string]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("endpoints:\n")
	for _, a := range []string{"a", "b", "c", "j", "w"} {
		if u, ok := eps[a]; ok {
			fmt.Fprintf(&b, "  %s:\n    base_url: %s\n    model: model-%s\n", a, u, a)
		}
	}
	p := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// nglabel with a panel of three labellers on three fake servers (one of
// them answering 503 to everything) and the quality judge on a fourth:
// every dialogue is labelled by the two that answer, names the failed one,
// has its quality from the judge; ngstats reports the panel; with
// --require-all-labellers the records fail instead.
func TestNglabelPanel(t *testing.T) {
	in, recs := labelInput(t)
	var some []*record.Record // every 8th: all cultures and types, fewer calls (the race detector makes each slow)
	for i := 0; i < len(recs); i += 8 {
		some = append(some, recs[i])
	}
	recs = some
	var lines []byte
	for _, r := range recs {
		b, err := r.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(in, lines, 0o644); err != nil {
		t.Fatal(err)
	}
	withTurns := 0
	for _, r := range recs {
		if len(r.Turns) > 0 {
			withTurns++
		}
	}
	a := labelFake(t, llmtest.Options{})
	b := labelFake(t, llmtest.Options{Reply: func(req *llmtest.ChatRequest) string {
		p := labeltest.Read(req)
		if p.Kind != "turns" {
			return labeltest.Answer(req)
		}
		r := labeltest.Labels(p)
		r.Turns[0].Intent = "NR"
		out, _ := json.Marshal(r)
		return string(out)
	}})
	c := labelFake(t, llmtest.Options{Rules: []llmtest.Rule{{Status: 503, Message: "overloaded"}}})
	j := labelFake(t, llmtest.Options{})
	models := modelsFile(t, map[string]string{"a": a.URL, "b": b.URL, "c": c.URL, "j": j.URL})
	dir := t.TempDir()
	out, usageFile := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "u.json")
	common := []string{in, "--models", models, "--labellers", "a,b,c", "--judge", "j", "--tasks", "norm,intent,quality",
		"--no-cache", "--max-retries", "1", "--backoff", "1ms", "-q"}
	code, _, stderr := runWith(Nglabel, nil, "", append(common, "-o", out, "--usage-json", usageFile)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if a.Count() != withTurns || b.Count() != withTurns || j.Count() != withTurns {
		t.Fatalf("requests a %d b %d j %d, want %d each", a.Count(), b.Count(), j.Count(), withTurns)
	}
	ob, _ := os.ReadFile(out)
	got := readJSONL(t, string(ob))
	if len(got) != len(recs) {
		t.Fatalf("%d records out of %d", len(got), len(recs))
	}
	for _, r := range got {
		if len(r.Turns) == 0 {
			continue
		}
		m := r.LabelsMeta
		if strings.Join(m.Panel, ",") != "a,b,c" || len(m.Failed) != 1 || m.Failed[0].Labeller != "c" || !strings.Contains(m.Failed[0].Error, "503") ||
			len(m.CohenKappa) != 1 || m.FleissKappa == nil || r.Quality == nil || m.Model != "model-a,model-b" {
			t.Fatalf("%s: labels_meta %+v quality %v", r.ID, m, r.Quality)
		}
		if bm := r.Turns[0].Labels.ByModel; len(bm) != 2 || bm[0].Labeller != "a" || bm[1].Intent != "NR" {
			t.Fatalf("%s: by_model %+v", r.ID, bm)
		}
		rs := map[string]string{}
		for _, g := range r.Gen {
			rs[g.Endpoint] = g.Role
		}
		if rs["a"] != roles.Labeller || rs["b"] != roles.Labeller || rs["j"] != roles.Judge || rs["c"] != "" {
			t.Fatalf("%s: gen %+v", r.ID, r.Gen)
		}
	}
	var u usage.Report
	ub, _ := os.ReadFile(usageFile)
	if err := json.Unmarshal(ub, &u); err != nil || len(u.Endpoints) != 4 || u.ByRole[roles.Judge].Calls != int64(withTurns) ||
		u.ByRole[roles.Labeller].Failed != int64(withTurns) || u.ByRole[roles.Labeller].Calls != int64(2*withTurns) {
		t.Fatalf("usage %s (%v)", ub, err)
	}
	// ngstats: the panel and the calls by role.
	code, js, stderr := runWith(Ngstats, nil, "", out, "--json", "-q")
	if code != 0 {
		t.Fatalf("ngstats exit %d: %s", code, stderr)
	}
	var rep stats.Report
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Panel == nil || rep.Panel.Records != int64(withTurns) || rep.Panel.Failed["c"] != int64(withTurns) || len(rep.Panel.Agreement) != 2 ||
		rep.Panel.Agreement[0].Task != "norm" || rep.Panel.Agreement[0].Pairs[0].Kappa == nil || *rep.Panel.Agreement[0].Pairs[0].Kappa != 1 ||
		rep.Panel.Agreement[1].Pairs[0].Kappa == nil || *rep.Panel.Agreement[1].Pairs[0].Kappa >= 1 ||
		len(rep.Panel.Disagreements) == 0 {
		t.Fatalf("panel report %+v", rep.Panel)
	}
	rs := map[string]int64{}
	for _, g := range rep.Calls {
		rs[g.Role+"@"+g.Endpoint] += g.Calls
	}
	if rs["labeller@a"] != int64(withTurns) || rs["judge@j"] != int64(withTurns) {
		t.Fatalf("calls %+v", rep.Calls)
	}

	errs := filepath.Join(dir, "errors.jsonl")
	code, _, stderr = runWith(Nglabel, nil, "", append(common, "--require-all-labellers", "-o", filepath.Join(dir, "out2.jsonl"), "--errors", errs)...)
	if code != 1 {
		t.Fatalf("--require-all-labellers: exit %d: %s", code, stderr)
	}
	eb, _ := os.ReadFile(errs)
	if n := strings.Count(string(eb), "labeller c gave no labels (--require-all-labellers)"); n != withTurns {
		t.Fatalf("%d records failed naming c, want %d", n, withTurns)
	}
}

// ngrefine's judge on an endpoint of its own: the judge server gets only
// judge calls, the rewriter's only rewrites; with both on one alias of
// the models file, a note says the judge grades its own rewrites.
func TestNgrefineJudgeRole(t *testing.T) {
	recs, pool := refineSeeds(t, 1)
	model := refinetest.New()
	for _, r := range recs {
		model.Add(refineScript(t, pool, r, [3]int{2, 2, 0}, [3]int{5, 5, 5}))
	}
	seeds := filepath.Join(t.TempDir(), "seeds.jsonl")
	if err := os.WriteFile(seeds, []byte(testkit.JSONL(t, recs)), 0o644); err != nil {
		t.Fatal(err)
	}
	// One fake model behind both servers: it knows each seed's versions.
	w := llmtest.New(llmtest.Options{Reply: model.Reply})
	defer w.Close()
	j := llmtest.New(llmtest.Options{Reply: model.Reply})
	defer j.Close()
	models := modelsFile(t, map[string]string{"w": w.URL, "j": j.URL})
	code, out, stderr := runWith(Ngrefine, nil, "", seeds, "--models", models, "--role", "rewriter=w", "--judge", "j", "--no-cache")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if j.Count() == 0 {
		t.Fatal("the judge got no request")
	}
	for _, r := range j.Requests() {
		if refinetest.Kind(&r.Request) == refinetest.Rewrite {
			t.Fatal("a rewrite went to the judge")
		}
	}
	for _, r := range w.Requests() {
		if k := refinetest.Kind(&r.Request); k != refinetest.Rewrite {
			t.Fatalf("a %s call went to the rewriter", k)
		}
	}
	var rec record.Record
	if err := rec.UnmarshalJSON([]byte(strings.SplitN(out, "\n", 2)[0])); err != nil || rec.Gen[0].Role != roles.Judge || rec.Gen[0].Endpoint != "j" {
		t.Fatalf("gen %+v (%v)", rec.Gen, err)
	}
	if strings.Contains(stderr, "grades its own rewrites") {
		t.Errorf("a note with a judge of its own: %s", stderr)
	}
	_, _, stderr = runWith(Ngrefine, nil, "", seeds, "--models", models, "--role", "rewriter=w", "--judge", "w", "--no-cache")
	if strings.Count(stderr, "the judge is the rewriter's endpoint (w), so it grades its own rewrites") != 1 {
		t.Errorf("no note, or more than one: %s", stderr)
	}
}

// The programs' roles and roles.Names are one vocabulary: every role a
// program has is known to a models file, and every known role is some
// program's (a models file's misspelt role is caught against that list).
func TestRoleNamesAreTheProgramsRoles(t *testing.T) {
	used := map[string]bool{}
	for _, rs := range [][]roles.Role{ngseedRoles, ngv2rRoles, ngrefineRoles, nglabelRoles, ngpactRoles, ngsimRoles} {
		for _, r := range rs {
			used[r.Name] = true
			if !slices.Contains(roles.Names, r.Name) {
				t.Errorf("role %q is not in roles.Names", r.Name)
			}
		}
	}
	for _, n := range roles.Names {
		if !used[n] {
			t.Errorf("roles.Names has %q, which no program has", n)
		}
	}
}
