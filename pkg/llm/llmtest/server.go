// Package llmtest is an in-process OpenAI-compatible chat-completions
// server for tests and benchmarks: scripted replies matched on the
// request, configurable latency, faults injected at a rate (429 with
// Retry-After, 500, 503, slow replies, dropped connections, malformed
// bodies, empty content, finish_reason length and content_filter, replies
// in the wrong language, invalid JSON, leaked reasoning), and a record of
// every request. cmd/fakellm serves it on a port for shell tests.
package llmtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/pkg/record"
)

// Fault is a kind of injected failure.
type Fault string

// The faults.
const (
	RateLimit     Fault = "429"            // 429 with Retry-After-Ms and Retry-After
	ServerError   Fault = "500"            // 500
	Unavailable   Fault = "503"            // 503 with Retry-After-Ms
	Slow          Fault = "slow"           // the reply comes after Options.SlowFor (past the client's timeout)
	Drop          Fault = "drop"           // the connection is closed without a reply
	Malformed     Fault = "malformed"      // 200 with a body cut in the middle
	Empty         Fault = "empty"          // empty content
	Length        Fault = "length"         // content cut, finish_reason length
	ContentFilter Fault = "content_filter" // no content, finish_reason content_filter
	WrongLang     Fault = "wronglang"      // the reply's text in English instead
	BadJSON       Fault = "badjson"        // content that is not JSON
	Reasoning     Fault = "reasoning"      // an unclosed <think> block leaked into the content
)

// AllFaults are every fault kind, the default of Options.Faults.
var AllFaults = []Fault{RateLimit, ServerError, Unavailable, Slow, Drop, Malformed, Empty, Length, ContentFilter, WrongLang, BadJSON, Reasoning}

// Options configure a server.
type Options struct {
	// Latency delays every reply.
	Latency time.Duration
	// FaultRate is the share of requests that get a fault, drawn from
	// Faults (default AllFaults). The draw is a hash of the request body
	// and how many times that body was seen, so a run is reproducible.
	FaultRate float64
	Faults    []Fault
	Seed      uint64
	// Sequence gives the faults of the first requests, in the order they
	// arrive ("" for none), before FaultRate applies.
	Sequence []Fault
	// RetryAfter is what a 429 or 503 asks the client to wait (default 10 ms).
	RetryAfter time.Duration
	// SlowFor is how long a Slow reply takes (default 10 s; the handler
	// stops early when the client goes away).
	SlowFor time.Duration
	// Rules are tried in order; the first that matches answers.
	Rules []Rule
	// Reply gives the content for requests no rule matches. Default: an
	// instance of the request's JSON Schema (from response_format or the
	// prompt) when there is one, else "echo: " and the last user message.
	Reply func(*ChatRequest) string
	// APIKey, when set, is required as a Bearer token; a wrong one gets a
	// 401 whose message quotes it, as careless servers do.
	APIKey string
	// RejectJSONSchema answers 400 to response_format json_schema, like a
	// server without structured outputs.
	RejectJSONSchema bool
	// NoRecord keeps no requests (long benchmarks).
	NoRecord bool
	// Model, when set, is the model name the replies carry (default: the
	// one requested), as a server that serves one model under any name.
	Model string
	// Slots, when set, is served at GET /props as llama-server does
	// ({"total_slots": Slots, "default_generation_settings": {"n_ctx":
	// Context}}).
	Slots int
	// Context, when set, cuts every prompt to Context tokens without a
	// word, as Ollama does: prompt_tokens is then Context.
	Context int
	// Ollama, with Context, imitates Ollama v0.24's cutting: the oldest
	// messages after the system message are dropped until the rest fits
	// (the last one cut to fit if it alone does not), and GET /api/ps
	// reports the loaded model's context_length, GET /api/version
	// 0.24.0; /props is a 404.
	Ollama bool
	// Logprobs and NoLogprobs: see logprobs.go; ChatLogprobsInText:
	// see completions.go.
	Logprobs           func(req *ChatRequest, content string) []TopLogprob
	NoLogprobs         bool
	ChatLogprobsInText bool
	// PromptCache reports usage.prompt_tokens_details.cached_tokens as
	// the providers' prompt cache does (promptcache.go), online and in
	// the fake Batch API.
	PromptCache bool
}

// Rule is a scripted reply.
type Rule struct {
	// Contains must be in the last user message ("" matches every request).
	Contains string `json:"contains"`
	// Content is the reply; FinishReason defaults to "stop".
	Content      string `json:"content"`
	FinishReason string `json:"finish_reason,omitempty"`
	// Status, when not 0 or 200, answers with that HTTP error instead,
	// with Message as the error message (default "scripted error").
	Status  int    `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	// Format, when set, limits the rule to requests whose response_format
	// type is Format (json_schema, json_object; "none" for no
	// response_format), to script what a server does with each.
	Format string `json:"format,omitempty"`
}

// The request types are the canned models' (internal/canned/wire), so that
// a reply function serves this server and the built-in demo model alike.
type (
	Message     = wire.Message
	ChatRequest = wire.ChatRequest
)

// Recorded is one request the server received.
type Recorded struct {
	Header  http.Header
	Body    []byte
	Request ChatRequest
	// Fault is the fault injected ("" if none); Status the HTTP status sent
	// (0 for a dropped connection).
	Fault  Fault
	Status int
}

// Server is a fake OpenAI-compatible endpoint.
type Server struct {
	// URL is the base URL to give a client, ending in /v1.
	URL string
	srv *httptest.Server
	opt Options

	mu       sync.Mutex
	requests []Recorded
	seen     map[uint64]int
	n        int
	drawn    int // of Sequence
	cache    promptCache
}

// New starts a server on a local port.
func New(opt Options) *Server {
	s := newServer(opt)
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL + "/v1"
	return s
}

// Listen serves on l (cmd/fakellm); close the listener to stop.
func Listen(l net.Listener, opt Options) (*Server, *http.Server) {
	s := newServer(opt)
	s.URL = "http://" + l.Addr().String() + "/v1"
	hs := &http.Server{Handler: s}
	go hs.Serve(l)
	return s, hs
}

// NewHandler makes a server that listens nowhere: its ServeHTTP answers
// in the caller's own server (to wrap it, say).
func NewHandler(opt Options) *Server { return newServer(opt) }

func newServer(opt Options) *Server {
	if len(opt.Faults) == 0 {
		opt.Faults = AllFaults
	}
	if opt.RetryAfter <= 0 {
		opt.RetryAfter = 10 * time.Millisecond
	}
	if opt.SlowFor <= 0 {
		opt.SlowFor = 10 * time.Second
	}
	return &Server{opt: opt, seen: map[uint64]int{}}
}

// Close stops the server.
func (s *Server) Close() {
	if s.srv != nil {
		s.srv.CloseClientConnections()
		s.srv.Close()
	}
}

// Requests returns a copy of the requests answered so far, in the order
// their answers were written.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// Count is the number of requests received so far (answered or not).
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/props" && s.opt.Slots > 0 {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"total_slots":%d,"default_generation_settings":{"n_ctx":%d}}`, s.opt.Slots, s.opt.Context)
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/api/version" && s.opt.Ollama {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"version":"0.24.0"}`)
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/api/ps" && s.opt.Ollama {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"models":[{"name":"fake:latest","model":"fake:latest","context_length":%d}]}`, s.opt.Context)
		return
	}
	if isBatchPath(r.URL.Path) {
		s.serveBatch(w, r) // the fake Batch API (batchapi.go)
		return
	}
	text := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/completions") // completions.go
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") && !text {
		wire.WriteError(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path, nil)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.n++ // counted on arrival, recorded once answered
	s.mu.Unlock()
	var req ChatRequest
	rec := Recorded{Header: r.Header.Clone(), Body: body}
	if text {
		err = wire.DecodeText(body, &req)
	} else {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		rec.Status = http.StatusBadRequest
		s.record(rec)
		wire.WriteError(w, http.StatusBadRequest, "request is not JSON: "+err.Error(), nil)
		return
	}
	rec.Request = req
	fault := s.draw(body)
	rec.Fault = fault
	rec.Status = s.answer(w, r, &req, body, fault)
	s.record(rec)
}

func (s *Server) record(rec Recorded) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.opt.NoRecord {
		s.requests = append(s.requests, rec)
	}
}

// draw decides the fault of a request: a hash of the seed, the body and
// the number of times the body was seen (so a retry draws anew).
func (s *Server) draw(body []byte) Fault {
	s.mu.Lock()
	if s.drawn < len(s.opt.Sequence) {
		f := s.opt.Sequence[s.drawn]
		s.drawn++
		s.mu.Unlock()
		return f
	}
	s.mu.Unlock()
	if s.opt.FaultRate <= 0 {
		return ""
	}
	h := fnv.New64a()
	h.Write(body)
	key := h.Sum64()
	s.mu.Lock()
	nth := s.seen[key]
	s.seen[key] = nth + 1
	s.mu.Unlock()
	x := record.Mix64(key ^ s.opt.Seed ^ record.Mix64(uint64(nth)+1))
	if float64(x>>11)/float64(1<<53) >= s.opt.FaultRate {
		return ""
	}
	return s.opt.Faults[record.Mix64(x)%uint64(len(s.opt.Faults))]
}

func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// answer writes the reply and returns its status (0: dropped).
func (s *Server) answer(w http.ResponseWriter, r *http.Request, req *ChatRequest, body []byte, fault Fault) int {
	if s.opt.APIKey != "" {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if got != s.opt.APIKey {
			wire.WriteError(w, http.StatusUnauthorized, "Incorrect API key provided: "+got, nil)
			return http.StatusUnauthorized
		}
	}
	if !wait(r, s.opt.Latency) {
		return 0
	}
	retryHeaders := func() http.Header {
		ms := s.opt.RetryAfter.Milliseconds()
		return http.Header{
			"Retry-After-Ms": {strconv.FormatInt(ms, 10)},
			"Retry-After":    {strconv.Itoa(int(math.Ceil(s.opt.RetryAfter.Seconds())))},
		}
	}
	switch fault {
	case RateLimit:
		wire.WriteError(w, http.StatusTooManyRequests, "Rate limit reached for requests", retryHeaders())
		return http.StatusTooManyRequests
	case ServerError:
		wire.WriteError(w, http.StatusInternalServerError, "The server had an error while processing your request", nil)
		return http.StatusInternalServerError
	case Unavailable:
		wire.WriteError(w, http.StatusServiceUnavailable, "The engine is currently overloaded", retryHeaders())
		return http.StatusServiceUnavailable
	case Slow:
		if !wait(r, s.opt.SlowFor) {
			return 0
		}
	case Drop:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return 0
			}
		}
		panic(http.ErrAbortHandler) // HTTP/2: abort the stream
	case Malformed:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"chatcmpl-fake","object":"chat.completion","choices":[{"index":0,"message":{"role":"assist`))
		return http.StatusOK
	}
	if s.opt.RejectJSONSchema && req.ResponseFormat != nil && req.ResponseFormat.Type == "json_schema" {
		wire.WriteError(w, http.StatusBadRequest, "response_format json_schema is not supported by this model", nil)
		return http.StatusBadRequest
	}
	content, finish, status := s.reply(req)
	if status != 0 && status != http.StatusOK {
		if content == "" {
			content = "scripted error"
		}
		wire.WriteError(w, status, content, nil)
		return status
	}
	switch fault {
	case Empty:
		content = ""
	case Length:
		content, finish = cut(content), "length"
	case ContentFilter:
		content, finish = "", "content_filter"
	case WrongLang:
		content = English(content)
	case BadJSON:
		content = "Sure! Here is what you asked for: {text: " + cut(content)
	case Reasoning:
		content = "<think>The user wants a reply. Let me think about what to write first, then"
	}
	model, prompt := req.Model, len(body)/4
	if s.opt.Model != "" {
		model = s.opt.Model
	}
	if s.opt.Ollama {
		prompt = ollamaPrompt(req.Messages, s.opt.Context)
	}
	if s.opt.Context > 0 && prompt > s.opt.Context {
		prompt = s.opt.Context
	}
	cached := 0
	if s.opt.PromptCache {
		cached = s.cache.lookup(req, prompt)
	}
	if req.Text {
		wire.WriteText(w, model, content, finish, prompt, s.textLogprobs(req, content))
		return http.StatusOK
	}
	wire.WriteCompletion(w, model, content, finish, prompt, cached, s.logprobs(req, content))
	return http.StatusOK
}

// ollamaPrompt is the prompt tokens after Ollama's cut (4 bytes a token,
// 4 a message): the system message and the newest messages that fit.
func ollamaPrompt(msgs []Message, ctx int) int {
	size := func(m Message) int { return len(m.Text())/4 + 4 }
	n, i := 0, 0
	if len(msgs) > 0 && msgs[0].Role == "system" {
		n, i = size(msgs[0]), 1
	}
	for j := len(msgs) - 1; j >= i; j-- {
		if ctx > 0 && n+size(msgs[j]) > ctx && j < len(msgs)-1 {
			break
		}
		n += size(msgs[j])
	}
	if ctx > 0 {
		n = min(n, ctx)
	}
	return n
}

// reply is the scripted or default reply.
func (s *Server) reply(req *ChatRequest) (content, finish string, status int) {
	last := req.LastUser()
	format := "none"
	if req.ResponseFormat != nil {
		format = req.ResponseFormat.Type
	}
	for _, rule := range s.opt.Rules {
		if strings.Contains(last, rule.Contains) && (rule.Format == "" || rule.Format == format) {
			finish = rule.FinishReason
			if finish == "" {
				finish = "stop"
			}
			if rule.Status != 0 && rule.Status != http.StatusOK {
				return rule.Message, finish, rule.Status
			}
			return rule.Content, finish, rule.Status
		}
	}
	if s.opt.Reply != nil {
		return s.opt.Reply(req), "stop", 0
	}
	if sch := req.Schema(); sch != nil {
		b, _ := json.Marshal(Instance(sch))
		return string(b), "stop", 0
	}
	return "echo: " + last, "stop", 0
}

// cut returns the first half of s (on a rune boundary).
func cut(s string) string {
	r := []rune(s)
	return string(r[:len(r)/2])
}

// English is what the WrongLang fault does to a reply: in a JSON object,
// every string value that is not plain ASCII becomes an English sentence;
// any other reply is replaced by one.
func English(content string) string {
	const en = "I am sorry, but I will answer this in English instead."
	var v any
	if json.Unmarshal([]byte(content), &v) != nil {
		return en
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			for _, r := range x {
				if r >= 0x80 {
					return en
				}
			}
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	b, _ := json.Marshal(walk(v))
	return string(b)
}
