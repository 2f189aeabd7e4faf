package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/ngkit/ngkit/pkg/llm/throttle"
	"github.com/ngkit/ngkit/pkg/llm/usage"
	"github.com/ngkit/ngkit/pkg/record"
)

// DefaultAlias names the endpoint of the flags and environment
// (--base-url, NG_BASE_URL, ...); a models file cannot define it.
const DefaultAlias = "default"

// Config is a resolved client configuration (see Flags for the meaning
// of each field).
type Config struct {
	BaseURL string
	Model   string
	APIKey  Secret
	// KeyWithheld names a key variable that was set but not sent to
	// BaseURL (OPENAI_API_KEY, which goes only to OpenAI: see
	// OpenAIKeyAllowed), so that a 401 says why no key was sent.
	KeyWithheld string
	// Stage names the program, in gen and the usage summary.
	Stage string
	// Alias names the endpoint (a models file's alias, or DefaultAlias for
	// the flags' endpoint), in gen and the usage summary; a models file's
	// alias is part of every cache key, so that two endpoints serving the
	// same model never share replies.
	Alias    string
	Sampling Sampling
	// Concurrency is the most calls in flight (the AIMD window's ceiling);
	// with ConcurrencyAuto, New sets it to the server's slots.
	Concurrency     int
	ConcurrencyAuto bool
	RPM, TPM        int
	// Timeout bounds one request; Deadline (0: none) the whole run,
	// counted from New.
	Timeout, Deadline time.Duration
	MaxRetries        int
	MaxReasks         int
	// Backoff is the first retry's wait, doubled at each retry, jittered;
	// RetryAfterCap caps every wait, the server's Retry-After included.
	Backoff, RetryAfterCap time.Duration
	// WaitServer is how long refused connections are waited out once the
	// server has answered (a restart), before calls fail; 0: not at all.
	// A server never reached fails the call at its first refusal.
	WaitServer time.Duration
	// ResponseFormat: auto, json_schema, json_object or prompt.
	ResponseFormat string
	// API is APIChat ("" too) or APICompletions (completions.go).
	API string
	// CacheDir is the cache directory; "" disables the cache.
	CacheDir     string
	UsageJSON    string
	Prices       string
	EmitRequests string
	Responses    string
	// Batch: the calls go to the Batch API (batchmode.go; the rounds are pkg/llm/batch's), in
	// rounds driven by the program; replies are priced at the batch rate.
	Batch bool
	// Budget, when set, counts the cost of every call (--budget).
	Budget *usage.Budget
	// Stderr gets the summary and notes; Quiet silences the summary,
	// Verbose adds its lines per call (per role) and why a cost is not
	// estimated.
	Stderr  interface{ Write([]byte) (int, error) }
	Quiet   bool
	Verbose bool
	// HTTPClient replaces the default transport (tests).
	HTTPClient *http.Client
	// Demo, when set, is the built-in demo model (cmd/internal/demo): its
	// URL as shown and the client that answers it in-process. A models
	// file's endpoint of model demo with no base_url is answered by it.
	Demo func() (baseURL string, client *http.Client)

	// ModelPrice is a models file's price of this endpoint's model, over
	// the price table.
	ModelPrice *usage.Price
}

// Workers is the number of runner workers for this configuration: twice
// the calls allowed in flight, so that when a call ends another worker is
// already waiting for its slot while the first one finishes its record
// (decoding, checks, cache, encoding); the window, not the workers,
// bounds the calls.
func (c Config) Workers() int { return 2 * max(c.Concurrency, 1) }

// Response formats.
const (
	formatJSONSchema = iota
	formatJSONObject
	formatPrompt
)

// Client calls one model at one endpoint for one stage. It is safe for
// concurrent use; Close prints the usage summary.
type Client struct {
	cfg Config
	// postRaw sends a request body to a path of the endpoint (a func, not an
	// openai.Client field: a Client reachable from an interface links every
	// service of the SDK, 16 MB).
	postRaw  func(ctx context.Context, path string, body []byte, opts ...option.RequestOption) error
	win      *throttle.Window
	rpm, tpm *throttle.Bucket
	cache    *Cache
	emit     *emitter
	replay   map[string]*recorded
	bat      *batchCalls
	// batchSpent is the cost of the Batch replies downloaded (and of
	// those a rerun loaded from the state directory).
	batchSpent float64
	opts       []option.RequestOption // the endpoint's, for the Batch API services
	prices     usage.Prices
	tally      usage.Tally
	start      time.Time
	deadline   time.Time
	// format is the rung of the response-format ladder in use (auto
	// steps down from json_schema to json_object to prompt), for every
	// call of the run.
	format   atomic.Int32
	deferred atomic.Int64
	// ctxSize is a slot's context in tokens, as the server reported it
	// (/props, or a request over it); 0: not known.
	ctxSize atomic.Int64
	// maxCompletion: OpenAI's newer models take only
	// max_completion_tokens; other servers know max_tokens.
	maxCompletion bool
	// reached: the server has answered a request (any HTTP reply) or
	// taken a connection it then dropped; down
	// is when it began to refuse connections since (UnixNano; 0: it does
	// not), and downNoted whether that was said on stderr.
	reached   atomic.Bool
	down      atomic.Int64
	downNoted atomic.Bool
	// ollamaCtx asks, once, at the first reply, the context the server
	// loaded the model with (Ollama's /api/ps), into ctxSize.
	ollamaCtx sync.Once
	hc        *http.Client
}

// New makes a client; errors are usage errors (a bad file or directory).
func New(cfg Config) (*Client, error) {
	var props *serverProps
	start := 0 // the window's first limit (0: its ceiling)
	if cfg.ConcurrencyAuto {
		cfg.Concurrency, start, props = autoConcurrency(cfg)
	}
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Minute
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	if cfg.RetryAfterCap <= 0 {
		cfg.RetryAfterCap = time.Minute
	}
	if cfg.Stage == "" {
		cfg.Stage = "llm"
	}
	c := &Client{cfg: cfg, win: throttle.NewWindow(cfg.Concurrency, start), rpm: throttle.NewBucket(cfg.RPM), tpm: throttle.NewBucket(cfg.TPM), start: time.Now()}
	if props != nil {
		c.ctxSize.Store(int64(props.Defaults.NCtx))
	}
	if cfg.Deadline > 0 {
		c.deadline = c.start.Add(cfg.Deadline)
	}
	switch cfg.ResponseFormat {
	case "", "auto", "json_schema":
		c.format.Store(formatJSONSchema)
	case "json_object":
		c.format.Store(formatJSONObject)
	case "prompt":
		c.format.Store(formatPrompt)
	default:
		return nil, fmt.Errorf("--response-format %q: want auto, json_schema, json_object or prompt", cfg.ResponseFormat)
	}
	if err := cfg.checkAPI(); err != nil {
		return nil, err
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--base-url %q: want an http(s) URL such as http://localhost:11434/v1", RedactURL(cfg.BaseURL))
	}
	c.maxCompletion = u.Host == openAIHost
	// The built-in prices are OpenAI's: a local server answering under an
	// OpenAI model name is priced only if --prices names the model.
	if c.prices, err = usage.LoadPrices(cfg.Prices, u.Host == openAIHost); err != nil {
		return nil, err
	}
	if cfg.ModelPrice != nil {
		c.prices[cfg.Model] = *cfg.ModelPrice
	}
	if err := c.openFiles(cfg); err != nil {
		return nil, err
	}
	c.connect(cfg)
	return c, nil
}

// openFiles opens the cache, the replies (--responses) and the requests
// file (--emit-requests), and sets up --batch.
func (c *Client) openFiles(cfg Config) (err error) {
	if cfg.CacheDir != "" {
		if c.cache, err = OpenCache(cfg.CacheDir); err != nil {
			return err
		}
	}
	if cfg.Responses != "" {
		if c.replay, err = loadResponses(cfg.Responses); err != nil {
			return err
		}
	}
	if cfg.EmitRequests != "" {
		if c.emit, err = openEmitter(cfg.EmitRequests); err != nil {
			return err
		}
	}
	if cfg.Batch {
		if cfg.EmitRequests != "" || cfg.Responses != "" {
			return errors.New("--batch runs the Batch API itself: not with --emit-requests or --responses")
		}
		// auto() is then false: one response format for the whole run, as
		// a step down in one round would change the requests of the rounds
		// before it.
		c.bat = newBatchCalls()
	}
	return nil
}

// connect makes the client's chat completion service over its HTTP client.
func (c *Client) connect(cfg Config) {
	hc := cfg.HTTPClient
	if hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// One idle connection per concurrent call: the default (2) would
		// open and close connections all the time at --concurrency 64.
		t.MaxIdleConnsPerHost = cfg.Concurrency + 4
		t.MaxIdleConns = cfg.Concurrency + 4
		hc = &http.Client{Transport: t}
	}
	// openai.Client with these options alone, not openai.NewClient: the
	// latter reads OPENAI_* from the process environment on its own; here
	// the flags and NG_* decide.
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // our retries: they know the window and the limits
	}
	if k := cfg.APIKey.reveal(); k != "" {
		opts = append(opts, option.WithAPIKey(k))
	}
	c.hc = hc
	c.postRaw = func(ctx context.Context, path string, body []byte, more ...option.RequestOption) error {
		api := openai.Client{Options: opts}
		return api.Post(ctx, path, body, nil, more...)
	}
	c.opts = opts
}

// Config is the client's configuration, as New resolved it (the
// endpoint's alias, model, URL, API and window).
func (c *Client) Config() Config { return c.cfg }

// Workers is the number of runner workers for this client (see
// Config.Workers), once --concurrency auto is resolved.
func (c *Client) Workers() int { return c.cfg.Workers() }

// autoConcurrency is --concurrency auto: llama-server's slots (/props
// total_slots), which serve that many requests at once and queue the
// rest; Ollama does not tell its OLLAMA_NUM_PARALLEL (v0.24), so the
// window starts at 4 (start) and grows from there up to 16 while replies
// stay quick; other servers get 16, with a note.
func autoConcurrency(cfg Config) (n, start int, props *serverProps) {
	if cfg.EmitRequests != "" || cfg.Responses != "" {
		return 16, 0, nil
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	p, err := fetchProps(context.Background(), hc, cfg.BaseURL, cfg.APIKey)
	if err != nil {
		if v := fetchOllamaVersion(context.Background(), hc, cfg.BaseURL); v != "" {
			if cfg.Stderr != nil && !cfg.Quiet {
				fmt.Fprintf(cfg.Stderr, "%s: --concurrency auto: %s is Ollama %s, which does not say how many requests it serves at once (its OLLAMA_NUM_PARALLEL); starting at 4 calls in flight, up to 16 while replies stay quick\n",
					cfg.Stage, RedactURL(cfg.BaseURL), v)
			}
			return 16, 4, nil
		}
		if cfg.Stderr != nil {
			fmt.Fprintf(cfg.Stderr, "%s: --concurrency auto: %s does not say how many requests it serves at once (%v); using 16 (vLLM: 32-64 is a fair start)\n",
				cfg.Stage, RedactURL(cfg.BaseURL), err)
		}
		return 16, 0, nil
	}
	if cfg.Stderr != nil && !cfg.Quiet {
		fmt.Fprintf(cfg.Stderr, "%s: --concurrency auto: %s has %d slots (%d tokens of context each); %d calls in flight\n",
			cfg.Stage, RedactURL(cfg.BaseURL), p.TotalSlots, p.Defaults.NCtx, p.TotalSlots)
	}
	return p.TotalSlots, 0, p
}

// Call answers one request: from the cache, from the --responses file,
// by writing it to the --emit-requests file (ErrDeferred), or by calling
// the model, with retries. The error says why the call failed for good;
// it never contains the API key.
func (c *Client) Call(ctx context.Context, req Request) (*Response, error) {
	start := time.Now()
	var sch *schema
	switch {
	case req.ReplySchema != nil:
		if sch = req.ReplySchema.s; req.Schema != "" && req.Schema != sch.name {
			return nil, fmt.Errorf("call %s: schema %s, but the reply schema is made from %s", req.Call, req.Schema, sch.name)
		}
	case req.Schema != "":
		var err error
		if sch, err = loadSchema(req.Schema); err != nil {
			return nil, err
		}
	}
	samp := c.cfg.Sampling.over(req.Sampling)
	if err := c.asText(&req, sch, &samp); err != nil {
		return nil, err
	}
	key := ""
	st := &usage.CallStats{}
	defer func() {
		c.tally.Record(req.Call, req.Role, st)
		if c.cfg.Budget != nil && c.bat == nil && st.TokensIn+st.TokensOut > 0 {
			// Every request's tokens, failed attempts too; --batch counts
			// its replies as they come (Batcher).
			c.cfg.Budget.Add(c.costOf(int(st.TokensIn), st.TokensCached, int(st.TokensOut)))
		}
	}()
	gen := record.Gen{Stage: c.cfg.Stage, Role: req.Role, Endpoint: c.cfg.Alias, Call: req.Call, Model: c.cfg.Model, PromptPack: req.PromptPack}

	if c.cache != nil {
		key = cacheKey(c.cacheEndpoint(), c.cfg.Model, req.Messages, sch, samp)
		if e, ok := c.cache.get(key); ok {
			if resp, f := acceptChoice(e.Content, e.FinishReason, e.TopLogprobs, samp, sch, req.RunCheck, tokensUsed{e.TokensIn, e.TokensOut}); f == nil {
				st.Calls, st.CacheHits = 1, 1
				gen.CacheHit, gen.TokensIn, gen.TokensOut, gen.Seconds = true, e.TokensIn, e.TokensOut, e.Seconds
				gen.ModelAnswered = e.Model
				resp.Gen = gen
				return resp, nil
			}
		}
	}
	if c.replay != nil {
		if rec, ok := c.replay[req.CustomID()]; ok {
			resp, err := c.fromRecorded(rec, sch, req, &gen, st)
			if err != nil {
				st.Failed = 1
				return nil, fmt.Errorf("call %s: %w", req.Call, err)
			}
			st.Calls, st.Replayed = 1, 1
			c.priceGen(&resp.Gen, st.TokensCached)
			c.store(key, resp, &gen)
			return resp, nil
		}
		if c.emit == nil {
			st.Failed = 1
			return nil, fmt.Errorf("call %s: no reply for custom_id %q in --responses %s", req.Call, req.CustomID(), c.cfg.Responses)
		}
	}
	if c.emit != nil {
		if req.ID == "" {
			return nil, errors.New("--emit-requests: the call has no record id for its custom_id")
		}
		mode := c.mode() // once: the ladder may step down between two reads
		body, err := c.body(c.withFormat(req.Messages, sch, mode), sch, samp, mode)
		if err == nil {
			err = c.emit.add(req.CustomID(), body)
		}
		if err != nil {
			return nil, err
		}
		st.Emitted = 1
		return nil, ErrDeferred
	}
	resp, err := c.live(ctx, req, sch, samp, st, &gen)
	if errors.Is(err, ErrDeferred) {
		st.Emitted = 1
		return nil, ErrDeferred
	}
	if err != nil {
		st.Failed = 1
		// The reasons are redacted where they are made (server messages,
		// transport errors); %w keeps context.Canceled visible to callers.
		return nil, fmt.Errorf("call %s: %w", req.Call, err)
	}
	st.Calls = 1
	gen.Seconds = roundSeconds(time.Since(start))
	if c.bat != nil {
		gen.Seconds = 0 // a batch's time is not one call's
		st.Batched = 1
	}
	c.priceGen(&gen, st.TokensCached)
	resp.Gen = gen
	c.store(key, resp, &gen)
	return resp, nil
}

// costOf is what tokens cost at the endpoint's price; 0 when unpriced.
func (c *Client) costOf(in int, cached int64, out int) float64 {
	p, ok := c.prices.For(c.cfg.Model)
	if !ok {
		return 0
	}
	return p.Costs(int64(in), cached, int64(out), c.bat != nil).USD
}

// priceGen sets a call's cost and the prompt tokens the provider served
// from its cache, with what they saved.
func (c *Client) priceGen(gen *record.Gen, cached int64) {
	gen.CostUSD = c.costOf(gen.TokensIn, cached, gen.TokensOut)
	gen.TokensCached = int(cached)
	if p, ok := c.prices.For(c.cfg.Model); ok && cached > 0 {
		gen.CachedSavedUSD = p.Costs(int64(gen.TokensIn), cached, int64(gen.TokensOut), c.bat != nil).CachedSavedUSD
	}
}

// cacheEndpoint is the endpoint part of the cache key: the base URL, and
// a models file's alias (the flags' endpoint keeps the keys it always had).
func (c *Client) cacheEndpoint() string {
	if c.cfg.Alias == "" || c.cfg.Alias == DefaultAlias {
		return c.cfg.BaseURL
	}
	return strings.TrimRight(c.cfg.BaseURL, "/") + "\x00alias=" + c.cfg.Alias
}

// store caches an accepted reply; a failed write costs only a future miss.
func (c *Client) store(key string, resp *Response, gen *record.Gen) {
	if c.cache == nil || key == "" || c.probingPass() {
		return
	}
	c.cache.put(key, &cacheEntry{Model: gen.ModelAnswered, Content: resp.raw, FinishReason: resp.FinishReason,
		TokensIn: gen.TokensIn, TokensOut: gen.TokensOut, Seconds: gen.Seconds, TopLogprobs: resp.TopLogprobs})
}

// fromRecorded answers a call from a --responses line. An invalid reply
// cannot be re-asked: the record fails.
func (c *Client) fromRecorded(rec *recorded, sch *schema, req Request, gen *record.Gen, st *usage.CallStats) (*Response, error) {
	if rec.err != "" {
		return nil, errors.New(rec.err)
	}
	content, finish := "", "stop"
	var top []TokenLogprob
	if rec.content != nil {
		content = *rec.content
	} else {
		comp, err := decodeCompletion(rec.body)
		if err != nil {
			return nil, fmt.Errorf("--responses: %s: %v", req.CustomID(), err)
		}
		if len(comp.Choices) == 0 {
			return nil, fmt.Errorf("--responses: %s: no choices", req.CustomID())
		}
		content, finish = comp.Choices[0].Message.Content, comp.Choices[0].FinishReason
		top = comp.Choices[0].Logprobs.first()
		gen.TokensIn, gen.TokensOut = comp.Usage.PromptTokens, comp.Usage.CompletionTokens
		st.TokensIn, st.TokensOut = int64(gen.TokensIn), int64(gen.TokensOut)
		st.TokensCached = int64(comp.Usage.PromptTokensDetails.CachedTokens)
		gen.ModelAnswered = comp.Model
	}
	resp, f := acceptChoice(content, finish, top, c.cfg.Sampling.over(req.Sampling), sch, req.RunCheck, tokensUsed{gen.TokensIn, gen.TokensOut})
	if f != nil {
		return nil, fmt.Errorf("recorded reply for %s: %s", req.CustomID(), f.reason)
	}
	resp.Gen = *gen
	return resp, nil
}

// plural is "1 attempt", "2 attempts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
