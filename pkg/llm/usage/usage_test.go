package usage

import (
	"math"
	"strings"
	"testing"
)

func TestPriceCosts(t *testing.T) {
	p := builtinPrices["gpt-4o-mini"]
	if p.BatchInput != 0.075 || p.BatchOutput != 0.30 || p.CachedInput != 0.075 || p.BatchCachedInput != 0.0375 {
		t.Fatalf("gpt-4o-mini %+v", p)
	}
	// 1M in (400k cached), 1M out.
	on, bt := p.Costs(1e6, 4e5, 1e6, false), p.Costs(1e6, 4e5, 1e6, true)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(on.ListUSD, 0.75) || !near(on.USD, 0.6*0.15+0.4*0.075+0.60) || !near(on.CachedSavedUSD, 0.4*0.075) || on.BatchSavedUSD != 0 {
		t.Errorf("online %+v", on)
	}
	if !near(bt.USD, on.USD/2) || !near(bt.ListUSD, 0.75) || !near(bt.ListUSD, bt.USD+bt.CachedSavedUSD+bt.BatchSavedUSD) {
		t.Errorf("batch %+v", bt)
	}
	// A price with no cached or batch entries: list price throughout.
	plain := Price{Input: 1, Output: 2}
	if c := plain.Costs(1e6, 5e5, 1e6, true); !near(c.USD, 3) || c.CachedSavedUSD != 0 || c.BatchSavedUSD != 0 {
		t.Errorf("plain %+v", c)
	}
}

func TestPriceLookup(t *testing.T) {
	tab, _ := LoadPrices("", true)
	for model, want := range map[string]float64{"gpt-4o": 2.5, "gpt-4o-mini": 0.15, "gpt-4o-mini-2024-07-18": 0.15, "openai/gpt-4.1-nano": 0.10, "gpt-4o-2024-08-06": 2.5} {
		if p, ok := tab.For(model); !ok || p.Input != want {
			t.Errorf("%s: %v %v", model, p, ok)
		}
	}
	if _, ok := tab.For("llama3.1:8b"); ok {
		t.Error("a local model is priced")
	}
	if _, err := LoadPrices("/nonexistent/prices.json", true); err == nil {
		t.Error("missing price file accepted")
	}
}

// One is singular: "1 call answered; 1 request", not "1 calls".
func TestUsageLineNumber(t *testing.T) {
	r := &Report{Priced: true}
	if got := (&CallStats{Calls: 1, Requests: 1}).line(r); !strings.HasPrefix(got, "1 call answered; 1 request;") {
		t.Errorf("%q", got)
	}
	if got := (&CallStats{Calls: 2, Requests: 3}).line(r); !strings.HasPrefix(got, "2 calls answered; 3 requests;") {
		t.Errorf("%q", got)
	}
}
