package usage

import (
	"math"
	"sort"
	"sync"
	"sync/atomic"
)

// Budget is --budget: the spend estimate of a run's calls (every client
// of it), and what to do once it reaches the limit.
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

// EstimateTokens guesses the prompt tokens of request bodies (about 4
// bytes a token for Latin text and JSON, one a character for CJK), and
// those of them a provider's prompt cache would serve: each body's
// longest prefix shared with another body, in 128-token steps from 1,024
// (as if the run had already sent it: true for all but the first of each
// prefix). bodies is sorted in place.
func EstimateTokens(bodies []string) (prompt, cached float64) {
	for _, b := range bodies {
		prompt += tokensOf(b)
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
			cached += t
		}
	}
	return prompt, cached
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
