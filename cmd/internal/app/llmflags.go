package app

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
)

// LLMFlags are the LLM options every generating and labelling program
// shares, registered once by Register.
type LLMFlags struct {
	BaseURL, Model, APIKeyEnv string
	Temperature, TopP         float64
	MaxTokens                 int
	Seed                      int64
	Concurrency               Concurrency
	RPM, TPM                  int
	Timeout, Deadline         time.Duration
	MaxRetries, MaxReasks     int
	Backoff, RetryAfterCap    time.Duration
	WaitServer                time.Duration
	ResponseFormat            string
	Cache                     string
	NoCache                   bool
	UsageJSON, Prices         string
	Verbose                   bool
	EmitRequests, Responses   string
	Batch                     BatchFlags
	Budget                    float64
	Estimate                  bool
	// API is ngpact's --api (llm.APIChat or llm.APICompletions): other
	// programs leave it empty, chat.
	API string
	// Demo is the built-in demo model (Env.Demo), nil when main gave none:
	// then --model demo with no base URL is a model like any other.
	Demo func() (baseURL string, client *http.Client)

	fs *pflag.FlagSet
}

// Register adds the LLM flags to fs. Nothing is read from the
// environment here: --help shows no endpoint, model or key.
func (f *LLMFlags) Register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.BaseURL, "base-url", "", "OpenAI-compatible endpoint `URL` (default $NG_BASE_URL, else $OPENAI_BASE_URL, else OpenAI when a key is set); Ollama: http://localhost:11434/v1")
	fs.StringVar(&f.Model, "model", "", "model `NAME` (default $NG_MODEL); demo, with no base URL: the built-in offline demo model (bundled release text, not a real model)")
	fs.StringVar(&f.APIKeyEnv, "api-key-env", "", "read the API key from environment variable `VAR` (default $NG_API_KEY, else $OPENAI_API_KEY, which is sent only to OpenAI or $OPENAI_BASE_URL); the key itself is never a flag")
	fs.Float64Var(&f.Temperature, "temperature", 0, "sampling temperature `T` (default: the server's)")
	fs.Float64Var(&f.TopP, "top-p", 0, "nucleus sampling `P` (default: the server's)")
	fs.IntVar(&f.MaxTokens, "max-tokens", 0, "most tokens per reply, `N` (default: the server's)")
	fs.Int64Var(&f.Seed, "seed", 0, "sampling seed `N`, for servers that honour it (default: none)")
	f.Concurrency = Concurrency{N: 16}
	fs.Var(&f.Concurrency, "concurrency", "most calls in flight, `N`, or auto: the server's slots (llama-server's /props); 429s, timeouts or replies slower than half of --timeout in a quarter of the recent calls halve it for a while (twice it is the number of workers unless -j is given)")
	fs.IntVar(&f.RPM, "rpm", 0, "most requests per minute, `N` (0: no limit)")
	fs.IntVar(&f.TPM, "tpm", 0, "most tokens per minute, `N`, estimated before each call and corrected with the usage returned (0: no limit)")
	fs.DurationVar(&f.Timeout, "timeout", 2*time.Minute, "give up on one request after `D` (it is retried)")
	fs.DurationVar(&f.Deadline, "deadline", 0, "stop calling after `D` for the whole run; records not done go to the errors file, for --resume (0: none)")
	fs.IntVar(&f.MaxRetries, "max-retries", 6, "retries of one call, `N`, on 429, 5xx, timeouts, dropped connections, cut or empty replies, leaked reasoning and failed checks")
	fs.IntVar(&f.MaxReasks, "max-reasks", 2, "times an invalid reply (schema or the stage's checks) is asked again with the reason, `N` in all; a reply still invalid is then tried afresh, within --max-retries")
	fs.DurationVar(&f.Backoff, "backoff", time.Second, "wait `D` before the first retry, doubled at each one, with jitter")
	fs.DurationVar(&f.RetryAfterCap, "retry-after-cap", time.Minute, "wait at most `D` before a retry, whatever the server's Retry-After says")
	fs.DurationVar(&f.WaitServer, "wait-server", 2*time.Minute, "when a server that answered refuses connections (a restart), wait up to `D` for it before calls fail (0: do not wait); a server never reached fails at once")
	fs.StringVar(&f.ResponseFormat, "response-format", "auto", "structured replies: `MODE` auto (json_schema, stepping down to json_object, then to the schema in the prompt, when the server cannot use it), json_schema, json_object or prompt")
	fs.StringVar(&f.Cache, "cache", "", "reply cache `DIR` (default: ngkit/llm under the user cache directory)")
	fs.BoolVar(&f.NoCache, "no-cache", false, "neither read nor write the reply cache")
	fs.StringVar(&f.UsageJSON, "usage-json", "", "write calls, tokens and estimated cost to `FILE` (JSON) at the end")
	fs.BoolVarP(&f.Verbose, "verbose", "v", false, "the usage summary also per call (per role with several endpoints), and why a cost is not estimated")
	fs.StringVar(&f.Prices, "prices", "", "price table `FILE`, JSON {\"model\": {\"input\": USD, \"output\": USD}} per million tokens, over the built-in one")
	fs.StringVar(&f.EmitRequests, "emit-requests", "", "write the calls to `FILE` as OpenAI Batch API input (custom_id = record id/call) instead of calling")
	fs.StringVar(&f.Responses, "responses", "", "answer the calls from `FILE`, an OpenAI Batch output file (or recorded replies); calls it does not answer fail")
	f.Batch.register(fs) // batch.go
	f.registerSpend(fs)  // spend.go
}

// Config resolves the flags and the environment (getenv) into a client
// configuration. Order: flags, then NG_*, then OPENAI_*. A missing
// endpoint or model is an error of one line that says how to set it.
func (f *LLMFlags) Config(getenv func(string) string) (llm.Config, error) {
	cfg := llm.Config{
		Concurrency: f.Concurrency.N, ConcurrencyAuto: f.Concurrency.Auto, RPM: f.RPM, TPM: f.TPM,
		Timeout: f.Timeout, Deadline: f.Deadline,
		MaxRetries: f.MaxRetries, MaxReasks: f.MaxReasks,
		Backoff: f.Backoff, RetryAfterCap: f.RetryAfterCap, WaitServer: f.WaitServer,
		ResponseFormat: f.ResponseFormat, API: f.API,
		UsageJSON: f.UsageJSON, Prices: f.Prices, Verbose: f.Verbose,
		EmitRequests: f.EmitRequests, Responses: f.Responses,
		Batch: f.Batch.On || f.Estimate, // --estimate: a pass that only collects the requests
	}
	budget, err := f.budget()
	if err != nil {
		return cfg, err
	}
	cfg.Budget = budget
	f.sampling(&cfg.Sampling)
	if err := f.endpoint(&cfg, getenv); err != nil {
		return cfg, err
	}
	if err := f.check(); err != nil {
		return cfg, err
	}
	if !f.NoCache {
		cfg.CacheDir = f.Cache
		if cfg.CacheDir == "" {
			d, err := llm.DefaultCacheDir()
			if err != nil {
				return cfg, fmt.Errorf("no user cache directory (%v): give --cache DIR or --no-cache", err)
			}
			cfg.CacheDir = d
		}
	}
	return cfg, nil
}

// sampling sets what the sampling flags given say.
func (f *LLMFlags) sampling(sp *llm.Sampling) {
	changed := func(name string) bool { return f.fs != nil && f.fs.Changed(name) }
	if changed("temperature") {
		t := f.Temperature
		sp.Temperature = &t
	}
	if changed("top-p") {
		p := f.TopP
		sp.TopP = &p
	}
	if changed("seed") {
		s := f.Seed
		sp.Seed = &s
	}
	sp.MaxTokens = f.MaxTokens
}

// endpoint resolves the endpoint, the model and the API key of cfg; a
// missing endpoint or model is an error that says how to set it.
func (f *LLMFlags) endpoint(cfg *llm.Config, getenv func(string) string) error {
	key := ""
	if f.APIKeyEnv != "" {
		if !roles.ValidEnvName(f.APIKeyEnv) {
			return errors.New("--api-key-env: " + roles.ErrAPIKeyEnvName)
		}
		if key = getenv(f.APIKeyEnv); key == "" {
			return fmt.Errorf("--api-key-env %s: the variable %s is empty or not set", f.APIKeyEnv, f.APIKeyEnv)
		}
	} else {
		key = getenv("NG_API_KEY")
	}
	openaiKey := getenv("OPENAI_API_KEY")
	cfg.BaseURL = first(f.BaseURL, getenv("NG_BASE_URL"), getenv("OPENAI_BASE_URL"))
	cfg.Model = first(f.Model, getenv("NG_MODEL"))
	cfg.Demo = f.Demo
	if cfg.BaseURL == "" && cfg.Model == record.DemoModel && f.Demo != nil {
		// The built-in demo model, answered in-process (cmd/internal/demo);
		// its replies are not worth a cache.
		cfg.BaseURL, cfg.HTTPClient = f.Demo()
		f.NoCache = true
	}
	offline := f.Responses != "" || f.EmitRequests != "" || f.Estimate
	if cfg.BaseURL == "" && (key != "" || openaiKey != "" || offline) {
		cfg.BaseURL = llm.OpenAIBaseURL
	}
	// OPENAI_API_KEY goes only to OpenAI or $OPENAI_BASE_URL: a
	// --base-url / NG_BASE_URL server (maybe a third party's) never sees it.
	if key == "" && f.APIKeyEnv == "" && openaiKey != "" {
		if llm.OpenAIKeyAllowed(cfg.BaseURL, getenv("OPENAI_BASE_URL")) {
			key = openaiKey
		} else {
			cfg.KeyWithheld = "OPENAI_API_KEY"
		}
	}
	cfg.APIKey = llm.NewSecret(key)
	var missing []string
	if cfg.BaseURL == "" {
		missing = append(missing, "no LLM endpoint: set OPENAI_API_KEY for OpenAI, or --base-url / NG_BASE_URL for any OpenAI-compatible server (Ollama: http://localhost:11434/v1, vLLM: http://localhost:8000/v1)")
	}
	if cfg.Model == "" {
		missing = append(missing, "no model: set --model or NG_MODEL (e.g. gpt-4o-mini on OpenAI, llama3.1 on Ollama)")
	}
	if len(missing) > 0 {
		return errors.New(strings.Join(missing, "; "))
	}
	return nil
}

// check refuses flag values that cannot make a run.
func (f *LLMFlags) check() error {
	switch {
	case f.Concurrency.N < 1 && !f.Concurrency.Auto:
		return errors.New("--concurrency must be at least 1, or auto")
	case f.RPM < 0 || f.TPM < 0 || f.MaxRetries < 0 || f.MaxReasks < 0 || f.MaxTokens < 0 || f.WaitServer < 0:
		return errors.New("--rpm, --tpm, --max-retries, --max-reasks, --max-tokens and --wait-server cannot be negative")
	case f.Timeout <= 0:
		return errors.New("--timeout must be positive")
	case f.EmitRequests != "" && f.EmitRequests == f.Responses:
		return errors.New("--emit-requests and --responses name the same file")
	case f.Batch.On && (f.EmitRequests != "" || f.Responses != ""):
		return errors.New("--batch runs the Batch API itself: not with --emit-requests or --responses")
	}
	if f.fs != nil {
		if err := f.Batch.check(f.fs); err != nil {
			return err
		}
	}
	return nil
}

// Concurrency is the value of --concurrency: a number, or auto.
type Concurrency struct {
	N    int
	Auto bool
}

// String implements pflag.Value.
func (c *Concurrency) String() string {
	if c.Auto {
		return "auto"
	}
	return strconv.Itoa(c.N)
}

// Set implements pflag.Value.
func (c *Concurrency) Set(s string) error {
	if s == "auto" {
		*c = Concurrency{Auto: true}
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a number or auto")
	}
	*c = Concurrency{N: n}
	return nil
}

// Type implements pflag.Value.
func (c *Concurrency) Type() string { return "N|auto" }

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
