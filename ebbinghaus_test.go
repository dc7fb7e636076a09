package hippo_test

import (
	"math"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

const ebbDay = 24 * time.Hour

func TestEbbinghausStability(t *testing.T) {
	tests := []struct {
		intensity float64
		recalls   int
		want      float64
	}{
		{0.9, 0, 10}, {0.71, 0, 10}, {0.7, 0, 5}, // above 0.7, not at it
		{0.6, 0, 5}, {0.51, 0, 5}, {0.5, 0, 1}, {0, 0, 1},
		{0.9, 1, 15}, {0.9, 2, 22.5}, {0.6, 3, 5 * 1.5 * 1.5 * 1.5}, {0.2, 4, 1.5 * 1.5 * 1.5 * 1.5},
		{0.9, 7, 10 * math.Pow(1.5, 7)},                // 170.9: under the cap
		{0.9, 8, 10 * math.Pow(1.5, 8)}, {0.9, 9, 365}, // 256.3, then 384.4 capped at 365 days
		{0.9, 100, 365}, {0.2, 1000, 365},
		{0.2, 14, math.Pow(1.5, 14)}, {0.2, 15, 365}, // 291.9, then the cap
		{0.6, -2, 5}, // no negative recalls
	}
	for _, tt := range tests {
		if got := hippo.EbbinghausStability(tt.intensity, tt.recalls); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("EbbinghausStability(%v, %d) = %v, want %v", tt.intensity, tt.recalls, got, tt.want)
		}
	}
}

func TestEbbinghausRetention(t *testing.T) {
	tests := []struct {
		since     time.Duration
		stability float64
		want      float64
	}{
		{0, 10, 1},
		{10 * ebbDay, 10, math.Exp(-1)}, // R at t = S is e^−1
		{5 * ebbDay, 5, math.Exp(-1)},
		{ebbDay, 1, math.Exp(-1)},
		{20 * ebbDay, 10, math.Exp(-2)},
		{12 * time.Hour, 1, math.Exp(-0.5)},
		{365 * ebbDay, 365, math.Exp(-1)},
		{-time.Hour, 10, 1},
		{ebbDay, 0, 0},
	}
	for _, tt := range tests {
		if got := hippo.EbbinghausRetention(tt.since, tt.stability); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("EbbinghausRetention(%v, %v) = %v, want %v", tt.since, tt.stability, got, tt.want)
		}
	}
	// strength = importance × R: a vivid memory (S 10) at 0.8 importance
	// after 10 days, and after a recall (S 15) the same 10 days later.
	if got, want := hippo.EbbinghausStrength(0.8, 10*day, hippo.EbbinghausStability(0.8, 0)), 0.8*math.Exp(-1); math.Abs(got-want) > 1e-12 {
		t.Errorf("strength %v, want %v", got, want)
	}
	if got, want := hippo.EbbinghausStrength(0.8, 10*day, hippo.EbbinghausStability(0.8, 1)), 0.8*math.Exp(-10.0/15); math.Abs(got-want) > 1e-12 {
		t.Errorf("strength after a recall %v, want %v", got, want)
	}
}
