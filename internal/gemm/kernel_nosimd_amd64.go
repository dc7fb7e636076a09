//go:build !goexperiment.simd

package gemm

// haveSIMD: without GOEXPERIMENT=simd there is no archsimd kernel.
const haveSIMD = false

// tileSIMD is never called without GOEXPERIMENT=simd. It is a function,
// not a nil func variable, so that calls through tileAsm do not make
// their arguments escape.
func tileSIMD(mr, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, mode int) {
	panic("gemm: built without GOEXPERIMENT=simd")
}
