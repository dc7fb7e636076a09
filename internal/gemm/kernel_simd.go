//go:build goexperiment.simd && amd64

package gemm

import "simd/archsimd"

// With GOEXPERIMENT=simd the package also has a kernel written with
// simd/archsimd, for comparison with the assembly, which stays the
// default (the experiment is off in the project's builds). Tests run it
// like the other kernels.
var haveSIMD = archsimd.X86.AVX512()

// tileSIMD is kernAVX512 in Go: four rows at a time, each row's 32
// columns in two 16-float vectors.
func tileSIMD(mr, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, mode int) {
	i := 0
	for ; i+4 <= mr; i += 4 {
		simd4(k, a[i*lda:], lda, b, ldb, c[i*ldc:], ldc, bias, mode)
	}
	for ; i < mr; i++ {
		simd1(k, a[i*lda:], b, ldb, c[i*ldc:], bias, mode)
	}
}

// simdStart loads what a row's accumulators start from.
func simdStart(c, bias []float32, mode int) (lo, hi archsimd.Float32x16) {
	switch mode {
	case modeBias:
		return archsimd.LoadFloat32x16Slice(bias), archsimd.LoadFloat32x16Slice(bias[16:])
	case modeAcc:
		return archsimd.LoadFloat32x16Slice(c), archsimd.LoadFloat32x16Slice(c[16:])
	}
	return lo, hi
}

func simd4(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, mode int) {
	c0l, c0h := simdStart(c, bias, mode)
	c1l, c1h := simdStart(c[ldc:], bias, mode)
	c2l, c2h := simdStart(c[2*ldc:], bias, mode)
	c3l, c3h := simdStart(c[3*ldc:], bias, mode)
	a0, a1, a2, a3 := a[:k], a[lda:lda+k], a[2*lda:2*lda+k], a[3*lda:3*lda+k]
	for p := range a0 {
		br := b[p*ldb : p*ldb+32]
		bl, bh := archsimd.LoadFloat32x16Slice(br), archsimd.LoadFloat32x16Slice(br[16:])
		x := archsimd.BroadcastFloat32x16(a0[p])
		c0l, c0h = bl.MulAdd(x, c0l), bh.MulAdd(x, c0h)
		x = archsimd.BroadcastFloat32x16(a1[p])
		c1l, c1h = bl.MulAdd(x, c1l), bh.MulAdd(x, c1h)
		x = archsimd.BroadcastFloat32x16(a2[p])
		c2l, c2h = bl.MulAdd(x, c2l), bh.MulAdd(x, c2h)
		x = archsimd.BroadcastFloat32x16(a3[p])
		c3l, c3h = bl.MulAdd(x, c3l), bh.MulAdd(x, c3h)
	}
	c0l.StoreSlice(c)
	c0h.StoreSlice(c[16:])
	c1l.StoreSlice(c[ldc:])
	c1h.StoreSlice(c[ldc+16:])
	c2l.StoreSlice(c[2*ldc:])
	c2h.StoreSlice(c[2*ldc+16:])
	c3l.StoreSlice(c[3*ldc:])
	c3h.StoreSlice(c[3*ldc+16:])
}

func simd1(k int, a []float32, b []float32, ldb int, c []float32, bias []float32, mode int) {
	cl, ch := simdStart(c, bias, mode)
	for p, v := range a[:k] {
		br := b[p*ldb : p*ldb+32]
		x := archsimd.BroadcastFloat32x16(v)
		cl, ch = archsimd.LoadFloat32x16Slice(br).MulAdd(x, cl), archsimd.LoadFloat32x16Slice(br[16:]).MulAdd(x, ch)
	}
	cl.StoreSlice(c)
	ch.StoreSlice(c[16:])
}
