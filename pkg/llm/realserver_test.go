package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/schemas"
)

// realServer is the base URL of the real llama-server of
// scripts/realserver.sh (llmtest.RealServer); the test is skipped without
// one.
func realServer(t *testing.T) string {
	return llmtest.RealServer(t.Skip)
}

// realConfig is a client of it, with the key it was started with
// (NGKIT_REALSERVER_KEY), if any.
func realConfig(u string) Config {
	return Config{BaseURL: u, Model: "babel-tiny", APIKey: NewSecret(os.Getenv("NGKIT_REALSERVER_KEY")), Stage: "realserver", Concurrency: 4, MaxRetries: 2,
		Timeout: 5 * time.Minute, Backoff: 10 * time.Millisecond, Sampling: Sampling{MaxTokens: 1500}}
}

// Every reply schema, as we send it, is accepted by llama-server's
// grammar engine (response_format json_schema, no fallback allowed) and
// the reply validates against the whole schema file; the schema file
// itself, where it has a bound over the repetition limit, is the 500
// "Failed to parse input" that is not retried.
func TestRealServerSchemas(t *testing.T) {
	u := realServer(t)
	cfg := realConfig(u)
	cfg.ResponseFormat = "json_schema"
	c := testClient(t, cfg)
	var wg sync.WaitGroup
	for _, name := range llmSchemaNames(t) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Call(context.Background(), Request{Call: name, Schema: name,
				Messages: []Message{System("Reply in JSON."), User("Write the reply for a test.")}})
			if err != nil {
				t.Errorf("schema %s: %v", name, err)
				return
			}
			if resp.Gen.TokensIn == 0 || resp.Gen.TokensOut == 0 || resp.Gen.ModelAnswered == "" {
				t.Errorf("schema %s: gen %+v", name, resp.Gen)
			}
			t.Logf("schema %s: %d tokens out, %.1fs, %d retries", name, resp.Gen.TokensOut, resp.Gen.Seconds, resp.Gen.Retries)
		}()
	}
	wg.Wait()

	// The file as it is (maxLength 3000): what llama.cpp cannot compile.
	raw, _ := schemas.LLM("refine_rewrite")
	sch, err := loadSchema("refine_rewrite")
	if err != nil {
		t.Fatal(err)
	}
	whole := *sch
	var doc map[string]any
	json.Unmarshal(raw, &doc)
	delete(doc, "$schema")
	whole.doc, _ = json.Marshal(doc)
	body, err := c.body([]Message{User("x")}, &whole, Sampling{MaxTokens: 50}, formatJSONSchema)
	if err != nil {
		t.Fatal(err)
	}
	_, f := c.send(context.Background(), body)
	if f == nil || !f.badFormat || f.retry || !strings.Contains(f.reason, "HTTP 500") {
		t.Errorf("refine_rewrite with maxLength 3000: %+v", f)
	}
}

// The rest of what a real server does: its slots (--concurrency auto),
// the 400 for a prompt over a slot's context, json_object not enforced
// (the ladder steps down to the prompt, once).
func TestRealServerProtocol(t *testing.T) {
	u := realServer(t)
	slots := 4
	if s, err := strconv.Atoi(os.Getenv("NGKIT_REALSERVER_SLOTS")); err == nil {
		slots = s
	}
	var stderr bytes.Buffer
	cfg := realConfig(u)
	cfg.ConcurrencyAuto, cfg.Stderr = true, &stderr
	c := testClient(t, cfg)
	if c.cfg.Concurrency != slots || c.ctxSize.Load() <= 0 {
		t.Errorf("--concurrency auto: %d calls, context %d; want %d slots: %s", c.cfg.Concurrency, c.ctxSize.Load(), slots, stderr.String())
	}
	nctx := c.ctxSize.Load()

	long := strings.Repeat("The guest thanks the host for a fine dinner. ", int(nctx)/2)
	_, err := c.Call(context.Background(), Request{Call: "long", Messages: []Message{User(long)}})
	want := "longer than the server's context of " + strconv.FormatInt(nctx, 10) + " tokens"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("over the context: %v; want %q", err, want)
	}

	c.format.Store(formatJSONObject)
	c.Call(context.Background(), Request{Call: "object", Schema: "echo", Messages: []Message{User("Reply in JSON.")}})
	if c.mode() != formatPrompt || strings.Count(stderr.String(), "cannot use response_format json_object") != 1 {
		t.Errorf("json_object on llama-server: rung %s; stderr: %s", formatNames[c.mode()], stderr.String())
	}
}
