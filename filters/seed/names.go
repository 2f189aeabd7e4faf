package seed

import (
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/ngkit/ngkit/pkg/record"
)

// languageName is the English name of a language tag ("ko" -> "Korean"),
// for prompts and messages; the tag itself when it has no name.
func languageName(tag string) string {
	t, err := language.Parse(tag)
	if err != nil {
		return tag
	}
	if n := display.English.Languages().Name(t); n != "" && n != "Unknown language" {
		return n
	}
	return tag
}

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
