package hippo_test

import (
	"math"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

const day = 24 * time.Hour

func TestDecayResistanceAndHalfLife(t *testing.T) {
	cfg := hippo.DefaultConfig()
	// Seed 000's table: access count, decay resistance, half-life in days.
	tests := []struct {
		access     int
		resistance float64
		halfLife   float64
	}{
		{0, 1.0, 29},
		{5, 1.54, 44},
		{20, 1.91, 55},
		{100, 2.38, 69},
	}
	for _, tt := range tests {
		if got := cfg.DecayResistance(tt.access); math.Abs(got-tt.resistance) > 0.005 {
			t.Errorf("DecayResistance(%d) = %.4f, want ~%.2f", tt.access, got, tt.resistance)
		}
		days := cfg.HalfLife(0.8, tt.access).Hours() / 24
		if math.Round(days) != tt.halfLife {
			t.Errorf("HalfLife(%d) = %.2f days, want ~%.0f", tt.access, days, tt.halfLife)
		}
		// The half-life really halves the effective strength.
		s := cfg.EffectiveStrength(0.8, tt.access, cfg.HalfLife(0.8, tt.access))
		if math.Abs(s-0.4) > 1e-9 {
			t.Errorf("strength after half-life (access %d) = %.6f, want 0.4", tt.access, s)
		}
	}
}

func TestEffectiveStrength(t *testing.T) {
	cfg := hippo.DefaultConfig()
	tests := []struct {
		name      string
		intensity float64
		access    int
		since     time.Duration
		want      float64
	}{
		{"fresh", 0.85, 0, 0, 0.85},
		{"future access counts as now", 0.5, 0, -time.Hour, 0.5},
		{"one day", 1.0, 0, day, math.Exp(-0.024)},
		{"thirty days", 0.5, 0, 30 * day, 0.5 * math.Exp(-0.72)},
		{"thirty days, 5 accesses", 0.5, 5, 30 * day, 0.5 * math.Exp(-0.72/(1+math.Log(6)*0.3))},
	}
	for _, tt := range tests {
		got := cfg.EffectiveStrength(tt.intensity, tt.access, tt.since)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: EffectiveStrength = %.12f, want %.12f", tt.name, got, tt.want)
		}
	}
}

func TestStrengthFloorCrossing(t *testing.T) {
	// An intensity-0.5 chunk never accessed falls under the 0.05 floor after
	// ln(10)/0.001 hours ≈ 96 days.
	cfg := hippo.DefaultConfig()
	if s := cfg.EffectiveStrength(0.5, 0, 95*day); s < cfg.StrengthFloor {
		t.Errorf("95 days: strength %.4f already under floor", s)
	}
	if s := cfg.EffectiveStrength(0.5, 0, 97*day); s >= cfg.StrengthFloor {
		t.Errorf("97 days: strength %.4f still above floor", s)
	}
}

func TestRecency(t *testing.T) {
	cfg := hippo.DefaultConfig()
	// Seed 000: ~0.97 at 3 days, ~0.74 at 30 days, ~0.03 at a year.
	tests := []struct {
		age  time.Duration
		want float64
	}{
		{0, 1},
		{3 * day, 0.97},
		{30 * day, 0.74},
		{365 * day, 0.03},
		{-day, 1},
	}
	for _, tt := range tests {
		got := cfg.Recency(tt.age)
		if math.Abs(got-tt.want) > 0.005 {
			t.Errorf("Recency(%v) = %.4f, want ~%.2f", tt.age, got, tt.want)
		}
	}
}

func TestMovingAverage(t *testing.T) {
	tests := []struct {
		running    float64
		encounters int
		reading    float64
		want       float64
	}{
		{0.5, 1, 1.0, 0.75},
		{0.85, 1, 0.81, 0.83},    // seed: 0.85 → running avg 0.83
		{0.9, 9, 0.0, 0.81},      // late readings move the average less
		{0.2, 0, 0.7, 0.7},       // no history: the reading is the value
		{0.6, 3, 0.6, 0.6},       // same reading leaves it unchanged
		{0.4, -2, 0.8, 0.8},      // negative counts treated as zero
		{1.0, 4, 0.0, 0.8},       // a downvote fades, does not erase
		{0.3, 2, 0.9, 0.3 + 0.2}, // (0.6+0.9)/3
	}
	for _, tt := range tests {
		got := hippo.MovingAverage(tt.running, tt.encounters, tt.reading)
		if math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("MovingAverage(%v, %d, %v) = %v, want %v", tt.running, tt.encounters, tt.reading, got, tt.want)
		}
	}
}

func TestBoost(t *testing.T) {
	cfg := hippo.DefaultConfig()
	tests := []struct{ in, want float64 }{
		{0.5, 0.52},
		{0.99, 1.0},
		{1.0, 1.0},
	}
	for _, tt := range tests {
		if got := cfg.Boost(tt.in); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Boost(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestScore(t *testing.T) {
	def := hippo.DefaultConfig()
	seed := def
	seed.WeightSimilarity, seed.WeightStrength, seed.WeightRecency = 0.6, 0.3, 0.1
	tests := []struct {
		name               string
		cfg                hippo.Config
		sim, strength, rec float64
		want               float64
	}{
		{"all ones", def, 1, 1, 1, 1},
		{"default weights", def, 0.8, 0.5, 0.74, 0.9*0.8 + 0.07*0.5 + 0.03*0.74},
		{"seed weights", seed, 0.8, 0.5, 0.74, 0.6*0.8 + 0.3*0.5 + 0.1*0.74},
		{"negative cosine clamps to zero", def, -0.4, 0.5, 1, 0.07*0.5 + 0.03},
		{"nothing", def, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		if got := tt.cfg.Score(tt.sim, tt.strength, tt.rec); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Score = %v, want %v", tt.name, got, tt.want)
		}
	}
	// Strength and recency order results of similar relevance only: the
	// strongest, newest chunk does not outrank a fresh one of average
	// intensity (0.5) that is 0.11 more relevant, and a self-description at
	// intensity 0.85 does not outrank an ordinary fact (0.3) more than 0.05
	// more relevant. Under the seed's weights both did.
	pairs := []struct {
		name                        string
		rel, st, rec, rel2, st2, r2 float64
	}{
		{"strongest and newest against 0.11 more relevant", 0.3, 1, 1, 0.41, 0.5, 0},
		{"self-description against a fact 0.05 more relevant", 0.35, 0.85, 1, 0.40, 0.3, 1},
	}
	for _, p := range pairs {
		if a, b := def.Score(p.rel, p.st, p.rec), def.Score(p.rel2, p.st2, p.r2); a >= b {
			t.Errorf("%s: %v outranks %v", p.name, a, b)
		}
		if a, b := seed.Score(p.rel, p.st, p.rec), seed.Score(p.rel2, p.st2, p.r2); a < b {
			t.Errorf("%s: under the seed's weights %v no longer outranks %v; the case tests nothing", p.name, a, b)
		}
	}
}

func TestClampIntensity(t *testing.T) {
	cfg := hippo.DefaultConfig()
	tests := []struct{ in, want float64 }{
		{-0.5, 0}, {0.3, 0.3}, {1.7, 1}, {math.NaN(), 0.5},
	}
	for _, tt := range tests {
		if got := cfg.ClampIntensity(tt.in); got != tt.want {
			t.Errorf("ClampIntensity(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

type calibratedEmbedder struct{ hippo.Embedder }

func (calibratedEmbedder) Thresholds() (float64, float64, float64) { return 0.99, 0.25, 0.48 }

func TestConfigForEmbedder(t *testing.T) {
	base := hippo.DefaultConfig()
	got := base.ForEmbedder(calibratedEmbedder{})
	if got.DuplicateThreshold != 0.99 || got.NewThreshold != 0.25 || got.ForgetThreshold != 0.48 {
		t.Errorf("calibrated thresholds not applied: %+v", got)
	}
	if got := base.ForEmbedder(nil); got != base {
		t.Errorf("an uncalibrated embedder changed the config")
	}
	if base.DuplicateThreshold != 0.93 || base.NewThreshold != 0.78 || base.ForgetThreshold != 0.7 {
		t.Errorf("seed defaults changed: %+v", base)
	}
}

func TestStrengthenAndMerge(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(48 * time.Hour)
	tests := []struct {
		name     string
		reading  float64
		accessed bool
		want     hippo.Chunk
	}{
		{"upvote", 1, true, hippo.Chunk{RunningIntensity: 0.75, EncounterCount: 2, AccessCount: 4, LastAccessedAt: now}},
		{"downvote", 0, false, hippo.Chunk{RunningIntensity: 0.25, EncounterCount: 2, AccessCount: 3, LastAccessedAt: t0}},
	}
	for _, tt := range tests {
		c := hippo.Chunk{RunningIntensity: 0.5, EncounterCount: 1, AccessCount: 3, LastAccessedAt: t0}
		c.Strengthen(tt.reading, now, tt.accessed)
		if c.RunningIntensity != tt.want.RunningIntensity || c.EncounterCount != tt.want.EncounterCount ||
			c.AccessCount != tt.want.AccessCount || !c.LastAccessedAt.Equal(tt.want.LastAccessedAt) {
			t.Errorf("%s: got %+v, want %+v", tt.name, c, tt.want)
		}
	}
	keep := hippo.Chunk{RunningIntensity: 0.9, EncounterCount: 3, AccessCount: 2, LastAccessedAt: t0}
	keep.Merge(&hippo.Chunk{RunningIntensity: 0.1, EncounterCount: 1, AccessCount: 5, LastAccessedAt: now})
	if math.Abs(keep.RunningIntensity-0.7) > 1e-12 || keep.EncounterCount != 4 || keep.AccessCount != 7 || !keep.LastAccessedAt.Equal(now) {
		t.Errorf("merged: %+v", keep)
	}
}

func TestDecayClocks(t *testing.T) {
	cfg := hippo.DefaultConfig()
	hour := int64(time.Hour / time.Millisecond)
	now := 100 * hour
	if got := hippo.WallHours(now)(now - 10*hour); got != 10 {
		t.Errorf("wall hours: %v, want 10", got)
	}
	if got := hippo.WallHours(now)(now + hour); got != 0 {
		t.Errorf("wall hours of a future access: %v, want 0", got)
	}
	active := []int64{90, 92, 95, 99, 100}
	if got := hippo.ActiveHours(active, now)(91 * hour); got != 4 {
		t.Errorf("active hours since hour 91: %v, want 4 (92, 95, 99, 100)", got)
	}
	if got := hippo.ActiveCrossing(active, 91*hour, 2); !got.Equal(time.Unix(96*3600, 0)) {
		t.Errorf("crossing after 2 active hours: %v, want the end of hour 95", got)
	}
	c := hippo.Chunk{RunningIntensity: 0.8, AccessCount: 5, LastAccessedAt: time.UnixMilli(now - 30*hour)}
	wall := cfg.StrengthBy(&c, hippo.WallHours(now))
	if want := c.Strength(cfg, time.UnixMilli(now)); math.Abs(wall-want) > 1e-12 {
		t.Errorf("StrengthBy wall clock %v, Strength %v", wall, want)
	}
	h, ok := cfg.FadeHours(0.8, cfg.DecayRate(0.8, 5))
	if !ok || math.Abs(cfg.EffectiveStrength(0.8, 5, time.Duration(h*float64(time.Hour)))-cfg.StrengthFloor) > 1e-9 {
		t.Errorf("FadeHours = %v, %v: strength then is not the floor", h, ok)
	}
	if _, ok := cfg.FadeHours(0.8, 0); ok {
		t.Error("FadeHours without decay: want never")
	}
}
