package hippo

import "fmt"

// DecayModel is how a database's strengths decay with time. Every
// strength is intensity × e^(−rate × hours), counted by the decay clock;
// the model decides the rate (Config.DecayRate) and what a recall adds
// (Config.RecallBoost).
type DecayModel string

const (
	// DecayHippo is the seed's model, the default: the rate is λ over the
	// decay resistance 1 + ln(1 + accesses) × ResistanceFactor, and a
	// recall adds RetrievalBoost to the running intensity.
	DecayHippo DecayModel = "hippo"
	// DecayEbbinghaus is MemoryMCP's forgetting curve R = e^(−t/S), t in
	// days since the last access: the stability S starts at 10, 5 or 1
	// days for an intensity above 0.7, above 0.5 or else, grows × 1.5 per
	// access up to 365 days (EbbinghausStability), and strength is the
	// intensity (importance) × R. A recall resets the clock and grows S;
	// it adds nothing to the intensity.
	DecayEbbinghaus DecayModel = "ebbinghaus"
)

// DecayModels are the models a database can choose, the default first:
// a new slice each call.
func DecayModels() []DecayModel { return []DecayModel{DecayHippo, DecayEbbinghaus} }

// RecordedDecayModel is the model a database records ("" for none:
// DecayHippo); an unknown one is EINVALID, most likely written by a newer
// Hippo.
func RecordedDecayModel(recorded string) (DecayModel, error) {
	m, err := ParseDecayModel(recorded)
	if err != nil {
		return "", Errorf(EINVALID, "this database records an unknown decay model %q (written by a newer hippo?)", recorded)
	}
	return m, nil
}

// ParseDecayModel reads a model name: "hippo" or "ebbinghaus"; "" is
// DecayHippo.
func ParseDecayModel(s string) (DecayModel, error) {
	switch m := DecayModel(s); m {
	case "":
		return DecayHippo, nil
	case DecayHippo, DecayEbbinghaus:
		return m, nil
	}
	return "", Invalidf("decay", "must be %q or %q, got %q", DecayHippo, DecayEbbinghaus, s)
}

// String is the model's name; the zero value is DecayHippo's.
func (m DecayModel) String() string {
	if m == "" {
		return string(DecayHippo)
	}
	return string(m)
}

// Describe says in a few words how the model decays, for stats.
func (m DecayModel) Describe(c Config) string {
	if m == DecayEbbinghaus {
		return fmt.Sprintf("ebbinghaus (R = e^(−t/S), S 10/5/1 days by intensity, ×%.1f per recall, at most %.0f days)",
			EbbinghausRecallGrowth, EbbinghausMaxStability)
	}
	return fmt.Sprintf("hippo (λ %g per hour over the decay resistance, +%.2f per recall)", c.Lambda, c.RetrievalBoost)
}

// DecayRate is the rate per hour at which a chunk of this running
// intensity, accessed accessCount times, decays under c.Decay: λ /
// DecayResistance(accessCount) under DecayHippo, 1 / (24 × S) under
// DecayEbbinghaus, S being EbbinghausStability(intensity, accessCount),
// so that e^(−rate × hours) is R = e^(−days/S). Every strength (recall,
// the floor, consolidation, the UI's curves) decays at this rate through
// Decay.
func (c Config) DecayRate(intensity float64, accessCount int) float64 {
	if c.Decay == DecayEbbinghaus {
		return 1 / (24 * EbbinghausStability(intensity, accessCount))
	}
	return c.Lambda / c.DecayResistance(accessCount)
}

// RecallBoost is what a recall adds to a chunk's running intensity:
// RetrievalBoost under DecayHippo, nothing under DecayEbbinghaus, whose
// importance a recall does not change (it grows the stability instead).
func (c Config) RecallBoost() float64 {
	if c.Decay == DecayEbbinghaus {
		return 0
	}
	return c.RetrievalBoost
}
