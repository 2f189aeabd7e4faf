package lang

import "testing"

func TestName(t *testing.T) {
	for tag, want := range map[string]string{"ko": "Korean", "th": "Thai", "zh": "Chinese", "tl": "Filipino", "xx-!": "xx-!", "qaa": "qaa"} {
		if got := Name(tag); got != want {
			t.Errorf("Name(%q) = %q, want %q", tag, got, want)
		}
	}
}
