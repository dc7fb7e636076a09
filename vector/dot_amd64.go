package vector

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernels; they need AVX2 and FMA.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

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
