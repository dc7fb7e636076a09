package hippo_test

import (
	"math"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

func TestParseDecayModel(t *testing.T) {
	tests := []struct {
		in      string
		want    hippo.DecayModel
		wantErr bool
	}{
		{"", hippo.DecayHippo, false},
		{"hippo", hippo.DecayHippo, false},
		{"ebbinghaus", hippo.DecayEbbinghaus, false},
		{"Ebbinghaus", "", true},
		{"linear", "", true},
	}
	for _, tt := range tests {
		got, err := hippo.ParseDecayModel(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseDecayModel(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && hippo.ErrorCode(err) != hippo.EINVALID {
			t.Errorf("ParseDecayModel(%q): code %s, want EINVALID", tt.in, hippo.ErrorCode(err))
		}
	}
}

// TestDecayModels checks the one decay rate under both models against
// their designs' formulas: the seed's intensity × e^(−λ/resistance ×
// hours) and MemoryMCP's importance × e^(−t/S), with the stabilities
// 10/5/1 by intensity, × 1.5 per recall and the 365-day cap.
func TestDecayModels(t *testing.T) {
	hip := hippo.DefaultConfig()
	ebb := hippo.DefaultConfig()
	ebb.Decay = hippo.DecayEbbinghaus
	tests := []struct {
		intensity float64
		access    int
		since     time.Duration
		wantHippo float64
		wantEbb   float64
	}{
		// R at t = S is e^−1, for each initial stability.
		{0.9, 0, 10 * day, 0.9 * math.Exp(-0.001*240), 0.9 * math.Exp(-1)},
		{0.6, 0, 5 * day, 0.6 * math.Exp(-0.001*120), 0.6 * math.Exp(-1)},
		{0.3, 0, day, 0.3 * math.Exp(-0.001*24), 0.3 * math.Exp(-1)},
		// One recall: S × 1.5; the seed's resistance 1 + ln 2 × 0.3.
		{0.9, 1, 15 * day, 0.9 * math.Exp(-0.001/(1+math.Log(2)*0.3)*360), 0.9 * math.Exp(-1)},
		{0.3, 2, 4 * day, 0.3 * math.Exp(-0.001/(1+math.Log(3)*0.3)*96), 0.3 * math.Exp(-4/2.25)},
		// The cap: 10 × 1.5^9 = 384 days is held at 365.
		{0.8, 9, 365 * day, 0.8 * math.Exp(-0.001/(1+math.Log(10)*0.3)*365*24), 0.8 * math.Exp(-1)},
		{0.8, 50, 730 * day, 0.8 * math.Exp(-0.001/(1+math.Log(51)*0.3)*730*24), 0.8 * math.Exp(-2)},
		// No time, no decay; clock skew counts as none.
		{0.5, 0, 0, 0.5, 0.5},
		{0.5, 3, -time.Hour, 0.5, 0.5},
	}
	for _, tt := range tests {
		if got := hip.EffectiveStrength(tt.intensity, tt.access, tt.since); math.Abs(got-tt.wantHippo) > 1e-12 {
			t.Errorf("hippo: strength(%v, %d, %v) = %v, want %v", tt.intensity, tt.access, tt.since, got, tt.wantHippo)
		}
		if got := ebb.EffectiveStrength(tt.intensity, tt.access, tt.since); math.Abs(got-tt.wantEbb) > 1e-12 {
			t.Errorf("ebbinghaus: strength(%v, %d, %v) = %v, want %v", tt.intensity, tt.access, tt.since, got, tt.wantEbb)
		}
		// The ebbinghaus rate is the arithmetic of ebbinghaus.go.
		if tt.since > 0 {
			want := hippo.EbbinghausStrength(tt.intensity, tt.since, hippo.EbbinghausStability(tt.intensity, tt.access))
			if got := ebb.EffectiveStrength(tt.intensity, tt.access, tt.since); math.Abs(got-want) > 1e-12 {
				t.Errorf("ebbinghaus: strength %v, EbbinghausStrength %v", got, want)
			}
		}
	}
	// Half-lives: S × ln 2 under ebbinghaus, the seed's 29 days under hippo.
	if got := ebb.HalfLife(0.9, 0).Hours() / 24; math.Abs(got-10*math.Ln2) > 1e-6 {
		t.Errorf("ebbinghaus half-life %v days, want %v", got, 10*math.Ln2)
	}
	if got := math.Round(hip.HalfLife(0.9, 0).Hours() / 24); got != 29 {
		t.Errorf("hippo half-life %v days, want 29", got)
	}
	// The zero model is the seed's.
	var zero hippo.Config = hip
	zero.Decay = ""
	if zero.DecayRate(0.9, 3) != hip.DecayRate(0.9, 3) {
		t.Error("an empty Decay is not DecayHippo")
	}
}

func TestRecallBoost(t *testing.T) {
	cfg := hippo.DefaultConfig()
	if got := cfg.Boost(0.5); math.Abs(got-0.52) > 1e-12 {
		t.Errorf("hippo boost: %v, want 0.52 (the seed's +0.02)", got)
	}
	if got := cfg.Boost(0.99); got != 1 {
		t.Errorf("hippo boost caps at 1, got %v", got)
	}
	cfg.Decay = hippo.DecayEbbinghaus
	if got := cfg.Boost(0.5); got != 0.5 {
		t.Errorf("ebbinghaus boost: %v, want the importance unchanged", got)
	}
}
