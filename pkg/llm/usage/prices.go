package usage

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens.
//
// CachedInput is the price of prompt tokens the provider served from its
// prompt cache (usage.prompt_tokens_details.cached_tokens); BatchInput,
// BatchOutput and BatchCachedInput are the Batch API's. A price left at 0
// is the list price (no discount assumed).
type Price struct {
	Input            float64 `json:"input"`
	Output           float64 `json:"output"`
	CachedInput      float64 `json:"cached_input,omitempty"`
	BatchInput       float64 `json:"batch_input,omitempty"`
	BatchOutput      float64 `json:"batch_output,omitempty"`
	BatchCachedInput float64 `json:"batch_cached_input,omitempty"`
}

// OpenAIHost is the host whose models the built-in prices are for.
const OpenAIHost = "api.openai.com"

// builtinPrices are OpenAI's list prices (standard tier, USD per 1M
// tokens: input, cached input, output) as published in 2025; the Batch
// API's are half of each (openAIBatch). They go out of date: --prices
// FILE overrides or extends them. Models not listed (local ones) are not
// priced.
var builtinPrices = openAIBatch(map[string]Price{
	"gpt-5":         {Input: 1.25, CachedInput: 0.125, Output: 10.00},
	"gpt-5-mini":    {Input: 0.25, CachedInput: 0.025, Output: 2.00},
	"gpt-5-nano":    {Input: 0.05, CachedInput: 0.005, Output: 0.40},
	"gpt-4.1":       {Input: 2.00, CachedInput: 0.50, Output: 8.00},
	"gpt-4.1-mini":  {Input: 0.40, CachedInput: 0.10, Output: 1.60},
	"gpt-4.1-nano":  {Input: 0.10, CachedInput: 0.025, Output: 0.40},
	"gpt-4o":        {Input: 2.50, CachedInput: 1.25, Output: 10.00},
	"gpt-4o-mini":   {Input: 0.15, CachedInput: 0.075, Output: 0.60},
	"o3":            {Input: 2.00, CachedInput: 0.50, Output: 8.00},
	"o3-mini":       {Input: 1.10, CachedInput: 0.55, Output: 4.40},
	"o4-mini":       {Input: 1.10, CachedInput: 0.275, Output: 4.40},
	"gpt-3.5-turbo": {Input: 0.50, Output: 1.50},
})

// openAIBatch sets the Batch API prices: half of list.
func openAIBatch(t map[string]Price) map[string]Price {
	for k, p := range t {
		p.BatchInput, p.BatchOutput, p.BatchCachedInput = p.Input/2, p.Output/2, p.CachedInput/2
		t[k] = p
	}
	return t
}

// Prices is a price table: model name to price.
type Prices map[string]Price

// LoadPrices returns the entries of file (a JSON object {"model":
// {"input": USD, "output": USD}} per million tokens) over the built-in
// table when builtin is set (the endpoint is OpenAI's), else alone; file
// "" adds nothing.
func LoadPrices(file string, builtin bool) (Prices, error) {
	t := make(Prices, len(builtinPrices))
	if builtin {
		for k, v := range builtinPrices {
			t[k] = v
		}
	}
	if file == "" {
		return t, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--prices: %w", err)
	}
	var m map[string]Price
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("--prices %s: want {\"model\": {\"input\": USD, \"output\": USD}} per million tokens: %v", file, err)
	}
	for k, v := range m {
		t[k] = v
	}
	return t, nil
}

// For finds model's price: an exact entry, else the longest entry
// that model extends with a dated or other suffix ("gpt-4o-mini-2024-07-18"
// -> "gpt-4o-mini"), also after a provider prefix ("openai/gpt-4o").
func (t Prices) For(model string) (Price, bool) {
	for _, m := range []string{model, model[strings.LastIndexByte(model, '/')+1:]} {
		if p, ok := t[m]; ok {
			return p, true
		}
		best := ""
		for k := range t {
			if strings.HasPrefix(m, k+"-") && len(k) > len(best) {
				best = k
			}
		}
		if best != "" {
			return t[best], true
		}
	}
	return Price{}, false
}

// Cost is what a call (or a sum of calls) costs, by component.
type Cost struct {
	// USD is the estimate of the bill: cached input at its price, batch
	// calls at the batch price.
	USD float64
	// ListUSD is the same tokens at the list price, none cached;
	// CachedSavedUSD and BatchSavedUSD are what the prompt cache and the
	// Batch API took off it (ListUSD = USD + CachedSavedUSD + BatchSavedUSD).
	ListUSD, CachedSavedUSD, BatchSavedUSD float64
}

// Costs prices in prompt tokens (cached of them from the provider's
// prompt cache) and out completion tokens, online or in a batch.
func (p Price) Costs(in, cached, out int64, batch bool) Cost {
	or := func(v, def float64) float64 {
		if v > 0 {
			return v
		}
		return def
	}
	cached = min(max(cached, 0), in)
	ci := or(p.CachedInput, p.Input)
	list := (float64(in)*p.Input + float64(out)*p.Output) / 1e6
	online := (float64(in-cached)*p.Input + float64(cached)*ci + float64(out)*p.Output) / 1e6
	c := Cost{USD: online, ListUSD: list, CachedSavedUSD: list - online}
	if batch {
		c.USD = (float64(in-cached)*or(p.BatchInput, p.Input) + float64(cached)*or(p.BatchCachedInput, ci) + float64(out)*or(p.BatchOutput, p.Output)) / 1e6
		c.BatchSavedUSD = online - c.USD
	}
	return c
}
