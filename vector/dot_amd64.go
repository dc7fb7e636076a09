package vector

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernels; they need AVX2 and FMA.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

//go:noescape
func dotInt8BatchAVX2(q *int16, codes *int8, dim, n int, out *int32)

// dotInt8Batch sets out[r] to the inner product of q and row r of codes,
// rows of len(q) codes, for every r < len(out).
func dotInt8Batch(q []int16, codes []int8, out []int32) {
	if len(out) == 0 {
		return
	}
	_ = codes[len(out)*len(q)-1]
	if useAVX2 && len(q) > 0 {
		dotInt8BatchAVX2(&q[0], &codes[0], len(q), len(out), &out[0])
		return
	}
	dotInt8BatchGeneric(q, codes, out)
}

func dot(a, b []float32) float32 {
	if useAVX2 {
		return dotAVX2(&a[0], &b[0], len(a))
	}
	return dotGeneric(a, b)
}

func dotInt8(a, b []int8) int32 {
	if useAVX2 {
		return dotInt8AVX2(&a[0], &b[0], len(a))
	}
	return dotInt8Generic(a, b)
}
