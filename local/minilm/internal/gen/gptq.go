package main

import (
	"fmt"
	"math"
)

// gptqDamp is the fraction of the mean diagonal of XᵀX added to it, so
// that inputs the calibration texts barely use keep it invertible.
const gptqDamp = 0.01

// gptq rounds w (rows×cols, row i with scale scales[i]) to int8 one input
// column at a time, as in GPTQ (Frantar et al., 2022): each column's
// rounding error is spread over the columns not yet rounded so as to
// minimize the error of the layer's output on inputs with second moment
// h (cols×cols, upper triangle of the sum of x·xᵀ). The stored format is
// unchanged: int8 with one scale per row.
func gptq(w []float32, rows, cols int, scales []float32, h []float64) ([]int8, error) {
	u, err := inverseFactor(dampedHessian(h, cols), cols)
	if err != nil {
		return nil, err
	}
	return roundColumns(w, rows, cols, scales, u), nil
}

// dampedHessian returns h (n×n, upper triangle) made symmetric, with
// gptqDamp of its mean diagonal added to the diagonal.
func dampedHessian(h []float64, n int) []float64 {
	a := make([]float64, n*n)
	var mean float64
	for i := range n {
		mean += h[i*n+i]
	}
	mean /= float64(n)
	for i := range n {
		for j := i; j < n; j++ {
			a[i*n+j], a[j*n+i] = h[i*n+j], h[i*n+j]
		}
		a[i*n+i] += gptqDamp * mean
		if a[i*n+i] == 0 {
			a[i*n+i] = 1
		}
	}
	return a
}

// inverseFactor returns the upper Cholesky factor U of a⁻¹ (a⁻¹ = Uᵀ·U),
// for a symmetric positive definite n×n.
func inverseFactor(a []float64, n int) ([]float64, error) {
	l, err := cholesky(a, n)
	if err != nil {
		return nil, err
	}
	// m = L⁻¹, row by row: row i = (eᵢ − Σₖ<ᵢ L[i][k]·m[k]) / L[i][i].
	m := make([]float64, n*n)
	for i := range n {
		row := m[i*n : i*n+i+1]
		row[i] = 1
		for k := range i {
			if c := l[i*n+k]; c != 0 {
				for j, v := range m[k*n : k*n+k+1] {
					row[j] -= c * v
				}
			}
		}
		d := l[i*n+i]
		for j := range row {
			row[j] /= d
		}
	}
	// a⁻¹ = mᵀ·m, then its upper Cholesky factor.
	inv := make([]float64, n*n)
	for k := range n {
		mk := m[k*n : k*n+k+1]
		for p, v := range mk {
			if v == 0 {
				continue
			}
			row := inv[p*n : p*n+k+1]
			for j, x := range mk {
				row[j] += v * x
			}
		}
	}
	lc, err := cholesky(inv, n)
	if err != nil {
		return nil, fmt.Errorf("inverse: %w", err)
	}
	u := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			u[j*n+i] = lc[i*n+j]
		}
	}
	return u, nil
}

// roundColumns rounds w (rows×n) to int8 column by column, spreading each
// rounding error over the columns after it along u's rows.
func roundColumns(w []float32, rows, n int, scales []float32, u []float64) []int8 {
	work := make([]float64, len(w))
	for i, v := range w {
		work[i] = float64(v)
	}
	q := make([]int8, len(w))
	for c := range n {
		d := u[c*n+c]
		uc := u[c*n+c+1 : (c+1)*n]
		for r := range rows {
			s := scales[r]
			row := work[r*n : (r+1)*n]
			v := row[c]
			var qv float64
			if s != 0 {
				qv = max(-127, min(127, math.RoundToEven(v/float64(s))))
			}
			q[r*n+c] = int8(qv)
			e := (v - qv*float64(s)) / d
			if e == 0 {
				continue
			}
			rest := row[c+1:]
			for j, x := range uc {
				rest[j] -= e * x
			}
		}
	}
	return q
}

// cholesky returns the lower-triangular L with a = L·Lᵀ, for a symmetric
// positive definite n×n (only its lower triangle is read).
func cholesky(a []float64, n int) ([]float64, error) {
	l := make([]float64, n*n)
	for j := range n {
		lj := l[j*n : j*n+j]
		s := a[j*n+j]
		for _, v := range lj {
			s -= v * v
		}
		if s <= 0 {
			return nil, fmt.Errorf("cholesky: not positive definite at %d of %d", j, n)
		}
		d := math.Sqrt(s)
		l[j*n+j] = d
		for i := j + 1; i < n; i++ {
			li := l[i*n : i*n+j]
			s := a[i*n+j]
			for k, v := range li {
				s -= v * lj[k]
			}
			l[i*n+j] = s / d
		}
	}
	return l, nil
}
