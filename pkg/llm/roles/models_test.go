package roles

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/llm/usage"
)

const goodModels = `# two endpoints and the roles of a pipeline
endpoints:
  gpt:
    base_url: https://api.openai.com/v1
    model: gpt-4.1
    api_key_env: OPENAI_API_KEY
    concurrency: 32
    rpm: 500
    tpm: 200000
    timeout: 90s
    temperature: 0.7
    top_p: 0.95
    max_tokens: 2000
    seed: 7
    response_format: json_schema
    prices: {input: 2.0, output: 8.0}
  local-judge:
    base_url: http://localhost:8000/v1
    model: Qwen/Qwen2.5-7B-Instruct
    concurrency: auto
roles:
  judge: local-judge
  nglabel.labeller: [gpt, local-judge, default]
`

func TestParseModels(t *testing.T) {
	m, err := ParseModels("models.yaml", []byte(goodModels))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Aliases, ",") != "gpt,local-judge" {
		t.Fatalf("aliases %v", m.Aliases)
	}
	g := m.Endpoints["gpt"]
	if g.BaseURL != "https://api.openai.com/v1" || g.Model != "gpt-4.1" || g.APIKeyEnv != "OPENAI_API_KEY" || g.Line != 3 ||
		g.Concurrency != 32 || g.ConcurrencyAuto || *g.RPM != 500 || *g.TPM != 200000 || *g.Timeout != 90*time.Second ||
		*g.Temperature != 0.7 || *g.TopP != 0.95 || *g.MaxTokens != 2000 || *g.Seed != 7 || g.ResponseFormat != "json_schema" ||
		*g.Price != (usage.Price{Input: 2, Output: 8}) {
		t.Errorf("gpt: %+v", g)
	}
	l := m.Endpoints["local-judge"]
	if !l.ConcurrencyAuto || l.RPM != nil || l.Temperature != nil || l.Price != nil || l.APIKeyEnv != "" {
		t.Errorf("local-judge: %+v", l)
	}
	if len(m.Roles) != 2 || m.Roles[0].Program != "" || m.Roles[0].Role != "judge" || m.Roles[0].Line != 22 || strings.Join(m.Roles[0].Aliases, ",") != "local-judge" ||
		m.Roles[1].Program != "nglabel" || m.Roles[1].Role != "labeller" || strings.Join(m.Roles[1].Aliases, ",") != "gpt,local-judge,default" {
		t.Errorf("roles %+v", m.Roles)
	}
}

// Every bad file is one line naming the file and the line of the fault.
func TestParseModelsErrors(t *testing.T) {
	ep := "endpoints:\n  a:\n    base_url: http://localhost:1/v1\n    model: m\n"
	for _, c := range []struct{ name, file, want string }{
		{"unknown key", ep + "    temprature: 0.5\n", `m.yaml:5: endpoint a: unknown key "temprature"`},
		{"unknown top key", "endpoint:\n  a: {}\n", `m.yaml:1: unknown key "endpoint" at the top`},
		{"missing model", "endpoints:\n  a:\n    base_url: http://x/v1\n", "m.yaml:2: endpoint a: no model"},
		{"missing url", "endpoints:\n  a:\n    model: m\n", "m.yaml:2: endpoint a: no base_url"},
		{"bad url", "endpoints:\n  a:\n    model: m\n    base_url: localhost:8000\n", `m.yaml:4: endpoint a: base_url: "localhost:8000" is not an http(s) URL`},
		{"ftp url", "endpoints:\n  a:\n    model: m\n    base_url: ftp://x/v1\n", "m.yaml:4: endpoint a: base_url:"},
		{"user in url", "endpoints:\n  a:\n    model: m\n    base_url: http://me:pw@x/v1\n", "m.yaml:4: endpoint a: base_url: no user or password"},
		{"key in file", ep + "    api_key: abc\n", "m.yaml:5: endpoint a: api_key: a models file never holds a key"},
		{"key value", ep + "    api_key_env: sk-proj-abcdefghijklmnopqrstuvwx\n", "m.yaml:5: this looks like an API key"},
		{"key anywhere", "# sk-abcdefghijklmnopqrstuvwxyz012345\n" + ep, "m.yaml:1: this looks like an API key"},
		{"env not a name", ep + "    api_key_env: my key\n", "m.yaml:5: endpoint a: api_key_env: api_key_env must name an environment variable"},
		// A key of no known shape pasted as the variable's name is never
		// printed, not even in part.
		{"env is a key", ep + "    api_key_env: ZqXw9PlMnBvC8rTyUiOpAsDfGhJkL4e2\n", "m.yaml:5: endpoint a: api_key_env: api_key_env must name an environment variable"},
		{"concurrency", ep + "    concurrency: 0\n", `m.yaml:5: endpoint a: concurrency: "0": want a number of at least 1, or auto`},
		{"rpm", ep + "    rpm: -1\n", "m.yaml:5: endpoint a: rpm:"},
		{"timeout", ep + "    timeout: 5\n", `m.yaml:5: endpoint a: timeout: "5": want a positive duration`},
		{"top_p", ep + "    top_p: 2\n", "m.yaml:5: endpoint a: top_p:"},
		{"format", ep + "    response_format: xml\n", "m.yaml:5: endpoint a: response_format:"},
		{"prices", ep + "    prices: {input: 1}\n", "m.yaml:5: endpoint a: prices: want both input and output"},
		{"prices key", ep + "    prices: {input: 1, outptu: 2}\n", `m.yaml:5: endpoint a: prices: unknown key "outptu"`},
		{"twice", ep + "    model: n\n", "m.yaml:5: endpoint a: model given twice (first at line 4)"},
		{"alias twice", ep + "  a:\n    model: m\n", `m.yaml:5: alias "a" defined twice (first at line 2)`},
		{"reserved alias", "endpoints:\n  default:\n    model: m\n    base_url: http://x/v1\n", `m.yaml:2: alias "default" is reserved`},
		{"no endpoints", "roles:\n  judge: a\n", "m.yaml:1: no endpoints"},
		{"empty", "", "m.yaml: empty file"},
		{"not a mapping", "- a\n", "m.yaml:1: want a mapping"},
		{"syntax", "endpoints:\n  a: [\n", "m.yaml: "},
		{"role alias", ep + "roles:\n  judge: b\n", `m.yaml:6: roles: judge: unknown alias "b" (the file defines a)`},
		{"role alias in list", ep + "roles:\n  labeller:\n    - a\n    - c\n", `m.yaml:8: roles: labeller: unknown alias "c"`},
		{"role name", ep + "roles:\n  a.b.c: a\n", `m.yaml:6: roles: "a.b.c": want ROLE or PROGRAM.ROLE`},
		{"two docs", ep + "---\nendpoints: {}\n", "m.yaml:5: a second YAML document"},
	} {
		_, err := ParseModels("m.yaml", []byte(c.file))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s:\n got %q\nwant %q...", c.name, err, c.want)
		}
		if strings.Contains(err.Error(), "abcdefghijklmnop") || strings.Contains(err.Error(), "ZqXw") {
			t.Errorf("%s: the key is in the error: %q", c.name, err)
		}
	}
}

func TestLoadModelsMissingFile(t *testing.T) {
	_, err := LoadModels(filepath.Join(t.TempDir(), "none.yaml"))
	if err == nil || !strings.HasPrefix(err.Error(), "--models: ") {
		t.Fatalf("err %v", err)
	}
}

// The invariant of the models parser: whatever the bytes, it returns
// without panicking, either a file whose every endpoint has a model and
// an http(s) URL and whose roles name defined aliases, or one error line
// that starts with the file's name.
func FuzzParseModels(f *testing.F) {
	f.Add([]byte(goodModels))
	f.Add([]byte("endpoints:\n  a:\n    base_url: http://x/v1\n    model: m\n"))
	f.Add([]byte("endpoints: {a: {model: m, base_url: 'http://x', prices: {input: 1, output: 2}}}\nroles: {judge: [a]}"))
	f.Add([]byte("endpoints:\n  a: &x\n    model: m\n  b: *x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseModels("f.yaml", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q", err)
			}
			return
		}
		if len(m.Endpoints) == 0 || len(m.Aliases) != len(m.Endpoints) {
			t.Fatalf("endpoints %v", m.Aliases)
		}
		for _, e := range m.Endpoints {
			u, err := url.Parse(e.BaseURL)
			if e.Model == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				t.Fatalf("endpoint %+v", e)
			}
		}
		for _, r := range m.Roles {
			for _, a := range r.Aliases {
				if m.Endpoints[a] == nil && a != llm.DefaultAlias {
					t.Fatalf("role %+v: alias %q", r, a)
				}
			}
		}
	})
}

// An endpoint of model demo with no base_url is the built-in demo model:
// the program's Demo answers it, with no cache; without one it is an
// error, not a call to "".
func TestModelsDemoEndpoint(t *testing.T) {
	m, err := ParseModels("m.yaml", []byte("endpoints:\n  base: {model: demo, api: completions}\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := m.Endpoints["base"]
	client := &http.Client{}
	cfg, err := e.config(llm.Config{CacheDir: "/tmp/c", Demo: func() (string, *http.Client) { return "http://demo.invalid/v1", client }}, "m.yaml", func(string) string { return "" })
	if err != nil || cfg.BaseURL != "http://demo.invalid/v1" || cfg.HTTPClient != client || cfg.CacheDir != "" || cfg.API != llm.APICompletions {
		t.Errorf("%+v %v", cfg, err)
	}
	if _, err := e.config(llm.Config{}, "m.yaml", func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "m.yaml:2: endpoint base: no base_url") {
		t.Errorf("without a demo: %v", err)
	}
	if _, err := ParseModels("m.yaml", []byte("endpoints:\n  a: {model: demo2}\n")); err == nil {
		t.Error("model demo2 with no base_url accepted")
	}
}

// A models file's api: completions makes a base-model endpoint; only a
// role that takes base models (ngpact's subjects) may have one.
func TestModelsAPICompletions(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	models := writeModels(t, t.TempDir(), fmt.Sprintf("endpoints:\n  base:\n    base_url: %s\n    model: b\n    api: completions\n  inst:\n    base_url: %s\n    model: i\n", srv.URL, srv.URL))
	subj := []Role{{Name: Subject, Panel: true, BaseModels: true}}
	m, err := Open(Settings{Models: models, Assign: []Assignment{{Role: "subject", Aliases: []string{"base", "inst"}}}}, "ngpact", subj, llm.Config{}, errors.New("no endpoint"), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	p := m.Panel(Subject)
	if len(p) != 2 || p[0].API != llm.APICompletions || p[1].API == llm.APICompletions {
		t.Errorf("panel %+v", p)
	}
	m.Abort()
	_, err = Open(Settings{Models: models, Assign: []Assignment{{Role: "judge", Aliases: []string{"base"}}}}, "duo", duoRoles, llm.Config{}, errors.New("no endpoint"), func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "role judge=base: the endpoint uses api completions (a base model), which only ngpact's subjects") {
		t.Errorf("judge: %v", err)
	}
	ep := "endpoints:\n  a:\n    base_url: http://localhost:1/v1\n    model: m\n"
	if _, err := ParseModels("m.yaml", []byte(ep+"    api: text\n")); err == nil || !strings.HasPrefix(err.Error(), `m.yaml:5: endpoint a: api: "text": want chat or completions`) {
		t.Errorf("api text: %v", err)
	}
}
