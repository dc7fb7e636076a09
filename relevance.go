package hippo

import (
	"math"
	"time"
)

// Recall relevance is absolute: it depends on the query and the chunk
// alone, never on the other chunks a query happens to find, so that
// "relevance 0.9" means a strong match on every query and a floor
// (MinRelevance) means the same everywhere. A cosine is placed between the
// embedder's calibrated levels (CosineRelevance), a full-text score
// saturates (BM25Relevance), and hybrid recall weighs the two by α.

// Default relevance calibration, for embedders that carry none (API models
// such as OpenAI's text-embedding-3-small, whose unrelated sentences
// score about 0 to 0.2 and paraphrases 0.7 to 0.9). Embedders whose
// cosines sit elsewhere implement RelevanceCalibrated.
const (
	// DefaultCosineUnrelated is the cosine at or below which a chunk
	// counts as unrelated to the query: relevance 0.
	DefaultCosineUnrelated = 0.2
	// DefaultCosineStrong is the cosine at or above which a chunk counts
	// as a strong match: relevance 1.
	DefaultCosineStrong = 0.75
	// DefaultBM25Half is the BM25 score (FTS5's, higher is better) that
	// counts as relevance 0.5: two or three rare words of the query in a
	// chunk of average length (one scores 4 to 8 among 10,000 chunks).
	DefaultBM25Half = 12
	// DefaultMinRelevance is the default relevance floor: a tenth of the
	// way from the unrelated level to a strong match, so that what is no
	// closer to the query than unrelated text is left out (eval/README.md
	// has the figures it was chosen by).
	DefaultMinRelevance = 0.1
	// DefaultWeakResults is Config.WeakResults' default: a recall adds
	// the three closest chunks under the floor after its relevant
	// results, marked weak, while the limit has room.
	DefaultWeakResults = 3
	// DefaultNewerTopic and DefaultNewerRelevance are Config.NewerTopic's
	// and Config.NewerRelevance's defaults (eval/README.md has the
	// figures they were chosen by).
	DefaultNewerTopic     = 0.6
	DefaultNewerRelevance = 0.2
	DefaultNewerLink      = 0.2
	// DefaultPartBytes and DefaultPartWeight are Config.PartBytes' and
	// Config.PartWeight's defaults (eval/README.md has the figures).
	DefaultPartBytes  = 800
	DefaultPartWeight = 0.6
)

// StrongRelevance is the relevance of a cosine at CosineStrong: a strong
// match is 0.9, and closer matches still rank above it, up to 1 for an
// identical direction.
const StrongRelevance = 0.9

// CosineRelevance maps a cosine to relevance in [0, 1], piecewise
// linearly: 0 at or below CosineUnrelated, StrongRelevance (0.9) at
// CosineStrong, 1 at cosine 1. NaN is 0. Levels that are not in order
// (CosineUnrelated < CosineStrong < 1) make it a step: 0 at or below
// CosineUnrelated, 1 above.
func (c Config) CosineRelevance(cosine float64) float64 {
	return cosineRelevance(c.CosineUnrelated, c.CosineStrong, cosine)
}

func cosineRelevance(lo, hi, cosine float64) float64 {
	switch {
	case !(cosine > lo): // NaN too
		return 0
	case !(hi > lo && hi < 1):
		return 1
	case cosine <= hi:
		return StrongRelevance * (cosine - lo) / (hi - lo)
	}
	return math.Min(1, StrongRelevance+(1-StrongRelevance)*(cosine-hi)/(1-hi))
}

// BM25Relevance maps a full-text score s (higher is better, 0 for no
// shared word) to relevance in [0, 1): s/(s+BM25Half). It saturates, so
// that one shared word is partial relevance and only many rare ones come
// near 1. A negative or NaN score is 0; a non-positive BM25Half gives 1 for
// any positive score.
func (c Config) BM25Relevance(s float64) float64 {
	return bm25Relevance(c.BM25Half, s)
}

func bm25Relevance(half, s float64) float64 {
	if !(s > 0) {
		return 0
	}
	if !(half > 0) || math.IsInf(s, 1) {
		return 1
	}
	return s / (s + half)
}

// Relevance is hybrid recall's relevance of a chunk with this cosine and
// BM25 score: Fuse of CosineRelevance(cosine) and BM25Relevance(bm25).
func (c Config) Relevance(cosine, bm25, alpha float64) float64 {
	if !(alpha > 0) {
		return c.CosineRelevance(cosine)
	}
	return Fuse(c.CosineRelevance(cosine), c.BM25Relevance(bm25), alpha)
}

// Long content is discounted. A long text covers more of everything: its
// mean-pooled vector sits close to many questions about its topic, and it
// holds more of any query's words, while unrelated cosines do not grow
// with length. Past LengthPivot bytes, a chunk's cosine relevance is
// multiplied by (LengthPivot/size)^CosineLengthExponent and its BM25 score
// by (LengthPivot/size)^BM25LengthExponent, on top of BM25's own length
// normalisation. The discount depends on the chunk alone, so relevance
// stays absolute, and it is a factor, so a long text that matches well
// stays above the floor. The constants were chosen together with BM25Half,
// FuseSecond and MiniLM's α on the tune halves of eval/'s sets
// (eval/README.md has the figures).
const (
	// DefaultLengthPivot is the size in bytes, about 70 English words,
	// past which content is discounted.
	DefaultLengthPivot = 400
	// DefaultCosineLengthExponent is the power of LengthPivot/size that
	// multiplies the cosine's relevance: ×0.77 at 940 bytes, ×0.66 at
	// 1,600, ×0.5 at 4 KB.
	DefaultCosineLengthExponent = 0.3
	// DefaultBM25LengthExponent is the power of LengthPivot/size that
	// multiplies the BM25 score: ×0.65 at 940 bytes, ×0.5 at 1,600.
	DefaultBM25LengthExponent = 0.5
)

// LengthExcess is ln(size/LengthPivot) for content of size bytes longer
// than the pivot, else 0 (and 0 when LengthPivot is 0).
func (c Config) LengthExcess(size int) float64 {
	return lengthExcess(c.LengthPivot, size)
}

func lengthExcess(pivot, size int) float64 {
	if pivot <= 0 || size <= pivot {
		return 0
	}
	return math.Log(float64(size) / float64(pivot))
}

// LengthFactors are the discounts of content of size bytes:
// (LengthPivot/size)^CosineLengthExponent for the cosine's relevance and
// (LengthPivot/size)^BM25LengthExponent for the BM25 score; 1 and 1 up to
// the pivot. Negative exponents count as 0.
func (c Config) LengthFactors(size int) (cosine, bm25 float64) {
	return lengthFactors(c.LengthPivot, c.CosineLengthExponent, c.BM25LengthExponent, size)
}

func lengthFactors(pivot int, cosExp, bm25Exp float64, size int) (cosine, bm25 float64) {
	x := lengthExcess(pivot, size)
	if x == 0 {
		return 1, 1
	}
	return math.Exp(-max(0, cosExp) * x), math.Exp(-max(0, bm25Exp) * x)
}

// SizedRelevance is Relevance for content of size bytes: the cosine's
// relevance and the BM25 score discounted by LengthFactors.
func (c Config) SizedRelevance(cosine, bm25 float64, size int, alpha float64) float64 {
	rc, rb := c.SizedParts(cosine, bm25, size)
	return Fuse(rc, rb, alpha)
}

// SizedParts are the cosine's and the BM25 score's relevance for content
// of size bytes, each discounted by LengthFactors: what SizedRelevance
// fuses.
func (c Config) SizedParts(cosine, bm25 float64, size int) (rc, rb float64) {
	fc, fb := c.LengthFactors(size)
	return c.CosineRelevance(cosine) * fc, c.BM25Relevance(bm25 * fb)
}

// Fuse combines a cosine relevance rc and a full-text relevance rb, both
// in [0, 1], weighted by α. Each side is first weighted,
//
//	rc' = 1 − (1−rc)^wc,  rb' = 1 − (1−rb)^wb,  wc = min(1, (1−α)/α),  wb = min(1, α/(1−α)),
//
// then the stronger of the two counts whole and the weaker adds
// FuseSecond of its evidence:
//
//	1 − (1 − max(rc', rb')) · (1 − FuseSecond·min(rc', rb'))
//
// At α = 0 it is rc, at α = 1 rb. A chunk that matches on one side only
// keeps that side's relevance whole (the side with the larger weight) or
// in part: a paraphrase that shares no word with the query is not halved
// for it, as a weighted sum would halve it. A chunk that matches on both
// sides gains from the second, but two weak matches do not overtake one
// strong one, as they do under a plain noisy-OR (FuseSecond 1). It is at
// most rc + rb, and it grows with each.
func Fuse(rc, rb, alpha float64) float64 {
	switch {
	case !(alpha > 0):
		return rc
	case alpha >= 1:
		return rb
	}
	wc, wb := FuseWeights(alpha)
	return fuseWeighted(rc, rb, wc, wb)
}

// fuseWeighted is Fuse for α in (0, 1), whose weights are wc and wb.
func fuseWeighted(rc, rb, wc, wb float64) float64 {
	c, b := 1-Pow1m(rc, wc), 1-Pow1m(rb, wb)
	if c < b {
		c, b = b, c
	}
	return 1 - (1-c)*(1-FuseSecond*b)
}

// FuseSecond is how much of the weaker side's relevance Fuse adds to the
// stronger's. Chosen with the other relevance constants on the tune
// halves of eval/'s own set and LongMemEval (see DefaultLengthPivot).
const FuseSecond = 0.3

// FuseWeights are Fuse's exponents for α in (0, 1).
func FuseWeights(alpha float64) (wc, wb float64) {
	return math.Min(1, (1-alpha)/alpha), math.Min(1, alpha/(1-alpha))
}

// Pow1m is (1−x)^w for x in [0, 1], without math.Pow in the common cases
// (x = 0, w = 1) that recall meets for nearly every chunk.
func Pow1m(x, w float64) float64 {
	switch {
	case !(x > 0):
		return 1
	case x >= 1:
		return 0
	case w == 1:
		return 1 - x
	}
	return math.Pow(1-x, w)
}

// RelevanceFloor is the floor a recall applies: in.MinRelevance when
// given, else MinRelevance. EINVALID naming min_relevance when the floor
// given is not between 0 and 1 (NaN included).
func (c Config) RelevanceFloor(in RecallInput) (float64, error) {
	if in.MinRelevance == nil {
		return c.MinRelevance, nil
	}
	v := *in.MinRelevance
	if !(v >= 0 && v <= 1) {
		return 0, Invalidf("min_relevance", "must be between 0 and 1, got %v", v)
	}
	return v, nil
}

// Ranking is a Config's relevance and score for one α, held as the few
// numbers they read. A recall scores every row of an index, several
// times each, and Config's methods copy the whole Config per call: more
// than the scoring itself. Its methods give what Config's and Fuse give.
type Ranking struct {
	alpha, wc, wb                   float64 // Fuse's α and weights
	unrelated, strong, bm25Half     float64
	pivot                           int
	cosExp, bm25Exp                 float64
	wSimilarity, wStrength, wRecent float64
	recencyRate                     float64
}

// Ranking is c's ranking for α.
func (c Config) Ranking(alpha float64) *Ranking {
	r := &Ranking{alpha: alpha, unrelated: c.CosineUnrelated, strong: c.CosineStrong, bm25Half: c.BM25Half,
		pivot: c.LengthPivot, cosExp: c.CosineLengthExponent, bm25Exp: c.BM25LengthExponent,
		wSimilarity: c.WeightSimilarity, wStrength: c.WeightStrength, wRecent: c.WeightRecency, recencyRate: c.RecencyRate}
	if alpha > 0 && alpha < 1 {
		r.wc, r.wb = FuseWeights(alpha)
	}
	return r
}

// CosineRelevance is Config.CosineRelevance.
func (r *Ranking) CosineRelevance(cosine float64) float64 {
	return cosineRelevance(r.unrelated, r.strong, cosine)
}

// BM25Relevance is Config.BM25Relevance.
func (r *Ranking) BM25Relevance(s float64) float64 { return bm25Relevance(r.bm25Half, s) }

// LengthFactors is Config.LengthFactors.
func (r *Ranking) LengthFactors(size int) (cosine, bm25 float64) {
	if r.pivot <= 0 || size <= r.pivot {
		return 1, 1 // lengthFactors' answer, without the call
	}
	return lengthFactors(r.pivot, r.cosExp, r.bm25Exp, size)
}

// Fuse is Fuse with the ranking's α.
func (r *Ranking) Fuse(rc, rb float64) float64 {
	switch {
	case !(r.alpha > 0):
		return rc
	case r.alpha >= 1:
		return rb
	}
	return fuseWeighted(rc, rb, r.wc, r.wb)
}

// Score is Config.Score.
func (r *Ranking) Score(relevance, strength, recency float64) float64 {
	return score(r.wSimilarity, r.wStrength, r.wRecent, relevance, strength, recency)
}

// Recency is Config.Recency.
func (r *Ranking) Recency(sinceCreation time.Duration) float64 {
	return recency(r.recencyRate, sinceCreation)
}
