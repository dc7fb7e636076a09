package minilm

import "math"

// exp32 returns eˣ in float32 with a relative error under 3e-7 for x in
// [−87, 88]; below −87 it returns 0 (eˣ < 2e−38), above 88 it saturates.
// It reduces x = n·ln 2 + r with |r| ≤ ln 2 / 2 (Cody–Waite, ln 2 in two
// parts), evaluates eʳ by its degree-6 Taylor polynomial, and scales by 2ⁿ
// through the exponent bits.
func exp32(x float32) float32 {
	const (
		log2e = 1.44269504088896341
		ln2Hi = 0.693145751953125 // ln 2 to 16 bits, so n·ln2Hi is exact
		ln2Lo = 1.428606765330187045e-06
		// shifter rounds a float32 of magnitude under 2²² to an integer.
		shifter = 1.5 * (1 << 23)
	)
	if x < -87 {
		return 0
	}
	x = min(x, 88)
	n := (x*log2e + shifter) - shifter
	r := x - n*ln2Hi - n*ln2Lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// The GELU table: Φ(x), the standard normal CDF, is interpolated
// linearly between nodes geluStep apart on [−geluRange, geluRange), each
// segment stored as the line a + b·x so that a lookup is one index, one
// multiply and one add. The interpolation error is at most
// max|Φ″|·geluStep²/8 = 0.242/8/256² < 5e-7.
const (
	geluRange = 6
	geluSteps = 256 // per unit
	geluNodes = 2 * geluRange * geluSteps
)

// geluTab holds each segment's a and b, interleaved.
var geluTab = func() *[2 * geluNodes]float32 {
	var t [2 * geluNodes]float32
	phi := func(x float64) float64 { return 0.5 * (1 + math.Erf(x/math.Sqrt2)) }
	for i := range geluNodes {
		x0 := float64(i)/geluSteps - geluRange
		x1 := x0 + 1.0/geluSteps
		p0, p1 := phi(x0), phi(x1)
		b := (p1 - p0) * geluSteps
		t[2*i] = float32(p0 - b*x0)
		t[2*i+1] = float32(b)
	}
	return &t
}()

// gelu replaces each value v of s by the exact GELU, v·Φ(v) =
// v/2·(1 + erf(v/√2)), Φ being read from a table (|Φ| error < 6e-7);
// beyond ±6, Φ is 0 or 1 to within 1e-9.
func gelu(s []float32) {
	t := geluTab
	for i, v := range s {
		switch {
		case v >= -geluRange && v < geluRange:
			j := 2 * min(int((v+geluRange)*geluSteps), geluNodes-1) // rounding near 6
			s[i] = v * (t[j] + t[j+1]*v)
		case v < -geluRange:
			s[i] = 0
		}
		// Otherwise v ≥ 6, or NaN, is kept.
	}
}
