// Package agree aggregates the votes of several labellings of one item
// (nglabel --samples, or a dataset's annotators): majority, shares,
// entropy, ProsocialDialog's safety rule, and Fleiss' kappa over items.
// It depends on nothing else of ngkit, so ngstats uses it too.
package agree

import (
	"math"
	"slices"
)

// Majority returns the label most samples gave, the share of each label
// (label -> votes / samples) and the agreement, the majority's share.
// Empty votes (a task a sample did not label) are not counted. A tie goes
// to the label given by the earliest sample: sample 1 is the run's primary
// labelling, the others only add evidence.
func Majority(votes []string) (label string, dist map[string]float64, agreement float64) {
	counts := map[string]int{}
	n := 0
	for _, v := range votes {
		if v == "" {
			continue
		}
		counts[v]++
		n++
	}
	if n == 0 {
		return "", nil, 0
	}
	best := 0
	for _, v := range votes { // in sample order: the earliest wins a tie
		if c := counts[v]; v != "" && c > best {
			label, best = v, c
		}
	}
	dist = make(map[string]float64, len(counts))
	for v, c := range counts {
		dist[v] = float64(c) / float64(n)
	}
	return label, dist, float64(best) / float64(n)
}

// Entropy is the Shannon entropy of a distribution in bits: 0 when every
// sample agreed, log2(k) when k labels split the votes evenly.
func Entropy(dist map[string]float64) float64 {
	h := 0.0
	for _, p := range dist {
		if p > 0 {
			h -= p * math.Log2(p)
		}
	}
	return h + 0 // -0 -> 0
}

// Safety labels (ProsocialDialog), in order of growing concern.
const (
	SafetyCasual            = "casual"
	SafetyPossiblyCaution   = "possibly_needs_caution"
	SafetyProbablyCaution   = "probably_needs_caution"
	SafetyNeedsCaution      = "needs_caution"
	SafetyNeedsIntervention = "needs_intervention"
)

// Safety aggregates safety votes the way ProsocialDialog aggregated its
// three annotators: any needs_intervention -> needs_intervention; every
// vote casual -> casual; otherwise one, two or three votes of caution
// (any of the three caution labels) -> possibly, probably, needs caution.
// For k samples other than 3 the caution votes count as a share: up to a
// third possibly, up to two thirds probably, above that needs caution,
// which is the same rule at k = 3. A single vote is kept as it is (the
// labeller may use all five classes). Unknown votes are ignored.
func Safety(votes []string) string {
	var known []string
	for _, v := range votes {
		if slices.Contains(safetyOrder, v) {
			known = append(known, v)
		}
	}
	switch len(known) {
	case 0:
		return ""
	case 1:
		return known[0]
	}
	caution := 0
	for _, v := range known {
		switch v {
		case SafetyNeedsIntervention:
			return SafetyNeedsIntervention
		case SafetyPossiblyCaution, SafetyProbablyCaution, SafetyNeedsCaution:
			caution++
		}
	}
	k := len(known)
	switch {
	case caution == 0:
		return SafetyCasual
	case 3*caution <= k:
		return SafetyPossiblyCaution
	case 3*caution <= 2*k:
		return SafetyProbablyCaution
	}
	return SafetyNeedsCaution
}

var safetyOrder = []string{SafetyCasual, SafetyPossiblyCaution, SafetyProbablyCaution, SafetyNeedsCaution, SafetyNeedsIntervention}

// Kappa accumulates Fleiss' kappa over items (turns), each rated by
// several raters (samples) into one category (label). Items may have
// different numbers of raters (at least 2 to count). Add items, then read
// Value; the zero value is ready.
type Kappa struct {
	items  int
	sumP   float64        // sum over items of the observed agreement P_i
	totals map[string]int // ratings per category, over all items
	n      int            // ratings in all
}

// Add adds one item given as category -> ratings.
func (k *Kappa) Add(counts map[string]int) {
	n := 0
	for _, c := range counts {
		n += c
	}
	if n < 2 {
		return
	}
	agree := 0
	for _, c := range counts {
		agree += c * (c - 1)
	}
	if k.totals == nil {
		k.totals = map[string]int{}
	}
	for cat, c := range counts {
		k.totals[cat] += c
	}
	k.items++
	k.n += n
	k.sumP += float64(agree) / float64(n*(n-1))
}

// AddShares adds an item given as a distribution of shares over samples
// raters (as the *_dist labels hold them), rounding each share to votes.
func (k *Kappa) AddShares(dist map[string]float64, samples int) {
	counts := make(map[string]int, len(dist))
	for cat, p := range dist {
		if c := int(math.Round(p * float64(samples))); c > 0 {
			counts[cat] = c
		}
	}
	k.Add(counts)
}

// Items is the number of items counted.
func (k *Kappa) Items() int { return k.items }

// Value is Fleiss' kappa, (P - Pe) / (1 - Pe), where P is the mean
// observed agreement and Pe the agreement expected by chance from the
// overall share of each category. ok is false when it is undefined: no
// items, or every rating in one category (Pe = 1).
func (k *Kappa) Value() (kappa float64, ok bool) {
	if k.items == 0 {
		return 0, false
	}
	pe := 0.0
	for _, c := range k.totals {
		p := float64(c) / float64(k.n)
		pe += p * p
	}
	if pe >= 1-1e-12 {
		return 0, false
	}
	pbar := k.sumP / float64(k.items)
	return (pbar - pe) / (1 - pe), true
}

// Raters guesses how many raters gave a distribution of shares: the
// smallest n up to max for which every share is a whole number of votes
// (ProsocialDialog's three annotators give thirds); 0 when none fits.
func Raters(dist map[string]float64, max int) int {
	if len(dist) == 0 {
		return 0
	}
	for n := 1; n <= max; n++ {
		fits := true
		for _, p := range dist {
			v := p * float64(n)
			if math.Abs(v-math.Round(v)) > 1e-6 || math.Round(v) < 1 {
				fits = false
				break
			}
		}
		if fits {
			return n
		}
	}
	return 0
}
