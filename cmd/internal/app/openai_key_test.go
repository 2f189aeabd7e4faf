package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// OPENAI_API_KEY goes only to OpenAI or to $OPENAI_BASE_URL; any other
// server gets NG_API_KEY or a named variable.
func TestOpenAIKeyOnlyToOpenAI(t *testing.T) {
	for _, c := range []struct {
		name     string
		vars     map[string]string
		args     []string
		key      string // the key sent ("" none)
		withheld bool
	}{
		{"third party by NG_BASE_URL", map[string]string{"NG_BASE_URL": "https://llm.example.com/v1", "OPENAI_API_KEY": "ok"}, nil, "", true},
		{"third party by flag", map[string]string{"OPENAI_API_KEY": "ok"}, []string{"--base-url", "http://localhost:9/v1"}, "", true},
		{"look-alike host", map[string]string{"OPENAI_API_KEY": "ok"}, []string{"--base-url", "https://api.openai.com.evil.example/v1"}, "", true},
		{"plain http to OpenAI's name", map[string]string{"OPENAI_API_KEY": "ok"}, []string{"--base-url", "http://api.openai.com/v1"}, "", true},
		{"OpenAI by flag", map[string]string{"OPENAI_API_KEY": "ok"}, []string{"--base-url", "https://api.openai.com/v1"}, "ok", false},
		{"OpenAI by default", map[string]string{"OPENAI_API_KEY": "ok"}, nil, "ok", false},
		{"OPENAI_BASE_URL", map[string]string{"OPENAI_BASE_URL": "http://proxy/v1", "OPENAI_API_KEY": "ok"}, nil, "ok", false},
		{"NG_BASE_URL equal to OPENAI_BASE_URL", map[string]string{"NG_BASE_URL": "http://proxy/v1/", "OPENAI_BASE_URL": "http://proxy/v1", "OPENAI_API_KEY": "ok"}, nil, "ok", false},
		{"NG_API_KEY to any server", map[string]string{"NG_BASE_URL": "https://llm.example.com/v1", "NG_API_KEY": "ng", "OPENAI_API_KEY": "ok"}, nil, "ng", false},
		{"--api-key-env OPENAI_API_KEY is explicit", map[string]string{"NG_BASE_URL": "https://llm.example.com/v1", "OPENAI_API_KEY": "ok"}, []string{"--api-key-env", "OPENAI_API_KEY"}, "ok", false},
	} {
		c.vars["NG_MODEL"] = "m"
		cfg, err := resolve(t, c.vars, c.args...)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := cfg.APIKey.IsSet(); got != (c.key != "") || (c.key != "" && !cfg.APIKey.Is(c.key)) {
			t.Errorf("%s: key set %v, want %q", c.name, got, c.key)
		}
		if (cfg.KeyWithheld != "") != c.withheld {
			t.Errorf("%s: KeyWithheld %q", c.name, cfg.KeyWithheld)
		}
	}
}

// A local server that wants a key sees no Authorization header when only
// OPENAI_API_KEY is set, and its 401 says why in the record's one line.
func TestOpenAIKeyWithheld401(t *testing.T) {
	dir := t.TempDir()
	in := writeRecords(t, dir, 2)
	srv := llmtest.New(llmtest.Options{APIKey: testKey, Reply: koReply})
	defer srv.Close()
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake", "OPENAI_API_KEY": testKey}
	code, _, stderr := run(t, vars, "--no-cache", "--max-retries", "0", "-o", filepath.Join(dir, "out.jsonl"), in)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	for _, r := range srv.Requests() {
		if h := r.Header.Get("Authorization"); h != "" {
			t.Fatalf("the OpenAI key went to a local server: Authorization %q", h)
		}
	}
	if len(srv.Requests()) == 0 {
		t.Fatal("no request reached the server")
	}
	want := "no key sent: OPENAI_API_KEY goes only to api.openai.com or $OPENAI_BASE_URL; set NG_API_KEY"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}
