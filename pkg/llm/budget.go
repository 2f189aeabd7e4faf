package llm

import "github.com/ngkit/ngkit/pkg/llm/usage"

// Priced says whether the client's model has a price (--budget needs one).
func (c *Client) Priced() bool {
	_, ok := c.prices.For(c.cfg.Model)
	return ok
}

// Model is the model the client asks for.
func (c *Client) Model() string { return c.cfg.Model }

// Estimate is a client's view of one pass made only to see the calls
// (--estimate): no request is sent.
type Estimate struct {
	Calls        int
	PromptTokens float64 // estimated, all calls
	// CachedTokens are those of PromptTokens a provider's prompt cache
	// would serve (usage.EstimateTokens).
	CachedTokens float64
}

// BeginEstimate starts such a pass (the client must be in batch mode).
func (c *Client) BeginEstimate() { c.BeginPass(true) }

// EndEstimate returns the calls the pass made and their prompt tokens,
// estimated from the request bodies (about 4 bytes a token for Latin
// text and JSON, one a character for CJK).
func (c *Client) EndEstimate() Estimate {
	emitted := c.TakeEmitted()
	bodies := make([]string, 0, len(emitted))
	for _, r := range emitted {
		bodies = append(bodies, string(r.Body))
	}
	e := Estimate{Calls: len(bodies)}
	e.PromptTokens, e.CachedTokens = usage.EstimateTokens(bodies)
	return e
}

// CostWithCache is CostOf with cached of the in tokens at the
// cached-input price.
func (c *Client) CostWithCache(in, cached, out float64, batch bool) (usd float64, ok bool) {
	p, ok := c.prices.For(c.cfg.Model)
	if !ok {
		return 0, false
	}
	return p.Costs(int64(in), int64(cached), int64(out), batch).USD, true
}

// CostOf is what in and out tokens cost at the client's price, online
// or at the batch rate; ok is false for an unpriced model.
func (c *Client) CostOf(in, out float64, batch bool) (usd float64, ok bool) {
	p, ok := c.prices.For(c.cfg.Model)
	if !ok {
		return 0, false
	}
	return p.Costs(int64(in), 0, int64(out), batch).USD, true
}
