//go:build !amd64

package gemm

const bestImpl = implGeneric

// haveSIMD: the archsimd kernel is amd64-only.
const haveSIMD = false

// impl is always the generic kernel off amd64.
var impl = bestImpl

func tileAsm(mr, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, mode, cols int) {
	panic("gemm: no assembly kernel on this architecture")
}
