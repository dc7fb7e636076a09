package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// impls lists the kernels this CPU runs, slowest first.
func impls() []int {
	var out []int
	for i := implGeneric; i <= bestImpl; i++ {
		out = append(out, i)
	}
	if haveSIMD {
		out = append(out, implSIMD)
	}
	return out
}

var implNames = []string{"generic", "avx2", "avx512", "archsimd"}

// forEachImpl runs f as a subtest under every kernel this CPU supports.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	for _, i := range impls() {
		t.Run(implNames[i], func(t *testing.T) {
			defer func(old int) { impl = old }(impl)
			impl = i
			f(t)
		})
	}
}

func randFloats(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

// near reports whether got matches the float64 sum want whose terms have
// absolute values summing to abs: float32 accumulation over k terms errs
// by about √k·ε relative to abs, while one lost or doubled term errs by
// about abs/k.
func near(got float32, want, abs float64, k int) bool {
	tol := abs*1e-6*(4+math.Sqrt(float64(k))) + 1e-30
	return math.Abs(float64(got)-want) <= tol
}

// refDot is the float64 reference for one output: Σ_p a(p)·b(p).
func refDot(k int, a, b func(p int) float32) (s, abs float64) {
	for p := 0; p < k; p++ {
		x := float64(a(p)) * float64(b(p))
		s += x
		abs += math.Abs(x)
	}
	return s, abs
}

// checkMul multiplies random matrices through Pack and Mul and compares
// every output, and the untouched sentinel after dst, with the reference.
func checkMul(t testing.TB, r *rand.Rand, m, n, k int, withBias bool) {
	w := randFloats(r, n*k)
	a := randFloats(r, m*k)
	var bias []float32
	if withBias {
		bias = randFloats(r, n)
	}
	dst := make([]float32, m*n+1)
	dst[m*n] = 42
	Pack(w, n, k).Mul(dst[:m*n], a, m, bias)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var want, abs float64
			for p, x := range a[i*k : (i+1)*k] {
				y := float64(x) * float64(w[j*k+p])
				want += y
				abs += math.Abs(y)
			}
			if bias != nil {
				want += float64(bias[j])
				abs += math.Abs(float64(bias[j]))
			}
			if got := dst[i*n+j]; !near(got, want, abs, k) {
				t.Fatalf("m=%d n=%d k=%d bias=%v impl=%s: dst[%d][%d] = %g, want %g", m, n, k, withBias, implNames[impl], i, j, got, want)
			}
		}
	}
	if dst[m*n] != 42 {
		t.Fatalf("m=%d n=%d k=%d: wrote past dst", m, n, k)
	}
}

func TestMul(t *testing.T) {
	shapes := [][2]int{{384, 384}, {1536, 384}, {384, 1536}, {1152, 384}, {17, 31}, {33, 1}, {1, 5}, {64, 7}, {40, 33}, {16, 3}, {31, 64}}
	ms := []int{1, 2, 3, 4, 5, 7, 13, 14, 15, 27, 29, 61, 130}
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, s := range shapes {
			for _, m := range ms {
				if m*s[0]*s[1] > 8e6 || (testing.Short() && m*s[0]*s[1] > 2e6) {
					continue
				}
				checkMul(t, r, m, s[0], s[1], m%2 == 1)
				checkMul(t, r, m, s[0], s[1], m%2 == 0)
			}
		}
	})
}

// TestMulRandom covers random shapes, including ones big enough to run in
// parallel.
func TestMulRandom(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for range 40 {
			m, n, k := 1+r.IntN(80), 1+r.IntN(200), 1+r.IntN(300)
			checkMul(t, r, m, n, k, r.IntN(2) == 0)
		}
		checkMul(t, r, 300, 100, 257, true) // several row blocks, parallel
		checkMul(t, r, 200, 40, 1100, true) // slices of k summed in dst
	})
}

func TestMulZeroRows(t *testing.T) {
	Pack(make([]float32, 6), 2, 3).Mul(nil, nil, 0, nil)
}

func TestMulPanics(t *testing.T) {
	w := Pack(make([]float32, 6), 2, 3)
	for _, f := range []func(){
		func() { w.Mul(make([]float32, 4), make([]float32, 5), 2, nil) },
		func() { w.Mul(make([]float32, 3), make([]float32, 6), 2, nil) },
		func() { w.Mul(make([]float32, 4), make([]float32, 6), 2, make([]float32, 3)) },
		func() { Pack(make([]float32, 5), 2, 3) },
		func() { MulT(make([]float32, 4), make([]float32, 6), make([]float32, 5), 2, 2, 3) },
		func() { MulNStrided(make([]float32, 9), 3, make([]float32, 6), 3, make([]float32, 9), 2, 2, 3, 3) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}

// checkMulT runs MulTStrided (or MulNStrided when trans is false) on
// operands with padded strides and checks dst and its padding.
func checkAttn(t testing.TB, r *rand.Rand, trans bool, m, n, k, pad int) {
	lda, ldc := k+pad, n+pad
	ldb := k + pad
	bRows := n
	if !trans {
		ldb, bRows = n+pad, k
	}
	a := randFloats(r, max(1, m*lda))
	b := randFloats(r, max(1, bRows*ldb))
	dst := make([]float32, m*ldc)
	for i := range dst {
		dst[i] = 42
	}
	if trans {
		if pad == 0 {
			MulT(dst, a, b, m, n, k)
		} else {
			MulTStrided(dst, ldc, a, lda, b, ldb, m, n, k)
		}
	} else {
		if pad == 0 {
			MulN(dst, a, b, m, n, k)
		} else {
			MulNStrided(dst, ldc, a, lda, b, ldb, m, n, k)
		}
	}
	for i := 0; i < m; i++ {
		for j := 0; j < ldc; j++ {
			got := dst[i*ldc+j]
			if j >= n {
				if got != 42 {
					t.Fatalf("trans=%v m=%d n=%d k=%d pad=%d: wrote dst[%d][%d] past n", trans, m, n, k, pad, i, j)
				}
				continue
			}
			bv := func(p int) float32 { return b[p*ldb+j] }
			if trans {
				bv = func(p int) float32 { return b[j*ldb+p] }
			}
			want, abs := refDot(k, func(p int) float32 { return a[i*lda+p] }, bv)
			if !near(got, want, abs, k) {
				t.Fatalf("trans=%v m=%d n=%d k=%d pad=%d impl=%s: dst[%d][%d] = %g, want %g", trans, m, n, k, pad, implNames[impl], i, j, got, want)
			}
		}
	}
}

func TestAttention(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, m := range []int{1, 3, 7, 15, 27, 64} {
			for _, pad := range []int{0, 5} {
				// Q·Kᵀ: n = sequence, k = head size.
				for _, n := range []int{1, 3, 16, 27, 32, 33, 100} {
					for _, k := range []int{0, 1, 7, 32, 64, 65, 130} {
						checkAttn(t, r, true, m, n, k, pad)
					}
				}
				// P·V: k = sequence, n = head size.
				for _, n := range []int{1, 5, 16, 17, 32, 40, 64} {
					for _, k := range []int{0, 1, 3, 27, 64, 65, 200} {
						checkAttn(t, r, false, m, n, k, pad)
					}
				}
			}
		}
	})
}

// TestNoAllocs checks that the steady state allocates nothing, serial,
// parallel and attention alike.
func TestNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	w := Pack(randFloats(r, 384*1536), 1536, 384)
	bias := randFloats(r, 1536)
	for _, m := range []int{3, 27, 130} {
		a := randFloats(r, m*384)
		dst := make([]float32, m*1536)
		w.Mul(dst, a, m, bias)
		if n := testing.AllocsPerRun(50, func() { w.Mul(dst, a, m, bias) }); n != 0 {
			t.Errorf("Mul of %d rows: %v allocations per call", m, n)
		}
	}
	q, k, s := randFloats(r, 64*32), randFloats(r, 64*32), make([]float32, 64*64)
	if n := testing.AllocsPerRun(50, func() { MulT(s, q, k, 64, 64, 32) }); n != 0 {
		t.Errorf("MulT: %v allocations per call", n)
	}
	if n := testing.AllocsPerRun(50, func() { MulN(q, s, k, 64, 32, 64) }); n != 0 {
		t.Errorf("MulN: %v allocations per call", n)
	}
}

func FuzzMul(f *testing.F) {
	f.Add(uint8(1), uint8(1), uint8(1), true, uint64(0))
	f.Add(uint8(15), uint8(33), uint8(31), false, uint64(1))
	f.Add(uint8(27), uint8(64), uint8(17), true, uint64(2))
	f.Fuzz(func(t *testing.T, m, n, k uint8, bias bool, seed uint64) {
		if n == 0 || k == 0 {
			return
		}
		for _, i := range impls() {
			func() {
				defer func(old int) { impl = old }(impl)
				impl = i
				checkMul(t, rand.New(rand.NewPCG(seed, 9)), int(m%64), int(n), int(k%128)+1, bias)
			}()
		}
	})
}

func ExampleWeights_Mul() {
	// y = x·Wᵀ + b for W = [[1 2] [3 4] [5 6]] (3 outputs, 2 inputs).
	w := Pack([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	y := make([]float32, 3)
	w.Mul(y, []float32{1, 1}, 1, []float32{0, 0, 1})
	fmt.Println(y)
	// Output: [3 7 12]
}

// TestMulConcurrent runs parallel products from several goroutines at
// once, so helpers and recycled tasks interleave, and checks each result
// against the same product computed serially.
func TestMulConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const m, n, k = 64, 128, 320
	w := Pack(randFloats(r, n*k), n, k)
	if w.workers(m) < 2 && runtime.GOMAXPROCS(0) > 1 {
		t.Fatal("product too small to run in parallel")
	}
	a := randFloats(r, m*k)
	want := make([]float32, m*n)
	w.mulPanels(want, a, m, nil, 0, w.np)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := make([]float32, m*n)
			for range 20 {
				clear(dst)
				w.Mul(dst, a, m, nil)
				if !slices.Equal(dst, want) {
					t.Error("parallel product differs from the serial one")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestSetParallelism(t *testing.T) {
	w := Pack(make([]float32, 384*384), 384, 384)
	defer SetParallelism(SetParallelism(1))
	if n := w.workers(256); n != 1 {
		t.Errorf("SetParallelism(1): %d workers", n)
	}
	SetParallelism(0)
	if n, want := w.workers(256), min(runtime.GOMAXPROCS(0), 12); n != want {
		t.Errorf("SetParallelism(0): %d workers, want %d", n, want)
	}
}
