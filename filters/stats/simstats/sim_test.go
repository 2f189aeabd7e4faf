package simstats

import (
	"math"
	"testing"
)

func TestScoreIntervalLarge(t *testing.T) {
	// Above 2,000 episodes the normal interval: half the scores 4, half 5:
	// mean 4.5, sd 0.5 (n-1), half-width 1.96*0.5/sqrt(3000).
	iv := scoreInterval([5]int64{0, 0, 0, 1500, 1500})
	half := 1.959963984540054 * 0.5 * 1.0001667 / 54.7722558 // sqrt(3000/2999) for the n-1
	if !approx(iv.Mean, 4.5, 1e-12) || !approx(iv.High-iv.Mean, half, 1e-5) {
		t.Errorf("normal interval %+v, want 4.5 +- %v", iv, half)
	}
	// The bootstrap below, on the same shares, is about as wide.
	b := scoreInterval([5]int64{0, 0, 0, 1000, 1000})
	if want := 1.96 * 0.5 / 44.72; !approx(b.High-b.Mean, want, 0.004) {
		t.Errorf("bootstrap half-width %v, want about %v", b.High-b.Mean, want)
	}
}

func approx(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
