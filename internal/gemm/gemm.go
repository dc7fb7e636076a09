// Package gemm multiplies float32 matrices for the offline transformer
// embedder: activations (rows of tokens) times the transposed weight
// matrices of linear layers, stored once in a packed layout, and the two
// small products of attention.
//
// Everything runs through one micro-kernel shape: a tile of up to MR rows
// of A times a panel of 32 columns of B laid out k-major (row p of the
// panel is the 32 values B[p][j0:j0+32]), accumulated in registers. On
// amd64 the kernel is assembly, AVX-512 (14×32, 28 zmm accumulators) or
// AVX2+FMA (6×16, run twice per panel), chosen at start-up with
// golang.org/x/sys/cpu; elsewhere, and on CPUs without AVX2/FMA, a
// portable Go kernel does the same work (tests force each path through
// the impl variable). Built with GOEXPERIMENT=simd, the package also has
// an archsimd kernel, tested but never chosen by default.
//
// Mul blocks A by rows and k (a block of up to 256 KB, k in slices of at
// most 512) so the block stays in L2 while the weight panels stream past
// it; each panel is read from memory once per block, which for a short
// sentence (m ≲ 50) means once per call. Products of 2M multiply-adds or
// more are shared, in chunks of panels, between the caller and
// GOMAXPROCS-1 long-lived helpers, which poll briefly before parking so
// the next product of the same sentence finds them awake. MulT and MulN
// (attention, one head at a time) stay on the calling goroutine: run
// heads in parallel if needed.
//
// Benchmarks report GFLOP/s and the GOMAXPROCS they ran with (procs);
// BenchmarkPeak and BenchmarkMemRead measure the machine itself. Set the
// cores with GOMAXPROCS in the environment: -cpu 1 leaves GOMAXPROCS at 2
// inside the benchmarks. docs/BENCHMARKS.md has the commands and figures.
package gemm

import (
	"fmt"
	"unsafe"
)

// nr is the panel width: the columns of B (outputs of W) one kernel call
// covers.
const nr = 32

// Kernel implementations, fastest last.
const (
	implGeneric = iota
	implAVX2
	implAVX512
	implSIMD // simd/archsimd, only with GOEXPERIMENT=simd; never the default
)

// Kernel modes: what the accumulators start from.
const (
	modeZero = 0 // C = A·B
	modeBias = 1 // C = bias + A·B
	modeAcc  = 2 // C += A·B
)

// maxRows is the most rows of A one kernel call takes under impl i: as
// many as keep all accumulators in vector registers.
func maxRows(i int) int {
	switch i {
	case implAVX512:
		return 14
	case implAVX2:
		return 6
	case implSIMD:
		return 12
	}
	return 8
}

// Weights is a linear layer's weight matrix W, n outputs by k inputs (the
// PyTorch nn.Linear layout, row i holding output i's k weights), kept in
// the layout the kernels read. It is read-only after Pack and safe for
// concurrent use.
type Weights struct {
	n, k int
	np   int       // panels: ⌈n/32⌉
	w    []float32 // panel q at w[q·k·32:], its row p the weights of outputs 32q…32q+31 for input p, zero past n
}

// Pack returns w (n×k, row-major) prepared for Mul. It copies w into
// panels of 32 outputs interleaved by input, so the kernel reads each
// panel as one sequential stream; the copy is 64-byte aligned so every
// panel row is one cache line pair.
func Pack(w []float32, n, k int) *Weights {
	if n <= 0 || k <= 0 || len(w) != n*k {
		panic(fmt.Sprintf("gemm: Pack of %d values as %d×%d", len(w), n, k))
	}
	np := (n + nr - 1) / nr
	buf := alignedFloats(np * k * nr)
	for j := 0; j < n; j++ {
		panel := buf[j/nr*k*nr:]
		jj := j % nr
		for p, x := range w[j*k : (j+1)*k] {
			panel[p*nr+jj] = x
		}
	}
	return &Weights{n: n, k: k, np: np, w: buf}
}

// alignedFloats returns n zeroed float32s starting on a 64-byte boundary.
func alignedFloats(n int) []float32 {
	s := make([]float32, n+16)
	off := int((64 - uintptr(unsafe.Pointer(&s[0]))%64) % 64 / 4)
	return s[off : off+n : off+n]
}

// N is the number of outputs (rows of W).
func (w *Weights) N() int { return w.n }

// K is the number of inputs (columns of W).
func (w *Weights) K() int { return w.k }

// Mul sets dst (m×n, row-major) to a·Wᵀ + bias, where a is m×k row-major
// and bias, when not nil, has n values added to every row. Products of at
// least parallelMACs multiply-adds per worker run on up to GOMAXPROCS
// goroutines; Mul does not allocate once its workers have started.
func (w *Weights) Mul(dst, a []float32, m int, bias []float32) {
	n, k := w.n, w.k
	if m < 0 || len(a) < m*k || len(dst) < m*n || (bias != nil && len(bias) != n) {
		panic(fmt.Sprintf("gemm: Mul of %d×%d by %d×%d into %d values", m, k, k, n, len(dst)))
	}
	if m == 0 {
		return
	}
	if nw := w.workers(m); nw > 1 {
		w.mulParallel(dst, a, m, bias, nw)
		return
	}
	w.mulPanels(dst, a, m, bias, 0, w.np)
}

// blockBytes bounds the block of A (rows × a slice of k) that Mul keeps in
// L2 while it runs every panel of its range over it; kcMax bounds the
// slice, so that for k = 1536 a block still spans ~10 tiles and each
// weight sub-panel fetched from L3 serves all of them.
const (
	blockBytes = 256 << 10
	kcMax      = 512
)

// mulPanels computes the output columns of panels [q0, q1).
func (w *Weights) mulPanels(dst, a []float32, m int, bias []float32, q0, q1 int) {
	n, k := w.n, w.k
	mr := maxRows(impl)
	nk := (k + kcMax - 1) / kcMax
	kc := (k + nk - 1) / nk
	mc := max(mr, blockBytes/(4*kc)/mr*mr)
	nb := (m + mc - 1) / mc
	for b := 0; b < nb; b++ {
		// Rows [i0, i1) split evenly into blocks, then into tiles.
		i0, i1 := b*m/nb, (b+1)*m/nb
		rows := i1 - i0
		nt := (rows + mr - 1) / mr
		for p0 := 0; p0 < k; p0 += kc {
			kb := min(kc, k-p0)
			mode := modeAcc
			if p0 == 0 {
				mode = modeZero
				if bias != nil {
					mode = modeBias
				}
			}
			for q := q0; q < q1; q++ {
				panel := w.w[(q*k+p0)*nr : (q*k+p0+kb)*nr]
				j0 := q * nr
				cols := min(nr, n-j0)
				var bs []float32
				if mode == modeBias {
					bs = bias[j0 : j0+cols]
				}
				for t := 0; t < nt; t++ {
					r0, r1 := i0+t*rows/nt, i0+(t+1)*rows/nt
					tile(r1-r0, kb, a[r0*k+p0:], k, panel, nr, dst[r0*n+j0:], n, bs, mode, cols)
				}
			}
		}
	}
}

// tile computes the mr×cols block of C at c (row stride ldc) from mr rows
// of A at a (stride lda) and k rows of B at b (stride ldb), per mode. b
// must hold 32 readable columns per row unless impl is generic or cols ≤
// 16 under AVX2; bias, for modeBias, holds cols values.
func tile(mr, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, mode, cols int) {
	if impl == implGeneric {
		tileGeneric(mr, k, a, lda, b, ldb, c, ldc, bias, mode, cols)
		return
	}
	width := nr
	if impl == implAVX2 && cols <= 16 {
		width = 16
	}
	// The assembly reads and writes exactly these ranges.
	_ = a[(mr-1)*lda+k-1]
	_ = b[(k-1)*ldb+width-1]
	if cols == width {
		_ = c[(mr-1)*ldc+width-1]
		tileAsm(mr, k, a, lda, b, ldb, c, ldc, bias, mode, width)
		return
	}
	// A partial panel: the kernel writes a full-width scratch tile.
	var t [14 * nr]float32
	var bp [nr]float32
	if mode == modeBias {
		copy(bp[:], bias[:cols])
		bias = bp[:]
	}
	if mode == modeAcc {
		for i := 0; i < mr; i++ {
			copy(t[i*nr:i*nr+cols], c[i*ldc:i*ldc+cols])
		}
	}
	tileAsm(mr, k, a, lda, b, ldb, t[:], nr, bias, mode, width)
	for i := 0; i < mr; i++ {
		copy(c[i*ldc:i*ldc+cols], t[i*nr:i*nr+cols])
	}
}
