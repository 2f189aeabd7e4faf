package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

func quick(srv *llmtest.Server) Config {
	return Config{BaseURL: srv.URL, Backoff: time.Millisecond, RetryAfterCap: 200 * time.Millisecond, MaxRetries: 3, MaxReasks: 2, Timeout: time.Second}
}

// 400, 401, 403 and 404 cannot succeed: one request, no retry.
func TestNoRetryOnHopelessStatus(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404} {
		srv := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{{Status: status}}})
		_, err := testClient(t, quick(srv)).Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))) || srv.Count() != 1 {
			t.Errorf("status %d: %v after %d requests", status, err, srv.Count())
		}
		srv.Close()
	}
}

// Each retryable fault, once, then a good reply: the call succeeds with
// one retry; given every time, the call gives up after --max-retries.
func TestRetryableFaults(t *testing.T) {
	for _, f := range []llmtest.Fault{llmtest.RateLimit, llmtest.ServerError, llmtest.Unavailable, llmtest.Slow, llmtest.Drop,
		llmtest.Malformed, llmtest.Empty, llmtest.Length, llmtest.ContentFilter, llmtest.Reasoning} {
		srv := llmtest.New(llmtest.Options{Sequence: []llmtest.Fault{f}, SlowFor: 2 * time.Second})
		cfg := quick(srv)
		cfg.Timeout = 100 * time.Millisecond
		resp, err := testClient(t, cfg).Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}})
		if err != nil || resp.Text != "echo: x" || resp.Gen.Retries != 1 || srv.Count() != 2 {
			t.Errorf("fault %s once: %+v %v, %d requests", f, resp, err, srv.Count())
		}
		srv.Close()

		srv = llmtest.New(llmtest.Options{FaultRate: 1, Faults: []llmtest.Fault{f}, SlowFor: 2 * time.Second})
		cfg = quick(srv)
		cfg.Timeout = 100 * time.Millisecond
		_, err = testClient(t, cfg).Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}})
		if err == nil || !strings.Contains(err.Error(), "gave up after 4 attempts") || srv.Count() != 4 {
			t.Errorf("fault %s always: %v, %d requests", f, err, srv.Count())
		}
		srv.Close()
	}
}

// Retry-After(-Ms) is honoured, up to --retry-after-cap.
func TestRetryAfter(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Sequence: []llmtest.Fault{llmtest.RateLimit}, RetryAfter: 150 * time.Millisecond})
	defer srv.Close()
	start := time.Now()
	if _, err := testClient(t, quick(srv)).Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("retried after %s, the server asked for 150ms", d)
	}
	srv2 := llmtest.New(llmtest.Options{Sequence: []llmtest.Fault{llmtest.RateLimit}, RetryAfter: 10 * time.Second})
	defer srv2.Close()
	cfg := quick(srv2)
	cfg.RetryAfterCap = 50 * time.Millisecond
	start = time.Now()
	if _, err := testClient(t, cfg).Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("waited %s: the cap is 50ms", d)
	}
	h := http.Header{}
	h.Set("Retry-After", "2")
	if retryAfter(h) != 2*time.Second {
		t.Error("Retry-After in seconds")
	}
	h.Set("Retry-After-Ms", "250")
	if retryAfter(h) != 250*time.Millisecond {
		t.Error("Retry-After-Ms wins")
	}
	h = http.Header{}
	h.Set("Retry-After", time.Now().Add(3*time.Second).UTC().Format(http.TimeFormat))
	if d := retryAfter(h); d < time.Second || d > 3*time.Second {
		t.Errorf("Retry-After date: %s", d)
	}
}

// An invalid structured reply is asked again with the validation error;
// after --max-reasks the call fails with the reason.
func TestReaskOnInvalidReply(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{
		{Contains: "not valid", Content: `{"text": "고쳤어요", "lang": "ko"}`},
		{Content: "Sure! ```json\n{\"text\": \"\", \"lang\": \"klingon\"}\n```"},
	}})
	defer srv.Close()
	resp, err := testClient(t, quick(srv)).Call(context.Background(), Request{Call: "c", Schema: "echo", Messages: []Message{User("x")}})
	if err != nil || string(resp.JSON) != `{"text":"고쳤어요","lang":"ko"}` || resp.Gen.Retries != 1 {
		t.Fatalf("%+v %v", resp, err)
	}
	reqs := srv.Requests()
	second := reqs[1].Request.Messages
	if len(reqs) != 2 || len(second) != 3 || second[1].Role != "assistant" || !strings.Contains(second[2].Text(), "/lang: value must be one of") {
		t.Errorf("re-ask messages: %+v", second)
	}

	bad := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{{Content: "I cannot do JSON, sorry."}}})
	defer bad.Close()
	_, err = testClient(t, quick(bad)).Call(context.Background(), Request{Call: "c", Schema: "echo", Messages: []Message{User("x")}})
	// Still invalid after the 2 re-asks: tried afresh (3 retries), as
	// --max-reasks says; 6 requests in all, then the call fails.
	if err == nil || !strings.Contains(err.Error(), "gave up after 6 attempts: the model refused instead of answering") || bad.Count() != 6 {
		t.Errorf("%v after %d requests", err, bad.Count())
	}
	for i, r := range bad.Requests() {
		if want := []int{1, 3, 5, 1, 1, 1}[i]; len(r.Request.Messages) != want {
			t.Errorf("request %d has %d messages, want %d (re-asks, then fresh attempts)", i, len(r.Request.Messages), want)
		}
	}
}

// The response-format ladder, on what real servers answer: a server
// without json_schema support (400 naming it) gets json_object; llama.cpp
// answering 500 "Failed to parse input" (a grammar it could not compile)
// or 400 "Failed to initialize samplers" steps down too, and its silent
// ignoring of json_object (a reply that is no JSON) steps down to the
// schema in the prompt. Each step is taken once for the run, said once on
// stderr, and costs no retry.
func TestResponseFormatLadder(t *testing.T) {
	fenced := func(req *llmtest.ChatRequest) string { return "Here you go:\n```json\n" + koReply(req) + "\n```" }
	for _, tc := range []struct {
		name     string
		opt      llmtest.Options
		statuses []int  // of the requests of the first call
		rung     string // response_format type in use at the end ("" none)
		notes    int
	}{
		{"400 json_schema not supported", llmtest.Options{RejectJSONSchema: true, Reply: fenced}, []int{400, 200}, "json_object", 1},
		{"llama-server: 500 Failed to parse input, json_object ignored", llmtest.Options{Reply: fenced, Rules: []llmtest.Rule{
			{Format: "json_schema", Status: 500, Message: "Failed to parse input at pos 22: 억 깜서 벧"},
			{Format: "json_object", Content: "ten he!"},
		}}, []int{500, 200, 200}, "", 2},
		{"Ollama: 500 invalid JSON schema in format", llmtest.Options{Reply: fenced, Rules: []llmtest.Rule{
			{Format: "json_schema", Status: 500, Message: "invalid JSON schema in format"},
		}}, []int{500, 200}, "json_object", 1},
		{"400 Failed to initialize samplers", llmtest.Options{Reply: fenced, Rules: []llmtest.Rule{
			{Format: "json_schema", Status: 400, Message: "Failed to initialize samplers"},
			{Format: "json_object", Status: 400, Message: "Failed to initialize samplers"},
		}}, []int{400, 400, 200}, "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(tc.opt)
			defer srv.Close()
			var stderr bytes.Buffer
			cfg := quick(srv)
			cfg.Stderr = &stderr
			c := testClient(t, cfg)
			for i := 0; i < 3; i++ {
				resp, err := c.Call(context.Background(), Request{Call: "c", Schema: "echo", Messages: []Message{System("Be kind."), User("x")}, Check: koreanCheck})
				if err != nil || !strings.Contains(string(resp.JSON), "안녕하세요") {
					t.Fatalf("call %d: %+v %v", i, resp, err)
				}
			}
			reqs := srv.Requests()
			if len(reqs) != len(tc.statuses)+2 {
				t.Fatalf("%d requests, want %d", len(reqs), len(tc.statuses)+2)
			}
			for i, st := range tc.statuses {
				if reqs[i].Status != st {
					t.Errorf("request %d: status %d, want %d", i, reqs[i].Status, st)
				}
			}
			for _, r := range reqs[len(tc.statuses):] {
				got := ""
				if rf := r.Request.ResponseFormat; rf != nil {
					got = rf.Type
				}
				if got != tc.rung {
					t.Errorf("later request with response_format %q, want %q", got, tc.rung)
				}
				sys := r.Request.Messages[0].Text()
				if !strings.HasPrefix(sys, "Be kind.\n\nReply with only a JSON object") || !strings.Contains(sys, `"required":["text","lang"]`) {
					t.Errorf("system message: %s", sys)
				}
			}
			if n := strings.Count(stderr.String(), "cannot use response_format"); n != tc.notes {
				t.Errorf("%d notes, want %d: %s", n, tc.notes, stderr.String())
			}
		})
	}

	// Chosen by hand, json_schema stays: a 500 "Failed to parse input" is
	// not retried as if transient, and the error says what to do.
	srv := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{{Status: 500, Message: "Failed to parse input at pos 22: 킷톳"}}})
	defer srv.Close()
	cfg := quick(srv)
	cfg.ResponseFormat = "json_schema"
	_, err := testClient(t, cfg).Call(context.Background(), Request{Call: "c", Schema: "echo", Messages: []Message{User("x")}})
	if err == nil || !strings.Contains(err.Error(), "Failed to parse input") || !strings.Contains(err.Error(), "--response-format prompt") || srv.Count() != 1 {
		t.Errorf("%v after %d requests", err, srv.Count())
	}
}

// Leaked reasoning fails; a closed reasoning block before the answer is
// how reasoning models answer, and is removed.
func TestReasoningBlocks(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{{Content: "<think>Korean, short.</think>\n{\"text\":\"네\",\"lang\":\"ko\"}"}}})
	defer srv.Close()
	resp, err := testClient(t, quick(srv)).Call(context.Background(), Request{Call: "c", Schema: "echo", Messages: []Message{User("x")}})
	if err != nil || string(resp.JSON) != `{"text":"네","lang":"ko"}` {
		t.Errorf("%+v %v", resp, err)
	}
}

// --deadline stops calling: the records not done fail with the reason.
func TestDeadline(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Latency: 30 * time.Millisecond})
	defer srv.Close()
	cfg := quick(srv)
	cfg.Deadline = 100 * time.Millisecond
	cfg.Concurrency = 1
	c := testClient(t, cfg)
	var ok, late int
	for i := 0; i < 10; i++ {
		_, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User(strings.Repeat("x", i+1))}})
		switch {
		case err == nil:
			ok++
		case strings.Contains(err.Error(), "--deadline (100ms) passed"):
			late++
		default:
			t.Fatal(err)
		}
	}
	if ok == 0 || late == 0 || ok > 4 {
		t.Errorf("%d answered, %d after the deadline", ok, late)
	}
}

// Cancellation (Ctrl-C) ends a call at once, without retrying.
func TestCancelStopsACall(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Latency: 5 * time.Second})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := testClient(t, quick(srv)).Call(ctx, Request{Call: "c", Messages: []Message{User("x")}})
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || err == nil || time.Since(start) > time.Second || srv.Count() != 1 {
		t.Errorf("%v after %s, %d requests", err, time.Since(start), srv.Count())
	}
}

// A cancelled call's error says so to errors.Is.
func TestCancelIsVisible(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Latency: time.Second})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := testClient(t, quick(srv)).Call(ctx, Request{Call: "c", Messages: []Message{User("x")}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v", err)
	}
}

// A deterministic request (temperature 0) whose reply is valid but
// unusable is not sent again unchanged: its re-asks change it, then the
// call stops (before, each fresh attempt resent the first request and
// its re-asks byte for byte). Otherwise fresh attempts go on.
func TestNoIdenticalRetries(t *testing.T) {
	zero, warm := 0.0, 0.7
	for _, tc := range []struct {
		temp *float64
		want int
	}{{&zero, 3}, {&warm, 3 + 2}, {nil, 3 + 2}} {
		srv := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{{Content: "B"}}})
		cfg := quick(srv)
		cfg.MaxRetries, cfg.MaxReasks = 2, 2
		c := testClient(t, cfg)
		bad := func(*Response) (any, error) { return nil, errors.New("not the label wanted") }
		_, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User("A or B?")}, Check: bad,
			Sampling: &Sampling{Temperature: tc.temp, MaxTokens: 1}})
		if err == nil || !errors.Is(err, ErrBadReply) {
			t.Errorf("err %v, want ErrBadReply", err)
		}
		reqs := srv.Requests()
		if len(reqs) != tc.want {
			t.Errorf("temperature %v: %d requests, want %d", tc.temp != nil && *tc.temp == 0, len(reqs), tc.want)
		}
		if tc.temp == &zero {
			seen := map[string]bool{}
			for _, r := range reqs {
				if seen[string(r.Body)] {
					t.Errorf("sent twice: %s", r.Body)
				}
				seen[string(r.Body)] = true
			}
		}
		srv.Close()
	}
}

// A server that answered and then refuses connections (a restart) is
// waited for, said once on stderr, and the calls go on when it is back;
// one that stays down fails the calls after --wait-server; one never
// reached fails at the first refusal (in seconds, not after the
// retries).
func TestServerRestart(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_, hs := llmtest.Listen(l, llmtest.Options{})
	var stderr bytes.Buffer
	cfg := Config{BaseURL: "http://" + addr + "/v1", Backoff: time.Millisecond, RetryAfterCap: 50 * time.Millisecond,
		MaxRetries: 1, Timeout: time.Second, WaitServer: 10 * time.Second, Stderr: &stderr}
	c := testClient(t, cfg)
	call := func() error {
		_, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}})
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	hs.Close() // killed
	errs := make(chan error, 8)
	for range 8 {
		go func() { errs <- call() }()
	}
	time.Sleep(300 * time.Millisecond)
	l2, err := net.Listen("tcp", addr) // back on the same port
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	_, hs2 := llmtest.Listen(l2, llmtest.Options{})
	for range 8 {
		if err := <-errs; err != nil {
			t.Errorf("a call across the restart failed: %v", err)
		}
	}
	if n := strings.Count(stderr.String(), "refused; retrying for up to 10s"); n != 1 {
		t.Errorf("%d notes: %q", n, stderr.String())
	}
	u := c.Usage().Total
	// Waits are not retries (a retry is a request the server dropped, on a
	// connection it had open).
	if u.Calls != 9 || u.Retries != u.Faults["connection"] || u.Faults["refused"] == 0 || u.Attempts != u.Requests+u.Faults["refused"] {
		t.Errorf("usage %+v", u)
	}

	// Down for good: the calls fail after --wait-server.
	hs2.Close()
	c.cfg.WaitServer = 200 * time.Millisecond
	start := time.Now()
	err = call()
	if err == nil || !strings.Contains(err.Error(), "(--wait-server 200ms)") || time.Since(start) < 150*time.Millisecond {
		t.Errorf("after %s: %v", time.Since(start), err)
	}

	// Never reached: at once.
	c = testClient(t, cfg)
	start = time.Now()
	if err := call(); err == nil || !strings.Contains(err.Error(), "is the server running?") || time.Since(start) > time.Second {
		t.Errorf("never reached, after %s: %v", time.Since(start), err)
	}
}

// A server that dies while the client's first call is in flight (it took
// the connection, then dropped it: seen with a task's first call on the
// Slurm array of scripts/slurm.sh when llama-server was killed) was there:
// its refusals are waited out like a restart's, not failed at once as for
// a wrong --base-url.
func TestServerDiesDuringFirstCall(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	go func() { // takes one connection, reads the request, dies
		conn, err := l.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 4096)
		conn.Read(buf)
		l.Close()
		conn.Close()
	}()
	cfg := Config{BaseURL: "http://" + addr + "/v1", Backoff: time.Millisecond, RetryAfterCap: 50 * time.Millisecond,
		MaxRetries: 1, Timeout: 5 * time.Second, WaitServer: 10 * time.Second, Stderr: io.Discard}
	c := testClient(t, cfg)
	errs := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}})
		errs <- err
	}()
	time.Sleep(500 * time.Millisecond)
	select {
	case err := <-errs:
		t.Fatalf("the call did not wait for the server: %v", err)
	default:
	}
	l2, err := net.Listen("tcp", addr) // back on the same port
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	_, hs := llmtest.Listen(l2, llmtest.Options{})
	defer hs.Close()
	if err := <-errs; err != nil {
		t.Errorf("the call across the restart failed: %v", err)
	}
}

// A reply to a request sent before the server began refusing (it was on
// its way when the server died) does not end the outage: the restart is
// said once on stderr, not again at the next refusal (seen on CI when
// Ollama was killed under four workers). A reply to a request sent
// after the refusals began does end it, and a later outage is said anew.
func TestOutageEndsOnlyOnAFreshReply(t *testing.T) {
	var stderr bytes.Buffer
	c := testClient(t, Config{BaseURL: "http://127.0.0.1:9/v1", Backoff: time.Millisecond, RetryAfterCap: time.Millisecond,
		WaitServer: time.Minute, Stderr: &stderr})
	c.reached.Store(true)
	refused := func() {
		t.Helper()
		if err := c.awaitServer(context.Background(), &failure{reason: "refused", kind: "refused"}, 1); err != nil {
			t.Fatal(err)
		}
	}
	before := time.Now().UnixNano()
	time.Sleep(time.Millisecond)
	refused()
	c.answered(before) // an answer from before the death
	refused()
	if n := strings.Count(stderr.String(), "retrying for up to"); n != 1 {
		t.Fatalf("%d notes for one outage: %q", n, stderr.String())
	}
	time.Sleep(time.Millisecond)
	c.answered(time.Now().UnixNano()) // back
	if c.down.Load() != 0 {
		t.Fatal("a fresh reply did not end the outage")
	}
	refused()
	if n := strings.Count(stderr.String(), "retrying for up to"); n != 2 {
		t.Fatalf("a second outage: %d notes: %q", n, stderr.String())
	}
}
