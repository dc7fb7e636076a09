package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestEncodeDecodeLittleEndian(t *testing.T) {
	v := []float32{1, -2.5, 0, float32(math.Pi)}
	b := Encode(v)
	// 1.0f is 0x3f800000, stored low byte first.
	if b[0] != 0x00 || b[1] != 0x00 || b[2] != 0x80 || b[3] != 0x3f {
		t.Fatalf("1.0 encoded as % x, want 00 00 80 3f", b[:4])
	}
	got, err := Decode(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v {
		if got[i] != v[i] {
			t.Errorf("component %d: got %v want %v", i, got[i], v[i])
		}
	}
	if _, err := Decode(nil, []byte{1, 2, 3}); err == nil {
		t.Error("Decode of 3 bytes: want error")
	}
}

func TestCosine(t *testing.T) {
	tests := []struct {
		name string
		a, b []float32
		want float64
	}{
		{"identical", []float32{1, 2, 3}, []float32{1, 2, 3}, 1},
		{"scaled", []float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{"orthogonal", []float32{1, 0}, []float32{0, 1}, 0},
		{"opposite", []float32{1, 1}, []float32{-1, -1}, -1},
		{"zero vector", []float32{0, 0}, []float32{1, 1}, 0},
		{"length mismatch", []float32{1}, []float32{1, 1}, 0},
		{"odd length", []float32{1, 2, 3, 4, 5}, []float32{5, 4, 3, 2, 1}, 35.0 / 55.0},
	}
	for _, tt := range tests {
		if got := Cosine(tt.a, tt.b); math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("%s: Cosine = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDotMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 3, 4, 7, 384, 1536} {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range a {
			a[i], b[i] = r.Float32()-0.5, r.Float32()-0.5
			want += float64(a[i]) * float64(b[i])
		}
		if got := float64(Dot(a, b)); math.Abs(got-want) > 1e-4 {
			t.Errorf("n=%d: Dot = %v, want %v", n, got, want)
		}
	}
}

func TestTopK(t *testing.T) {
	k := NewTopK[int](3)
	for i, s := range []float64{0.1, 0.9, 0.5, 0.3, 0.95, 0.2} {
		k.Push(i, s)
	}
	got := k.Sorted()
	want := []int{4, 1, 2}
	if len(got) != len(want) {
		t.Fatalf("kept %d, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Item != want[i] {
			t.Errorf("rank %d: item %d, want %d", i, got[i].Item, want[i])
		}
	}
	zero := NewTopK[int](0)
	zero.Push(1, 1)
	if zero.Len() != 0 {
		t.Errorf("TopK(0) kept %d items", zero.Len())
	}
}

func BenchmarkDot1536(b *testing.B) {
	a, c := make([]float32, 1536), make([]float32, 1536)
	for i := range a {
		a[i], c[i] = float32(i%7), float32(i%5)
	}
	b.SetBytes(1536 * 4)
	for b.Loop() {
		Dot(a, c)
	}
}

// TestKernelsAgree checks that every kernel path returns the same result
// as the portable one, at lengths that exercise each loop and tail.
func TestKernelsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 200; n++ {
		checkKernels(t, r, n)
	}
	for _, n := range []int{255, 256, 257, 384, 768, 1023, 1536, 3072} {
		checkKernels(t, r, n)
	}
	t.Logf("assembly kernels in use: %v", useAVX2)
}

func checkKernels(t *testing.T, r *rand.Rand, n int) {
	a, b := make([]float32, n), make([]float32, n)
	qa, qb := make([]int8, n), make([]int8, n)
	var exact float64
	for i := range a {
		a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		exact += float64(a[i]) * float64(b[i])
		qa[i], qb[i] = int8(r.IntN(255)-127), int8(r.IntN(255)-127)
	}
	if got := float64(Dot(a, b)); math.Abs(got-exact) > 1e-3*math.Max(1, math.Abs(exact)) {
		t.Errorf("n=%d: Dot = %v, exact %v", n, got, exact)
	}
	if got, want := float64(Dot(a, b)), float64(dotGeneric(a, b)); math.Abs(got-want) > 1e-3*math.Max(1, math.Abs(want)) {
		t.Errorf("n=%d: Dot = %v, portable %v", n, got, want)
	}
	var want int32
	for i := range qa {
		want += int32(qa[i]) * int32(qb[i])
	}
	if got := DotInt8(qa, qb); got != want {
		t.Errorf("n=%d: DotInt8 = %d, want %d", n, got, want)
	}
	if got := dotInt8Generic(qa, qb); got != want {
		t.Errorf("n=%d: portable DotInt8 = %d, want %d", n, got, want)
	}
	// Extremes cannot overflow the int16 pair sums.
	for i := range qa {
		qa[i], qb[i] = -128, -128
	}
	if got := DotInt8(qa, qb); got != int32(n)*16384 {
		t.Errorf("n=%d: DotInt8 of -128s = %d, want %d", n, got, int32(n)*16384)
	}
}

func BenchmarkDotInt8_1536(b *testing.B) {
	a, c := make([]int8, 1536), make([]int8, 1536)
	for i := range a {
		a[i], c[i] = int8(i%7), int8(i%5)
	}
	b.SetBytes(1536)
	for b.Loop() {
		DotInt8(a, c)
	}
}

func BenchmarkDotGeneric1536(b *testing.B) {
	a, c := make([]float32, 1536), make([]float32, 1536)
	b.SetBytes(1536 * 4)
	for b.Loop() {
		dotGeneric(a, c)
	}
}

// TestDotInt8BatchMatchesNaive checks the batch kernel, assembly and
// portable, row by row against a naive sum, over every length up to 100
// and the model sizes, with extremes in the codes.
func TestDotInt8BatchMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	dims := []int{384, 1536, 1537}
	for d := 1; d <= 100; d++ {
		dims = append(dims, d)
	}
	for _, d := range dims {
		rows := 1 + r.IntN(9)
		q := make([]int16, d)
		codes := make([]int8, rows*d)
		for i := range q {
			q[i] = int16(r.IntN(255) - 127)
		}
		for i := range codes {
			codes[i] = int8(r.IntN(256) - 128)
		}
		if d%7 == 0 {
			for i := range q {
				q[i] = -128
			}
			for i := range codes {
				codes[i] = -128
			}
		}
		got, portable := make([]int32, rows), make([]int32, rows)
		dotInt8Batch(q, codes, got)
		dotInt8BatchGeneric(q, codes, portable)
		for row := range rows {
			var want int32
			for j := range d {
				want += int32(q[j]) * int32(codes[row*d+j])
			}
			if got[row] != want || portable[row] != want {
				t.Fatalf("d=%d row %d: batch %d, portable %d, want %d", d, row, got[row], portable[row], want)
			}
		}
	}
}
