package jsonscan

import "testing"

func TestMatchClose(t *testing.T) {
	for _, c := range []struct {
		s    string
		i    int
		want int
	}{
		{`{"a": 1}`, 0, 7},
		{`x {"a": "}"} y`, 2, 11},
		{`{"a": "\"}"}`, 0, 11},
		{`[{"a": [1, 2]}]`, 0, 14},
		{`{"a": [1, 2}`, 0, -1},
		{`{"a": 1`, 0, -1},
		{`{"a": "\\"}`, 0, 10},
	} {
		if got := MatchClose(c.s, c.i); got != c.want {
			t.Errorf("MatchClose(%q, %d) = %d, want %d", c.s, c.i, got, c.want)
		}
	}
}

func TestStrings(t *testing.T) {
	const s = `{"k\"{": "v"}`
	var str Strings
	var out []byte
	for i := 0; i < len(s); i++ {
		if str.Outside(s[i]) {
			out = append(out, s[i])
		}
	}
	if got, want := string(out), `{": "}`; got != want {
		t.Errorf("outside bytes %q, want %q", got, want)
	}
}
