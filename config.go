package hippo

// Config holds every tunable constant of the strength model, scoring,
// conflict resolution and input limits. DefaultConfig returns the values
// Hippo uses unless told otherwise; the zero Config is not useful on its
// own.
type Config struct {
	// Decay is the decay model; empty is DecayHippo. A store records its
	// database's model and its Config carries it: given to a store at
	// open (sqlite.Options.Config), a non-empty Decay chooses the
	// database's model, as sqlite.Options.Decay does.
	Decay DecayModel
	// Lambda is the decay rate per hour (λ) of DecayHippo.
	Lambda float64
	// ResistanceFactor scales ln(1+access_count) in the decay resistance.
	ResistanceFactor float64
	// RetrievalBoost is added to running intensity when a chunk is recalled.
	RetrievalBoost float64
	// BoostResults is how many of a recall's results, first in rank order,
	// count as used and get the retrieval event (RetrievalBoost, one more
	// access); the rest are returned unchanged. 0 boosts every result.
	// Boosting all ten results of every recall made recall worse with use:
	// chunks that come back often for other questions grew strong enough
	// to crowd out the relevant ones.
	BoostResults int
	// RecencyRate is the per-day rate of the recency score e^(-rate·days).
	RecencyRate float64
	// WeightSimilarity, WeightStrength and WeightRecency weigh the three
	// signals of the recall score. The defaults, 0.9 / 0.07 / 0.03 (the
	// seed's 0.6 / 0.3 / 0.1 tuned, as it asks), let strength and recency
	// order results of similar relevance without lifting an unrelated chunk
	// over a relevant one: the strongest and newest chunk gains at most 0.1
	// of score, a relevance difference of 0.11. At 0.6 / 0.3 / 0.1 a
	// self-description at intensity 0.85 outranked a fact about twice as
	// relevant, and recall lost up to 3 points of R@10 with use.
	WeightSimilarity float64
	WeightStrength   float64
	WeightRecency    float64
	// StrengthFloor excludes chunks whose effective strength is below it.
	StrengthFloor float64
	// DefaultIntensity is the reading used when none is given (store_memory).
	DefaultIntensity float64

	// DuplicateThreshold: similarity above it is a duplicate, no LLM asked.
	DuplicateThreshold float64
	// NewThreshold: similarity below it is a new fact, no LLM asked.
	NewThreshold float64
	// ForgetThreshold is forget_memory's default minimum similarity.
	ForgetThreshold float64
	// Candidates is how many existing facts a new fact is compared with.
	Candidates int

	// HybridAlpha weighs full-text (BM25) relevance against vector
	// similarity in recall, 0 to 1: relevance = Fuse(CosineRelevance(cosine),
	// BM25Relevance(bm25), α) (see Relevance). 0, the default, is pure
	// vector recall; embedders that gain from full text carry their own
	// (see Hybrid).
	HybridAlpha float64

	// CosineUnrelated and CosineStrong are the embedder's cosine levels
	// that recall relevance is calibrated on: at or below CosineUnrelated
	// a chunk is no more similar to the query than unrelated texts are
	// (relevance 0), at CosineStrong it matches as closely as a typical
	// paraphrase does (relevance 0.9, StrongRelevance; 1 is an identical
	// direction). The defaults, DefaultCosineUnrelated
	// and DefaultCosineStrong, suit API models such as
	// text-embedding-3-small; embedders that measured their own carry
	// them (see RelevanceCalibrated).
	CosineUnrelated float64
	CosineStrong    float64
	// BM25Half is the full-text score that BM25Relevance maps to 0.5: a
	// score s counts as s/(s+BM25Half), so relevance from shared words
	// saturates towards 1 and means the same on every query.
	BM25Half float64
	// MinRelevance is recall's relevance floor when RecallInput does not
	// give one: results less relevant are neither returned nor boosted.
	// Relevance 0 is the embedder's unrelated level, so a floor in
	// relevance means the same for every embedder; the default,
	// DefaultMinRelevance, is a tenth of the way to a strong match. 0 sets
	// no floor.
	MinRelevance float64
	// WeakResults: after the results that pass the default relevance
	// floor, recall adds up to WeakResults of the closest of the rest, by
	// cosine, while the limit has room, marked Recalled.Weak and not
	// boosted: an answer worded unlike its question can score under the
	// floor and still be the closest thing stored. Not when a floor is
	// asked for (RecallInput.MinRelevance) or on a later page. 0 adds
	// none.
	WeakResults int
	// NewerTopic and NewerRelevance rank a correction stored as it was
	// said above what it corrects, which nothing supersedes: among a
	// recall's results, a memory that says something changed ("the gig
	// got moved to the 13th", "update: …", "… is now …") comes just
	// above an older memory when the relevance of their cosine
	// (CosineRelevance) is at least NewerTopic, so that the two are on
	// one topic, and its own relevance at least NewerRelevance times the
	// older one's. Only the order of the results changes. A NewerTopic
	// of 0 turns it off.
	NewerTopic     float64
	NewerRelevance float64
	// NewerLink puts two memories on one topic under NewerTopic when they
	// name the same rare thing ("the deadline got pushed, now it's 15 may"
	// after "thesis deadline is 30 march"): a word of theirs that at most
	// two things said hold (a kept text and its facts counting once), with
	// their cosine's relevance at least NewerLink.
	// 0 leaves the topic to NewerTopic alone.
	NewerLink float64
	// PartBytes and PartWeight give a memory of several sentences, of at
	// most PartBytes bytes, a vector per sentence beside its own, by which
	// recall also finds it: PartWeight of the sentence's vector plus the
	// rest of the whole's (engine.PartVectors). A question about one thing
	// a message says meets the message's one vector, which sits between
	// all it says, near the unrelated level. PartBytes 0: no parts.
	PartBytes  int
	PartWeight float64
	// LengthPivot, CosineLengthExponent and BM25LengthExponent discount
	// the relevance of long content (see Config.LengthFactors): past
	// LengthPivot bytes the cosine's relevance is multiplied by
	// (LengthPivot/size)^CosineLengthExponent and the BM25 score by
	// (LengthPivot/size)^BM25LengthExponent. A LengthPivot of 0 turns it
	// off.
	LengthPivot          int
	CosineLengthExponent float64
	BM25LengthExponent   float64
	// AgentTextStatistics gives each agent's full-text scores its own
	// statistics (its row count, each word's rows among them, their mean
	// length) instead of the whole database's. Then nothing another agent
	// stores moves an agent's scores, and an agent cannot learn whether
	// another agent's memories hold a word by watching its own scores
	// (recall --explain shows them). Off by default: the relevance
	// constants were chosen on corpora of thousands of rows, and an
	// agent's own smaller corpus scores words lower (eval/README.md,
	// session 13: RealMem R@10 0.276 -> 0.260 with it on). Costs about
	// 0.25 ms a recall at 10,000 chunks when agents share a SQLite file.
	AgentTextStatistics bool

	// DefaultLimit and MaxLimit bound recall result counts.
	DefaultLimit int
	MaxLimit     int
	// MaxFactText bounds remember_facts input; MaxContent store_memory's.
	MaxFactText int
	MaxContent  int
	// MaxBlockValue bounds the size of a memory block.
	MaxBlockValue int
}

// DefaultConfig returns the default constants: decay λ 0.001 per hour,
// score weights 0.9 / 0.07 / 0.03, duplicate and new-fact thresholds 0.93 and
// 0.78, forget threshold 0.7 (the values for API embedders; offline
// embedders carry their own, see Calibrated).
func DefaultConfig() Config {
	return Config{
		Lambda:               0.001,
		ResistanceFactor:     0.3,
		RetrievalBoost:       0.02,
		BoostResults:         DefaultBoostResults,
		RecencyRate:          0.01,
		WeightSimilarity:     0.9,
		WeightStrength:       0.07,
		WeightRecency:        0.03,
		StrengthFloor:        0.05,
		DefaultIntensity:     0.5,
		DuplicateThreshold:   0.93,
		NewThreshold:         0.78,
		ForgetThreshold:      0.7,
		Candidates:           5,
		CosineUnrelated:      DefaultCosineUnrelated,
		CosineStrong:         DefaultCosineStrong,
		BM25Half:             DefaultBM25Half,
		MinRelevance:         DefaultMinRelevance,
		WeakResults:          DefaultWeakResults,
		NewerTopic:           DefaultNewerTopic,
		NewerRelevance:       DefaultNewerRelevance,
		NewerLink:            DefaultNewerLink,
		PartBytes:            DefaultPartBytes,
		PartWeight:           DefaultPartWeight,
		LengthPivot:          DefaultLengthPivot,
		CosineLengthExponent: DefaultCosineLengthExponent,
		BM25LengthExponent:   DefaultBM25LengthExponent,
		DefaultLimit:         10,
		MaxLimit:             50,
		MaxFactText:          10_000,
		MaxContent:           50_000,
		MaxBlockValue:        100_000,
	}
}

// Calibrated is implemented by embedders whose cosine scale differs from
// that of the API models Config's default thresholds suit, and which carry
// thresholds measured on their own vectors.
type Calibrated interface {
	Thresholds() (duplicate, new, forget float64)
}

// Hybrid is implemented by embedders whose recall gains from fusing
// full-text (BM25) relevance with their vectors' similarity, and which carry
// the weight measured for them.
type Hybrid interface {
	// HybridAlpha is the weight of BM25 in recall relevance, 0 to 1.
	HybridAlpha() float64
}

// RelevanceCalibrated is implemented by embedders that carry the cosine
// levels of their own vectors, measured on labelled pairs (see
// internal/calibrate): unrelated is the cosine that unrelated texts stay
// below, strong the cosine of a typical paraphrase. Recall maps a cosine
// to relevance between them (Config.CosineRelevance); embedders without
// the levels get DefaultCosineUnrelated and DefaultCosineStrong.
type RelevanceCalibrated interface {
	RelevanceLevels() (unrelated, strong float64)
}

// ForEmbedder returns c with the thresholds of e when e is Calibrated, its
// hybrid weight when e is Hybrid and its cosine levels when e is
// RelevanceCalibrated; other embedders keep c's.
func (c Config) ForEmbedder(e Embedder) Config {
	if cal, ok := e.(Calibrated); ok {
		c.DuplicateThreshold, c.NewThreshold, c.ForgetThreshold = cal.Thresholds()
	}
	if h, ok := e.(Hybrid); ok {
		c.HybridAlpha = h.HybridAlpha()
	}
	if r, ok := e.(RelevanceCalibrated); ok {
		c.CosineUnrelated, c.CosineStrong = r.RelevanceLevels()
	}
	return c
}
