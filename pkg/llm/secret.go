package llm

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"
)

// Secret holds the API key. However it is printed, logged or encoded it
// shows as [redacted]; only the client reads the value.
type Secret struct{ v string }

// NewSecret wraps a key.
func NewSecret(key string) Secret { return Secret{key} }

// IsSet reports whether a key is held.
func (s Secret) IsSet() bool { return s.v != "" }

func (s Secret) reveal() string { return s.v }

// String implements fmt.Stringer.
func (s Secret) String() string { return "[redacted]" }

// GoString implements fmt.GoStringer.
func (s Secret) GoString() string { return "[redacted]" }

// Format prints [redacted] for every verb.
func (s Secret) Format(f fmt.State, _ rune) { fmt.Fprint(f, "[redacted]") }

// MarshalText keeps the key out of JSON and other encodings.
func (s Secret) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }

// keyPiece is the shortest piece of the key that redact removes: a
// server that cuts or wraps a message may quote only part of the key.
const keyPiece = 12

// redact removes the key from text (a server may echo it in an error):
// the whole key, then every run of text that matches keyPiece or more
// bytes of the key in a row. Redact before cutting a message, so that a
// key quoted near the cut cannot leak its first part.
func (s Secret) redact(text string) string {
	k := s.v
	if len(k) < 4 {
		return text
	}
	text = strings.ReplaceAll(text, k, "[redacted]")
	for j := 0; j+keyPiece <= len(k); j++ {
		for {
			i := strings.Index(text, k[j:j+keyPiece])
			if i < 0 {
				break
			}
			// Widen the match as far as text and key agree on both sides.
			st, en, ks, ke := i, i+keyPiece, j, j+keyPiece
			for st > 0 && ks > 0 && text[st-1] == k[ks-1] {
				st, ks = st-1, ks-1
			}
			for en < len(text) && ke < len(k) && text[en] == k[ke] {
				en, ke = en+1, ke+1
			}
			text = text[:st] + "[redacted]" + text[en:] // shorter by 2 bytes at least: ends
		}
	}
	return text
}

// cut shortens s to at most n bytes on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// jitter is a random duration in [0, d).
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(d)))
}
