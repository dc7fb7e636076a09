package hippo

import "time"

// RecallInput is the input of Recall.
type RecallInput struct {
	Query string
	// Limit is 1..Config.MaxLimit; 0 means Config.DefaultLimit.
	Limit int
	// Offset skips that many of the best results (paging).
	Offset int
	// Kind restricts results to facts or memories; "" means both.
	Kind Kind
	// Tags keeps chunks whose metadata "tags" holds any of these.
	Tags []string
	// Category keeps chunks whose metadata "category" equals it.
	Category string
	// Since and Until bound the creation time (inclusive).
	Since, Until *time.Time
	// MinStrength and MinScore drop weaker results; 0 means no bound
	// beyond Config.StrengthFloor.
	MinStrength, MinScore float64
	// AsOf answers with what was current at that time: facts superseded
	// later are included, chunks created later excluded, and fading does
	// not hide history.
	AsOf *time.Time
	// Alpha, when set, overrides Config.HybridAlpha for this call: the
	// weight of full-text (BM25) relevance against vector similarity, 0 to
	// 1. 0 is pure vector recall, 1 ranks by BM25 alone.
	Alpha *float64
	// MinRelevance is the relevance floor, 0 to 1: results less relevant
	// (see Recalled.Relevance) are neither returned nor boosted. nil means
	// Config.MinRelevance, the calibrated default that leaves out what is
	// no closer to the query than unrelated text; a pointer to 0 sets no
	// floor, every chunk being eligible however unrelated, as before
	// relevance had one.
	MinRelevance *float64
	// DryRun ranks as usual and changes nothing: no retrieval boost, no
	// access counted, no activity recorded. The results' Chunk and
	// Strength are as stored before the call. For looking without
	// touching (the web UI's recall preview).
	DryRun bool
	// IncludeSuspicious includes chunks flagged as reading like
	// instructions to the agent (Chunk.Suspicious), which recall leaves
	// out otherwise; they come back marked. get_context never includes
	// them.
	IncludeSuspicious bool
}

// RecallPage is a page of recall results with the size of the whole
// result set.
type RecallPage struct {
	Results []Recalled `json:"results"`
	// Total is how many chunks matched the query's filters, strength floor,
	// relevance floor and min_score: every chunk paging can reach.
	Total int `json:"total"`
	// Distribution counts the matching chunks by score band.
	Distribution ScoreDistribution `json:"score_distribution"`
	// Alpha is the weight of BM25 the results were ranked with: the α
	// asked for, or Config.HybridAlpha.
	Alpha float64 `json:"alpha"`
	// MinRelevance is the relevance floor the results were chosen with.
	MinRelevance float64 `json:"min_relevance"`
}

// ScoreDistribution counts scores in bands of 0.2.
type ScoreDistribution struct {
	Below02    int `json:"below_0.2"`
	From02To04 int `json:"0.2_to_0.4"`
	From04To06 int `json:"0.4_to_0.6"`
	From06To08 int `json:"0.6_to_0.8"`
	From08To10 int `json:"0.8_to_1.0"`
}

// Add counts one score.
func (d *ScoreDistribution) Add(score float64) {
	switch {
	case score < 0.2:
		d.Below02++
	case score < 0.4:
		d.From02To04++
	case score < 0.6:
		d.From04To06++
	case score < 0.8:
		d.From06To08++
	default:
		d.From08To10++
	}
}

// Recalled is one recall result with the parts of its score: Score is
// WeightSimilarity·Relevance + WeightStrength·Strength +
// WeightRecency·Recency.
type Recalled struct {
	// Chunk is the recalled chunk as the retrieval boost left it, without
	// its Embedding (nil: recall does not copy vectors it has no use for).
	Chunk *Chunk `json:"chunk"`
	// Similarity is the cosine between the query and the chunk.
	Similarity float64 `json:"similarity"`
	// BM25 is the chunk's full-text score for the query's words (higher is
	// better); 0 when its words do not match, it is not among the best
	// matches, or recall is pure vector.
	BM25 float64 `json:"bm25"`
	// CosineRelevance is Similarity placed between the embedder's
	// calibrated levels (Config.CosineRelevance): 0 at or below the
	// unrelated level, 1 at or above a strong match.
	CosineRelevance float64 `json:"cosine_relevance"`
	// BM25Relevance is BM25 saturated into [0, 1) (Config.BM25Relevance).
	BM25Relevance float64 `json:"bm25_relevance"`
	// LengthExcess is how far the chunk runs past Config.LengthPivot,
	// ln(bytes/pivot), 0 for content no longer: CosineRelevance and
	// BM25Relevance are discounted for it (Config.LengthFactors).
	LengthExcess float64 `json:"length_excess,omitempty"`
	// Relevance fuses the two, with RecallPage.Alpha as α (Fuse: at α 0 the
	// cosine's, at α 1 the BM25's, between them independent evidence,
	// neither side halving the other). It is absolute, the same for the same query
	// and chunk whatever else is stored: 0.9 is always a strong match.
	Relevance float64 `json:"relevance"`
	Strength  float64 `json:"strength"`
	Recency   float64 `json:"recency"`
	Score     float64 `json:"score"`
	// Weak marks a result under the relevance floor: fewer than
	// Config.WeakResults results passed it, and this is among the closest
	// of the rest. It is not boosted. All results weak means nothing
	// stored is clearly about the query.
	Weak bool `json:"weak,omitempty"`
	// Corrects is the ID of a result below this one: a text remember_facts
	// kept, one of whose facts this result superseded. A correction ranks
	// above the text that states the value it corrects, whatever their
	// scores.
	Corrects string `json:"corrects,omitempty"`
	// Updates is the ID of a result below this one: an older memory on
	// the same topic, which this one follows because it says something
	// changed ("the gig got moved to the 13th", "update: …"). A correction
	// stored as it was said supersedes nothing; this ranks it above what
	// it corrects (Config.NewerTopic).
	Updates string `json:"updates,omitempty"`
	// Part, when not 0, says the memory was found through its sentence of
	// that number (from 1): Similarity is that sentence's vector's, mixed
	// with the whole memory's (Config.PartWeight). A follow-up's last part
	// (engine.ContextPart) is itself read after Chunk.ContextOf's text.
	Part int `json:"part,omitempty"`
}
