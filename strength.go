package hippo

import (
	"math"
	"time"
)

// DecayResistance is 1 + ln(1 + accessCount) × ResistanceFactor: memories
// recalled often decay more slowly.
func (c Config) DecayResistance(accessCount int) float64 {
	if accessCount < 0 {
		accessCount = 0
	}
	return 1 + math.Log1p(float64(accessCount))*c.ResistanceFactor
}

// EffectiveStrength is intensity × e^(-λ / resistance × hours since last
// access). A negative age (clock skew) counts as zero.
func (c Config) EffectiveStrength(intensity float64, accessCount int, sinceAccess time.Duration) float64 {
	hours := sinceAccess.Hours()
	if hours < 0 {
		hours = 0
	}
	return intensity * math.Exp(-c.Lambda/c.DecayResistance(accessCount)*hours)
}

// HalfLife is how long an untouched chunk with accessCount accesses takes
// to lose half its strength.
func (c Config) HalfLife(accessCount int) time.Duration {
	hours := math.Ln2 * c.DecayResistance(accessCount) / c.Lambda
	return time.Duration(hours * float64(time.Hour))
}

// MovingAverage folds a new intensity reading into a running intensity
// built from encounters earlier readings.
func MovingAverage(running float64, encounters int, reading float64) float64 {
	if encounters < 0 {
		encounters = 0
	}
	return (running*float64(encounters) + reading) / float64(encounters+1)
}

// Boost is the running intensity after a retrieval: +RetrievalBoost,
// capped at 1.
func (c Config) Boost(intensity float64) float64 {
	return math.Min(1, intensity+c.RetrievalBoost)
}

// Recency is e^(-RecencyRate × days since creation), in [0, 1].
func (c Config) Recency(sinceCreation time.Duration) float64 {
	days := sinceCreation.Hours() / 24
	if days < 0 {
		days = 0
	}
	return math.Exp(-c.RecencyRate * days)
}

// Score is the recall ranking: WeightSimilarity·relevance +
// WeightStrength·strength + WeightRecency·recency, relevance being
// Relevance's. The relevance is clamped to [0, 1], so that nothing counts
// as a penalty.
func (c Config) Score(relevance, strength, recency float64) float64 {
	return c.WeightSimilarity*clamp01(relevance) + c.WeightStrength*strength + c.WeightRecency*recency
}

// ClampIntensity bounds an intensity reading to [0, 1]; NaN becomes the
// default intensity.
func (c Config) ClampIntensity(v float64) float64 {
	if math.IsNaN(v) {
		return c.DefaultIntensity
	}
	return clamp01(v)
}

// clamp01 bounds v to [0, 1]; NaN becomes 0.
func clamp01(v float64) float64 {
	switch {
	case math.IsNaN(v) || v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}
