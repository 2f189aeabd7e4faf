package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/llm/usage"
	"github.com/ngkit/ngkit/pkg/record"
)

// duoRoles are the roles of the test program duo: a writer and a judge.
var duoRoles = []roles.Role{{Name: roles.Writer, Help: "writes the sentence"}, {Name: roles.Judge, Help: "judges it"}}

// duoStage writes a Korean sentence with the writer and has the judge
// call too, each through its role's endpoint.
type duoStage struct{ writer, judge llm.Caller }

func (duoStage) Name() string { return "duo" }

func (s duoStage) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	for _, c := range []struct {
		call   string
		caller llm.Caller
	}{{"write", s.writer}, {"judge", s.judge}} {
		resp, err := c.caller.Call(ctx, llm.Request{ID: rec.ID, Call: c.call, Schema: "echo",
			Messages: []llm.Message{llm.System("Write one Korean sentence about the scenario the user gives."), llm.User(rec.Scenario)}, Check: koreanCheck})
		if err != nil {
			return nil, err
		}
		rec.Gen = append(rec.Gen, resp.Gen)
	}
	return []*record.Record{rec}, nil
}

func duo(env Env) error {
	p := NewLLMProgram("duo", "two roles (test program)", "[flags] [FILE...]").WithRoles(duoRoles)
	return p.Run(env, func(b *Build) (RunSpec, error) {
		m := b.Models
		if err := m.Need(roles.Writer, roles.Judge); err != nil {
			return RunSpec{}, err
		}
		return RunSpec{Stage: duoStage{m.Caller(roles.Writer), m.Caller(roles.Judge)}}, nil
	})
}

func runDuo(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }}
	code = Exit(env, duo(env))
	return code, out.String(), errb.String()
}

func koFake(t *testing.T, opt llmtest.Options) *llmtest.Server {
	opt.Reply = koReply
	srv := llmtest.New(opt)
	t.Cleanup(srv.Close)
	return srv
}

func writeModels(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, "models.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Two roles on two fake servers: every call goes to its role's endpoint,
// gen names the role and the alias, the usage report has each endpoint
// with its roles, and the key of each endpoint goes only to its server.
func TestRolesOnTwoEndpoints(t *testing.T) {
	dir := t.TempDir()
	w := koFake(t, llmtest.Options{APIKey: "key-of-writer-0123456789"})
	j := koFake(t, llmtest.Options{APIKey: "key-of-judge-0123456789"})
	models := writeModels(t, dir, fmt.Sprintf(`endpoints:
  w:
    base_url: %s/v1
    model: writer-model
    api_key_env: W_KEY
    concurrency: 3
    prices: {input: 1, output: 2}
  j:
    base_url: %s/v1
    model: judge-model
    api_key_env: J_KEY
    temperature: 0
roles:
  writer: w
`, w.URL, j.URL))
	in := writeRecords(t, dir, 5)
	out := filepath.Join(dir, "out.jsonl")
	vars := map[string]string{"W_KEY": "key-of-writer-0123456789", "J_KEY": "key-of-judge-0123456789"}
	code, _, stderr := runDuo(t, vars, "--models", models, "--judge", "j", in, "-o", out, "--no-cache", "-v", "--usage-json", filepath.Join(dir, "u.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if w.Count() != 5 || j.Count() != 5 {
		t.Fatalf("writer got %d requests, judge %d; want 5 each", w.Count(), j.Count())
	}
	for _, r := range j.Requests() {
		if r.Request.Model != "judge-model" || r.Request.Temperature == nil || *r.Request.Temperature != 0 {
			t.Fatalf("judge request: model %q temperature %v", r.Request.Model, r.Request.Temperature)
		}
	}
	for _, rec := range readRecords(t, out) {
		if len(rec.Gen) != 2 {
			t.Fatalf("%s: gen %+v", rec.ID, rec.Gen)
		}
		g0, g1 := rec.Gen[0], rec.Gen[1]
		if g0.Role != roles.Writer || g0.Endpoint != "w" || g0.Model != "writer-model" ||
			g1.Role != roles.Judge || g1.Endpoint != "j" || g1.Model != "judge-model" {
			t.Fatalf("%s: gen %+v", rec.ID, rec.Gen)
		}
	}
	var u usage.Report
	b, _ := os.ReadFile(filepath.Join(dir, "u.json"))
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatal(err)
	}
	if len(u.Endpoints) != 2 || u.Total.Calls != 10 || u.ByRole[roles.Writer].Calls != 5 || u.ByRole[roles.Judge].Calls != 5 {
		t.Fatalf("usage %s", b)
	}
	e0, e1 := u.Endpoints[0], u.Endpoints[1]
	if e0.Alias != "w" || e0.Concurrency != 3 || !e0.Priced || e0.ByRole[roles.Writer].Calls != 5 || e0.ByRole[roles.Judge] != nil ||
		e1.Alias != "j" || e1.Priced || e1.ByRole[roles.Judge].Calls != 5 || u.Priced {
		t.Fatalf("usage by endpoint %s", b)
	}
	if want := (float64(e0.Total.TokensIn)*1 + float64(e0.Total.TokensOut)*2) / 1e6; e0.Total.CostUSD != want || e0.Total.TokensIn == 0 {
		t.Fatalf("writer cost %v, want %v", e0.Total.CostUSD, want)
	}
	for _, l := range []string{"duo: llm over 2 endpoints", "duo:   endpoint w (writer-model at", "duo:     role writer: 5 calls answered", "duo:     role judge: 5 calls answered"} {
		if !strings.Contains(stderr, l) {
			t.Errorf("summary lacks %q:\n%s", l, stderr)
		}
	}
	if strings.Contains(stderr+string(b), "0123456789") {
		t.Fatal("a key is in the output")
	}
}

// Without a models file the one endpoint of the flags serves every role,
// as before roles existed: gen says default.
func TestRolesWithoutModelsFile(t *testing.T) {
	dir := t.TempDir()
	srv := koFake(t, llmtest.Options{})
	in := writeRecords(t, dir, 3)
	out := filepath.Join(dir, "out.jsonl")
	code, _, stderr := runDuo(t, map[string]string{"NG_BASE_URL": srv.URL + "/v1", "NG_MODEL": "m", "HOME": dir}, in, "-o", out, "--no-cache", "--usage-json", filepath.Join(dir, "u.json"))
	if code != 0 || srv.Count() != 6 {
		t.Fatalf("exit %d, %d requests: %s", code, srv.Count(), stderr)
	}
	for _, rec := range readRecords(t, out) {
		if rec.Gen[0].Endpoint != llm.DefaultAlias || rec.Gen[1].Endpoint != llm.DefaultAlias || rec.Gen[1].Role != roles.Judge {
			t.Fatalf("gen %+v", rec.Gen)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "u.json"))
	var u usage.Report
	if err := json.Unmarshal(b, &u); err != nil || u.Endpoints != nil || u.Model != "m" || u.Total.Calls != 6 || u.ByRole[roles.Judge].Calls != 3 {
		t.Fatalf("usage %s (%v)", b, err)
	}
}

// Bad roles stop the run before any call: exit 2 and one line naming the
// role and the alias.
func TestRolesBadAssignments(t *testing.T) {
	dir := t.TempDir()
	srv := koFake(t, llmtest.Options{})
	models := writeModels(t, dir, fmt.Sprintf("endpoints:\n  j:\n    base_url: %s/v1\n    model: jm\n    api_key_env: J_KEY\n  k:\n    base_url: %s/v1\n    model: km\n", srv.URL, srv.URL))
	in := writeRecords(t, dir, 2)
	flags := map[string]string{"NG_BASE_URL": srv.URL + "/v1", "NG_MODEL": "m"}
	for _, c := range []struct {
		name string
		vars map[string]string
		args []string
		want string
	}{
		{"unknown alias", flags, []string{"--models", models, "--judge", "gpt"}, `duo: --judge gpt: unknown alias "gpt" (` + models + " defines j, k)"},
		{"unknown role", flags, []string{"--models", models, "--role", "labeller=k"}, `duo: --role labeller=k: duo has no role "labeller" (its roles: writer, judge)`},
		{"unset key", flags, []string{"--models", models, "--judge", "j"}, "duo: role judge=j: the variable J_KEY (api_key_env of j at " + models + ":2) is empty or not set"},
		{"no models file", flags, []string{"--judge", "k"}, `duo: --judge k: unknown alias "k": no models file`},
		{"two aliases", flags, []string{"--models", models, "--role", "judge=j,k"}, "duo: --role judge=j,k: role judge takes one alias"},
		{"twice", flags, []string{"--models", models, "--judge", "k", "--role", "judge=k"}, "duo: --judge k and --role judge=k: the role is given twice"},
		{"no default", map[string]string{}, []string{"--models", models, "--judge", "k"}, "duo: role writer has no endpoint (give --role writer=ALIAS, a roles entry in " + models},
		{"no endpoint at all", map[string]string{}, nil, "duo: no LLM endpoint"},
		{"models via env", map[string]string{"NG_MODELS": filepath.Join(dir, "none.yaml")}, nil, "duo: --models: open " + filepath.Join(dir, "none.yaml")},
	} {
		code, _, stderr := runDuo(t, c.vars, append(c.args, in, "--no-cache")...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], c.want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant one line starting %q", c.name, code, stderr, c.want)
		}
	}
	if srv.Count() != 0 {
		t.Fatalf("%d requests were made", srv.Count())
	}
}

// The roles section of a models file: PROGRAM.ROLE before ROLE, --role
// over both, another program's role ignored, an unknown role an error.
func TestRolesFromModelsFile(t *testing.T) {
	dir := t.TempDir()
	a, b := koFake(t, llmtest.Options{}), koFake(t, llmtest.Options{})
	eps := fmt.Sprintf("endpoints:\n  a:\n    base_url: %s/v1\n    model: am\n  b:\n    base_url: %s/v1\n    model: bm\n", a.URL, b.URL)
	in := writeRecords(t, dir, 2)
	for _, c := range []struct {
		name, roles string
		args        []string
		wantA       int
		err         string
	}{
		{"every program's", "roles:\n  writer: a\n  judge: b\n  labeller: [a, b]\n", nil, 2, ""},
		{"the program's first", "roles:\n  judge: a\n  duo.judge: b\n  writer: b\n", nil, 0, ""},
		{"flag over file", "roles:\n  writer: b\n  judge: b\n", []string{"--role", "writer=a"}, 2, ""},
		{"unknown role", "roles:\n  writer: a\n  jduge: b\n", nil, 0, `:10: roles: duo has no role "jduge" (its roles: writer, judge)`},
		{"unknown program role", "roles:\n  writer: a\n  judge: b\n  duo.labeller: a\n", nil, 0, `:11: roles: duo has no role "labeller"`},
		{"panel of one-alias role", "roles:\n  writer: [a, b]\n  judge: b\n", nil, 0, ":9: roles: writer takes one alias, not 2"},
	} {
		na, nb := a.Count(), b.Count()
		models := writeModels(t, dir, eps+c.roles)
		code, _, stderr := runDuo(t, map[string]string{}, append(c.args, "--models", models, in, "--no-cache", "-o", filepath.Join(dir, "o.jsonl"))...)
		if c.err != "" {
			if code != 2 || !strings.Contains(stderr, models+c.err) {
				t.Errorf("%s: exit %d: %s", c.name, code, stderr)
			}
			continue
		}
		if code != 0 || a.Count()-na != c.wantA || b.Count()-nb != 4-c.wantA {
			t.Errorf("%s: exit %d, a %d b %d requests: %s", c.name, code, a.Count()-na, b.Count()-nb, stderr)
		}
	}
}

// Two aliases of one server and one model never share cache entries; the
// flags' endpoint keeps the cache keys it had before roles.
func TestRolesCacheKeyedByAlias(t *testing.T) {
	dir := t.TempDir()
	srv := koFake(t, llmtest.Options{})
	models := writeModels(t, dir, fmt.Sprintf("endpoints:\n  a:\n    base_url: %s/v1\n    model: m\n  b:\n    base_url: %s/v1\n    model: m\n", srv.URL, srv.URL))
	in := writeRecords(t, dir, 2)
	cache := filepath.Join(dir, "cache")
	run := func(args ...string) {
		t.Helper()
		code, _, stderr := runDuo(t, map[string]string{"NG_BASE_URL": srv.URL + "/v1", "NG_MODEL": "m"}, append(args, "--models", models, in, "--cache", cache, "-o", filepath.Join(dir, "o.jsonl"))...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	run("--role", "writer=a", "--judge", "a")
	if srv.Count() != 2 { // the judge's request is the writer's: from the cache
		t.Fatalf("%d requests, want 2", srv.Count())
	}
	run("--role", "writer=b", "--judge", "b")
	if srv.Count() != 4 {
		t.Fatalf("alias b answered from alias a's cache: %d requests, want 4", srv.Count())
	}
	run("--role", "writer=a", "--judge", "b")
	if srv.Count() != 4 {
		t.Fatalf("%d requests, want 4 (all cached)", srv.Count())
	}
}
