package agree

import "slices"

// Agreement of several raters (a panel of labelling models) over units
// (turns), from a table of nominal ratings: units[u][r] is rater r's label
// of unit u, "" when rater r gave none. Every rater is one column.

// FleissKappaOf is Fleiss' kappa of the table: the units with at least two
// ratings count (with as many raters as rated them). ok is false when it
// is undefined (no such unit, or every rating in one category).
func FleissKappaOf(units [][]string) (float64, bool) {
	var k Kappa
	for _, u := range units {
		counts := map[string]int{}
		for _, v := range u {
			if v != "" {
				counts[v]++
			}
		}
		k.Add(counts)
	}
	return k.Value()
}

// KrippendorffAlpha is Krippendorff's alpha for nominal data, 1 - Do/De,
// from the coincidence matrix of the pairable values (units with at least
// two ratings; missing ratings allowed): with n pairable values, o_cc the
// coincidences within category c and n_c the values of category c,
// alpha = 1 - (n-1)(n - Σ o_cc) / (n² - Σ n_c²). 1 is perfect agreement,
// 0 agreement at chance, below 0 systematic disagreement. ok is false
// when it is undefined (fewer than two pairable values, or every value in
// one category: De = 0).
func KrippendorffAlpha(units [][]string) (float64, bool) {
	var a Alpha
	for _, u := range units {
		a.Add(u)
	}
	return a.Value()
}

// Alpha accumulates Krippendorff's alpha (nominal) over units, one at a
// time, in memory bounded by the categories; the zero value is ready.
type Alpha struct {
	n, diag float64
	nc      map[string]float64
}

// Add adds one unit: its raters' labels, "" for none.
func (a *Alpha) Add(unit []string) {
	counts := map[string]int{}
	m := 0
	for _, v := range unit {
		if v != "" {
			counts[v]++
			m++
		}
	}
	if m < 2 {
		return // not pairable
	}
	if a.nc == nil {
		a.nc = map[string]float64{}
	}
	for c, k := range counts {
		// o_cc gains k(k-1)/(m-1); n_c gains k (each value pairs with
		// the m-1 others, weighted 1/(m-1)).
		a.diag += float64(k*(k-1)) / float64(m-1)
		a.nc[c] += float64(k)
	}
	a.n += float64(m)
}

// Value is alpha over the units added (see KrippendorffAlpha).
func (a *Alpha) Value() (float64, bool) {
	if a.n < 2 {
		return 0, false
	}
	sumSq := 0.0
	for _, v := range a.nc {
		sumSq += v * v
	}
	de := a.n*a.n - sumSq
	if de <= 1e-12 {
		return 0, false
	}
	return 1 - (a.n-1)*(a.n-a.diag)/de, true
}

// CohenKappaOf is Cohen's kappa of raters a and b of the table, over the
// units both rated; items is that number. ok is false when it is
// undefined (no such unit, or both gave one and the same label
// throughout).
func CohenKappaOf(units [][]string, a, b int) (kappa float64, items int, ok bool) {
	var cats []string
	idx := func(v string) int {
		i := slices.Index(cats, v)
		if i < 0 {
			cats = append(cats, v)
			i = len(cats) - 1
		}
		return i
	}
	type pair struct{ i, j int }
	var pairs []pair
	for _, u := range units {
		if a >= len(u) || b >= len(u) || u[a] == "" || u[b] == "" {
			continue
		}
		pairs = append(pairs, pair{idx(u[a]), idx(u[b])})
	}
	if len(pairs) == 0 {
		return 0, 0, false
	}
	m := make([][]int64, len(cats))
	for i := range m {
		m[i] = make([]int64, len(cats))
	}
	for _, p := range pairs {
		m[p.i][p.j]++
	}
	kappa, ok = CohenKappa(m)
	return kappa, len(pairs), ok
}
