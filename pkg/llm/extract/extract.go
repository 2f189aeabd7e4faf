// Package extract reads the answer out of a model's reply: the reasoning
// block some models open it with (StripReasoning), and the JSON value in
// it however it is wrapped (JSON). Pure text functions: the client
// (pkg/llm) judges a reply with them.
package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ngkit/ngkit/pkg/jsonscan"
	"github.com/ngkit/ngkit/pkg/vocab"
)

// maxCandidates bounds the '{' positions tried in chatty text, so a
// long reply full of braces costs O(n), not O(n²).
const maxCandidates = 32

// JSON finds the JSON value in a model's reply and returns it
// compacted: the whole reply when it is JSON, else the first ```fenced```
// block that is, else the first balanced {...} in chatty text
// ("Sure! Here it is: {...} Hope this helps"). Trailing commas, a common
// slip of small models, are forgiven.
func JSON(text string) ([]byte, error) {
	s := strings.TrimSpace(strings.TrimPrefix(text, "\ufeff"))
	if s == "" {
		return nil, errors.New("empty reply")
	}
	// Only an object or array is a reply's JSON: a reply of prose in
	// quotes is a JSON string (SmolLM2 wrote one), not the answer.
	if s[0] == '{' || s[0] == '[' {
		if b, ok := parseLenient(s); ok {
			return b, nil
		}
	}
	for rest := s; ; {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		body := rest[i+3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{[") {
			body = body[nl+1:] // the language tag: ```json
		}
		end := strings.Index(body, "```")
		if end < 0 {
			end = len(body) // unclosed fence: take the rest
		}
		if b, ok := parseLenient(strings.TrimSpace(body[:end])); ok {
			return b, nil
		}
		if end == len(body) {
			break
		}
		rest = body[end+3:]
	}
	tried := 0
	for i := 0; i < len(s) && tried < maxCandidates; i++ {
		// Only objects in prose: every reply schema is one, and a bracket
		// in prose is more often text than JSON (nglabel's turn numbers,
		// "[0] Anna: ...", as SmolLM2 wrote them back, parse as [0]).
		if s[i] != '{' {
			continue
		}
		tried++
		end := jsonscan.MatchClose(s, i)
		if end < 0 {
			continue
		}
		if b, ok := parseLenient(s[i : end+1]); ok {
			return b, nil
		}
	}
	return nil, errors.New("no JSON object found in the reply")
}

// parseLenient returns s compacted when it is JSON, or when it is JSON
// once trailing commas are removed.
func parseLenient(s string) ([]byte, bool) {
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(s)) == nil {
		return buf.Bytes(), true
	}
	fixed := dropTrailingCommas(s)
	if fixed == s {
		return nil, false
	}
	buf.Reset()
	if json.Compact(&buf, []byte(fixed)) == nil {
		return buf.Bytes(), true
	}
	return nil, false
}

// dropTrailingCommas removes commas followed (after spaces) by } or ],
// outside strings.
func dropTrailingCommas(s string) string {
	var b strings.Builder
	var str jsonscan.Strings
	for j := 0; j < len(s); j++ {
		c := s[j]
		if !str.Outside(c) {
			b.WriteByte(c)
			continue
		}
		if c == ',' {
			k := j + 1
			for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
				k++
			}
			if k < len(s) && (s[k] == '}' || s[k] == ']') {
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Reasoning tags some models (DeepSeek-R1, Qwen3, ...) wrap their thinking
// in: the parser's and the audit's (pkg/vocab, read by pkg/dialogue too), so
// that what the client strips from a reply and what ngstats reports as
// leaked are the same tags.
var reasoningTags = vocab.ReasoningTags()

// asciiLower lower-cases ASCII letters only, so that byte offsets found in
// its result are offsets in s (strings.ToLower changes the length of
// invalid UTF-8 and of some letters).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// StripReasoning removes a closed reasoning block that opens the reply
// (or a lone closing tag, when the chat template opened it), which is how
// reasoning models answer by design. It reports leaked=true when reasoning
// is left in the answer — an unclosed block, a block in the middle — or
// when nothing but reasoning was sent: those replies are failures.
func StripReasoning(content string) (answer string, leaked bool) {
	s := strings.TrimSpace(content)
	lower := asciiLower(s)
	for _, tag := range reasoningTags {
		open, close := "<"+tag+">", "</"+tag+">"
		if !strings.Contains(lower, open) && !strings.Contains(lower, close) {
			continue
		}
		c := strings.Index(lower, close)
		o := strings.Index(lower, open)
		if c < 0 || (o > 0) || (o == 0 && c < len(open)) {
			return s, true // unclosed, or not at the start
		}
		s = strings.TrimSpace(s[c+len(close):])
		lower = asciiLower(s)
		if strings.Contains(lower, "<"+tag) || strings.Contains(lower, close) || s == "" {
			return s, true
		}
	}
	return s, false
}
