// Package vocab holds the words of model output that several parts of ngkit
// must agree on and that need no parser: the tags reasoning models wrap their
// thinking in. The dialogue parser and the audit (pkg/dialogue) strip and
// report them; the client (pkg/llm) strips them from replies, without
// importing the parser. It imports nothing of ngkit (internal/layout holds
// that rule).
package vocab

import "slices"

// ReasoningTags returns the names of the tags reasoning models wrap their
// thinking in (DeepSeek-R1, Qwen3, ...): "think", "thinking", "reasoning".
func ReasoningTags() []string { return slices.Clone(reasoningTags[:]) }

var reasoningTags = [...]string{"think", "thinking", "reasoning"}
