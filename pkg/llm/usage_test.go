package llm

import (
	"testing"
)

// The built-in prices apply at api.openai.com only.
func TestBuiltinPricesOnlyAtOpenAI(t *testing.T) {
	for url, want := range map[string]bool{OpenAIBaseURL: true, "http://localhost:11434/v1": false, "https://api.openai.com.evil.example/v1": false} {
		c, err := New(Config{BaseURL: url, Model: "gpt-4o-mini"})
		if err != nil {
			t.Fatal(err)
		}
		if u := c.Usage(); u.Priced != want {
			t.Errorf("%s: priced %v, want %v", url, u.Priced, want)
		}
	}
}

func TestPriceLookup(t *testing.T) {
	tab, _ := loadPrices("", true)
	for model, want := range map[string]float64{"gpt-4o": 2.5, "gpt-4o-mini": 0.15, "gpt-4o-mini-2024-07-18": 0.15, "openai/gpt-4.1-nano": 0.10, "gpt-4o-2024-08-06": 2.5} {
		if p, ok := priceFor(tab, model); !ok || p.Input != want {
			t.Errorf("%s: %v %v", model, p, ok)
		}
	}
	if _, ok := priceFor(tab, "llama3.1:8b"); ok {
		t.Error("a local model is priced")
	}
	if _, err := loadPrices("/nonexistent/prices.json", true); err == nil {
		t.Error("missing price file accepted")
	}
}
