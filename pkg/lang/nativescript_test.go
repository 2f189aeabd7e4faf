package lang

import (
	"testing"
	"unicode"
)

// NativeScript agrees with the unicode tables ngv2r's name check used
// before it moved here: Hangul or Han for Korean, Han for Chinese, Han or
// kana for Japanese, nothing for a language written in Latin letters.
func TestNativeScript(t *testing.T) {
	tables := map[string][]*unicode.RangeTable{
		"ko":    {unicode.Hangul, unicode.Han},
		"zh-CN": {unicode.Han},
		"ja":    {unicode.Han, unicode.Hiragana, unicode.Katakana},
	}
	letters := "민수김金李王たナAzÉжא\u1100\u3131\u3400"
	for code, tab := range tables {
		name, in, ok := NativeScript(code)
		if !ok || name == "" {
			t.Fatalf("%s: no native script", code)
		}
		for _, r := range letters {
			if got, want := in(r), unicode.IsOneOf(tab, r); got != want {
				t.Errorf("%s (%s): %q in it: %v, want %v", code, name, r, got, want)
			}
		}
	}
	for _, code := range []string{"en", "fr", "vi", ""} {
		if _, _, ok := NativeScript(code); ok {
			t.Errorf("%q: a native script for a language of Latin letters", code)
		}
	}
}
