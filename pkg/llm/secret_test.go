package llm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const testKey = "sk-ngkit-TEST-7f3a9c1e5b2d"

// A server message is redacted before it is cut: a key quoted across the
// 300-byte cut, or a part of the key, never shows; the cut falls on a
// rune boundary (no U+FFFD in the errors file).
func TestHTTPFailureRedactsThenCuts(t *testing.T) {
	c := &Client{cfg: Config{APIKey: NewSecret(testKey)}}
	pad := strings.Repeat("x", 290)
	for name, msg := range map[string]string{
		"whole key across the cut": pad + "key " + testKey + " is wrong",
		"key cut by the server":    "Incorrect API key provided: " + testKey[:14] + "****",
		"key tail":                 "key ending in " + testKey[len(testKey)-12:],
		"key twice, wrapped":       testKey + "\n" + testKey[:13] + "\n" + testKey[3:20],
	} {
		f := c.httpFailure(401, msg, nil)
		for i := 0; i+keyPiece <= len(testKey); i++ {
			if strings.Contains(f.reason, testKey[i:i+keyPiece]) {
				t.Errorf("%s: %q shows a piece of the key", name, f.reason)
				break
			}
		}
		if !strings.Contains(f.reason, "[redac") { // the cut may fall inside the marker
			t.Errorf("%s: %q: nothing redacted", name, f.reason)
		}
	}
	// An 11-byte piece is not a key: a message may share short runs with it.
	if got := NewSecret(testKey).redact("see " + testKey[:11]); got != "see "+testKey[:11] {
		t.Errorf("short piece redacted: %q", got)
	}
	ko := strings.Repeat("한", 150) // 450 bytes, 3 per rune
	f := c.httpFailure(500, ko, nil)
	if strings.ContainsRune(f.reason, utf8.RuneError) || !utf8.ValidString(f.reason) || !strings.HasSuffix(f.reason, "한...") {
		t.Errorf("cut inside a rune: %q", f.reason)
	}
	if len(f.reason) > len("HTTP 500 Internal Server Error: ")+303 {
		t.Errorf("not cut: %d bytes", len(f.reason))
	}
}

// FuzzRedact: whatever a server writes around or inside the key, the
// message redacted then cut holds no keyPiece-byte piece of the key, and
// valid UTF-8 stays valid.
func FuzzRedact(f *testing.F) {
	f.Add(testKey, "Incorrect API key provided: "+testKey)
	f.Add("[redacted][redacted]", "[redacted][redacted][redacted]")
	f.Add("sk-한국어키-0123456789", "키: sk-한국어키-01234567")
	f.Fuzz(func(t *testing.T, key, msg string) {
		if len(key) < 4 {
			return
		}
		got := cut(NewSecret(key).redact(msg), 300)
		for i := 0; i+keyPiece <= len(key); i++ {
			if strings.Contains(got, key[i:i+keyPiece]) && !strings.Contains(strings.Repeat("[redacted]", 3), key[i:i+keyPiece]) {
				t.Fatalf("key %q: %q shows %q", key, got, key[i:i+keyPiece])
			}
		}
		if utf8.ValidString(msg) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from %q: %q", msg, got)
		}
	})
}
