package minilm

import (
	"math"
	"testing"
)

func TestExp32(t *testing.T) {
	var worst float64
	for x := -87.0; x <= 88; x += 0.001 {
		got := float64(exp32(float32(x)))
		want := math.Exp(float64(float32(x)))
		worst = max(worst, math.Abs(got-want)/want)
	}
	if worst > 3e-7 {
		t.Errorf("exp32: relative error up to %.2g, want ≤ 3e-7", worst)
	}
	if exp32(-100) != 0 || exp32(0) != 1 {
		t.Errorf("exp32(-100) = %g, exp32(0) = %g", exp32(-100), exp32(0))
	}
}

func TestGELU(t *testing.T) {
	var xs []float32
	for x := -10.0; x <= 10; x += 0.0001 {
		xs = append(xs, float32(x))
	}
	got := append([]float32(nil), xs...)
	gelu(got)
	for i, x := range xs {
		want := 0.5 * float64(x) * (1 + math.Erf(float64(x)/math.Sqrt2))
		if d := math.Abs(float64(got[i]) - want); d > 1e-6*max(1, math.Abs(want)) || math.IsNaN(float64(got[i])) {
			t.Fatalf("gelu(%g) = %g, want %g", x, got[i], want)
		}
	}
}

// TestGELUEdges feeds the values next to the table's ends.
func TestGELUEdges(t *testing.T) {
	s := []float32{math.Nextafter32(geluRange, 0), -geluRange, math.Nextafter32(-geluRange, 0), geluRange, float32(math.NaN())}
	gelu(s)
	if math.Abs(float64(s[0])-geluRange) > 1e-5 || math.Abs(float64(s[1])) > 1e-6 || s[3] != geluRange || !math.IsNaN(float64(s[4])) {
		t.Errorf("gelu at the edges: %v", s)
	}
}
