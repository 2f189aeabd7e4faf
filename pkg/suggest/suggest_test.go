package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"cultre", "culture", 1}, {"htm", "html", 1}, {"ouptut", "output", 1}, {"josn", "json", 1}, {"ab", "ba", 1},
		{"abc", "", 3}, {"kitten", "sitting", 3}, {"dialog_type", "dialogue_type", 2}} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"culture", "dialogue_type", "json", "limit"}
	for in, want := range map[string]string{"josn": "json", "dialog_type": "dialogue_type", "cultre": "culture", "cu": "", "bogus": ""} {
		if got, ok := Nearest(in, names); got != want || ok != (want != "") {
			t.Errorf("Nearest(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
}
