package lang

import "testing"

// Every language of the built-in cultures has the English name that the
// prompts of every stage use.
func TestName(t *testing.T) {
	for tag, want := range map[string]string{
		"en": "English", "zh": "Chinese", "zh-Hant": "Traditional Chinese", "ko": "Korean", "ja": "Japanese",
		"vi": "Vietnamese", "th": "Thai", "id": "Indonesian", "ms": "Malay", "tl": "Filipino", "ta": "Tamil",
		"und": "und", "xx": "xx", "": "",
	} {
		if got := Name(tag); got != want {
			t.Errorf("Name(%q) = %q, want %q", tag, got, want)
		}
	}
}
