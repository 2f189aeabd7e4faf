package llm

import (
	"math"
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
}

// BeginEstimate starts such a pass (the client must be in batch mode).
func (c *Client) BeginEstimate() { c.beginPass(true) }

// EndEstimate returns the calls the pass made and their prompt tokens,
// estimated from the request bodies (about 4 bytes a token for Latin
// text and JSON, one a character for CJK).
func (c *Client) EndEstimate() Estimate {
	var e Estimate
	for _, r := range c.takeEmitted() {
		e.Calls++
		for _, ch := range string(r.Body) {
			if ch < 0x80 {
				e.PromptTokens += 0.25
			} else {
				e.PromptTokens++
			}
		}
	}
	return e
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
