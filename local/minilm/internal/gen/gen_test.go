package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestHalfToFloat(t *testing.T) {
	tests := []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0},
		{0x3c00, 1},
		{0xc000, -2},
		{0x3555, 0.333251953125},
		{0x7bff, 65504},
		{0x0001, 1.0 / (1 << 24)}, // smallest subnormal
		{0x8200, -1.0 / (1 << 15)},
		{0x7c00, float32(math.Inf(1))},
	}
	for _, tt := range tests {
		if got := halfToFloat(tt.h); got != tt.want {
			t.Errorf("halfToFloat(%#04x) = %g, want %g", tt.h, got, tt.want)
		}
	}
}

// TestGPTQ checks that GPTQ's rounding leaves a smaller output error than
// rounding to nearest with the same scales, on correlated inputs.
func TestGPTQ(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const rows, cols, samples = 16, 48, 200
	w := make([]float32, rows*cols)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	xs := make([]float64, samples*cols)
	for s := range samples {
		base := r.NormFloat64()
		for k := range cols {
			xs[s*cols+k] = base + 0.3*r.NormFloat64() // strongly correlated
		}
	}
	st := &inputStats{sum: make([]float64, cols), sq: make([]float64, cols), h: make([]float64, cols*cols)}
	st.add(xs, cols)
	scales, nearest := quantize(w, rows, cols, nil)
	q, err := gptq(w, rows, cols, scales, st.h)
	if err != nil {
		t.Fatal(err)
	}
	outErr := func(q []int8) float64 {
		var e float64
		for s := range samples {
			x := xs[s*cols : (s+1)*cols]
			for i := range rows {
				var d float64
				for k := range cols {
					d += (float64(w[i*cols+k]) - float64(scales[i])*float64(q[i*cols+k])) * x[k]
				}
				e += d * d
			}
		}
		return e
	}
	en, eg := outErr(nearest), outErr(q)
	t.Logf("output squared error: nearest %.4g, GPTQ %.4g", en, eg)
	if eg >= en/2 {
		t.Errorf("GPTQ's output error %.4g is not well below rounding to nearest's %.4g", eg, en)
	}
}

func TestCholesky(t *testing.T) {
	a := []float64{4, 2, 2, 2, 5, 3, 2, 3, 6}
	l, err := cholesky(a, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		for j := range 3 {
			var s float64
			for k := range 3 {
				s += l[i*3+k] * l[j*3+k]
			}
			if math.Abs(s-a[i*3+j]) > 1e-12 {
				t.Fatalf("L·Lᵀ[%d][%d] = %g, want %g", i, j, s, a[i*3+j])
			}
		}
	}
	if _, err := cholesky([]float64{1, 2, 2, 1}, 2); err == nil {
		t.Error("cholesky of an indefinite matrix: no error")
	}
}
