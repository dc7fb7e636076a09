//go:build !amd64

package vector

const useAVX2 = false

func dot(a, b []float32) float32 { return dotGeneric(a, b) }

func dotInt8(a, b []int8) int32 { return dotInt8Generic(a, b) }

func dotInt8Batch(q []int16, codes []int8, out []int32) { dotInt8BatchGeneric(q, codes, out) }
