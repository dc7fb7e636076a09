package gemm

import "testing"

// BenchmarkPeak measures FMA throughput with independent accumulators:
// flops/cycle = GFLOP/s ÷ GHz tells the FMA units (32 per cycle for one
// 512-bit or two 256-bit FMA pipes, 64 for two 512-bit ones).
func BenchmarkPeak(b *testing.B) {
	b.Run("zmm", func(b *testing.B) {
		if !useAVX512() {
			b.Skip("no AVX-512")
		}
		const n = 1 << 16
		for b.Loop() {
			fmaLoop512(n)
		}
		b.ReportMetric(float64(b.N)*n*16*32/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("ymm", func(b *testing.B) {
		if bestImpl < implAVX2 {
			b.Skip("no AVX2/FMA")
		}
		const n = 1 << 16
		for b.Loop() {
			fmaLoop256(n)
		}
		b.ReportMetric(float64(b.N)*n*12*16/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

func useAVX512() bool { return bestImpl == implAVX512 }

// BenchmarkMemRead measures one core's read bandwidth from memory (256 MB,
// well past L3) and from L2 (512 KB).
func BenchmarkMemRead(b *testing.B) {
	for _, size := range []int{512 << 10, 256 << 20} {
		b.Run(byteSize(size), func(b *testing.B) {
			buf := alignedFloats(size / 4)
			for i := range buf {
				buf[i] = 1
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				readLoop(&buf[0], len(buf))
			}
		})
	}
}
