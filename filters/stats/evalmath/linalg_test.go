package evalmath

import (
	"math"
	"slices"
	"testing"
)

func TestSingularValues(t *testing.T) {
	// tall, rank 1: the second singular value is rounding, far below
	// numpy's tolerance S.max·max(M, N)·eps
	s := SingularValues([]float64{1, 2, 2, 4, 3, 6}, 3, 2)
	slices.Sort(s)
	if math.Abs(s[1]-math.Sqrt(70)) > 1e-12 || s[0] > math.Sqrt(70)*3*0x1p-52 {
		t.Errorf("rank-1 singular values %v, want [0 %v]", s, math.Sqrt(70))
	}
	// wide: min(m, n) values and zeros
	s = SingularValues([]float64{3, 0, 0, 0, 4, 0}, 2, 3)
	slices.Sort(s)
	if math.Abs(s[1]-3) > 1e-14 || math.Abs(s[2]-4) > 1e-14 || s[0] != 0 {
		t.Errorf("singular values %v, want [0 3 4]", s)
	}
}

func TestSolveAndPinv(t *testing.T) {
	// a zero on the diagonal: partial pivoting swaps the rows
	x, ok := SolveLU([]float64{0, 2, 1, 1}, []float64{4, 3}, 2)
	if !ok || math.Abs(x[0]-1) > 1e-15 || math.Abs(x[1]-2) > 1e-15 {
		t.Errorf("solve = %v, %v; want [1 2]", x, ok)
	}
	if _, ok := SolveLU([]float64{1, 2, 2, 4}, []float64{1, 1}, 2); ok {
		t.Error("a singular matrix solved")
	}
	// pinv of [[1 1] [1 1]] is [[1/4 1/4] [1/4 1/4]]
	p := PinvSym([]float64{1, 1, 1, 1}, 2)
	for _, v := range p {
		if math.Abs(v-0.25) > 1e-15 {
			t.Fatalf("pinv %v", p)
		}
	}
	// of an invertible matrix, the inverse
	p = PinvSym([]float64{2, 1, 1, 2}, 2)
	for i, want := range []float64{2.0 / 3, -1.0 / 3, -1.0 / 3, 2.0 / 3} {
		if math.Abs(p[i]-want) > 1e-15 {
			t.Fatalf("pinv %v", p)
		}
	}
}
