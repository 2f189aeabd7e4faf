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

// Is says whether the secret is key, without showing it (for tests of
// where the key comes from).
func (s Secret) Is(key string) bool { return s.v == key }

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
//
// A marker written beside text that matches the key may itself complete a
// piece of a key that holds "[redacted]": the passes repeat while they
// change the text and shorten it (each replacement of a piece of keyPiece
// or more bytes by the 10-byte marker does), so they end.
func (s Secret) redact(text string) string {
	k := s.v
	if len(k) < 4 {
		return text
	}
	for {
		before := text
		text = redactAll(text, k, k, 0)
		for j := 0; j+keyPiece <= len(k); j++ {
			text = redactAll(text, k[j:j+keyPiece], k, j)
		}
		if text == before || len(text) >= len(before) {
			return text
		}
	}
}

// redactAll replaces every occurrence of piece, which is k[at:], widened
// as far as text and k agree on both sides and then to whole runes (a key
// is bytes: a piece may end inside a rune of the text), by [redacted]. It
// scans forward only, so a marker it wrote is never matched again.
func redactAll(text, piece, k string, at int) string {
	const mark = "[redacted]"
	for from := 0; ; {
		i := strings.Index(text[from:], piece)
		if i < 0 {
			return text
		}
		st, en, ks, ke := from+i, from+i+len(piece), at, at+len(piece)
		for st > from && ks > 0 && text[st-1] == k[ks-1] {
			st, ks = st-1, ks-1
		}
		for en < len(text) && ke < len(k) && text[en] == k[ke] {
			en, ke = en+1, ke+1
		}
		for st > from && !utf8.RuneStart(text[st]) {
			st--
		}
		for en < len(text) && !utf8.RuneStart(text[en]) {
			en++
		}
		text = text[:st] + mark + text[en:]
		from = st + len(mark)
	}
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
