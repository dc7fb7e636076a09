package hippo

import (
	"math"
	"sort"
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

// Decay is intensity × e^(-rate × hours): the strength of a chunk after
// hours of decay at rate. Negative hours (clock skew) count as zero.
func Decay(intensity, rate, hours float64) float64 {
	if hours < 0 {
		hours = 0
	}
	return intensity * math.Exp(-rate*hours)
}

// EffectiveStrength is intensity × e^(−DecayRate × hours since last
// access): under DecayHippo e^(−λ / resistance × hours), under
// DecayEbbinghaus importance × e^(−days/S). A negative age (clock skew)
// counts as zero.
func (c Config) EffectiveStrength(intensity float64, accessCount int, sinceAccess time.Duration) float64 {
	return Decay(intensity, c.DecayRate(intensity, accessCount), sinceAccess.Hours())
}

// StrengthBy is the chunk's effective strength with its decay counted by
// clock (WallHours or ActiveHours).
func (c Config) StrengthBy(ch *Chunk, clock DecayClock) float64 {
	return Decay(ch.RunningIntensity, c.DecayRate(ch.RunningIntensity, ch.AccessCount), clock(ch.LastAccessedAt.UnixMilli()))
}

// FadeHours is how many hours of decay at rate take intensity under the
// strength floor: 0 when it is under already, and false when it never
// gets there (no decay).
func (c Config) FadeHours(intensity, rate float64) (float64, bool) {
	switch {
	case intensity <= c.StrengthFloor:
		return 0, true
	case rate <= 0:
		return 0, false
	}
	return math.Log(intensity/c.StrengthFloor) / rate, true
}

// A DecayClock gives the hours a chunk has decayed since its last access
// (unix milliseconds): wall time (WallHours) or the agent's active hours
// only (ActiveHours).
type DecayClock func(lastAccessMs int64) float64

const msPerHour = float64(time.Hour / time.Millisecond)

// WallHours is the wall-time decay clock at now (unix milliseconds): every
// hour counts.
func WallHours(nowMs int64) DecayClock {
	return func(last int64) float64 { return math.Max(0, float64(nowMs-last)/msPerHour) }
}

// ActiveHours is the active decay clock at now (unix milliseconds): only
// the hours in active (unix hours, ascending) in which the agent used its
// memory count, those after the hour of the last access up to now's.
func ActiveHours(active []int64, nowMs int64) DecayClock {
	nowH := int64(float64(nowMs) / msPerHour)
	end := sort.Search(len(active), func(i int) bool { return active[i] > nowH })
	return func(last int64) float64 {
		lastH := int64(float64(last) / msPerHour)
		start := sort.Search(len(active), func(i int) bool { return active[i] > lastH })
		return float64(max(0, end-start))
	}
}

// ActiveCrossing is when, counting only the active hours (unix hours,
// ascending) after lastAccess (unix milliseconds), h hours had passed: the
// end of the ceil(h)-th active hour, or of the last one when there are
// fewer.
func ActiveCrossing(active []int64, lastAccessMs int64, h float64) time.Time {
	lastH := int64(float64(lastAccessMs) / msPerHour)
	start := sort.Search(len(active), func(i int) bool { return active[i] > lastH })
	i := start + int(math.Ceil(h)) - 1
	if i < start {
		return time.UnixMilli(lastAccessMs)
	}
	if i >= len(active) {
		i = len(active) - 1
	}
	return time.Unix((active[i]+1)*3600, 0)
}

// HalfLife is how long an untouched chunk of this intensity with
// accessCount accesses takes to lose half its strength under c.Decay.
func (c Config) HalfLife(intensity float64, accessCount int) time.Duration {
	hours := math.Ln2 / c.DecayRate(intensity, accessCount)
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

// Boost is the running intensity after a retrieval: +RecallBoost (the
// seed's RetrievalBoost under DecayHippo, nothing under DecayEbbinghaus),
// capped at 1.
func (c Config) Boost(intensity float64) float64 {
	return Boosted(intensity, c.RecallBoost())
}

// DefaultBoostResults is Config.BoostResults' default: the first three
// results of a recall count as used.
const DefaultBoostResults = 3

// BoostedResults is how many of a page of n results, starting at rank
// offset, get the retrieval event: those among the first BoostResults of
// the ranking, or all n when BoostResults is 0 or less.
func (c Config) BoostedResults(offset, n int) int {
	if c.BoostResults <= 0 {
		return n
	}
	return max(0, min(n, c.BoostResults-offset))
}

// Boosted is intensity raised by boost, capped at 1: Config.Boost with the
// boost given, for stores that apply it where the intensity is kept.
func Boosted(intensity, boost float64) float64 {
	return math.Min(1, intensity+boost)
}

// Strengthen folds reading into the chunk's running intensity as one more
// encounter (MovingAverage); when accessed it also counts as an access at
// now. Storing a duplicate, stating a known fact again and a vote all go
// through it.
func (c *Chunk) Strengthen(reading float64, now time.Time, accessed bool) {
	c.RunningIntensity = MovingAverage(c.RunningIntensity, c.EncounterCount, reading)
	c.EncounterCount++
	if accessed {
		c.AccessCount++
		c.LastAccessedAt = now
	}
}

// Merge folds drop into c when two chunks say the same: encounters and
// accesses add up, the running intensity is their encounter-weighted
// mean, and the last access is the later one.
func (c *Chunk) Merge(drop *Chunk) {
	enc := c.EncounterCount + drop.EncounterCount
	if enc > 0 {
		c.RunningIntensity = (c.RunningIntensity*float64(c.EncounterCount) + drop.RunningIntensity*float64(drop.EncounterCount)) / float64(enc)
	}
	c.EncounterCount = enc
	c.AccessCount += drop.AccessCount
	if drop.LastAccessedAt.After(c.LastAccessedAt) {
		c.LastAccessedAt = drop.LastAccessedAt
	}
}

// Recency is e^(-RecencyRate × days since creation), in [0, 1].
func (c Config) Recency(sinceCreation time.Duration) float64 {
	return recency(c.RecencyRate, sinceCreation)
}

func recency(rate float64, sinceCreation time.Duration) float64 {
	days := sinceCreation.Hours() / 24
	if days < 0 {
		days = 0
	}
	return math.Exp(-rate * days)
}

// Score is the recall ranking: WeightSimilarity·relevance +
// WeightStrength·strength + WeightRecency·recency, relevance being
// Relevance's. The relevance is clamped to [0, 1], so that nothing counts
// as a penalty.
func (c Config) Score(relevance, strength, recency float64) float64 {
	return score(c.WeightSimilarity, c.WeightStrength, c.WeightRecency, relevance, strength, recency)
}

func score(wSimilarity, wStrength, wRecency, relevance, strength, recency float64) float64 {
	return wSimilarity*clamp01(relevance) + wStrength*strength + wRecency*recency
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
