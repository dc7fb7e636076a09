package gemm

import "golang.org/x/sys/cpu"

//go:generate go run gen_kernels.go

// kernAVX512 sets (mode 0), sets to bias plus (mode 1) or adds to (mode 2)
// c, an mr×32 tile with row stride ldc, the product of a (mr×k, stride
// lda) and b (k×32, stride ldb); 1 ≤ mr ≤ 14, strides in elements.
//
//go:noescape
func kernAVX512(mr, k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, bias *float32, mode int)

// kernAVX2 is kernAVX512 for a 16-column tile and 1 ≤ mr ≤ 6.
//
//go:noescape
func kernAVX2(mr, k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, bias *float32, mode int)

// bestImpl is the fastest kernel this CPU runs.
var bestImpl = func() int {
	switch {
	case cpu.X86.HasAVX512F:
		return implAVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return implAVX2
	}
	return implGeneric
}()

// impl selects the kernel; tests set it to run every path this CPU has.
var impl = bestImpl

// tileAsm runs the assembly kernel for impl on a tile whose bounds the
// caller has checked: mr ≤ maxRows(impl), 32 columns readable in b and
// writable in c (16 for AVX2 when cols ≤ 16).
func tileAsm(mr, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, mode, cols int) {
	var bp *float32
	if mode == modeBias {
		bp = &bias[0]
	}
	if impl == implSIMD {
		tileSIMD(mr, k, a, lda, b, ldb, c, ldc, bias, mode)
		return
	}
	if impl == implAVX512 {
		kernAVX512(mr, k, &a[0], lda, &b[0], ldb, &c[0], ldc, bp, mode)
		return
	}
	kernAVX2(mr, k, &a[0], lda, &b[0], ldb, &c[0], ldc, bp, mode)
	if cols > 16 {
		if mode == modeBias {
			bp = &bias[16]
		}
		kernAVX2(mr, k, &a[0], lda, &b[16], ldb, &c[16], ldc, bp, mode)
	}
}
