package seed

import (
	"testing"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/normbank"
)

// The near-duplicate measure and the text checks take whatever a model
// writes: no panic, and their invariants hold.
func FuzzDedup(f *testing.F) {
	for _, s := range []string{"", " ", "Mike thanks Mrs. Thompson.", "小王向李经理道歉。", "민수는 사과한다.", "a", "ab", "\xff\xfe", "[END] **x**"} {
		f.Add(s, s+"!")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		n := normalize(a)
		if normalize(n) != n {
			t.Fatalf("normalize is not idempotent: %q -> %q -> %q", a, n, normalize(n))
		}
		if j := jaccard(newShingles(n), newShingles(normalize(b))); j < 0 || j > 1 {
			t.Fatalf("jaccard %v", j)
		}
		var d dedup
		if !d.add(a) {
			t.Fatal("the first text is never a duplicate")
		}
		if d.add(a) {
			t.Fatal("the same text twice was kept")
		}
		d.add(b)
	})
}

func FuzzCheckText(f *testing.F) {
	for _, s := range []string{"", "Mike is late. He apologises. She nods.", "小王迟到了。他道歉。经理点头。", "민수가 늦었다.\n[끝]", "{\"a\":1}", "\"unclosed quote. Two. Three"} {
		f.Add(s)
	}
	ko, det := culture(f, "korean")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		err := checkSituation(det, ko, s)
		if err != nil && kindOf(err) == "invalid" {
			t.Fatalf("an error of no kind: %v", err)
		}
		if err == nil && normbank.MarkerIn(s) != "" {
			t.Fatalf("passed with a marker: %q", s)
		}
	})
}
