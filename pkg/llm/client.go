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

	"github.com/ngkit/ngkit/pkg/record"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

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
	// Batch: the calls go to the Batch API (batchmode.go, batcher.go), in
	// rounds driven by the program; replies are priced at the batch rate.
	Batch bool
	// Budget, when set, counts the cost of every call (--budget).
	Budget *Budget
	// Stderr gets the summary and notes; Quiet silences the summary.
	Stderr interface{ Write([]byte) (int, error) }
	Quiet  bool
	// HTTPClient replaces the default transport (tests).
	HTTPClient *http.Client

	// price is a models file's price of this endpoint's model, over the
	// price table.
	price *Price
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
	cfg      Config
	svc      openai.ChatCompletionService
	win      *window
	rpm, tpm *bucket
	cache    *Cache
	emit     *emitter
	replay   map[string]*recorded
	bat      *batchCalls
	// batchSpent is the cost of the Batch replies downloaded (and of
	// those a rerun loaded from the state directory).
	batchSpent float64
	opts       []option.RequestOption // the endpoint's, for the Batch API services
	prices     map[string]Price
	usage      usage
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
	// reached: the server has answered a request (any HTTP reply); down
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
	c := &Client{cfg: cfg, win: newWindow(cfg.Concurrency), rpm: newBucket(cfg.RPM), tpm: newBucket(cfg.TPM), start: time.Now()}
	if props != nil {
		c.ctxSize.Store(int64(props.Defaults.NCtx))
	}
	if start > 0 && start < cfg.Concurrency {
		c.win.limit = float64(start)
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
		return nil, fmt.Errorf("--base-url %q: want an http(s) URL such as http://localhost:11434/v1", redactURL(cfg.BaseURL))
	}
	c.maxCompletion = u.Host == openAIHost
	// The built-in prices are OpenAI's: a local server answering under an
	// OpenAI model name is priced only if --prices names the model.
	if c.prices, err = loadPrices(cfg.Prices, u.Host == openAIHost); err != nil {
		return nil, err
	}
	if cfg.price != nil {
		c.prices[cfg.Model] = *cfg.price
	}
	if cfg.CacheDir != "" {
		if c.cache, err = OpenCache(cfg.CacheDir); err != nil {
			return nil, err
		}
	}
	if cfg.Responses != "" {
		if c.replay, err = loadResponses(cfg.Responses); err != nil {
			return nil, err
		}
	}
	if cfg.EmitRequests != "" {
		if c.emit, err = openEmitter(cfg.EmitRequests); err != nil {
			return nil, err
		}
	}
	if cfg.Batch {
		if cfg.EmitRequests != "" || cfg.Responses != "" {
			return nil, errors.New("--batch runs the Batch API itself: not with --emit-requests or --responses")
		}
		// auto() is then false: one response format for the whole run, as
		// a step down in one round would change the requests of the rounds
		// before it.
		c.bat = newBatchCalls()
	}
	hc := cfg.HTTPClient
	if hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// One idle connection per concurrent call: the default (2) would
		// open and close connections all the time at --concurrency 64.
		t.MaxIdleConnsPerHost = cfg.Concurrency + 4
		t.MaxIdleConns = cfg.Concurrency + 4
		hc = &http.Client{Transport: t}
	}
	// NewChatCompletionService, not openai.NewClient: the latter reads
	// OPENAI_* from the process environment on its own; here the flags
	// and NG_* decide.
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // our retries: they know the window and the limits
	}
	if k := cfg.APIKey.reveal(); k != "" {
		opts = append(opts, option.WithAPIKey(k))
	}
	c.hc = hc
	c.svc = openai.NewChatCompletionService(opts...)
	c.opts = opts
	return c, nil
}

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
					cfg.Stage, redactURL(cfg.BaseURL), v)
			}
			return 16, 4, nil
		}
		if cfg.Stderr != nil {
			fmt.Fprintf(cfg.Stderr, "%s: --concurrency auto: %s does not say how many requests it serves at once (%v); using 16 (vLLM: 32-64 is a fair start)\n",
				cfg.Stage, redactURL(cfg.BaseURL), err)
		}
		return 16, 0, nil
	}
	if cfg.Stderr != nil && !cfg.Quiet {
		fmt.Fprintf(cfg.Stderr, "%s: --concurrency auto: %s has %d slots (%d tokens of context each); %d calls in flight\n",
			cfg.Stage, redactURL(cfg.BaseURL), p.TotalSlots, p.Defaults.NCtx, p.TotalSlots)
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
	st := &CallStats{}
	defer func() {
		c.usage.record(req.Call, req.Role, st)
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
			if resp, f := acceptChoice(e.Content, e.FinishReason, e.TopLogprobs, samp, sch, req.RunCheck); f == nil {
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
		body, err := c.params(c.withFormat(req.Messages, sch, c.mode()), sch, samp, c.mode()).MarshalJSON()
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
	p, ok := priceFor(c.prices, c.cfg.Model)
	if !ok {
		return 0
	}
	return p.costs(int64(in), cached, int64(out), c.bat != nil).USD
}

// priceGen sets a call's cost and the prompt tokens the provider served
// from its cache, with what they saved.
func (c *Client) priceGen(gen *record.Gen, cached int64) {
	gen.CostUSD = c.costOf(gen.TokensIn, cached, gen.TokensOut)
	gen.TokensCached = int(cached)
	if p, ok := priceFor(c.prices, c.cfg.Model); ok && cached > 0 {
		gen.CachedSavedUSD = p.costs(int64(gen.TokensIn), cached, int64(gen.TokensOut), c.bat != nil).CachedSavedUSD
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
func (c *Client) fromRecorded(rec *recorded, sch *schema, req Request, gen *record.Gen, st *CallStats) (*Response, error) {
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
	resp, f := acceptChoice(content, finish, top, c.cfg.Sampling.over(req.Sampling), sch, req.RunCheck)
	if f != nil {
		return nil, fmt.Errorf("recorded reply for %s: %s", req.CustomID(), f.reason)
	}
	resp.Gen = *gen
	return resp, nil
}

// live calls the model until a reply is accepted or the retries are spent.
func (c *Client) live(ctx context.Context, req Request, sch *schema, samp Sampling, st *CallStats, gen *record.Gen) (*Response, error) {
	parent := ctx
	if !c.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, c.deadline)
		defer cancel()
	}
	stopped := func() error {
		if parent.Err() != nil {
			return fmt.Errorf("not answered: %w", context.Cause(parent))
		}
		return fmt.Errorf("not answered: the run's --deadline (%s) passed", c.cfg.Deadline)
	}
	msgs := req.Messages
	retries, reasks, waits := 0, 0, 0
	defer func() { st.Retries, st.Reasks = int64(retries), int64(reasks) }() // failed calls too
	// freshAnswered: the fresh request (no re-ask in it) got a reply of
	// the model's, under response format freshMode.
	freshAnswered, freshMode := false, 0
	freshIn, lastIn := 0, 0 // prompt tokens of the fresh request, and of the last one
	for {
		mode := c.mode()
		send := c.withFormat(msgs, sch, mode)
		estPrompt := estimatePrompt(send)
		est := estPrompt + replyEstimate(samp.MaxTokens) // for the tpm bucket
		var comp *completion
		var f *failure
		if c.bat != nil {
			var deferred bool
			if comp, f, deferred = c.batchSend(ctx, &req, int(st.Attempts), c.params(send, sch, samp, mode)); deferred {
				return nil, ErrDeferred
			}
			est = 0 // no tpm bucket for the Batch API
		} else {
			slot, err := c.win.acquire(ctx)
			if err != nil {
				return nil, stopped()
			}
			// The rate buckets after the slot: their tokens are spent when the
			// request really goes out, not while it waits for the window.
			if err = c.rpm.take(ctx, 1); err == nil {
				err = c.tpm.take(ctx, est)
			}
			if err != nil {
				c.win.release(slot, false, false)
				return nil, stopped()
			}
			comp, f = c.sendAny(ctx, send, sch, samp, mode)
			// Local servers queue what their slots cannot take instead of
			// answering 429: a timeout, or a reply that took more than half
			// the timeout, says the window is too wide as a 429 does.
			slow := f == nil && time.Since(slot) > c.cfg.Timeout/2
			c.win.release(slot, slow || f != nil && (f.throttled || f.kind == "timeout"), f == nil)
		}
		st.Attempts++
		if f == nil || !f.unreached {
			st.Requests++
			// The server is up if it answered: not a connection it dropped
			// (a server dying drops those in flight) or a timeout.
			if c.bat == nil && (f == nil || f.kind != "connection" && f.kind != "timeout") {
				c.answered()
			}
		}
		if ctx.Err() != nil {
			return nil, stopped()
		}
		var resp *Response
		if comp != nil {
			in, out := comp.Usage.PromptTokens, comp.Usage.CompletionTokens
			gen.TokensIn += in
			gen.TokensOut += out
			st.TokensIn += int64(in)
			st.TokensCached += int64(comp.Usage.PromptTokensDetails.CachedTokens)
			st.TokensOut += int64(out)
			c.tpm.adjust(float64(in+out) - est)
			gen.ModelAnswered = comp.Model
			// A re-ask holds the request before it, so it cannot have
			// fewer prompt tokens; a fresh attempt has the fresh request's.
			floor := lastIn
			if len(msgs) == len(req.Messages) {
				floor = freshIn
				freshAnswered, freshMode, freshIn = true, mode, in
			}
			lastIn = in
			c.learnContext(ctx)
			choice := comp.Choices[0]
			if f = c.truncated(in, estPrompt, floor); f == nil {
				resp, f = acceptChoice(choice.Message.Content, choice.FinishReason, choice.Logprobs.first(), samp, sch, req.RunCheck)
			}
			if f == nil {
				gen.Retries = retries + reasks
				return resp, nil
			}
			if f.notJSON && mode == formatJSONObject && c.auto() {
				// llama-server takes json_object and does not enforce it.
				c.stepDown(mode, "a reply to it was not JSON: the server does not enforce it")
			}
			if f.reask && reasks < c.cfg.MaxReasks && !c.textAPI() {
				reasks++
				st.fault(f.kind)
				again := "Reply again with only the corrected JSON object."
				if sch == nil {
					again = "Reply again, corrected, in the same format."
				}
				msgs = append(append(msgs[:len(msgs):len(msgs)], Assistant(choice.Message.Content)),
					User("Your reply was not valid: "+f.reason+". "+again))
				continue
			}
		} else {
			c.tpm.adjust(-est) // not served: nothing was spent
		}
		if comp == nil && f.unreached {
			st.fault(f.kind)
			waits++
			if err := c.awaitServer(ctx, f, waits); err != nil {
				if ctx.Err() != nil {
					return nil, stopped()
				}
				return nil, err
			}
			continue // the same request, not a retry: the server never saw it
		}
		if f.badFormat && c.auto() && mode < formatPrompt {
			st.fault(f.kind)
			c.stepDown(mode, f.reason)
			continue
		}
		st.fault(f.kind)
		if f.badFormat {
			return nil, fmt.Errorf("%s (the server cannot use response_format %s here; try --response-format prompt)", f.reason, formatNames[mode])
		}
		if !f.retry {
			return nil, final(comp != nil && f.kind != "truncated", f.reason)
		}
		if retries >= c.cfg.MaxRetries {
			return nil, final(comp != nil && f.kind != "truncated", fmt.Sprintf("gave up after %s: %s", plural(retries+reasks+1, "attempt"), f.reason))
		}
		if comp != nil && freshAnswered && samp.deterministic() && c.mode() == freshMode && c.bat == nil {
			// A fresh attempt would resend a request the model answered
			// (unusably), unchanged: at temperature 0, for the same reply.
			return nil, final(true, fmt.Sprintf("gave up after %s: %s (at temperature 0 a fresh attempt would be the same request, for the same reply)",
				plural(retries+reasks+1, "attempt"), f.reason))
		}
		retries++
		msgs = req.Messages // a fresh attempt, not the re-ask conversation
		if f.reask || c.bat != nil {
			continue // a bad reply, not a busy server (or the next round): no need to wait
		}
		if err := sleep(ctx, c.backoff(retries, f.after)); err != nil {
			return nil, stopped()
		}
	}
}

// answered notes that the server answered a request: it is up.
func (c *Client) answered() {
	c.reached.Store(true)
	if c.down.Load() != 0 {
		c.down.Store(0)
		c.downNoted.Store(false)
	}
}

// awaitServer handles a refused connection (n: the call's nth). A server
// that never answered fails the call at once: nothing listens there (a
// wrong --base-url, a server not started), and waiting would only delay
// the error. One that answered before is restarting: it is waited for,
// with backoff, up to --wait-server from its first refusal, which is
// said once on stderr; after that the calls fail.
func (c *Client) awaitServer(ctx context.Context, f *failure, n int) error {
	if !c.reached.Load() {
		return fmt.Errorf("connection refused at %s: no server is listening there (is the server running? start it, or check --base-url); not retried, as it has not answered in this run", redactURL(c.cfg.BaseURL))
	}
	now := time.Now().UnixNano()
	c.down.CompareAndSwap(0, now)
	since := time.Duration(now - c.down.Load())
	if since >= c.cfg.WaitServer {
		return fmt.Errorf("%s: the server has refused connections for %s (--wait-server %s)", f.reason, since.Round(time.Second), c.cfg.WaitServer)
	}
	if c.cfg.Stderr != nil && c.downNoted.CompareAndSwap(false, true) {
		fmt.Fprintf(c.cfg.Stderr, "%s: %s refused; retrying for up to %s (--wait-server)\n", c.cfg.Stage, redactURL(c.cfg.BaseURL), c.cfg.WaitServer)
	}
	return sleep(ctx, min(c.backoff(n, 0), 5*time.Second, c.cfg.WaitServer-since))
}

// final is the error of a call that failed for good: ErrBadReply when
// its last attempt got a reply of the model's, a plain error when the
// server or the network failed it (a prompt the server cut included).
func final(replied bool, msg string) error {
	if replied {
		return badReply{msg}
	}
	return errors.New(msg)
}

func (s *CallStats) fault(kind string) {
	if s.Faults == nil {
		s.Faults = map[string]int64{}
	}
	s.Faults[kind]++
}

// mode is the response format in use.
func (c *Client) mode() int { return int(c.format.Load()) }

var formatNames = [...]string{formatJSONSchema: "json_schema", formatJSONObject: "json_object", formatPrompt: "prompt"}

// auto reports whether the response format is chosen by the ladder.
func (c *Client) auto() bool {
	return (c.cfg.ResponseFormat == "" || c.cfg.ResponseFormat == "auto") && c.bat == nil
}

// stepDown moves auto mode from rung mode to the next one, for the rest
// of the run, and says so on stderr once per step: of the calls that
// failed at the same rung at once, only one moves it.
func (c *Client) stepDown(mode int, why string) {
	if !c.format.CompareAndSwap(int32(mode), int32(mode+1)) || c.cfg.Stderr == nil {
		return
	}
	next := "response_format json_object, with the schema in the prompt"
	if mode+1 == formatPrompt {
		next = "no response_format: the schema is in the prompt and replies are validated"
	}
	fmt.Fprintf(c.cfg.Stderr, "%s: %s cannot use response_format %s (%s); from now on: %s (choose with --response-format)\n",
		c.cfg.Stage, redactURL(c.cfg.BaseURL), formatNames[mode], cut(why, 200), next)
}

// withFormat adds the JSON instruction to the system message when the
// schema is not sent as response_format.
func (c *Client) withFormat(msgs []Message, sch *schema, mode int) []Message {
	if sch == nil || mode == formatJSONSchema {
		return msgs
	}
	instr := "Reply with only a JSON object, no other text, that matches this JSON Schema:\n" + sch.text
	out := make([]Message, 0, len(msgs)+1)
	if len(msgs) > 0 && msgs[0].Role == "system" {
		out = append(out, System(msgs[0].Content+"\n\n"+instr))
		return append(out, msgs[1:]...)
	}
	out = append(out, System(instr))
	return append(out, msgs...)
}

// params builds the chat-completions request.
func (c *Client) params(msgs []Message, sch *schema, s Sampling, mode int) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: c.cfg.Model, Messages: make([]openai.ChatCompletionMessageParamUnion, len(msgs))}
	for i, m := range msgs {
		switch m.Role {
		case "system":
			p.Messages[i] = openai.SystemMessage(m.Content)
		case "assistant":
			p.Messages[i] = openai.AssistantMessage(m.Content)
		default:
			p.Messages[i] = openai.UserMessage(m.Content)
		}
	}
	if s.Temperature != nil {
		p.Temperature = openai.Float(*s.Temperature)
	}
	if s.TopP != nil {
		p.TopP = openai.Float(*s.TopP)
	}
	if s.Seed != nil {
		p.Seed = openai.Int(*s.Seed)
	}
	if s.TopLogprobs > 0 {
		p.Logprobs = openai.Bool(true)
		p.TopLogprobs = openai.Int(int64(s.TopLogprobs))
	}
	if s.MaxTokens > 0 {
		if c.maxCompletion {
			p.MaxCompletionTokens = openai.Int(int64(s.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(s.MaxTokens))
		}
	}
	if sch != nil {
		switch mode {
		case formatJSONSchema:
			p.ResponseFormat.OfJSONSchema = &openai.ResponseFormatJSONSchemaParam{
				JSONSchema: openai.ResponseFormatJSONSchemaJSONSchemaParam{Name: sch.name, Schema: sch.doc}}
		case formatJSONObject:
			p.ResponseFormat.OfJSONObject = &openai.ResponseFormatJSONObjectParam{}
		}
	}
	return p
}

// replyEstimate is max tokens, or a typical 500.
func replyEstimate(maxTokens int) float64 {
	if maxTokens > 0 {
		return float64(maxTokens)
	}
	return 500
}

// estimatePrompt guesses a prompt's tokens: about 4 bytes a token for
// Latin text, one per character for CJK, 4 per message.
func estimatePrompt(msgs []Message) float64 {
	n := 0.0
	for _, m := range msgs {
		for _, r := range m.Content {
			if r < 0x80 {
				n += 0.25
			} else {
				n++
			}
		}
		n += 4
	}
	return n
}

// commonContexts are context sizes servers default to (Ollama's num_ctx
// 2048, later 4096; llama.cpp's -c), at which a prompt cut to fit shows.
var commonContexts = map[int]bool{2048: true, 4096: true, 8192: true, 16384: true, 32768: true, 65536: true, 131072: true}

// learnContext asks the server, once, at its first reply, the context it
// loaded the model with, where it tells (Ollama's /api/ps; llama-server's
// came from /props or its over-context error). Not at OpenAI.
func (c *Client) learnContext(ctx context.Context) {
	if c.ctxSize.Load() > 0 || c.maxCompletion || c.bat != nil {
		return
	}
	c.ollamaCtx.Do(func() {
		if n := fetchOllamaContext(ctx, c.hc, c.cfg.BaseURL, c.cfg.Model); n > 0 {
			c.ctxSize.CompareAndSwap(0, int64(n))
		}
	})
}

// truncated tells a reply to a prompt the server cut: Ollama cuts a
// prompt longer than its context and answers 200, with prompt_tokens the
// context (a prompt cut in its last message) or fewer (older messages
// dropped). Signs: prompt tokens equal to (or over) the context the server
// reported (/props, /api/ps, an over-context error); fewer than floor, the
// prompt tokens of a request this one holds (the request a re-ask repeats,
// or the same fresh request before); a common context size while the
// prompt looked at least that long; far fewer than estimated. Not retried:
// the same prompt is cut the same way.
func (c *Client) truncated(in int, est float64, floor int) *failure {
	n := int(c.ctxSize.Load())
	why := ""
	switch {
	case in <= 0:
		return nil
	case n > 0 && in >= n:
		why = fmt.Sprintf("prompt_tokens %d is its whole context", in)
	case floor > 0 && in < floor:
		why = fmt.Sprintf("prompt_tokens %d, where the request it holds had %d", in, floor)
	case commonContexts[in] && est >= 0.8*float64(in):
		why = fmt.Sprintf("prompt_tokens %d, exactly a common context size, for a prompt of about %.0f tokens", in, est)
	case est >= 1000 && float64(in)*3 < est:
		why = fmt.Sprintf("prompt_tokens %d for a prompt of about %.0f tokens", in, est)
	default:
		return nil
	}
	ctxOf := ""
	if n > 0 {
		ctxOf = fmt.Sprintf(" of %d", n)
	}
	return &failure{kind: "truncated", reason: fmt.Sprintf("the server cut the prompt to %d tokens (its context%s): %s; the reply answers part of the prompt. "+
		"Give the server a larger context (Ollama: OLLAMA_CONTEXT_LENGTH=N for ollama serve, or PARAMETER num_ctx N in the model's Modelfile; llama-server: -c)", in, ctxOf, why)}
}

// backoff is the wait before retry n: exponential with jitter (half to
// all of Backoff·2^(n-1)), at least what the server asked, at most the cap.
func (c *Client) backoff(n int, after time.Duration) time.Duration {
	d := c.cfg.Backoff << min(n-1, 20)
	if d <= 0 || d > c.cfg.RetryAfterCap {
		d = c.cfg.RetryAfterCap
	}
	d = d/2 + jitter(d/2)
	if after > d {
		d = after
	}
	return min(d, c.cfg.RetryAfterCap)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// redactURL drops the user info and query of a URL, where keys hide.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// plural is "1 attempt", "2 attempts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
