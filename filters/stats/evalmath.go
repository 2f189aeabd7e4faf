package stats

import (
	"math"
	"slices"
)

// The statistics of the evaluation sections (PACT, simulation):
// correlations, Jensen-Shannon divergence and bootstrap intervals. Every
// interval is a 95% interval; the bootstrap is seeded, so the same input
// always gives the same report.

// bootstrapRounds is how many resamples a bootstrap interval draws.
const bootstrapRounds = 2000

// bootstrapSeed seeds every bootstrap: the report is a pure function of
// its input.
const bootstrapSeed = 0x6e676b6974 // "ngkit"

// Interval is an estimate over N units with its 95% interval; all zero
// when N is 0 (nothing to estimate).
type Interval struct {
	N    int64   `json:"n"`
	Mean float64 `json:"mean"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// mean of xs (NaN when empty).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// bootstrapMaxN is the most units a bootstrap resamples: above it the
// interval is the normal one, mean +- 1.96 standard errors, which the
// bootstrap's then agrees with (the mean of thousands of bounded values is
// normal to well under the bootstrap's own Monte Carlo error), at a
// fraction of the cost.
const bootstrapMaxN = 2000

// z95 is the two-sided 95% quantile of the standard normal.
const z95 = 1.959963984540054

// bootstrapMean is the mean of xs with its 95% percentile bootstrap
// interval: bootstrapRounds resamples of len(xs) values drawn with
// replacement, by a generator seeded with bootstrapSeed (above
// bootstrapMaxN values, the normal interval). xs are the independent
// units (items, episodes); their order must be deterministic.
func bootstrapMean(xs []float64) Interval {
	if len(xs) == 0 {
		return Interval{}
	}
	iv := Interval{N: int64(len(xs)), Mean: mean(xs)}
	if len(xs) > bootstrapMaxN {
		var ss float64
		for _, x := range xs {
			ss += (x - iv.Mean) * (x - iv.Mean)
		}
		half := z95 * math.Sqrt(ss/float64(len(xs)-1)/float64(len(xs)))
		iv.Low, iv.High = iv.Mean-half, iv.Mean+half
		return iv
	}
	rng := resampler(bootstrapSeed ^ uint64(len(xs)))
	means := make([]float64, bootstrapRounds)
	n := len(xs)
	for b := range means {
		s := 0.0
		for range n {
			s += xs[rng.intn(n)]
		}
		means[b] = s / float64(n)
	}
	slices.Sort(means)
	iv.Low, iv.High = quantileSorted(means, 0.025), quantileSorted(means, 0.975)
	return iv
}

// resampler is splitmix64: the bootstrap draws millions of indexes, and
// this is several times faster than math/rand's generators; its quality is
// ample for resampling.
type resampler uint64

// intn is uniform in [0, n) for n < 2^32 (Lemire's multiply-shift; the
// bias, below n/2^32, is far under the bootstrap's own error).
func (r *resampler) intn(n int) int {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return int((z >> 32) * uint64(n) >> 32)
}

// quantileSorted is the q-quantile of sorted xs, linearly interpolated
// between the closest ranks.
func quantileSorted(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(xs)-1)
	return xs[lo] + (pos-float64(lo))*(xs[hi]-xs[lo])
}

// pearson is Pearson's correlation of x and y; ok is false with fewer than
// two pairs or when either has no variance.
func pearson(x, y []float64) (r float64, ok bool) {
	if len(x) != len(y) || len(x) < 2 {
		return 0, false
	}
	mx, my := mean(x), mean(y)
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	return sxy / math.Sqrt(sxx*syy), true
}

// ranks gives each value its rank (1-based), ties the mean of the ranks
// they span.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}

// spearman is Spearman's rank correlation: Pearson's of the ranks, ties
// given their mean rank.
func spearman(x, y []float64) (float64, bool) {
	if len(x) != len(y) {
		return 0, false
	}
	return pearson(ranks(x), ranks(y))
}

// jsd2 is the Jensen-Shannon divergence, in bits (so within [0, 1]), of
// the two-option distributions (p, 1-p) and (q, 1-q).
func jsd2(p, q float64) float64 {
	m := []float64{(p + q) / 2, (2 - p - q) / 2}
	a, b := []float64{p, 1 - p}, []float64{q, 1 - q}
	kl := func(x []float64) float64 {
		s := 0.0
		for i := range x {
			if x[i] > 0 {
				s += x[i] * math.Log2(x[i]/m[i])
			}
		}
		return s
	}
	return max(0, (kl(a)+kl(b))/2)
}

// optFloat is a figure that may be undefined (JSON null).
func optFloat(v float64, ok bool) *float64 {
	if !ok || math.IsNaN(v) {
		return nil
	}
	return &v
}
