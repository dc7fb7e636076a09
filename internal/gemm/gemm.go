// Package gemm multiplies float32 matrices for the offline transformer
// embedder: activations (rows of tokens) times the transposed weight
// matrices of linear layers, stored once in a packed layout.
package gemm

import "fmt"

// Weights is a linear layer's weight matrix W, n outputs by k inputs (the
// PyTorch nn.Linear layout, row i holding output i's k weights), kept in
// the layout the kernels read. It is read-only after Pack and safe for
// concurrent use.
type Weights struct {
	n, k int
	w    []float32 // row-major n×k
}

// Pack returns w (n×k, row-major) prepared for Mul. It copies w.
func Pack(w []float32, n, k int) *Weights {
	if n <= 0 || k <= 0 || len(w) != n*k {
		panic(fmt.Sprintf("gemm: Pack of %d values as %d×%d", len(w), n, k))
	}
	return &Weights{n: n, k: k, w: append([]float32(nil), w...)}
}

// N is the number of outputs (rows of W).
func (w *Weights) N() int { return w.n }

// K is the number of inputs (columns of W).
func (w *Weights) K() int { return w.k }

// Mul sets dst (m×n, row-major) to a·Wᵀ + bias, where a is m×k row-major
// and bias, when not nil, has n values added to every row.
func (w *Weights) Mul(dst, a []float32, m int, bias []float32) {
	n, k := w.n, w.k
	if len(a) < m*k || len(dst) < m*n || (bias != nil && len(bias) != n) {
		panic(fmt.Sprintf("gemm: Mul of %d×%d by %d×%d into %d values", m, k, k, n, len(dst)))
	}
	for i := 0; i < m; i++ {
		row := a[i*k : (i+1)*k]
		out := dst[i*n : (i+1)*n]
		for j := 0; j < n; j++ {
			col := w.w[j*k : (j+1)*k]
			var s float32
			for p, x := range row {
				s += x * col[p]
			}
			if bias != nil {
				s += bias[j]
			}
			out[j] = s
		}
	}
}

// MulT sets dst (m×n) to a·bᵀ, a being m×k and b n×k, both row-major and
// unpacked: the attention scores Q·Kᵀ.
func MulT(dst, a, b []float32, m, n, k int) {
	for i := 0; i < m; i++ {
		row := a[i*k : (i+1)*k]
		for j := 0; j < n; j++ {
			col := b[j*k : (j+1)*k]
			var s float32
			for p, x := range row {
				s += x * col[p]
			}
			dst[i*n+j] = s
		}
	}
}

// MulN sets dst (m×n) to a·b, a being m×k and b k×n, both row-major: the
// attention-weighted values P·V.
func MulN(dst, a, b []float32, m, n, k int) {
	for i := 0; i < m; i++ {
		out := dst[i*n : (i+1)*n]
		clear(out)
		for p := 0; p < k; p++ {
			x := a[i*k+p]
			brow := b[p*n : (p+1)*n]
			for j, y := range brow {
				out[j] += x * y
			}
		}
	}
}
