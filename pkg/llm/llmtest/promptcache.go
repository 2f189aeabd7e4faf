package llmtest

import (
	"hash/fnv"
	"sync"
)

// The providers' prompt cache (OpenAI's rule, which others follow): a
// request whose prompt starts with a prefix of at least 1,024 tokens that
// an earlier request had is billed with that prefix cached, counted in
// steps of 128 tokens (cached_tokens is 0, or 1024 + 128k). The prompt is
// read as the provider lays it out: the response_format schema (placed
// ahead of the messages), then each message's role and content in order.
// A token is 4 bytes, as in the fake's prompt_tokens.
const (
	cacheMinTokens  = 1024
	cacheStepTokens = 128
	bytesPerToken   = 4
)

// CacheStats are what the fake's prompt cache saw (Options.PromptCache).
type CacheStats struct {
	// Prefix is the longest prefix, in tokens, any request shared with an
	// earlier one (before the 1,024 and 128 rounding), and Cached the
	// prompt tokens reported cached in all.
	Prefix, Cached int
}

type promptCache struct {
	mu     sync.Mutex
	blocks map[uint64]bool // hashes of every prompt's prefixes at each 128-token step
	stats  CacheStats
}

// layout is the prompt as the cache reads it.
func layout(req *ChatRequest) [][]byte {
	var parts [][]byte
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		parts = append(parts, rf.JSONSchema.Schema)
	}
	for _, m := range req.Messages {
		parts = append(parts, []byte("<|"+m.Role+"|>"), m.Content)
	}
	return parts
}

// lookup returns the cached tokens of req, at most promptTokens, and
// remembers its prefixes for the requests that follow.
func (c *promptCache) lookup(req *ChatRequest, promptTokens int) int {
	step := cacheStepTokens * bytesPerToken
	h := fnv.New64a()
	var hashes []uint64
	n := 0
	for _, p := range layout(req) {
		for len(p) > 0 {
			k := min(len(p), step-n%step)
			h.Write(p[:k])
			p, n = p[k:], n+k
			if n%step == 0 {
				hashes = append(hashes, h.Sum64())
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.blocks == nil {
		c.blocks = map[uint64]bool{}
	}
	seen := 0 // steps of this prompt seen before
	for seen < len(hashes) && c.blocks[hashes[seen]] {
		seen++
	}
	for _, x := range hashes[seen:] {
		c.blocks[x] = true
	}
	c.stats.Prefix = max(c.stats.Prefix, seen*cacheStepTokens)
	cached := min(seen*cacheStepTokens, promptTokens/cacheStepTokens*cacheStepTokens)
	if cached < cacheMinTokens {
		return 0
	}
	c.stats.Cached += cached
	return cached
}

// CacheStats returns what the prompt cache saw so far.
func (s *Server) CacheStats() CacheStats {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	return s.cache.stats
}
