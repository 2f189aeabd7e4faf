package agree

import (
	"math"
	"strings"
	"testing"
)

// table turns rows of one string per unit ("." missing, one character per
// rater) into a ratings table.
func table(rows ...string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		for _, c := range r {
			v := string(c)
			if v == "." {
				v = ""
			}
			out[i] = append(out[i], v)
		}
	}
	return out
}

// transpose makes units of the rows of raters.
func transpose(raters ...string) []string {
	var units []string
	for u := range raters[0] {
		var b strings.Builder
		for _, r := range raters {
			b.WriteByte(r[u])
		}
		units = append(units, b.String())
	}
	return units
}

// The published examples of Krippendorff, "Computing Krippendorff's
// Alpha-Reliability" (2011): (A) two observers, binary data, 10 units:
// alpha 0.095; (C) four observers, nominal values 1-5, 12 units with
// missing values: alpha 0.743. And a case small enough to do by hand.
func TestKrippendorffAlpha(t *testing.T) {
	a := table(transpose("0100000010", "1110010000")...)
	if v, ok := KrippendorffAlpha(a); !ok || math.Round(v*1000)/1000 != 0.095 {
		t.Errorf("binary example: alpha %v %v, want 0.095", v, ok)
	}
	c := table(transpose(
		"123321412...", // observer A, units 1-12
		"1233224125.3", // B (alone on unit 12: not pairable)
		".3332342251.", // C
		"12332441251.", // D
	)...)
	if v, ok := KrippendorffAlpha(c); !ok || math.Round(v*1000)/1000 != 0.743 {
		t.Errorf("four-observer example: alpha %v %v, want 0.743", v, ok)
	}
	// By hand: units aa ab bb bb: n 8, o_aa + o_bb = 6, n_a 3, n_b 5:
	// 1 - 7 * 2 / (64 - 34) = 8/15.
	if v, ok := KrippendorffAlpha(table("aa", "ab", "bb", "bb")); !ok || math.Abs(v-8.0/15) > 1e-12 {
		t.Errorf("by hand: alpha %v %v, want %v", v, ok, 8.0/15)
	}
	if v, ok := KrippendorffAlpha(table("ab", "ba")); !ok || v >= 0 {
		t.Errorf("systematic disagreement: alpha %v %v, want < 0", v, ok)
	}
	if v, ok := KrippendorffAlpha(table("aaa", "bbb", "cc.")); !ok || v != 1 {
		t.Errorf("perfect agreement: %v %v", v, ok)
	}
	for _, u := range [][][]string{table("aa", "aa"), table("a.", ".b"), nil} {
		if v, ok := KrippendorffAlpha(u); ok {
			t.Errorf("%v: alpha %v, want undefined", u, v)
		}
	}
}

// Fleiss' kappa from a ratings table gives the published 0.210 of the
// Fleiss (1971) example as the counts do (TestKappa), and leaves out the
// units only one rater rated.
func TestFleissKappaOf(t *testing.T) {
	counts := [][5]int{{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7}}
	var units [][]string
	for _, c := range counts {
		var u []string
		for cat, n := range c {
			for range n {
				u = append(u, string(rune('1'+cat)))
			}
		}
		units = append(units, u)
	}
	if v, ok := FleissKappaOf(units); !ok || math.Round(v*1000)/1000 != 0.210 {
		t.Errorf("Fleiss example: %v %v, want 0.210", v, ok)
	}
	if v, ok := FleissKappaOf(append(units, []string{"1", "", ""})); !ok || math.Round(v*1000)/1000 != 0.210 {
		t.Errorf("with a unit of one rating: %v %v, want 0.210", v, ok)
	}
	if _, ok := FleissKappaOf(table("aa", "aa")); ok {
		t.Error("one category: undefined")
	}
}

// Cohen's kappa of a pair of raters from the table: Wikipedia's example
// (20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: 0.4), counted over the
// units both rated.
func TestCohenKappaOf(t *testing.T) {
	var rows []string
	for range 20 {
		rows = append(rows, "yy.")
	}
	for range 5 {
		rows = append(rows, "yn.")
	}
	for range 10 {
		rows = append(rows, "ny.")
	}
	for range 15 {
		rows = append(rows, "nn.")
	}
	rows = append(rows, "y.y", ".ny")
	u := table(rows...)
	if k, n, ok := CohenKappaOf(u, 0, 1); !ok || n != 50 || math.Abs(k-0.4) > 1e-12 {
		t.Errorf("kappa %v over %d (%v), want 0.4 over 50", k, n, ok)
	}
	if _, n, ok := CohenKappaOf(u, 0, 2); ok || n != 1 {
		t.Errorf("one shared unit of one label: want undefined over 1, got %v over %d", ok, n)
	}
	if _, n, ok := CohenKappaOf(table("a.", ".b"), 0, 1); ok || n != 0 {
		t.Errorf("no shared unit: %v %d", ok, n)
	}
}
