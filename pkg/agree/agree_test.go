package agree

import (
	"maps"
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestMajority(t *testing.T) {
	for _, c := range []struct {
		votes []string
		label string
		dist  map[string]float64
		agree float64
	}{
		{[]string{"adhered", "adhered", "violated"}, "adhered", map[string]float64{"adhered": 2.0 / 3, "violated": 1.0 / 3}, 2.0 / 3},
		{[]string{"violated", "adhered"}, "violated", map[string]float64{"adhered": 0.5, "violated": 0.5}, 0.5}, // tie: earliest sample
		{[]string{"JUS", "APO", "APO", "JUS"}, "JUS", map[string]float64{"JUS": 0.5, "APO": 0.5}, 0.5},
		{[]string{"joy", "sadness", "anger", "anger", "joy", "joy"}, "joy", map[string]float64{"joy": 0.5, "anger": 1.0 / 3, "sadness": 1.0 / 6}, 0.5},
		{[]string{"neutral"}, "neutral", map[string]float64{"neutral": 1}, 1},
		{[]string{"", "QUE", "QUE"}, "QUE", map[string]float64{"QUE": 1}, 1}, // a sample without the label does not vote
		{[]string{"", ""}, "", nil, 0},
		{nil, "", nil, 0},
	} {
		label, dist, agree := Majority(c.votes)
		if label != c.label || !near(agree, c.agree) || len(dist) != len(c.dist) {
			t.Errorf("%v: %q %v %v, want %q %v %v", c.votes, label, dist, agree, c.label, c.dist, c.agree)
			continue
		}
		for k, v := range c.dist {
			if !near(dist[k], v) {
				t.Errorf("%v: dist %v, want %v", c.votes, dist, c.dist)
			}
		}
	}
}

func TestEntropy(t *testing.T) {
	for _, c := range []struct {
		dist map[string]float64
		want float64
	}{
		{map[string]float64{"a": 1}, 0},
		{map[string]float64{"a": 0.5, "b": 0.5}, 1},
		{map[string]float64{"a": 1.0 / 3, "b": 1.0 / 3, "c": 1.0 / 3}, math.Log2(3)},
		{map[string]float64{"a": 0.75, "b": 0.25}, 0.8112781244591328},
		{nil, 0},
	} {
		if got := Entropy(c.dist); !near(got, c.want) || math.Signbit(got) {
			t.Errorf("Entropy(%v) = %v, want %v", c.dist, got, c.want)
		}
	}
}

// ProsocialDialog's rule for three annotators, case by case, and its
// extension to other numbers of samples.
func TestSafety(t *testing.T) {
	const (
		ca = SafetyCasual
		po = SafetyPossiblyCaution
		pr = SafetyProbablyCaution
		nc = SafetyNeedsCaution
		ni = SafetyNeedsIntervention
	)
	for _, c := range []struct {
		votes []string
		want  string
	}{
		// Three votes: the published rule.
		{[]string{ca, ca, ca}, ca},
		{[]string{ca, ca, nc}, po},
		{[]string{nc, ca, ca}, po},
		{[]string{ca, nc, nc}, pr},
		{[]string{nc, nc, nc}, nc},
		{[]string{ca, ca, ni}, ni},
		{[]string{nc, nc, ni}, ni},
		{[]string{ni, ni, ni}, ni},
		// Any caution label is a caution vote.
		{[]string{ca, po, pr}, pr},
		{[]string{po, po, po}, nc},
		{[]string{ca, ca, po}, po},
		// One vote is kept as it is.
		{[]string{pr}, pr},
		{[]string{ca}, ca},
		// Other k: the share of caution votes.
		{[]string{ca, nc}, pr},             // 1 of 2
		{[]string{nc, nc}, nc},             // 2 of 2
		{[]string{ca, ca, ca, ca, nc}, po}, // 1 of 5
		{[]string{ca, ca, ca, nc, nc}, pr}, // 2 of 5
		{[]string{ca, ca, nc, nc, nc}, pr}, // 3 of 5
		{[]string{ca, nc, nc, nc, nc}, nc}, // 4 of 5
		{[]string{ca, ca, ca, ca, ca, ni}, ni},
		// Unknown and missing votes do not count.
		{[]string{ca, "bogus", ca}, ca},
		{[]string{"", nc, ""}, nc},
		{nil, ""},
	} {
		if got := Safety(c.votes); got != c.want {
			t.Errorf("Safety(%v) = %q, want %q", c.votes, got, c.want)
		}
	}
}

// Fleiss' kappa: the worked example of Fleiss (1971) as Wikipedia gives it
// (10 subjects, 14 raters, 5 categories: kappa 0.210), and edge cases.
func TestKappa(t *testing.T) {
	table := [][5]int{
		{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7},
	}
	var k Kappa
	for _, row := range table {
		m := map[string]int{}
		for j, n := range row {
			if n > 0 {
				m[string(rune('a'+j))] = n
			}
		}
		k.Add(m)
	}
	if v, ok := k.Value(); !ok || math.Abs(v-0.20993) > 1e-4 || k.Items() != 10 {
		t.Errorf("Fleiss example: kappa %v %v, want 0.210", v, ok)
	}

	var perfect Kappa
	perfect.Add(map[string]int{"a": 3})
	perfect.Add(map[string]int{"b": 3})
	if v, ok := perfect.Value(); !ok || !near(v, 1) {
		t.Errorf("perfect agreement: %v %v", v, ok)
	}
	var one Kappa
	one.Add(map[string]int{"a": 3})
	one.Add(map[string]int{"a": 3})
	if _, ok := one.Value(); ok {
		t.Error("kappa defined with every rating in one category")
	}
	var none Kappa
	none.Add(map[string]int{"a": 1}) // one rater: not an item
	if _, ok := none.Value(); ok || none.Items() != 0 {
		t.Error("kappa defined without items")
	}
	// Worse than chance: every item split, the categories balanced.
	var split Kappa
	split.AddShares(map[string]float64{"a": 0.5, "b": 0.5}, 2)
	split.AddShares(map[string]float64{"a": 0.5, "b": 0.5}, 2)
	if v, ok := split.Value(); !ok || !near(v, -1) {
		t.Errorf("systematic disagreement: %v %v", v, ok)
	}
	// Shares round to votes.
	var sh Kappa
	sh.AddShares(map[string]float64{"a": 2.0 / 3, "b": 1.0 / 3}, 3)
	if !maps.Equal(sh.totals, map[string]int{"a": 2, "b": 1}) {
		t.Errorf("shares to votes: %v", sh.totals)
	}
}

func TestRaters(t *testing.T) {
	for _, c := range []struct {
		dist map[string]float64
		want int
	}{
		{map[string]float64{"a": 1}, 1},
		{map[string]float64{"a": 2.0 / 3, "b": 1.0 / 3}, 3},
		{map[string]float64{"a": 0.5, "b": 0.5}, 2},
		{map[string]float64{"a": 0.6, "b": 0.4}, 5},
		{map[string]float64{"a": 0.6666666667, "b": 0.3333333333}, 3}, // rounded in JSON
		{map[string]float64{"a": 0.123}, 0},
		{nil, 0},
	} {
		if got := Raters(c.dist, 20); got != c.want {
			t.Errorf("Raters(%v) = %d, want %d", c.dist, got, c.want)
		}
	}
}
