package evalmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCorrelationsByHand checks the figures against values worked out by
// hand.
func TestCorrelationsByHand(t *testing.T) {
	// Pearson: x = 1 2 3 4, y = 2 4 5 9. Means 2.5 and 5; deviations
	// -1.5 -.5 .5 1.5 and -3 -1 0 4; sxy = 4.5+.5+0+6 = 11, sxx = 5,
	// syy = 9+1+0+16 = 26; r = 11/sqrt(130) = 0.964764.
	if r, ok := Pearson([]float64{1, 2, 3, 4}, []float64{2, 4, 5, 9}); !ok || !approx(r, 0.964764, 1e-6) {
		t.Errorf("pearson = %v %v, want 0.964764", r, ok)
	}
	// Spearman with a tie: x = 1 2 2 3 ranks 1 2.5 2.5 4; y = 1 3 2 4
	// ranks 1 3 2 4. Rank deviations -1.5 0 0 1.5 and -1.5 .5 -.5 1.5;
	// sxy = 2.25+2.25 = 4.5, sxx = 4.5, syy = 5; rho = 4.5/sqrt(22.5) =
	// 0.948683. (The no-ties formula 1 - 6*sum(d^2)/(n(n^2-1)) would give
	// 1 - 6*1.5/60 = 0.85: ties need Pearson of the mean ranks.)
	if r, ok := Spearman([]float64{1, 2, 2, 3}, []float64{1, 3, 2, 4}); !ok || !approx(r, 0.948683, 1e-6) {
		t.Errorf("spearman = %v %v, want 0.948683", r, ok)
	}
	// A monotone but non-linear relation: Spearman 1, Pearson below.
	if r, _ := Spearman([]float64{1, 2, 3, 4}, []float64{1, 8, 27, 64}); !approx(r, 1, 1e-12) {
		t.Errorf("spearman of a monotone relation = %v, want 1", r)
	}
	// No variance: undefined.
	if _, ok := Pearson([]float64{1, 2, 3}, []float64{5, 5, 5}); ok {
		t.Error("pearson of a constant is defined")
	}
	// A constant whose float mean is not exactly itself (0.1 * 3 / 3 is
	// 0.10000000000000002): still no variance, not r = 0 or 1e-16.
	if r, ok := Pearson([]float64{1, 2, 3}, []float64{0.1, 0.1, 0.1}); ok {
		t.Errorf("pearson of a float constant is defined: %v", r)
	}
	if r, ok := Pearson([]float64{0.7, 0.7, 0.7, 0.7, 0.7}, []float64{1, 2, 3, 5, 4}); ok {
		t.Errorf("pearson of a float constant is defined: %v", r)
	}
	if _, ok := Spearman([]float64{1}, []float64{2}); ok {
		t.Error("spearman of one pair is defined")
	}
	// JSD in bits. (1,0) vs (0,1): m = (.5,.5), each KL = log2(1/.5) = 1,
	// JSD = 1. (.5,.5) vs (1,0): m = (.75,.25); KL(a||m) = .5 log2(.5/.75)
	// + .5 log2(.5/.25) = -.2924813 + .5 = .2075187; KL(b||m) =
	// log2(1/.75) = .4150375; JSD = (.2075187 + .4150375)/2 = .3112781.
	for _, c := range []struct{ p, q, want float64 }{{1, 0, 1}, {0.3, 0.3, 0}, {0.5, 1, 0.3112781}, {1, 0.5, 0.3112781}} {
		if got := JSD2(c.p, c.q); !approx(got, c.want, 1e-7) {
			t.Errorf("jsd2(%v, %v) = %v, want %v", c.p, c.q, got, c.want)
		}
	}
	// Ranks with ties at their mean rank.
	if got := Ranks([]float64{3, 1, 3, 2, 3}); !equalFloats(got, []float64{4, 1, 4, 2, 4}) {
		t.Errorf("ranks = %v", got)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !approx(a[i], b[i], 1e-12) {
			return false
		}
	}
	return true
}

func TestMeanT(t *testing.T) {
	// 1..10: mean 5.5, sd sqrt(55/6) = 3.02765, se 0.957427; t(0.975, 9)
	// = 2.262157 (tables), half-width 2.165849.
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	a := MeanT(xs)
	if a.Mean != 5.5 || !approx(a.Low, 5.5-2.165849, 1e-5) || !approx(a.High, 5.5+2.165849, 1e-5) {
		t.Errorf("t interval %+v, want 5.5 +- 2.165849", a)
	}
	// t quantiles against tables: df 1 12.706205, 14 2.144787, 299
	// 1.967929; and the normal's far out.
	for _, c := range []struct{ df, want float64 }{{1, 12.706205}, {4, 2.776445}, {14, 2.144787}, {299, 1.967929}, {1e8, Z95}} {
		if got := TQuantile975(c.df); !approx(got, c.want, 1e-5) {
			t.Errorf("tQuantile975(%v) = %v, want %v", c.df, got, c.want)
		}
	}
	if e := MeanT(nil); e != (Interval{}) {
		t.Errorf("empty %+v", e)
	}
	if c := MeanT([]float64{2, 2, 2}); c.Low != 2 || c.High != 2 {
		t.Errorf("constant %+v", c)
	}
	// Welch: a = 1 2 3 (mean 2, var 1), b = 2 4 6 8 (mean 5, var 20/3);
	// se^2 = 1/3 + 5/3 = 2; df = 4 / ((1/9)/2 + (25/9)/3) = 4/0.98148 =
	// 4.0755, so t lies between t(4) = 2.7764 and t(5) = 2.5706.
	d := DiffT([]float64{1, 2, 3}, []float64{2, 4, 6, 8})
	if h := (d.High - d.Mean) / math.Sqrt2; d.Mean != -3 || !approx(h, TQuantile975(4/(1.0/18+25.0/27)), 1e-9) || h > 2.7764 || h < 2.74 {
		t.Errorf("welch %+v", d)
	}
}

// TestIntervalCoverage: over many synthetic runs with a known effect,
// the 95% intervals of a PACT contrast (the per-item-group mean change:
// skewed, bounded values, as p_follow differences are) cover the truth
// 93-97% of the time, at 15 item groups and at 300. The percentile
// bootstrap it replaces covered 92% at 15.
func TestIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 15))
	const runs = 2000
	const truth = 0.1
	for _, n := range []int{15, 300} {
		covered := 0
		xs := make([]float64, n)
		for range runs {
			for i := range xs {
				// an item group's base rate, and its change: the true
				// effect plus item spread and binomial noise of 20
				// samples per variant
				base := 0.2 + 0.6*rng.Float64()
				d := truth + 0.08*rng.NormFloat64()
				pa, pb := binom(rng, base, 20), binom(rng, min(1, max(0, base+d)), 20)
				xs[i] = pb - pa
			}
			iv := MeanT(xs)
			if iv.Low <= truth && truth <= iv.High {
				covered++
			}
		}
		share := float64(covered) / runs
		t.Logf("n=%d: 95%% t intervals covered the truth in %.1f%% of %d runs", n, 100*share, runs)
		if share < 0.93 || share > 0.97 {
			t.Errorf("n=%d: coverage %.3f, want 0.93-0.97", n, share)
		}
	}
}
func approx(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// binom is the share of k successes in n draws of probability p.
func binom(rng *rand.Rand, p float64, n int) float64 {
	k := 0
	for range n {
		if rng.Float64() < p {
			k++
		}
	}
	return float64(k) / float64(n)
}
