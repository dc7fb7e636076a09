package bench

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestRunSmall(t *testing.T) {
	var out strings.Builder
	res, err := Run(context.Background(), Config{Sizes: []int{2000}, Dimensions: []int{64}, Queries: 20, Dir: t.TempDir()}, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	r := res[0]
	if r.Found != 20 {
		t.Errorf("found %d of 20 targets", r.Found)
	}
	if r.BytesPerChunk <= 0 || r.IngestPerSec <= 0 || r.P50 <= 0 || r.BareRead <= 0 || r.CodesRead <= 0 || r.IndexBytes > r.RawBytes {
		t.Errorf("implausible result %+v", r)
	}
}

// BenchmarkScale prints the scale report; run it with
//
//	go test -run '^$' -bench Scale -benchtime 1x ./bench/
//
// HIPPO_BENCH_SIZES and HIPPO_BENCH_DIMS (comma-separated) change the grid,
// e.g. HIPPO_BENCH_SIZES=1000000 HIPPO_BENCH_DIMS=384 for the million-chunk
// run (about 2 GB of disk and memory).
func BenchmarkScale(b *testing.B) {
	sizes := envInts(b, "HIPPO_BENCH_SIZES", []int{10_000, 50_000})
	dims := envInts(b, "HIPPO_BENCH_DIMS", []int{100, 384, 1536})
	for b.Loop() {
		var out strings.Builder
		_, err := Run(context.Background(), Config{Sizes: sizes, Dimensions: dims, Queries: 200}, &out)
		if err != nil {
			b.Fatal(err)
		}
		b.Log("\n" + out.String())
	}
}

func envInts(b *testing.B, key string, def []int) []int {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("%s: bad number %q", key, f)
		}
		out = append(out, n)
	}
	return out
}
