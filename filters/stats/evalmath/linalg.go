package evalmath

import "math"

// The small dense linear algebra of the PACT human regressions
// (pactstats, pactregress.go): what the authors take from numpy.linalg (solve, pinv,
// matrix_rank), hand-written because the matrices are a few dozen columns
// wide and a library would grow the binary for three functions. Matrices
// are row-major []float64.

// SolveLU solves a x = b by Gaussian elimination with partial pivoting
// (LAPACK's gesv, which numpy's solve calls: the largest pivot of each
// column, the first of equals). ok is false when a pivot is exactly zero,
// where numpy raises LinAlgError.
func SolveLU(a, b []float64, n int) (x []float64, ok bool) {
	m := make([]float64, len(a))
	copy(m, a)
	x = make([]float64, n)
	copy(x, b)
	for c := range n {
		piv, best := c, math.Abs(m[c*n+c])
		for r := c + 1; r < n; r++ {
			if v := math.Abs(m[r*n+c]); v > best {
				piv, best = r, v
			}
		}
		if best == 0 {
			return nil, false
		}
		if piv != c {
			for j := range n {
				m[c*n+j], m[piv*n+j] = m[piv*n+j], m[c*n+j]
			}
			x[c], x[piv] = x[piv], x[c]
		}
		d := m[c*n+c]
		for r := c + 1; r < n; r++ {
			f := m[r*n+c] / d
			if f == 0 {
				continue
			}
			m[r*n+c] = 0
			for j := c + 1; j < n; j++ {
				m[r*n+j] -= f * m[c*n+j]
			}
			x[r] -= f * x[c]
		}
	}
	for r := n - 1; r >= 0; r-- {
		s := x[r]
		for j := r + 1; j < n; j++ {
			s -= m[r*n+j] * x[j]
		}
		x[r] = s / m[r*n+r]
	}
	return x, true
}

// MatVec is a·v for a square n×n a.
func MatVec(a, v []float64, n int) []float64 {
	out := make([]float64, n)
	for i := range n {
		s := 0.0
		for j := range n {
			s += a[i*n+j] * v[j]
		}
		out[i] = s
	}
	return out
}

// PinvSym is numpy's pinv of a symmetric matrix: its eigen-decomposition
// by cyclic Jacobi rotations (for a symmetric matrix the singular values
// are the eigenvalues' magnitudes), every eigenvalue whose magnitude is
// above 1e-15 times the largest inverted (pinv's default rcond), the rest
// taken as zero.
func PinvSym(h []float64, n int) []float64 {
	a := make([]float64, len(h))
	copy(a, h)
	v := make([]float64, n*n)
	for i := range n {
		v[i*n+i] = 1
	}
	for range 100 {
		rotated := false
		for p := range n {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				// below rounding relative to the diagonal: Jacobi's
				// criterion that keeps small eigenvalues accurate
				if apq == 0 || math.Abs(apq) <= 0x1p-53*math.Sqrt(math.Abs(a[p*n+p]*a[q*n+q])) {
					continue
				}
				rotated = true
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for r := range n {
					x, y := a[r*n+p], a[r*n+q]
					a[r*n+p], a[r*n+q] = c*x-s*y, s*x+c*y
				}
				for r := range n {
					x, y := a[p*n+r], a[q*n+r]
					a[p*n+r], a[q*n+r] = c*x-s*y, s*x+c*y
				}
				a[p*n+q], a[q*n+p] = 0, 0
				for r := range n {
					x, y := v[r*n+p], v[r*n+q]
					v[r*n+p], v[r*n+q] = c*x-s*y, s*x+c*y
				}
			}
		}
		if !rotated {
			break
		}
	}
	top := 0.0
	for i := range n {
		top = math.Max(top, math.Abs(a[i*n+i]))
	}
	out := make([]float64, n*n)
	for k := range n {
		l := a[k*n+k]
		if math.Abs(l) <= 1e-15*top {
			continue
		}
		for i := range n {
			f := v[i*n+k] / l
			for j := range n {
				out[i*n+j] += f * v[j*n+k]
			}
		}
	}
	return out
}

// SingularValues are the singular values of the m×n matrix a (row-major),
// min(m, n) of them and n-m zeros more when m < n: a tall matrix is
// first reduced to its n×n R by Householder QR (as LAPACK's gesdd does),
// whose singular values are a's, then one-sided Jacobi.
func SingularValues(a []float64, m, n int) []float64 {
	if m == 0 || n == 0 {
		return nil
	}
	cols := make([][]float64, n) // column-major
	for j := range n {
		cols[j] = make([]float64, m)
		for i := range m {
			cols[j][i] = a[i*n+j]
		}
	}
	if m > n {
		cols = HouseholderR(cols, m, n)
	}
	return JacobiSingular(cols)
}

// HouseholderR is the n×n R of the QR factorisation of the m×n matrix
// of these columns (m > n), by Householder reflections, as columns; it
// overwrites them.
func HouseholderR(cols [][]float64, m, n int) [][]float64 {
	for j := range n {
		x := cols[j][j:]
		norm := 0.0
		for _, e := range x {
			norm += e * e
		}
		norm = math.Sqrt(norm)
		if norm == 0 {
			continue
		}
		alpha := -norm
		if x[0] < 0 {
			alpha = norm
		}
		vec := make([]float64, len(x))
		copy(vec, x)
		vec[0] -= alpha
		vn := 0.0
		for _, e := range vec {
			vn += e * e
		}
		if vn == 0 {
			continue
		}
		for l := j + 1; l < n; l++ {
			y := cols[l][j:]
			dot := 0.0
			for i, e := range vec {
				dot += e * y[i]
			}
			tau := 2 * dot / vn
			if tau == 0 {
				continue
			}
			for i, e := range vec {
				y[i] -= tau * e
			}
		}
		x[0] = alpha
		clear(x[1:])
	}
	for j := range n {
		cols[j] = cols[j][:n]
	}
	return cols
}

// JacobiSingular are the singular values of the matrix of these columns
// (all of one length) by one-sided Jacobi (Hestenes): rotations of pairs
// of columns until every two are orthogonal to rounding, the columns'
// norms then the singular values. It overwrites the columns.
func JacobiSingular(cols [][]float64) []float64 {
	n := len(cols)
	for range 100 {
		rotated := false
		for j := range n {
			for l := j + 1; l < n; l++ {
				u, w := cols[j], cols[l]
				alpha, beta, gamma := 0.0, 0.0, 0.0
				for i := range u {
					alpha += u[i] * u[i]
					beta += w[i] * w[i]
					gamma += u[i] * w[i]
				}
				if gamma == 0 || math.Abs(gamma) <= 0x1p-53*math.Sqrt(alpha*beta) {
					continue
				}
				rotated = true
				zeta := (beta - alpha) / (2 * gamma)
				t := 1 / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
				if zeta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(1+t*t)
				s := c * t
				for i := range u {
					x, y := u[i], w[i]
					u[i], w[i] = c*x-s*y, s*x+c*y
				}
			}
		}
		if !rotated {
			break
		}
	}
	out := make([]float64, n)
	for j := range n {
		s := 0.0
		for _, e := range cols[j] {
			s = math.Hypot(s, e)
		}
		out[j] = s
	}
	return out
}
