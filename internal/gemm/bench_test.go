package gemm

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
)

func byteSize(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMB", n>>20)
	}
	return fmt.Sprintf("%dKB", n>>10)
}

// run benchmarks op, a product of macs multiply-adds, and reports GFLOP/s
// on the mean time and, as fast-GFLOP/s, on the time nine runs in ten
// exceed: the development machine is shared, and the fast runs show what
// the code does with the core to itself (not the fastest run: the guest's
// clock now and then makes a run look impossibly short).
func run(b *testing.B, macs int, op func()) {
	var times []time.Duration
	for b.Loop() {
		t0 := time.Now()
		op()
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	fast := times[len(times)/10]
	b.ReportMetric(2*float64(macs)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	b.ReportMetric(2*float64(macs)/fast.Seconds()/1e9, "fast-GFLOP/s")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
}

// BenchmarkMul runs each linear-layer shape of all-MiniLM-L6-v2 (n×k, W
// cache-warm) for one sentence (m=27), a few sentences and a batch.
func BenchmarkMul(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, s := range [][2]int{{384, 384}, {1152, 384}, {1536, 384}, {384, 1536}} {
		n, k := s[0], s[1]
		w := Pack(randFloats(r, n*k), n, k)
		bias := randFloats(r, n)
		for _, m := range []int{27, 256, 2048} {
			a, dst := randFloats(r, m*k), make([]float32, m*n)
			b.Run(fmt.Sprintf("n=%d/k=%d/m=%d", n, k, m), func(b *testing.B) {
				run(b, m*n*k, func() { w.Mul(dst, a, m, bias) })
			})
		}
	}
}

// BenchmarkModel runs the linear layers of the whole 6-layer model (Q, K,
// V, output, FFN in and out: 42 MB of weights, more than L3) once per op,
// so the weights come from memory as they do for one sentence. GB/s is
// the weight traffic.
func BenchmarkModel(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	type layer struct{ q, k, v, o, in, out *Weights }
	var layers []layer
	const d, f = 384, 1536
	for range 6 {
		layers = append(layers, layer{
			Pack(randFloats(r, d*d), d, d), Pack(randFloats(r, d*d), d, d), Pack(randFloats(r, d*d), d, d),
			Pack(randFloats(r, d*d), d, d), Pack(randFloats(r, f*d), f, d), Pack(randFloats(r, d*f), d, f),
		})
	}
	bd, bf := randFloats(r, d), randFloats(r, f)
	for _, m := range []int{3, 27, 128} {
		x, h, y := randFloats(r, m*d), make([]float32, m*f), make([]float32, m*d)
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			macs := 6 * (4*d*d + 2*d*f) * m
			run(b, macs, func() {
				for _, l := range layers {
					l.q.Mul(y, x, m, bd)
					l.k.Mul(y, x, m, bd)
					l.v.Mul(y, x, m, bd)
					l.o.Mul(y, x, m, bd)
					l.in.Mul(h, x, m, bf)
					l.out.Mul(y, h, m, bd)
				}
			})
			b.ReportMetric(float64(6*(4*d*d+2*d*f)*4)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkAttention runs one head's Q·Kᵀ and P·V (head size 32) for
// sequence lengths from a sentence to the model's limit.
func BenchmarkAttention(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, s := range []int{27, 128, 256} {
		q, k, v := randFloats(r, s*32), randFloats(r, s*32), randFloats(r, s*32)
		p, o := make([]float32, s*s), make([]float32, s*32)
		b.Run(fmt.Sprintf("QKt/seq=%d", s), func(b *testing.B) {
			run(b, s*s*32, func() { MulT(p, q, k, s, s, 32) })
		})
		b.Run(fmt.Sprintf("PV/seq=%d", s), func(b *testing.B) {
			run(b, s*s*32, func() { MulN(o, p, v, s, 32, s) })
		})
	}
}
