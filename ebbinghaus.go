package hippo

import (
	"math"
	"time"
)

// The Ebbinghaus decay model, an alternative to Decay's exponential in
// hours (this is its arithmetic; a database cannot choose it yet):
//
//	R(t) = e^(−t/S),  strength = importance × R(t)
//
// with t the days since the last access and S the stability in days: 10,
// 5 or 1 at creation for an emotional intensity above 0.7, above 0.5, or
// otherwise; multiplied by 1.5 on every recall, at most 365.
const (
	// EbbinghausRecallGrowth multiplies the stability on every recall.
	EbbinghausRecallGrowth = 1.5
	// EbbinghausMaxStability caps the stability, in days.
	EbbinghausMaxStability = 365.0
)

// EbbinghausInitialStability is the stability in days of a memory created
// with this emotional intensity: 10 above 0.7, 5 above 0.5, else 1.
func EbbinghausInitialStability(intensity float64) float64 {
	switch {
	case intensity > 0.7:
		return 10
	case intensity > 0.5:
		return 5
	}
	return 1
}

// EbbinghausStability is the stability in days after recalls recalls of a
// memory created with this intensity: the initial stability × 1.5 per
// recall, at most EbbinghausMaxStability. Negative recalls count as 0.
func EbbinghausStability(intensity float64, recalls int) float64 {
	s := EbbinghausInitialStability(intensity)
	for range max(0, recalls) {
		if s *= EbbinghausRecallGrowth; s >= EbbinghausMaxStability {
			return EbbinghausMaxStability
		}
	}
	return s
}

// EbbinghausRetention is R = e^(−t/S) for t since the last access and a
// stability in days; 1 for t ≤ 0, 0 for a stability that is not positive.
func EbbinghausRetention(sinceAccess time.Duration, stabilityDays float64) float64 {
	if sinceAccess <= 0 {
		return 1
	}
	if !(stabilityDays > 0) {
		return 0
	}
	days := sinceAccess.Hours() / 24
	return math.Exp(-days / stabilityDays)
}

// EbbinghausStrength is importance × R.
func EbbinghausStrength(importance float64, sinceAccess time.Duration, stabilityDays float64) float64 {
	return importance * EbbinghausRetention(sinceAccess, stabilityDays)
}
