package llm

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// usage.prompt_tokens_details.cached_tokens is read, priced at the cached
// rate, and reported with its share.
func TestCachedTokensPriced(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"model":"m","choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2000,"completion_tokens":100,"prompt_tokens_details":{"cached_tokens":1536}}}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	prices := filepath.Join(dir, "p.json")
	os.WriteFile(prices, []byte(`{"m": {"input": 1, "cached_input": 0.25, "output": 4}}`), 0o644)
	var stderr strings.Builder
	c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "m", Prices: prices, Stderr: &stderr, MaxRetries: 0})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Call(context.Background(), Request{ID: "a", Call: "x", Messages: []Message{User("q")}})
	if err != nil {
		t.Fatal(err)
	}
	want := (464*1 + 1536*0.25 + 100*4) / 1e6
	if math.Abs(resp.Gen.CostUSD-want) > 1e-12 {
		t.Errorf("gen cost %g, want %g", resp.Gen.CostUSD, want)
	}
	u := c.Usage()
	if u.Total.TokensCached != 1536 || math.Abs(u.Total.CostUSD-want) > 1e-12 || math.Abs(u.Total.CachedSavedUSD-1536*0.75/1e6) > 1e-12 {
		t.Errorf("usage %+v", u.Total)
	}
	c.Close()
	if !strings.Contains(stderr.String(), "(1536 in from the provider's prompt cache, 77%)") || !strings.Contains(stderr.String(), "cached input -$0.0012)") {
		t.Errorf("summary: %s", stderr.String())
	}
}
