package llm

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// builtinPrices are OpenAI's list prices (standard tier, USD per 1M
// tokens) as published in 2025. They go out of date: --prices FILE
// overrides or extends them. Models not listed (local ones) are not priced.
var builtinPrices = map[string]Price{
	"gpt-5":         {1.25, 10.00},
	"gpt-5-mini":    {0.25, 2.00},
	"gpt-5-nano":    {0.05, 0.40},
	"gpt-4.1":       {2.00, 8.00},
	"gpt-4.1-mini":  {0.40, 1.60},
	"gpt-4.1-nano":  {0.10, 0.40},
	"gpt-4o":        {2.50, 10.00},
	"gpt-4o-mini":   {0.15, 0.60},
	"o3":            {2.00, 8.00},
	"o3-mini":       {1.10, 4.40},
	"o4-mini":       {1.10, 4.40},
	"gpt-3.5-turbo": {0.50, 1.50},
}

// loadPrices returns the entries of file (a JSON object {"model":
// {"input": USD, "output": USD}} per million tokens) over the built-in
// table when builtin is set (the endpoint is OpenAI's), else alone; file
// "" adds nothing.
func loadPrices(file string, builtin bool) (map[string]Price, error) {
	t := make(map[string]Price, len(builtinPrices))
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

// priceFor finds model's price: an exact entry, else the longest entry
// that model extends with a dated or other suffix ("gpt-4o-mini-2024-07-18"
// -> "gpt-4o-mini"), also after a provider prefix ("openai/gpt-4o").
func priceFor(t map[string]Price, model string) (Price, bool) {
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

func (p Price) cost(in, out int64) float64 {
	return (float64(in)*p.Input + float64(out)*p.Output) / 1e6
}
