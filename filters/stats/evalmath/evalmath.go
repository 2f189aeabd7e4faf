// Package evalmath holds the statistics of ngstats' evaluation sections
// (PACT, simulation): correlations, Jensen-Shannon divergence, t intervals
// (PACT), bootstrap intervals (simulation scores) and the small dense
// linear algebra of the PACT human regressions. Every interval is a 95%
// interval; the bootstrap is seeded, so the same input always gives the
// same report.
package evalmath

import (
	"math"
	"slices"
	"strings"
)

// BootstrapRounds is how many resamples a bootstrap interval draws.
const BootstrapRounds = 2000

// BootstrapSeed seeds every bootstrap: the report is a pure function of
// its input.
const BootstrapSeed = 0x6e676b6974 // "ngkit"

// Interval is an estimate over N units with its 95% interval; all zero
// when N is 0 (nothing to estimate).
type Interval struct {
	N    int64   `json:"n"`
	Mean float64 `json:"mean"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Mean of xs (NaN when empty).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// BootstrapMaxN is the most units a bootstrap resamples: above it the
// interval is the normal one, mean +- 1.96 standard errors, which the
// bootstrap's then agrees with (the mean of thousands of bounded values is
// normal to well under the bootstrap's own Monte Carlo error), at a
// fraction of the cost.
const BootstrapMaxN = 2000

// Z95 is the two-sided 95% quantile of the standard normal.
const Z95 = 1.959963984540054

// MeanT is the mean of xs with its 95% Student t interval, mean +-
// t(0.975, n-1) standard errors. xs are the independent units (items, or
// the item groups of a counterfactual: one value per cluster), so the
// interval is a cluster interval. Its coverage holds at a handful of
// units, where the percentile bootstrap's falls short (it covered 92% at
// 15 units; TestIntervalCoverage checks 93-97% at 15 and 300). One unit
// has no spread to estimate: its interval is the mean itself (N says so).
func MeanT(xs []float64) Interval {
	if len(xs) == 0 {
		return Interval{}
	}
	iv := Interval{N: int64(len(xs)), Mean: Mean(xs)}
	if len(xs) < 2 {
		iv.Low, iv.High = iv.Mean, iv.Mean
		return iv
	}
	var ss float64
	for _, x := range xs {
		ss += (x - iv.Mean) * (x - iv.Mean)
	}
	se := math.Sqrt(ss / float64(len(xs)-1) / float64(len(xs)))
	half := TQuantile975(float64(len(xs)-1)) * se
	iv.Low, iv.High = iv.Mean-half, iv.Mean+half
	return iv
}

// DiffT is the difference of the means of two independent samples, a -
// b, with its 95% Welch interval (Welch-Satterthwaite degrees of
// freedom); with fewer than two values on a side, the interval is the
// difference itself.
func DiffT(a, b []float64) Interval {
	if len(a) == 0 || len(b) == 0 {
		return Interval{}
	}
	ma, mb := Mean(a), Mean(b)
	iv := Interval{N: int64(len(a) + len(b)), Mean: ma - mb, Low: ma - mb, High: ma - mb}
	if len(a) < 2 || len(b) < 2 {
		return iv
	}
	va, vb := Variance(a, ma)/float64(len(a)), Variance(b, mb)/float64(len(b))
	se := math.Sqrt(va + vb)
	if se == 0 {
		return iv
	}
	df := (va + vb) * (va + vb) / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	half := TQuantile975(df) * se
	iv.Low, iv.High = iv.Mean-half, iv.Mean+half
	return iv
}

// ClusterInterval is the 95% interval of an estimate that is a smooth
// function of item values, from its influence values (one per item: the
// estimate's change per unit of the item, linearized) and the items'
// groups: the cluster-robust variance G/(G-1) * sum over groups of the
// squared group sums of influence, and t with G-1 degrees of freedom. The
// variants of one scenario (an item group) are not independent; with one
// item per group this is the t interval. Fewer than two groups: the
// estimate itself.
func ClusterInterval(est float64, infl []float64, groups []string) Interval {
	// The groups' sums in the order they first appear: a float sum in
	// map order differed in its last digits from run to run, and so did
	// the report.
	at := map[string]int{}
	var sums []float64
	for i, g := range groups {
		k, ok := at[g]
		if !ok {
			k = len(sums)
			at[g] = k
			sums = append(sums, 0)
		}
		sums[k] += infl[i]
	}
	iv := Interval{N: int64(len(infl)), Mean: est, Low: est, High: est}
	if len(sums) < 2 {
		return iv
	}
	var v float64
	for _, u := range sums {
		v += u * u
	}
	g := float64(len(sums))
	half := TQuantile975(g-1) * math.Sqrt(v*g/(g-1))
	iv.Low, iv.High = est-half, est+half
	return iv
}

// Variance is the sample variance (n-1) of xs about m.
func Variance(xs []float64, m float64) float64 {
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return ss / float64(len(xs)-1)
}

// TQuantile975 is the 0.975 quantile of Student's t with df degrees of
// freedom (df > 0, not necessarily whole), by bisection on the CDF.
func TQuantile975(df float64) float64 {
	if df > 1e7 {
		return Z95
	}
	lo, hi := 0.0, 1000.0
	for range 200 {
		mid := (lo + hi) / 2
		if tCDF(mid, df) < 0.975 {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-13 {
			break
		}
	}
	return (lo + hi) / 2
}

// tCDF is Student's t CDF at t >= 0: 1 - I_x(df/2, 1/2)/2 with x =
// df/(df+t^2).
func tCDF(t, df float64) float64 {
	return 1 - 0.5*regIncBeta(df/2, 0.5, df/(df+t*t))
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by
// its continued fraction (Lentz's method).
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaCF(b, a, 1-x)/b
	}
	return front * betaCF(a, b, x) / a
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		for range 2 {
			d = 1 + num*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + num/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			h *= d * c
			num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		}
		if math.Abs(d*c-1) < 1e-15 {
			break
		}
	}
	return h
}

// Resampler is splitmix64: the bootstrap draws millions of indexes, and
// this is several times faster than math/rand's generators; its quality is
// ample for resampling.
type Resampler uint64

// Intn is uniform in [0, n) for n < 2^32 (Lemire's multiply-shift; the
// bias, below n/2^32, is far under the bootstrap's own error).
func (r *Resampler) Intn(n int) int {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return int((z >> 32) * uint64(n) >> 32)
}

// QuantileSorted is the q-quantile of sorted xs, linearly interpolated
// between the closest ranks.
func QuantileSorted(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(xs)-1)
	return xs[lo] + (pos-float64(lo))*(xs[hi]-xs[lo])
}

// Pearson is Pearson's correlation of x and y; ok is false with fewer than
// two pairs or when either has no variance.
func Pearson(x, y []float64) (r float64, ok bool) {
	if len(x) != len(y) || len(x) < 2 {
		return 0, false
	}
	mx, my := Mean(x), Mean(y)
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if Constant(x) || Constant(y) {
		return 0, false
	}
	return sxy / math.Sqrt(sxx*syy), true
}

// Constant says whether xs has no variance. Not "sum of squared
// deviations == 0": the mean of equal values is not always exactly that
// value in floating point (0.1 three times), so the deviations are not all
// zero and a constant series got r = 0 or 1e-16 in place of "undefined".
func Constant(xs []float64) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// Ranks gives each value its rank (1-based), ties the mean of the ranks
// they span.
func Ranks(x []float64) []float64 {
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

// Spearman is Spearman's rank correlation: Pearson's of the ranks, ties
// given their mean rank.
func Spearman(x, y []float64) (float64, bool) {
	if len(x) != len(y) {
		return 0, false
	}
	return Pearson(Ranks(x), Ranks(y))
}

// JSD2 is the Jensen-Shannon divergence, in bits (so within [0, 1]), of
// the two-option distributions (p, 1-p) and (q, 1-q).
func JSD2(p, q float64) float64 {
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

// OptFloat is a figure that may be undefined (JSON null).
func OptFloat(v float64, ok bool) *float64 {
	if !ok || math.IsNaN(v) {
		return nil
	}
	return &v
}

// Wilson is the 95% Wilson score interval of k successes in n trials:
// unlike the normal approximation it stays within [0, 1] and is sound
// for small n and rates near 0 or 1.
func Wilson(k, n int64) (low, high float64) {
	if n == 0 {
		return 0, 0
	}
	const z = Z95
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return max(0, center-half), min(1, center+half)
}

// ShareWilson is k of n with its Wilson interval.
func ShareWilson(k, n int64) Interval {
	if n == 0 {
		return Interval{}
	}
	iv := Interval{N: n, Mean: float64(k) / float64(n)}
	iv.Low, iv.High = Wilson(k, n)
	return iv
}

// NoneLast orders the groups of the evaluation tables by name, "" (none) last.
func NoneLast(x, y string) int {
	if (x == "") != (y == "") {
		if x == "" {
			return 1
		}
		return -1
	}
	return strings.Compare(x, y)
}
