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

// erf32 returns erf(x) with an absolute error under 5e-7 (1.5e-7 of the
// formula, the rest float32 rounding): formula 7.1.26
// of Abramowitz and Stegun, 1 − t·(a₁ + t·(… a₅))·e^(−x²) with
// t = 1/(1 + p·|x|), odd in x.
func erf32(x float32) float32 {
	const (
		p  = 0.3275911
		a1 = 0.254829592
		a2 = -0.284496736
		a3 = 1.421413741
		a4 = -1.453152027
		a5 = 1.061405429
	)
	ax := x
	if ax < 0 {
		ax = -ax
	}
	if ax > 4 { // 1 − erf(4) < 2e−8
		if x < 0 {
			return -1
		}
		return 1
	}
	t := 1 / (1 + p*ax)
	y := 1 - t*(a1+t*(a2+t*(a3+t*(a4+t*a5))))*exp32(-ax*ax)
	if x < 0 {
		return -y
	}
	return y
}

// gelu replaces each value v of s by the exact GELU, v·Φ(v) =
// v/2·(1 + erf(v/√2)).
func gelu(s []float32) {
	const invSqrt2 = 0.70710678118654752440
	for i, v := range s {
		switch {
		case v > 5.7: // Φ(5.7) = 1 − 6e−9
			continue
		case v < -5.7:
			s[i] = 0
		default:
			s[i] = 0.5 * v * (1 + erf32(v*invSqrt2))
		}
	}
}
