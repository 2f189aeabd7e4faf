package agree

import (
	"math"
	"testing"
)

func TestCohenKappa(t *testing.T) {
	// Wikipedia's worked example: 50 items, 20 yes/yes, 5 yes/no, 10
	// no/yes, 15 no/no: po 0.7, pe 0.5, kappa 0.4.
	if k, ok := CohenKappa([][]int64{{20, 5}, {10, 15}}); !ok || math.Abs(k-0.4) > 1e-12 {
		t.Errorf("kappa %v %v, want 0.4", k, ok)
	}
	if k, ok := CohenKappa([][]int64{{3, 0}, {0, 4}}); !ok || k != 1 {
		t.Errorf("perfect agreement: %v %v", k, ok)
	}
	if _, ok := CohenKappa([][]int64{{5, 0}, {0, 0}}); ok {
		t.Error("one class only: kappa is undefined")
	}
	if _, ok := CohenKappa(nil); ok {
		t.Error("no items")
	}
}
