// Package suggest finds the name a user most likely meant when they typed
// one that does not exist (--josn, dialog_type): "did you mean ...?". A
// leaf: it depends on nothing of ngkit.
package suggest

// Nearest is the candidate nearest to name, if near enough to be a typo:
// at most two edits, and fewer than half of name's length (ab is no typo
// of a). Ties go to the first candidate in sorted order.
func Nearest(name string, candidates []string) (string, bool) {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := Distance(name, c); d < bestD || d == bestD && best != "" && c < best {
			best, bestD = c, d
		}
	}
	if best == "" || bestD*2 >= len(name) {
		return "", false
	}
	return best, true
}

// Distance is the optimal-string-alignment distance of a and b, by bytes
// (names are ASCII): Levenshtein's edits plus the swap of two adjacent
// letters, the commonest typo (josn is one edit from json).
func Distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			d[i][j] = min(d[i-1][j-1]+c, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
