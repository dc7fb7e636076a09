package local

import (
	"context"
	"math"
	"testing"

	"github.com/hippo-mem/hippo/internal/calibrate"
)

// TestCalibration reports how the default embedder's cosines separate the
// labelled pairs of testdata/pairs.tsv, sweeps the duplicate and new
// thresholds, and checks that the chosen ones are near the best and beat
// trivial ones (calibrate.CheckFactThresholds).
func TestCalibration(t *testing.T) {
	pairs, err := calibrate.LoadFactPairs(context.Background(), NewEmbedder(), NewClassifier(), "testdata/pairs.tsv")
	if err != nil {
		t.Fatal(err)
	}
	dup, new, _ := NewEmbedder().Thresholds()
	calibrate.CheckFactThresholds(t, pairs, dup, new)
}

// TestForgetCalibration checks the forget threshold on testdata/forget.json:
// each description must delete exactly the facts listed for it, and the
// chosen threshold must get more requests right than seed 000's.
func TestForgetCalibration(t *testing.T) {
	set, err := calibrate.ReadForgetSet("testdata/forget.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := NewEmbedder()
	factVecs, err := e.Embed(ctx, set.Facts)
	if err != nil {
		t.Fatal(err)
	}
	var descVecs [][]float32
	for _, r := range set.Requests {
		q, err := e.Embed(ctx, []string{r.Description})
		if err != nil {
			t.Fatal(err)
		}
		descVecs = append(descVecs, q[0])
	}
	_, _, forget := e.Thresholds()
	set.Score(factVecs, descVecs).Check(t, forget, true)
}

// cosine is the cosine of a and b, NaN when either is zero (embedder_test.go).
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// TestRelevanceLevels measures the default embedder's relevance levels on
// testdata/pairs.tsv and checks them against the declared ones
// (CosineUnrelated, CosineStrong). For another embedder:
//
//	calibrate.Check(t, embedder, "path/to/pairs.tsv")
func TestRelevanceLevels(t *testing.T) {
	calibrate.Check(t, NewEmbedder(), "testdata/pairs.tsv")
}
