// Package vector holds the similarity math and the embedding BLOB layout:
// the hot path of recall.
package vector

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// littleEndian is whether float32s in memory are laid out as the BLOB
// holds them: Encode and Decode then copy the bytes as they are.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Encode returns v as a little-endian float32 BLOB (the layout of a
// JavaScript Float32Array on every common platform).
func Encode(v []float32) []byte {
	b := make([]byte, 4*len(v))
	if littleEndian && len(v) > 0 {
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(b)))
		return b
	}
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// Decode parses a BLOB written by Encode into dst (grown as needed) and
// returns it.
func Decode(dst []float32, b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("embedding blob of %d bytes is not a whole number of float32s", len(b))
	}
	n := len(b) / 4
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	if littleEndian && n > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(b)), b)
		return dst, nil
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return dst, nil
}

// Dot is the inner product of two vectors; b must be at least as long as a.
func Dot(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	b = b[:len(a)]
	return dot(a, b)
}

// DotInt8 is the inner product of two int8 code vectors; b must be at
// least as long as a.
func DotInt8(a, b []int8) int32 {
	if len(a) == 0 {
		return 0
	}
	b = b[:len(a)]
	return dotInt8(a, b)
}

// dotGeneric is the portable float32 kernel: four accumulators let the CPU
// overlap the multiply-adds.
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// dotInt8Generic is the portable int8 kernel.
func dotInt8Generic(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// Norm is the Euclidean length of v.
func Norm(v []float32) float64 {
	return math.Sqrt(float64(Dot(v, v)))
}

// Cosine is the cosine similarity of a and b, 0 when either is zero or the
// lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	na, nb := Norm(a), Norm(b)
	if na == 0 || nb == 0 {
		return 0
	}
	return float64(Dot(a, b)) / (na * nb)
}

// Normalize scales v in place to unit length and returns it; a zero vector
// is left as it is.
func Normalize(v []float32) []float32 {
	n := Norm(v)
	if n == 0 {
		return v
	}
	inv := float32(1 / n)
	for i := range v {
		v[i] *= inv
	}
	return v
}

// dotInt8BatchGeneric is the portable batch kernel: out[r] is the inner
// product of q and row r of codes.
func dotInt8BatchGeneric(q []int16, codes []int8, out []int32) {
	d := len(q)
	for r := range out {
		row := codes[r*d : (r+1)*d]
		var s0, s1, s2, s3 int32
		i := 0
		for ; i+4 <= d; i += 4 {
			s0 += int32(q[i]) * int32(row[i])
			s1 += int32(q[i+1]) * int32(row[i+1])
			s2 += int32(q[i+2]) * int32(row[i+2])
			s3 += int32(q[i+3]) * int32(row[i+3])
		}
		for ; i < d; i++ {
			s0 += int32(q[i]) * int32(row[i])
		}
		out[r] = s0 + s1 + s2 + s3
	}
}
