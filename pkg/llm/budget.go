package llm

import (
	"math"
	"sort"
	"sync"
	"sync/atomic"
)

// Budget is --budget: the spend estimate of a run's calls (every client
// of it: Config.Budget), and what to do once it reaches the limit.
type Budget struct {
	Limit float64
	// OnReach is called once, when the spend reaches Limit.
	OnReach func()
	spent   atomic.Uint64 // float64 bits
	once    sync.Once
}

// Add counts the cost of a call.
func (b *Budget) Add(usd float64) {
	if b == nil || usd <= 0 {
		return
	}
	for {
		old := b.spent.Load()
		n := math.Float64frombits(old) + usd
		if b.spent.CompareAndSwap(old, math.Float64bits(n)) {
			if n >= b.Limit && b.OnReach != nil {
				b.once.Do(b.OnReach)
			}
			return
		}
	}
}

// Spent is the spend so far.
func (b *Budget) Spent() float64 {
	if b == nil {
		return 0
	}
	return math.Float64frombits(b.spent.Load())
}

// Reached says whether the spend reached the limit.
func (b *Budget) Reached() bool { return b != nil && b.Spent() >= b.Limit }

// Priced says whether the client's model has a price (--budget needs one).
func (c *Client) Priced() bool {
	_, ok := priceFor(c.prices, c.cfg.Model)
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
	// would serve: each request's longest prefix shared with another
	// request of the pass, in 128-token steps from 1,024 (as if the run
	// had already sent it: true for all but the first of each prefix).
	CachedTokens float64
}

// BeginEstimate starts such a pass (the client must be in batch mode).
func (c *Client) BeginEstimate() { c.BeginPass(true) }

// EndEstimate returns the calls the pass made and their prompt tokens,
// estimated from the request bodies (about 4 bytes a token for Latin
// text and JSON, one a character for CJK).
func (c *Client) EndEstimate() Estimate {
	var e Estimate
	emitted := c.TakeEmitted()
	bodies := make([]string, 0, len(emitted))
	for _, r := range emitted {
		e.Calls++
		e.PromptTokens += tokensOf(string(r.Body))
		bodies = append(bodies, string(r.Body))
	}
	// In sorted order, a body's longest prefix shared with any other is
	// shared with a neighbour.
	sort.Strings(bodies)
	lcp := func(a, b string) int {
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return n
	}
	for i, b := range bodies {
		n := 0
		if i > 0 {
			n = lcp(b, bodies[i-1])
		}
		if i+1 < len(bodies) {
			n = max(n, lcp(b, bodies[i+1]))
		}
		if t := math.Floor(tokensOf(b[:n])/128) * 128; t >= 1024 {
			e.CachedTokens += t
		}
	}
	return e
}

// tokensOf guesses the tokens of s: 4 bytes a token for Latin text and
// JSON, one a character for CJK.
func tokensOf(s string) float64 {
	t := 0.0
	for _, ch := range s {
		if ch < 0x80 {
			t += 0.25
		} else {
			t++
		}
	}
	return t
}

// CostWithCache is CostOf with cached of the in tokens at the
// cached-input price.
func (c *Client) CostWithCache(in, cached, out float64, batch bool) (usd float64, ok bool) {
	p, ok := priceFor(c.prices, c.cfg.Model)
	if !ok {
		return 0, false
	}
	return p.costs(int64(in), int64(cached), int64(out), batch).USD, true
}

// CostOf is what in and out tokens cost at the client's price, online
// or at the batch rate; ok is false for an unpriced model.
func (c *Client) CostOf(in, out float64, batch bool) (usd float64, ok bool) {
	p, ok := priceFor(c.prices, c.cfg.Model)
	if !ok {
		return 0, false
	}
	return p.costs(int64(in), 0, int64(out), batch).USD, true
}
