package llm

import (
	"fmt"
	"math/rand/v2"
	"time"
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

// jitter is a random duration in [0, d).
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(d)))
}
