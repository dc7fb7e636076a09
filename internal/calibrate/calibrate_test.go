package calibrate

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestQuantile(t *testing.T) {
	xs := []float64{0.4, 0.1, 0.3, 0.2, 0.5}
	tests := []struct{ q, want float64 }{
		{0, 0.1}, {0.5, 0.3}, {1, 0.5}, {0.25, 0.2}, {0.95, 0.48}, {0.1, 0.14},
	}
	for _, tt := range tests {
		if got := Quantile(xs, tt.q); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("Quantile of nothing is not NaN")
	}
}

// angleEmbedder embeds a text "θ" (a number, in degrees) as the unit
// vector at that angle, so that pairs have known cosines.
type angleEmbedder struct{}

func (angleEmbedder) Model() string  { return "angle" }
func (angleEmbedder) Dimension() int { return 2 }
func (angleEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		deg, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, err
		}
		rad := deg * math.Pi / 180
		out[i] = []float32{float32(math.Cos(rad)), float32(math.Sin(rad))}
	}
	return out, nil
}

// levelled is angleEmbedder declaring levels.
type levelled struct {
	angleEmbedder
	u, s float64
}

func (l levelled) RelevanceLevels() (float64, float64) { return l.u, l.s }

func TestMeasure(t *testing.T) {
	// Unrelated pairs at 90° (cosine 0) but one at 60° (0.5); paraphrases
	// at 0°, 30° and 60° (1, 0.866, 0.5).
	file := "# comment\n\n" + strings.Join([]string{
		"unrelated\t0\t90", "unrelated\t0\t90", "unrelated\t0\t90", "unrelated\t0\t90", "unrelated\t0\t60",
		"paraphrase\t0\t0", "paraphrase\t0\t30", "paraphrase\t10\t70",
	}, "\n")
	path := filepath.Join(t.TempDir(), "pairs.tsv")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs, err := ReadPairs(path)
	if err != nil || len(pairs) != 8 {
		t.Fatalf("ReadPairs: %d pairs, %v", len(pairs), err)
	}
	l, err := Measure(context.Background(), angleEmbedder{}, pairs)
	if err != nil {
		t.Fatal(err)
	}
	// p95 of {0, 0, 0, 0, 0.5}: 0.8 of the way from 0 to 0.5.
	if math.Abs(l.Unrelated-0.4) > 1e-6 || math.Abs(l.Strong-math.Sqrt(3)/2) > 1e-6 {
		t.Errorf("levels %v, %v; want 0.4, 0.866", l.Unrelated, l.Strong)
	}
	if len(l.Bands) != 2 || l.Bands[0].Label != "unrelated" || l.Bands[0].N != 5 || math.Abs(l.Bands[1].Max-1) > 1e-6 {
		t.Errorf("bands %+v", l.Bands)
	}
	if got := Check(t, levelled{u: 0.41, s: 0.87}, path); math.Abs(got.Unrelated-0.4) > 1e-6 {
		t.Errorf("Check returned %v", got)
	}

	// A file without both labels, or with a bad line, is refused.
	if _, err := Measure(context.Background(), angleEmbedder{}, pairs[:5]); err == nil {
		t.Error("pairs without paraphrases measured")
	}
	os.WriteFile(path, []byte("unrelated\tonly two"), 0o644)
	if _, err := ReadPairs(path); err == nil {
		t.Error("a line of two fields read")
	}
}
