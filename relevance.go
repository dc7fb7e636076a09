package hippo

import "math"

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
	// counts as relevance 0.5: about one rare word of the query in a
	// chunk of average length.
	DefaultBM25Half = 4
	// DefaultMinRelevance is the default relevance floor: a tenth of the
	// way from the unrelated level to a strong match, so that what is no
	// closer to the query than unrelated text is left out. On eval/testdata
	// it costs nothing against no floor at all (Recall@5 0.741 either way)
	// while off-topic questions find 92 memories instead of 400; 0.05 finds
	// 151, 0.15 finds 61 but starts to cost MRR.
	DefaultMinRelevance = 0.1
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
	lo, hi := c.CosineUnrelated, c.CosineStrong
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
	if !(s > 0) {
		return 0
	}
	if !(c.BM25Half > 0) || math.IsInf(s, 1) {
		return 1
	}
	return s / (s + c.BM25Half)
}

// Relevance is hybrid recall's relevance of a chunk with this cosine and
// BM25 score: α·BM25Relevance(bm25) + (1−α)·CosineRelevance(cosine). At
// α = 0 it is the cosine's relevance alone.
func (c Config) Relevance(cosine, bm25, alpha float64) float64 {
	r := (1 - alpha) * c.CosineRelevance(cosine)
	if alpha > 0 {
		r += alpha * c.BM25Relevance(bm25)
	}
	return r
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
