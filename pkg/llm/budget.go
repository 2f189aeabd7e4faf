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
