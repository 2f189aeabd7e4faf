package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// serverProps is what llama.cpp's llama-server says about itself at
// /props (beside /v1): its slots (--parallel) and each slot's context.
type serverProps struct {
	TotalSlots int `json:"total_slots"`
	Defaults   struct {
		NCtx int `json:"n_ctx"`
	} `json:"default_generation_settings"`
}

// fetchProps reads /props of the server at baseURL (its /v1 suffix
// dropped). Servers other than llama-server answer 404: an error.
func fetchProps(ctx context.Context, hc *http.Client, baseURL string, key Secret) (*serverProps, error) {
	u := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1") + "/props"
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if k := key.reveal(); k != "" {
		req.Header.Set("Authorization", "Bearer "+k)
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET /props: %s", key.redact(err.Error()))
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("GET /props: %v", err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /props: HTTP %d", res.StatusCode)
	}
	var p serverProps
	if err := json.Unmarshal(b, &p); err != nil || p.TotalSlots < 1 {
		return nil, fmt.Errorf("GET /props: no total_slots in the reply")
	}
	return &p, nil
}

// fetchOllamaContext reads the context Ollama loaded a model with: the
// context_length of the model in GET /api/ps (beside /v1), which is
// OLLAMA_CONTEXT_LENGTH or the model's num_ctx, not the model's trained
// context that /api/show reports. 0 when the server is not Ollama or the
// model is not loaded. Ollama takes no key: none is sent.
func fetchOllamaContext(ctx context.Context, hc *http.Client, baseURL, model string) int {
	u := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1") + "/api/ps"
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0
	}
	res, err := hc.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if res.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&ps) != nil {
		return 0
	}
	for _, m := range ps.Models {
		if m.Name == model || m.Model == model || m.Name == model+":latest" || m.Model == model+":latest" {
			return m.ContextLength
		}
	}
	return 0
}

// fetchOllamaVersion is Ollama's version from GET /api/version (beside
// /v1), "" when the server is not Ollama.
func fetchOllamaVersion(ctx context.Context, hc *http.Client, baseURL string) string {
	u := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1") + "/api/version"
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return ""
	}
	res, err := hc.Do(req)
	if err != nil {
		return ""
	}
	defer res.Body.Close()
	var v struct {
		Version string `json:"version"`
	}
	if res.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(res.Body, 1<<16)).Decode(&v) != nil {
		return ""
	}
	return v.Version
}
