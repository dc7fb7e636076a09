package bench

import (
	"context"
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
	if r.BytesPerChunk <= 0 || r.IngestPerSec <= 0 || r.P50 <= 0 || r.BareRead <= 0 || r.IndexBytes < r.RawBytes {
		t.Errorf("implausible result %+v", r)
	}
}

// BenchmarkScale prints the scale report; run it with
//
//	go test -run '^$' -bench Scale -benchtime 1x ./bench/
func BenchmarkScale(b *testing.B) {
	for b.Loop() {
		var out strings.Builder
		_, err := Run(context.Background(), Config{
			Sizes: []int{10_000, 50_000}, Dimensions: []int{100, 384, 1536}, Queries: 50,
		}, &out)
		if err != nil {
			b.Fatal(err)
		}
		b.Log("\n" + out.String())
	}
}
