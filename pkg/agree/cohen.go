package agree

// CohenKappa is Cohen's kappa of two raters from their confusion matrix
// (m[i][j]: items rater A put in class i and rater B in class j):
// (po - pe) / (1 - pe), po the observed agreement, pe the agreement
// expected from each rater's marginals. ok is false with no items, or
// when both raters used one and the same class (pe = 1: undefined).
func CohenKappa(m [][]int64) (kappa float64, ok bool) {
	k := len(m)
	var n, diag float64
	rows, cols := make([]float64, k), make([]float64, k)
	for i := range m {
		for j, c := range m[i] {
			f := float64(c)
			n += f
			rows[i] += f
			cols[j] += f
			if i == j {
				diag += f
			}
		}
	}
	if n == 0 {
		return 0, false
	}
	po := diag / n
	var pe float64
	for i := range rows {
		pe += rows[i] / n * cols[i] / n
	}
	if pe >= 1 {
		return 0, false
	}
	return (po - pe) / (1 - pe), true
}
