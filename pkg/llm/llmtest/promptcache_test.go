package llmtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// cachedOf sends a system and a user message and returns the usage's
// prompt_tokens and cached_tokens.
func cachedOf(t *testing.T, url, system, user string) (prompt, cached int) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{{"role": "system", "content": system}, {"role": "user", "content": user}}})
	resp, err := http.Post(url+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		Usage struct {
			PromptTokens        int `json:"prompt_tokens"`
			PromptTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v.Usage.PromptTokens, v.Usage.PromptTokensDetails.CachedTokens
}

// The fake caches by the providers' rule: a prefix seen before, of at
// least 1,024 tokens (4 bytes each), counted in 128-token steps; the
// shared part may run into the user message.
func TestPromptCache(t *testing.T) {
	s := New(Options{PromptCache: true})
	defer s.Close()
	long := strings.Repeat("rule. ", 1500*4/6) // 1500 tokens of system prompt
	short := strings.Repeat("rule. ", 1000*4/6)
	for _, c := range []struct {
		name, system, user string
		want               int
	}{
		{"first time", long, "record 1", 0},
		// "<|system|>" + 1500 tokens = 1502.5 tokens shared: 11 steps.
		{"same prefix", long, "record 2", 1408},
		{"prefix into the user message", long, "record 2 and more", 1408},
		{"a prefix under 1,024 tokens", short, "record 1", 0},
		{"the same again", short, "record 2", 0},
		{"another system prompt", "other " + long, "record 1", 0},
	} {
		prompt, got := cachedOf(t, s.URL, c.system, c.user)
		if got != c.want || got > prompt {
			t.Errorf("%s: %d of %d tokens cached, want %d", c.name, got, prompt, c.want)
		}
	}
	if st := s.CacheStats(); st.Cached != 2*1408 || st.Prefix != 1408 {
		t.Errorf("stats %+v", st)
	}
	off := New(Options{})
	defer off.Close()
	cachedOf(t, off.URL, long, "a")
	if _, got := cachedOf(t, off.URL, long, "b"); got != 0 {
		t.Errorf("without PromptCache: %d cached", got)
	}
}
