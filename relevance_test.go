package hippo_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/hippo-mem/hippo"
)

func TestCosineRelevance(t *testing.T) {
	cfg := hippo.DefaultConfig()
	cfg.CosineUnrelated, cfg.CosineStrong = 0.25, 0.75
	tests := []struct {
		cosine, want float64
	}{
		{-1, 0},
		{0, 0},
		{0.25, 0},                 // the unrelated level
		{0.30, 0.09},              // 0.9 × 0.05/0.5
		{0.50, 0.45},              // halfway to strong: halfway to 0.9
		{0.75, 0.9},               // the strong level
		{0.875, 0.95},             // halfway from strong to identical
		{1, 1},                    // identical
		{1.0000001, 1},            // float32 rounding above 1
		{math.NaN(), 0},           // no direction
		{math.Inf(1), 1},          // clamped
		{math.Inf(-1), 0},         // clamped
		{0.2500001, 0.9e-7 / 0.5}, // just above unrelated
	}
	for _, tt := range tests {
		if got := cfg.CosineRelevance(tt.cosine); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("CosineRelevance(%v) = %v, want %v", tt.cosine, got, tt.want)
		}
	}
	// Levels out of order make a step at the unrelated level.
	for _, lv := range [][2]float64{{0.5, 0.5}, {0.6, 0.4}, {0.2, 1}} {
		cfg.CosineUnrelated, cfg.CosineStrong = lv[0], lv[1]
		if got, got2 := cfg.CosineRelevance(lv[0]), cfg.CosineRelevance(lv[0]+0.01); got != 0 || got2 != 1 {
			t.Errorf("levels %v: relevance %v at the unrelated level and %v above, want 0 and 1", lv, got, got2)
		}
	}
}

func TestBM25Relevance(t *testing.T) {
	cfg := hippo.DefaultConfig()
	if cfg.BM25Half != 4 {
		t.Fatalf("BM25Half = %v, want 4", cfg.BM25Half)
	}
	tests := []struct {
		s, want float64
	}{
		{-3, 0},
		{0, 0},
		{1, 0.2},
		{4, 0.5},
		{12, 0.75},
		{36, 0.9},
		{math.NaN(), 0},
		{math.Inf(1), 1},
	}
	for _, tt := range tests {
		if got := cfg.BM25Relevance(tt.s); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("BM25Relevance(%v) = %v, want %v", tt.s, got, tt.want)
		}
	}
	cfg.BM25Half = 0
	if got := cfg.BM25Relevance(0.001); got != 1 {
		t.Errorf("BM25Half 0: relevance %v, want 1 for any match", got)
	}
}

func TestRelevance(t *testing.T) {
	cfg := hippo.DefaultConfig()
	cfg.CosineUnrelated, cfg.CosineStrong = 0.25, 0.75
	tests := []struct {
		name                      string
		cosine, bm25, alpha, want float64
	}{
		{"vector only", 0.5, 12, 0, 0.45},
		{"BM25 only", 0.5, 12, 1, 0.75},
		{"hybrid", 0.5, 12, 0.4, 0.4*0.75 + 0.6*0.45},
		{"one shared word, unrelated meaning", 0.2, 4, 0.4, 0.2},
		{"strong on both", 1, math.Inf(1), 0.4, 1},
		{"nothing", 0, 0, 0.4, 0},
	}
	for _, tt := range tests {
		if got := cfg.Relevance(tt.cosine, tt.bm25, tt.alpha); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Relevance(%v, %v, %v) = %v, want %v", tt.name, tt.cosine, tt.bm25, tt.alpha, got, tt.want)
		}
	}
}

func TestRelevanceFloor(t *testing.T) {
	cfg := hippo.DefaultConfig()
	p := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		in   *float64
		want float64
		code string
	}{
		{"unset is the calibrated default", nil, hippo.DefaultMinRelevance, ""},
		{"0 is no floor", p(0), 0, ""},
		{"1 keeps only the identical", p(1), 1, ""},
		{"in between", p(0.35), 0.35, ""},
		{"negative", p(-0.1), 0, hippo.EINVALID},
		{"above 1", p(1.5), 0, hippo.EINVALID},
		{"NaN", p(math.NaN()), 0, hippo.EINVALID},
		{"infinite", p(math.Inf(1)), 0, hippo.EINVALID},
	}
	for _, tt := range tests {
		got, err := cfg.RelevanceFloor(hippo.RecallInput{MinRelevance: tt.in})
		if code := hippo.ErrorCode(err); code != tt.code || got != tt.want {
			t.Errorf("%s: floor %v, error %v; want %v, code %q", tt.name, got, err, tt.want, tt.code)
		}
		var he *hippo.Error
		if err != nil && (!errors.As(err, &he) || he.Field != "min_relevance") {
			t.Errorf("%s: error %v does not name min_relevance", tt.name, err)
		}
	}
}

// leveled is an embedder that carries relevance levels.
type leveled struct{ unrelated, strong float64 }

func (leveled) Model() string  { return "leveled" }
func (leveled) Dimension() int { return 2 }
func (leveled) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}
func (e leveled) RelevanceLevels() (float64, float64) { return e.unrelated, e.strong }

// plain is an embedder that carries none.
type plain struct{ leveled }

func (plain) RelevanceLevels() {}

func TestForEmbedderRelevanceLevels(t *testing.T) {
	def := hippo.DefaultConfig()
	if def.CosineUnrelated != hippo.DefaultCosineUnrelated || def.CosineStrong != hippo.DefaultCosineStrong ||
		def.MinRelevance != hippo.DefaultMinRelevance || def.BM25Half != hippo.DefaultBM25Half {
		t.Fatalf("DefaultConfig relevance: %v %v %v %v", def.CosineUnrelated, def.CosineStrong, def.MinRelevance, def.BM25Half)
	}
	got := def.ForEmbedder(leveled{0.3, 0.7})
	if got.CosineUnrelated != 0.3 || got.CosineStrong != 0.7 {
		t.Errorf("calibrated embedder: levels %v, %v; want 0.3, 0.7", got.CosineUnrelated, got.CosineStrong)
	}
	if got := def.ForEmbedder(plain{}); got.CosineUnrelated != hippo.DefaultCosineUnrelated || got.CosineStrong != hippo.DefaultCosineStrong {
		t.Errorf("uncalibrated embedder: levels %v, %v; want the defaults", got.CosineUnrelated, got.CosineStrong)
	}
}
