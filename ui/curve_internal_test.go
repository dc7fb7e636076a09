package ui

import (
	"testing"

	"github.com/hippo-mem/hippo"
)

// TestProjectCurveDecayModels draws a chunk's curve under both models: an
// intensity 0.3 chunk never recalled crosses the 0.05 floor after ln 6 /
// λ = 74.7 days under the seed's model, after ln 6 × S = 1.8 days under
// Ebbinghaus (S = 1 day), and after 9.1 days once four recalls made S
// 1.5^4 = 5.06 days. The curve is sampled every 3 days.
func TestProjectCurveDecayModels(t *testing.T) {
	tests := []struct {
		model  hippo.DecayModel
		access int
		fades  int
	}{
		{hippo.DecayHippo, 0, 75},
		{hippo.DecayEbbinghaus, 0, 3},
		{hippo.DecayEbbinghaus, 4, 12},
	}
	for _, tt := range tests {
		cfg := hippo.DefaultConfig()
		cfg.Decay = tt.model
		c := &hippo.Chunk{RunningIntensity: 0.3, AccessCount: tt.access}
		if got := projectCurve(cfg, c, 0.3).FadesIn; got != tt.fades {
			t.Errorf("%s, %d accesses: fades in %d days, want %d", tt.model, tt.access, got, tt.fades)
		}
	}
}
