// Package vocab holds the words of model output that several parts of ngkit
// must agree on and that need no parser: the tags reasoning models wrap their
// thinking in, and how a refusal opens. The dialogue parser and the audit (pkg/dialogue) strip and
// report them; the client (pkg/llm) strips them from replies, without
// importing the parser. It imports nothing of ngkit (internal/layout holds
// that rule).
package vocab

import (
	"slices"
	"strings"
)

// ReasoningTags returns the names of the tags reasoning models wrap their
// thinking in (DeepSeek-R1, Qwen3, ...): "think", "thinking", "reasoning".
func ReasoningTags() []string { return slices.Clone(reasoningTags[:]) }

var reasoningTags = [...]string{"think", "thinking", "reasoning"}

// Refused tells whether a reply opens as a refusal ("I'm sorry, but I
// can't help with that."), so that a reply with no content in it is
// reported as the refusal it is rather than as text that is not JSON.
func Refused(reply string) bool {
	s := strings.ToLower(strings.TrimSpace(reply))
	s = strings.NewReplacer("’", "'", "‘", "'").Replace(s)
	if len(s) > 80 {
		s = s[:80]
	}
	for _, p := range refusals {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

var refusals = [...]string{"i can't", "i cannot", "i can not", "i'm sorry", "i am sorry", "sorry, i", "sorry, but",
	"i apologize", "i'm unable", "i am unable", "i won't", "i will not", "as an ai", "i'm not able", "i am not able"}
