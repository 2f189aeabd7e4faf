package app

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/spf13/pflag"
)

func resolve(t *testing.T, vars map[string]string, args ...string) (llm.Config, error) {
	t.Helper()
	var f LLMFlags
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f.Config(func(k string) string { return vars[k] })
}

// Flags first, then NG_*, then OPENAI_*.
func TestConfigOrder(t *testing.T) {
	all := map[string]string{"NG_BASE_URL": "http://ng/v1", "OPENAI_BASE_URL": "http://openai/v1", "NG_MODEL": "ng-model",
		"NG_API_KEY": "ng-key", "OPENAI_API_KEY": "openai-key", "MY_KEY": "my-key"}
	cfg, err := resolve(t, all, "--base-url", "http://flag/v1", "--model", "flag-model", "--api-key-env", "MY_KEY")
	if err != nil || cfg.BaseURL != "http://flag/v1" || cfg.Model != "flag-model" || !cfg.APIKey.Is("my-key") {
		t.Errorf("flags: %+v %v", cfg, err)
	}
	cfg, err = resolve(t, all)
	if err != nil || cfg.BaseURL != "http://ng/v1" || cfg.Model != "ng-model" || !cfg.APIKey.Is("ng-key") {
		t.Errorf("NG_*: %+v %v", cfg, err)
	}
	cfg, err = resolve(t, map[string]string{"OPENAI_BASE_URL": "http://openai/v1", "OPENAI_API_KEY": "openai-key", "NG_MODEL": "m"})
	if err != nil || cfg.BaseURL != "http://openai/v1" || !cfg.APIKey.Is("openai-key") {
		t.Errorf("OPENAI_*: %+v %v", cfg, err)
	}
	// A key alone means OpenAI.
	cfg, err = resolve(t, map[string]string{"OPENAI_API_KEY": "k", "NG_MODEL": "gpt-4o-mini"})
	if err != nil || cfg.BaseURL != llm.OpenAIBaseURL {
		t.Errorf("OpenAI default: %+v %v", cfg, err)
	}
	// A local server needs no key.
	cfg, err = resolve(t, nil, "--base-url", "http://localhost:11434/v1", "--model", "llama3.1")
	if err != nil || cfg.APIKey.IsSet() {
		t.Errorf("Ollama: %+v %v", cfg, err)
	}
	if _, err := resolve(t, all, "--api-key-env", "UNSET_VAR"); err == nil || !strings.Contains(err.Error(), "UNSET_VAR is empty or not set") {
		t.Errorf("--api-key-env of an unset variable: %v", err)
	}
	// A key pasted as the variable's name is never printed.
	if _, err := resolve(t, all, "--api-key-env", "ZqXw9PlMnBvC8rTyUiOpAsDfGhJkL4e2"); err == nil ||
		!strings.Contains(err.Error(), "must name an environment variable") || strings.Contains(err.Error(), "ZqXw") {
		t.Errorf("--api-key-env of a key: %v", err)
	}
	cfg, _ = resolve(t, all, "--temperature", "0", "--seed", "3", "--max-tokens", "99")
	if cfg.Sampling.Temperature == nil || *cfg.Sampling.Temperature != 0 || cfg.Sampling.TopP != nil || *cfg.Sampling.Seed != 3 || cfg.Sampling.MaxTokens != 99 {
		t.Errorf("sampling: %+v", cfg.Sampling)
	}
}

// No endpoint or model: one line that says how to set them, exit 2.
func TestMissingEndpointIsUsageError(t *testing.T) {
	code, stdout, stderr := run(t, nil, "x.jsonl")
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 2 || stdout != "" || len(lines) != 1 || !strings.Contains(stderr, "http://localhost:11434/v1") ||
		!strings.Contains(stderr, "OPENAI_API_KEY") || !strings.Contains(stderr, "--model") {
		t.Errorf("exit %d: %q", code, stderr)
	}
	code, _, stderr = run(t, map[string]string{"NG_BASE_URL": "http://localhost:11434/v1"}, "x.jsonl")
	if code != 2 || strings.Contains(stderr, "endpoint") || !strings.Contains(stderr, "no model") {
		t.Errorf("model only: exit %d: %q", code, stderr)
	}
	code, _, stderr = run(t, map[string]string{"NG_BASE_URL": "localhost:11434", "NG_MODEL": "m"}, "x.jsonl")
	if code != 2 || !strings.Contains(stderr, "want an http(s) URL") {
		t.Errorf("bad URL: exit %d: %q", code, stderr)
	}
}

// --help lists the shared flags and shows nothing from the environment.
func TestHelp(t *testing.T) {
	code, stdout, _ := run(t, map[string]string{"NG_API_KEY": testKey, "NG_BASE_URL": "http://secret-host/v1"}, "--help")
	for _, flag := range []string{"--base-url", "--model", "--api-key-env", "--temperature", "--top-p", "--max-tokens", "--seed",
		"--concurrency", "--rpm", "--tpm", "--timeout", "--deadline", "--max-retries", "--retry-after-cap", "--cache", "--no-cache",
		"--usage-json", "--prices", "--emit-requests", "--responses", "--resume", "--response-format"} {
		if !strings.Contains(stdout, flag+" ") && !strings.Contains(stdout, flag+"[") {
			t.Errorf("--help lacks %s", flag)
		}
	}
	if code != 0 || strings.Contains(stdout, testKey) || strings.Contains(stdout, "secret-host") {
		t.Errorf("exit %d", code)
	}
}

// --concurrency takes a number or auto (the slots are read by the client:
// TestConcurrencyAutoReadsSlots in pkg/llm).
func TestConcurrencyFlag(t *testing.T) {
	vars := map[string]string{"NG_BASE_URL": "http://localhost:8080/v1", "NG_MODEL": "m"}
	if cfg, err := resolve(t, vars, "--concurrency", "auto"); err != nil || !cfg.ConcurrencyAuto {
		t.Errorf("--concurrency auto: %v %+v", err, cfg)
	}
	if cfg, err := resolve(t, vars); err != nil || cfg.ConcurrencyAuto || cfg.Concurrency != 16 {
		t.Errorf("default: %v %+v", err, cfg)
	}
	var f LLMFlags
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse([]string{"--concurrency", "many"}); err == nil {
		t.Error("--concurrency many accepted")
	}
}
