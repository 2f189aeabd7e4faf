package llm

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

func testClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "fake"
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 4
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

// A second identical call is a hit; a change of any part of the key —
// endpoint, model, messages, schema, each sampling parameter — is a miss.
// The API key is not part of it.
func TestCacheKeyParts(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	srv2 := llmtest.New(llmtest.Options{})
	defer srv2.Close()
	dir := t.TempDir()
	base := Config{BaseURL: srv.URL, CacheDir: dir}
	req := Request{ID: "r1", Call: "c", Messages: []Message{System("be brief"), User("hello")}}

	call := func(cfg Config, r Request) (hit bool) {
		t.Helper()
		resp, err := testClient(t, cfg).Call(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Gen.CacheHit
	}
	if call(base, req) {
		t.Fatal("first call was a hit")
	}
	if !call(base, req) {
		t.Fatal("identical call was a miss")
	}
	other := base
	other.APIKey = NewSecret("sk-another-key")
	if !call(other, req) {
		t.Error("another API key made a miss: the key must not be part of the cache key")
	}
	misses := map[string]func() (Config, Request){
		"base URL": func() (Config, Request) { c := base; c.BaseURL = srv2.URL; return c, req },
		"model":    func() (Config, Request) { c := base; c.Model = "fake-2"; return c, req },
		"message": func() (Config, Request) {
			r := req
			r.Messages = []Message{System("be brief"), User("hello!")}
			return base, r
		},
		"role": func() (Config, Request) {
			r := req
			r.Messages = []Message{User("be brief"), User("hello")}
			return base, r
		},
		"schema":      func() (Config, Request) { r := req; r.Schema = "echo"; return base, r },
		"temperature": func() (Config, Request) { c := base; c.Sampling.Temperature = f64(0.7); return c, req },
		"top_p":       func() (Config, Request) { c := base; c.Sampling.TopP = f64(0.9); return c, req },
		"max_tokens":  func() (Config, Request) { c := base; c.Sampling.MaxTokens = 100; return c, req },
		"seed":        func() (Config, Request) { c := base; c.Sampling.Seed = i64(1); return c, req },
		"request sampling": func() (Config, Request) {
			r := req
			r.Sampling = &Sampling{Temperature: f64(0.1)}
			return base, r
		},
	}
	for name, mk := range misses {
		cfg, r := mk()
		before := srv.Count() + srv2.Count()
		if call(cfg, r) {
			t.Errorf("a change of %s was a hit", name)
		}
		if srv.Count()+srv2.Count() != before+1 {
			t.Errorf("%s: no request sent", name)
		}
		if !call(cfg, r) {
			t.Errorf("%s: the second call was a miss", name)
		}
	}
}

// Invalid replies are not cached, and a cached reply that the checks
// now refuse is not used.
func TestCacheKeepsOnlyAcceptedReplies(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Sequence: []llmtest.Fault{llmtest.Empty}})
	defer srv.Close()
	c := testClient(t, Config{BaseURL: srv.URL, CacheDir: t.TempDir(), Backoff: 1, MaxRetries: 2})
	req := Request{Call: "c", Messages: []Message{User("x")}}
	if _, err := c.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if srv.Count() != 2 {
		t.Fatalf("%d requests, want the empty reply retried once", srv.Count())
	}
	resp, err := c.Call(context.Background(), req)
	if err != nil || !resp.Gen.CacheHit || resp.Text != "echo: x" {
		t.Fatalf("second call: %+v %v", resp, err)
	}
	req.Check = func(*Response) (any, error) { return nil, fmt.Errorf("no longer good enough") }
	if _, err := c.Call(context.Background(), req); err == nil || srv.Count() != 5 {
		t.Errorf("a refused cache entry was used: %v, %d requests", err, srv.Count())
	}
}

// Separate clients (as separate programs would have) hammering one key
// concurrently: every call succeeds, and the entry is whole.
func TestCacheConcurrentClients(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		c := testClient(t, Config{BaseURL: srv.URL, CacheDir: dir})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				resp, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User(fmt.Sprint("q", j%5))}})
				if err != nil || !strings.HasPrefix(resp.Text, "echo: q") {
					t.Errorf("%+v %v", resp, err)
				}
			}
		}()
	}
	wg.Wait()
	if srv.Count() > 8*5 {
		t.Errorf("%d requests for 5 distinct calls in 8 clients", srv.Count())
	}
}

// An entry cut short (a crash in the middle of a write) is a miss, and
// the entries appended after it are whole.
func TestCacheSurvivesTornEntry(t *testing.T) {
	c, _ := OpenCache(t.TempDir())
	k1, k2 := strings.Repeat("a", 64), strings.Repeat("a", 62)+"bb"
	f, _ := os.OpenFile(c.bucket(k1), os.O_CREATE|os.O_WRONLY, 0o600)
	f.WriteString("\n" + k1 + "\t{\"content\":\"cut sh")
	f.Close()
	if _, ok := c.get(k1); ok {
		t.Fatal("torn entry read")
	}
	c.put(k2, &cacheEntry{Content: "two"})
	c.put(k1, &cacheEntry{Content: "one"})
	if e, ok := c.get(k2); !ok || e.Content != "two" {
		t.Errorf("entry after a torn one: %+v", e)
	}
	if e, ok := c.get(k1); !ok || e.Content != "one" {
		t.Errorf("rewritten entry: %+v", e)
	}
}

// The flags' endpoint keeps the cache keys it had before roles; a models
// file's alias is part of the key.
func TestRolesCacheEndpoint(t *testing.T) {
	for _, c := range []struct{ alias, want string }{{"", "http://x/v1"}, {DefaultAlias, "http://x/v1"}, {"a", "http://x/v1\x00alias=a"}} {
		cl, err := New(Config{BaseURL: "http://x/v1", Model: "m", Alias: c.alias})
		if err != nil {
			t.Fatal(err)
		}
		if got := cl.cacheEndpoint(); got != c.want {
			t.Errorf("alias %q: %q, want %q", c.alias, got, c.want)
		}
	}
}
