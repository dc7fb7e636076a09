package hippo_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

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
	if cfg.BM25Half != 12 {
		t.Fatalf("BM25Half = %v, want 12", cfg.BM25Half)
	}
	tests := []struct {
		s, want float64
	}{
		{-3, 0},
		{0, 0},
		{1, 1.0 / 13},
		{4, 0.25},
		{12, 0.5},
		{36, 0.75},
		{108, 0.9},
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
		{"BM25 only", 0.5, 12, 1, 0.5},
		// α 0.4: wc = 1, wb = 0.4/0.6.
		// α 0.4: wc = 1, wb = 0.4/0.6; the stronger side whole, 0.3 of the weaker.
		{"hybrid", 0.5, 12, 0.4, 1 - 0.55*(1-0.3*(1-math.Pow(0.5, 2.0/3)))},
		{"one shared word, unrelated meaning", 0.2, 4, 0.4, 1 - math.Pow(0.75, 2.0/3)},
		{"paraphrase, no shared word", 0.5, 0, 0.4, 0.45},
		{"α 0.5, BM25 the stronger", 0.5, 12, 0.5, 1 - 0.5*(1-0.3*0.45)},
		{"strong on both", 1, math.Inf(1), 0.4, 1},
		{"nothing", 0, 0, 0.4, 0},
	}
	for _, tt := range tests {
		if got := cfg.Relevance(tt.cosine, tt.bm25, tt.alpha); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Relevance(%v, %v, %v) = %v, want %v", tt.name, tt.cosine, tt.bm25, tt.alpha, got, tt.want)
		}
	}
}

func TestFuse(t *testing.T) {
	tests := []struct{ rc, rb, alpha, want float64 }{
		{0.6, 0.9, 0, 0.6},
		{0.6, 0.9, 1, 0.9},
		{0.6, 0.5, 0.5, 1 - 0.4*(1-0.3*0.5)}, // the stronger whole, FuseSecond of the weaker
		{0.5, 0.6, 0.5, 1 - 0.4*(1-0.3*0.5)}, // whichever side it is
		{0.3, 0.3, 0.5, 1 - 0.7*(1-0.3*0.3)}, // 0.363: two weak matches…
		{0.4, 0, 0.5, 0.4},                   // …stay below one stronger
		{0.6, 0, 0.5, 0.6},
		{0, 0.5, 0.5, 0.5},
		{0.6, 0, 0.2, 0.6},                     // the cosine's side whole below α 0.5
		{0, 0.5, 0.2, 1 - math.Pow(0.5, 0.25)}, // wb = 0.2/0.8
		{0.6, 0, 0.8, 1 - math.Pow(0.4, 0.25)}, // wc = 0.2/0.8
		{1, 0.3, 0.4, 1},
		{0, 0, 0.4, 0},
	}
	for _, tt := range tests {
		if got := hippo.Fuse(tt.rc, tt.rb, tt.alpha); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Fuse(%v, %v, %v) = %v, want %v", tt.rc, tt.rb, tt.alpha, got, tt.want)
		}
	}
	// It grows with each side and stays at most their sum: recall's
	// first-pass bound relies on it.
	for _, alpha := range []float64{0.1, 0.3, 0.5, 0.7, 0.9} {
		for rc := 0.0; rc <= 1; rc += 0.1 {
			for rb := 0.0; rb <= 1; rb += 0.1 {
				f := hippo.Fuse(rc, rb, alpha)
				if f > rc+rb+1e-12 || f < hippo.Fuse(rc, math.Max(0, rb-0.1), alpha)-1e-12 || f < hippo.Fuse(math.Max(0, rc-0.1), rb, alpha)-1e-12 {
					t.Fatalf("Fuse(%v, %v, %v) = %v: not monotone or above rc+rb", rc, rb, alpha, f)
				}
			}
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

func TestLengthFactors(t *testing.T) {
	cfg := hippo.DefaultConfig()
	if cfg.LengthPivot != 400 || cfg.CosineLengthExponent != 0.3 || cfg.BM25LengthExponent != 0.5 {
		t.Fatalf("defaults: pivot %v, exponents %v and %v; want 400, 0.3, 0.5",
			cfg.LengthPivot, cfg.CosineLengthExponent, cfg.BM25LengthExponent)
	}
	tests := []struct {
		name        string
		pivot, size int
		excess      float64
		fc, fb      float64
	}{
		{"empty", 400, 0, 0, 1, 1},
		{"at the pivot", 400, 400, 0, 1, 1},
		{"twice the pivot", 400, 800, math.Ln2, math.Pow(0.5, 0.3), math.Pow(0.5, 0.5)},
		{"four times", 400, 1600, 2 * math.Ln2, math.Pow(0.25, 0.3), 0.5},
		{"4 KB", 400, 4096, math.Log(4096.0 / 400), math.Pow(400.0/4096, 0.3), math.Pow(400.0/4096, 0.5)},
		{"pivot 0 turns it off", 0, 1600, 0, 1, 1},
	}
	for _, tt := range tests {
		c := cfg
		c.LengthPivot = tt.pivot
		if got := c.LengthExcess(tt.size); math.Abs(got-tt.excess) > 1e-12 {
			t.Errorf("%s: LengthExcess(%d) = %v, want %v", tt.name, tt.size, got, tt.excess)
		}
		fc, fb := c.LengthFactors(tt.size)
		if math.Abs(fc-tt.fc) > 1e-12 || math.Abs(fb-tt.fb) > 1e-12 {
			t.Errorf("%s: LengthFactors(%d) = %v, %v; want %v, %v", tt.name, tt.size, fc, fb, tt.fc, tt.fb)
		}
		const cos, bm25 = 0.5, 10.0
		rc, rb := c.SizedParts(cos, bm25, tt.size)
		if math.Abs(rc-c.CosineRelevance(cos)*tt.fc) > 1e-12 || math.Abs(rb-c.BM25Relevance(bm25*tt.fb)) > 1e-12 {
			t.Errorf("%s: SizedParts = %v, %v; want the cosine's relevance ×%v and BM25Relevance of the score ×%v", tt.name, rc, rb, tt.fc, tt.fb)
		}
		for _, alpha := range []float64{0, 0.4, 0.6, 1} {
			if got, want := c.SizedRelevance(cos, bm25, tt.size, alpha), hippo.Fuse(rc, rb, alpha); math.Abs(got-want) > 1e-12 {
				t.Errorf("%s: SizedRelevance at α %v = %v, want Fuse of the discounted parts %v", tt.name, alpha, got, want)
			}
		}
	}
	// The discount only lowers relevance (recall's first-pass bounds rely
	// on it), and a strong long match stays above the default floor.
	for size := 0; size < 100_000; size += 777 {
		for _, alpha := range []float64{0, 0.6, 1} {
			if cfg.SizedRelevance(0.7, 20, size, alpha) > cfg.Relevance(0.7, 20, alpha)+1e-12 {
				t.Fatalf("size %d α %v: discounted relevance above the plain one", size, alpha)
			}
		}
	}
	if got := cfg.SizedRelevance(cfg.CosineStrong, 0, 20_000, 0); !(got > 2*cfg.MinRelevance) {
		t.Errorf("a strong match 20 KB long: relevance %v, want over twice the floor %v", got, cfg.MinRelevance)
	}
}

// TestRankingEqualsConfig: a Ranking gives exactly what Config's methods
// and Fuse give, for the default config and for edge settings (no
// pivot, a negative exponent, levels out of order), at α 0, between and
// 1, on values around every bend.
func TestRankingEqualsConfig(t *testing.T) {
	edge := hippo.DefaultConfig()
	edge.LengthPivot, edge.BM25Half = 0, 0
	odd := hippo.DefaultConfig()
	odd.CosineUnrelated, odd.CosineStrong, odd.CosineLengthExponent = 0.8, 0.3, -1
	cosines := []float64{math.NaN(), -1, 0, 0.1, 0.2, 0.35, 0.5, 0.75, 0.9, 1}
	bm25s := []float64{math.NaN(), -1, 0, 0.5, 3, 12, 40, math.Inf(1)}
	sizes := []int{0, 1, 399, 400, 401, 940, 4000}
	for _, cfg := range []hippo.Config{hippo.DefaultConfig(), edge, odd} {
		for _, alpha := range []float64{0, 0.3, 0.6, 1} {
			rk := cfg.Ranking(alpha)
			same := func(what string, got, want float64) {
				t.Helper()
				if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("α %v, %s: Ranking %v, Config %v", alpha, what, got, want)
				}
			}
			for _, c := range cosines {
				same("CosineRelevance", rk.CosineRelevance(c), cfg.CosineRelevance(c))
				for _, b := range bm25s {
					rc, rb := cfg.CosineRelevance(c), cfg.BM25Relevance(b)
					same("BM25Relevance", rk.BM25Relevance(b), rb)
					same("Fuse", rk.Fuse(rc, rb), hippo.Fuse(rc, rb, alpha))
					same("Score", rk.Score(rc, rb, 0.5), cfg.Score(rc, rb, 0.5))
				}
			}
			for _, size := range sizes {
				gc, gb := rk.LengthFactors(size)
				wc, wb := cfg.LengthFactors(size)
				same("LengthFactors", gc, wc)
				same("LengthFactors", gb, wb)
			}
			for _, d := range []time.Duration{-time.Hour, 0, time.Hour, 240 * time.Hour} {
				same("Recency", rk.Recency(d), cfg.Recency(d))
			}
		}
	}
}
