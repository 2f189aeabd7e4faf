package seed

import (
	"github.com/ngkit/ngkit/pkg/record"
)

// pick returns k items of list, starting at a place chosen by key and
// wrapping around: each norm gets its own stable handful of names, so
// that prompts (and the cache) are the same on every run while names vary
// across norms.
func pick(list []string, k int, key string) []string {
	if len(list) <= k {
		return list
	}
	start := record.Bucket(key, len(list))
	out := make([]string, k)
	for i := range out {
		out[i] = list[(start+i)%len(list)]
	}
	return out
}
